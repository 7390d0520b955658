#include "scene/texture_mips.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace {

// One axis of the area-weighted box: destination texel i covers [i, i + 1) * (src / dst) source
// texels, and each source texel counts with the length it overlaps. src == 2 dst: (1/2, 1/2).
struct Tap {
    uint32_t first = 0, count = 0;
    std::array<float, 3> weights{};  // src / dst < 3 for a halving (src = 2 dst + 1 at most)
};

std::vector<Tap> axis_taps(uint32_t src, uint32_t dst) {
    std::vector<Tap> taps(dst);
    double scale = double(src) / double(dst);
    for (uint32_t i = 0; i < dst; ++i) {
        double a = i * scale, b = (i + 1) * scale;
        Tap& t = taps[i];
        t.first = uint32_t(std::floor(a));
        for (uint32_t s = t.first; s < src && double(s) < b && t.count < 3; ++s) {
            double overlap = std::min(b, double(s + 1)) - std::max(a, double(s));
            t.weights[t.count++] = float(overlap / scale);
        }
    }
    return taps;
}

// A level in linear float RGBA -> half its size, separably.
std::vector<float> halve(const std::vector<float>& src, uint32_t w, uint32_t h, uint32_t nw, uint32_t nh) {
    std::vector<Tap> tx = axis_taps(w, nw), ty = axis_taps(h, nh);
    std::vector<float> rows(size_t(nw) * h * 4, 0.0f);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < nw; ++x)
            for (uint32_t k = 0; k < tx[x].count; ++k)
                for (int c = 0; c < 4; ++c)
                    rows[(size_t(y) * nw + x) * 4 + c] += tx[x].weights[k] * src[(size_t(y) * w + tx[x].first + k) * 4 + c];
    std::vector<float> out(size_t(nw) * nh * 4, 0.0f);
    for (uint32_t y = 0; y < nh; ++y)
        for (uint32_t k = 0; k < ty[y].count; ++k)
            for (size_t i = 0; i < size_t(nw) * 4; ++i)
                out[size_t(y) * nw * 4 + i] += ty[y].weights[k] * rows[(size_t(ty[y].first) + k) * nw * 4 + i];
    return out;
}

uint8_t to_byte(float v) { return uint8_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); }

}  // namespace

float srgb_to_linear(float e) { return e <= 0.04045f ? e / 12.92f : std::pow((e + 0.055f) / 1.055f, 2.4f); }
float linear_to_srgb(float l) { return l <= 0.0031308f ? l * 12.92f : 1.055f * std::pow(l, 1.0f / 2.4f) - 0.055f; }

uint32_t mip_level_count(uint32_t width, uint32_t height) {
    uint32_t levels = 1;
    for (uint32_t size = std::max(width, height); size > 1; size >>= 1) ++levels;
    return levels;
}

uint64_t mip_chain_bytes(uint32_t width, uint32_t height) {
    uint64_t bytes = 0;
    for (uint32_t level = 0; level < mip_level_count(width, height); ++level)
        bytes += uint64_t(std::max(1u, width >> level)) * std::max(1u, height >> level) * 4;
    return bytes;
}

MipChain build_mip_chain(const Texture& texture, bool alpha_weighted) {
    MipChain chain;
    uint32_t w = uint32_t(std::max(texture.width, 0)), h = uint32_t(std::max(texture.height, 0));
    if (w == 0 || h == 0 || texture.rgba.size() < size_t(w) * h * 4) return chain;
    chain.rgba.reserve(mip_chain_bytes(w, h));
    chain.levels.push_back({w, h, 0});
    chain.rgba.insert(chain.rgba.end(), texture.rgba.begin(), texture.rgba.begin() + size_t(w) * h * 4);

    std::array<float, 256> decode{};
    for (int i = 0; i < 256; ++i) decode[i] = texture.srgb ? srgb_to_linear(i / 255.0f) : i / 255.0f;
    std::vector<float> level(size_t(w) * h * 4);
    for (size_t i = 0; i < level.size(); ++i) level[i] = i % 4 == 3 ? texture.rgba[i] / 255.0f : decode[texture.rgba[i]];
    // alpha_weighted: the colour times alpha beside it, filtered the same way (the box is linear).
    std::vector<float> premultiplied;
    if (alpha_weighted) {
        premultiplied = level;
        for (size_t i = 0; i < premultiplied.size(); i += 4)
            for (int c = 0; c < 3; ++c) premultiplied[i + c] *= level[i + 3];
    }

    for (uint32_t l = 1, count = mip_level_count(w, h); l < count; ++l) {
        uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2);
        level = halve(level, w, h, nw, nh);
        if (alpha_weighted) premultiplied = halve(premultiplied, w, h, nw, nh);
        w = nw, h = nh;
        chain.levels.push_back({w, h, chain.rgba.size()});
        for (size_t i = 0; i < level.size(); ++i) {
            float v = level[i];
            if (alpha_weighted && i % 4 != 3 && premultiplied[i - i % 4 + 3] > 0.0f)
                v = premultiplied[i] / premultiplied[i - i % 4 + 3];
            chain.rgba.push_back(to_byte(i % 4 == 3 || !texture.srgb ? v : linear_to_srgb(v)));
        }
    }
    return chain;
}

std::vector<bool> masked_textures(const Scene& scene) {
    std::vector<bool> masked(scene.textures.size(), false);
    for (const Material& m : scene.materials)
        if (m.alpha_cutoff > 0.0f && m.base_color_texture >= 0 && size_t(m.base_color_texture) < masked.size())
            masked[m.base_color_texture] = true;
    return masked;
}
