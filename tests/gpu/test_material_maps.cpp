// The metallic-roughness material's maps (shaders/material.glsl, docs/materials.md): normal maps
// (TANGENT and the derivative frame), metallic-roughness, occlusion and emissive textures, and each
// slot's own texCoord set and KHR_texture_transform, in forward and both visibility variants, on
// both geometry paths where the device draws meshlets. The oracle is the CPU: the plane's uv at a
// pixel (ray cast), each slot's texel lookup (its set, its transform, the texture's blocks), glTF's
// BRDF under the frame's sun and sky (the specification's formulas, written again here), compared
// per pixel where every slot's lookup lies a texel inside one block (the filter blends at block
// edges). Generated scenes, no file; 320x180, no point lights.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include <glm/gtc/matrix_transform.hpp>

#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "gpu/ray_tracing_required.h"
#include "scene_test_helpers.h"  // above_camera
#include "passes/visibility_pass.h"  // kMaterialWalkColours
#include "render/tonemap.h"
#include "scene/texture_mips.h"
#include "scoped_env.h"

namespace material_maps_tests {

constexpr VkExtent2D kSize{320, 180};
constexpr int kTexels = 16;  // every texture: 16 x 16 texels, four 8 x 8 blocks

// A texture of four blocks (index x / 8 + 2 (y / 8)) of the given RGBA colours, colour or data.
Texture blocks(const std::array<glm::u8vec4, 4>& colours, bool srgb) {
    Texture t;
    t.width = t.height = kTexels;
    t.srgb = srgb;
    for (int y = 0; y < kTexels; ++y)
        for (int x = 0; x < kTexels; ++x) {
            glm::u8vec4 c = colours[(x / 8) + 2 * (y / 8)];
            t.rgba.insert(t.rgba.end(), {c.r, c.g, c.b, c.a});
        }
    return t;
}

// A tangent-space normal as texel bytes (x, y, z in [-1, 1] to [0, 255]).
glm::u8vec4 normal_texel(glm::vec3 n) {
    n = glm::normalize(n);
    return glm::u8vec4(glm::round((n * 0.5f + 0.5f) * 255.0f), 255);
}

// The textures the tests use, in this order in Scene::textures.
enum TextureId { kBase, kMetallicRoughness, kNormal, kOcclusion, kEmissive };
const std::array<glm::u8vec4, 4> kBaseBlocks = {glm::u8vec4{200, 200, 200, 255}, {230, 120, 40, 255}, {60, 140, 220, 255}, {200, 200, 200, 255}};
// G roughness, B metallic: block 0 neutral (1, 1 times the factors below).
const std::array<glm::u8vec4, 4> kMrBlocks = {glm::u8vec4{0, 255, 255, 255}, {0, 160, 255, 255}, {0, 255, 0, 255}, {0, 200, 128, 255}};
const std::array<glm::u8vec4, 4> kNormalBlocks = {normal_texel({0, 0, 1}), normal_texel({0.6f, 0, 0.8f}), normal_texel({0, 0.6f, 0.8f}),
                                                  normal_texel({-0.4f, -0.5f, 0.77f})};
const std::array<glm::u8vec4, 4> kOcclusionBlocks = {glm::u8vec4{255, 0, 0, 255}, {40, 0, 0, 255}, {255, 0, 0, 255}, {150, 0, 0, 255}};
const std::array<glm::u8vec4, 4> kEmissiveBlocks = {glm::u8vec4{0, 0, 0, 255}, {255, 128, 0, 255}, {0, 0, 0, 255}, {64, 255, 255, 255}};

// A KHR_texture_transform as the uv matrix glTF defines: scale, then rotation (counter-clockwise
// as the image shows it, v down: u' = c u + s v, v' = -s u + c v), then offset.
glm::mat3 uv_transform(glm::vec2 offset, float rotation, glm::vec2 scale) {
    float c = std::cos(rotation), s = std::sin(rotation);
    return glm::mat3(glm::vec3(c * scale.x, -s * scale.x, 0.0f), glm::vec3(s * scale.y, c * scale.y, 0.0f), glm::vec3(offset, 1.0f));
}

// Every slot of `m` sampling its own test texture.
void use_every_map(Material& m) {
    m.base_color_texture = kBase;
    m.metallic_roughness_texture = kMetallicRoughness;
    m.normal_texture = kNormal;
    m.occlusion_texture = kOcclusion;
    m.emissive_texture = kEmissive;
}

// Every slot of `m` on its own set and through its own KHR_texture_transform (offset, rotation,
// scale); the base colour's rotation and scale given.
void transform_every_slot(Material& m, float base_rotation, float base_scale) {
    m.uv[kSlotBaseColor] = {uv_transform({0.1f, 0.3f}, base_rotation, {base_scale, base_scale}), 1};
    m.uv[kSlotMetallicRoughness] = {uv_transform({0.0f, 0.0f}, 0.5f, {1.0f, 1.0f}), 0};
    m.uv[kSlotNormal] = {uv_transform({0.2f, -0.1f}, -0.7f, {1.5f, 1.5f}), 1};
    m.uv[kSlotOcclusion] = {uv_transform({0.0f, 0.5f}, 0.0f, {0.5f, 2.0f}), 1};
    m.uv[kSlotEmissive] = {uv_transform({0.3f, 0.0f}, 1.2f, {0.7f, 0.7f}), 0};
}

// A 40 x 40 plane at y = 0, TEXCOORD_0 = (x, z) / 4, TEXCOORD_1 = (z, -x) / 3 + (0.25, 0.5) (another
// scale and a quarter turn, so a slot on the wrong set is caught), TANGENT +x with w = 1 where asked.
Scene mapped_plane(bool tangents) {
    Scene scene;
    const float half = 20.0f;
    for (float z : {-half, half})
        for (float x : {-half, half}) {
            scene.vertices.push_back(Vertex{{x, 0.0f, z}, {0.0f, 1.0f, 0.0f}, {x / 4.0f, z / 4.0f}});
            VertexMaterial m;
            m.tangent = tangents ? glm::vec4(1.0f, 0.0f, 0.0f, 1.0f) : glm::vec4(0.0f);
            m.uv1 = glm::vec2(z, -x) / 3.0f + glm::vec2(0.25f, 0.5f);
            scene.vertex_materials.push_back(m);
        }
    scene.indices = {0, 2, 3, 0, 3, 1};  // counter-clockwise seen from above
    scene.meshes.push_back({0, 6, 1});
    scene.materials.push_back(Material{});
    Material m;
    m.base_color_factor = glm::vec4(0.9f, 0.85f, 0.8f, 1.0f);
    m.metallic = 0.0f;
    m.roughness = 1.0f;  // times the texture's G (at least 160/255): no highlight too sharp to compare
    scene.materials.push_back(m);
    scene.instances.push_back({0, glm::mat4(1.0f)});
    scene.textures = {blocks(kBaseBlocks, true), blocks(kMrBlocks, false), blocks(kNormalBlocks, false),
                      blocks(kOcclusionBlocks, false), blocks(kEmissiveBlocks, true)};
    update_bounds(scene);
    return scene;
}

enum class Path { forward, quads, analytic };
const char* path_name(Path p) { return p == Path::forward ? "forward" : p == Path::quads ? "visibility, quad-swap" : "visibility, analytic"; }

struct Frame {
    std::vector<float> hdr;
    FrameUniforms uniforms;
};

Frame render(const Scene& scene, Path path, Geometry geometry = Geometry::indexed, const Context* context = nullptr) {
    const Context& ctx = context ? *context : test_context();
    PlanRequest request;
    request.shading = path == Path::forward ? Shading::forward : Shading::visibility;
    request.geometry = geometry;
    request[PassId::exposure] = Request::off;
    request[PassId::ray_trace] = Request::off;
    // 0 lights, the sun and the sky: the CPU shades with the frame's constants
    RendererConfig config = planned_config(ctx, request, kSize, 0);
    if (path == Path::analytic) config.plan.shading.derivatives = Variant::fallback;
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, above_camera());
    end_one_shot(ctx, cmd);
    EXPECT_EQ(config.plan.geometry, geometry);
    return {halves_to_floats(renderer.read_hdr()), renderer.frame_uniforms(0, above_camera())};
}

