# Every SPIR-V output: sgd_shader(SOURCE VARIANT [DEFINES...]), or sgd_shaders(SOURCE TABLE) for each
# "VARIANT DEFINES..." entry of a table. The renderer loads them by "SOURCE.VARIANT" (see
# shader_path() in src/vk/resources.cpp).

# sgd_variants(OUT AXIS...): the table of every combination of one entry from each AXIS (a list of
# "NAME DEFINES..." entries, NAME "-" for none): the names joined by "_" in axis order, the defines
# together. sgd_variants(t a b) with a = "quads Q=1;analytic" and b = "-;mip M=1" makes
# "quads Q=1;quads_mip Q=1 M=1;analytic;analytic_mip M=1".
function(sgd_variants out)
  set(table "-")
  foreach(axis ${ARGN})
    set(next "")
    foreach(left IN LISTS table)
      foreach(right IN LISTS ${axis})
        separate_arguments(left_words UNIX_COMMAND "${left}")
        separate_arguments(right_words UNIX_COMMAND "${right}")
        list(POP_FRONT left_words left_name)
        list(POP_FRONT right_words right_name)
        set(names ${left_name} ${right_name})
        list(REMOVE_ITEM names "-")
        list(JOIN names "_" name)
        if(name STREQUAL "")
          set(name "-")
        endif()
        list(JOIN left_words " " left_defines)
        list(JOIN right_words " " right_defines)
        string(STRIP "${name} ${left_defines} ${right_defines}" entry)
        list(APPEND next "${entry}")
      endforeach()
    endforeach()
    set(table ${next})
  endforeach()
  set(${out} ${table} PARENT_SCOPE)
endfunction()

# sgd_shaders(SOURCE TABLE [FLAGS...]): sgd_shader(SOURCE VARIANT DEFINES... FLAGS...) for each entry of
# the list TABLE.
function(sgd_shaders source table)
  foreach(entry IN LISTS ${table})
    separate_arguments(words UNIX_COMMAND "${entry}")
    sgd_shader(${source} ${words} ${ARGN})
  endforeach()
  set(SGD_SPIRV_OUTPUTS ${SGD_SPIRV_OUTPUTS} PARENT_SCOPE)
endfunction()

# The records of the debug views (view_common.glsl), in every stage that shows them.
set(view_kinds "lane_id VIEW_LANE_ID=1" "first_last VIEW_FIRST_LAST=1" "active VIEW_ACTIVE=1")

# Scene draws: depth pre-pass and forward shading.
sgd_shader(scene.vert depth DEPTH_ONLY=1)
sgd_shader(scene.vert forward)
sgd_shader(forward.frag plain)
# Depth pre-pass of scenes with alphaMode MASK materials (the holes the ray tracer's any-hit sees).
sgd_shader(depth_alpha.frag main)
# --shading visibility (docs/visibility.md): the pre-pass also writes each pixel's (draw, primitive),
# with the alpha test of depth_alpha.frag where the scene has masked materials; the compute shading
# pass by [quad-swap or analytic derivatives] x [subgroup or per-lane light loop]. forward.frag ids:
# tests only, forward's own (draw, primitive) per pixel, the visibility image's oracle, and
# forward.frag derivatives, its quad's uv derivatives, the shading pass's.
sgd_shader(visibility.frag plain)
sgd_shader(visibility.frag alpha ALPHA=1)
sgd_shader(visibility.frag meshlet MESHLET=1)
sgd_shader(visibility.frag meshlet_alpha MESHLET=1 ALPHA=1)
# The shading pass: [quad-swap or analytic derivatives] x [per-lane or subgroup light loop] x [writing
# the quad mip as it shades (--mip subgroup) or not] x [vertices from the index buffer or fetched
# through the meshlet (VISIBILITY_MESHLET)]; and its debug views (--view-stage compute under
# --shading visibility): each derivative variant with the lane record of each view, the per-lane
# light loop.
set(shade_derivatives "quads VISIBILITY_QUADS=1" "analytic")
set(shade_light_loops "-" "light_loop LIGHT_LOOP_SUBGROUP=1")
set(shade_mips "-" "mip SHADE_QUAD_MIP=1")
set(shade_vertices "-" "meshlet VISIBILITY_MESHLET=1")
# Per-pixel materials: nonuniformEXT indexing alone, or the waterfall over the subgroup's materials.
set(shade_materials "-" "waterfall MATERIAL_WATERFALL=1")
set(shade_view "view SHADE_VIEW=1")
sgd_variants(shade_table shade_derivatives shade_light_loops shade_mips shade_materials shade_vertices)
sgd_variants(shade_view_table shade_derivatives shade_view view_kinds shade_vertices)
sgd_shaders(visibility_shade.comp shade_table)
sgd_shaders(visibility_shade.comp shade_view_table)
# --view materials: each derivative variant's waterfall, painting each pixel by its subgroup's trips.
set(shade_material_view "view_materials_waterfall VIEW_MATERIALS=1 MATERIAL_WATERFALL=1")
sgd_variants(shade_material_view_table shade_derivatives shade_material_view shade_vertices)
sgd_shaders(visibility_shade.comp shade_material_view_table)
sgd_shader(forward.frag ids FORWARD_IDS=1)
sgd_shader(forward.frag meshlet_ids FORWARD_IDS=1 MESHLET_IDS=1)
sgd_shader(forward.frag derivatives FORWARD_DERIVATIVES=1)
# The lod view (--view lod, docs/lod.md): every draw in its level's colour.
sgd_shader(lod_view.vert main)
sgd_shader(lod_view.frag main)
# The quad mip and the scalarized light loop below (docs/quad-mip.md, docs/light-lists.md) are SPIR-V
# 1.5 (--target-env=vulkan1.2): as SPIR-V 1.6, glslang decorates the HelperInvocation built-in
# Volatile, which Mesa turns into NIR is_helper_invocation, an intrinsic llvmpipe 22.3 cannot
# compile. SPIR-V 1.5 reads gl_HelperInvocation as a plain input, which every driver supports and
# which is all these shaders need (they never demote invocations to helpers).

