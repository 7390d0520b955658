// The visibility id, one 32-bit word per pixel naming the triangle that covers it: the C++ mirror
// of shaders/visibility_id.glsl, which says what each bit holds (docs/visibility.md, "The
// visibility id"). Tests and read-backs decode with these; the limits say which scenes it can name.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

struct Scene;

constexpr uint32_t kVisibilityNone = 0xffffffffu;
constexpr uint32_t kVisibilityLateBit = 0x80000000u;
constexpr uint32_t kVisibilityMeshletTriangleBits = 7;
// The meshlet path's entry field: bits 30..7, so at most 2^24 visible-list entries (2^19 task chunks).
constexpr uint64_t kVisibilityMaxMeshletEntries = uint64_t(1) << 24;

constexpr uint32_t visibility_draw_bits(uint32_t draw_count) { return draw_count <= 1 ? 0 : uint32_t(std::bit_width(draw_count - 1)); }
constexpr uint32_t visibility_primitive_bits(uint32_t draw_count) { return 31 - visibility_draw_bits(draw_count); }

constexpr uint32_t visibility_id_indexed(uint32_t draw, uint32_t primitive, bool late, uint32_t draw_count) {
    return (late ? kVisibilityLateBit : 0u) | (draw << visibility_primitive_bits(draw_count)) | primitive;
}
constexpr uint32_t visibility_id_draw(uint32_t id, uint32_t draw_count) {
    return (id & ~kVisibilityLateBit) >> visibility_primitive_bits(draw_count);
}
constexpr uint32_t visibility_id_primitive(uint32_t id, uint32_t draw_count) {
    return id & ((1u << visibility_primitive_bits(draw_count)) - 1u);
}
constexpr bool visibility_id_late(uint32_t id) { return (id & kVisibilityLateBit) != 0; }

constexpr uint32_t visibility_id_meshlet(uint32_t entry, uint32_t triangle, bool late) {
    return (late ? kVisibilityLateBit : 0u) | (entry << kVisibilityMeshletTriangleBits) | triangle;
}
constexpr uint32_t visibility_id_entry(uint32_t id) { return (id & ~kVisibilityLateBit) >> kVisibilityMeshletTriangleBits; }
constexpr uint32_t visibility_id_meshlet_triangle(uint32_t id) { return id & ((1u << kVisibilityMeshletTriangleBits) - 1u); }

// The most triangles one draw's list may hold on the indexed path: every primitive index below it,
// so that no id (late bit, all-ones draw and primitive included) is kVisibilityNone.
constexpr uint64_t visibility_max_primitives(uint32_t draw_count) { return (uint64_t(1) << visibility_primitive_bits(draw_count)) - 1; }

// Why the indexed path's ids cannot name this scene's triangles ("" where they can): its draw count
// and its largest draw (any level of detail) leave no split of 31 bits. One line, for exit 2.
std::string visibility_id_error(const Scene& scene);
// The meshlet path's: more visible-list entries (32 per task chunk) than the entry field holds.
std::string visibility_meshlet_id_error(uint64_t task_chunks);