// Where pixel (x, y) sees the plane y = 0 (double precision ray cast).
glm::dvec3 plane_point(uint32_t x, uint32_t y) {
    Camera camera = above_camera();
    glm::dmat4 inverse = glm::inverse(glm::dmat4(camera.projection(float(kSize.width) / float(kSize.height))) * glm::dmat4(camera.view()));
    glm::dvec2 ndc((x + 0.5) / kSize.width * 2.0 - 1.0, (y + 0.5) / kSize.height * 2.0 - 1.0);
    glm::dvec4 a = inverse * glm::dvec4(ndc, 1.0, 1.0), b = inverse * glm::dvec4(ndc, 0.5, 1.0);
    glm::dvec3 p = glm::dvec3(a) / a.w, q = glm::dvec3(b) / b.w;
    return p + (q - p) * (p.y / (p.y - q.y));
}

// One slot's lookup: its set's uv through its transform, in texels; the block, or -1 within a texel
// of a block's edge (where bilinear filtering and the mips blend two blocks).
int slot_block_at(const Material& m, MaterialSlot slot, glm::dvec2 uv0, glm::dvec2 uv1) {
    glm::dvec2 uv = glm::dvec2(glm::dmat3(m.uv[slot].map) * glm::dvec3(m.uv[slot].texcoord == 1 ? uv1 : uv0, 1.0));
    glm::dvec2 texel = uv * double(kTexels);
    glm::dvec2 in_block = glm::mod(texel, 8.0);
    if (glm::any(glm::lessThan(in_block, glm::dvec2(1.0))) || glm::any(glm::greaterThan(in_block, glm::dvec2(7.0)))) return -1;
    glm::ivec2 t = glm::ivec2(glm::mod(texel, double(kTexels)));
    return t.x / 8 + 2 * (t.y / 8);
}
// The plane's sets at a point of it.
glm::dvec2 plane_uv0(glm::dvec3 point) { return glm::dvec2(point.x, point.z) / 4.0; }
glm::dvec2 plane_uv1(glm::dvec3 point) { return glm::dvec2(point.z, -point.x) / 3.0 + glm::dvec2(0.25, 0.5); }
int slot_block(const Material& m, MaterialSlot slot, glm::dvec3 point) {
    return slot_block_at(m, slot, plane_uv0(point), plane_uv1(point));
}

double decode(uint8_t c, bool srgb) { return srgb ? srgb_to_linear(c / 255.0f) : c / 255.0; }

// glTF 2.0's BRDF (specification appendix B), times pi as the renderer's lights are: the CPU's own
// writing of it. n the shading normal, v towards the eye, l towards the light.
glm::dvec3 brdf_lit(glm::dvec3 diffuse, glm::dvec3 f0, double alpha, glm::dvec3 n, glm::dvec3 v, glm::dvec3 l) {
    double nl = glm::dot(n, l);
    if (nl <= 0.0) return glm::dvec3(0.0);
    double nv = std::max(glm::dot(n, v), 1e-4);
    glm::dvec3 h = glm::normalize(l + v);
    double nh = std::max(glm::dot(n, h), 0.0), vh = std::max(glm::dot(v, h), 0.0);
    glm::dvec3 f = f0 + (1.0 - f0) * std::pow(1.0 - vh, 5.0);
    double a2 = alpha * alpha;
    double d = nh * nh * (a2 - 1.0) + 1.0;
    double vis = 0.5 / (nl * std::sqrt(nv * nv * (1.0 - a2) + a2) + nv * std::sqrt(nl * nl * (1.0 - a2) + a2));
    return nl * ((1.0 - f) * diffuse + f * (a2 / (d * d)) * vis);
}
// The sky: diffuse plus Karis' fit of the environment BRDF (shading.glsl cites it).
glm::dvec3 brdf_ambient(glm::dvec3 diffuse, glm::dvec3 f0, double roughness, double nv) {
    glm::dvec4 r = roughness * glm::dvec4(-1.0, -0.0275, -0.572, 0.022) + glm::dvec4(1.0, 0.0425, 1.04, -0.04);
    double a004 = std::min(r.x * r.x, std::exp2(-9.28 * nv)) * r.x + r.y;
    glm::dvec2 ab = glm::dvec2(-1.04, 1.04) * a004 + glm::dvec2(r.z, r.w);
    return diffuse + f0 * ab.x + ab.y;
}

// A point of a flat surface as the CPU shades it: its texCoord sets and their gradients along two
// orthonormal directions of its plane (columns of d_uv0, d_uv1: d(set)/d(along[0]), d(set)/d(along[1])),
// its normal, the mesh's TANGENT (w = 0: none) and the direction towards the viewer.
struct CpuSurface {
    glm::dvec2 uv0, uv1;
    glm::dvec3 along[2];
    glm::dmat2 d_uv0, d_uv1;
    glm::dvec3 normal;
    glm::dvec4 tangent;
    glm::dvec3 view;
};

