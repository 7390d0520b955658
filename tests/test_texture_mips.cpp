// The mip chains built at load (scene/texture_mips.h) against values worked out by hand: the level
// sizes Vulkan expects, colour filtered in linear light and data as it is, and odd sizes spreading
// their extra texel by area.
#include "scene/texture_mips.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

Texture solid(int width, int height, uint8_t r, uint8_t g, uint8_t b, uint8_t a, bool srgb = true) {
    Texture t;
    t.width = width;
    t.height = height;
    t.srgb = srgb;
    for (int i = 0; i < width * height; ++i) t.rgba.insert(t.rgba.end(), {r, g, b, a});
    return t;
}

// A 1-texel black and white checker, alpha 0 on black and 255 on white.
Texture checker(int size, bool srgb) {
    Texture t = solid(size, size, 0, 0, 0, 0, srgb);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            if ((x + y) % 2) std::fill_n(&t.rgba[(size_t(y) * size + x) * 4], 4, uint8_t(255));
    return t;
}

}  // namespace

TEST(TextureMips, LevelSizesHalveDownToOneTexel) {
    MipChain chain = build_mip_chain(solid(37, 10, 10, 20, 30, 40));
    ASSERT_EQ(chain.levels.size(), 6u);  // 37x10, 18x5, 9x2, 4x1, 2x1, 1x1
    EXPECT_EQ(mip_level_count(37, 10), 6u);
    const uint32_t widths[] = {37, 18, 9, 4, 2, 1}, heights[] = {10, 5, 2, 1, 1, 1};
    uint64_t offset = 0;
    for (size_t l = 0; l < chain.levels.size(); ++l) {
        EXPECT_EQ(chain.levels[l].width, widths[l]);
        EXPECT_EQ(chain.levels[l].height, heights[l]);
        EXPECT_EQ(chain.levels[l].offset, offset);
        offset += uint64_t(widths[l]) * heights[l] * 4;
    }
    EXPECT_EQ(chain.rgba.size(), offset);
    EXPECT_EQ(mip_chain_bytes(37, 10), offset);
    // A constant texture stays that constant at every level (weights sum to 1).
    for (size_t i = 0; i < chain.rgba.size(); i += 4) {
        ASSERT_EQ(chain.rgba[i], 10);
        ASSERT_EQ(chain.rgba[i + 1], 20);
        ASSERT_EQ(chain.rgba[i + 2], 30);
        ASSERT_EQ(chain.rgba[i + 3], 40);
    }
}

// Black and white average to half the light: sRGB 188 for colour; data averages its numbers (128).
// Alpha is linear in both (here without alpha weighting: no masked material samples these).
TEST(TextureMips, ColourIsFilteredInLinearLightAndDataAsItIs) {
    MipChain colour = build_mip_chain(checker(8, true));
    MipChain data = build_mip_chain(checker(8, false));
    const uint8_t expected_colour = uint8_t(std::lround(linear_to_srgb(0.5f) * 255.0f));
    EXPECT_EQ(expected_colour, 188);
    for (size_t l = 1; l < colour.levels.size(); ++l)
        for (uint64_t i = colour.levels[l].offset; i < (l + 1 < colour.levels.size() ? colour.levels[l + 1].offset : colour.rgba.size());
             i += 4) {
            SCOPED_TRACE(l);
            ASSERT_EQ(colour.rgba[i], expected_colour);
            ASSERT_EQ(colour.rgba[i + 3], 128);  // 127.5 rounds up
            ASSERT_EQ(data.rgba[i], 128);
            ASSERT_EQ(data.rgba[i + 3], 128);
        }
}

