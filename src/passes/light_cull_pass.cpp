#include "passes/light_cull_pass.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "render/overlay.h"
#include "render/text_format.h"

namespace {

Buffer create_list_buffer(const Context& ctx, const LightListLayout& layout) {
    return create_buffer(ctx, (layout.words() + kLightListGuardWords) * sizeof(uint32_t),
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         MemoryKind::device_local, "light lists");
}

// The legend of the light-count view: the heat ramp with its numbers and the overflow colour.
// At widths of 640 and more it is drawn at twice the size.
void light_count_legend(Overlay& overlay, VkExtent2D extent, uint32_t capacity, const std::string& variant) {
    const float s = std::clamp(float(extent.width) / 640.0f, 1.0f, 2.0f);
    const float x = 6 * s, y = 6 * s, bar_x = x + 4 * s, bar_y = y + 14 * s, bar_w = 160 * s, bar_h = 8 * s;
    const uint32_t white = rgba8(255, 255, 255);
    std::string title = "lights per 16x16 tile (" + variant + ")";
    std::string overflow = "over " + std::to_string(capacity) + ": overflow";
    float swatch_x = bar_x + bar_w + 8 * s;
    float box_w = std::max(Overlay::text_width(title, s) + 8 * s, swatch_x + 12 * s + Overlay::text_width(overflow, s) - x + 4 * s);
    overlay.rect(x, y, box_w, 36 * s, rgba8(0, 0, 0, 190));
    overlay.text(x + 4 * s, y + 3 * s, title, white, s);
    const int steps = 64;
    for (int i = 0; i < steps; ++i) {
        glm::vec3 c = heat_color((float(i) + 0.5f) / steps) * 255.0f + 0.5f;
        overlay.rect(bar_x + bar_w * i / steps, bar_y, bar_w / steps, bar_h, rgba8(uint8_t(c.r), uint8_t(c.g), uint8_t(c.b)));
    }
    // Ticks at powers of 8 on the log scale t = log2(count + 1) / log2(capacity + 1); the bar ends
    // at the capacity.
    float denominator = std::log2(float(capacity) + 1.0f);
    for (uint32_t count = 1; count <= capacity; count *= 8) {
        float tx = bar_x + bar_w * std::log2(float(count) + 1.0f) / denominator;
        overlay.rect(tx - 0.5f * s, bar_y + bar_h, s, 2 * s, white);
        std::string label = std::to_string(count);
        overlay.text(tx - 0.5f * Overlay::text_width(label, s), bar_y + bar_h + 3 * s, label, white, s);
    }
    overlay.rect(swatch_x, bar_y, 8 * s, bar_h, rgba8(255, 0, 255));
    overlay.text(swatch_x + 12 * s, bar_y + 1 * s, overflow, white, s);
}

}  // namespace

glm::vec3 heat_color(float t) {
    const glm::vec3 stops[5] = {{0.10f, 0.20f, 1.00f}, {0.00f, 0.85f, 1.00f}, {0.10f, 0.90f, 0.20f},
                                {1.00f, 0.90f, 0.00f}, {1.00f, 0.15f, 0.05f}};
    float x = std::clamp(t, 0.0f, 1.0f) * 4.0f;
    uint32_t i = std::min(uint32_t(x), 3u);
    return glm::mix(stops[i], stops[i + 1], x - float(i));
}

LightListLayout light_list_layout(VkExtent2D extent) {
    LightListLayout l;
    l.tiles_x = (extent.width + kTileSize - 1) / kTileSize;
    l.tiles_y = (extent.height + kTileSize - 1) / kTileSize;
    l.capacity = kLightListCapacity;
    return l;
}

std::vector<TileList> decode_light_lists(const std::vector<uint32_t>& words, const LightListLayout& layout) {
    std::vector<TileList> tiles(layout.tile_count());
    if (words.size() < layout.words()) return {};
    for (uint32_t t = 0; t < layout.tile_count(); ++t) {
        tiles[t].count = words[layout.count_offset(t)];
        uint32_t stored = std::min(tiles[t].count, layout.capacity);
        for (uint32_t i = 0; i < stored; ++i) tiles[t].lights.push_back(words[layout.entry_offset(t, i)]);
    }
    return tiles;
}

void LightCullPass::create(const Context& ctx, VkExtent2D extent) {
    // Both paths from one SPIR-V where a plan can pick the subgroup one; elsewhere the fallback
    // twin, whose module declares no ballot or vote (shaders/subgroup_switch.glsl).
    bool possible = subgroup_path_possible(ctx, PassId::light_cull);
    std::string shader = possible ? "light_cull.comp.switch" : "light_cull.comp.no_subgroup";
    if (possible)
        subgroup_ = create_compute_pipeline(ctx, {.shader = shader, .forced_subgroup_size = true, .use_subgroup = true});
    fallback_ = create_compute_pipeline(ctx, {.shader = shader, .forced_subgroup_size = true});
    view_ = create_compute_pipeline(ctx, {"light_count.comp.main"});
    resize(ctx, extent);
}

void LightCullPass::resize(const Context& ctx, VkExtent2D extent) {
    layout_ = light_list_layout(extent);
    lists_ = create_list_buffer(ctx, layout_);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    vkCmdFillBuffer(cmd, lists_.buffer, layout_.words() * sizeof(uint32_t), kLightListGuardWords * sizeof(uint32_t),
                    kLightListGuardValue);
    end_one_shot(ctx, cmd);
}