// The colour of material `m` at `p` under the frame's sun (unshadowed) and sky, or nullopt where a
// slot's lookup is at a block edge.
std::optional<glm::dvec3> cpu_shade_surface(const Scene& scene, const Material& m, const FrameUniforms& u, const CpuSurface& p) {
    auto texel = [&](int texture, MaterialSlot slot, int& block) -> glm::dvec4 {
        if (texture < 0) return glm::dvec4(1.0);
        block = slot_block_at(m, slot, p.uv0, p.uv1);
        if (block < 0) return glm::dvec4(-1.0);
        const Texture& t = scene.textures[texture];
        int x = (block % 2) * 8 + 3, y = (block / 2) * 8 + 3;
        const uint8_t* c = &t.rgba[(size_t(y) * kTexels + x) * 4];
        return glm::dvec4(decode(c[0], t.srgb), decode(c[1], t.srgb), decode(c[2], t.srgb), c[3] / 255.0);
    };
    int bad = 0, block = 0;
    auto lookup = [&](int texture, MaterialSlot slot) {
        block = 0;
        glm::dvec4 v = texel(texture, slot, block);
        bad |= block < 0;
        return v;
    };
    glm::dvec4 base = lookup(m.base_color_texture, kSlotBaseColor) * glm::dvec4(m.base_color_factor);
    glm::dvec4 mr = lookup(m.metallic_roughness_texture, kSlotMetallicRoughness);
    glm::dvec4 nt = lookup(m.normal_texture, kSlotNormal);
    glm::dvec4 ao = lookup(m.occlusion_texture, kSlotOcclusion);
    glm::dvec4 em = lookup(m.emissive_texture, kSlotEmissive);
    if (bad) return std::nullopt;
    double metallic = m.metallic * mr.b, roughness = m.roughness * mr.g;
    double occlusion = 1.0 + m.occlusion_strength * (ao.r - 1.0);
    // The frame: TANGENT and cross(N, T) x w, or the gradients of the normal slot's u and v (its
    // transform turns and scales the frame with its uv).
    glm::dvec3 n = p.normal;
    if (m.normal_texture >= 0) {
        glm::dvec3 tn = glm::dvec3(nt) * 2.0 - 1.0;
        tn.x *= m.normal_scale;
        tn.y *= m.normal_scale;
        // Gradients of the slot's u and v on the plane: the transform's rows times d(uv set)/d(along).
        const TextureUv& slot = m.uv[kSlotNormal];
        glm::dmat2 g = glm::dmat2(glm::dmat3(slot.map)) * (slot.texcoord == 1 ? p.d_uv1 : p.d_uv0);  // columns: d(u, v)/d(along)
        glm::dvec3 grad_u = p.along[0] * g[0].x + p.along[1] * g[1].x, grad_v = p.along[0] * g[0].y + p.along[1] * g[1].y;
        glm::dvec3 t, b;
        if (p.tangent.w == 0.0) {
            // Schüler's cotangent frame: the gradients, scaled so the larger is unit; +Y is -v.
            double scale = 1.0 / std::sqrt(std::max(glm::dot(grad_u, grad_u), glm::dot(grad_v, grad_v)));
            t = grad_u * scale;
            b = -grad_v * scale;
        } else {
            t = glm::dvec3(p.tangent);
            b = glm::cross(n, t) * p.tangent.w;
        }
        n = glm::normalize(t * tn.x + b * tn.y + n * tn.z);
    }
    glm::dvec3 diffuse = glm::dvec3(base) * (1.0 - metallic);
    glm::dvec3 f0 = glm::mix(glm::dvec3(0.04), glm::dvec3(base), metallic);
    double alpha = std::max(roughness * roughness, 0.002);
    double sky = 0.5 + 0.5 * n.y;
    glm::dvec3 color = glm::dvec3(u.ambient) * (sky * occlusion) * brdf_ambient(diffuse, f0, roughness, std::max(glm::dot(n, p.view), 0.0)) +
                       glm::dvec3(u.sun_color) * brdf_lit(diffuse, f0, alpha, n, p.view, glm::dvec3(u.sun_direction));
    return color + glm::dvec3(m.emissive) * glm::dvec3(em);
}

// The CPU's colour of the plane at `point`, or nullopt where a slot's lookup is at a block edge.
// The plane's frame: T = +x (TANGENT, and dP/du of TEXCOORD_0), B = cross(N, T) = -z.
std::optional<glm::dvec3> cpu_shade(const Scene& scene, const FrameUniforms& u, glm::dvec3 point) {
    CpuSurface p;
    p.uv0 = plane_uv0(point);
    p.uv1 = plane_uv1(point);
    p.along[0] = glm::dvec3(1.0, 0.0, 0.0);
    p.along[1] = glm::dvec3(0.0, 0.0, 1.0);
    p.d_uv0 = glm::dmat2(glm::dvec2(0.25, 0.0), glm::dvec2(0.0, 0.25));
    p.d_uv1 = glm::dmat2(glm::dvec2(0.0, -1.0 / 3.0), glm::dvec2(1.0 / 3.0, 0.0));
    p.normal = glm::dvec3(0.0, 1.0, 0.0);
    p.tangent = scene.vertex_materials.empty() ? glm::dvec4(0.0) : glm::dvec4(scene.vertex_materials[0].tangent);
    p.view = glm::normalize(glm::dvec3(u.camera_position) - point);
    return cpu_shade_surface(scene, scene.materials[1], u, p);
}

struct Check {
    int compared = 0, wrong = 0;
    std::string first;
};

// Every pixel where the CPU can say (all lookups a texel inside a block) within 1% + 2e-3.
Check against_cpu(const Scene& scene, const Frame& frame) {
    Check c;
    for (uint32_t y = 0; y < kSize.height; ++y)
        for (uint32_t x = 0; x < kSize.width; ++x) {
            std::optional<glm::dvec3> expected = cpu_shade(scene, frame.uniforms, plane_point(x, y));
            if (!expected) continue;
            ++c.compared;
            const float* got = &frame.hdr[(size_t(y) * kSize.width + x) * 4];
            for (int k = 0; k < 3; ++k)
                if (std::abs(got[k] - (*expected)[k]) > 0.01 * (*expected)[k] + 2e-3 && c.wrong++ == 0)
                    c.first = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(k) + ": " +
                              std::to_string(got[k]) + ", CPU " + std::to_string((*expected)[k]);
        }
    return c;
}

std::vector<Geometry> geometries() {
    std::vector<Geometry> out = {Geometry::indexed};
    if (meshlet_missing(test_context().features).empty()) out.push_back(Geometry::meshlet);
    return out;
}

// Forward and both visibility variants on the indexed path; forward and quad swaps on meshlets.
void expect_cpu_match(const Scene& scene, const char* what, int min_pixels = 3000) {
    for (Geometry geometry : geometries())
        for (Path path : {Path::forward, Path::quads, Path::analytic}) {
            if (geometry == Geometry::meshlet && path == Path::analytic) continue;
            SCOPED_TRACE(std::string(what) + ", " + path_name(path) + (geometry == Geometry::meshlet ? ", meshlets" : ""));
            Check c = against_cpu(scene, render(scene, path, geometry));
            EXPECT_GE(c.compared, min_pixels);
            EXPECT_EQ(c.wrong, 0) << c.first;
            printf("%s (%s%s): %d pixels against the CPU, %d channels off\n", what, path_name(path),
                   geometry == Geometry::meshlet ? ", meshlets" : "", c.compared, c.wrong);
        }
}

