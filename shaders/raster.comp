#version 460
// The compute rasterizer (--raster compute, docs/raster.md). One workgroup per chunk of 64
// triangles of one draw, over all draws (the chunk table), one lane per triangle of what the draw's
// command lists (the cull's survivors, or occlusion phase 2's late list):
//  - the lane transforms the three vertices exactly as scene.vert does (transform.glsl), so the clip
//    positions are the hardware's;
//  - a triangle crossing the near plane (or reaching behind the eye) is clipped there, as the
//    hardware clips it (clip_near), and its polygon goes to the tile bins;
//  - triangles this rasterizer is not built for go to the hardware list (raster_hw.vert draws it):
//    alpha-masked materials, any vertex past the far plane (z < 0), and one reaching past the
//    frame's edge by more than the guard band (push.guard_band pixels);
//  - back faces (the pipelines' VK_CULL_MODE_BACK_BIT, counter-clockwise front) and triangles
//    that cover no pixel centre are dropped, as the hardware drops them;
//  - the rest is sorted by its box of pixel centres: tiny (at most push.tiny_pixels pixels) the
//    lane walks itself (per lane); medium (no side over push.max_extent) the lanes of a subgroup
//    (a workgroup in the fallback) split, one triangle at a time (split); large ones are binned:
//    an entry per kRasterTile-pixel tile of their box (Laine and Karras's coarse binning), which
//    the second dispatch (RASTER_BIN, indirect) rasterizes a workgroup per entry (tile bin);
//  - every pixel centre is tested against the three edges in the device's sub-pixel fixed point
//    (8 bits: subPixelPrecisionBits on lavapipe and on NVIDIA), with the top-left rule for centres
//    exactly on an edge; a covered pixel gets raster_word(depth, id) by atomicMax (raster.glsl),
//    depth the plane through the three snapped vertices at the centre, clamped to the triangle's
//    own depth range (docs/raster.md says why it is the hardware's).
// USE_SUBGROUP (subgroup_switch.glsl) sorts with ballots: the hardware list's and the tile bins' slots come from one
// atomic per subgroup and each lane's exclusive bit count (or its share of the tiles, summed over
// the ballot's lanes); the medium triangles go one at a time to all the subgroup's lanes
// (subgroupBroadcast of the set-up from the lane that made it). The fallback sorts the same way
// with shared memory: workgroup-local atomics, one global atomic per workgroup, the medium
// triangles queued in shared memory and split over the workgroup's 64 lanes. Both write the same
// words: the max does not depend on who writes first, the lists are unordered sets, and the kind
// of a triangle depends on the triangle alone (save a full tile bin, which sends the triangle to the
// hardware instead: it then covers the same pixels).
// Why the ballots are sound at any subgroup size (lavapipe runs 4, 8 and 16 lanes, NVIDIA 32):
//  - a workgroup leaves (its chunk past the table) or stays as a whole, and every lane reaches
//    every ballot, also a lane without a triangle (it votes false): no lane is inactive there;
//  - each ballot loop's condition is a function of a ballot, the same in every lane, so the
//    subgroup runs each trip together and reconverges after it; the owner of a trip is the same
//    in every lane, so subgroupBroadcast's index is dynamically uniform (SPIR-V 1.5, Vulkan 1.2);
//  - a ballot's uvec4 holds up to 128 lanes and the loops clear a bit by owner / 32 and
//    owner % 32, so 4 lanes use bits 0-3 of word 0, and 64 lanes two words;
//  - subgroupElect picks the lowest active lane, and subgroupBroadcastFirst reads that same lane:
//    every lane is active there, so the one atomic's result reaches the whole subgroup;
//  - the split strides by gl_SubgroupSize, so any size covers the whole box exactly once.
// VIEW (--view raster) and push.classify (the instrumented frame's pixel counters) run after the
// frame's last rasterization: a covered pixel whose final word is this triangle's (a word names one
// triangle) is painted in, or counted for, the path that rasterized the triangle; no lists are
// written then, and the tile bins are the last rasterization's.
// MESHLET (--geometry meshlet): the chunks are the kept meshlets' (meshlet_raster.glsl says how a
// triangle is found and named there); everything after set_up's fetch is the same.
#include "subgroup_switch.glsl"
#include "common.glsl"
#include "raster.glsl"
#include "visibility_id.glsl"

layout(local_size_x = 64) in;

