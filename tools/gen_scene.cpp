// gen-scene: writes the bundled default scene of subgroup-demo as glTF 2.0.
//
//   gen-scene OUTDIR
//
// produces OUTDIR/default_scene.gltf, OUTDIR/default_scene.bin and OUTDIR/textures/*.png.
//
//   gen-scene --test-scenes OUTDIR
//
// writes the small scenes the tests use instead of third-party models (the build does this into
// build/test-scenes; write_test_scenes() below says what each one is for).
//
// The scene is a walled courtyard about 60 x 60 units (Y up, ground at y = 0), built to give
// the renderer's subgroup passes something to chew on:
//   - a large paved ground plane with procedural textures (paving, brick, marble, facade,
//     sandstone, awning stripes, checker floor) and several plain coloured materials;
//   - tall occluders at many depths: crenellated perimeter walls, a domed tower, buildings,
//     a colonnade (stoa), a ring of pillars, free-standing brick walls;
//   - dense geometry whose triangles are small or sub-pixel at 1280x720 from the default camera:
//     a bronze torus knot, high-segment marble spheres, a geodesic dome, tree crowns;
//   - fields of tiny closed rocks and pebbles (half their triangles face away from the camera);
//   - a node hierarchy with TRS transforms and meshes shared by many nodes.
// The tall things stand on the -X / -Z side, so from a camera in the +X +Z quadrant looking at
// the centre (the default view: azimuth ~35 deg, elevation ~25 deg) the scene reads front to back.
//
// Everything is deterministic: a fixed-seed generator and no dependence on time or addresses,
// so every run writes the same bytes.
//
// Build: g++ -std=c++20 -O2 tools/gen_scene.cpp -ltinygltf -lstb -o gen-scene
// (the tinygltf implementation comes from libtinygltf, stb_image_write from libstb.)

#include <tiny_gltf.h>
#include <stb/stb_image_write.h>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr float kPi = 3.14159265358979323846f;
constexpr float kTwoPi = 2.0f * kPi;

float radians(float degrees) { return degrees * kPi / 180.0f; }

// ------------------------------------------------------------------------------------------
// Deterministic randomness
// ------------------------------------------------------------------------------------------

// SplitMix64: tiny, fast and identical on every platform (unlike std:: distributions).
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
    float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }

    // Uniformly distributed random rotation (random axis, random angle is close enough here).
    glm::quat rotation() {
        glm::vec3 axis;
        do {
            axis = {range(-1, 1), range(-1, 1), range(-1, 1)};
        } while (glm::dot(axis, axis) > 1.0f || glm::dot(axis, axis) < 1e-4f);
        return glm::angleAxis(range(0.0f, kTwoPi), glm::normalize(axis));
    }

private:
    uint64_t state_;
};

// Integer hash of a lattice point, used by the noise functions.
uint32_t hash3(int x, int y, int z, uint32_t seed) {
    uint32_t h = seed * 0x9E3779B1u;
    h ^= uint32_t(x) * 0x85EBCA77u;
    h = (h << 13) | (h >> 19);
    h ^= uint32_t(y) * 0xC2B2AE3Du;
    h = (h << 13) | (h >> 19);
    h ^= uint32_t(z) * 0x27D4EB2Fu;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}
float hash01(int x, int y, int z, uint32_t seed) { return float(hash3(x, y, z, seed) >> 8) * (1.0f / 16777216.0f); }

float smooth(float t) { return t * t * (3.0f - 2.0f * t); }

// 2D value noise that tiles with the given integer period (so textures repeat seamlessly).
float tile_noise(float x, float y, int period, uint32_t seed) {
    const int ix = int(std::floor(x)), iy = int(std::floor(y));
    const float fx = smooth(x - float(ix)), fy = smooth(y - float(iy));
    auto at = [&](int cx, int cy) {
        return hash01(((cx % period) + period) % period, ((cy % period) + period) % period, 0, seed);
    };
    const float a = glm::mix(at(ix, iy), at(ix + 1, iy), fx);
    const float b = glm::mix(at(ix, iy + 1), at(ix + 1, iy + 1), fx);
    return glm::mix(a, b, fy);
}

// Tileable fractal noise in [0, 1]; (u, v) in texture space [0, 1), base_period lattice cells.
float tile_fbm(float u, float v, int base_period, int octaves, uint32_t seed) {
    float sum = 0.0f, amp = 0.5f, norm = 0.0f;
    int period = base_period;
    for (int o = 0; o < octaves; ++o) {
        sum += amp * tile_noise(u * float(period), v * float(period), period, seed + uint32_t(o) * 101u);
        norm += amp;
        amp *= 0.5f;
        period *= 2;
    }
    return sum / norm;
}

// 3D value noise (not tiled), used to deform rocks and tree crowns.
float noise3(glm::vec3 p, uint32_t seed) {
    const glm::vec3 f = glm::floor(p);
    const int ix = int(f.x), iy = int(f.y), iz = int(f.z);
    const glm::vec3 t = p - f;
    const float sx = smooth(t.x), sy = smooth(t.y), sz = smooth(t.z);
    auto at = [&](int dx, int dy, int dz) { return hash01(ix + dx, iy + dy, iz + dz, seed); };
    const float x00 = glm::mix(at(0, 0, 0), at(1, 0, 0), sx), x10 = glm::mix(at(0, 1, 0), at(1, 1, 0), sx);
    const float x01 = glm::mix(at(0, 0, 1), at(1, 0, 1), sx), x11 = glm::mix(at(0, 1, 1), at(1, 1, 1), sx);
    return glm::mix(glm::mix(x00, x10, sy), glm::mix(x01, x11, sy), sz);
}

// ------------------------------------------------------------------------------------------
// Procedural textures (sRGB colours, RGBA8, all tile seamlessly)
// ------------------------------------------------------------------------------------------

struct Texture {
    std::string name;  // file name stem: textures/<name>.png
    int size = 0;      // square
    std::vector<uint8_t> rgba;

    Texture(std::string n, int s) : name(std::move(n)), size(s), rgba(size_t(s) * size_t(s) * 4, 255) {}

    void set(int x, int y, glm::vec3 c) {
        c = glm::clamp(c, 0.0f, 1.0f);
        uint8_t* p = &rgba[(size_t(y) * size_t(size) + size_t(x)) * 4];
        p[0] = uint8_t(c.r * 255.0f + 0.5f);
        p[1] = uint8_t(c.g * 255.0f + 0.5f);
        p[2] = uint8_t(c.b * 255.0f + 0.5f);
        p[3] = 255;
    }
};

// A texture of n x n texels, texel (x, y) painted paint(x, y) (clamped to [0, 1]).
template <typename Paint>
Texture painted(const std::string& name, int n, Paint paint) {
    Texture t(name, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) t.set(x, y, paint(x, y));
    return t;
}

// Square paving slabs in running bond with dark joints and bevelled edges. One texture = 4 x 4 slabs.
Texture make_paving_texture(int n) {
    const int slab = n / 4;
    return painted("paving", n, [&](int x, int y) {
        const int row = y / slab;
        const int xs = (x + (row & 1) * slab / 2) % n;
        const int col = xs / slab;
        const int lx = xs % slab, ly = y % slab;
        const int edge = std::min(std::min(lx, slab - 1 - lx), std::min(ly, slab - 1 - ly));
        const float u = float(x) / float(n), v = float(y) / float(n);
        const float grain = tile_fbm(u, v, 16, 4, 11);
        const float speck = hash01(x, y, 0, 12) - 0.5f;
        glm::vec3 c;
        if (edge < 3) {  // joint
            c = glm::vec3(0.30f, 0.28f, 0.26f) * (0.85f + 0.3f * grain);
        } else {
            const float tone = 0.50f + 0.18f * hash01(col, row, 0, 13);
            const glm::vec3 tint = glm::mix(glm::vec3(1.0f, 0.96f, 0.88f), glm::vec3(0.92f, 0.95f, 1.0f),
                                            hash01(col, row, 0, 14));
            c = tint * tone * (0.82f + 0.32f * grain) + 0.04f * speck;
            if (edge < 8) c *= 0.86f + 0.14f * float(edge - 3) / 5.0f;  // bevel
        }
        return c;
    });
}

// The paving's relief, shared by its normal and occlusion maps: 0 in the joints, rising over the
// bevel (as make_paving_texture darkens it) to 1 on the slabs' tops.
float paving_height(int x, int y, int n) {
    x = (x % n + n) % n, y = (y % n + n) % n;
    const int slab = n / 4;
    const int xs = (x + ((y / slab) & 1) * slab / 2) % n;
    const int lx = xs % slab, ly = y % slab;
    const int edge = std::min(std::min(lx, slab - 1 - lx), std::min(ly, slab - 1 - ly));
    return edge < 3 ? 0.0f : std::min(1.0f, float(edge - 3) / 5.0f);
}

// The paving's tangent-space normals (linear data, glTF: +X right, +Y up in the image), from the
// relief's central differences: the bevels lean towards the joints.
Texture make_paving_normal_texture(int n) {
    const float strength = 2.0f;  // height units per texel of slope
    return painted("paving_normal", n, [&](int x, int y) {
        float dx = 0.5f * (paving_height(x + 1, y, n) - paving_height(x - 1, y, n));
        float dy = 0.5f * (paving_height(x, y + 1, n) - paving_height(x, y - 1, n));  // image y runs down
        glm::vec3 normal = glm::normalize(glm::vec3(-strength * dx, strength * dy, 1.0f));
        return normal * 0.5f + 0.5f;
    });
}

// The paving's ambient occlusion (R): the joints 0.45, the bevels between, the tops 1.
Texture make_paving_occlusion_texture(int n) {
    return painted("paving_occlusion", n, [&](int x, int y) {
        float ao = 0.45f + 0.55f * paving_height(x, y, n);
        return glm::vec3(ao, ao, ao);
    });
}

// The marble's metallic-roughness (G roughness, B metallic 0): polished, rougher in the veins
// (times the material's roughness factor).
Texture make_marble_roughness_texture(int n) {
    return painted("marble_roughness", n, [&](int x, int y) {
        const float u = float(x) / float(n), v = float(y) / float(n);
        const float turb = tile_fbm(u, v, 4, 5, 31);
        const float vein = std::pow(1.0f - std::fabs(std::sin(kTwoPi * (3.0f * u + 2.0f * v) + 7.0f * turb)), 14.0f);
        return glm::vec3(0.0f, 0.55f + 0.45f * vein, 0.0f);
    });
}

// The facade's emission (sRGB): a third of the unshuttered windows lit warm from inside, the
// cells and glass of make_facade_texture.
Texture make_facade_emissive_texture(int n) {
    const int cw = n / 4, ch = n / 2;
    return painted("facade_emissive", n, [&](int x, int y) {
        const int cx = x / cw, cy = y / ch;
        const float lx = float(x % cw) / float(cw), ly = float(y % ch) / float(ch);
        const bool in_window = lx > 0.28f && lx < 0.72f && ly > 0.22f && ly < 0.80f;
        const bool shutters = hash01(cx, cy, 0, 42) < 0.3f;
        const bool lit = hash01(cx, cy, 0, 43) < 0.45f;
        const bool muntin = std::fabs(lx - 0.5f) < 0.012f || std::fabs(ly - 0.45f) < 0.008f;
        glm::vec3 c(0.0f);
        if (in_window && !shutters && lit && !muntin) c = glm::vec3(1.0f, 0.78f, 0.45f) * (0.75f + 0.25f * ly);
        return c;
    });
}