// A normal-mapped plane under the sun and sky: four tilts (none, +x, +y, and both negative), with
// the mesh's TANGENT and with the derivative frame (no TANGENT), against the CPU's shading of the
// same normals. A frame with its bitangent flipped or its axes swapped fails on the tilted blocks.
TEST(MaterialMaps, NormalMapShadesAsTheCpuWithTangentsAndWithTheDerivativeFrame) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    for (bool tangents : {true, false}) {
        Scene scene = mapped_plane(tangents);
        scene.materials[1].normal_texture = kNormal;
        expect_cpu_match(scene, tangents ? "normal map, TANGENT" : "normal map, derivative frame");
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// Metallic-roughness, occlusion and emission each change the image where their texels say and
// nowhere else: where a map's texel is neutral (white metallic-roughness and occlusion, black
// emission) the frame is the one without the map, to the bit; elsewhere the CPU's shading.
TEST(MaterialMaps, EachMapChangesTheImageWhereItsTexelsSayAndNowhereElse) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    struct Map {
        const char* name;
        std::function<void(Material&)> add;
        std::array<bool, 4> neutral;  // per block: the texel leaves the material as it was
    };
    const Map maps[] = {
        {"metallic-roughness", [](Material& m) { m.metallic_roughness_texture = kMetallicRoughness; }, {true, false, false, false}},
        {"occlusion", [](Material& m) { m.occlusion_texture = kOcclusion, m.occlusion_strength = 0.8f; }, {true, false, true, false}},
        {"emissive", [](Material& m) { m.emissive_texture = kEmissive, m.emissive = {2.0f, 1.0f, 0.5f}; }, {true, false, true, false}},
    };
    Scene without = mapped_plane(true);
    without.materials[1].base_color_texture = kBase;
    without.materials[1].metallic = 1.0f;  // the factor the metallic texel multiplies
    for (Path path : {Path::forward, Path::quads}) {
        Frame a = render(without, path);
        for (const Map& map : maps) {
            SCOPED_TRACE(std::string(map.name) + ", " + path_name(path));
            Scene with = without;
            map.add(with.materials[1]);
            Frame b = render(with, path);
            int neutral = 0, changed = 0, moved = 0;
            for (uint32_t y = 0; y < kSize.height; ++y)
                for (uint32_t x = 0; x < kSize.width; ++x) {
                    int block = slot_block(with.materials[1], kSlotBaseColor, plane_point(x, y));
                    if (block < 0) continue;
                    size_t at = (size_t(y) * kSize.width + x) * 4;
                    bool same = a.hdr[at] == b.hdr[at] && a.hdr[at + 1] == b.hdr[at + 1] && a.hdr[at + 2] == b.hdr[at + 2];
                    if (map.neutral[block]) {
                        ++neutral;
                        moved += !same;
                    } else {
                        changed += !same;
                    }
                }
            EXPECT_GE(neutral, 3000);
            EXPECT_EQ(moved, 0) << "pixels changed where the texel is neutral";
            EXPECT_GE(changed, 3000) << "pixels unchanged where the texel says otherwise";
            Check c = against_cpu(with, b);
            EXPECT_GE(c.compared, 3000);
            EXPECT_EQ(c.wrong, 0) << c.first;
            printf("%s (%s): %d neutral pixels unchanged, %d changed, %d against the CPU with %d channels off\n", map.name,
                   path_name(path), neutral, changed, c.compared, c.wrong);
        }
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// Every slot on its own set and its own KHR_texture_transform (offset, rotation, scale), all five
// maps at once, against the CPU's lookup of each: a slot that read another's uv, the wrong set, or
// no transform would put other blocks under the compared pixels. The normal slot reads TEXCOORD_1
// turned and scaled, without TANGENT: its derivative frame must turn with it.
TEST(MaterialMaps, EverySlotReadsItsOwnTexCoordThroughItsOwnTransform) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    {
        Scene scene = mapped_plane(false);  // the normal map's frame from its own set and transform
        Material& m = scene.materials[1];
        use_every_map(m);
        m.metallic = 0.7f;
        m.emissive = {1.0f, 0.5f, 0.25f};
        m.normal_scale = 0.8f;
        transform_every_slot(m, 0.0f, 1.0f);
        expect_cpu_match(scene, "every slot transformed", 1500);
    }
    EXPECT_EQ(validation_message_count(), messages);
}


// ---- Per-pixel materials in the shading pass: the waterfall against nonuniformEXT --------------

// A 40 x 40 plane of 1-unit tiles, each of one of 7 materials (a hash of the tile; every material
// its own base colour texture slot and factors), seen from above: tiles of a few pixels, so many
// subgroups hold two to four materials. Each tile is its own draw (instances of one quad mesh per
// material), so draws and materials differ: the waterfall walks materials, not draws.
Scene confetti_plane() {
    Scene scene;
    scene.vertices = {Vertex{{0, 0, 0}, {0, 1, 0}, {0, 0}}, Vertex{{0, 0, 1}, {0, 1, 0}, {0, 1}}, Vertex{{1, 0, 1}, {0, 1, 0}, {1, 1}},
                      Vertex{{1, 0, 0}, {0, 1, 0}, {1, 0}}};
    scene.indices = {0, 1, 2, 0, 2, 3};
    scene.materials.push_back(Material{});
    scene.textures = {blocks(kBaseBlocks, true), blocks(kEmissiveBlocks, true)};
    constexpr uint32_t kMaterials = 7;
    for (uint32_t m = 0; m < kMaterials; ++m) {
        Material material;
        material.base_color_factor = glm::vec4(0.4f + 0.08f * m, 0.9f - 0.1f * m, 0.5f, 1.0f);
        material.base_color_texture = int(m % 2);
        material.metallic = 0.1f * m;
        material.roughness = 0.5f + 0.05f * m;
        scene.materials.push_back(material);
        scene.meshes.push_back({0, 6, m + 1});
    }
    for (int z = -20; z < 20; ++z)
        for (int x = -20; x < 20; ++x) {
            uint32_t h = uint32_t(x * 73856093) ^ uint32_t(z * 19349663);
            scene.instances.push_back({h % kMaterials, glm::translate(glm::mat4(1.0f), glm::vec3(x, 0, z))});
        }
    update_bounds(scene);
    return scene;
}

struct WalkedFrame {
    std::vector<float> hdr;
    std::vector<uint32_t> visibility;  // (draw, primitive) per pixel
    GpuCounters counters;
    Plan plan;
};

WalkedFrame render_walk(const Scene& scene, Request materials) {
    const Context& ctx = test_context();
    PlanRequest request;
    request.shading = Shading::visibility;
    request.derivatives = Request::subgroup;  // quad lanes: subgroups are defined runs of 4q-lane quads
    request.materials = materials;
    request[PassId::exposure] = Request::off;
    request[PassId::ray_trace] = Request::off;
    RendererConfig config = planned_config(ctx, request, kSize, 0);
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, above_camera(), true);  // instrumented: the waterfall counts its trips
    end_one_shot(ctx, cmd);
    return {halves_to_floats(renderer.read_hdr()), renderer.read_visibility(), renderer.read_frame_counters(0), config.plan};
}