#ifdef MESHLET
#include "meshlet_raster.glsl"  // 0 the frame, 1 the draws, 9 the kept meshlets' chunks, 16.. the meshlet path's
#else
layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
#include "transform.glsl"  // the scene-to-clip transform (after `frame`)
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
#endif
layout(set = 0, binding = 4, std430) readonly buffer Vertices { float vertex_data[]; };  // scene.h's Vertex: 8 floats
layout(set = 0, binding = 5, std430) readonly buffer Indices { uint indices[]; };        // what the draws list
layout(set = 0, binding = 6, std430) readonly buffer Indirect { uint indirect[]; };      // VkDrawIndexedIndirectCommand per draw
layout(set = 0, binding = 7, std430) buffer Words { uint64_t words[]; };
// The hardware list: a VkDrawIndirectCommand (3 vertices per listed triangle), then the ids.
layout(set = 0, binding = 8, std430) buffer HardwareList { uint hw_command[4]; uint hw_ids[]; };
#ifndef MESHLET
// The chunk table (RasterPass::make_list): (draw, first triangle) for every kRasterChunkTriangles
// triangles of each draw at level 0, the most it can list; a workgroup rasterizes one chunk.
layout(set = 0, binding = 9, std430) readonly buffer Chunks { uvec2 chunks[]; };
layout(set = 0, binding = 10, std430) buffer Counters { uint counters[]; };
#endif
// The tile bins: a VkDispatchIndirectCommand for RASTER_BIN (raster_bin_args.comp folds the count
// into it), the entries appended (which may run past the capacity: those triangles went to the
// hardware), the first entry that dispatch rasterizes (occlusion's late draw appends to phase 1's
// entries and rasterizes its own; the classifying passes all), then an entry per (large triangle,
// tile of its box): draw, primitive, tile x, tile y.
layout(set = 0, binding = 11, std430) buffer TileBins { uint bin_dispatch[3]; uint bin_count; uint bin_first; uint bin_unused[3]; uvec4 bin_entries[]; };
#ifdef VIEW
layout(set = 0, binding = 13, rgba8) uniform writeonly image2D view_image;  // --view raster's colour (sRGB-encoded bytes)
#endif
// Where push.ranked: beside each listed triangle, its index in its draw's chosen level (the cull's).
layout(set = 0, binding = 12, std430) readonly buffer SourceRanks { uint source_ranks[]; };

layout(push_constant) uniform RasterPush {
    uint ranked;      // 1: the list is a culled one, source_ranks names its triangles; 0: the source's levels
    uint max_extent;  // the largest box side, in pixels, of a medium triangle (larger: the tile bins)
    uint capacity;    // of hw_ids
    uint top_left;    // 1: the fill rule's top-left condition (0 only in the test that shows it matters)
    uint chunks;      // entries of the chunk table
    uint count;       // 1: count the triangles by rasterizer (the instrumented frame's phase 1 and late draw)
    uint classify;    // 1: the words are final; count (VIEW: paint) the pixels whose word each path wrote
    uint view_colour;  // (raster_hw.frag's)
    uint tiny_pixels;  // the largest box, in pixels, a lane walks alone
    uint bin_capacity;  // of bin_entries
    uint guard_band;    // pixels past the frame's edge taken here (SGD_RASTER_GUARD_BAND; 0: none)
    uint path_colours[3];  // VIEW: per lane, split, tile bin (RGBA8)
} push;

// What set_up sorts a triangle into (the report's per-path counters, --view raster's colours).
const uint kNothing = 0u, kPerLane = 1u, kSplit = 2u, kTileBin = 3u, kHardware = 4u;
const int kTile = 32;  // a tile bin's side in pixels (C++ kRasterTile): a workgroup of 64 lanes, 16 pixels each

const int kSubPixelBits = 8;
const int kSubPixel = 1 << kSubPixelBits;

// What rasterizing one triangle needs, relative to the fixed-point vertex 0.
struct Setup {
    ivec2 v0;       // vertex 0, fixed point
    ivec4 edge_a;   // per edge i (0: v0->v1, 1: v1->v2, 2: v2->v0): (dx, dy) of the edge ...
    ivec4 edge_b;
    ivec3 bias;     // 0 on top-left edges, -1 elsewhere: E + bias >= 0 covers
    ivec4 box;      // pixels: x0, y0, x1, y1 (inclusive), inside the frame
    vec3 plane;     // depth = plane.x + plane.y * q.x + plane.z * q.y, q the centre - v0 in fixed point
    vec2 depths;    // the triangle's own depth range (min, max), which the plane is clamped to
    uint id;
    uint parts;     // the triangles of its polygon: 2 where the near plane clips a quad off it, else 1
};

