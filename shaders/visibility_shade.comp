#version 460
// The visibility path's shading pass (--shading visibility, docs/visibility.md): one lane per
// pixel, four consecutive lanes one 2x2-pixel quad. Each lane reads its pixel's triangle from the
// pre-pass's visibility image (visibility.frag), fetches the three vertices, transforms them with
// scene.vert's `precise` math, reconstructs the perspective-correct barycentrics at the pixel
// centre, interpolates position, normal and uv as the rasterizer does for forward.frag, and shades
// with the same code (shading.glsl) into the same HDR target, values forward would write.
//
// Texture derivatives are coarse, as a fragment quad takes them for the implicit LOD of texture():
// the quad's top-right minus top-left pixel (d/dx) and bottom-left minus top-left (d/dy), the same
// for all four pixels, evaluated on the lane's own triangle (a fragment quad's helper lanes
// evaluate that triangle's interpolation at pixels it does not cover).
//  - VISIBILITY_QUADS: where lanes 0, 1 and 2 of the quad hold the lane's own triangle, those are
//    the values the quad's lanes already computed: three quad broadcasts give them. Elsewhere
//    (edges, or a pixel outside the frame or uncovered) the analytic path below.
//  - otherwise: analytic everywhere, the lane's triangle evaluated at the quad's three pixels.
//
// SHADE_QUAD_MIP (--mip subgroup): the pass also writes the half-resolution HDR mip, two quad
// swaps and one store per quad. Every quad here is four real pixels (there are no helper lanes in
// compute), so every texel is whole: no edge list, no fix-up. Bit for bit the CPU box filter of
// the frame this pass writes (box_filter.glsl's order, the stored half_exact values).
//
// Lanes and quads, at any subgroup size 4..128 (quad_tile.glsl): 128 lanes over a 16x8-pixel
// block, 8x4 quads. The variants with quad operations (VISIBILITY_QUADS, SHADE_QUAD_MIP) number the
// lanes by subgroup (the pipeline requires full subgroups), so lanes 4q..4q+3 are the quad the
// subgroupQuad* operations group; the others number by gl_LocalInvocationIndex (any bijection).
//
// Frame edges: the grid covers ceil(W/16) x ceil(H/8) blocks; lanes past the edge run every quad
// operation with the others (uniform control flow up to them: no early return), treat their pixel
// as uncovered (so their quad takes the analytic path) and store nothing.
//
// A block of 16x8 pixels starting at a multiple of (16, 8) lies inside one 16x16 light tile, so
// every subgroup's lanes share one tile list: the scalarized light loop walks it uniformly.
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_EXT_samplerless_texture_functions : require
#if defined(VISIBILITY_QUADS) || defined(SHADE_QUAD_MIP)
#define QUAD_LANES 1
#extension GL_KHR_shader_subgroup_quad : require
#endif
#ifdef MATERIAL_WATERFALL
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#ifdef LIGHT_LOOP_SUBGROUP
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#ifdef SHADE_VIEW
// The pass's debug views (--view lane-id | first-last-lane | active-lanes --view-stage compute under
// --shading visibility, src/passes/visibility_pass.cpp record_view): the pass runs again after the
// frame, shading every pixel as before (its HDR stores give the same values), and paints each
// pixel's lane record over the 8-bit frame, so the view shows how this pass's quads and subgroups
// cover the screen. One of view_common.glsl's VIEW_* defines comes with SHADE_VIEW.
#define VIEW_PARAMS_BINDING 14  // 14 the views' colours, 15 the frame's counters; 16 the 8-bit frame
#include "view_common.glsl"
#endif
#define SHADING_IN_COMPUTE 1
#include "shading.glsl"
#include "material.glsl"
#include "box_filter.glsl"
#include "quad_tile.glsl"
#include "visibility_id.glsl"

layout(local_size_x = 128) in;

