// Light culling: per 16x16 tile light lists from the depth pre-pass (shaders/light_cull.comp), in
// a subgroup variant (ballot-aggregated atomics) and a fallback (one atomic per entry), and the
// light-count view (heat map of lights per tile with a legend).
#pragma once

#include <algorithm>
#include <vector>

#include "passes/allocation.h"
#include "passes/pass_unit.h"

// Entries each tile's list can hold. A tile touched by more lights keeps the first
// kLightListCapacity that reserved a slot; the rest are counted (light_list_overflow), never
// written. On the default scene no tile overflows at 1280x720 and above with up to 16384 lights;
// lights.cpp stops shrinking the radius past ~9000 lights, so at 65536 the densest tiles overflow,
// and the light-count view shows where. Memory: 2 KiB per tile, 63 MiB at 3840x2160.
constexpr uint32_t kLightListCapacity = 512;
// light_cull.comp sorts a list in shared memory sized kLightListCapacityMax (512 words).
static_assert(kLightListCapacity <= 512);

// Words after the lists, filled with kLightListGuardValue when the buffer is made: a write past the
// last tile's capacity would change them (the tests check they never change).
constexpr uint32_t kLightListGuardWords = 64;
constexpr uint32_t kLightListGuardValue = 0x5eed5eedu;

// The list buffer's layout (shaders/light_list.glsl): tile_count raw counts, then
// tile_count * capacity entries.
struct LightListLayout {
    uint32_t tiles_x = 0, tiles_y = 0, capacity = kLightListCapacity;

    uint32_t tile_count() const { return tiles_x * tiles_y; }
    size_t count_offset(uint32_t tile) const { return tile; }
    size_t entry_offset(uint32_t tile, uint32_t slot) const { return tile_count() + size_t(tile) * capacity + slot; }
    size_t words() const { return tile_count() + size_t(tile_count()) * capacity; }
};
LightListLayout light_list_layout(VkExtent2D extent);

// A tile's list as read back: `count` lights touched it; `lights` holds the min(count, capacity)
// that were stored, in the order they were appended.
struct TileList {
    uint32_t count = 0;
    std::vector<uint32_t> lights;
};
std::vector<TileList> decode_light_lists(const std::vector<uint32_t>& words, const LightListLayout& layout);

class LightCullPass : public PassUnit {
public:
    void create(const Context& ctx, VkExtent2D extent);
    void resize(const Context& ctx, VkExtent2D extent) override;  // device idle

    // Builds this frame's lists (subgroup or fallback) and sets f.light_lists; nothing when off.
    void record(FrameContext& f) override;
    // uniforms.tiles.z: the list capacity, 0 when no lists are built (forward then shades every light).
    void provide(FrameUniforms& uniforms, const Plan& plan) const override;
    // The light-count view (f.plan.view.mode), drawn over the final colour; its legend goes to f.overlay.
    void record_view(FrameContext& f) override;

    // Device idle: the list buffer as the last frame left it (see LightListLayout), guard words included.
    std::vector<uint32_t> read_lists(const Context& ctx) const;
    const LightListLayout& layout() const { return layout_; }

private:
    Pipeline subgroup_;
    Pipeline fallback_;
    Pipeline view_;
    Buffer lists_;
    LightListLayout layout_;
};

// The heat map's colour ramp (also in shaders/light_count.comp), t in [0, 1]; sRGB-encoded 0..1.
glm::vec3 heat_color(float t);

// Where the light-count view's legend lies (top-left), so tests can look at the map around it.
inline float light_count_legend_height(VkExtent2D extent) {
    return (6.0f + 36.0f) * std::clamp(float(extent.width) / 640.0f, 1.0f, 2.0f);
}