// The CPU's count: per subgroup of the shading pass (quad_tile.glsl: 16x8-pixel workgroups, lane
// l at quad l / 4's pixel, subgroups of `size` consecutive lanes), the distinct materials of its
// covered pixels; and the subgroups with any. per_pixel: each covered pixel's subgroup's count.
std::pair<uint32_t, uint32_t> cpu_walk(const Scene& scene, const std::vector<uint32_t>& visibility, uint32_t size,
                                       std::vector<uint32_t>* per_pixel = nullptr) {
    if (per_pixel) per_pixel->assign(size_t(kSize.width) * kSize.height, 0u);
    uint32_t subgroups = 0, trips = 0;
    for (uint32_t gy = 0; gy < (kSize.height + kQuadTileHeight - 1) / kQuadTileHeight; ++gy)
        for (uint32_t gx = 0; gx < (kSize.width + kQuadTileWidth - 1) / kQuadTileWidth; ++gx)
            for (uint32_t first = 0; first < 128; first += size) {
                std::set<uint32_t> materials;
                std::vector<size_t> pixels;
                for (uint32_t lane = first; lane < first + size; ++lane) {
                    uint32_t quad = lane >> 2;
                    uint32_t x = gx * kQuadTileWidth + 2 * (quad % (kQuadTileWidth / 2)) + (lane & 1);
                    uint32_t y = gy * kQuadTileHeight + 2 * (quad / (kQuadTileWidth / 2)) + ((lane >> 1) & 1);
                    if (x >= kSize.width || y >= kSize.height) continue;
                    uint32_t draw = visibility[(size_t(y) * kSize.width + x) * 2];
                    if (draw == kNoTriangle) continue;
                    materials.insert(scene.meshes[scene.instances[draw].mesh].material);
                    pixels.push_back(size_t(y) * kSize.width + x);
                }
                if (materials.empty()) continue;
                if (per_pixel)
                    for (size_t p : pixels) (*per_pixel)[p] = uint32_t(materials.size());
                ++subgroups;
                trips += uint32_t(materials.size());
            }
    return {subgroups, trips};
}

// The waterfall (subgroupBroadcastFirst picks a material, its lanes evaluate it from one draw)
// shades the nonuniformEXT fallback's frame to the bit, and its trips per subgroup are the CPU's
// count of the subgroup's distinct materials.
TEST(MaterialMaps, WaterfallShadesTheFallbacksFrameAndWalksEachSubgroupsMaterials) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    Scene scene = confetti_plane();
    WalkedFrame walk = render_walk(scene, Request::subgroup), fallback = render_walk(scene, Request::fallback);
    ASSERT_EQ(walk.plan.shading.materials, Variant::subgroup) << walk.plan.shading.reason;
    ASSERT_EQ(fallback.plan.shading.materials, Variant::fallback);
    EXPECT_TRUE(walk.hdr == fallback.hdr) << "the waterfall's frame differs from the fallback's";
    EXPECT_GE(walk.counters.material_subgroups, 1000u);
    auto [subgroups, trips] = cpu_walk(scene, walk.visibility, test_context().subgroup.size);
    EXPECT_EQ(walk.counters.material_subgroups, subgroups);
    EXPECT_EQ(walk.counters.material_trips, trips);
    EXPECT_GE(trips, subgroups + 1000) << "too few subgroups with several materials to test the walk";
    EXPECT_EQ(fallback.counters.material_trips, 0u);  // the fallback does not walk
    printf("material waterfall, %u lanes: %u subgroups, %u trips (the CPU: %u, %u), frame identical to nonuniformEXT: %s\n",
           test_context().subgroup.size, walk.counters.material_subgroups, walk.counters.material_trips, subgroups, trips,
           walk.hdr == fallback.hdr ? "yes" : "no");
    EXPECT_EQ(validation_message_count(), messages);
}

// --view materials: the shading pass runs again with the waterfall and paints each covered pixel
// in kMaterialWalkColours[its subgroup's trips - 1]; against the CPU's count of the distinct
// materials of each pixel's subgroup (cpu_walk), every covered pixel, both derivative variants
// (lanes numbered by subgroup, and by local index: subgroups of other pixels), validation clean.
// The view's re-run does not count its trips again: the instrumented frame's counters are the
// shading pass's alone.
TEST(MaterialMaps, MaterialsViewColoursEachPixelByItsSubgroupsMaterials) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    const Context& ctx = test_context();
    Scene scene = confetti_plane();
    for (Request derivatives : {Request::subgroup, Request::fallback}) {
        PlanRequest request;
        request.shading = Shading::visibility;
        request.derivatives = derivatives;
        request.view = ViewMode::materials;
        request[PassId::exposure] = Request::off;
        request[PassId::ray_trace] = Request::off;
        RendererConfig config;
        config.extent = kSize;
        config.lights = 0;
        config.view_legend = false;
        config.plan = make_plan(ctx.subgroup, ctx.features, request);
        ASSERT_EQ(config.plan.view.variant, Variant::subgroup) << config.plan.view.reason;
        Renderer renderer(ctx, scene, config);
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, 0, above_camera(), true);
        end_one_shot(ctx, cmd);
        std::vector<uint8_t> colour = renderer.read_color();
        std::vector<uint32_t> visibility = renderer.read_visibility();
        GpuCounters counters = renderer.read_frame_counters(0);
        std::vector<uint32_t> expected;
        uint32_t size = ctx.subgroup.size;
        // The analytic variant numbers lanes by local index: its subgroups are runs of the same
        // numbering (full subgroups are not required there, but lavapipe launches them full).
        auto [subgroups, trips] = cpu_walk(scene, visibility, size, &expected);
        EXPECT_EQ(counters.material_trips, trips) << "the view's re-run counted its trips again";
        int compared = 0, wrong = 0, several = 0;
        std::string first;
        for (size_t p = 0; p < expected.size(); ++p) {
            if (!expected[p]) continue;
            ++compared;
            several += expected[p] > 1;
            uint32_t c = kMaterialWalkColours[std::min(expected[p], 8u) - 1];
            const uint8_t* got = &colour[p * 4];
            if ((got[0] != (c & 0xff) || got[1] != ((c >> 8) & 0xff) || got[2] != ((c >> 16) & 0xff)) && wrong++ == 0)
                first = "pixel " + std::to_string(p % kSize.width) + ", " + std::to_string(p / kSize.width) + ": " +
                        std::to_string(expected[p]) + " materials, colour " + std::to_string(got[0]) + " " +
                        std::to_string(got[1]) + " " + std::to_string(got[2]);
        }
        EXPECT_GT(compared, 40000);
        EXPECT_GT(several, 4000) << "too few subgroups with several materials to test the view";
        EXPECT_EQ(wrong, 0) << first;
        printf("materials view (%s derivatives, %u lanes): %d pixels, %d in subgroups of several materials, %d off\n",
               derivatives == Request::subgroup ? "quad-swap" : "analytic", size, compared, several, wrong);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// ---- Without descriptor indexing: the textures as layers of one array texture ------------------

