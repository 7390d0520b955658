// The renderer's names for the structs the shaders read, defined once for C++ and GLSL in
// scene/gpu_layout.h (the GpuLayout unit tests compare their offsets with the compiled SPIR-V's).
#pragma once

#include "scene/gpu_layout.h"
#include "scene/scene.h"  // what the draws are made of (kSlotCount, kMaxLodLevels)

using GpuDraw = gpu::DrawData;
using GpuLight = gpu::PointLight;
using FrameUniforms = gpu::FrameUniforms;

static_assert(sizeof(GpuDraw) == 512 && sizeof(GpuLight) == 32 && sizeof(FrameUniforms) == 384);