// After shading.glsl's bindings 0..6 (scene, light lists, loop counters, ray-traced image): 7 the
// scene's vertices, 8 to 11 visibility_surface.glsl's (the drawn indices, their indirect commands,
// the vertices' tangents and TEXCOORD_1, the visibility image), 12 the HDR target.
layout(set = 0, binding = 7, std430) readonly buffer Vertices { float vertex_data[]; };  // scene.h's Vertex: 8 floats
layout(set = 0, binding = 12, rgba16f) writeonly uniform image2D hdr_image;
#ifdef SHADE_QUAD_MIP
layout(set = 0, binding = 13, rgba16f) writeonly uniform image2D mip_image;  // floor(W/2) x floor(H/2)
#endif
#ifdef SHADE_VIEW
layout(set = 0, binding = 16, rgba8) uniform image2D view_frame;
#endif

// Forward's clear colour (scene_pass.cpp kClearColor): where no triangle covers the pixel.
const vec4 kClearColor = vec4(0.00390625, 0.0048828125, 0.0068359375, 1.0);
// Tests only (push flag after shading.glsl's): write the uv derivatives taken instead of a colour.
const uint kShadeDerivatives = 8u;

#ifdef VIEW_MATERIALS
// --view materials (src/passes/visibility_pass.cpp record_material_view; with MATERIAL_WATERFALL):
// the pass runs again after the frame, shading as before, and paints each covered pixel of the
// 8-bit frame in the colour of the number of materials its subgroup walked (its trips:
// subgroupMax over the lanes that walked, as the counter takes it). kMaterialWalkColours in
// visibility_pass.h holds the same sRGB bytes: 1 to 7 materials, then 8 or more.
layout(set = 0, binding = 16, rgba8) uniform writeonly image2D walk_frame;
const vec3 kWalkColours[8] = vec3[8](vec3(40, 110, 60), vec3(150, 200, 60), vec3(245, 215, 50), vec3(245, 140, 30),
                                     vec3(220, 50, 40), vec3(200, 40, 150), vec3(130, 60, 220), vec3(255, 255, 255));
uint walked_by_subgroup = 0u;
#endif

#ifdef VISIBILITY_MESHLET
#define MESHLET_BINDING 17  // after this pass's own, the views' 14..16 included (visibility_pass.cpp)
#include "meshlet.glsl"
#endif
// The pixel's triangle and the rasterizer's interpolation of it, shared with the ray tracer's ray
// generation, which starts its rays from the same surface.
#define VISIBILITY_SURFACE_BINDING 8
#define VISIBILITY_SURFACE_MATERIAL 1  // tangents and TEXCOORD_1 at binding 10, for the material
#include "visibility_surface.glsl"

// The attributes the material differentiates, at a point of the triangle.
struct Varyings {
    vec2 uv0, uv1;
    vec3 world;
};
Varyings varyings_at(Triangle t, vec3 b) { return Varyings(uv_at(t, b), uv1_at(t, b), world_at(t, b)); }
Varyings difference(Varyings a, Varyings b) { return Varyings(a.uv0 - b.uv0, a.uv1 - b.uv1, a.world - b.world); }
#ifdef VISIBILITY_QUADS
Varyings quad_broadcast(Varyings v, uint lane) {
    return Varyings(subgroupQuadBroadcast(v.uv0, lane), subgroupQuadBroadcast(v.uv1, lane), subgroupQuadBroadcast(v.world, lane));
}
#endif

