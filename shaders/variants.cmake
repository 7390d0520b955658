# One line per SPIR-V output: sgd_shader(SOURCE VARIANT [DEFINES...]).
# The renderer loads them by "SOURCE.VARIANT" (see shader_path() in src/vk/resources.cpp).

# Scene draws: depth pre-pass and forward shading.
sgd_shader(scene.vert depth DEPTH_ONLY=1)
sgd_shader(scene.vert forward)
sgd_shader(forward.frag plain)

# Half-resolution mip (docs/quad-mip.md): the forward shader writing it with quad swaps, the same
# SPIR-V with VK_KHR_shader_quad_control's full quads + maximal reconvergence, the compute fallback,
# and the `mip` debug view.
include(${CMAKE_CURRENT_LIST_DIR}/quad_control.cmake)
sgd_shader_spv15(forward.frag quad_mip QUAD_MIP=1)
sgd_shader_full_quads(forward.frag.quad_mip)
sgd_shader(mip_downsample.comp main)
sgd_shader(mip_view.comp main)

# Screen-space overlay: legends, markings, HUD.
sgd_shader(overlay.vert main)
sgd_shader(overlay.frag main)

# Light culling: per-tile light lists, ballot-aggregated (subgroup) or one atomic per entry
# (fallback); and the light-count view's heat map.
sgd_shader(light_cull.comp subgroup SUBGROUP=1)
sgd_shader(light_cull.comp fallback)
sgd_shader(light_count.comp main)
