// The mip's 2x2 box filter of HDR (RGBA16F) pixels. Every writer of the mip (the resolve pass's
// quad swaps, the forward shader's quad mip and its edge fix-up, the compute fallback) computes a
// texel with mip_texel(), so their texels are bit-identical, not just close (docs/quad-mip.md,
// "Exact at every texel"):
// - the four pixels are values the RGBA16F frame holds exactly (forward writes half_exact()
//   colours; the others read them back from the frame), widened to fp32 without rounding;
// - they are summed in fp32 in one fixed order, (a + b) + (c + d), with a, b the top row and c, d
//   the bottom row of the 2x2 block. Float addition is commutative bit for bit but not
//   associative, so the order of the two levels is what matters; the quad swaps give exactly this
//   order (first horizontal: a + b and c + d, then vertical), and the compute writers spell it out;
// - the average is rounded to a half-float value here, so the RGBA16F store converts it exactly
//   whichever rounding the device's conversion uses.
#ifndef BOX_FILTER_GLSL
#define BOX_FILTER_GLSL

// The half-float value nearest to v (ties to even), as a float: a store into a 16-bit float
// target then keeps it exactly. Negative and NaN inputs never occur (colours are >= 0); values past
// the largest half (65504) clamp to it.
float half_exact(float v) {
    v = clamp(v, 0.0, 65504.0);
    if (v < 6.103515625e-05)  // below the smallest normal half: the subnormals, steps of 2^-24
        return roundEven(v * 16777216.0) / 16777216.0;  // scaling by powers of two is exact
    uint bits = floatBitsToUint(v);
    bits = (bits + 0xFFFu + ((bits >> 13u) & 1u)) & ~0x1FFFu;  // round the 23-bit mantissa to 10, ties to even
    return uintBitsToFloat(bits);
}
vec4 half_exact(vec4 v) { return vec4(half_exact(v.x), half_exact(v.y), half_exact(v.z), half_exact(v.w)); }

// The box filter of the two sums a + b (top row) and c + d (bottom row).
vec4 mip_texel_of_rows(vec4 top, vec4 bottom) {
    precise vec4 sum = top + bottom;      // precise: no reassociation, no fusing with the scale
    return half_exact(sum * 0.25);        // * 0.25 is exact (a power of two)
}

// (a + b) + (c + d): a, b the top-left and top-right pixel, c, d the bottom-left and bottom-right.
vec4 mip_texel(vec4 a, vec4 b, vec4 c, vec4 d) {
    precise vec4 top = a + b;
    precise vec4 bottom = c + d;
    return mip_texel_of_rows(top, bottom);
}

#endif