vec4 clip_position(uint v, mat4 model) {
    return world_to_clip(object_to_world(model, vec3(vertex_data[v * 8u], vertex_data[v * 8u + 1u], vertex_data[v * 8u + 2u])));
}

// The viewport transform (x_f = (w/2) x_d + o_x + w/2, Vulkan's), without contraction.
vec3 window_position(vec4 clip) {
    vec2 half_size = 0.5 * vec2(frame.sizes.xy);
    precise vec2 xy = clip.xy / clip.w * half_size + half_size;
    return vec3(xy, clip.z / clip.w);
}

// Edge a->b as (dx, dy); E(p) = dx (p.y - a.y) - dy (p.x - a.x) is >= 0 inside a triangle wound
// so that E_01(v2) > 0. A pixel centre exactly on an edge (E = 0) is covered only on a top edge
// (horizontal, the inside below it: dy == 0, dx > 0) or a left edge (the inside to its right:
// dy < 0), so that of two triangles sharing the edge exactly one covers it.
int edge_bias(ivec2 d) { return (push.top_left != 0u && (d.y < 0 || (d.y == 0 && d.x > 0))) ? 0 : -1; }

// The triangle's visibility id: its draw and its index in the draw's chosen level, the same
// whichever list (phase 1's survivors, the late list, a frozen merged list) holds it, and with no
// late bit. So phase 1's words plus the late draw's are the frame's words, and of equal depths
// atomicMax keeps the largest id, the last triangle in input order, whatever the order of writes.
uint source_id(uint draw, uint first_index, uint primitive) {
    uint triangle = push.ranked != 0u ? source_ranks[first_index / 3u + primitive] : primitive;
    return visibility_id_indexed(draw, triangle, false, frame.tiles.w);
}

#ifndef MESHLET
// The clip positions and id of the draw's listed triangle `primitive`; returns the draw.
uint fetch_triangle(uint draw, uint primitive, out vec4 clip[3], out uint id) {
    uint command = draw * 5u;
    uint first_index = indirect[command + 2u];
    int vertex_offset = int(indirect[command + 3u]);
    mat4 model = draws[draw].model;
    for (uint i = 0u; i < 3u; ++i) clip[i] = clip_position(uint(int(indices[first_index + 3u * primitive + i]) + vertex_offset), model);
    id = source_id(draw, first_index, primitive);
    return draw;
}
#endif

// The part of a triangle in front of the near plane, z <= w in reversed Z's clip space, clipped as
// Mesa's clipper (lavapipe's) does, so that the new vertices are the hardware's where it clips
// only there: the edges in order (0->1, 1->2, 2->0), each keeping its first vertex where that is
// in front and adding, where the edge crosses the plane, the point out + t (in - out) with
// t = d_out / (d_out - d_in), d = w - z (interpolated from the vertex outside, whichever way the
// edge runs). A new vertex's window position is x * (1 / w) scaled, as the clipper computes it.
// Returns the polygon's vertex count: 3 or 4 (0: wholly behind the plane). `precise`: no fused
// multiply-add, which the clipper's C arithmetic does not do either.
uint clip_near(vec4 clip[3], out vec3 p[4]) {
    vec2 half_size = 0.5 * vec2(frame.sizes.xy);
    uint n = 0u;
    for (uint i = 0u; i < 3u; ++i) {
        vec4 a = clip[i], b = clip[(i + 1u) % 3u];
        precise float da = a.w - a.z, db = b.w - b.z;
        if (da >= 0.0) p[n++] = window_position(a);
        if ((da >= 0.0) == (db >= 0.0)) continue;
        vec4 outside = da < 0.0 ? a : b, inside = da < 0.0 ? b : a;
        float d_out = min(da, db), d_in = max(da, db);
        precise float t = d_out / (d_out - d_in);
        precise vec4 v = outside + t * (inside - outside);
        precise float inverse_w = 1.0 / v.w;
        precise vec2 xy = v.xy * inverse_w * half_size + half_size;
        p[n++] = vec3(xy, v.z * inverse_w);
    }
    return n;
}