// Red bricks in running bond: 8 bricks across, 16 courses down.
Texture make_brick_texture(int n) {
    const int bw = n / 8, bh = n / 16, mortar = std::max(2, n / 128);
    return painted("brick", n, [&](int x, int y) {
        const int row = y / bh;
        const int xs = (x + (row & 1) * bw / 2) % n;
        const int col = xs / bw;
        const int lx = xs % bw, ly = y % bh;
        const float u = float(x) / float(n), v = float(y) / float(n);
        const float grain = tile_fbm(u, v, 32, 3, 21);
        const float speck = hash01(x, y, 0, 22) - 0.5f;
        glm::vec3 c;
        if (lx < mortar || ly < mortar) {
            c = glm::vec3(0.74f, 0.71f, 0.66f) * (0.9f + 0.15f * grain);
        } else {
            const float h = hash01(col, row, 0, 23);
            glm::vec3 brick = glm::mix(glm::vec3(0.62f, 0.26f, 0.17f), glm::vec3(0.72f, 0.40f, 0.24f), h);
            if (hash01(col, row, 0, 24) < 0.12f) brick *= 0.6f;  // a few over-fired dark bricks
            c = brick * (0.8f + 0.35f * grain) + 0.05f * speck;
        }
        return c;
    });
}

// White marble with turbulent grey-blue veins.
Texture make_marble_texture(int n) {
    return painted("marble", n, [&](int x, int y) {
        const float u = float(x) / float(n), v = float(y) / float(n);
        const float turb = tile_fbm(u, v, 4, 5, 31);
        const float turb2 = tile_fbm(u, v, 8, 4, 32);
        // Integer multiples of u and v inside the sines keep the pattern tileable.
        const float vein = std::pow(1.0f - std::fabs(std::sin(kTwoPi * (3.0f * u + 2.0f * v) + 7.0f * turb)), 14.0f);
        const float vein2 = std::pow(1.0f - std::fabs(std::sin(kTwoPi * (5.0f * u - 3.0f * v) + 9.0f * turb2)), 40.0f);
        glm::vec3 c = glm::mix(glm::vec3(0.94f, 0.93f, 0.90f), glm::vec3(0.84f, 0.85f, 0.87f), turb2);
        c = glm::mix(c, glm::vec3(0.36f, 0.40f, 0.47f), 0.75f * vein);
        c = glm::mix(c, glm::vec3(0.62f, 0.55f, 0.48f), 0.55f * vein2);
        return c;
    });
}

// Building facade: plaster wall, 4 x 2 windows (one texture = 8 x 8 units: two 4-unit storeys).
// The image bottom is the ground line of a storey (box UVs map +Y to up in the image).
Texture make_facade_texture(int n) {
    const int cw = n / 4, ch = n / 2;  // window cell
    return painted("facade", n, [&](int x, int y) {
        const float u = float(x) / float(n), v = float(y) / float(n);
        const int cx = x / cw, cy = y / ch;
        const float lx = float(x % cw) / float(cw), ly = float(y % ch) / float(ch);  // ly: 0 top
        const float grain = tile_fbm(u, v, 16, 4, 41);
        glm::vec3 c = glm::vec3(0.86f, 0.75f, 0.58f) * (0.88f + 0.2f * grain);  // plaster
        if (ly < 0.05f) c = glm::vec3(0.66f, 0.58f, 0.47f) * (0.9f + 0.15f * grain);  // storey band
        const bool in_window = lx > 0.28f && lx < 0.72f && ly > 0.22f && ly < 0.80f;
        const bool in_frame = lx > 0.25f && lx < 0.75f && ly > 0.20f && ly < 0.82f;
        const bool in_sill = lx > 0.22f && lx < 0.78f && ly >= 0.82f && ly < 0.86f;
        const bool shutters = hash01(cx, cy, 0, 42) < 0.3f;
        if (in_sill) c = glm::vec3(0.78f, 0.76f, 0.72f);
        if (in_frame && !in_window) c = glm::vec3(0.93f, 0.92f, 0.88f);
        if (in_window) {
            if (shutters) {  // closed green louvred shutters
                const float louvre = 0.8f + 0.2f * float((y / 4) & 1);
                c = glm::vec3(0.22f, 0.40f, 0.30f) * louvre;
                if (std::fabs(lx - 0.5f) < 0.008f) c *= 0.5f;
            } else {  // glass with a sky reflection gradient and a cross-shaped muntin
                const float g = (ly - 0.22f) / 0.58f;
                c = glm::mix(glm::vec3(0.42f, 0.52f, 0.64f), glm::vec3(0.10f, 0.13f, 0.20f), g);
                if (std::fabs(lx - 0.5f) < 0.012f || std::fabs(ly - 0.45f) < 0.008f)
                    c = glm::vec3(0.93f, 0.92f, 0.88f);
            }
        }
        return c;
    });
}

// Ochre sandstone with wavy horizontal strata.
Texture make_sandstone_texture(int n) {
    return painted("sandstone", n, [&](int x, int y) {
        const float u = float(x) / float(n), v = float(y) / float(n);
        const float warp = tile_fbm(u, v, 4, 4, 51);
        const float strata = 0.5f + 0.5f * std::sin(kTwoPi * 6.0f * v + 5.0f * warp);
        const float grain = tile_fbm(u, v, 32, 3, 52);
        const float speck = hash01(x, y, 0, 53) - 0.5f;
        glm::vec3 c = glm::vec3(0.80f, 0.67f, 0.47f) * (0.86f + 0.16f * strata) * (0.9f + 0.18f * grain);
        return c + 0.04f * speck;
    });
}

// Market-awning canvas: 8 red and cream stripes with a faint weave.
Texture make_stripes_texture(int n) {
    const int stripe = n / 8;
    return painted("stripes", n, [&](int x, int y) {
        const bool red = ((x / stripe) & 1) == 0;
        glm::vec3 c = red ? glm::vec3(0.78f, 0.13f, 0.12f) : glm::vec3(0.95f, 0.91f, 0.80f);
        const float weave = 0.96f + 0.04f * float(((x >> 1) + (y >> 1)) & 1);
        const float grain = tile_fbm(float(x) / float(n), float(y) / float(n), 16, 3, 61);
        return c * weave * (0.92f + 0.1f * grain);
    });
}

// Black and ivory floor checker, 8 x 8 squares with thin grout lines.
Texture make_checker_texture(int n) {
    const int cell = n / 8;
    return painted("checker", n, [&](int x, int y) {
        const bool dark = (((x / cell) + (y / cell)) & 1) != 0;
        const float grain = tile_fbm(float(x) / float(n), float(y) / float(n), 8, 4, 71);
        glm::vec3 c = dark ? glm::vec3(0.12f, 0.12f, 0.14f) : glm::vec3(0.87f, 0.85f, 0.79f);
        c *= 0.9f + 0.2f * grain;
        if (x % cell == 0 || y % cell == 0) c = glm::vec3(0.45f, 0.44f, 0.42f);
        return c;
    });
}

// Trellis: 4 x 4 square openings framed by wooden laths, alpha 0 in the openings (alphaMode MASK:
// the depth pre-pass and the ray tracer's any-hit shader cut the same holes). Hard edges, so
// the texels near the 0.5 cutoff are a thin line around each opening.
Texture make_lattice_texture(int n) {
    Texture t("lattice", n);
    const int cell = n / 4, bar = cell / 5;
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const float grain = tile_fbm(float(x) / float(n), float(y) / float(n), 8, 3, 91);
            t.set(x, y, glm::vec3(0.52f, 0.36f, 0.22f) * (0.85f + 0.3f * grain));
            // Laths centred on the cell borders: the pattern is its own mirror image, so the slab's
            // top and bottom faces (make_box mirrors v on the bottom) have the same openings.
            auto on_lath = [&](int c) { return (c % cell) < bar / 2 || (c % cell) >= cell - bar / 2; };
            const bool lath = on_lath(x) || on_lath(y);
            if (!lath) t.rgba[(size_t(y) * size_t(n) + size_t(x)) * 4 + 3] = 0;
        }
    }
    return t;
}

bool write_png(const fs::path& path, const Texture& t) {
    return stbi_write_png(path.string().c_str(), t.size, t.size, 4, t.rgba.data(), t.size * 4) != 0;
}

// ------------------------------------------------------------------------------------------
// Triangle meshes
// ------------------------------------------------------------------------------------------

// Indexed triangle list; counter-clockwise front faces, unit outward normals.
struct MeshData {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec2> uvs;
    std::vector<uint32_t> indices;

    uint32_t vertex(glm::vec3 p, glm::vec3 n, glm::vec2 uv) {
        positions.push_back(p);
        normals.push_back(glm::normalize(n));
        uvs.push_back(uv);
        return uint32_t(positions.size() - 1);
    }
    void triangle(uint32_t a, uint32_t b, uint32_t c) { indices.insert(indices.end(), {a, b, c}); }
    size_t triangle_count() const { return indices.size() / 3; }

    // Appends another mesh transformed by xf (normals by its inverse transpose).
    void append(const MeshData& o, const glm::mat4& xf = glm::mat4(1.0f)) {
        const uint32_t base = uint32_t(positions.size());
        const glm::mat3 nxf = glm::transpose(glm::inverse(glm::mat3(xf)));
        const bool flip = glm::determinant(glm::mat3(xf)) < 0.0f;
        for (size_t i = 0; i < o.positions.size(); ++i) {
            positions.push_back(glm::vec3(xf * glm::vec4(o.positions[i], 1.0f)));
            normals.push_back(glm::normalize(nxf * o.normals[i]));
            uvs.push_back(o.uvs[i]);
        }
        for (size_t i = 0; i < o.indices.size(); i += 3) {
            if (flip) triangle(base + o.indices[i], base + o.indices[i + 2], base + o.indices[i + 1]);
            else triangle(base + o.indices[i], base + o.indices[i + 1], base + o.indices[i + 2]);
        }
    }
};

// Replaces the normals by area-weighted averages of the adjacent face normals (for deformed meshes).
void recompute_normals(MeshData& m) {
    std::vector<glm::vec3> acc(m.positions.size(), glm::vec3(0.0f));
    for (size_t i = 0; i < m.indices.size(); i += 3) {
        const uint32_t a = m.indices[i], b = m.indices[i + 1], c = m.indices[i + 2];
        const glm::vec3 fn = glm::cross(m.positions[b] - m.positions[a], m.positions[c] - m.positions[a]);
        acc[a] += fn;
        acc[b] += fn;
        acc[c] += fn;
    }
    for (size_t i = 0; i < acc.size(); ++i) m.normals[i] = glm::normalize(acc[i]);
}

// Counts triangles whose winding disagrees with their vertex normals (should be zero).
size_t count_inverted_triangles(const MeshData& m) {
    size_t bad = 0;
    for (size_t i = 0; i < m.indices.size(); i += 3) {
        const uint32_t a = m.indices[i], b = m.indices[i + 1], c = m.indices[i + 2];
        const glm::vec3 fn = glm::cross(m.positions[b] - m.positions[a], m.positions[c] - m.positions[a]);
        if (glm::length(fn) < 1e-12f) continue;  // degenerate (none are emitted, but be safe)
        if (glm::dot(fn, m.normals[a] + m.normals[b] + m.normals[c]) <= 0.0f) ++bad;
    }
    return bad;
}

