#include "render/overlay.h"

#include <cstring>

#include "render/text_quads.h"

void Overlay::create(const Context& ctx, uint32_t slots) {
    for (uint32_t i = 0; i < slots; ++i)
        buffers_.push_back(create_buffer(ctx, kMaxVertices * sizeof(OverlayVertex), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                         MemoryKind::host_upload, "overlay vertices"));
    GraphicsDesc d;
    d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "overlay.vert.main"}, {VK_SHADER_STAGE_FRAGMENT_BIT, "overlay.frag.main"}};
    d.color_formats = {kColorFormat};
    d.vertex_attributes = 0;  // the vertex shader pulls OverlayVertex from the storage buffer
    d.cull_mode = VK_CULL_MODE_NONE;
    d.depth_write = false;
    d.blend = true;
    pipeline_ = create_graphics_pipeline(ctx, d);
}

void Overlay::rect(float x, float y, float w, float h, uint32_t rgba) {
    OverlayVertex a{x, y, rgba}, b{x + w, y, rgba}, c{x + w, y + h, rgba}, d{x, y + h, rgba};
    vertices_.insert(vertices_.end(), {a, b, c, a, c, d});
}

void Overlay::text(float x, float y, const std::string& s, uint32_t rgba, float scale) {
    for (const TextQuad& q : text_quads(s)) rect(x + q.x0 * scale, y + q.y0 * scale, (q.x1 - q.x0) * scale, (q.y1 - q.y0) * scale, rgba);
}

void Overlay::label(float x, float y, const std::string& s, uint32_t rgba, float scale) {
    float pad = 2.0f * scale;
    rect(x, y, text_width(s, scale) + 2 * pad, text_height(s, scale) + 2 * pad, rgba8(0, 0, 0, 170));
    text(x + pad, y + pad + scale, s, rgba, scale);
}

OverlayBox Overlay::bounds() const {
    if (vertices_.empty()) return {};
    OverlayBox box{vertices_[0].x, vertices_[0].y, vertices_[0].x, vertices_[0].y};
    for (const OverlayVertex& v : vertices_) {
        box.x0 = std::min(box.x0, v.x);
        box.y0 = std::min(box.y0, v.y);
        box.x1 = std::max(box.x1, v.x);
        box.y1 = std::max(box.y1, v.y);
    }
    return box;
}

float Overlay::text_width(const std::string& s, float scale) {
    return float(text_units_wide(s)) * scale;
}

float Overlay::text_height(const std::string& s, float scale) {
    return float(text_units_high(s)) * scale;
}

void Overlay::record(FrameContext& f, uint32_t slot) {
    if (vertices_.empty()) return;
    uint32_t count = std::min<uint32_t>(uint32_t(vertices_.size()), kMaxVertices);
    memcpy(buffers_[slot].mapped, vertices_.data(), count * sizeof(OverlayVertex));
    vertices_.clear();

    begin_label(f.ctx, f.cmd, "overlay");
    f.graph().pass(f.cmd, {writes(Res::color, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                  VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                  VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)});
    VkRenderingAttachmentInfo color = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_LOAD);
    begin_rendering(f.cmd, f.targets.extent, &color, nullptr);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.handle());
    Descriptors().buffer(0, buffers_[slot]).push(f.cmd, pipeline_);
    float size[2] = {float(f.targets.extent.width), float(f.targets.extent.height)};
    push_constants(f.cmd, pipeline_, size, sizeof(size));
    vkCmdDraw(f.cmd, count, 1, 0, 0);
    vkCmdEndRendering(f.cmd);
    end_label(f.ctx, f.cmd);
}
