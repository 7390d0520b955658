// Per-tile light lists: the layout shared by light_cull.comp (writes), forward shading and the
// light-count view (read). Mirrored on the CPU by src/passes/light_cull_pass.h (LightListLayout).
//
// One uint array, sized on the host for the frame's tiles:
//   [0, tile_count)                               raw count of each tile: every light that touched it,
//                                                 including the ones that did not fit (> capacity)
//   [tile_count + tile * capacity + slot]         light index, for slot < min(count, capacity)
// Tiles are kLightTileSize x kLightTileSize pixels, row-major: tile = ty * tiles_across + tx.
// The capacity per tile is FrameUniforms.tiles.z (kLightListCapacity); 0 means "no lists this
// frame": shading then loops over every light.
#ifndef LIGHT_LIST_GLSL
#define LIGHT_LIST_GLSL

const uint kLightTileSize = 16;  // kTileSize in src/render/frame.h

uint light_tile_of_pixel(uvec2 pixel, uint tiles_across) {
    return (pixel.y / kLightTileSize) * tiles_across + pixel.x / kLightTileSize;
}

uint light_list_count_offset(uint tile) { return tile; }

uint light_list_entry_offset(uint tile, uint slot, uint tile_count, uint capacity) {
    return tile_count + tile * capacity + slot;
}

#endif
