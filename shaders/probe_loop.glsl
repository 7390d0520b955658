// The stage probe's arithmetic (src/compare/stage_probe.cpp, docs/benchmarks.md): one loop that
// probe.frag runs per pixel of a full-screen pass and probe.comp per invocation of a dispatch of
// the same size, so that the two times compare the stages' throughput and nothing else.
//
// Four independent fma chains give every lane enough independent work to keep its ALU busy; the
// iteration count is a push constant, so the compiler cannot unroll or fold the loop, and the
// result is stored, so it cannot drop it. `precise` pins the rounding of each fma: the same pixel
// gives the same float in both stages, which the probe checks texel by texel.
float probe_loop(uvec2 pixel, uint iterations) {
    precise vec4 a = vec4(pixel.xyxy) * vec4(1.0e-3, 1.3e-3, 0.7e-3, 0.9e-3) + vec4(0.1, 0.2, 0.3, 0.4);
    for (uint i = 0u; i < iterations; ++i)
        a = fma(a, vec4(0.9999, 0.9998, 0.9997, 0.9996), vec4(1.0e-4, 2.0e-4, 3.0e-4, 4.0e-4));
    precise float sum = a.x + a.y + a.z + a.w;
    return sum;
}