// A masked texture's coarse levels against a CPU premultiplied box filter written here: level l's
// texel is the 2^l x 2^l block of level 0 under it, sum(colour x alpha) / sum(alpha) in linear
// light, the alpha its plain mean (power-of-two sizes, so successive halvings are that block). The
// checker's black texels are transparent: no black reaches any level, the colour stays white.
TEST(TextureMips, MaskedTexturesAverageColourWeightedByAlpha) {
    MipChain checked = build_mip_chain(checker(8, true), true);
    for (size_t l = 1; l < checked.levels.size(); ++l)
        for (uint64_t i = checked.levels[l].offset; i < (l + 1 < checked.levels.size() ? checked.levels[l + 1].offset : checked.rgba.size()); i += 4) {
            SCOPED_TRACE(l);
            ASSERT_EQ(checked.rgba[i], 255);
            ASSERT_EQ(checked.rgba[i + 3], 128);
        }
    // A 16 x 16 texture of pseudo-random colours and alphas (a third of them transparent), colour and data.
    for (bool srgb : {true, false}) {
        SCOPED_TRACE(srgb ? "colour" : "data");
        Texture t = solid(16, 16, 0, 0, 0, 0, srgb);
        uint32_t state = 12345;
        auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 24; };
        for (size_t i = 0; i < t.rgba.size(); i += 4) {
            for (int c = 0; c < 3; ++c) t.rgba[i + c] = uint8_t(next());
            uint32_t a = next();
            t.rgba[i + 3] = uint8_t(a < 85 ? 0 : a);
        }
        MipChain chain = build_mip_chain(t, true);
        auto decode = [&](uint8_t v) { return srgb ? double(srgb_to_linear(v / 255.0f)) : v / 255.0; };
        int compared = 0;
        for (size_t l = 1; l < chain.levels.size(); ++l) {
            const int block = 1 << l, size = 16 >> l;
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x) {
                    double weighted[3] = {0, 0, 0}, alpha = 0.0;
                    for (int j = 0; j < block; ++j)
                        for (int i = 0; i < block; ++i) {
                            const uint8_t* p = &t.rgba[(size_t(y * block + j) * 16 + x * block + i) * 4];
                            for (int c = 0; c < 3; ++c) weighted[c] += decode(p[c]) * p[3] / 255.0;
                            alpha += p[3] / 255.0;
                        }
                    const uint8_t* got = &chain.rgba[chain.levels[l].offset + (size_t(y) * size + x) * 4];
                    EXPECT_NEAR(got[3], alpha / (block * block) * 255.0, 0.5 + 1e-3);
                    if (alpha == 0.0) continue;
                    for (int c = 0; c < 3; ++c) {
                        double linear = weighted[c] / alpha;
                        double expected = (srgb ? linear_to_srgb(float(linear)) : linear) * 255.0;
                        EXPECT_NEAR(got[c], expected, 0.5 + 1e-3) << "level " << l << " texel " << x << ", " << y << " channel " << c;
                        ++compared;
                    }
                }
        }
        EXPECT_EQ(compared, 3 * (64 + 16 + 4 + 1));
    }
}

// Only textures an alphaMode MASK material samples as base colour are alpha-weighted.
TEST(TextureMips, MaskedTexturesAreTheMaskedMaterialsBaseColours) {
    Scene scene;
    scene.textures.resize(3);
    Material opaque, masked;
    opaque.base_color_texture = 0;
    opaque.emissive_texture = 1;
    masked.base_color_texture = 2;
    masked.emissive_texture = 1;
    masked.alpha_cutoff = 0.5f;
    scene.materials = {opaque, masked};
    EXPECT_EQ(masked_textures(scene), (std::vector<bool>{false, false, true}));
}

// 3 texels to 1: each counts a third (area), the odd one included: [0, 255, 0] averages to 85.
TEST(TextureMips, OddSizesWeighEveryTexelByArea) {
    Texture t = solid(3, 1, 0, 0, 0, 255, false);
    std::fill_n(&t.rgba[4], 3, uint8_t(255));  // the middle texel white
    MipChain chain = build_mip_chain(t);
    ASSERT_EQ(chain.levels.size(), 2u);
    EXPECT_EQ(chain.levels[1].width, 1u);
    EXPECT_EQ(chain.rgba[chain.levels[1].offset], 85);
    // 5 -> 2: texel 0 covers [0, 2.5): texels 0 and 1 whole, half of 2, each by 1/2.5.
    Texture row = solid(5, 1, 0, 0, 0, 255, false);
    for (int x = 0; x < 5; ++x) row.rgba[size_t(x) * 4] = uint8_t(x * 50);  // 0 50 100 150 200
    MipChain five = build_mip_chain(row);
    EXPECT_EQ(five.rgba[five.levels[1].offset], 40);       // (0 + 50 + 0.5 x 100) / 2.5
    EXPECT_EQ(five.rgba[five.levels[1].offset + 4], 160);  // (0.5 x 100 + 150 + 200) / 2.5
}