// Flat grid in the XZ plane facing +Y, centred on the origin. UV = world position / uv_tile.
MeshData make_plane(float size_x, float size_z, int seg_x, int seg_z, float uv_tile) {
    MeshData m;
    for (int j = 0; j <= seg_z; ++j) {
        for (int i = 0; i <= seg_x; ++i) {
            const float x = size_x * (float(i) / float(seg_x) - 0.5f);
            const float z = size_z * (float(j) / float(seg_z) - 0.5f);
            m.vertex({x, 0.0f, z}, {0, 1, 0}, {x / uv_tile, z / uv_tile});
        }
    }
    const uint32_t row = uint32_t(seg_x + 1);
    for (int j = 0; j < seg_z; ++j) {
        for (int i = 0; i < seg_x; ++i) {
            const uint32_t a = uint32_t(j) * row + uint32_t(i);
            // a -> (a + row) is +Z, a -> (a + 1) is +X: (+Z) x (+X) = +Y, so this order is CCW from above.
            m.triangle(a, a + row, a + 1);
            m.triangle(a + 1, a + row, a + row + 1);
        }
    }
    return m;
}

// Axis-aligned box from lo to hi, 24 vertices with flat face normals. UVs are world-scaled
// (position / uv_tile) so a texture keeps its size whatever the box's size; on the side faces
// image-up is +Y.
MeshData make_box(glm::vec3 lo, glm::vec3 hi, float uv_tile) {
    struct Face {
        glm::vec3 n, u, v;  // u x v == n, so corners (-u-v, +u-v, +u+v, -u+v) run CCW seen from outside
    };
    static const Face faces[6] = {
        {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},  {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
        {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},   {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
    };
    const glm::vec3 c = 0.5f * (lo + hi), h = 0.5f * (hi - lo);
    MeshData m;
    for (const Face& f : faces) {
        const glm::vec3 du = f.u * glm::dot(glm::abs(f.u), h);
        const glm::vec3 dv = f.v * glm::dot(glm::abs(f.v), h);
        const glm::vec3 center = c + f.n * glm::dot(glm::abs(f.n), h);
        const glm::vec3 corners[4] = {center - du - dv, center + du - dv, center + du + dv, center - du + dv};
        uint32_t idx[4];
        for (int k = 0; k < 4; ++k) {
            const glm::vec2 uv{glm::dot(corners[k], f.u) / uv_tile, -glm::dot(corners[k], f.v) / uv_tile};
            idx[k] = m.vertex(corners[k], f.n, uv);
        }
        m.triangle(idx[0], idx[1], idx[2]);
        m.triangle(idx[0], idx[2], idx[3]);
    }
    return m;
}

// Surface of revolution around +Y. The profile is a polyline of (radius, height) points that
// runs counter-clockwise in the (r, y) half-plane (outward along the bottom, up the outside,
// inward across the top), which makes the normals point outward. Profile corners sharper than
// crease_deg get hard edges; gentler ones are smoothed. Points on the axis (r = 0) close the
// surface without degenerate triangles. A profile whose last point equals its first is treated
// as a closed loop (torus). UV: u around (u_repeat times), v along the profile (v_tile units).
MeshData make_lathe(const std::vector<glm::vec2>& profile, int segments, float u_repeat, float v_tile,
                    float crease_deg = 35.0f) {
    const size_t nseg = profile.size() - 1;
    const bool closed = glm::length(profile.front() - profile.back()) < 1e-6f;
    std::vector<glm::vec2> seg_normal(nseg);
    for (size_t k = 0; k < nseg; ++k) {
        const glm::vec2 d = profile[k + 1] - profile[k];
        seg_normal[k] = glm::normalize(glm::vec2(d.y, -d.x));
    }
    const float cos_crease = std::cos(radians(crease_deg));
    // Normal of segment k at its end `end` (0 = start point, 1 = end point).
    auto end_normal = [&](size_t k, int end) -> glm::vec2 {
        const bool has_neighbour = closed || (end == 0 ? k > 0 : k + 1 < nseg);
        if (!has_neighbour) return seg_normal[k];
        const size_t other = end == 0 ? (k + nseg - 1) % nseg : (k + 1) % nseg;
        if (glm::dot(seg_normal[k], seg_normal[other]) < cos_crease) return seg_normal[k];
        return glm::normalize(seg_normal[k] + seg_normal[other]);
    };

    MeshData m;
    float arc = 0.0f;
    for (size_t k = 0; k < nseg; ++k) {
        const glm::vec2 p[2] = {profile[k], profile[k + 1]};
        const float len = glm::length(p[1] - p[0]);
        uint32_t ring[2];  // first vertex of each ring
        for (int e = 0; e < 2; ++e) {
            const glm::vec2 n = end_normal(k, e);
            ring[e] = uint32_t(m.positions.size());
            for (int i = 0; i <= segments; ++i) {
                // The seam vertex (i == segments) repeats angle 0 exactly, so the surface is watertight.
                const float phi = kTwoPi * float(i % segments) / float(segments);
                const float s = std::sin(phi), c = std::cos(phi);
                m.vertex({p[e].x * s, p[e].y, p[e].x * c}, {n.x * s, n.y, n.x * c},
                         {u_repeat * float(i) / float(segments), -(arc + (e ? len : 0.0f)) / v_tile});
            }
        }
        arc += len;
        for (int i = 0; i < segments; ++i) {
            const uint32_t a = ring[0] + uint32_t(i), b = a + 1, d = ring[1] + uint32_t(i), c = d + 1;
            // b is the next angle (tangent +X at phi = 0), d the next profile point: a, b, c is CCW.
            if (p[0].x > 1e-6f) m.triangle(a, b, c);
            if (p[1].x > 1e-6f) m.triangle(a, c, d);
        }
    }
    return m;
}

// Closed cylinder standing on y = 0.
MeshData make_cylinder(float radius, float height, int segments, float u_repeat, float v_tile) {
    return make_lathe({{0, 0}, {radius, 0}, {radius, height}, {0, height}}, segments, u_repeat, v_tile);
}

// Torus around +Y (in the XZ plane): major radius R, tube radius r.
MeshData make_torus(float R, float r, int major_segments, int minor_segments) {
    std::vector<glm::vec2> circle;
    for (int j = 0; j <= minor_segments; ++j) {  // counter-clockwise around (R, 0), starting outermost
        const float a = kTwoPi * float(j % minor_segments) / float(minor_segments);
        circle.push_back({R + r * std::cos(a), r * std::sin(a)});
    }
    return make_lathe(circle, major_segments, 4.0f, 2.0f * kPi * r, 90.0f);
}

// Flat disc facing +Y at height y, vertices on the same angles as make_lathe, planar UVs.
MeshData make_disc(float radius, float y, int segments, float uv_tile) {
    MeshData m;
    const uint32_t center = m.vertex({0, y, 0}, {0, 1, 0}, {0, 0});
    for (int i = 0; i < segments; ++i) {
        const float phi = kTwoPi * float(i) / float(segments);
        const glm::vec3 p{radius * std::sin(phi), y, radius * std::cos(phi)};
        m.vertex(p, {0, 1, 0}, {p.x / uv_tile, p.z / uv_tile});
    }
    for (int i = 0; i < segments; ++i)
        m.triangle(center, center + 1 + uint32_t(i), center + 1 + uint32_t((i + 1) % segments));
    return m;
}

// UV sphere centred on the origin: `segments` around, `rings` from pole to pole.
MeshData make_uv_sphere(float radius, int segments, int rings) {
    MeshData m;
    for (int j = 0; j <= rings; ++j) {  // j = 0: bottom pole, like a lathe profile
        const float theta = kPi * (1.0f - float(j) / float(rings));
        const bool pole = j == 0 || j == rings;  // exactly on the axis
        const float r = pole ? 0.0f : std::sin(theta), y = pole ? (j == 0 ? -1.0f : 1.0f) : std::cos(theta);
        for (int i = 0; i <= segments; ++i) {
            const float phi = kTwoPi * float(i % segments) / float(segments);  // exact seam
            const glm::vec3 n{r * std::sin(phi), y, r * std::cos(phi)};
            m.vertex(radius * n, n, {float(i) / float(segments), 1.0f - float(j) / float(rings)});
        }
    }
    const uint32_t row = uint32_t(segments + 1);
    for (int j = 0; j < rings; ++j) {
        for (int i = 0; i < segments; ++i) {
            const uint32_t a = uint32_t(j) * row + uint32_t(i), b = a + 1, d = a + row, c = d + 1;
            if (j > 0) m.triangle(a, b, c);          // skip the degenerate one at the bottom pole
            if (j < rings - 1) m.triangle(a, c, d);  // and at the top pole
        }
    }
    return m;
}

// Geodesic sphere: an icosahedron subdivided `subdivisions` times (20 * 4^n triangles).
// Vertices are shared, so the mesh is watertight. UVs are a simple spherical projection.
MeshData make_icosphere(float radius, int subdivisions) {
    const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
    std::vector<glm::vec3> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    std::vector<uint32_t> tris = {0, 11, 5, 0, 5, 1,  0, 1, 7,   0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,
                                  11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4,  3, 4, 2,   3, 2, 6, 3, 6, 8,
                                  3, 8, 9,  4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7,  9, 8, 1};
    for (auto& p : v) p = glm::normalize(p);
    for (int s = 0; s < subdivisions; ++s) {
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> midpoint;
        auto mid = [&](uint32_t a, uint32_t b) {
            const auto key = std::minmax(a, b);
            auto it = midpoint.find(key);
            if (it != midpoint.end()) return it->second;
            v.push_back(glm::normalize(v[a] + v[b]));
            return midpoint[key] = uint32_t(v.size() - 1);
        };
        std::vector<uint32_t> next;
        next.reserve(tris.size() * 4);
        for (size_t i = 0; i < tris.size(); i += 3) {
            const uint32_t a = tris[i], b = tris[i + 1], c = tris[i + 2];
            const uint32_t ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
            next.insert(next.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
        }
        tris = std::move(next);
    }
    MeshData m;
    for (const auto& n : v) {
        const glm::vec2 uv{0.5f + std::atan2(n.x, n.z) / kTwoPi, 0.5f - std::asin(n.y) / kPi};
        m.vertex(radius * n, n, uv);
    }
    m.indices = std::move(tris);
    return m;
}

// (p, q) torus knot tube: the curve winds p times around the Z axis and q times through the hole
// of an imaginary torus (radii 2 and 1, times `scale`) lying in the XY plane; `tube` is the tube
// radius.
MeshData make_torus_knot(int p, int q, float scale, float tube, int segments, int sides) {
    auto curve = [&](float u) {
        const float cu = std::cos(float(p) * u), su = std::sin(float(p) * u);
        const float r = 2.0f + std::cos(float(q) * u);
        return scale * glm::vec3(r * cu, r * su, -std::sin(float(q) * u));
    };
    MeshData m;
    for (int i = 0; i <= segments; ++i) {
        const float u = kTwoPi * float(i % segments) / float(segments);
        // Frame as in three.js: tangent from a forward difference, normal from the sum.
        const glm::vec3 p1 = curve(u), p2 = curve(u + 0.01f);
        const glm::vec3 tangent = p2 - p1;
        glm::vec3 normal = p2 + p1;
        const glm::vec3 binormal = glm::normalize(glm::cross(tangent, normal));
        normal = glm::normalize(glm::cross(binormal, tangent));
        for (int j = 0; j <= sides; ++j) {
            const float v = kTwoPi * float(j % sides) / float(sides);
            const glm::vec3 n = std::cos(v) * normal + std::sin(v) * binormal;
            m.vertex(p1 + tube * n, n, {8.0f * float(i) / float(segments), float(j) / float(sides)});
        }
    }
    const uint32_t row = uint32_t(sides + 1);
    for (int i = 0; i < segments; ++i) {
        for (int j = 0; j < sides; ++j) {
            const uint32_t a = uint32_t(i) * row + uint32_t(j), b = a + row, d = a + 1, c = b + 1;
            // (tangent) x (binormal) points inward, so go around the other way.
            m.triangle(a, d, c);
            m.triangle(a, c, b);
        }
    }
    return m;
}

// A small lumpy rock: a noise-displaced, squashed icosphere with recomputed normals. Closed.
MeshData make_rock(Rng& rng, int subdivisions, glm::vec3 size) {
    MeshData m = make_icosphere(1.0f, subdivisions);
    const uint32_t seed = uint32_t(rng.next());
    const glm::vec3 offset{rng.range(0, 100), rng.range(0, 100), rng.range(0, 100)};
    for (auto& p : m.positions) {
        const float bump = 0.75f + 0.5f * noise3(p * 1.7f + offset, seed) + 0.12f * noise3(p * 4.3f + offset, seed + 1);
        p = p * bump * size;
    }
    recompute_normals(m);
    return m;
}

// A tree crown: a softly lumpy icosphere.
MeshData make_crown(uint32_t seed, int subdivisions) {
    MeshData m = make_icosphere(1.0f, subdivisions);
    for (auto& p : m.positions) {
        const float bump = 0.85f + 0.3f * noise3(p * 1.6f, seed) + 0.08f * noise3(p * 5.0f, seed + 7);
        p = p * bump * glm::vec3(1.25f, 1.05f, 1.25f);
    }
    recompute_normals(m);
    return m;
}

// ------------------------------------------------------------------------------------------
// glTF model assembly
// ------------------------------------------------------------------------------------------

// Translation / rotation / scale of a node.
struct Trs {
    glm::vec3 t{0.0f};
    glm::quat r{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 s{1.0f};

    glm::mat4 matrix() const { return glm::translate(glm::mat4(1.0f), t) * glm::mat4_cast(r) * glm::scale(glm::mat4(1.0f), s); }
};

Trs at(float x, float y, float z) { return Trs{{x, y, z}}; }
Trs at(glm::vec3 p, float yaw_deg, float scale = 1.0f) {
    return Trs{p, glm::angleAxis(radians(yaw_deg), glm::vec3(0, 1, 0)), glm::vec3(scale)};
}
glm::quat rot(float deg, glm::vec3 axis) { return glm::angleAxis(radians(deg), glm::normalize(axis)); }

struct Primitive {
    MeshData data;
    int material = 0;
};

// Builds a tinygltf::Model with one external buffer. Keeps the CPU-side geometry of every mesh
// so the summary can count drawn triangles and compute world bounds.
class GltfBuilder {
public:
    explicit GltfBuilder(const std::string& bin_uri) {
        model_.asset.version = "2.0";
        model_.asset.generator = "subgroup-demo tools/gen_scene.cpp";
        model_.buffers.emplace_back();
        model_.buffers[0].uri = bin_uri;
        tinygltf::Sampler sampler;  // trilinear, repeat
        sampler.name = "repeat_trilinear";
        sampler.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
        sampler.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
        sampler.wrapS = sampler.wrapT = TINYGLTF_TEXTURE_WRAP_REPEAT;
        model_.samplers.push_back(sampler);
    }

    // An external PNG image (written separately) and a texture sampling it.
    int add_texture(const std::string& name, const std::string& uri) {
        tinygltf::Image image;
        image.name = name;
        image.uri = uri;
        image.mimeType = "image/png";
        model_.images.push_back(image);
        tinygltf::Texture texture;
        texture.name = name;
        texture.source = int(model_.images.size() - 1);
        texture.sampler = 0;
        model_.textures.push_back(texture);
        return int(model_.textures.size() - 1);
    }

    int add_material(const std::string& name, glm::vec3 color, int texture = -1, float metallic = 0.0f,
                     float roughness = 0.75f, float alpha_cutoff = 0.0f) {
        tinygltf::Material mat;
        mat.name = name;
        if (alpha_cutoff > 0.0f) {  // alphaMode MASK, seen from both sides
            mat.alphaMode = "MASK";
            mat.alphaCutoff = alpha_cutoff;
            mat.doubleSided = true;
        }
        mat.pbrMetallicRoughness.baseColorFactor = {color.r, color.g, color.b, 1.0};
        mat.pbrMetallicRoughness.baseColorTexture.index = texture;
        mat.pbrMetallicRoughness.metallicFactor = metallic;
        mat.pbrMetallicRoughness.roughnessFactor = roughness;
        model_.materials.push_back(mat);
        return int(model_.materials.size() - 1);
    }

    tinygltf::Material& material(int index) { return model_.materials[index]; }

    int add_mesh(const std::string& name, const std::vector<Primitive>& prims) {
        tinygltf::Mesh mesh;
        mesh.name = name;
        MeshStats stats;
        for (const Primitive& p : prims) {
            const MeshData& d = p.data;
            if (size_t bad = count_inverted_triangles(d)) {
                std::fprintf(stderr, "gen-scene: mesh '%s' has %zu inverted triangles\n", name.c_str(), bad);
                std::exit(1);
            }
            tinygltf::Primitive prim;
            prim.mode = TINYGLTF_MODE_TRIANGLES;
            prim.material = p.material;
            glm::vec3 lo(1e30f), hi(-1e30f);
            for (const auto& v : d.positions) lo = glm::min(lo, v), hi = glm::max(hi, v);
            const size_t n = d.positions.size();
            prim.attributes["POSITION"] =
                add_accessor(add_view(d.positions.data(), n * 12, TINYGLTF_TARGET_ARRAY_BUFFER),
                             TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n, {lo.x, lo.y, lo.z}, {hi.x, hi.y, hi.z});
            prim.attributes["NORMAL"] =
                add_accessor(add_view(d.normals.data(), n * 12, TINYGLTF_TARGET_ARRAY_BUFFER),
                             TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n, {}, {});
            prim.attributes["TEXCOORD_0"] =
                add_accessor(add_view(d.uvs.data(), n * 8, TINYGLTF_TARGET_ARRAY_BUFFER),
                             TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2, n, {}, {});
            // 16-bit indices when they fit, 32-bit otherwise.
            const size_t ni = d.indices.size();
            if (n <= 65536) {
                std::vector<uint16_t> idx16(d.indices.begin(), d.indices.end());
                prim.indices = add_accessor(add_view(idx16.data(), ni * 2, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER),
                                            TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_SCALAR, ni, {}, {});
            } else {
                prim.indices = add_accessor(add_view(d.indices.data(), ni * 4, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER),
                                            TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR, ni, {}, {});
            }
            mesh.primitives.push_back(prim);
            stats.triangles += d.triangle_count();
            stats.vertices += n;
            stats.positions.insert(stats.positions.end(), d.positions.begin(), d.positions.end());
        }
        model_.meshes.push_back(mesh);
        mesh_stats_.push_back(std::move(stats));
        return int(model_.meshes.size() - 1);
    }
    int add_mesh(const std::string& name, MeshData data, int material) {
        return add_mesh(name, std::vector<Primitive>{{std::move(data), material}});
    }

    // A node under `parent` (-1: a scene root), optionally drawing `mesh`.
    int add_node(const std::string& name, int parent, const Trs& trs = Trs{}, int mesh = -1) {
        tinygltf::Node node;
        node.name = name;
        node.mesh = mesh;
        if (trs.t != glm::vec3(0.0f)) node.translation = {trs.t.x, trs.t.y, trs.t.z};
        if (trs.r != glm::quat(1.0f, 0.0f, 0.0f, 0.0f)) node.rotation = {trs.r.x, trs.r.y, trs.r.z, trs.r.w};
        if (trs.s != glm::vec3(1.0f)) node.scale = {trs.s.x, trs.s.y, trs.s.z};
        model_.nodes.push_back(node);
        trs_.push_back(trs);
        const int index = int(model_.nodes.size() - 1);
        if (parent >= 0) model_.nodes[size_t(parent)].children.push_back(index);
        else roots_.push_back(index);
        return index;
    }

    tinygltf::Model& finish(const std::string& name = "default_scene") {
        tinygltf::Scene scene;
        scene.name = name;
        scene.nodes = roots_;
        model_.scenes = {scene};
        model_.defaultScene = 0;
        model_.buffers[0].data = bin_;
        return model_;
    }

    // Totals over the flattened node tree.
    struct Summary {
        uint64_t drawn_triangles = 0, drawn_vertices = 0, instances = 0;
        uint64_t unique_triangles = 0, unique_vertices = 0;
        glm::vec3 lo{1e30f}, hi{-1e30f};
    };
    Summary summarize() const {
        Summary s;
        for (const auto& m : mesh_stats_) s.unique_triangles += m.triangles, s.unique_vertices += m.vertices;
        for (int root : roots_) walk(root, glm::mat4(1.0f), s);
        return s;
    }

    size_t bin_size() const { return bin_.size(); }

private:
    struct MeshStats {
        uint64_t triangles = 0, vertices = 0;
        std::vector<glm::vec3> positions;
    };

    int add_view(const void* data, size_t bytes, int target) {
        while (bin_.size() % 4) bin_.push_back(0);  // every view starts 4-byte aligned
        tinygltf::BufferView view;
        view.buffer = 0;
        view.byteOffset = bin_.size();
        view.byteLength = bytes;
        view.target = target;
        const auto* p = static_cast<const unsigned char*>(data);
        bin_.insert(bin_.end(), p, p + bytes);
        model_.bufferViews.push_back(view);
        return int(model_.bufferViews.size() - 1);
    }

    int add_accessor(int view, int component, int type, size_t count, std::vector<double> lo, std::vector<double> hi) {
        tinygltf::Accessor acc;
        acc.bufferView = view;
        acc.componentType = component;
        acc.type = type;
        acc.count = count;
        acc.minValues = std::move(lo);
        acc.maxValues = std::move(hi);
        model_.accessors.push_back(acc);
        return int(model_.accessors.size() - 1);
    }

    void walk(int node, const glm::mat4& parent, Summary& s) const {
        const glm::mat4 world = parent * trs_[size_t(node)].matrix();
        const tinygltf::Node& n = model_.nodes[size_t(node)];
        if (n.mesh >= 0) {
            const MeshStats& m = mesh_stats_[size_t(n.mesh)];
            s.drawn_triangles += m.triangles;
            s.drawn_vertices += m.vertices;
            s.instances += model_.meshes[size_t(n.mesh)].primitives.size();
            for (const auto& p : m.positions) {
                const glm::vec3 w(world * glm::vec4(p, 1.0f));
                s.lo = glm::min(s.lo, w);
                s.hi = glm::max(s.hi, w);
            }
        }
        for (int child : n.children) walk(child, world, s);
    }

    tinygltf::Model model_;
    std::vector<unsigned char> bin_;
    std::vector<Trs> trs_;
    std::vector<int> roots_;
    std::vector<MeshStats> mesh_stats_;
};

// ------------------------------------------------------------------------------------------
// The courtyard
// ------------------------------------------------------------------------------------------

struct Materials {
    int paving, brick, marble, facade, sandstone, stripes, checker, lattice;  // textured (lattice: alpha-masked)
    int bronze, rock, pebble, foliage, foliage_dark, bark, terracotta, verdigris, water, slate;  // plain colours
};

// Materials and their textures. Texture order = file order.
Materials add_materials(GltfBuilder& gb, const std::vector<Texture>& textures) {
    std::map<std::string, int> tex;
    for (const Texture& t : textures) tex[t.name] = gb.add_texture(t.name, "textures/" + t.name + ".png");
    Materials m{};
    m.paving = gb.add_material("paving", glm::vec3(1.0f), tex["paving"]);
    gb.material(m.paving).normalTexture.index = tex["paving_normal"];
    gb.material(m.paving).occlusionTexture.index = tex["paving_occlusion"];
    m.brick = gb.add_material("brick", glm::vec3(1.0f), tex["brick"]);
    m.marble = gb.add_material("marble", glm::vec3(1.0f), tex["marble"], 0.0f, 0.3f);
    gb.material(m.marble).pbrMetallicRoughness.metallicRoughnessTexture.index = tex["marble_roughness"];
    m.facade = gb.add_material("facade", glm::vec3(1.0f), tex["facade"]);
    gb.material(m.facade).emissiveTexture.index = tex["facade_emissive"];
    gb.material(m.facade).emissiveFactor = {1.0, 1.0, 1.0};
    m.sandstone = gb.add_material("sandstone", glm::vec3(1.0f), tex["sandstone"], 0.0f, 0.9f);
    m.stripes = gb.add_material("awning", glm::vec3(1.0f), tex["stripes"]);
    m.checker = gb.add_material("checker_floor", glm::vec3(1.0f), tex["checker"], 0.0f, 0.35f);
    m.lattice = gb.add_material("trellis", glm::vec3(1.0f), tex["lattice"], 0.0f, 0.8f, 0.5f);
    m.bronze = gb.add_material("bronze", {0.80f, 0.55f, 0.25f}, -1, 1.0f, 0.35f);
    m.rock = gb.add_material("rock", {0.46f, 0.43f, 0.40f}, -1, 0.0f, 0.95f);
    m.pebble = gb.add_material("pebble", {0.62f, 0.58f, 0.50f}, -1, 0.0f, 0.9f);
    m.foliage = gb.add_material("foliage", {0.24f, 0.50f, 0.18f}, -1, 0.0f, 0.9f);
    m.foliage_dark = gb.add_material("foliage_dark", {0.16f, 0.38f, 0.20f}, -1, 0.0f, 0.9f);
    m.bark = gb.add_material("bark", {0.36f, 0.25f, 0.16f}, -1, 0.0f, 0.95f);
    m.terracotta = gb.add_material("terracotta", {0.72f, 0.32f, 0.20f}, -1, 0.0f, 0.8f);
    m.verdigris = gb.add_material("verdigris", {0.32f, 0.64f, 0.56f}, -1, 0.6f, 0.5f);
    m.water = gb.add_material("water", {0.16f, 0.36f, 0.58f}, -1, 0.0f, 0.1f);
    m.slate = gb.add_material("slate", {0.24f, 0.26f, 0.30f}, -1, 0.0f, 0.7f);
    return m;
}

// Meshes used in more than one place.
struct SharedMeshes {
    int sphere_hi;  // unit marble sphere, 128 x 64 segments
    int ball_lo;    // unit marble ball, 32 x 16, for finials
    int pillar;     // 6-unit column with base and capital
    int torus;      // bronze ring for the sculptures
};

// A classical column: moulded base, slightly tapering shaft, flared capital. Height 6.
MeshData make_pillar_mesh() {
    const std::vector<glm::vec2> profile = {
        {0.0f, 0.0f},   {0.56f, 0.0f},  {0.56f, 0.16f}, {0.50f, 0.22f}, {0.50f, 0.30f}, {0.44f, 0.38f},
        {0.42f, 1.8f},  {0.40f, 3.5f},  {0.37f, 5.35f}, {0.42f, 5.5f},  {0.50f, 5.68f}, {0.56f, 5.8f},
        {0.56f, 6.0f},  {0.0f, 6.0f}};
    return make_lathe(profile, 40, 2.0f, 2.0f);
}

SharedMeshes add_shared_meshes(GltfBuilder& gb, const Materials& mat) {
    SharedMeshes s{};
    s.sphere_hi = gb.add_mesh("marble_sphere", make_uv_sphere(1.0f, 128, 64), mat.marble);
    s.ball_lo = gb.add_mesh("marble_ball", make_uv_sphere(1.0f, 32, 16), mat.marble);
    s.pillar = gb.add_mesh("pillar", make_pillar_mesh(), mat.marble);
    s.torus = gb.add_mesh("bronze_ring", make_torus(1.4f, 0.25f, 64, 24), mat.bronze);
    return s;
}

// The paved ground: 60 x 60 units, 80 x 80 quads, one paving texture repeat per 4 units.
void build_ground(GltfBuilder& gb, const Materials& mat, int parent) {
    const int mesh = gb.add_mesh("ground", make_plane(60.0f, 60.0f, 80, 80, 4.0f), mat.paving);
    gb.add_node("ground", parent, Trs{}, mesh);
}

// Perimeter: tall crenellated brick walls on the far (-Z and -X) sides, low walls with gates on
// the near sides. One mesh per wall type, reused with rotations.
void build_perimeter(GltfBuilder& gb, const Materials& mat, const SharedMeshes& sh, int parent) {
    const int group = gb.add_node("perimeter", parent);

    // Tall wall along X, 60 long, 4 high, with merlons every 1.6 units.
    MeshData tall = make_box({-30.0f, 0.0f, -0.3f}, {30.0f, 4.0f, 0.3f}, 2.0f);
    for (float x = -29.2f; x < 29.5f; x += 1.6f) tall.append(make_box({x - 0.4f, 4.0f, -0.3f}, {x + 0.4f, 4.8f, 0.3f}, 2.0f));
    const int tall_mesh = gb.add_mesh("wall_tall", tall, mat.brick);
    gb.add_node("wall_north", group, at(0.0f, 0.0f, -29.7f), tall_mesh);
    gb.add_node("wall_west", group, at({-29.7f, 0.0f, 0.0f}, 90.0f), tall_mesh);

    // Low wall segment with a sandstone coping, 25 long: two per near side (x = 5 .. 29.9), a gate between.
    const int low_mesh = gb.add_mesh("wall_low", {{make_box({-12.4f, 0.0f, -0.25f}, {12.4f, 1.0f, 0.25f}, 2.0f), mat.brick},
                                                  {make_box({-12.5f, 1.0f, -0.35f}, {12.5f, 1.15f, 0.35f}, 4.0f), mat.sandstone}});
    const int post_mesh = gb.add_mesh("gate_post", make_box({-0.45f, 0.0f, -0.45f}, {0.45f, 2.4f, 0.45f}, 4.0f), mat.sandstone);
    for (int side = 0; side < 2; ++side) {  // 0: south (+Z) side, 1: east (+X) side
        const std::string tag = side == 0 ? "south" : "east";
        const float yaw = side == 0 ? 0.0f : 90.0f;
        // The east side stands 1 cm higher: the two sides' copings overlap at their corner, and at
        // one height their tops would be coplanar: z-fighting, pixels where two fragments of equal
        // depth pass forward's EQUAL test and draw order alone picks the colour.
        const glm::vec3 at_side = side == 0 ? glm::vec3(0, 0, 29.7f) : glm::vec3(29.7f, 0.01f, 0);
        const int gate = gb.add_node("gate_" + tag, group, at(at_side, yaw));
        for (int k = 0; k < 2; ++k) {
            const float sign = k == 0 ? -1.0f : 1.0f;
            gb.add_node("wall_" + tag + std::to_string(k), gate, at(sign * 17.4f, 0.0f, 0.0f), low_mesh);
            const int post = gb.add_node("gate_post_" + tag + std::to_string(k), gate, at(sign * 5.2f, 0.0f, 0.0f), post_mesh);
            gb.add_node("finial", post, Trs{{0.0f, 2.78f, 0.0f}, rot(30.0f, {1, 1, 0}), glm::vec3(0.4f)}, sh.ball_lo);
        }
    }
}

// Towers: a tall domed keep in the far corner and two smaller conical-roofed towers (shared meshes).
void build_towers(GltfBuilder& gb, const Materials& mat, const SharedMeshes& sh, int parent) {
    const int group = gb.add_node("towers", parent);

    // Keep: sandstone drum with a cornice and merlons, geodesic verdigris dome (subdivided 5 times:
    // 20480 triangles, half of them hidden inside the drum).
    MeshData keep = make_lathe({{0.0f, 0.0f}, {3.4f, 0.0f}, {3.4f, 0.8f}, {3.1f, 1.1f}, {3.0f, 15.5f}, {3.4f, 16.0f},
                                {3.4f, 17.0f}, {0.0f, 17.0f}},
                               48, 6.0f, 4.0f);
    for (int k = 0; k < 16; ++k) {
        const glm::mat4 xf = glm::rotate(glm::mat4(1.0f), kTwoPi * float(k) / 16.0f, glm::vec3(0, 1, 0));
        keep.append(make_box({-0.35f, 17.0f, 2.85f}, {0.35f, 17.9f, 3.35f}, 4.0f), xf);
    }
    const int keep_node = gb.add_node("keep", group, at(-25.5f, 0.0f, -25.5f));
    gb.add_node("keep_drum", keep_node, Trs{}, gb.add_mesh("keep_drum", keep, mat.sandstone));
    gb.add_node("keep_dome", keep_node, at(0.0f, 17.0f, 0.0f), gb.add_mesh("keep_dome", make_icosphere(2.7f, 5), mat.verdigris));
    gb.add_node("keep_finial", keep_node, Trs{{0.0f, 19.95f, 0.0f}, {1, 0, 0, 0}, glm::vec3(0.3f)}, sh.ball_lo);

    // Corner towers.
    const int body = gb.add_mesh("tower_body",
                                 make_lathe({{0.0f, 0.0f}, {2.2f, 0.0f}, {2.2f, 9.5f}, {2.5f, 9.8f}, {2.5f, 10.2f}, {0.0f, 10.2f}},
                                            48, 4.0f, 4.0f),
                                 mat.sandstone);
    const int roof = gb.add_mesh("tower_roof", make_lathe({{0.0f, 10.2f}, {2.8f, 10.2f}, {0.0f, 14.2f}}, 48, 8.0f, 2.0f),
                                 mat.terracotta);
    const glm::vec3 corners[2] = {{25.5f, 0.0f, -25.5f}, {-25.5f, 0.0f, 25.5f}};
    for (int k = 0; k < 2; ++k) {
        const int t = gb.add_node("tower" + std::to_string(k), group, at(corners[k], 30.0f * float(k), k == 0 ? 1.0f : 0.85f));
        gb.add_node("tower_body", t, Trs{}, body);
        gb.add_node("tower_roof", t, Trs{}, roof);
    }
}

// Buildings along the far walls: facade box, sandstone cornice, terracotta roof slab.
// Three building types (shared meshes), seven placements.
void build_buildings(GltfBuilder& gb, const Materials& mat, int parent) {
    const int group = gb.add_node("buildings", parent);
    auto building = [&](const std::string& name, float w, float h, float d) {
        const float hw = 0.5f * w, hd = 0.5f * d;
        return gb.add_mesh(name, {{make_box({-hw, 0.0f, -hd}, {hw, h, hd}, 8.0f), mat.facade},
                                  {make_box({-hw - 0.25f, h, -hd - 0.25f}, {hw + 0.25f, h + 0.45f, hd + 0.25f}, 4.0f), mat.sandstone},
                                  {make_box({-hw + 0.6f, h + 0.45f, -hd + 0.6f}, {hw - 0.6f, h + 1.3f, hd - 0.6f}, 4.0f), mat.terracotta}});
    };
    // Heights are whole 4-unit storeys plus a 0.5 parapet, so the facade windows end cleanly.
    const int a = building("building_a", 8.0f, 8.5f, 6.0f);
    const int b = building("building_b", 9.0f, 12.5f, 6.0f);
    const int c = building("building_c", 8.0f, 4.5f, 6.0f);  // low: hidden behind the stoa
    struct Placement {
        int mesh;
        glm::vec3 pos;
        float yaw;
    };
    const Placement places[] = {
        {a, {-17.5f, 0.0f, -24.0f}, 0.0f},  {b, {-7.5f, 0.0f, -24.0f}, 0.0f},  {c, {2.5f, 0.0f, -24.0f}, 0.0f},
        {a, {12.5f, 0.0f, -24.0f}, 180.0f}, {c, {-24.0f, 0.0f, -12.0f}, 90.0f}, {a, {-24.0f, 0.0f, 0.0f}, 90.0f},
        {b, {-24.0f, 0.0f, 12.0f}, 90.0f},
    };
    int k = 0;
    for (const Placement& p : places) gb.add_node("building" + std::to_string(k++), group, at(p.pos, p.yaw), p.mesh);
}

// A stoa: eight taller columns (the shared pillar scaled up) carrying a sandstone beam.
void build_stoa(GltfBuilder& gb, const Materials& mat, const SharedMeshes& sh, int parent) {
    const int stoa = gb.add_node("stoa", parent, at(-5.5f, 0.0f, -14.0f));
    const float scale = 7.0f / 6.0f;
    for (int k = 0; k < 8; ++k)
        gb.add_node("stoa_column" + std::to_string(k), stoa, at({-10.5f + 3.0f * float(k), 0.0f, 0.0f}, 11.0f * float(k), scale),
                    sh.pillar);
    const int beam = gb.add_mesh("stoa_beam", {{make_box({-11.4f, 7.0f, -0.75f}, {11.4f, 7.8f, 0.75f}, 4.0f), mat.sandstone},
                                               {make_box({-11.6f, 7.8f, -0.9f}, {11.6f, 8.1f, 0.9f}, 4.0f), mat.sandstone}});
    gb.add_node("stoa_beam", stoa, Trs{}, beam);
}

// The centrepiece: a stepped round platform with a checker floor, a ring of twelve columns
// under a circular entablature, and a bronze torus knot on a pedestal in the middle.
void build_rotunda(GltfBuilder& gb, const Materials& mat, const SharedMeshes& sh, int parent) {
    const int rotunda = gb.add_node("rotunda", parent);
    const float floor_y = 0.9f;
    // Steps (open at the bottom, which sits on the ground; the top edge meets the floor disc).
    const int steps = gb.add_mesh("rotunda_steps",
                                  make_lathe({{8.0f, 0.0f}, {8.0f, 0.3f}, {7.4f, 0.3f}, {7.4f, 0.6f}, {6.8f, 0.6f},
                                              {6.8f, floor_y}, {6.4f, floor_y}},
                                             96, 12.0f, 2.0f),
                                  mat.marble);
    gb.add_node("rotunda_steps", rotunda, Trs{}, steps);
    gb.add_node("rotunda_floor", rotunda, Trs{}, gb.add_mesh("rotunda_floor", make_disc(6.4f, floor_y, 96, 6.4f), mat.checker));

    const int colonnade = gb.add_node("rotunda_columns", rotunda, at(0.0f, floor_y, 0.0f));
    for (int k = 0; k < 12; ++k) {
        const float a = radians(15.0f + 30.0f * float(k));
        gb.add_node("rotunda_column" + std::to_string(k), colonnade,
                    at({5.3f * std::sin(a), 0.0f, 5.3f * std::cos(a)}, 15.0f + 30.0f * float(k)), sh.pillar);
    }
    const int ring = gb.add_mesh("entablature",
                                 make_lathe({{4.5f, 6.0f}, {6.2f, 6.0f}, {6.2f, 6.6f}, {6.35f, 6.7f}, {6.35f, 7.0f}, {4.5f, 7.0f},
                                             {4.5f, 6.0f}},
                                            96, 12.0f, 4.0f),
                                 mat.sandstone);
    gb.add_node("entablature", colonnade, Trs{}, ring);

    const int pedestal = gb.add_mesh("knot_pedestal",
                                     make_lathe({{0.0f, 0.0f}, {1.1f, 0.0f}, {1.1f, 0.25f}, {0.8f, 0.45f}, {0.7f, 1.2f}, {0.95f, 1.4f},
                                                 {0.95f, 1.6f}, {0.0f, 1.6f}},
                                                48, 2.0f, 2.0f),
                                     mat.marble);
    gb.add_node("knot_pedestal", rotunda, at(0.0f, floor_y, 0.0f), pedestal);
    // Torus knot: 768 x 32 segments (49k triangles, most well under a pixel). The curve lies in
    // its XY plane; turn it so its axis is vertical, then tilt it a little.
    const int knot = gb.add_mesh("torus_knot", make_torus_knot(2, 3, 0.85f, 0.38f, 768, 32), mat.bronze);
    const int pivot = gb.add_node("knot_pivot", rotunda, Trs{{0.0f, 4.55f, 0.0f}, rot(14.0f, {0, 0, 1}) * rot(-90.0f, {1, 0, 0})});
    gb.add_node("torus_knot", pivot, Trs{}, knot);
}

// Marble spheres (128 x 64 segments) balanced on pedestals, and a fountain.
void build_sculptures(GltfBuilder& gb, const Materials& mat, const SharedMeshes& sh, int parent) {
    const int group = gb.add_node("sculptures", parent);
    const int pedestal = gb.add_mesh("sphere_pedestal",
                                     make_lathe({{0.0f, 0.0f}, {0.9f, 0.0f}, {0.9f, 0.2f}, {0.7f, 0.35f}, {0.55f, 1.0f}, {0.75f, 1.15f},
                                                 {0.75f, 1.3f}, {0.0f, 1.3f}},
                                                48, 2.0f, 2.0f),
                                     mat.sandstone);
    struct Ball {
        glm::vec3 pos;
        float radius;
    };
    const Ball balls[] = {{{8.0f, 0.0f, 14.0f}, 1.8f}, {{-6.0f, 0.0f, -10.5f}, 1.2f}, {{24.0f, 0.0f, 12.0f}, 1.5f}};
    int k = 0;
    for (const Ball& b : balls) {
        const int node = gb.add_node("sphere_plinth" + std::to_string(k), group, at(b.pos, 20.0f * float(k)), pedestal);
        // Child of the pedestal: random-looking orientation so the marble veins differ.
        gb.add_node("marble_sphere" + std::to_string(k), node,
                    Trs{{0.0f, 1.3f + 0.96f * b.radius, 0.0f}, rot(40.0f + 50.0f * float(k), {1.0f, 0.3f, 0.5f}), glm::vec3(b.radius)},
                    sh.sphere_hi);
        ++k;
    }

    // Fountain: basin (outer wall, rim, inner wall, floor), water surface, column and ball.
    const int fountain = gb.add_node("fountain", group, at(15.0f, 0.0f, 15.0f));
    const int basin = gb.add_mesh("fountain_basin",
                                  make_lathe({{0.0f, 0.0f}, {3.0f, 0.0f}, {3.0f, 0.55f}, {3.15f, 0.65f}, {3.15f, 0.8f}, {2.75f, 0.8f},
                                              {2.75f, 0.3f}, {0.0f, 0.3f}},
                                             64, 8.0f, 2.0f),
                                  mat.marble);
    gb.add_node("fountain_basin", fountain, Trs{}, basin);
    gb.add_node("fountain_water", fountain, Trs{}, gb.add_mesh("fountain_water", make_disc(2.75f, 0.62f, 64, 2.0f), mat.water));
    const int column = gb.add_mesh("fountain_column",
                                   make_lathe({{0.0f, 0.3f}, {0.4f, 0.3f}, {0.25f, 0.6f}, {0.22f, 1.8f}, {0.6f, 1.95f}, {0.6f, 2.05f},
                                               {0.0f, 2.05f}},
                                              32, 2.0f, 2.0f),
                                   mat.marble);
    gb.add_node("fountain_column", fountain, Trs{}, column);
    gb.add_node("fountain_ball", fountain, Trs{{0.0f, 2.38f, 0.0f}, {1, 0, 0, 0}, glm::vec3(0.35f)}, sh.ball_lo);

    // Two chain-link sculptures: interlocked bronze rings standing on slate plinths.
    const int plinth = gb.add_mesh("ring_plinth", make_box({-1.6f, 0.0f, -0.6f}, {1.6f, 0.4f, 0.6f}, 4.0f), mat.slate);
    const glm::vec3 where[2] = {{-17.0f, 0.0f, 6.0f}, {20.0f, 0.0f, -20.0f}};
    const float yaw[2] = {30.0f, -40.0f};
    for (int s = 0; s < 2; ++s) {
        const int node = gb.add_node("rings" + std::to_string(s), group, at(where[s], yaw[s]), plinth);
        // Ring A in the XY plane, ring B in the YZ plane through ring A's hole.
        gb.add_node("ring_a", node, Trs{{-0.7f, 2.1f, 0.0f}, rot(90.0f, {1, 0, 0})}, sh.torus);
        gb.add_node("ring_b", node, Trs{{0.7f, 2.1f, 0.0f}, rot(90.0f, {0, 0, 1})}, sh.torus);
    }
}

// Free-standing brick walls at different depths (occluders between the open areas).
void build_free_walls(GltfBuilder& gb, const Materials& mat, int parent) {
    const int group = gb.add_node("free_walls", parent);
    const int wall = gb.add_mesh("free_wall", make_box({-4.0f, 0.0f, -0.25f}, {4.0f, 3.2f, 0.25f}, 2.0f), mat.brick);
    gb.add_node("free_wall0", group, at({-13.0f, 0.0f, 13.0f}, 25.0f), wall);
    gb.add_node("free_wall1", group, at({13.0f, 0.0f, -17.0f}, 0.0f), wall);
    gb.add_node("free_wall2", group, at({10.5f, 0.0f, 4.0f}, 90.0f, 1.1f), wall);
}

// Lollipop trees: a tapered trunk and a lumpy crown (two crown variants), each tree a small
// hierarchy with its own yaw and scale.
void build_trees(GltfBuilder& gb, const Materials& mat, int parent) {
    const int group = gb.add_node("trees", parent);
    const int trunk = gb.add_mesh("tree_trunk",
                                  make_lathe({{0.0f, 0.0f}, {0.26f, 0.0f}, {0.18f, 0.3f}, {0.13f, 2.6f}, {0.0f, 2.6f}}, 10, 1.0f, 1.0f),
                                  mat.bark);
    const int crowns[2] = {gb.add_mesh("tree_crown_a", make_crown(81, 3), mat.foliage),
                           gb.add_mesh("tree_crown_b", make_crown(82, 3), mat.foliage_dark)};
    const glm::vec3 spots[] = {{-3.6f, 0, 12.0f}, {3.6f, 0, 12.5f}, {-3.6f, 0, 16.5f}, {3.6f, 0, 17.0f}, {-3.6f, 0, 21.0f},
                               {3.6f, 0, 21.5f},  {-3.6f, 0, 25.5f}, {3.6f, 0, 26.0f},  {-16.0f, 0, -9.5f}, {26.0f, 0, 16.5f},
                               {8.0f, 0, -8.0f},  {-20.0f, 0, 24.0f}};
    Rng rng(0x7EE5);
    int k = 0;
    for (const glm::vec3& p : spots) {
        const int tree = gb.add_node("tree" + std::to_string(k), group, at(p, rng.range(0.0f, 360.0f), rng.range(0.8f, 1.25f)));
        gb.add_node("trunk", tree, Trs{}, trunk);
        gb.add_node("crown", tree, at(0.0f, 2.9f, 0.0f), crowns[k % 2]);
        ++k;
    }
}

// Market stalls: four posts, a counter and a tilted striped awning; four stalls sharing meshes.
void build_market(GltfBuilder& gb, const Materials& mat, int parent) {
    const int group = gb.add_node("market", parent);
    const int post = gb.add_mesh("stall_post", make_cylinder(0.06f, 2.45f, 8, 1.0f, 1.0f), mat.bark);
    const int counter = gb.add_mesh("stall_counter", make_box({-1.1f, 0.0f, 0.45f}, {1.1f, 0.9f, 0.9f}, 2.0f), mat.bark);
    const int awning = gb.add_mesh("stall_awning", make_box({-1.35f, -0.04f, -1.05f}, {1.35f, 0.04f, 1.05f}, 2.7f), mat.stripes);
    const glm::vec3 spots[4] = {{16.5f, 0, -9.0f}, {22.5f, 0, -9.0f}, {16.5f, 0, -3.5f}, {22.5f, 0, -3.5f}};
    const float yaws[4] = {-15.0f, 10.0f, 5.0f, -20.0f};
    for (int k = 0; k < 4; ++k) {
        const int stall = gb.add_node("stall" + std::to_string(k), group, at(spots[k], yaws[k]));
        for (int c = 0; c < 4; ++c)
            gb.add_node("post", stall, at((c & 1) ? 1.1f : -1.1f, 0.0f, (c & 2) ? 0.8f : -0.8f), post);
        gb.add_node("counter", stall, Trs{}, counter);
        gb.add_node("awning", stall, Trs{{0.0f, 2.45f, 0.0f}, rot(-10.0f, {1, 0, 0})}, awning);
    }
    // A pergola over the stalls: an alpha-masked trellis roof (a thin slab: both faces drawn) on
    // four posts. Its holes are the ray-traced sun shadows' test of the any-hit alpha mask.
    const int pergola = gb.add_node("pergola", group, at(19.5f, 0.0f, -6.25f));
    const int tall_post = gb.add_mesh("pergola_post", make_cylinder(0.1f, 3.6f, 8, 1.0f, 1.0f), mat.bark);
    for (int c = 0; c < 4; ++c)
        gb.add_node("post", pergola, at((c & 1) ? 4.6f : -4.6f, 0.0f, (c & 2) ? 4.1f : -4.1f), tall_post);
    gb.add_node("trellis", pergola, Trs{},
                gb.add_mesh("trellis", make_box({-4.8f, 3.6f, -4.3f}, {4.8f, 3.64f, 4.3f}, 1.6f), mat.lattice));
}

// Rubble fields: patches of tiny closed rocks, pebbles and cubes baked into one mesh per patch
// variant, then instanced with different positions, yaws and scales.
MeshData make_rock_patch(uint64_t seed, int count, float radius) {
    Rng rng(seed);
    MeshData patch;
    for (int i = 0; i < count; ++i) {
        // Denser towards the centre.
        const float r = radius * std::pow(rng.uniform(), 0.7f);
        const float a = rng.range(0.0f, kTwoPi);
        const glm::vec3 base{r * std::sin(a), 0.0f, r * std::cos(a)};
        const float kind = rng.uniform();
        MeshData piece;
        glm::mat4 xf;
        if (kind < 0.22f) {  // little cube / brick fragment, randomly tumbled
            const glm::vec3 h{rng.range(0.03f, 0.1f), rng.range(0.03f, 0.08f), rng.range(0.03f, 0.1f)};
            piece = make_box(-h, h, 0.5f);
            xf = glm::translate(glm::mat4(1.0f), base + glm::vec3(0.0f, 0.5f * h.y, 0.0f)) * glm::mat4_cast(rng.rotation());
        } else {  // lumpy rock: mostly 80-triangle pebbles, some 320-triangle stones
            const bool big = kind > 0.84f;
            const float s = big ? rng.range(0.14f, 0.32f) : rng.range(0.04f, 0.16f);
            const glm::vec3 size{s * rng.range(0.8f, 1.3f), s * rng.range(0.5f, 0.8f), s * rng.range(0.8f, 1.3f)};
            piece = make_rock(rng, big ? 2 : 1, size);
            xf = glm::translate(glm::mat4(1.0f), base + glm::vec3(0.0f, 0.35f * size.y, 0.0f)) *
                 glm::rotate(glm::mat4(1.0f), rng.range(0.0f, kTwoPi), glm::vec3(0, 1, 0)) *
                 glm::rotate(glm::mat4(1.0f), rng.range(-0.3f, 0.3f), glm::vec3(1, 0, 0));
        }
        patch.append(piece, xf);
    }
    return patch;
}

void build_rubble(GltfBuilder& gb, const Materials& mat, int parent, int rocks_per_patch) {
    const int group = gb.add_node("rubble", parent);
    const int patches[2] = {gb.add_mesh("rock_patch_a", make_rock_patch(0xA11CE, rocks_per_patch, 4.0f), mat.rock),
                            gb.add_mesh("rock_patch_b", make_rock_patch(0xB0B, rocks_per_patch, 4.0f), mat.pebble)};
    struct Spot {
        glm::vec3 pos;
        float yaw, scale;
    };
    const Spot spots[] = {{{-11.0f, 0, 22.0f}, 0.0f, 1.0f},   {{9.5f, 0, 22.5f}, 70.0f, 1.0f},  {{23.5f, 0, 22.0f}, 140.0f, 1.0f},
                          {{-13.0f, 0, -2.0f}, 200.0f, 1.0f}, {{20.5f, 0, 4.5f}, 260.0f, 0.9f}, {{-6.0f, 0, -18.0f}, 320.0f, 0.7f}};
    int k = 0;
    for (const Spot& s : spots) {
        gb.add_node("rock_patch" + std::to_string(k), group, at(s.pos, s.yaw, s.scale), patches[k % 2]);
        ++k;
    }
}

std::string human_size(uintmax_t bytes) {
    char buf[64];
    if (bytes >= 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    else std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
    return buf;
}


// ------------------------------------------------------------------------------------------
// Test scenes (gen-scene --test-scenes OUTDIR): small, deterministic, each made for what a test
// needs, so no test depends on models that are not in the repository.
// ------------------------------------------------------------------------------------------

bool write_model(tinygltf::Model& model, const fs::path& path) {
    tinygltf::TinyGLTF writer;
    writer.SetImageWriter(nullptr, nullptr);
    if (!writer.WriteGltfSceneToFile(&model, path.string(), /*embedImages=*/false, /*embedBuffers=*/false,
                                     /*prettyPrint=*/true, /*writeBinary=*/false)) {
        std::fprintf(stderr, "gen-scene: failed to write %s\n", path.string().c_str());
        return false;
    }
    return true;
}

// box.gltf: the unit cube centred on the origin, 24 vertices, 12 triangles, one material.
bool write_box(const fs::path& dir) {
    GltfBuilder gb("box.bin");
    const int mat = gb.add_material("box", {0.8f, 0.3f, 0.2f});
    gb.add_node("box", -1, Trs{}, gb.add_mesh("box", make_box({-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}, 1.0f), mat));
    return write_model(gb.finish("box"), dir / "box.gltf");
}

// props.gltf: large triangles, a texture and several primitives per mesh (the quad mip's
// "mostly whole quads" case and the texture path): a textured checker ground, a crate whose mesh
// has two primitives (textured box, plain lid), a coarse plain cylinder and a coarse torus.
bool write_props(const fs::path& dir) {
    Texture checker = make_checker_texture(64);
    checker.name = "props_checker";
    if (!write_png(dir / "textures" / "props_checker.png", checker)) return false;
    GltfBuilder gb("props.bin");
    const int tex = gb.add_texture("props_checker", "textures/props_checker.png");
    const int ground_mat = gb.add_material("ground", {1.0f, 1.0f, 1.0f}, tex);
    const int crate_mat = gb.add_material("crate", {0.9f, 0.7f, 0.5f}, tex);
    const int lid_mat = gb.add_material("lid", {0.2f, 0.5f, 0.8f});
    const int red = gb.add_material("red", {0.8f, 0.15f, 0.1f});
    const int green = gb.add_material("green", {0.2f, 0.7f, 0.25f}, -1, 0.5f, 0.4f);
    const int root = gb.add_node("props", -1);
    gb.add_node("ground", root, Trs{}, gb.add_mesh("ground", make_plane(6.0f, 6.0f, 2, 2, 1.5f), ground_mat));
    const int crate = gb.add_mesh("crate", std::vector<Primitive>{
                                               {make_box({-0.8f, 0.0f, -0.8f}, {0.8f, 1.4f, 0.8f}, 0.8f), crate_mat},
                                               {make_box({-0.9f, 1.4f, -0.9f}, {0.9f, 1.6f, 0.9f}, 1.0f), lid_mat}});
    gb.add_node("crate", root, at({-1.2f, 0.0f, -0.8f}, 20.0f), crate);
    gb.add_node("drum", root, at(1.4f, 0.0f, -1.0f), gb.add_mesh("drum", make_cylinder(0.6f, 1.8f, 10, 1.0f, 1.0f), red));
    gb.add_node("ring", root, Trs{{0.6f, 0.5f, 1.4f}, rot(-70.0f, {1, 0, 0}), glm::vec3(1.0f)},
                gb.add_mesh("ring", make_torus(0.7f, 0.3f, 12, 6), green));
    return write_model(gb.finish("props"), dir / "props.gltf");
}

// knot.gltf: one closed, self-occluding, finely tessellated mesh (a (2, 3) torus knot, 4000
// triangles): most of its quads straddle triangle edges, about half its triangles face away, and
// a 5 x 5 grid of it holds more than 65535 triangles.
bool write_knot(const fs::path& dir) {
    GltfBuilder gb("knot.bin");
    const int mat = gb.add_material("clay", {0.72f, 0.45f, 0.2f}, -1, 0.0f, 0.8f);  // matte: smooth shading, like Suzanne
    gb.add_node("knot", -1, Trs{}, gb.add_mesh("knot", make_torus_knot(2, 3, 0.5f, 0.22f, 200, 10), mat));
    return write_model(gb.finish("knot"), dir / "knot.gltf");
}

// sparse.gltf: a 4 x 4 vertex grid (18 triangles) whose POSITION accessor is sparse: the flat
// grid in its buffer view, and three vertices moved up by a sparse substitution (u16 indices 5, 6,
// 10; values y = 0.5, 0.75, 1.0).
bool write_sparse(const fs::path& dir) {
    std::vector<float> positions;
    for (int z = 0; z < 4; ++z)
        for (int x = 0; x < 4; ++x) positions.insert(positions.end(), {float(x), 0.0f, float(z)});
    std::vector<uint16_t> indices;
    for (int z = 0; z < 3; ++z)
        for (int x = 0; x < 3; ++x) {
            const uint16_t a = uint16_t(z * 4 + x), b = uint16_t(a + 1), c = uint16_t(a + 4), d = uint16_t(a + 5);
            indices.insert(indices.end(), {a, c, b, b, c, d});  // counter-clockwise seen from +Y
        }
    const std::vector<uint16_t> sparse_indices = {5, 6, 10};
    const std::vector<float> sparse_values = {1, 0.5f, 1, 2, 0.75f, 1, 2, 1.0f, 2};

    tinygltf::Model model;
    model.asset.version = "2.0";
    model.asset.generator = "subgroup-demo tools/gen_scene.cpp --test-scenes";
    std::vector<unsigned char> bin;
    auto add_view = [&](const void* data, size_t bytes) {
        while (bin.size() % 4) bin.push_back(0);
        tinygltf::BufferView view;
        view.buffer = 0;
        view.byteOffset = bin.size();
        view.byteLength = bytes;
        const auto* p = static_cast<const unsigned char*>(data);
        bin.insert(bin.end(), p, p + bytes);
        model.bufferViews.push_back(view);
        return int(model.bufferViews.size() - 1);
    };
    tinygltf::Accessor pos;
    pos.bufferView = add_view(positions.data(), positions.size() * 4);
    pos.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    pos.type = TINYGLTF_TYPE_VEC3;
    pos.count = positions.size() / 3;
    pos.minValues = {0.0, 0.0, 0.0};
    pos.maxValues = {3.0, 1.0, 3.0};
    pos.sparse.isSparse = true;
    pos.sparse.count = int(sparse_indices.size());
    pos.sparse.indices.bufferView = add_view(sparse_indices.data(), sparse_indices.size() * 2);
    pos.sparse.indices.byteOffset = 0;
    pos.sparse.indices.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
    pos.sparse.values.bufferView = add_view(sparse_values.data(), sparse_values.size() * 4);
    pos.sparse.values.byteOffset = 0;
    model.accessors.push_back(pos);
    tinygltf::Accessor idx;
    idx.bufferView = add_view(indices.data(), indices.size() * 2);
    idx.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
    idx.type = TINYGLTF_TYPE_SCALAR;
    idx.count = indices.size();
    model.accessors.push_back(idx);
    tinygltf::Buffer buffer;
    buffer.uri = "sparse.bin";
    buffer.data = bin;
    model.buffers.push_back(buffer);
    tinygltf::Primitive prim;
    prim.attributes["POSITION"] = 0;
    prim.indices = 1;
    prim.mode = TINYGLTF_MODE_TRIANGLES;
    tinygltf::Mesh mesh;
    mesh.name = "sparse_grid";
    mesh.primitives.push_back(prim);
    model.meshes.push_back(mesh);
    tinygltf::Node node;
    node.name = "sparse_grid";
    node.mesh = 0;
    model.nodes.push_back(node);
    tinygltf::Scene scene;
    scene.name = "sparse";
    scene.nodes = {0};
    model.scenes.push_back(scene);
    model.defaultScene = 0;
    return write_model(model, dir / "sparse.gltf");
}

// trellis.gltf: the ray-tracing tests' scene (tests/gpu/test_ray_trace.cpp). A matte ground, an
// opaque block, a horizontal alpha-masked trellis whose openings let the sun through (its shadow
// on the ground is a grid of holes), and a smooth metal block that reflects. Few triangles, so
// the tests' CPU ray-triangle reference is cheap.
bool write_trellis(const fs::path& dir) {
    Texture lattice = make_lattice_texture(256);
    lattice.name = "trellis_lattice";
    if (!write_png(dir / "textures" / "trellis_lattice.png", lattice)) return false;
    GltfBuilder gb("trellis.bin");
    const int tex = gb.add_texture("trellis_lattice", "textures/trellis_lattice.png");
    const int ground = gb.add_material("ground", {0.7f, 0.7f, 0.65f}, -1, 0.0f, 0.9f);
    const int block = gb.add_material("block", {0.8f, 0.3f, 0.2f}, -1, 0.0f, 0.8f);
    const int trellis = gb.add_material("trellis", {1.0f, 1.0f, 1.0f}, tex, 0.0f, 0.8f, 0.5f);
    const int metal = gb.add_material("metal", {0.9f, 0.8f, 0.6f}, -1, 1.0f, 0.1f);
    const int root = gb.add_node("trellis_scene", -1);
    gb.add_node("ground", root, Trs{}, gb.add_mesh("ground", make_plane(12.0f, 12.0f, 4, 4, 2.0f), ground));
    gb.add_node("block", root, at(2.5f, 0.0f, -1.5f), gb.add_mesh("block", make_box({-0.6f, 0.0f, -0.6f}, {0.6f, 2.2f, 0.6f}, 1.0f), block));
    gb.add_node("trellis", root, at(0.5f, 0.0f, 1.5f),
                gb.add_mesh("trellis", make_box({-2.0f, 1.6f, -1.6f}, {2.0f, 1.64f, 1.6f}, 1.5f), trellis));
    gb.add_node("metal", root, at(-3.0f, 0.0f, -2.0f), gb.add_mesh("metal", make_box({-1.0f, 0.0f, -0.4f}, {1.0f, 1.4f, 0.4f}, 1.0f), metal));
    return write_model(gb.finish("trellis"), dir / "trellis.gltf");
}

int write_test_scenes(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir / "textures", ec);
    if (ec) {
        std::fprintf(stderr, "gen-scene: cannot create %s: %s\n", (dir / "textures").string().c_str(), ec.message().c_str());
        return 1;
    }
    if (!write_box(dir) || !write_props(dir) || !write_knot(dir) || !write_sparse(dir) || !write_trellis(dir)) return 1;
    std::printf("gen-scene: test scenes written to %s\n", dir.string().c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--test-scenes") return write_test_scenes(argv[2]);
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTDIR\n  writes OUTDIR/default_scene.gltf, OUTDIR/default_scene.bin, OUTDIR/textures/*.png\n",
                     argv[0]);
        return 2;
    }
    const fs::path out_dir = argv[1];
    const fs::path tex_dir = out_dir / "textures";
    std::error_code ec;
    fs::create_directories(tex_dir, ec);
    if (ec) {
        std::fprintf(stderr, "gen-scene: cannot create %s: %s\n", tex_dir.string().c_str(), ec.message().c_str());
        return 1;
    }

    // 1. Textures.
    std::printf("gen-scene: generating textures...\n");
    std::vector<Texture> textures;
    textures.push_back(make_paving_texture(512));
    textures.push_back(make_brick_texture(512));
    textures.push_back(make_marble_texture(512));
    textures.push_back(make_facade_texture(512));
    textures.push_back(make_sandstone_texture(256));
    textures.push_back(make_stripes_texture(256));
    textures.push_back(make_checker_texture(256));
    textures.push_back(make_lattice_texture(256));
    // The maps beyond base colour (docs/materials.md): the paving's normals and occlusion, the
    // marble's roughness, the facade's lit windows.
    textures.push_back(make_paving_normal_texture(512));
    textures.push_back(make_paving_occlusion_texture(512));
    textures.push_back(make_marble_roughness_texture(512));
    textures.push_back(make_facade_emissive_texture(512));
    uintmax_t texture_bytes = 0;
    for (const Texture& t : textures) {
        const fs::path path = tex_dir / (t.name + ".png");
        if (!write_png(path, t)) {
            std::fprintf(stderr, "gen-scene: cannot write %s\n", path.string().c_str());
            return 1;
        }
        const uintmax_t size = fs::file_size(path);
        texture_bytes += size;
        std::printf("  textures/%-14s %4dx%-4d %s\n", (t.name + ".png").c_str(), t.size, t.size, human_size(size).c_str());
    }

    // 2. Geometry and node tree.
    std::printf("gen-scene: building geometry...\n");
    GltfBuilder gb("default_scene.bin");
    const Materials mat = add_materials(gb, textures);
    const SharedMeshes shared = add_shared_meshes(gb, mat);
    const int root = gb.add_node("courtyard", -1);
    build_ground(gb, mat, root);
    build_perimeter(gb, mat, shared, root);
    build_towers(gb, mat, shared, root);
    build_buildings(gb, mat, root);
    build_stoa(gb, mat, shared, root);
    build_rotunda(gb, mat, shared, root);
    build_sculptures(gb, mat, shared, root);
    build_free_walls(gb, mat, root);
    build_trees(gb, mat, root);
    build_market(gb, mat, root);
    build_rubble(gb, mat, root, 180);

    // 3. Write .gltf + .bin. Images already exist on disk: with no image writer, tinygltf just
    //    records their URIs.
    const GltfBuilder::Summary sum = gb.summarize();
    tinygltf::Model& model = gb.finish();
    tinygltf::TinyGLTF writer;
    writer.SetImageWriter(nullptr, nullptr);
    const fs::path gltf_path = out_dir / "default_scene.gltf";
    std::printf("gen-scene: writing %s...\n", gltf_path.string().c_str());
    if (!writer.WriteGltfSceneToFile(&model, gltf_path.string(), /*embedImages=*/false, /*embedBuffers=*/false,
                                     /*prettyPrint=*/true, /*writeBinary=*/false)) {
        std::fprintf(stderr, "gen-scene: failed to write %s\n", gltf_path.string().c_str());
        return 1;
    }

    // 4. Summary.
    const uintmax_t gltf_bytes = fs::file_size(gltf_path);
    const uintmax_t bin_bytes = fs::file_size(out_dir / "default_scene.bin");
    const glm::vec3 c = 0.5f * (sum.lo + sum.hi);
    std::printf("gen-scene: done\n");
    std::printf("  drawn triangles   %llu (%llu unique in the buffer)\n", (unsigned long long)sum.drawn_triangles,
                (unsigned long long)sum.unique_triangles);
    std::printf("  drawn vertices    %llu (%llu unique in the buffer)\n", (unsigned long long)sum.drawn_vertices,
                (unsigned long long)sum.unique_vertices);
    std::printf("  meshes            %zu (%llu drawn mesh-primitive instances)\n", model.meshes.size(),
                (unsigned long long)sum.instances);
    std::printf("  nodes             %zu\n", model.nodes.size());
    std::printf("  materials         %zu (%zu textured)\n", model.materials.size(), model.textures.size());
    std::printf("  bounds            (%.2f, %.2f, %.2f) .. (%.2f, %.2f, %.2f), centre (%.2f, %.2f, %.2f), radius %.2f\n",
                sum.lo.x, sum.lo.y, sum.lo.z, sum.hi.x, sum.hi.y, sum.hi.z, c.x, c.y, c.z, 0.5f * glm::length(sum.hi - sum.lo));
    std::printf("  default_scene.gltf %s\n", human_size(gltf_bytes).c_str());
    std::printf("  default_scene.bin  %s\n", human_size(bin_bytes).c_str());
    std::printf("  textures/*.png     %s (%zu files)\n", human_size(texture_bytes).c_str(), textures.size());
    return 0;
}