// The pixel's material. MATERIAL_WATERFALL: a waterfall over the distinct materials of the lanes
// here (AMD's scalarization of a non-uniform resource index). Each trip, subgroupBroadcastFirst
// picks the material (and a draw of it) of the first lane still looping; the lanes of that
// material evaluate it from that one draw, so the DrawData address and every texture index are
// the same on all of them (one scalar load each, the descriptors read once), and leave; the
// others wait for their turn. Draws of one material have the same material data (build_draws
// copies it), so a lane gets the value its own draw would give: the frame is the fallback's, bit
// for bit.
// Why it ends and is right, at any subgroup size and with any set of active lanes: the lanes that
// execute the broadcast together include the first one, whose material is the one picked, so at
// least that lane leaves on every trip; a trip picks a material no lane left with before (those
// lanes are gone), so the loop runs exactly once per distinct material among the lanes that
// entered. Compute has no helper lanes, so no lane sits in the loop without a pixel of its own;
// the uncovered lanes never enter it. Had the lanes split into groups (no maximal reconvergence),
// each group walks its own materials the same way. Vulkan calls an index dynamically uniform over
// the invocation group (the workgroup here), not the subgroup, so the texture index keeps its
// nonuniformEXT (scene_textures.glsl): a compiler sees that it comes from a broadcast and adds no
// loop of its own. The fallback: every lane evaluates its own draw's material, nonuniformEXT.
SurfaceMaterial shade_material(uint draw_index, uint material_index, MaterialInput surface) {
#ifdef MATERIAL_WATERFALL
    uint trips = 0u;
    SurfaceMaterial material;
    for (;;) {
        ++trips;
        uint picked = subgroupBroadcastFirst(material_index);
        uint picked_draw = subgroupBroadcastFirst(draw_index);
        if (picked == material_index) {
            material = evaluate_material(draws[picked_draw], surface);
            break;
        }
    }
    // The instrumented frame: the subgroup's trips are its last lane's (the most), counted once by
    // the lowest covered lane (the lanes here are the covered ones: compute has no helper lanes).
    // After the loop, where its lanes have rejoined: maximal reconvergence guarantees that; the
    // drivers here rejoin them at the loop's exit without it (the test's CPU count would see a
    // split subgroup counted twice).
#ifdef VIEW_MATERIALS
    walked_by_subgroup = subgroupMax(trips);
#endif
    if ((forward_push.flags & kForwardInstrument) != 0u) {
        uint walked = subgroupMax(trips);
        if (subgroupElect()) {
            atomicAdd(loop_counters.material_subgroups, 1u);
            atomicAdd(loop_counters.material_trips, walked);
        }
    }
    return material;
#else
    return evaluate_material(draws[draw_index], surface);
#endif
}

// lane: the lane's number (0..127) in the numbering that makes lanes 4q..4q+3 a quad.
uint lane_number() {
#ifdef QUAD_LANES
    return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    return gl_LocalInvocationIndex;
#endif
}