// SGD_MASK_FEATURES=descriptor-indexing makes the device lack descriptor indexing (as the Mesa 22.3
// lavapipe does): every shader that samples takes its .layers SPIR-V, every texture is a layer of
// one array texture. The mapped plane's five textures all have one size (16 x 16), so the layers
// hold the same texels and mips as the descriptor array: every path (forward, both visibility
// variants, meshlets) matches the CPU as the descriptor-indexing frame does, and the two frames
// agree within 1e-3 of the HDR value (measured: equal to the bit, every path, lavapipe 4 lanes), validation clean.
TEST(MaterialMaps, WithoutDescriptorIndexingTheTexturesAreLayersOfOneArrayTexture) {
    REQUIRE_DRAWING();
    // The unmasked context first: the descriptor-indexing frames below are rendered with it (made
    // under the mask, it would lack descriptor indexing too, and compare layers with layers).
    const Context& indexing = test_context();
    ASSERT_TRUE(indexing.features.descriptor_indexing) << indexing.features.textures_missing;
    ScopedEnv mask("SGD_MASK_FEATURES", "descriptor-indexing");
    Context layered;
    ContextOptions options;
    options.validate = true;
    create_context(layered, options);
    ASSERT_FALSE(layered.features.descriptor_indexing);
    EXPECT_NE(layered.features.textures_missing.find("SGD_MASK_FEATURES"), std::string::npos);
    EXPECT_FALSE(layered.features.ray_tracing) << "acceleration structures require descriptor indexing";
    // And says so where the device offers ray tracing: the reason is the masked feature, not a missing extension.
    if (indexing.features.ray_tracing)
        EXPECT_EQ(pass_info(PassId::ray_trace).unavailable(layered.features),
                  "VK_KHR_acceleration_structure requires descriptor indexing, and descriptor indexing masked by SGD_MASK_FEATURES");
    uint32_t messages = validation_message_count();
    Scene scene = mapped_plane(false);
    Material& m = scene.materials[1];
    m.base_color_texture = kBase, m.metallic_roughness_texture = kMetallicRoughness, m.normal_texture = kNormal;
    m.occlusion_texture = kOcclusion, m.emissive_texture = kEmissive;
    m.metallic = 0.5f;
    m.emissive = glm::vec3(0.5f);
    for (Geometry geometry : geometries())
        for (Path path : {Path::forward, Path::quads, Path::analytic}) {
            if (geometry == Geometry::meshlet && path == Path::analytic) continue;
            SCOPED_TRACE(std::string(path_name(path)) + (geometry == Geometry::meshlet ? ", meshlets" : ""));
            Frame layers = render(scene, path, geometry, &layered), indexed = render(scene, path, geometry);
            Check c = against_cpu(scene, layers);
            EXPECT_GE(c.compared, 3000);
            EXPECT_EQ(c.wrong, 0) << c.first;
            ASSERT_EQ(layers.hdr.size(), indexed.hdr.size());
            double worst = 0;
            size_t differing = 0;
            for (size_t i = 0; i < layers.hdr.size(); ++i) {
                double d = std::abs(double(layers.hdr[i]) - double(indexed.hdr[i]));
                worst = std::max(worst, d / std::max(1.0, std::abs(double(indexed.hdr[i]))));
                differing += d > 0;
            }
            EXPECT_LE(worst, 1e-3);
            printf("array texture (%s%s): %d pixels against the CPU, %d off; against descriptor indexing: %zu values "
                   "differ, worst %.2g\n", path_name(path), geometry == Geometry::meshlet ? ", meshlets" : "", c.compared, c.wrong,
                   differing, worst);
        }
    EXPECT_EQ(validation_message_count(), messages);
}

// The same from the command line: --info names the array texture and why; the waterfall is refused
// (no descriptor index to make uniform) and auto takes nonuniform; the bundled scene, whose 256 x 256
// textures become 512 x 512 layers (bilinear), renders validation-clean in forward and visibility
// within 60 dB of the descriptor-indexing frame (measured at 320x180: 69.7 dB forward, 69.8 visibility, lavapipe 4 lanes).
TEST(MaterialMaps, WithoutDescriptorIndexingTheBundledSceneRendersAndInfoSaysWhy) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("material-layers");
    auto shot = [&](const std::string& name, const std::string& shading) {
        std::string path = dir + "/" + name + ".png";
        DemoRun run = run_demo({"--headless", "--validate", "--size", "320x180", "--frames", "2", "--warmup", "1", "--shading",
                                shading, "--ray-trace", "off", "--screenshot", path});
        EXPECT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        return read_png(path);
    };
    Png indexed_forward = shot("indexed-forward", "forward"), indexed_visibility = shot("indexed-visibility", "visibility");
    const bool ray_tracing = test_context().features.ray_tracing;  // made before the mask: the device's own
    ScopedEnv mask("SGD_MASK_FEATURES", "descriptor-indexing");
    DemoRun info = run_demo({"--info", "--shading", "visibility"});
    EXPECT_EQ(info.exit_code, 0) << info.output;
    EXPECT_NE(info.output.find("array-texture"), std::string::npos) << info.output;
    EXPECT_NE(info.output.find("the layers of one array texture at one size (sRGB and UNORM views): descriptor indexing masked"),
              std::string::npos) << info.output;
    EXPECT_NE(info.output.find("auto takes fallback: the textures are layers of one array texture"), std::string::npos) << info.output;
    // The ray tracer is off for the masked feature, and --info names it (not an extension this device offers).
    if (ray_tracing) {
        EXPECT_NE(info.output.find("VK_KHR_acceleration_structure requires descriptor indexing, and descriptor indexing masked by "
                                   "SGD_MASK_FEATURES"),
                  std::string::npos) << info.output;
        EXPECT_EQ(info.output.find("device lacks VK_KHR_ray_tracing_pipeline"), std::string::npos) << info.output;
    }
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--shading", "visibility",
                                "--materials", "subgroup"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("--materials subgroup (the material waterfall): the textures are layers"), std::string::npos)
        << refused.output;
    Png layers_forward = shot("layers-forward", "forward"), layers_visibility = shot("layers-visibility", "visibility");
    EXPECT_NOT_BLANK(layers_forward.rgba);
    double forward_db = rgb_psnr(layers_forward.rgba, indexed_forward.rgba);
    double visibility_db = rgb_psnr(layers_visibility.rgba, indexed_visibility.rgba);
    EXPECT_GE(forward_db, 60.0);
    EXPECT_GE(visibility_db, 60.0);
    printf("bundled scene, array texture against descriptor indexing: forward %.1f dB, visibility %.1f dB\n", forward_db, visibility_db);
}