// Sorts part `part` of the lane's triangle: kNothing, kPerLane, kSplit, kTileBin or kHardware. A
// triangle crossing the near plane is clipped there (clip_near) into a polygon of s.parts
// triangles (a fan from its first vertex, as the clipper emits it: 1 or 2), which all go to the
// tile bins with the polygon's box; any other triangle is one part. (draw, primitive): the draw and
// its listed triangle, or on the meshlet path the visible-list entry and the triangle's index in
// its meshlet.
uint set_up(uint draw, uint primitive, uint part, out Setup s) {
    vec4 clip[3];
    DrawData d = draws[fetch_triangle(draw, primitive, clip, s.id)];
    s.parts = 1u;
    // The far plane (z >= 0) is the hardware's to clip; so is anything the alpha test decides.
    bool crosses_near = false, past_far = false;
    for (uint i = 0u; i < 3u; ++i) {
        crosses_near = crosses_near || clip[i].z > clip[i].w;
        past_far = past_far || clip[i].z < 0.0;
    }
    if (d.alpha_cutoff > 0.0 || past_far) return kHardware;
    vec3 p[4];
    uint n = 3u;
    if (crosses_near) {
        n = clip_near(clip, p);
        if (n < 3u) return kNothing;  // wholly in front of the near plane
        s.parts = n - 2u;
    } else {
        for (uint i = 0u; i < 3u; ++i) p[i] = window_position(clip[i]);
        p[3] = p[2];
    }
    vec2 lo = min(p[0].xy, min(p[1].xy, p[2].xy)), hi = max(p[0].xy, max(p[1].xy, p[2].xy));
    if (n == 4u) {
        lo = min(lo, p[3].xy);
        hi = max(hi, p[3].xy);
    }
    bool large = crosses_near || any(greaterThan(hi - lo, vec2(float(push.max_extent))));
    // Off the frame: nothing to draw. Past the guard band (push.guard_band pixels beyond the frame's
    // edge, at most 16,384: the fixed-point coordinates stay below 2^23, exact in the depth plane's
    // floats, their products in 64 bits), or not a number: the hardware's.
    if (any(lessThan(hi, vec2(0.0))) || any(greaterThan(lo, vec2(frame.sizes.xy)))) return kNothing;
    float guard = float(push.guard_band);
    if (!(all(greaterThanEqual(lo, vec2(-guard))) && all(lessThanEqual(hi, vec2(frame.sizes.xy) + guard)))) return kHardware;
    if (part >= s.parts) return kNothing;
    // Sub-pixel snapping, round to nearest even as the hardware's float-to-fixed conversion.
    ivec2 f[4];
    for (uint i = 0u; i < n; ++i) f[i] = ivec2(roundEven(p[i].xy * float(kSubPixel)));
    // The pixels whose centres (x * 256 + 128) lie in the snapped box (the polygon's), inside the
    // frame: from the fixed-point corners, not the float ones, which may sit a rounding off a
    // centre the snapped triangle covers. (>> is a floor division of negative values too.)
    ivec2 f_lo = min(f[0], min(f[1], f[2])), f_hi = max(f[0], max(f[1], f[2]));
    if (n == 4u) {
        f_lo = min(f_lo, f[3]);
        f_hi = max(f_hi, f[3]);
    }
    ivec2 first = (f_lo - kSubPixel / 2 + kSubPixel - 1) >> kSubPixelBits, last = (f_hi - kSubPixel / 2) >> kSubPixelBits;
    first = max(first, ivec2(0));
    last = min(last, ivec2(frame.sizes.xy) - 1);
    if (any(lessThan(last, first))) return kNothing;
    // This part's triangle: the fan's (0, part + 1, part + 2).
    ivec2 f0 = f[0], f1 = f[part + 1u], f2 = f[part + 2u];
    vec3 p0 = p[0], p1 = p[part + 1u], p2 = p[part + 2u];
    ivec2 e01 = f1 - f0, e02 = f2 - f0;
    // (64 bits: a large triangle's edges reach 2^20 units, the frame's width in fixed point.)
    int64_t cross = int64_t(e01.x) * int64_t(e02.y) - int64_t(e01.y) * int64_t(e02.x);
    // Vulkan's area is -cross / 2 in framebuffer coordinates (y down): counter-clockwise front
    // faces have cross < 0. Back faces and zero-area triangles are not drawn.
    if (cross >= 0) return kNothing;
    // Wind it the other way (v1 <-> v2) so that the inside is E >= 0.
    ivec2 a = f0, b = f2, c = f1;
    vec3 pa = p0, pb = p2, pc = p1;
    // A large triangle's plane from the vertex nearest the frame's centre (a rotation: the same
    // edges, the same winding). Its depth at a pixel is the origin's plus the slopes times the
    // distance; the slopes' rounding grows with the edges' length over the area, so on a long
    // sliver (a wall clipped at the near plane, its new vertices 10,000 pixels off the frame, say)
    // an origin far from the frame's pixels put them 2.5e-5 off, 4 pixels' worth of the slope.
    if (large) {
        vec2 centre = 0.5 * vec2(frame.sizes.xy);
        float qa = dot(pa.xy - centre, pa.xy - centre), qb = dot(pb.xy - centre, pb.xy - centre), qc = dot(pc.xy - centre, pc.xy - centre);
        if (qb < qa && qb <= qc) {
            a = f2, b = f1, c = f0;
            pa = p2, pb = p1, pc = p0;
        } else if (qc < qa && qc < qb) {
            a = f1, b = f0, c = f2;
            pa = p1, pb = p0, pc = p2;
        }
    }
    ivec2 d0 = b - a, d1 = c - b, d2 = a - c;
    s.v0 = a;
    s.edge_a = ivec4(d0, d1);
    s.edge_b = ivec4(d2, 0, 0);
    s.bias = ivec3(edge_bias(d0), edge_bias(d1), edge_bias(d2));
    s.box = ivec4(first, last);
    // The depth plane through the three snapped vertices, in fixed-point units: the geometry whose
    // coverage is tested, so every covered centre lies in the plane's own triangle. (The float
    // vertices give a sliver another triangle, and a covered centre outside it takes its depth
    // from far along a steep slope.) The edges and the cross product are integers, never 0 here;
    // the float arithmetic rounds them by 2^-24 at most. Clamped to the triangle's own depth
    // range, which holds every point of it: what rounding is left cannot leave the triangle.
    vec2 ab = vec2(d0), ac = vec2(-d2);  // b - a, c - a
    float det = float(-cross);           // the wound triangle's (ab x ac), > 0
    float dzdx = ((pb.z - pa.z) * ac.y - (pc.z - pa.z) * ab.y) / det;
    float dzdy = ((pc.z - pa.z) * ab.x - (pb.z - pa.z) * ac.x) / det;
    s.plane = vec3(pa.z, dzdx, dzdy);
    s.depths = vec2(min(pa.z, min(pb.z, pc.z)), max(pa.z, max(pb.z, pc.z)));
    ivec2 size = last - first + 1;
    return large ? kTileBin : uint(size.x * size.y) <= push.tiny_pixels ? kPerLane : kSplit;
}