// The array texture's layers (devices without descriptor indexing, render/gpu_scene.cpp): a texture
// of the layers' size is kept to the byte; a smaller one is resampled bilinearly with repeat, in
// linear light for colour and as it is for data. Worked out by hand: a 2 x 1 texture of black and
// white doubled to 4 x 1. Target texel x has its centre at source (x + 0.5) / 2 - 0.5: -0.25, 0.25,
// 0.75, 1.25, so the weights of white (texel 1) are 0.25 (the left tap wraps round to it), 0.25,
// 0.75 and 0.75 (the right tap wraps round to black).
TEST(TextureMips, ResampleIsBilinearWithRepeatInLinearLight) {
    for (bool srgb : {false, true}) {
        Texture t = solid(2, 1, 0, 0, 0, 255, srgb);
        std::fill_n(&t.rgba[4], 3, uint8_t(255));
        Texture same = resample_texture(t, 2, 1);
        EXPECT_EQ(same.rgba, t.rgba);
        Texture doubled = resample_texture(t, 4, 1);
        ASSERT_EQ(doubled.width, 4);
        ASSERT_EQ(doubled.height, 1);
        EXPECT_EQ(doubled.srgb, srgb);
        const float white[4] = {0.25f, 0.25f, 0.75f, 0.75f};
        for (int x = 0; x < 4; ++x) {
            float expected = srgb ? linear_to_srgb(white[x]) : white[x];
            EXPECT_EQ(doubled.rgba[size_t(x) * 4], uint8_t(expected * 255.0f + 0.5f)) << "texel " << x << (srgb ? ", sRGB" : ", data");
            EXPECT_EQ(doubled.rgba[size_t(x) * 4 + 3], 255);
        }
    }
    // Down to a smaller size: from the mip level of that size, exactly (the centres fall on texels).
    Texture big = checker(4, false);
    Texture half = resample_texture(big, 2, 2);
    MipChain chain = build_mip_chain(big);
    ASSERT_EQ(chain.levels[1].width, 2u);
    EXPECT_EQ(half.rgba, std::vector<uint8_t>(chain.rgba.begin() + chain.levels[1].offset, chain.rgba.begin() + chain.levels[1].offset + 16));
}

// The scene's chains are built once and kept (every renderer of the scene uploads them), and are
// keyed by the texels: a copy of the scene shares the cache, and once its texture is edited it
// gets the chain of its own texels, not the original's.
TEST(TextureMips, SceneChainsAreBuiltOnceAndFollowTheTexels) {
    Scene scene;
    Texture t;
    t.width = 8, t.height = 4;
    for (int i = 0; i < t.width * t.height; ++i) t.rgba.insert(t.rgba.end(), {uint8_t(i * 7), uint8_t(255 - i), 40, 255});
    scene.textures.push_back(t);
    const MipChain& first = scene_mip_chain(scene, scene.textures[0], false);
    EXPECT_EQ(first.rgba, build_mip_chain(scene.textures[0], false).rgba);
    EXPECT_EQ(&scene_mip_chain(scene, scene.textures[0], false), &first) << "built again";
    EXPECT_EQ(scene_mip_chain(scene, scene.textures[0], true).rgba, build_mip_chain(scene.textures[0], true).rgba);

    Scene copy = scene;
    copy.textures[0].rgba[0] = 255, copy.textures[0].rgba[4] = 255;
    const MipChain& edited = scene_mip_chain(copy, copy.textures[0], false);
    EXPECT_EQ(edited.rgba, build_mip_chain(copy.textures[0], false).rgba);
    EXPECT_NE(edited.rgba, first.rgba);
    EXPECT_EQ(scene_mip_chain(scene, scene.textures[0], false).rgba, build_mip_chain(scene.textures[0], false).rgba);
}
