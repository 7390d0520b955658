#include "scene/texture_mips.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

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

// An even-sized level: each texel the mean of a 2x2 block, in the order the general filter below
// adds the same weights (a half is exact in float, so both give the same bits).
std::vector<float> halve_even(const std::vector<float>& src, uint32_t w, uint32_t nw, uint32_t nh) {
    std::vector<float> out(size_t(nw) * nh * 4);
    for (uint32_t y = 0; y < nh; ++y) {
        const float* top = &src[size_t(2 * y) * w * 4];
        const float* bottom = top + size_t(w) * 4;
        float* row = &out[size_t(y) * nw * 4];
        for (size_t x = 0; x < size_t(nw) * 4; x += 4)
            for (size_t c = 0; c < 4; ++c) {
                float upper = 0.5f * top[2 * x + c] + 0.5f * top[2 * x + 4 + c];
                float lower = 0.5f * bottom[2 * x + c] + 0.5f * bottom[2 * x + 4 + c];
                row[x + c] = 0.5f * upper + 0.5f * lower;
            }
    }
    return out;
}

// A level in linear float RGBA -> half its size, separably.
std::vector<float> halve(const std::vector<float>& src, uint32_t w, uint32_t h, uint32_t nw, uint32_t nh) {
    if (w == 2 * nw && h == 2 * nh) return halve_even(src, w, nw, nh);
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
    for (size_t i = 0; i < level.size(); i += 4) {
        for (size_t c = 0; c < 3; ++c) level[i + c] = decode[texture.rgba[i + c]];
        level[i + 3] = texture.rgba[i + 3] / 255.0f;
    }
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
        uint8_t* out = &*chain.rgba.insert(chain.rgba.end(), level.size(), 0);
        for (size_t i = 0; i < level.size(); i += 4) {
            bool premultiplied_colour = alpha_weighted && premultiplied[i + 3] > 0.0f;
            for (size_t c = 0; c < 3; ++c) {
                float v = premultiplied_colour ? premultiplied[i + c] / premultiplied[i + 3] : level[i + c];
                out[i + c] = to_byte(texture.srgb ? linear_to_srgb(v) : v);
            }
            out[i + 3] = to_byte(level[i + 3]);
        }
    }
    return chain;
}

struct MipChainCache {
    std::map<std::tuple<size_t, int, int, bool, bool>, MipChain> chains;
};

const MipChain& scene_mip_chain(const Scene& scene, const Texture& texture, bool alpha_weighted) {
    if (!scene.mip_chain_cache) scene.mip_chain_cache = std::make_shared<MipChainCache>();
    size_t texels = std::hash<std::string_view>{}({reinterpret_cast<const char*>(texture.rgba.data()), texture.rgba.size()});
    auto key = std::make_tuple(texels, texture.width, texture.height, texture.srgb, alpha_weighted);
    auto& chains = scene.mip_chain_cache->chains;
    if (auto found = chains.find(key); found != chains.end()) return found->second;
    return chains.emplace(key, build_mip_chain(texture, alpha_weighted)).first->second;
}

Texture resample_texture(const Texture& texture, uint32_t width, uint32_t height, bool alpha_weighted) {
    if (uint32_t(texture.width) == width && uint32_t(texture.height) == height) return texture;
    // The finest level of the chain that is no smaller than the target on either side: at most a
    // halving left for the bilinear taps, which a box level below would otherwise alias.
    MipChain chain = build_mip_chain(texture, alpha_weighted);
    size_t l = 0;
    while (l + 1 < chain.levels.size() && chain.levels[l + 1].width >= width && chain.levels[l + 1].height >= height) ++l;
    const MipLevel& from = chain.levels[l];
    std::array<float, 256> decode{};
    for (int i = 0; i < 256; ++i) decode[i] = texture.srgb ? srgb_to_linear(i / 255.0f) : i / 255.0f;
    auto texel = [&](int64_t x, int64_t y, int c) {
        x = (x % from.width + from.width) % from.width;  // repeat, as the sampler
        y = (y % from.height + from.height) % from.height;
        uint8_t v = chain.rgba[from.offset + (size_t(y) * from.width + size_t(x)) * 4 + size_t(c)];
        return c == 3 ? v / 255.0f : decode[v];
    };
    Texture out;
    out.width = int(width), out.height = int(height), out.srgb = texture.srgb;
    out.rgba.resize(size_t(width) * height * 4);
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            // The target texel's centre in the source level's texels, and its four bilinear taps.
            float sx = (x + 0.5f) * from.width / width - 0.5f, sy = (y + 0.5f) * from.height / height - 0.5f;
            int64_t x0 = int64_t(std::floor(sx)), y0 = int64_t(std::floor(sy));
            float fx = sx - float(x0), fy = sy - float(y0);
            float w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
            int64_t tx[4] = {x0, x0 + 1, x0, x0 + 1}, ty[4] = {y0, y0, y0 + 1, y0 + 1};
            float rgba[4] = {}, alpha_sum = 0;
            for (int k = 0; k < 4; ++k) {
                float a = texel(tx[k], ty[k], 3);
                rgba[3] += w[k] * a;
                float weight = alpha_weighted ? w[k] * a : w[k];
                alpha_sum += weight;
                for (int c = 0; c < 3; ++c) rgba[c] += weight * texel(tx[k], ty[k], c);
            }
            uint8_t* dst = &out.rgba[(size_t(y) * width + x) * 4];
            for (int c = 0; c < 3; ++c) {
                float v = alpha_weighted ? (alpha_sum > 0 ? rgba[c] / alpha_sum : 0.0f) : rgba[c];
                if (alpha_weighted && alpha_sum <= 0)  // every tap transparent: the plain average
                    for (int k = 0; k < 4; ++k) v += w[k] * texel(tx[k], ty[k], c);
                dst[c] = to_byte(texture.srgb ? linear_to_srgb(v) : v);
            }
            dst[3] = to_byte(rgba[3]);
        }
    return out;
}

std::vector<bool> masked_textures(const Scene& scene) {
    std::vector<bool> masked(scene.textures.size(), false);
    for (const Material& m : scene.materials)
        if (m.alpha_cutoff > 0.0f && m.base_color_texture >= 0 && size_t(m.base_color_texture) < masked.size())
            masked[m.base_color_texture] = true;
    return masked;
}