// A covered pixel: its word by atomicMax; after the last rasterization (push.classify), counted
// for (VIEW: painted in the colour of) the triangle's path where the final word is its own.
void write_pixel(Setup s, ivec2 pixel, ivec2 q, uint path) {
    float depth = clamp(s.plane.x + s.plane.y * float(q.x) + s.plane.z * float(q.y), s.depths.x, s.depths.y);
    uint64_t word = raster_word(depth, s.id);
    uint at = uint(pixel.y) * frame.sizes.x + uint(pixel.x);
    if (push.classify == 0u) {
        atomicMax(words[at], word);
        return;
    }
    if (words[at] != word) return;
#ifdef VIEW
    imageStore(view_image, pixel, unpackUnorm4x8(push.path_colours[path - 1u]));
#else
    atomicAdd(counters[kRasterPathPixelsWord + path - 1u], 1u);
#endif
}

// The edge functions of a tiny or medium triangle: every product fits 32 bits, since its box is at
// most max_extent (<= 64) pixels a side: |d| <= 2^14, |p - v0| <= 2^14 + 2^8.
void raster_pixel(Setup s, ivec2 pixel, uint path) {
    ivec2 q = pixel * kSubPixel + kSubPixel / 2 - s.v0;  // the centre in fixed point, relative to vertex 0
    ivec2 r = q - s.edge_a.xy;  // relative to vertex 1 of the wound triangle (a + d0)
    ivec2 t = q + s.edge_b.xy;  // relative to vertex 2 (a - d2)
    int e0 = s.edge_a.x * q.y - s.edge_a.y * q.x;
    int e1 = s.edge_a.z * r.y - s.edge_a.w * r.x;
    int e2 = s.edge_b.x * t.y - s.edge_b.y * t.x;
    if (e0 + s.bias.x < 0 || e1 + s.bias.y < 0 || e2 + s.bias.z < 0) return;
    write_pixel(s, pixel, q, path);
}

