// The structs C++ and the shaders share (scene/gpu_layout.h, one definition for both): every
// member's offset as glslang laid it out in the built SPIR-V (std430 for the storage buffers,
// std140 for the frame's uniform buffer) against C++'s offsetof, member by member in declaration
// order. A member the two languages align differently (a vec3, a uvec2, a bool, a scalar array in
// a uniform block), or a member moved without this list, fails here. And the SPIR-V reader
// (vk/spirv_reflect.h) against bindings the GLSL declares. No device needed.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <fstream>
#include <string>
#include <vector>

#include "render/gpu_types.h"
#include "vk/spirv_reflect.h"

namespace {

std::vector<uint32_t> load_spirv(const std::string& name) {
    std::ifstream file(std::string(SGD_SHADER_DIR) + "/" + name + ".spv", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    return words;
}

#define AT(type, member) uint32_t(offsetof(type, member))

const std::vector<uint32_t> kDrawData = {
    AT(GpuDraw, model), AT(GpuDraw, normal_matrix), AT(GpuDraw, base_color), AT(GpuDraw, base_color_texture),
    AT(GpuDraw, first_index), AT(GpuDraw, index_count), AT(GpuDraw, out_first), AT(GpuDraw, metallic),
    AT(GpuDraw, roughness), AT(GpuDraw, alpha_cutoff), AT(GpuDraw, mesh), AT(GpuDraw, bounding_sphere),
    AT(GpuDraw, lod_error), AT(GpuDraw, lod_first_index), AT(GpuDraw, lod_index_count), AT(GpuDraw, lod_count),
    AT(GpuDraw, emissive_texture), AT(GpuDraw, lod_pad1), AT(GpuDraw, lod_pad2), AT(GpuDraw, emissive),
    AT(GpuDraw, metallic_roughness_texture), AT(GpuDraw, normal_texture), AT(GpuDraw, occlusion_texture),
    AT(GpuDraw, normal_scale), AT(GpuDraw, occlusion_strength), AT(GpuDraw, texcoords), AT(GpuDraw, material),
    AT(GpuDraw, material_pad), AT(GpuDraw, uv_transform)};

const std::vector<uint32_t> kFrameUniforms = {
    AT(FrameUniforms, view_proj), AT(FrameUniforms, view), AT(FrameUniforms, camera_position),
    AT(FrameUniforms, sun_direction), AT(FrameUniforms, sun_color), AT(FrameUniforms, ambient),
    AT(FrameUniforms, sizes), AT(FrameUniforms, tiles), AT(FrameUniforms, projection),
    AT(FrameUniforms, inverse_view_proj), AT(FrameUniforms, previous_view_proj), AT(FrameUniforms, occlusion)};

const std::vector<uint32_t> kPointLight = {AT(GpuLight, position_radius), AT(GpuLight, color)};

// scene_bindings.glsl: binding 0 the frame (a block holding one FrameUniforms), 1 the draws (a block
// holding a runtime array); light_cull.comp: binding 1 the lights.
constexpr uint32_t kFrameBinding = 0, kDrawsBinding = 1, kLightCullLightsBinding = 1;

}  // namespace

TEST(GpuLayout, DrawDataOffsetsAreGlslangsStd430) {
    for (const char* shader : {"scene.vert.forward", "raster.comp.switch", "cull.comp.switch"}) {
        SCOPED_TRACE(shader);
        std::vector<uint32_t> spirv = load_spirv(shader);
        ASSERT_GT(spirv.size(), 5u) << "not built";
        EXPECT_EQ(spirv_struct_offsets(spirv, 0, kDrawsBinding, 0), kDrawData);
    }
}

TEST(GpuLayout, FrameUniformsOffsetsAreGlslangsStd140) {
    std::vector<uint32_t> spirv = load_spirv("scene.vert.forward");
    ASSERT_GT(spirv.size(), 5u) << "not built";
    EXPECT_EQ(spirv_struct_offsets(spirv, 0, kFrameBinding, 0), kFrameUniforms);
}

TEST(GpuLayout, PointLightOffsetsAreGlslangsStd430) {
    std::vector<uint32_t> spirv = load_spirv("light_cull.comp.switch");
    ASSERT_GT(spirv.size(), 5u) << "not built";
    EXPECT_EQ(spirv_struct_offsets(spirv, 0, kLightCullLightsBinding, 0), kPointLight);
}

// The reader on a shader whose GLSL it can be checked against: scene.vert's depth variant reads the
// frame (a uniform buffer) and the draws (a storage buffer), and nothing else of set 0.
TEST(SpirvReflect, ReadsTheBindingsAndStageTheGlslDeclares) {
    std::vector<uint32_t> spirv = load_spirv("scene.vert.depth");
    ASSERT_GT(spirv.size(), 5u) << "not built";
    SpirvReflection r = reflect_spirv(spirv);
    EXPECT_EQ(r.stage, VK_SHADER_STAGE_VERTEX_BIT);
    ASSERT_EQ(r.bindings.size(), 2u);
    EXPECT_EQ(r.bindings[0].binding, kFrameBinding);
    EXPECT_EQ(r.bindings[0].type, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
    EXPECT_EQ(r.bindings[1].binding, kDrawsBinding);
    EXPECT_EQ(r.bindings[1].type, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    EXPECT_EQ(r.push_constant_bytes, 0u);
}

TEST(SpirvReflect, RefusesWordsThatAreNotAModule) {
    std::vector<uint32_t> spirv = load_spirv("scene.vert.depth");
    ASSERT_GT(spirv.size(), 5u) << "not built";
    EXPECT_NO_THROW(reflect_spirv(spirv));
    EXPECT_THROW(reflect_spirv(std::span(spirv).first(4)), std::runtime_error);  // shorter than the header
    std::vector<uint32_t> header(spirv.begin(), spirv.begin() + 5);
    EXPECT_THROW(reflect_spirv(header), std::runtime_error);  // no entry point
    std::vector<uint32_t> cut = header;
    cut.push_back((3u << 16) | 17u);  // an OpCapability of 3 words, 1 of them there
    EXPECT_THROW(reflect_spirv(cut), std::runtime_error);
    spirv[0] = 0x03022307u;  // the magic number byte-swapped
    EXPECT_THROW(reflect_spirv(spirv), std::runtime_error);
}

// The layout a pipeline of `shaders` gets from their SPIR-V (layout_of), against what its pass pushes.
struct ExpectedLayout {
    std::vector<std::string> shaders;
    std::vector<VkDescriptorType> bindings;
    VkShaderStageFlags stages;
    uint32_t push_constant_bytes;
    bool scene_textures = false;
};

void expect_layout(const ExpectedLayout& e) {
    SCOPED_TRACE(e.shaders.back());
    std::vector<SpirvReflection> modules;
    for (const std::string& s : e.shaders) {
        std::vector<uint32_t> spirv = load_spirv(s);
        ASSERT_GT(spirv.size(), 5u) << s << ": not built";
        modules.push_back(reflect_spirv(spirv));
    }
    LayoutDesc layout = layout_of(modules);
    EXPECT_EQ(layout.bindings, e.bindings);
    EXPECT_EQ(layout.stages, e.stages);
    EXPECT_EQ(layout.push_constant_bytes, e.push_constant_bytes);
    EXPECT_EQ(layout.scene_textures, e.scene_textures);
}

// The layouts the mip and resolve passes now take from their shaders (shader_layout) are the ones
// they were written out by hand as before, binding for binding, with the push-constant bytes the
// passes push (FixupPush 12, ViewPush 8, the texel count 4, ResolvePush 20).
TEST(SpirvReflect, MipAndResolveLayoutsAreTheOnesTheirPassesPush) {
    constexpr VkDescriptorType image = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, buffer = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const ExpectedLayout expected[] = {
        {{"mip_downsample.comp.main"}, {image, image}, VK_SHADER_STAGE_COMPUTE_BIT, 0},
        {{"mip_fixup_args.comp.main"}, {buffer, buffer, buffer}, VK_SHADER_STAGE_COMPUTE_BIT, 4},
        {{"mip_fixup.comp.main"}, {image, image, buffer, buffer, buffer}, VK_SHADER_STAGE_COMPUTE_BIT, 12},
        {{"mip_view.comp.main"}, {image, image, buffer}, VK_SHADER_STAGE_COMPUTE_BIT, 8},
        {{"resolve.vert.main", "resolve.frag.plain"}, {image, buffer}, VK_SHADER_STAGE_FRAGMENT_BIT, 20},
        {{"resolve.vert.main", "resolve.frag.mip"}, {image, buffer, image}, VK_SHADER_STAGE_FRAGMENT_BIT, 20},
        {{"resolve.comp.plain"}, {image, buffer, image}, VK_SHADER_STAGE_COMPUTE_BIT, 20},
    };
    for (const ExpectedLayout& e : expected) expect_layout(e);
}

// Modules that disagree on a binding's type make no layout; a gap between bindings is kNoBinding.
TEST(SpirvReflect, LayoutOfRefusesTwoTypesForOneBinding) {
    SpirvReflection a{VK_SHADER_STAGE_VERTEX_BIT, {{0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER}, {0, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}}, 0};
    SpirvReflection b{VK_SHADER_STAGE_FRAGMENT_BIT, {{0, 2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE}}, 0};
    EXPECT_THROW(layout_of(std::vector<SpirvReflection>{a, b}), std::runtime_error);
    LayoutDesc alone = layout_of(std::vector<SpirvReflection>{a});
    EXPECT_EQ(alone.bindings, (std::vector<VkDescriptorType>{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kNoBinding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}));
    SpirvReflection textures{VK_SHADER_STAGE_FRAGMENT_BIT, {{1, 0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 0}}, 0};
    EXPECT_TRUE(layout_of(std::vector<SpirvReflection>{a, textures}).scene_textures);
}

// A layout written out in C++ must hold every binding its shaders declare, with their types, their
// push-constant block and set 1 where they sample the scene's textures (layout_mismatch, which
// create_*_pipeline applies to every layout a desc gives); it may hold more. A wrong type written
// by hand is refused before Vulkan sees it.
TEST(SpirvReflect, LayoutWrittenOutMustHoldWhatItsShadersDeclare) {
    constexpr VkDescriptorType image = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, buffer = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    auto declared_by = [](std::initializer_list<std::string> shaders) {
        std::vector<SpirvReflection> modules;
        for (const std::string& s : shaders) modules.push_back(reflect_spirv(load_spirv(s)));
        return layout_of(modules);
    };
    const LayoutDesc present = declared_by({"present.comp.main"});  // two storage images, 8 bytes pushed
    ASSERT_EQ(present.bindings, (std::vector<VkDescriptorType>{image, image}));
    ASSERT_EQ(present.push_constant_bytes, 8u);
    EXPECT_EQ(layout_mismatch(present, present), "");
    EXPECT_EQ(layout_mismatch({{image, image, buffer}, VK_SHADER_STAGE_COMPUTE_BIT, 16}, present), "");
    EXPECT_NE(layout_mismatch({{image, buffer}, VK_SHADER_STAGE_COMPUTE_BIT, 8}, present).find("binding 1"), std::string::npos);
    EXPECT_NE(layout_mismatch({{image, kNoBinding}, VK_SHADER_STAGE_COMPUTE_BIT, 8}, present).find("binding 1"), std::string::npos);
    EXPECT_NE(layout_mismatch({{image}, VK_SHADER_STAGE_COMPUTE_BIT, 8}, present).find("binding 1"), std::string::npos);
    EXPECT_NE(layout_mismatch({{image, image}, VK_SHADER_STAGE_COMPUTE_BIT, 4}, present).find("push constants"), std::string::npos);

    const LayoutDesc lod_view = declared_by({"lod_view.vert.main", "lod_view.frag.main"});  // samples set 1
    ASSERT_TRUE(lod_view.scene_textures);
    LayoutDesc untextured = lod_view;
    untextured.scene_textures = false;
    EXPECT_NE(layout_mismatch(untextured, lod_view).find("set 1"), std::string::npos);
}

// The layouts that replaced those written out by hand beside the passes: the same bindings, the
// same push-constant bytes as the structs C++ pushes (WindowPush 8, the overlay's viewport 8,
// AdaptPush 8, the instrument flag 4, pyramid Push 16, PyramidViewPush 24, LodViewPush 36), the
// stages the passes push constants for.
TEST(SpirvReflect, PassLayoutsAreTheOnesTheirPassesPush) {
    constexpr VkDescriptorType image = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, buffer = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               uniform = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, sampled = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    constexpr VkShaderStageFlags compute = VK_SHADER_STAGE_COMPUTE_BIT;
    const ExpectedLayout expected[] = {
        {{"present.comp.main"}, {image, image}, compute, 8},
        {{"overlay.vert.main", "overlay.frag.main"}, {buffer}, VK_SHADER_STAGE_VERTEX_BIT, 8},
        {{"resolve.vert.main", "probe.frag.main"}, {}, VK_SHADER_STAGE_FRAGMENT_BIT, 4},
        {{"probe.comp.main"}, {image}, compute, 4},
        {{"exposure_reduce.comp.switch"}, {image, buffer}, compute, 0},
        {{"exposure_adapt.comp.main"}, {buffer}, compute, 8},
        {{"light_cull.comp.switch"}, {uniform, buffer, sampled, buffer, buffer}, compute, 4},
        {{"light_count.comp.main"}, {uniform, buffer, image}, compute, 0},
        {{"pyramid.comp.switch"}, {sampled, buffer, buffer}, compute, 16},
        {{"pyramid_view.comp.main"}, {image, buffer, sampled}, compute, 24},
        {{"view.comp.active"}, {image, uniform, buffer}, compute, 0},
        {{"lod_view.vert.main", "lod_view.frag.main"}, {uniform, buffer}, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 36, true},
        {{"view.vert.plain", "view.frag.lane_id"}, {uniform, buffer, kNoBinding, kNoBinding, uniform, buffer},
         VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0},
        {{"visibility_shade.comp.quads_mip"},
         {uniform, buffer, buffer, kNoBinding, buffer, buffer, image, buffer, buffer, buffer, buffer, sampled, image, image},
         compute, 4, true},
    };
    for (const ExpectedLayout& e : expected) expect_layout(e);
}
