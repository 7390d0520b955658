// The switch between a pass's subgroup path and its fallback, one name in every shader that has
// both: `if (USE_SUBGROUP) { ... } else { ... }`, set at pipeline creation (ComputeDesc::use_subgroup,
// src/vk/resources.h; the constant's id is kUseSubgroupConstant there). Both pipelines come from
// one SPIR-V, NAME.switch; the driver drops the branch not taken. A specialization constant is
// the same for the whole dispatch, so a barrier under it stays in uniform control flow.
//
// A module declares the SPIR-V capabilities of every subgroup operation it contains, taken or not
// (GroupNonUniformBallot ...), and Vulkan forbids loading one whose capabilities the device lacks
// or running subgroup operations in a stage without subgroup support. So NAME.switch is used only
// where the device has what the subgroup branch needs; elsewhere the build's twin, NAME.no_subgroup,
// runs the fallback: the same SPIR-V with USE_SUBGROUP frozen to false, the dead branch removed and
// the subgroup capabilities dropped (shaders/no_subgroup.cmake, which fails the build if a
// subgroup operation is left). The extensions below only let the compiler accept both branches.
#ifndef SUBGROUP_SWITCH_GLSL
#define SUBGROUP_SWITCH_GLSL
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_quad : require

layout(constant_id = 100) const bool USE_SUBGROUP = false;
#endif