// The same edge functions for a large triangle (the tile bins), in 64 bits, bias added: its edges
// and centres reach 2^20 units, their products 2^40. The same integers, so the same pixels as
// raster_pixel where both fit. A centre is covered where all three are >= 0.
i64vec3 edges_wide(Setup s, ivec2 pixel) {
    ivec2 q = pixel * kSubPixel + kSubPixel / 2 - s.v0;
    ivec2 r = q - s.edge_a.xy, t = q + s.edge_b.xy;
    return i64vec3(int64_t(s.edge_a.x) * q.y - int64_t(s.edge_a.y) * q.x, int64_t(s.edge_a.z) * r.y - int64_t(s.edge_a.w) * r.x,
                   int64_t(s.edge_b.x) * t.y - int64_t(s.edge_b.y) * t.x) + i64vec3(s.bias);
}

void raster_triangle(Setup s, uint lane, uint lanes, uint path) {
    ivec2 size = s.box.zw - s.box.xy + 1;
    for (uint i = lane; i < uint(size.x * size.y); i += lanes) raster_pixel(s, s.box.xy + ivec2(int(i) % size.x, int(i) / size.x), path);
}

// A large triangle's tiles: the first tile (x, y) and the tiles across and down its box.
uvec4 tile_rect(Setup s) {
    uvec2 first = uvec2(s.box.xy) / uint(kTile), last = uvec2(s.box.zw) / uint(kTile);
    return uvec4(first, last - first + 1u);
}

void write_entries(uvec2 triangle, uvec4 rect, uint first, uint lane, uint lanes) {
    for (uint k = lane; k < rect.z * rect.w; k += lanes) bin_entries[first + k] = uvec4(triangle, rect.x + k % rect.z, rect.y + k / rect.z);
}

#ifdef RASTER_BIN
// The second dispatch: a workgroup per tile bin entry (folded into rows by raster_bin_args.comp),
// its 64 lanes 16 pixels each of the tile's 32 x 32, where the triangle's box covers them.
void main() {
    uint entry = bin_first + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (entry >= min(bin_count, push.bin_capacity)) return;
    uvec4 e = bin_entries[entry];
    ivec2 origin = ivec2(e.zw) * kTile;
    // The same lists and arithmetic as when it was binned: the same set-up, a large triangle (or
    // each triangle of its polygon, where the near plane clipped it; the entry's tiles are the
    // polygon's box). The loop's bound is the same in every lane: no barrier or ballot inside.
    uint parts = 1u;
    for (uint part = 0u; part < parts; ++part) {
        Setup s;
        uint kind = set_up(e.x, e.y, part, s);
        parts = s.parts;
        if (kind != kTileBin) continue;
        // The centres to test: the tile's inside the box. Each edge function is linear, so over
        // that rectangle it is smallest and largest at its corners: where one edge is negative at
        // all four corners no centre is covered (the workgroup skips the tile: a large triangle's
        // box is mostly tiles it misses where it is long and thin, or half of them for half a
        // quad), and where all three are >= 0 at all four every centre is (no test per pixel).
        // Exact either way: the same integers as the test per pixel. Every lane computes the same.
        ivec2 lo = max(origin, s.box.xy), hi = min(origin + kTile - 1, s.box.zw);
        i64vec3 least = edges_wide(s, lo), most = least;
        for (uint corner = 1u; corner < 4u; ++corner) {
            i64vec3 e = edges_wide(s, ivec2((corner & 1u) != 0u ? hi.x : lo.x, (corner & 2u) != 0u ? hi.y : lo.y));
            least = min(least, e);
            most = max(most, e);
        }
        if (any(lessThan(most, i64vec3(0)))) continue;
        bool whole = all(greaterThanEqual(least, i64vec3(0)));
        for (uint i = gl_LocalInvocationIndex; i < uint(kTile * kTile); i += gl_WorkGroupSize.x) {
            ivec2 pixel = origin + ivec2(int(i) % kTile, int(i) / kTile);
            if (any(lessThan(pixel, lo)) || any(greaterThan(pixel, hi))) continue;
            if (whole || all(greaterThanEqual(edges_wide(s, pixel), i64vec3(0))))
                write_pixel(s, pixel, pixel * kSubPixel + kSubPixel / 2 - s.v0, kTileBin);
        }
    }
}
#else