// ---- Ray-traced reflections: the reflected surface's material (raytrace.rchit, raytrace.rcall) ----

// A mirror 40 x 40 at y = 0 (metallic 1, roughness 0: the reflection weight is 1, ray_scene.glsl's
// reflection_weight, so the traced image holds the reflected radiance itself) and, standing behind
// it, a 4 x 3 quad at z = -4 facing +z (towards the camera) carrying the material under test. The
// quad's TEXCOORD_0 = (x, -y) / 2 and TEXCOORD_1 = (-y, -x) / 1.5 + (0.25, 0.5) (another scale and a
// quarter turn, so a slot read on the wrong set finds other blocks), TANGENT +x (w 1) where asked.
constexpr double kQuadZ = -4.0, kQuadBottom = 0.3, kQuadTop = 3.3, kQuadHalfWidth = 2.0;
glm::dvec2 quad_uv0(glm::dvec3 p) { return glm::dvec2(p.x, -p.y) / 2.0; }
glm::dvec2 quad_uv1(glm::dvec3 p) { return glm::dvec2(-p.y, -p.x) / 1.5 + glm::dvec2(0.25, 0.5); }

Scene mirror_and_quad(bool tangents) {
    Scene scene;
    scene.path = "generated mirror and quad";
    const float half = 20.0f;
    for (float z : {-half, half})
        for (float x : {-half, half}) {
            scene.vertices.push_back(Vertex{{x, 0.0f, z}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f}});
            scene.vertex_materials.push_back(VertexMaterial{});
        }
    for (double y : {kQuadBottom, kQuadTop})
        for (double x : {-kQuadHalfWidth, kQuadHalfWidth}) {
            glm::dvec3 p(x, y, kQuadZ);
            scene.vertices.push_back(Vertex{glm::vec3(p), {0.0f, 0.0f, 1.0f}, glm::vec2(quad_uv0(p))});
            VertexMaterial m;
            m.tangent = tangents ? glm::vec4(1.0f, 0.0f, 0.0f, 1.0f) : glm::vec4(0.0f);
            m.uv1 = glm::vec2(quad_uv1(p));
            scene.vertex_materials.push_back(m);
        }
    scene.indices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};  // counter-clockwise seen from above, from +z
    scene.meshes.push_back({0, 6, 1});
    scene.meshes.push_back({6, 6, 2});
    scene.materials.push_back(Material{});
    Material mirror;
    mirror.base_color_factor = glm::vec4(1.0f);
    mirror.metallic = 1.0f;
    mirror.roughness = 0.0f;  // below kReflectRoughness (0.6): every mirror pixel traces a reflection
    scene.materials.push_back(mirror);
    Material quad;
    quad.metallic = 0.0f;
    quad.roughness = 1.0f;  // its own pixels trace none
    scene.materials.push_back(quad);
    scene.instances.push_back({0, glm::mat4(1.0f)});
    scene.instances.push_back({1, glm::mat4(1.0f)});
    scene.textures = {blocks(kBaseBlocks, true), blocks(kMrBlocks, false), blocks(kNormalBlocks, false),
                      blocks(kOcclusionBlocks, false), blocks(kEmissiveBlocks, true)};
    update_bounds(scene);
    return scene;
}

// Low over the mirror, towards the quad: the mirror between them shows its lower part.
Camera mirror_camera() {
    Camera camera;
    camera.position = {0.0f, 1.2f, 3.0f};
    camera.target = {0.0f, -0.8f, -4.0f};
    camera.far_plane = 100.0f;
    return camera;
}

struct TracedReflections {
    std::vector<uint32_t> traced;  // ray_scene.glsl's encoding: bits 0..29 the weighted reflection
    FrameUniforms uniforms;
};

TracedReflections render_reflections(const Scene& scene, Shading shading) {
    const Context& ctx = test_context();
    PlanRequest request;
    request.shading = shading;
    request[PassId::exposure] = Request::off;
    request[PassId::ray_trace] = Request::automatic;
    // 0 lights, no bulbs for the reflection rays to meet: the sun and the sky
    RendererConfig config = planned_config(ctx, request, kSize, 0);
    EXPECT_NE(config.plan[PassId::ray_trace].variant, Variant::off) << config.plan[PassId::ray_trace].reason;
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, mirror_camera());
    end_one_shot(ctx, cmd);
    return {renderer.read_ray_traced(), renderer.frame_uniforms(0, mirror_camera())};
}

// Where the reflection ray of pixel (x, y) meets the quad (double precision: the camera's ray to the
// mirror, reflected), as the CPU shades it; nullopt where it does not meet the quad at least 0.05
// from its edges (about 1.5 pixels).
std::optional<CpuSurface> reflected_quad_point(uint32_t x, uint32_t y) {
    Camera camera = mirror_camera();
    glm::dmat4 inverse = glm::inverse(glm::dmat4(camera.projection(float(kSize.width) / float(kSize.height))) * glm::dmat4(camera.view()));
    glm::dvec2 ndc((x + 0.5) / kSize.width * 2.0 - 1.0, (y + 0.5) / kSize.height * 2.0 - 1.0);
    glm::dvec4 a = inverse * glm::dvec4(ndc, 1.0, 1.0), b = inverse * glm::dvec4(ndc, 0.5, 1.0);
    glm::dvec3 origin = glm::dvec3(a) / a.w, d = glm::normalize(glm::dvec3(b) / b.w - origin);
    if (d.y >= 0.0) return std::nullopt;
    glm::dvec3 mirror = origin + d * (-origin.y / d.y);
    glm::dvec3 r(d.x, -d.y, d.z);  // reflected off y = 0
    if (mirror.z <= kQuadZ || r.z >= 0.0) return std::nullopt;
    glm::dvec3 hit = mirror + r * ((kQuadZ - mirror.z) / r.z);
    const double margin = 0.05;
    if (std::abs(hit.x) > kQuadHalfWidth - margin || hit.y < kQuadBottom + margin || hit.y > kQuadTop - margin) return std::nullopt;
    CpuSurface p;
    p.uv0 = quad_uv0(hit);
    p.uv1 = quad_uv1(hit);
    p.along[0] = glm::dvec3(1.0, 0.0, 0.0);
    p.along[1] = glm::dvec3(0.0, 1.0, 0.0);
    p.d_uv0 = glm::dmat2(glm::dvec2(0.5, 0.0), glm::dvec2(0.0, -0.5));
    p.d_uv1 = glm::dmat2(glm::dvec2(0.0, -1.0 / 1.5), glm::dvec2(-1.0 / 1.5, 0.0));
    p.normal = glm::dvec3(0.0, 0.0, 1.0);
    p.view = -r;
    return p;
}