# Triangle culling (src/passes/cull_pass.cpp), order-preserving in one dispatch: test, count, a
# chained scan with decoupled look-back and fallback, write in place. A subgroup scan and window,
# or a shared-memory scan and one look-back lane (workgroup_scan.glsl, cull.comp), switched by
# USE_SUBGROUP.
sgd_switch_shader(cull.comp)
# --cull off on the indexed path: no culling, each draw's level of detail (docs/lod.md).
sgd_shader(lod_select.comp plain)

# The meshlet path (--geometry meshlet, src/passes/meshlet_pass.cpp, docs/meshlets.md). The depth
# pre-pass's task and mesh shaders cull (switched by USE_SUBGROUP; `off` by the constant CULL_OFF)
# and record the visible list; forward draws it. The debug views (the fallback's culling):
# task view_* + mesh view_task (the task lane's record per primitive), or task view_plain + mesh
# view_* (the mesh lane's own); view_plain is the hatch where the stage lacks subgroups.
set(meshlet_views "view_plain VIEW_PLAIN=1" "view_lane_id VIEW_LANE_ID=1" "view_first_last VIEW_FIRST_LAST=1"
    "view_active VIEW_ACTIVE=1")
foreach(stage task mesh)
  sgd_shaders(meshlet_cull.${stage} meshlet_views)
endforeach()
sgd_shader(meshlet_cull.mesh view_task VIEW_FROM_TASK=1)
sgd_switch_shader(meshlet_cull.task)
# The mesh shader's, also with alpha-masked materials (uv and draw for depth_alpha.frag) and under
# --shading visibility (`ids`: each primitive's triangle for visibility.frag.meshlet(_alpha)).
sgd_switch_shader(meshlet_cull.mesh)
sgd_switch_shader(meshlet_cull.mesh NAME alpha DEPTH_ALPHA=1)
sgd_switch_shader(meshlet_cull.mesh NAME ids VISIBILITY_IDS=1)
sgd_switch_shader(meshlet_cull.mesh NAME alpha_ids DEPTH_ALPHA=1 VISIBILITY_IDS=1)
sgd_shader(meshlet_forward.task main)
sgd_shader(meshlet_forward.mesh main)
# The same names from forward's mesh shader: the frozen pre-pass under visibility, and the tests'
# forward.frag.meshlet_ids.
sgd_shader(meshlet_forward.mesh ids TRIANGLE_IDS=1)
sgd_shader(view.frag primitive VIEW_PER_PRIMITIVE=1)

