// The mip chains of a scene's textures, built on the CPU at load (render/gpu_scene.cpp uploads
// them). Plain data; no Vulkan.
//
// Each level halves the one above (rounding down, at least 1 texel a side: Vulkan's level sizes)
// with an area-weighted box filter, so an odd size spreads its extra texel over its neighbours
// instead of dropping it. Colour textures (Texture::srgb) are filtered in linear light: the texels
// are decoded from sRGB, averaged, and encoded again, as an R8G8B8A8_SRGB image's sampler filters
// them; a 1-texel black and white checker becomes mid grey in linear light, sRGB 188, not 128.
// Data textures (normals, metallic-roughness, occlusion) are averaged as they are. Alpha is always
// linear. Each level is filtered from the previous one kept in float, so rounding never accumulates.
//
// alpha_weighted (textures an alphaMode MASK material samples, masked_textures()): colour is
// averaged premultiplied, sum(colour x alpha) / sum(alpha), so transparent texels, whose colour
// nobody sees at level 0, lend none to the coarse levels (a leaf's edge stays green, not the
// black or white of the cut-out around it). Where a texel's whole footprint is transparent its
// colour is the plain average (the alpha test discards it anyway).
#pragma once

#include <cstdint>
#include <vector>

#include "scene/scene.h"

struct MipLevel {
    uint32_t width = 0, height = 0;
    uint64_t offset = 0;  // into MipChain::rgba
};

struct MipChain {
    std::vector<MipLevel> levels;  // levels[0] is the texture itself
    std::vector<uint8_t> rgba;     // every level's RGBA8 texels, level after level
};

// floor(log2(max(width, height))) + 1: the full chain down to 1x1.
uint32_t mip_level_count(uint32_t width, uint32_t height);
// Bytes of the full RGBA8 chain of a width x height texture.
uint64_t mip_chain_bytes(uint32_t width, uint32_t height);
MipChain build_mip_chain(const Texture& texture, bool alpha_weighted = false);

// build_mip_chain of a texture that `scene` uploads, built on first use and kept with the scene
// (Scene::mip_chain_cache) for as long as it lives: every renderer of one scene (a test's renders,
// --compare's rows, --atlas's cells, the window's switches) uploads the same chains. Keyed by the
// texels, size and flags, not by the texture's place, so a scene copied and then edited (the copy
// shares the cache) gets the chains of its own texels.
const MipChain& scene_mip_chain(const Scene& scene, const Texture& texture, bool alpha_weighted);

// The texture at width x height (the layers of the array texture that stands in for descriptor
// indexing, render/gpu_scene.cpp): the same texture when it has that size already; else bilinear
// with repeat, in linear light for colour, from the finest of its mip levels no smaller than the
// target (alpha_weighted: colour averaged premultiplied, as its mips are).
Texture resample_texture(const Texture& texture, uint32_t width, uint32_t height, bool alpha_weighted = false);

// Per scene texture: whether an alphaMode MASK material samples it as its base colour.
std::vector<bool> masked_textures(const Scene& scene);

float srgb_to_linear(float encoded);
float linear_to_srgb(float linear);