void LightCullPass::record(FrameContext& f) {
    Variant variant = f.plan[PassId::light_cull].variant;
    if (variant != Variant::subgroup && variant != Variant::fallback) return;
    begin_label(f.ctx, f.cmd, debug_label(PassId::light_cull, variant));
    f.timer.begin(f.cmd, Timer::light_cull);

    // The counts cleared, after the previous frame's readers of the lists (forward, the
    // light-count view); then the lists built from the depth. DEPTH_READ_ONLY_OPTIMAL: sampled
    // here, then the forward pass's depth test reads it unchanged.
    FrameGraph& g = f.graph();
    g.bind(Res::light_lists, lists_);
    g.pass(f.cmd, {writes(Res::light_lists, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    vkCmdFillBuffer(f.cmd, lists_.buffer, 0, VkDeviceSize(layout_.tile_count()) * sizeof(uint32_t), 0);
    Image& depth = g.image(Res::depth);
    g.pass(f.cmd, {reads(Res::depth, kComputeStage, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, depth_read_layout(depth)),
                   writes(Res::light_lists, kComputeStage, kStorageReadWrite), writes(Res::counters, kComputeStage, kStorageReadWrite)});

    if (variant == Variant::subgroup && !subgroup_)
        throw std::runtime_error(std::string(pass_info(PassId::light_cull).label) + ": the subgroup variant was planned but the device cannot run it");
    const Pipeline& pipeline = variant == Variant::subgroup ? subgroup_ : fallback_;
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(1, f.lights);
    d.sampled_texels(2, depth.view, depth_read_layout(depth));
    d.buffer(3, lists_).buffer(4, f.counters);
    d.push(f.cmd, pipeline);
    // Sorted lists for the subgroup light loop (forward.frag); the same sets either way.
    uint32_t instrument = f.instrument ? 1u : 0u;
    push_constants(f.cmd, pipeline, &instrument, sizeof(instrument));
    vkCmdDispatch(f.cmd, layout_.tiles_x, layout_.tiles_y, 1);

    f.light_lists = &lists_;
    f.timer.end(f.cmd, Timer::light_cull);
    end_label(f.ctx, f.cmd);
}

void light_cull_report_counters(nlohmann::json& counters, const PassCounters& c) {
    counters["light_list_entries"] = c.frame.light_list_entries;
    counters["light_list_overflow"] = c.frame.light_list_overflow;
    counters["light_atomics"] = c.frame.light_atomics;  // the instrumented frame's, copied by the run
}

std::optional<HudLine> light_cull_hud_line(const PassCounters& c) {
    Variant v = c.plan[PassId::light_cull].variant;
    if (v == Variant::off || !c.ran) return HudLine{"lights", {{std::to_string(c.lights) + ", no light lists this frame", HudTone::dim}}};
    return HudLine{"lights",
                   {{std::to_string(c.lights) + ", " + thousands(c.frame.light_list_entries) + " list entries, "},
                    {thousands(c.frame.light_list_overflow) + " overflow",
                     c.frame.light_list_overflow ? HudTone::alert : HudTone::normal}}};
}

void light_cull_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    // A count per tile, `capacity` entries per tile, guard words after them.
    LightListLayout l = light_list_layout({q.width, q.height});
    out.push_back({"light lists", (l.words() + kLightListGuardWords) * 4, AllocationKind::storage_buffer, false});
}

void LightCullPass::provide(FrameUniforms& u, const Plan& plan) const {
    Variant v = plan[PassId::light_cull].variant;
    u.tiles.z = v == Variant::subgroup || v == Variant::fallback ? kLightListCapacity : 0u;
}

void LightCullPass::record_view(FrameContext& f) {
    if (f.plan.view.mode != ViewMode::light_count) return;
    if (!f.light_lists) {
        if (f.overlay) f.overlay->label(8, 8, "light-count view: --light-cull off builds no tile lists");
        return;
    }
    begin_label(f.ctx, f.cmd, debug_label(f.plan.view));
    f.timer.begin(f.cmd, Timer::view);
    f.graph().pass(f.cmd, {writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL),
                           reads(Res::light_lists, kComputeStage, kStorageRead)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view_.handle());
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(1, *f.light_lists).storage_image(2, f.targets.color.view);
    d.push(f.cmd, view_);
    vkCmdDispatch(f.cmd, (f.targets.extent.width + 7) / 8, (f.targets.extent.height + 7) / 8, 1);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    if (f.overlay)
        light_count_legend(*f.overlay, f.targets.extent, layout_.capacity, std::string(variant_name(f.plan[PassId::light_cull].variant)));
}

std::vector<uint32_t> LightCullPass::read_lists(const Context& ctx) const {
    std::vector<uint8_t> bytes = read_buffer(ctx, lists_);
    std::vector<uint32_t> words(layout_.words() + kLightListGuardWords);
    memcpy(words.data(), bytes.data(), std::min(bytes.size(), words.size() * sizeof(uint32_t)));
    return words;
}

std::unique_ptr<PassUnit> create_light_cull_unit(const UnitSetup& s) { return make_unit<LightCullPass>(s.ctx, s.extent); }
