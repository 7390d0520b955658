// HDR frames for the in-process pass tests (tests/gpu_compute, tests/gpu): half-float values
// rounded on the CPU independently of the shaders' bit trick, their upload and readback, and a
// frame to record one pass into. Names in namespace hdr_frame: the test executables are unity
// builds, where file-local names of different files meet.
#pragma once

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "image_transfer.h"

#include <gtest/gtest.h>
#include "render/renderer.h"
#include "render/tonemap.h"

namespace hdr_frame {

// float -> half bits, round to nearest even (independent of the shader's bit trick).
inline uint16_t float_to_half(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    float a = std::fabs(f);
    if (a >= 65520.0f) return uint16_t(sign | 0x7C00u);  // overflows to infinity (not produced here)
    if (a < 6.103515625e-05f) return uint16_t(sign | uint32_t(std::nearbyint(a * 16777216.0f)));  // subnormal steps 2^-24
    int e;
    float m = std::frexp(a, &e);                                // a = m * 2^e, m in [0.5, 1)
    uint32_t mantissa = uint32_t(std::nearbyint(m * 2048.0f));  // 11 significant bits, ties to even
    if (mantissa == 2048u) mantissa = 1024u, ++e;
    return uint16_t(sign | uint32_t(e + 14) << 10 | (mantissa - 1024u));
}

inline float round_to_half(float f) { return half_to_float(float_to_half(f)); }

struct HdrImage {
    uint32_t width, height;
    std::vector<float> rgba;  // 4 floats a texel, each a half value
    float at(uint32_t x, uint32_t y, int c) const { return rgba[(size_t(y) * width + x) * 4 + c]; }
};

// RGBA16F images as floats.
inline void upload(const Context& ctx, Image& image, const std::vector<float>& rgba) {
    std::vector<uint16_t> halves(rgba.size());
    for (size_t i = 0; i < rgba.size(); ++i) halves[i] = float_to_half(rgba[i]);
    upload_image(ctx, image, halves.data(), 8);
}

inline std::vector<float> download(const Context& ctx, Image& image) { return halves_to_floats(read_image(ctx, image, 8)); }

// What a pass needs of a frame to record into: targets, an empty scene, uniforms, lights, counters
// and an exposure state (zero: the fixed exposure's passes never read it, but bind it).
struct PassFrame {
    const Context& ctx;
    GpuScene scene;
    FrameTargets targets;
    Buffer uniforms, lights, counters, exposure_state;
    PassFrame(const Context& c, VkExtent2D extent) : ctx(c) {
        create_frame_targets(ctx, extent, targets);
        uniforms = create_buffer(ctx, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryKind::host_upload, "uniforms");
        lights = create_buffer(ctx, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::host_upload, "lights");
        counters = create_buffer(ctx, sizeof(GpuCounters), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                 MemoryKind::device_local, "counters");
        exposure_state = create_buffer(ctx, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::host_upload, "exposure state");
        memset(exposure_state.mapped, 0, 64);
    }
    template <typename Body>
    void run(const Plan& plan, uint32_t frame_index, Body body) {
        GpuTimer timer(ctx);
        VkCommandBuffer cmd = begin_one_shot(ctx);
        timer.reset(cmd);
        FrameContext f{ctx, cmd, timer, scene, targets, plan, uniforms, lights, counters, frame_index, 0};
        f.exposure_state = &exposure_state;
        body(f);
        end_one_shot(ctx, cmd);
    }
};

// A pseudo-random HDR frame: each channel a half value between 2^-16 and 2^16, exponents spread
// over the range, so that fp32 sums of four round and their order matters.
inline HdrImage random_hdr(VkExtent2D extent, uint32_t seed) {
    HdrImage hdr{extent.width, extent.height, std::vector<float>(size_t(extent.width) * extent.height * 4)};
    for (float& value : hdr.rgba) {
        float mantissa = 1.0f + float(next_random(seed) >> 22) / 1024.0f;  // 10 bits: a half's significand
        int exponent = int(next_random(seed) >> 27) - 16;                   // 2^-16 .. 2^15
        value = round_to_half(std::ldexp(mantissa, exponent));
    }
    return hdr;
}

// The mip's texel channels that differ, bit for bit, from the CPU's (a + b) + (c + d) of each 2x2
// block of `hdr` in fp32, rounded to the nearest half (box_filter.glsl); the first five are reported
// as failures. `order_matters` counts the channels another summation order would round differently.
inline int box_filter_mismatches(const HdrImage& hdr, const std::vector<float>& mip, int* order_matters = nullptr) {
    uint32_t mw = hdr.width / 2, mh = hdr.height / 2;
    if (mip.size() != size_t(mw) * mh * 4) {
        ADD_FAILURE() << "the mip holds " << mip.size() / 4 << " texels, not " << mw << "x" << mh;
        return int(mw * mh * 4);
    }
    int bad = 0;
    for (uint32_t y = 0; y < mh; ++y)
        for (uint32_t x = 0; x < mw; ++x)
            for (int c = 0; c < 4; ++c) {
                float a = hdr.at(2 * x, 2 * y, c), b = hdr.at(2 * x + 1, 2 * y, c);
                float cc = hdr.at(2 * x, 2 * y + 1, c), d = hdr.at(2 * x + 1, 2 * y + 1, c);
                volatile float top = a + b, bottom = cc + d;  // fp32, no contraction, this order
                float want = round_to_half((top + bottom) * 0.25f);
                volatile float left_first = ((a + cc) + b) + d;
                if (order_matters) *order_matters += round_to_half(left_first * 0.25f) != want;
                float got = mip[(size_t(y) * mw + x) * 4 + c];
                if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(want) && ++bad <= 5)
                    ADD_FAILURE() << "texel " << x << "," << y << " channel " << c << ": " << got << ", want " << want;
            }
    return bad;
}

}  // namespace hdr_frame
