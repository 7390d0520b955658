#version 460
// --raster compute's hardware rasterizer (docs/raster.md): draws the triangles raster.comp listed
// for it (alpha-masked, crossing the near or far plane, or larger than its box), 3 vertices each,
// pulling its own vertices. The positions are scene.vert's (transform.glsl) from the same data, so
// the hardware covers exactly the pixels it covers in the pre-pass of --raster hardware.
// MESHLET (--geometry meshlet): an id names a meshlet's triangle (visible-list entry, index in the
// meshlet); its vertices are the meshlet's, with the mesh shader's transform (meshlet_clip).
#include "common.glsl"
#include "visibility_id.glsl"

#ifdef MESHLET
#include "meshlet.glsl"  // 0 the frame, 1 the draws, 16.. the meshlet path's
#else
layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
#include "transform.glsl"
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 4, std430) readonly buffer Vertices { float vertex_data[]; };
// The list the ids name (render/frame.h's named_indices): the source indices of each draw's
// chosen level, a command per draw.
layout(set = 0, binding = 5, std430) readonly buffer Indices { uint indices[]; };
layout(set = 0, binding = 6, std430) readonly buffer Indirect { uint indirect[]; };
#endif
layout(set = 0, binding = 8, std430) readonly buffer HardwareList { uint hw_command[4]; uint hw_ids[]; };

layout(location = 0) flat out uint out_id;
layout(location = 1) out vec2 out_uv;
layout(location = 2) flat out uint out_draw;

layout(push_constant) uniform RasterPush {
    uint ranked, max_extent;
    uint capacity;  // of hw_ids: raster.comp counts every triangle for the hardware, lists the first `capacity`
    uint top_left, chunks, count, classify;
} push;

void main() {
    uint slot = gl_VertexIndex / 3u;
    if (slot >= push.capacity || slot >= hw_command[0] / 3u) {
        // Past the list's end (the count went on where the list was full): nothing was written
        // there. Or past the triangles listed this frame: the late draw's command runs from phase
        // 1's count for as many triangles as the list holds (RasterPass::record). All three
        // vertices at one point: no area, no fragment.
        gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
    uint id = hw_ids[slot];
#ifdef MESHLET
    ListedMeshlet lm = listed_meshlet(visibility_id_entry(id));
    Meshlet m = meshlets[lm.meshlet];
    uint packed = triangles[m.triangle_offset + visibility_id_meshlet_triangle(id)];
    uint v = m.vertex_offset + ((packed >> (8u * (gl_VertexIndex % 3u))) & 0xffu);
    gl_Position = meshlet_clip(meshlet_position(v), draws[lm.draw].model);
    out_id = id;
    out_uv = vec2(attributes[v * kMeshletAttributes + 3u], attributes[v * kMeshletAttributes + 4u]);
    out_draw = lm.draw;
#else
    uint draw = visibility_id_draw(id, frame.tiles.w);
    uint primitive = visibility_id_primitive(id, frame.tiles.w);
    uint command = draw * 5u;
    uint v = uint(int(indices[indirect[command + 2u] + 3u * primitive + gl_VertexIndex % 3u]) + int(indirect[command + 3u]));
    DrawData d = draws[draw];
    gl_Position = world_to_clip(object_to_world(d.model, vec3(vertex_data[v * 8u], vertex_data[v * 8u + 1u], vertex_data[v * 8u + 2u])));
    out_id = id;
    out_uv = vec2(vertex_data[v * 8u + 6u], vertex_data[v * 8u + 7u]);
    out_draw = draw;
#endif
}
