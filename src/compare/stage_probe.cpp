#include "compare/stage_probe.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "render/text_format.h"
#include "vk/resources.h"
#include "vk/timer.h"

const char* const kStageProbeMeaning =
    "the same arithmetic in a fragment shader takes this many times its time in a compute shader on this device: "
    "a graphics-stage path starts that far behind a compute one whatever its subgroup operations do (on data-center "
    "Hopper, graphics stages run on 2 graphics-capable TPCs while compute uses all 132 SMs)";

std::optional<double> StageProbe::ratio() const {
    if (!ran || compute_ms <= 0) return std::nullopt;
    return fragment_ms / compute_ms;
}

namespace {

constexpr VkFormat kProbeFormat = VK_FORMAT_R32_SFLOAT;
constexpr uint32_t kMinIterations = 16, kMaxIterations = 1u << 16;
constexpr double kComputeTargetMs = 1.0, kFragmentLimitMs = 50.0;

struct Probe {
    const Context& ctx;
    Pipeline fragment, compute;
    Image fragment_target, compute_target;
    VkQueryPool pool = VK_NULL_HANDLE;

    explicit Probe(const Context& c) : ctx(c) {
        GraphicsDesc d;
        d.color_formats = {kProbeFormat};
        d.vertex_attributes = 0;  // resolve.vert's full-screen triangle from gl_VertexIndex
        d.cull_mode = VK_CULL_MODE_NONE;
        d.depth_write = false;
        d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "resolve.vert.main"}, {VK_SHADER_STAGE_FRAGMENT_BIT, "probe.frag.main"}};
        fragment = create_graphics_pipeline(ctx, d);
        compute = create_compute_pipeline(ctx, {"probe.comp.main"});
        VkExtent2D extent{kStageProbeSize, kStageProbeSize};
        fragment_target = create_image(ctx, extent, kProbeFormat,
                                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "probe fragment target");
        compute_target = create_image(ctx, extent, kProbeFormat, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      "probe compute target");
        VkQueryPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        pool_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
        pool_info.queryCount = 4;
        VK_CHECK(vkCreateQueryPool(ctx.device, &pool_info, nullptr, &pool));
    }
    ~Probe() { vkDestroyQueryPool(ctx.device, pool, nullptr); }

    // One submission: the dispatch, then the fragment pass, each between two timestamps. Returns
    // {fragment ms, compute ms}. Compute goes first for lavapipe: there, timestamps written after a
    // draw are taken by its rasterizer, and a dispatch between two of them reads as ~0 ms.
    std::pair<double, double> run(uint32_t iterations) {
        VkCommandBuffer cmd = begin_one_shot(ctx);
        vkCmdResetQueryPool(cmd, pool, 0, 4);
        VkExtent2D extent = fragment_target.extent;
        // Every texel is written: the previous contents are discarded (and the write ordered after
        // the previous submission's and its readback's).
        // Hand-written: a probe outside the frame, timing two passes on images of its own.
        transition(cmd, fragment_target, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                   VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, true);
        // Hand-written: the same probe's compute target.
        transition(cmd, compute_target, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 2);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, compute.handle());
        Descriptors().storage_image(0, compute_target.view).push(cmd, compute);
        push_constants(cmd, compute, &iterations, sizeof(iterations));
        vkCmdDispatch(cmd, extent.width / 8, extent.height / 8, 1);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 3);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 0);
        VkRenderingAttachmentInfo color = color_attachment(fragment_target, VK_ATTACHMENT_LOAD_OP_DONT_CARE);
        begin_rendering(cmd, extent, &color, nullptr);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, fragment.handle());
        push_constants(cmd, fragment, &iterations, sizeof(iterations));
        vkCmdDraw(cmd, 3, 1, 0, 0);
        vkCmdEndRendering(cmd);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 1);
        end_one_shot(ctx, cmd);
        uint64_t ticks[4];
        VK_CHECK(vkGetQueryPoolResults(ctx.device, pool, 0, 4, sizeof(ticks), ticks, sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        double to_ms = ctx.info.timestamp_period_ns * 1e-6;
        return {double(ticks[1] - ticks[0]) * to_ms, double(ticks[3] - ticks[2]) * to_ms};
    }

    std::vector<float> read(Image& image) {
        std::vector<uint8_t> bytes = read_image(ctx, image, sizeof(float));
        std::vector<float> values(image.extent.width * image.extent.height);
        memcpy(values.data(), bytes.data(), bytes.size());
        return values;
    }
};

}  // namespace

StageProbe measure_stage_throughput(const Context& ctx, uint32_t repeats) {
    Probe probe(ctx);
    StageProbe p;
    p.width = p.height = kStageProbeSize;
    p.repeats = repeats;
    // Calibrate: both sides at the fewest trips, then as many as bring the compute side to about
    // 1 ms, so the loop outweighs launch and rasterizer overheads on a fast GPU, but no more than
    // keep the fragment side under 50 ms (a device whose compute timestamps read near zero, as
    // lavapipe's do, must not scale the loop to seconds).
    auto [fragment_ms, compute_ms] = probe.run(kMinIterations);
    double scale = compute_ms > 0 ? kComputeTargetMs / compute_ms : 1.0;
    if (fragment_ms > 0) scale = std::min(scale, kFragmentLimitMs / fragment_ms);
    p.iterations = uint32_t(std::clamp(double(kMinIterations) * scale, double(kMinIterations), double(kMaxIterations)));
    probe.run(p.iterations);  // untimed: the first submission at this size pays for caches and clocks
    std::vector<double> fragment, compute;
    for (uint32_t i = 0; i < repeats; ++i) {
        auto [f, c] = probe.run(p.iterations);
        fragment.push_back(f);
        compute.push_back(c);
    }
    p.fragment_ms = summarize(fragment).median;
    p.compute_ms = summarize(compute).median;
    std::vector<float> a = probe.read(probe.fragment_target), b = probe.read(probe.compute_target);
    for (size_t i = 0; i < a.size(); ++i) p.differing_texels += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    p.last_texel = b.back();
    p.ran = true;
    return p;
}

nlohmann::json stage_probe_json(const StageProbe& p) {
    if (!p.ran) return nullptr;
    auto ratio = p.ratio();
    return {{"fragment_ms", p.fragment_ms},
            {"compute_ms", p.compute_ms},
            {"fragment_over_compute", ratio ? nlohmann::json(*ratio) : nlohmann::json(nullptr)},
            {"invocations", p.invocations()},
            {"width", p.width},
            {"height", p.height},
            {"iterations", p.iterations},
            {"repeats", p.repeats},
            {"differing_texels", p.differing_texels},
            {"meaning", kStageProbeMeaning}};
}

std::string stage_probe_summary(const StageProbe& p) {
    auto ratio = p.ratio();
    if (!ratio) return "graphics-to-compute probe: not measured";
    return "graphics-to-compute probe: fragment " + fixed(*ratio, *ratio < 10 ? 2 : 1) + "x the compute time of the same loop (" +
           format_ms(p.fragment_ms) + " / " + format_ms(p.compute_ms) + " ms, " + std::to_string(p.invocations()) +
           " invocations x " + std::to_string(p.iterations) + " iterations)";
}