struct ReflectionCheck {
    int compared = 0, wrong = 0, missing = 0;
    int mapped = 0;         // of the compared pixels, those where `counts` says so
    std::string first;
};

// The traced image's reflection at every pixel whose reflection ray meets the quad where every
// lookup lies a texel inside a block, against the CPU's shading of the quad there (seen along the
// reflected ray, the sun unshadowed: raytrace.rchit), within 1% + 2e-3 (the image keeps 10 sRGB bits).
ReflectionCheck reflections_against_cpu(const Scene& scene, const TracedReflections& f, bool tangents,
                                        const std::function<bool(const CpuSurface&)>& counts) {
    ReflectionCheck c;
    const Material& m = scene.materials[2];
    for (uint32_t y = 0; y < kSize.height; ++y)
        for (uint32_t x = 0; x < kSize.width; ++x) {
            std::optional<CpuSurface> p = reflected_quad_point(x, y);
            if (!p) continue;
            p->tangent = tangents ? glm::dvec4(1.0, 0.0, 0.0, 1.0) : glm::dvec4(0.0);
            std::optional<glm::dvec3> expected = cpu_shade_surface(scene, m, f.uniforms, *p);
            if (!expected) continue;
            ++c.compared;
            c.mapped += counts(*p);
            uint32_t bits = f.traced[size_t(y) * kSize.width + x] & ((1u << 30) - 1u);
            if (bits == 0u) {
                if (c.missing++ == 0 && c.wrong == 0) c.first = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + "): no reflection";
                continue;
            }
            for (int k = 0; k < 3; ++k) {
                double got = srgb_to_linear(float((bits >> (10 * k)) & 1023u) / 1023.0f);
                if (std::abs(got - (*expected)[k]) > 0.01 * (*expected)[k] + 2e-3 && c.wrong++ == 0)
                    c.first = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(k) + ": " +
                              std::to_string(got) + ", CPU " + std::to_string((*expected)[k]);
            }
        }
    return c;
}

const std::pair<Shading, const char*> kReflectionPaths[] = {{Shading::forward, "forward"}, {Shading::visibility, "visibility"}};

void expect_reflections_match_cpu(const Scene& scene, bool tangents, const char* what, const char* mapped_what,
                                  const std::function<bool(const CpuSurface&)>& counts, int min_pixels = 1500) {
    for (auto [shading, name] : kReflectionPaths) {
        SCOPED_TRACE(std::string(what) + ", " + name);
        ReflectionCheck c = reflections_against_cpu(scene, render_reflections(scene, shading), tangents, counts);
        EXPECT_GE(c.compared, min_pixels);
        EXPECT_GE(c.mapped, min_pixels / 5) << mapped_what;
        EXPECT_EQ(c.missing, 0) << c.first;
        EXPECT_EQ(c.wrong, 0) << c.first;
        printf("reflected %s (%s): %d pixels against the CPU (%d %s), %d without a reflection, %d channels off\n", what, name,
               c.compared, c.mapped, mapped_what, c.missing, c.wrong);
    }
}

// The reflected quad's base colour on TEXCOORD_1 (TEXCOORD_0 deliberately elsewhere), then every
// slot on its own set through its own KHR_texture_transform (the normal slot on TEXCOORD_1 turned
// and scaled, without TANGENT: the triangle's frame turns with it), against the CPU's lookup of
// each at the reflection ray's hit, on both shading paths. A callable that read TEXCOORD_0 for a
// TEXCOORD_1 slot, or no transform, puts other blocks under the compared pixels.
TEST(MaterialMaps, ReflectionsReadEachSlotsTexCoordThroughItsTransform) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    uint32_t messages = validation_message_count();
    {
        Scene scene = mirror_and_quad(false);
        Material& m = scene.materials[2];
        m.base_color_texture = kBase;
        m.uv[kSlotBaseColor].texcoord = 1;
        // Counted: pixels where TEXCOORD_0 would find a block of another colour.
        expect_reflections_match_cpu(scene, false, "base colour on TEXCOORD_1", "where TEXCOORD_0 reads another colour",
                                     [&](const CpuSurface& p) {
                                         int wrong = slot_block_at(m, kSlotBaseColor, p.uv0, p.uv0);
                                         int right = slot_block_at(m, kSlotBaseColor, p.uv1, p.uv1);
                                         return wrong >= 0 && kBaseBlocks[wrong] != kBaseBlocks[right];
                                     });
    }
    {
        Scene scene = mirror_and_quad(false);
        Material& m = scene.materials[2];
        use_every_map(m);
        m.metallic = 0.7f;
        m.emissive = {0.4f, 0.2f, 0.1f};  // the reflection stays below 1, which the traced image clamps to
        m.occlusion_strength = 0.8f;
        transform_every_slot(m, 0.4f, 1.2f);
        // Counted: pixels where the base colour's set without its transform reads another colour.
        expect_reflections_match_cpu(scene, false, "every slot transformed", "where the untransformed set reads another colour",
                                     [&](const CpuSurface& p) {
                                         Material plain = m;
                                         plain.uv[kSlotBaseColor].map = glm::mat3(1.0f);
                                         int wrong = slot_block_at(plain, kSlotBaseColor, p.uv0, p.uv1);
                                         int right = slot_block_at(m, kSlotBaseColor, p.uv0, p.uv1);
                                         return wrong >= 0 && kBaseBlocks[wrong] != kBaseBlocks[right];
                                     },
                                     300);  // five lookups, each a texel inside a block
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// The reflected quad normal-mapped (four tilts: none, +x, +y, both negative), with the mesh's
// TANGENT and without it (the closest-hit shader's frame from the triangle's edges and uv deltas:
// a hit has no screen derivatives), lit along the reflected ray by the sun and the sky, against the
// CPU's shading of the same normals, on both shading paths. Without the normal map, or with a
// frame flipped or turned, the tilted blocks' pixels differ.
TEST(MaterialMaps, ReflectedNormalMapShadesAsTheCpuWithTangentsAndWithTheTrianglesFrame) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    uint32_t messages = validation_message_count();
    for (bool tangents : {true, false}) {
        Scene scene = mirror_and_quad(tangents);
        Material& m = scene.materials[2];
        m.base_color_factor = glm::vec4(0.9f, 0.85f, 0.8f, 1.0f);
        m.normal_texture = kNormal;
        if (!tangents) m.uv[kSlotNormal] = {glm::mat3(glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(-1.0f, 0.0f, 0.0f), glm::vec3(0.1f, 0.2f, 1.0f)), 1};
        expect_reflections_match_cpu(scene, tangents, tangents ? "normal map, TANGENT" : "normal map, the triangle's frame",
                                     "on tilted texels", [&](const CpuSurface& p) {
                                         return slot_block_at(m, kSlotNormal, p.uv0, p.uv1) != 0;
                                     });
    }
    EXPECT_EQ(validation_message_count(), messages);
}

}  // namespace material_maps_tests
