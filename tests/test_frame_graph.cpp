// The frame graph's barriers (src/render/frame_graph.h), derived for declared sequences of uses
// and held to the stage and access pairs of Khronos' synchronization examples
// (github.com/KhronosGroup/Vulkan-Docs/wiki/Synchronization-Examples, in their synchronization2
// form: SHADER_STORAGE_* and SHADER_SAMPLED_READ for SHADER_*), without a device.
#include <gtest/gtest.h>

#include "render/frame_graph.h"

namespace {

constexpr VkPipelineStageFlags2 kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags2 kFragment = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
constexpr VkPipelineStageFlags2 kVertex = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
constexpr VkPipelineStageFlags2 kTransfer = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
constexpr VkPipelineStageFlags2 kIndirect = VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;
constexpr VkPipelineStageFlags2 kColorOutput = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
constexpr VkPipelineStageFlags2 kDepthTests =
    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
constexpr VkAccessFlags2 kRead = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
constexpr VkAccessFlags2 kWrite = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
constexpr VkAccessFlags2 kSampled = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
constexpr VkImageLayout kGeneral = VK_IMAGE_LAYOUT_GENERAL;

// A sequence of passes over the graph's states, with buffers and images as declared here: counters,
// light lists, exposure and the mip's own buffers are buffers, the rest images.
struct Sequence {
    std::array<SyncState, kResourceCount> states{};
    std::array<bool, kResourceCount> is_image{};
    Sequence() {
        for (Res r : {Res::depth, Res::hdr, Res::color, Res::mip, Res::ray_traced, Res::visibility}) is_image[size_t(r)] = true;
    }
    BarrierBatch pass(std::initializer_list<Use> uses) {
        return derive_batch(states, std::span<const Use>(uses.begin(), uses.size()), is_image);
    }
};

struct Pair {
    VkPipelineStageFlags2 src_stage;
    VkAccessFlags2 src_access;
    VkPipelineStageFlags2 dst_stage;
    VkAccessFlags2 dst_access;
};

void expect_memory(const BarrierBatch& b, Pair want) {
    EXPECT_TRUE(b.images.empty());
    EXPECT_EQ(b.memory.src_stage, want.src_stage);
    EXPECT_EQ(b.memory.src_access, want.src_access);
    EXPECT_EQ(b.memory.dst_stage, want.dst_stage);
    EXPECT_EQ(b.memory.dst_access, want.dst_access);
}

void expect_transition(const BarrierBatch& b, Res r, Pair want, VkImageLayout old_layout, VkImageLayout new_layout) {
    ASSERT_EQ(b.images.size(), 1u);
    EXPECT_EQ(b.images[0].res, r);
    const Dependency& d = b.images[0].dependency;
    EXPECT_EQ(d.src_stage, want.src_stage);
    EXPECT_EQ(d.src_access, want.src_access);
    EXPECT_EQ(d.dst_stage, want.dst_stage);
    EXPECT_EQ(d.dst_access, want.dst_access);
    EXPECT_EQ(d.old_layout, old_layout);
    EXPECT_EQ(d.new_layout, new_layout);
}

// "Dispatch writes into a storage buffer. Dispatch reads from that storage buffer."
TEST(FrameGraph, ComputeWriteThenComputeReadIsAMemoryDependency) {
    Sequence s;
    EXPECT_TRUE(s.pass({writes(Res::light_lists, kCompute, kWrite)}).empty());  // nothing before it
    expect_memory(s.pass({reads(Res::light_lists, kCompute, kRead)}), {kCompute, kWrite, kCompute, kRead});
}

// "Dispatch reads from a storage buffer. Dispatch writes to that storage buffer": write-after-read
// needs only an execution dependency.
TEST(FrameGraph, WriteAfterReadIsAnExecutionDependencyOnly) {
    Sequence s;
    s.pass({writes(Res::counters, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    s.pass({reads(Res::counters, kCompute, kRead)});
    expect_memory(s.pass({writes(Res::counters, kCompute, kWrite)}), {kCompute, VK_ACCESS_2_NONE, kCompute, kWrite});
}

// Two dispatches writing one buffer: write-after-write, a memory dependency.
TEST(FrameGraph, WriteAfterWriteWaitsForTheWrite) {
    Sequence s;
    s.pass({writes(Res::exposure, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    expect_memory(s.pass({writes(Res::exposure, kCompute, kRead | kWrite)}),
                  {kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT, kCompute, kRead | kWrite});
    expect_memory(s.pass({writes(Res::exposure, kCompute, kRead | kWrite)}), {kCompute, kWrite, kCompute, kRead | kWrite});
}

// "Dispatch writes into a storage buffer. Draw consumes that buffer as an indirect buffer."
TEST(FrameGraph, ComputeWriteThenIndirectRead) {
    Sequence s;
    s.pass({writes(Res::mip_dispatch, kCompute, kWrite)});
    expect_memory(s.pass({reads(Res::mip_dispatch, kIndirect, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT)}),
                  {kCompute, kWrite, kIndirect, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT});
}

// "Dispatch writes into a storage buffer. Draw consumes that buffer in a fragment shader", then a
// second draw reads it in the vertex shader as well: a barrier for each stage that had not seen it,
// none for a read the first barrier already covered, none for read-after-read.
TEST(FrameGraph, ReadsNeedABarrierOnlyWhereTheWriteIsNotYetVisible) {
    Sequence s;
    s.pass({writes(Res::light_lists, kCompute, kRead | kWrite)});
    expect_memory(s.pass({reads(Res::light_lists, kFragment, kRead)}), {kCompute, kWrite, kFragment, kRead});
    EXPECT_TRUE(s.pass({reads(Res::light_lists, kFragment, kRead)}).empty());
    expect_memory(s.pass({reads(Res::light_lists, kVertex, kRead)}), {kCompute, kWrite, kVertex, kRead});
    EXPECT_TRUE(s.pass({reads(Res::light_lists, kVertex | kFragment, kRead)}).empty());
    // The next write waits for every reader since the last write (which waited for the write).
    expect_memory(s.pass({writes(Res::light_lists, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT)}),
                  {kFragment | kVertex, VK_ACCESS_2_NONE, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT});
}

// A new write is new to every reader: a stage the last write was made visible to waits again.
TEST(FrameGraph, ANewWriteIsNewToEveryReader) {
    Sequence s;
    for (int frame = 0; frame < 2; ++frame) {
        s.pass({writes(Res::exposure, kCompute, kRead | kWrite)});
        expect_memory(s.pass({reads(Res::exposure, kFragment, kRead)}), {kCompute, kWrite, kFragment, kRead});
    }
}

// A read in one stage with one access does not make the write visible to another access.
TEST(FrameGraph, VisibilityIsPerStageAndAccess) {
    Sequence s;
    s.pass({writes(Res::counters, kCompute, kWrite)});
    s.pass({reads(Res::counters, kCompute, kRead)});
    expect_memory(s.pass({reads(Res::counters, kCompute, VK_ACCESS_2_UNIFORM_READ_BIT)}),
                  {kCompute, kWrite, kCompute, VK_ACCESS_2_UNIFORM_READ_BIT});
    s.pass({reads(Res::counters, kFragment, VK_ACCESS_2_UNIFORM_READ_BIT)});
    // (compute, uniform) and (fragment, uniform) were made visible, not (fragment, storage read).
    expect_memory(s.pass({reads(Res::counters, kFragment, kRead)}), {kCompute, kWrite, kFragment, kRead});
}

// "Draw writes to a color attachment. Draw samples that image in a fragment shader": the
// transition from COLOR_ATTACHMENT_OPTIMAL to SHADER_READ_ONLY_OPTIMAL with the write's stage and access.
TEST(FrameGraph, ColorAttachmentWriteThenSampledRead) {
    Sequence s;
    expect_transition(s.pass({writes(Res::visibility, kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                     VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)}),
                      Res::visibility, {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE, kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT},
                      VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    expect_transition(s.pass({reads(Res::visibility, kFragment, kSampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}), Res::visibility,
                      {kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, kFragment, kSampled},
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    // Sampled again in the same stage: the transition covered it.
    EXPECT_TRUE(s.pass({reads(Res::visibility, kFragment, kSampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}).empty());
    // Sampled in compute: the read chains on the stage the transition was made visible to.
    expect_memory(s.pass({reads(Res::visibility, kCompute, kSampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}),
                  {kFragment, VK_ACCESS_2_NONE, kCompute, kSampled});
}

// "Draw writes to a depth attachment. Dispatch samples from that image", then the depth test reads
// it unchanged (DEPTH_READ_ONLY_OPTIMAL both): a memory barrier, no second transition.
TEST(FrameGraph, DepthWriteThenComputeSampleThenDepthTest) {
    Sequence s;
    s.pass({writes(Res::depth, kDepthTests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                   VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, true)});
    expect_transition(s.pass({reads(Res::depth, kCompute, kSampled, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL)}), Res::depth,
                      {kDepthTests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, kCompute, kSampled},
                      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
    expect_memory(s.pass({reads(Res::depth, kDepthTests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                                VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL)}),
                  {kCompute, VK_ACCESS_2_NONE, kDepthTests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT});
}

// "Dispatch writes into a storage image. Draw samples that image in a fragment shader" with a
// layout change, and a write-after-read transition back: it waits for the reader, no access.
TEST(FrameGraph, StorageImageWriteReadAndWriteAgain) {
    Sequence s;
    s.pass({writes(Res::hdr, kCompute, kWrite, kGeneral, true)});
    expect_transition(s.pass({reads(Res::hdr, kFragment, kSampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}), Res::hdr,
                      {kCompute, kWrite, kFragment, kSampled}, kGeneral, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    expect_transition(s.pass({writes(Res::hdr, kCompute, kWrite, kGeneral)}), Res::hdr,
                      {kFragment, VK_ACCESS_2_NONE, kCompute, kWrite}, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, kGeneral);
    // The same layout, written again: a memory barrier, no transition.
    expect_memory(s.pass({writes(Res::hdr, kCompute, kWrite, kGeneral)}), {kCompute, kWrite, kCompute, kWrite});
}

// A discarded image is transitioned from UNDEFINED even in the layout it has (its contents go).
TEST(FrameGraph, DiscardTransitionsFromUndefined) {
    Sequence s;
    s.pass({writes(Res::mip, kCompute, kWrite, kGeneral, true)});
    s.pass({reads(Res::mip, kCompute, kRead, kGeneral)});
    expect_transition(s.pass({writes(Res::mip, kFragment, kWrite, kGeneral, true)}), Res::mip,
                      {kCompute, VK_ACCESS_2_NONE, kFragment, kWrite}, VK_IMAGE_LAYOUT_UNDEFINED, kGeneral);
}

// "Dispatch writes into an image; the image is copied out": GENERAL -> TRANSFER_SRC_OPTIMAL.
TEST(FrameGraph, StorageWriteThenCopyOut) {
    Sequence s;
    s.pass({writes(Res::color, kCompute, kRead | kWrite, kGeneral, true)});
    expect_transition(s.pass({reads(Res::color, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                                    VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)}),
                      Res::color, {kCompute, kWrite, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT}, kGeneral,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
}

// One pass boundary, one barrier: the buffers' dependencies merge into one memory barrier, each
// layout change is an image barrier of its own.
TEST(FrameGraph, OnePassBoundaryMergesItsDependencies) {
    Sequence s;
    s.pass({writes(Res::light_lists, kCompute, kWrite), writes(Res::counters, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT),
            writes(Res::hdr, kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, true)});
    BarrierBatch b = s.pass({reads(Res::light_lists, kFragment, kRead), writes(Res::counters, kFragment, kRead | kWrite),
                             reads(Res::hdr, kCompute, kRead, kGeneral)});
    expect_transition(b, Res::hdr, {kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, kCompute, kRead},
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, kGeneral);
    EXPECT_EQ(b.memory.src_stage, kCompute | kTransfer);
    EXPECT_EQ(b.memory.src_access, kWrite | VK_ACCESS_2_TRANSFER_WRITE_BIT);
    EXPECT_EQ(b.memory.dst_stage, kFragment);
    EXPECT_EQ(b.memory.dst_access, kRead | kWrite);
}

// A pass's uses of one resource are one use: no barrier between them, one before both.
TEST(FrameGraph, UsesOfOneResourceInOnePassAreOne) {
    Sequence s;
    s.pass({writes(Res::counters, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    expect_memory(s.pass({writes(Res::counters, kCompute, kRead | kWrite), reads(Res::counters, kFragment, kRead)}),
                  {kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT, kCompute | kFragment, kRead | kWrite});
    EXPECT_THROW(s.pass({reads(Res::hdr, kCompute, kRead, kGeneral), reads(Res::hdr, kFragment, kSampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}),
                 std::logic_error);
}

// The states carry over: the next frame's first write waits for this frame's last readers.
TEST(FrameGraph, TheNextFrameWaitsForThisFramesReaders) {
    Sequence s;
    for (int frame = 0; frame < 2; ++frame) {
        BarrierBatch clear = s.pass({writes(Res::light_lists, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
        if (frame == 0) EXPECT_TRUE(clear.empty());
        else expect_memory(clear, {kFragment, VK_ACCESS_2_NONE, kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT});
        s.pass({writes(Res::light_lists, kCompute, kRead | kWrite)});
        s.pass({reads(Res::light_lists, kFragment, kRead)});
    }
}

Image fake_image(uintptr_t handle) {
    Image image;
    image.image = reinterpret_cast<VkImage>(handle);  // never given to Vulkan: derive() records nothing
    image.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    return image;
}

// An image used by a pass that records its own barriers (transition()) in between: the graph takes
// the use transition() left in the Image as the last write; and it leaves in the Image what
// transition() must wait for after the graph's passes.
TEST(FrameGraph, ImagesKeepStepWithHandWrittenTransitions) {
    FrameGraph graph;
    Image hdr = fake_image(0x100);
    graph.bind(Res::hdr, hdr);
    Use first[] = {writes(Res::hdr, kCompute, kWrite, kGeneral, true)};
    EXPECT_EQ(graph.derive(first).images.size(), 1u);
    EXPECT_EQ(hdr.layout, kGeneral);
    EXPECT_EQ(hdr.last_stage, kCompute);
    EXPECT_EQ(hdr.last_access, kWrite);
    // As transition(cmd, hdr, COLOR_ATTACHMENT_OPTIMAL, color output, colour write) leaves it.
    hdr.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    hdr.last_stage = kColorOutput;
    hdr.last_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    Use read[] = {reads(Res::hdr, kCompute, kRead, kGeneral)};
    BarrierBatch b = graph.derive(read);
    expect_transition(b, Res::hdr, {kColorOutput, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, kCompute, kRead},
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, kGeneral);
    // A second read in the same stage: nothing; the Image says what a later transition waits for.
    EXPECT_TRUE(graph.derive(read).empty());
    EXPECT_EQ(hdr.layout, kGeneral);
    EXPECT_EQ(hdr.last_stage, kCompute);
}

// A pass with its own barriers that wrote a buffer: the next declared use waits for it.
TEST(FrameGraph, HandWrittenBufferUsesAreWaitedFor) {
    FrameGraph graph;
    Buffer counters;
    counters.buffer = reinterpret_cast<VkBuffer>(uintptr_t(0x200));
    graph.bind(Res::counters, counters);
    Use compute[] = {writes(Res::counters, kCompute, kRead | kWrite)};
    graph.derive(compute);
    graph.hand_written({writes(Res::counters, VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR, kRead | kWrite)});
    Use fragment[] = {writes(Res::counters, kFragment, kRead | kWrite)};
    expect_memory(graph.derive(fragment), {VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR, kWrite, kFragment, kRead | kWrite});
    Use unbound[] = {reads(Res::light_lists, kFragment, kRead)};
    EXPECT_THROW(graph.derive(unbound), std::logic_error);  // nothing bound under that name
    counters.buffer = VK_NULL_HANDLE;  // not ours to destroy
}

}  // namespace
