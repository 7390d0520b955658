// HDR to display: exposure, the Khronos PBR Neutral tonemapper, sRGB encoding. Used by the resolve
// pass (the frame) and the mip view; mirrored on the CPU by src/render/tonemap.cpp (--mip-dump).
//
// Why PBR Neutral (Khronos, 2024): it is the identity below 0.76 (after a small toe offset), so a
// glTF base colour lit at unit exposure shows as authored, and it compresses only the highlights,
// desaturating them towards white: right for glTF content, where the asset's colours are the
// reference. ACES or AgX would shift hue and contrast across the whole range.
#ifndef TONEMAP_GLSL
#define TONEMAP_GLSL

#include "common.glsl"

vec3 pbr_neutral(vec3 color) {
    const float start_compression = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;
    float peak = max(color.r, max(color.g, color.b));
    if (peak < start_compression) return color;
    const float d = 1.0 - start_compression;
    float new_peak = 1.0 - d * d / (peak + d - start_compression);
    color *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3(new_peak), g);
}

// The sRGB-encoded colour (0..1) the 8-bit frame stores for linear `hdr` at `exposure`.
vec3 display(vec3 hdr, float exposure) { return srgb_encode(clamp(pbr_neutral(hdr * exposure), 0.0, 1.0)); }

#endif