// The fallback's shared memory. The subgroup path uses none, but a declared array takes its room
// in every variant of the module, so the queue's length is a specialization constant: 1 on the
// subgroup path. (With 64 there, 6 KB a workgroup, the subgroup path's chunks took 0.276 ms at 4K
// on the H100, the fallback's 0.273; with 1, 0.176: docs/benchmarks.md, main fe62abd.)
const uint kSplitQueueLength = USE_SUBGROUP ? 1u : 64u;
shared uint s_tiles, s_tiles_base, s_listed, s_listed_base, s_split;
shared Setup s_split_queue[kSplitQueueLength];

// The first tile bin entry of the lane's large triangle (`tiles` entries where `binned`). Each
// binned lane's first entry is the tiles of the binned lanes below it, summed one lane at a time (a
// subgroup rarely holds more than one or two large triangles), after one atomic for the
// subgroup's total.
uint first_bin_entry_subgroup(bool binned_here, uint tiles, bool binning) {
    uvec4 binned = subgroupBallot(binned_here);
    uint before = 0u, total = 0u;
    for (uvec4 left = binned; subgroupBallotBitCount(left) > 0u;) {
        uint owner = subgroupBallotFindLSB(left);
        uint owned = subgroupBroadcast(tiles, owner);
        if (owner < gl_SubgroupInvocationID) before += owned;
        total += owned;
        left[owner / 32u] &= ~(1u << (owner % 32u));
    }
    uint base = 0u;
    if (subgroupElect() && binning && total > 0u) base = atomicAdd(bin_count, total);
    return subgroupBroadcastFirst(base) + before;
}

// The same with workgroup-local atomics and one global atomic per workgroup (which also clears the
// other shared counts before their first use).
uint first_bin_entry_fallback(bool binned_here, uint tiles, bool binning) {
    if (gl_LocalInvocationIndex == 0u) s_tiles = s_listed = s_split = 0u;
    barrier();
    uint before = binned_here ? atomicAdd(s_tiles, tiles) : 0u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && binning && s_tiles > 0u) s_tiles_base = atomicAdd(bin_count, s_tiles);
    barrier();
    return s_tiles_base + before;
}

// The hardware list's slot of the lane's triangle (where `hardware`): one atomic per subgroup,
// each lane's slot its exclusive bit count.
uint hardware_slot_subgroup(bool hardware) {
    uvec4 to_hardware = subgroupBallot(hardware);
    uint listed = subgroupBallotBitCount(to_hardware);
    uint first = 0u;
    if (subgroupElect() && listed > 0u) first = atomicAdd(hw_command[0], 3u * listed) / 3u;
    uint slot = subgroupBroadcastFirst(first) + subgroupBallotExclusiveBitCount(to_hardware);
    return slot;
}

uint hardware_slot_fallback(bool hardware) {
    uint local_slot = hardware ? atomicAdd(s_listed, 1u) : 0u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_listed > 0u) s_listed_base = atomicAdd(hw_command[0], 3u * s_listed) / 3u;
    barrier();
    return s_listed_base + local_slot;
}

// The subgroup's medium triangles, one at a time, their pixels shared by all its lanes; then the
// binned triangles' entries (`bin`: this lane's), written by all its lanes.
void split_and_bin_subgroup(Setup s, bool split, bool bin, uint draw, uint primitive, uvec4 rect, uint first_entry) {
    uvec4 pending = subgroupBallot(split);
    while (subgroupBallotBitCount(pending) > 0u) {
        uint owner = subgroupBallotFindLSB(pending);
        Setup shared_setup;
        shared_setup.v0 = subgroupBroadcast(s.v0, owner);
        shared_setup.edge_a = subgroupBroadcast(s.edge_a, owner);
        shared_setup.edge_b = subgroupBroadcast(s.edge_b, owner);
        shared_setup.bias = subgroupBroadcast(s.bias, owner);
        shared_setup.box = subgroupBroadcast(s.box, owner);
        shared_setup.plane = subgroupBroadcast(s.plane, owner);
        shared_setup.depths = subgroupBroadcast(s.depths, owner);
        shared_setup.id = subgroupBroadcast(s.id, owner);
        raster_triangle(shared_setup, gl_SubgroupInvocationID, gl_SubgroupSize, kSplit);
        pending[owner / 32u] &= ~(1u << (owner % 32u));
    }
    for (uvec4 left = subgroupBallot(bin); subgroupBallotBitCount(left) > 0u;) {
        uint owner = subgroupBallotFindLSB(left);
        write_entries(uvec2(draw, subgroupBroadcast(primitive, owner)), subgroupBroadcast(rect, owner),
                      subgroupBroadcast(first_entry, owner), gl_SubgroupInvocationID, gl_SubgroupSize);
        left[owner / 32u] &= ~(1u << (owner % 32u));
    }
}