# Half-resolution mip (docs/quad-mip.md): the forward shader writing it with quad swaps, the same
# SPIR-V with VK_KHR_shader_quad_control's full quads + maximal reconvergence, the compute fallback,
# and the `mip` debug view.
include(${CMAKE_CURRENT_LIST_DIR}/quad_control.cmake)
sgd_shader(forward.frag quad_mip QUAD_MIP=1 --target-env=vulkan1.2)
sgd_shader_full_quads(forward.frag.quad_mip)
sgd_shader(forward.frag light_loop LIGHT_LOOP_SUBGROUP=1 --target-env=vulkan1.2)
sgd_shader(forward.frag quad_mip_light_loop QUAD_MIP=1 LIGHT_LOOP_SUBGROUP=1 --target-env=vulkan1.2)
sgd_shader_full_quads(forward.frag.quad_mip_light_loop)
sgd_shader(mip_downsample.comp main)
# The resolve pass (src/passes/resolve_pass.cpp): HDR frame -> exposure -> tonemap -> 8-bit frame,
# as a full-screen fragment pass (forward shading), with RESOLVE_MIP also the quad mip written by
# quad swaps (--mip subgroup), or as a compute dispatch (the visibility path, whose shading pass
# writes the quad mip).
sgd_shader(resolve.vert main)
sgd_shader(resolve.frag plain)
sgd_shader(resolve.frag mip RESOLVE_MIP=1)
sgd_shader(resolve.comp plain)
# Auto-exposure (docs/exposure.md): the mip's log-luminance summed by subgroupAdd or by a
# shared-memory tree (switched by USE_SUBGROUP), then one invocation adapts the exposure.
sgd_switch_shader(exposure_reduce.comp)
sgd_shader(exposure_adapt.comp main)
sgd_shader(mip_fixup_args.comp main)
sgd_shader(mip_fixup.comp main)
sgd_shader(mip_view.comp main)

# EXPERIMENT ONLY (issue #15, docs/quad-mip.md "Where the cost came from"): variants of the quad mip
# that each take one piece away, for timing on a GPU. Selected with the environment variable
# SGD_MIP_EXPERIMENT=<name> (ScenePass::create); nothing else uses them. `old*`: the shader before
# the issue (helpers run to the end of main, every quad stores); the rest vary the shipped design
# (`shipped` is forward.frag.quad_mip again, so that its run counts invocations too).
set(SGD_MIP_EXPERIMENTS
  "old MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1"
  "old_swaps_only MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_NO_STORE=1"
  "old_store_only MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_NO_SWAPS=1"
  "old_layout_only MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_NO_SWAPS=1 MIP_X_NO_STORE=1"
  "old_buffer_store MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_BUFFER_STORE=1"
  "old_store_highest MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_STORE_HIGHEST=1"
  "old_no_early_tests MIP_X_OLD=1 MIP_X_KEEP_HELPERS=1 MIP_X_NO_EARLY_TESTS=1"
  "old_helpers_return MIP_X_OLD=1 MIP_X_HELPERS_RETURN=1"
  "keep_helpers MIP_X_KEEP_HELPERS=1"
  "terminate_helpers MIP_X_TERMINATE_HELPERS=1"
  "no_append MIP_X_NO_APPEND=1"
  "no_store MIP_X_NO_STORE=1 MIP_X_NO_APPEND=1"
  "no_swaps MIP_X_NO_SWAPS=1"
  "shipped"
  "nothing MIP_X_NOTHING=1"
  "nothing_late MIP_X_NOTHING=1 MIP_X_NO_EARLY_TESTS=1"
  "store_never MIP_X_NOTHING=1 MIP_X_STORE_NEVER=1")
foreach(experiment ${SGD_MIP_EXPERIMENTS})
  separate_arguments(experiment)
  list(POP_FRONT experiment name)
  sgd_shader(forward.frag mipx_${name} QUAD_MIP=1 ${experiment} --target-env=vulkan1.2)
  sgd_shader_full_quads(forward.frag.mipx_${name})
endforeach()

# Screen-space overlay: legends, markings, HUD.
sgd_shader(overlay.vert main)
sgd_shader(overlay.frag main)

# Light culling: per-tile light lists, ballot-aggregated (subgroup) or one atomic per entry
# (fallback), switched by USE_SUBGROUP; and the light-count view's heat map.
sgd_switch_shader(light_cull.comp)
sgd_shader(light_count.comp main)