void main() {
#ifdef SHADE_VIEW
    // First, in uniform control flow: the ballots see every lane the dispatch launched.
    uvec4 record = lane_record();
#endif
    uint lane = lane_number();
    uvec2 pixel = quad_tile_pixel(lane);
    uvec2 quad_origin = pixel & ~uvec2(1u);  // the quad's top-left pixel: quads start at even coordinates
    bool inside = all(lessThan(pixel, frame.sizes.xy));
    uint id = inside ? visibility_at(ivec2(pixel)) : kVisibilityNone;
    bool covered = id != kVisibilityNone;

    Triangle t;
    vec3 b = vec3(0.0);
    // What the material differentiates (material.glsl): both uv sets and the position.
    Varyings here = Varyings(vec2(0.0), vec2(0.0), vec3(0.0));
    if (covered) {
        t = fetch_triangle(id);
        b = weights_at(t, vec2(pixel));
        here = varyings_at(t, b);
    }
    Varyings d1, d2;  // the quad's coarse differences: top-right and bottom-left minus top-left
    bool from_quad = false;
#ifdef VISIBILITY_QUADS
    // Every lane of the subgroup is here (no lane has branched off yet), so each quad is whole.
    uint id0 = subgroupQuadBroadcast(id, 0u), id1 = subgroupQuadBroadcast(id, 1u), id2 = subgroupQuadBroadcast(id, 2u);
    Varyings v0 = quad_broadcast(here, 0u), v1 = quad_broadcast(here, 1u), v2 = quad_broadcast(here, 2u);
    // Lanes 0, 1, 2 hold this lane's triangle: the differences a fragment quad would take, already
    // computed by its neighbours (lane 3's own value never enters coarse derivatives).
    from_quad = covered && id0 == id && id1 == id && id2 == id;
    d1 = difference(v1, v0);
    d2 = difference(v2, v0);
#endif
    vec4 color = kClearColor;
    if (covered) {
        if (!from_quad) {
            Varyings at_origin = varyings_at(t, weights_at(t, vec2(quad_origin)));
            d1 = difference(varyings_at(t, weights_at(t, vec2(quad_origin) + vec2(1.0, 0.0))), at_origin);
            d2 = difference(varyings_at(t, weights_at(t, vec2(quad_origin) + vec2(0.0, 1.0))), at_origin);
        }
        DrawData draw = draws[t.draw];
        // The pipelines cull back faces: every triangle in the image faces the camera (forward's
        // gl_FrontFacing is always true).
        MaterialInput surface;
        surface.uv0 = here.uv0;
        surface.uv1 = here.uv1;
        surface.uv0_d1 = d1.uv0;
        surface.uv0_d2 = d2.uv0;
        surface.uv1_d1 = d1.uv1;
        surface.uv1_d2 = d2.uv1;
        surface.p_d1 = d1.world;
        surface.p_d2 = d2.world;
        surface.normal = normal_at(t, b);
        surface.tangent = tangent_at(t, b);
        surface.footprint = 1.0;
        SurfaceMaterial material = shade_material(t.draw, draw.material, surface);
        vec3 world = here.world;
        Brdf brdf = make_brdf(material.base_color.rgb, material.metallic, material.roughness, view_direction(world));
        vec4 traced = ray_traced_light(ivec2(pixel));
        vec3 shaded = ambient_and_sun(brdf, material.normal, material.occlusion, traced.x);
        shaded += shade_point_lights(pixel, brdf, world, material.normal);
        if ((forward_push.flags & kForwardRayTraced) != 0u) shaded += traced.yzw;
        color = vec4(shaded + material.emissive, 1.0);
        if ((forward_push.flags & kShadeDerivatives) != 0u) color = vec4(d1.uv0, d2.uv0);
    }
    // half_exact: the value forward.frag writes (box_filter.glsl), so the mip and resolve read the same.
    vec4 stored = (forward_push.flags & kShadeDerivatives) != 0u ? color : half_exact(color);
    if (inside) imageStore(hdr_image, ivec2(pixel), stored);
#ifdef SHADE_VIEW
    // The "over" blend of the other views: alpha 1 replaces the frame's pixel, alpha 0 keeps it.
    if (inside) {
        vec4 view_pixel = view_colour(record, ivec2(pixel));
        vec3 frame_pixel = imageLoad(view_frame, ivec2(pixel)).rgb;
        imageStore(view_frame, ivec2(pixel), vec4(view_pixel.rgb + frame_pixel * (1.0 - view_pixel.a), 1.0));
    }
#endif
#ifdef VIEW_MATERIALS
    if (inside && covered) imageStore(walk_frame, ivec2(pixel), vec4(kWalkColours[min(walked_by_subgroup, 8u) - 1u] / 255.0, 1.0));
#endif
#ifdef SHADE_QUAD_MIP
    // Uniform control flow again (the branches above have closed, nothing returned), so all four
    // lanes of every quad take part. The horizontal swap gives a + b in the top lanes and c + d in
    // the bottom ones, the vertical swap brings c + d to the top-left lane: (a + b) + (c + d), the
    // box filter's order, of exactly the values the frame now holds. A quad reaching past the
    // frame's right or bottom edge belongs to texel floor(W/2) or floor(H/2), outside the mip, so
    // the clear colour of its outside lanes is never stored.
    precise vec4 row = stored + subgroupQuadSwapHorizontal(stored);
    vec4 other_row = subgroupQuadSwapVertical(row);
    uvec2 texel = pixel >> 1u;
    if ((lane & 3u) == 0u && all(lessThan(texel, uvec2(imageSize(mip_image)))))
        imageStore(mip_image, ivec2(texel), mip_texel_of_rows(row, other_row));
#endif
}