// The workgroup's medium triangles, queued in shared memory, each split over its 64 lanes; each
// binned triangle's entries written by its own lane.
void split_and_bin_fallback(Setup s, bool split, bool bin, uint draw, uint primitive, uvec4 rect, uint first_entry) {
    if (split) s_split_queue[atomicAdd(s_split, 1u)] = s;
    barrier();
    for (uint i = 0u; i < s_split; ++i) raster_triangle(s_split_queue[i], gl_LocalInvocationIndex, gl_WorkGroupSize.x, kSplit);
    if (bin) write_entries(uvec2(draw, primitive), rect, first_entry, 0u, 1u);
}

void main() {
    // The grid is folded into two dimensions to stay within maxComputeWorkGroupCount
    // (RasterPass::make_list); the workgroups past the table have nothing to do. Either way the
    // whole workgroup leaves, so the ballots and barriers below see all its lanes. USE_SUBGROUP
    // is a specialization constant: the branches on it are uniform, their barriers too.
#ifdef MESHLET
    // This phase's kept meshlets' chunks, or (classifying, after the last rasterization) the frame's.
    uint chunk = (push.classify != 0u ? 0u : first_new) + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (chunk >= min(chunk_count, uint(chunks.length()))) return;
    uint draw = chunks[chunk].x;  // the visible-list entry
    uint count = meshlet_triangle_count(draw);
#else
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (chunk >= push.chunks) return;
    uint draw = chunks[chunk].x;
    uint count = indirect[draw * 5u] / 3u;  // the draw's triangles this frame (indexCount / 3)
#endif
    uint primitive = chunks[chunk].y + gl_LocalInvocationIndex;
    bool drawn = primitive < count;
#ifdef MESHLET
    drawn = drawn && meshlet_triangle_visible(draw, primitive);
    count_visible_triangles(drawn, draw, push.classify == 0u);
#endif
    Setup s;
    uint kind = drawn ? set_up(draw, primitive, 0u, s) : kNothing;
    // A polygon clipped at the near plane goes to the tile bins where any of its triangles is drawn
    // (its first one may snap to no area).
    if (kind == kNothing && drawn && s.parts > 1u) kind = set_up(draw, primitive, 1u, s);
    const bool binning = push.classify == 0u;  // (after the last rasterization the lists stay as they are)
    uvec4 rect = kind == kTileBin ? tile_rect(s) : uvec4(0u);
    uint tiles = rect.z * rect.w;
    uint first_entry;
    if (USE_SUBGROUP)
        first_entry = first_bin_entry_subgroup(kind == kTileBin, tiles, binning);
    else
        first_entry = first_bin_entry_fallback(kind == kTileBin, tiles, binning);
    // A full tile bin: the hardware draws the triangle (inside the frame, in depth: the same pixels).
    if (kind == kTileBin && binning && first_entry + tiles > push.bin_capacity) kind = kHardware;
    // (One frame outside the timed ones: an atomic per triangle costs nothing that is measured.)
    if (push.count != 0u && kind != kNothing) {
        atomicAdd(counters[kRasterTrianglesWord + (kind == kHardware ? 1u : 0u)], 1u);
        if (kind != kHardware) atomicAdd(counters[kRasterPathTrianglesWord + kind - 1u], 1u);
    }
    bool hardware = kind == kHardware && binning;
    uint slot;
    if (USE_SUBGROUP)
        slot = hardware_slot_subgroup(hardware);
    else
        slot = hardware_slot_fallback(hardware);
    if (hardware && slot < push.capacity) hw_ids[slot] = s.id;
    bool bin = kind == kTileBin && binning;
    if (USE_SUBGROUP)
        split_and_bin_subgroup(s, kind == kSplit, bin, draw, primitive, rect, first_entry);
    else
        split_and_bin_fallback(s, kind == kSplit, bin, draw, primitive, rect, first_entry);
    // The tiny triangles: each lane its own.
    if (kind == kPerLane) raster_triangle(s, 0u, 1u, kPerLane);
}
#endif