# Debug views (src/passes/debug_view_pass.cpp): in each stage a variant per view, and `plain`
# without any subgroup operation (pass-through, colouring of records, and the hatch).
foreach(stage vert tesc tese geom frag comp)
  sgd_shader(view.${stage} plain)
endforeach()
foreach(stage vert tesc tese geom comp)
  sgd_shaders(view.${stage} view_kinds)
endforeach()
sgd_shader(view.frag lane_id VIEW_LANE_ID=1)
sgd_shader(view.frag first_last VIEW_FIRST_LAST=1)
# SPIR-V 1.5: in 1.6 gl_HelperInvocation is a volatile load, which Mesa 22.3's llvmpipe cannot
# compile (it crashes); the 1.5 form means the same here, as nothing demotes to a helper.
sgd_shader(view.frag active VIEW_ACTIVE=1 --target-env=vulkan1.2)

# Tests: a probe that GPU-assisted validation must catch writing past its binding.
sgd_shader(robust_probe.comp main)

# Window: the window image (RGBA -> BGRA reorder, the grey outside a smaller frame) before the copy into the swapchain image.
sgd_shader(present.comp main)

# Ray-traced sun shadows and reflections (docs/ray-tracing.md): the six ray-tracing stages, each with
# its statistics counted per subgroup or per invocation (switched by USE_SUBGROUP), and the light AABBs.
foreach(stage rgen rchit rahit rmiss rint rcall)
  sgd_switch_shader(raytrace.${stage})
endforeach()
# Ray generation on the visibility path (--shading visibility): the surface from the pixel's
# triangle, no primary ray; `_visibility` the indexed path's ids, `_visibility_meshlet` the meshlet path's.
foreach(surface visibility visibility_meshlet)
  if(surface STREQUAL "visibility_meshlet")
    set(surface_defines RT_SURFACE_VISIBILITY=1 VISIBILITY_MESHLET=1)
  else()
    set(surface_defines RT_SURFACE_VISIBILITY=1)
  endif()
  sgd_switch_shader(raytrace.rgen NAME ${surface} ${surface_defines})
  # The dense launch (docs/ray-tracing.md, "Dense rays"): the compaction pass lists the pixels by the
  # rays they trace, with ballots (subgroup) or one atomic per ray (fallback), switched by
  # USE_SUBGROUP; ray generation then traces one listed ray per invocation.
  sgd_switch_shader(raytrace.rgen NAME dense_${surface} RT_DENSE=1 ${surface_defines})
  sgd_switch_shader(ray_lists.comp NAME ${surface} ${surface_defines})
endforeach()
# The forward path's dense launch: its primary launch stores the hits (`primary`), the compaction
# and the dense launch rebuild the surfaces from them.
sgd_switch_shader(raytrace.rgen NAME primary RT_PRIMARY=1)
sgd_switch_shader(raytrace.rgen NAME dense RT_DENSE=1)
sgd_switch_shader(ray_lists.comp NAME camera)
sgd_shader(ray_lists.comp finish RT_LISTS_FINISH=1)
sgd_shader(ray_stats_fold.comp main)
sgd_shader(light_aabbs.comp main)
# The debug views in the six stages: `view_plain` passes the records through (and counts nothing),
# `view_<kind>` measures lanes in its own stage (VIEW_HERE), `view_none` marks the invocations of a
# stage without subgroups ("no lane data", no subgroup operation); raytrace_view.comp colours the
# records. Ray generation's by launch, the one the frame traced (docs/ray-tracing.md, "The views"):
# per pixel, the dense launch's (`_dense`) or the forward path's primary launch before it
# (`_primary`), and by surface.
set(raytrace_views "view_plain RT_VIEW=1" "view_lane_id RT_VIEW=1 VIEW_HERE=1 VIEW_LANE_ID=1"
    "view_first_last RT_VIEW=1 VIEW_HERE=1 VIEW_FIRST_LAST=1" "view_active RT_VIEW=1 VIEW_HERE=1 VIEW_ACTIVE=1"
    "view_none RT_VIEW=1 VIEW_HERE=1")
foreach(stage rchit rahit rmiss rint rcall)
  sgd_shaders(raytrace.${stage} raytrace_views)
endforeach()
set(raytrace_view_launches "-" "dense RT_DENSE=1" "primary RT_PRIMARY=1")
set(raytrace_view_surfaces "-" "visibility RT_SURFACE_VISIBILITY=1" "visibility_meshlet RT_SURFACE_VISIBILITY=1 VISIBILITY_MESHLET=1")
sgd_variants(raytrace_rgen_views raytrace_views raytrace_view_launches raytrace_view_surfaces)
list(FILTER raytrace_rgen_views EXCLUDE REGEX "_primary_visibility")  # the primary launch: the forward path's alone
sgd_shaders(raytrace.rgen raytrace_rgen_views)
sgd_shader(raytrace_view.comp main)

# The stage probe (src/compare/stage_probe.cpp, docs/benchmarks.md): the same arithmetic loop
# (probe_loop.glsl) as a full-screen fragment pass (with resolve.vert) and as a compute dispatch.
sgd_shader(probe.frag main)
sgd_shader(probe.comp main)

# The depth pyramid for occlusion culling (src/passes/occlusion_pass.cpp, docs/occlusion.md): one
# dispatch whose 2x2 steps are quad swaps and whose last workgroup finishes the tail, or one
# dispatch per level (switched by USE_SUBGROUP).
sgd_switch_shader(pyramid.comp)

# Occlusion phase 2 (docs/occlusion.md). Indexed: the re-test of phase 1's rejected list and the
# merge of the additions into forward's list in input order. Meshlet: the rejected meshlets as a
# list in input order, scanned with subgroupExclusiveAdd or in shared memory.
sgd_shader(cull_late.comp plain)
sgd_shader(cull_merge.comp plain)
# The scans of occlusion's per-chunk counts (phase 1's rejected list, the merge's), in blocks, and
# the meshlet path's late list: subgroupExclusiveAdd or shared memory (workgroup_scan.glsl),
# switched by USE_SUBGROUP.
sgd_switch_shader(cull_scan.comp)
sgd_switch_shader(meshlet_late_list.comp)
# The depth-pyramid view (--view depth-pyramid): one level of the pyramid over the frame.
sgd_shader(pyramid_view.comp main)
# --raster compute (docs/raster.md): the compute rasterizer (ballots or shared memory, USE_SUBGROUP),
# the hardware rasterizer's triangles (with the alpha test where the scene has masked materials)
# writing the same 64-bit words, and the split of the words into the visibility id and the depth.
sgd_switch_shader(raster.comp)
# The large triangles' tile bins: the indirect dispatch's size, then a workgroup per entry.
sgd_shader(raster_bin_args.comp main)
# Occlusion's late draw: its dispatches, empty where phase 2 re-admitted nothing.
sgd_shader(raster_late_args.comp main)
sgd_shader(raster.comp bin RASTER_BIN=1)
sgd_shader(raster_hw.vert main)
sgd_shader(raster_hw.frag plain)
sgd_shader(raster_hw.frag alpha ALPHA=1)
sgd_shader(raster_split.comp main)
# --view raster: the frame dimmed, then each path's colour over the pixels whose final word its
# triangles wrote (the compute rasterizer's classifying dispatches, a twin, the hardware's draw).
sgd_shader(raster_view.comp main)
sgd_switch_shader(raster.comp NAME view TWIN_ONLY VIEW=1)
sgd_shader(raster.comp bin_view RASTER_BIN=1 VIEW=1)
sgd_shader(raster_hw.frag view VIEW=1)
# Tests: the visibility word of given depths (raster.glsl), to hold its order to theirs.
sgd_shader(raster_word_probe.comp main)
# The meshlet path under --raster compute (docs/raster.md, "The meshlet path"): the task shader's
# meshlet culling in compute, listing the kept meshlets' chunks (the cull plan's variant), the
# list's indirect dispatches, and the rasterizer's variants that take their triangles from it.
sgd_switch_shader(meshlet_raster_cull.comp)
sgd_shader(meshlet_raster_args.comp main)
sgd_switch_shader(raster.comp NAME meshlet MESHLET=1)
sgd_shader(raster.comp meshlet_bin MESHLET=1 RASTER_BIN=1)
sgd_switch_shader(raster.comp NAME meshlet_view TWIN_ONLY MESHLET=1 VIEW=1)
sgd_shader(raster.comp meshlet_bin_view MESHLET=1 RASTER_BIN=1 VIEW=1)
sgd_shader(raster_hw.vert meshlet MESHLET=1)
