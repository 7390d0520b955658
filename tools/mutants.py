#!/usr/bin/env python3
"""Shader and source mutants, each with the tests that must catch it (docs/testing.md, "Mutants").

A mutant is one textual edit of one file of the tree. `run` applies it, rebuilds, runs its tests at
4 and 8 lanes (lavapipe's LP_NATIVE_VECTOR_WIDTH 128 and 256) and restores the file whatever
happens. A mutant is KILLED when at least one of its tests fails, SURVIVED when they all pass: a
survivor is a hole in the suite.

Usage: tools/mutants.py list
       tools/mutants.py run [NAME...] [--build DIR]     (all mutants when no NAME is given)
       tools/mutants.py check                          (every mutant's text occurs once in its file)
"""
import argparse
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name: (file, text to find (exactly once), its replacement, ctest regex of the tests that must catch it)
MUTANTS = {
    # docs/materials.md: the normal map's frames and each slot's own texCoord set.
    "cotangent-frame-bitangent-up-the-v-axis": (
        "shaders/material.glsl",
        "    return mat3(t * scale, -b * scale, n);",
        "    return mat3(t * scale, b * scale, n);",
        r"^MaterialMaps\.NormalMapShadesAsTheCpu|^MaterialMaps\.EverySlotReadsItsOwnTexCoord",
    ),
    "cotangent-frame-keeps-the-screen-orientation": (
        "shaders/material.glsl",
        "    if (dot(n, cross(dp1, dp2)) < 0.0) scale = -scale;\n",
        "",
        r"^MaterialMaps\.NormalMapShadesAsTheCpu",
    ),
    "tangent-frame-bitangent-flipped": (
        "shaders/material.glsl",
        "frame = mat3(t, cross(n, t) * in_.tangent.w, n);",
        "frame = mat3(t, cross(t, n) * in_.tangent.w, n);",
        r"^MaterialMaps\.NormalMapShadesAsTheCpu",
    ),
    "every-slot-reads-texcoord-0": (
        "shaders/material.glsl",
        "uint slot_set(DrawData draw, uint slot) { return (draw.texcoords >> slot) & 1u; }",
        "uint slot_set(DrawData draw, uint slot) { return 0u; }",
        r"^MaterialMaps\.EverySlotReadsItsOwnTexCoord",
    ),
    # docs/ray-tracing.md, "The reflected surface's material": the reflections' sets, normal map and frame.
    "reflection-callable-reads-uv0-for-texcoord-1": (
        "shaders/raytrace.rcall",
        "    hit.uv1 = material.uv1;",
        "    hit.uv1 = material.uv0;",
        r"^MaterialMaps\.ReflectionsReadEachSlotsTexCoord",
    ),
    "reflection-ignores-the-normal-map": (
        "shaders/raytrace.rcall",
        "    DrawData draw = draws[material.draw];\n",
        "    DrawData draw = draws[material.draw];\n    draw.normal_texture = 0u;\n",
        r"^MaterialMaps\.ReflectedNormalMapShadesAsTheCpu",
    ),
    "reflection-triangle-frame-bitangent-flipped": (
        "shaders/raytrace.rchit",
        "dot(cross(normal, frame[0]), frame[1]) < 0.0 ? -1.0 : 1.0",
        "dot(cross(normal, frame[0]), frame[1]) > 0.0 ? -1.0 : 1.0",
        r"^MaterialMaps\.ReflectedNormalMapShadesAsTheCpu",
    ),
    "reflection-triangle-frame-ignores-the-slot-transform": (
        "shaders/raytrace.rchit",
        "linear * (uv[1] - uv[0]), linear * (uv[2] - uv[0])",
        "uv[1] - uv[0], uv[2] - uv[0]",
        r"^MaterialMaps\.ReflectedNormalMapShadesAsTheCpu",
    ),
    "mip-chain-cache-ignores-the-texels": (
        "src/scene/texture_mips.cpp",
        "    auto key = std::make_tuple(texels, texture.width",
        "    auto key = std::make_tuple(size_t(0), texture.width",
        r"^TextureMips\.SceneChainsAreBuiltOnceAndFollowTheTexels",
    ),
    "masked-mips-average-transparent-colour": (
        "src/scene/texture_mips.cpp",
        "            bool premultiplied_colour = alpha_weighted && premultiplied[i + 3] > 0.0f;",
        "            bool premultiplied_colour = false;",
        r"^TextureMips\.MaskedTexturesAverageColourWeightedByAlpha",
    ),
    # docs/architecture.md, "What C++ and the shaders share": one definition of the structs, checked
    # against glslang's layout; layouts read from the SPIR-V; docs without the project's issue numbers.
    "draw-data-members-swapped": (
        "src/scene/gpu_layout.h",
        "    uint texcoords;            // bit s: slot s reads TEXCOORD_1\n    uint material; ",
        "    uint material;\n    uint texcoords;            // bit s: slot s reads TEXCOORD_1\n ",
        r"^GpuLayout\.DrawDataOffsetsAreGlslangsStd430",
    ),
    "spirv-storage-buffer-read-as-uniform": (
        "src/vk/spirv_reflect.cpp",
        "    if (storage == StorageStorageBuffer) return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;",
        "    if (storage == StorageStorageBuffer) return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;",
        r"^SpirvReflect\.|^Resolve\.",
    ),
    # docs/architecture.md, "Binding numbers, written once, in GLSL": pipelines take their layout
    # from the SPIR-V; a layout written out is held to it; each pipeline is pushed what it holds.
    "layout-check-ignores-descriptor-types": (
        "src/vk/spirv_reflect.cpp",
        "        if (given.bindings[b] != declared.bindings[b])\n",
        "        if (false)\n",
        r"^SpirvReflect\.LayoutWrittenOutMustHoldWhatItsShadersDeclare",
    ),
    "pipelines-ignore-their-shaders-layout": (
        "src/vk/resources.cpp",
        "    if (given == LayoutDesc{}) return declared;",
        "    if (given == LayoutDesc{}) return given;",
        r"^Exposure\.",
    ),
    "descriptors-pushed-past-the-layout": (
        "src/vk/resources.cpp",
        "        if (w.dstBinding < pipeline.bindings.size() && pipeline.bindings[w.dstBinding] != kNoBinding) held.push_back(w);",
        "        held.push_back(w);",
        r"^Visibility\.BundledSceneMatchesForward",
    ),
    # docs/architecture.md, "Adding a pass": the --subgroup-size check takes every compute
    # shader's workgroup from one constant, held to the SPIR-V.
    "largest-fixed-workgroup-below-the-shaders": (
        "src/vk/resources.h",
        "constexpr uint32_t kLargestFixedWorkgroup = 256;",
        "constexpr uint32_t kLargestFixedWorkgroup = 64;",
        r"^Workgroups\.",
    ),
    # docs/meshlets.md: both variants of the meshlet culling count through one function
    # (count_meshlets, meshlet_chunk_cull.glsl); phase 2's rejections are its tested less its kept.
    "meshlet-phase-2-counts-every-tested-meshlet-rejected": (
        "shaders/meshlet_chunk_cull.glsl",
        "kOcclusionRejected2], tested - kept);",
        "kOcclusionRejected2], tested);",
        r"^Occlusion\.StillAndMovingFramesEqualOcclusionOffInBothPaths",
    ),
    # docs/debug-views.md, "The views": --view depth shows each pixel's own depth, not a pyramid level.
    "depth-view-reads-2x2-blocks": (
        "shaders/pyramid_view.comp",
        "        depth = texelFetch(depth_image, ivec2(pixel), 0).r;",
        "        depth = texelFetch(depth_image, ivec2(pixel / 2u * 2u), 0).r;",
        r"^Occlusion\.DepthViewShowsTheDepthThePassesReadPixelByPixel",
    ),
    "depth-view-shows-pyramid-level-0": (
        "src/passes/occlusion_pass.cpp",
        "    uint32_t level = depth_view ? kDepthViewLevel : std::min(f.plan.view.level, levels - 1);",
        "    uint32_t level = depth_view ? 0u : std::min(f.plan.view.level, levels - 1);",
        r"^Occlusion\.DepthViewShowsTheDepthThePassesReadPixelByPixel",
    ),
    # docs/debug-views.md, "The views": --view overdraw adds one step per front-facing fragment to black.
    "overdraw-view-blends-over": (
        "src/passes/debug_view_pass.cpp",
        '        d.blend = true;         // premultiplied "over" with alpha 0: the step adds',
        "        d.blend = false;",
        r"^LodGpu\.OverdrawViewCountsTheFrontFacesOverEveryPixel",
    ),
    "overdraw-view-opaque-fragments": (
        "shaders/lod_view.frag",
        "    out_color = unpackUnorm4x8(push.colours[in_level & 7u]);",
        "    out_color = vec4(unpackUnorm4x8(push.colours[in_level & 7u]).rgb, 1.0);",
        r"^LodGpu\.OverdrawViewCountsTheFrontFacesOverEveryPixel",
    ),
    "overdraw-view-over-the-shaded-frame": (
        "src/passes/debug_view_pass.cpp",
        "color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_CLEAR, {{0.0f, 0.0f, 0.0f, 1.0f}});",
        "color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_LOAD);",
        r"^LodGpu\.OverdrawViewCountsTheFrontFacesOverEveryPixel",
    ),
    "overdraw-view-counts-back-faces": (
        "src/passes/debug_view_pass.cpp",
        "        d.depth_write = false;  // no depth attachment: every fragment counts",
        "        d.depth_write = false;\n        d.cull_mode = VK_CULL_MODE_NONE;",
        r"^LodGpu\.OverdrawViewCountsTheFrontFacesOverEveryPixel",
    ),
    "chosen-levels-always-coarsened": (
        "src/passes/debug_view_pass.cpp",
        "    push.lod_max_error_px = f.plan.lod ? kLodMaxErrorPixels : 0.0f;",
        "    push.lod_max_error_px = kLodMaxErrorPixels * 4.0f;",
        r"^LodGpu\.OverdrawViewCountsTheFrontFacesOverEveryPixel|^LodGpu\.LodViewColoursEveryDrawByTheLevelTheCpuRulePicks",
    ),
    "docs-name-an-issue": (
        "docs/occlusion.md",
        "After the depth pre-pass the pass builds the **depth pyramid**",
        "Issues 34 and 40. After the depth pre-pass the pass builds the **depth pyramid**",
        r"^DocsDescribeTheSoftware\.",
    ),
    # docs/materials.md, "Without descriptor indexing": the textures as layers of one array texture.
    "texture-layers-colour-slots-read-the-unorm-view": (
        "shaders/scene_textures.glsl",
        "    return colour ? textureGrad(scene_colour_layers, vec3(uv, float(index)), uv_dx, uv_dy)",
        "    return !colour ? textureGrad(scene_colour_layers, vec3(uv, float(index)), uv_dx, uv_dy)",
        r"^MaterialMaps\.WithoutDescriptorIndexing",
    ),
    "texture-layers-one-layer-for-all": (
        "shaders/scene_textures.glsl",
        "                  : textureGrad(scene_data_layers, vec3(uv, float(index)), uv_dx, uv_dy);",
        "                  : textureGrad(scene_data_layers, vec3(uv, 1.0), uv_dx, uv_dy);",
        r"^MaterialMaps\.WithoutDescriptorIndexing",
    ),
    "texture-layers-resample-without-the-fraction": (
        "src/scene/texture_mips.cpp",
        "            float fx = sx - float(x0), fy = sy - float(y0);",
        "            float fx = 0.0f, fy = 0.0f;",
        r"^TextureMips\.ResampleIsBilinearWithRepeatInLinearLight",
    ),
    "materials-view-paints-each-lanes-own-trips": (
        "shaders/visibility_shade.comp",
        "    walked_by_subgroup = subgroupMax(trips);",
        "    walked_by_subgroup = trips;",
        r"^MaterialMaps\.MaterialsViewColoursEachPixel",
    ),
    "waterfall-lanes-take-the-second-material": (
        "shaders/visibility_shade.comp",
        "        if (picked == material_index) {",
        "        if (picked == material_index || trips == 2u) {",
        r"^MaterialMaps\.WaterfallShadesTheFallbacksFrame",
    ),
    "waterfall-counts-the-electeds-trips": (
        "shaders/visibility_shade.comp",
        "        uint walked = subgroupMax(trips);",
        "        uint walked = trips;",
        r"^MaterialMaps\.WaterfallShadesTheFallbacksFrame",
    ),
    "occlusion-darkens-the-sun-too": (
        "shaders/brdf.glsl",
        "           frame.sun_color.rgb * sun_visibility * brdf_lit(brdf, normal, frame.sun_direction.xyz);",
        "           frame.sun_color.rgb * (sun_visibility * occlusion) * brdf_lit(brdf, normal, frame.sun_direction.xyz);",
        r"^MaterialMaps\.EachMapChangesTheImage",
    ),
    # docs/robustness.md, "Limits": the memory plan of the plan that runs, not of the typed request.
    "limits-count-the-rasterizer-only-where-typed": (
        "src/run/limits.cpp",
        "    if (plan.raster.raster == Raster::compute) {\n",
        "    if (plan.raster.requested == Raster::compute) {\n",
        r"^Limits\.TheComputeRasterizersBuffersFollowTheResolvedPlan|^Tune\.AStoredComputeVerdictIsCheckedAgainstTheComputeRasterizersLimits",
    ),
    "start-up-limits-of-the-untuned-plan": (
        "src/app/run.cpp",
        "        default: return {{s.plan}};\n",
        "        default: {\n            PlanRequest typed = s.tuned.plan;\n            set_measured(typed, nullptr);\n"
        "            return {{make_plan(ctx.subgroup, ctx.features, typed)}};\n        }\n",
        r"^Tune\.AStoredComputeVerdictIsCheckedAgainstTheComputeRasterizersLimits",
    ),
    "first-run-limits-skip-what-the-measurement-may-choose": (
        "src/app/run.cpp",
        "    if (measure) check_device_limits(ctx, options, widest_plan(ctx, options), *s.scene);",
        "    if (false) check_device_limits(ctx, options, widest_plan(ctx, options), *s.scene);",
        r"^FirstRun\.TheLimitsCoverEveryPathTheMeasurementMayChoose",
    ),
    # docs/robustness.md, "Device limits": every mode checks the plans it builds, not one.
    "compare-limits-of-auto-plan-only": (
        "src/app/run.cpp",
        "            for (const CompareRun& run : plan_comparison(ctx, s.tuned.plan).runs)\n"
        "                if (!run.skipped) rows.push_back(run.plan);\n",
        "            rows.push_back(plan_comparison(ctx, s.tuned.plan).base);\n",
        r"^RobustLimits\.CompareChecksEveryRowsPlan",
    ),
    "atlas-limits-of-the-typed-plan-only": (
        "src/app/run.cpp",
        "            for (const Plan& plan : atlas_plans(ctx, s.tuned)) cells.push_back({plan});\n",
        "            cells.push_back({make_plan(ctx.subgroup, ctx.features, s.tuned.plan)});\n",
        r"^RobustLimits\.AtlasChecksEveryCellsPlan",
    ),
    "window-keys-skip-the-limits": (
        "src/window/window.cpp",
        "        if (!fits_the_device(change.plan)) return;\n",
        "",
        r"^Window\.AKeysPlanPastTheLimitsIsRefusedWithANote",
    ),
    "meshlet-raster-list-sized-by-the-meshes": (
        "src/passes/meshlet_raster.cpp",
        "    return sizeof(ListHeader) + 8 * std::max<VkDeviceSize>(1, chunks);\n",
        "    return sizeof(ListHeader) + 8 * std::max<VkDeviceSize>(1, 2 * meshlets.meshlets.size());\n",
        r"^MeshletGpu\.ComputeRasterNamesTheHardwarePrePassTrianglesOfEveryInstanceOfAMesh",
    ),
    "window-resize-skips-the-limits": (
        "src/window/window.cpp",
        "            within_limits(plans_run_, e,",
        "            true || within_limits(plans_run_, e,",
        r"^Window\.AWindowGrownPastTheLargestImageKeepsItsFrameWithANote",
    ),
    "window-outside-a-smaller-frame-not-filled": (
        "shaders/present.comp",
        "    vec4 texel = vec4(grey, grey, grey, 1.0);\n",
        "    vec4 texel = vec4(0.0);\n",
        r"^Window\.AWindowGrownPastTheLargestImageKeepsItsFrameWithANote",
    ),
    "memory-plan-counts-the-meshlet-path-only-on-its-geometry": (
        "src/run/limits.cpp",
        "    if (draws_meshlets(plan, device.mesh_shader)) {\n",
        "    if (plan.geometry == Geometry::meshlet) {\n",
        r"^Limits\.ATaskOrMeshViewCountsTheMeshletPath",
    ),
    "plans-sharing-a-renderer-counted-as-the-first": (
        "src/run/limits.cpp",
        "    if (plans.size() == 1) return planned_allocations(scene, options, plans[0], device);\n",
        "    if (!plans.empty()) return planned_allocations(scene, options, plans[0], device);\n",
        r"^Limits\.PlansThatShareARendererHoldEachBufferOnce|^RobustLimits\.CompareChecksEveryRowsPlan",
    ),
    "shade-per-lane-loop-magenta": (
        "shaders/visibility_shade.comp",
        "        color = vec4(shaded + material.emissive, 1.0);\n",
        "        color = vec4(shaded + material.emissive, 1.0);\n#ifndef LIGHT_LOOP_SUBGROUP\n"
        "        color = vec4(1.0, 0.0, 1.0, 1.0);\n#endif\n",
        r"^Visibility\.BundledSceneMatchesForward",
    ),
    "light-list-of-the-tile-to-the-right": (
        "shaders/shading.glsl",
        "    uint tile = light_tile_of_pixel(pixel, frame.tiles.x);\n",
        "    uint tile = light_tile_of_pixel(pixel, frame.tiles.x);\n#ifdef SHADING_IN_COMPUTE\n"
        "    tile = min(tile + 1u, frame.tiles.x * frame.tiles.y - 1u);\n#endif\n",
        r"^Visibility\.BundledSceneMatchesForward|^Visibility\.OcclusionPhaseTwoMatchesForward",
    ),
    "resolve-compute-skips-measured-exposure": (
        "shaders/resolve.comp",
        "    imageStore(color_image, pixel, vec4(display(hdr.rgb, exposure), 1.0));\n",
        "    if (measured == 0u) imageStore(color_image, pixel, vec4(display(hdr.rgb, exposure), 1.0));\n",
        r"^Resolve\.|^ResolveCompute\.|^VisibilityMip\.",
    ),
    "visibility-pipelines-need-geometry-for-meshlets": (
        "src/passes/visibility_pass.cpp",
        "void VisibilityPass::create(const Context& ctx) {\n",
        "void VisibilityPass::create(const Context& ctx) {\n"
        "    if (!visibility_missing(ctx.features, Geometry::indexed).empty()) return;\n",
        r"^Visibility\.MeshletPathShadesWithoutTheGeometryFeature",
    ),
    "late-draw-writes-ids": (
        "src/render/renderer.cpp",
        "    f.ids_after_late_draw = visibility && two_phases;\n",
        "    f.ids_after_late_draw = false;\n",
        r"^VisibilityTies\.|^Visibility\.OcclusionPhaseTwoMatchesForward",
    ),
    # docs/ray-tracing.md: shadow rays that skip the any-hit shader's alpha test (opaque), and ray
    # generation on the visibility path that takes the neighbouring triangle's surface.
    "shadow-ray-skips-any-hit": (
        "shaders/raytrace.rgen",
        "gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT, kMaskGeometry,",
        "gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT | gl_RayFlagsOpaqueEXT, kMaskGeometry,",
        r"^RayTrace\.(Surface)?ShadowsMatchCpuReferenceThroughTheAlphaMask",
    ),
    # docs/ray-tracing.md, "Statistics": the miss shader counts its own invocations, so a miss
    # shader that leaves shadow rays "blocked" breaks rays == closest-hit + miss + blocked.
    "miss-shader-marks-nothing-lit": (
        "shaders/raytrace.rmiss",
        "    payload.t = -1.0;\n",
        "    if (payload.kind != kRayShadow) payload.t = -1.0;\n",
        r"^RayTrace\.(Surface)?StatisticsAreSelfConsistent",
    ),
    # docs/ray-tracing.md, "Where a ray starts": the shadow ray from the flat triangle (no terminator
    # fix) shadows the coarse sphere where its smooth normal faces the sun; Waechter and Binder's
    # constant band and step of a unit-sized scene (not the triangle's) move the shadow at x0.001.
    "shadow-ray-from-the-flat-triangle": (
        "shaders/ray_origin.glsl",
        "smooth_surface_point(s.position, corner, unit, b)",
        "s.position",
        r"^RayTrace\.CoarseSphereShadowsOnlyWhereTheMeshBlocksTheSun",
    ),
    "ray-offset-band-of-a-unit-scene": (
        "shaders/ray_origin.glsl",
        "    float magnitude = max(max(largest.x, largest.y), max(largest.z, 1e-30));\n",
        "    float magnitude = 1.0;\n",
        r"^RayTrace\.CoarseSphereShadowsOnlyWhereTheMeshBlocksTheSun",
    ),
    "raygen-surface-of-the-wrong-triangle": (
        "shaders/ray_surface.glsl",
        "    t = fetch_triangle(id);\n",
        "    t = fetch_triangle(id ^ 1u);\n",
        r"^RayTrace\.SurfaceFromTheTriangleMatchesThePrimaryRay",
    ),
    # docs/ray-tracing.md, "Dense rays": the ballot compaction reserves one entry too few per
    # subgroup (its last listed lane's entry is overwritten by the next subgroup's first), places a
    # lane by its lane index instead of the listed lanes below it (gaps, and entries in the next
    # subgroup's range), the dense launch stores its ray's bits instead of ORing them in (a
    # pixel's reflection wipes its shadow), and the forward path's primary launch stores the
    # neighbouring triangle of its hit.
    "ray-lists-drop-the-last-lane": (
        "shaders/ray_lists.comp",
        "        if (n > 0u) base = atomicAdd(ray_lists.list_count[list], n);\n",
        "        if (n > 0u) base = atomicAdd(ray_lists.list_count[list], n - 1u);\n",
        r"^RayTrace\.DenseLaunchTracesThePlainLaunchsRays",
    ),
    "ray-lists-slot-by-lane-index": (
        "shaders/ray_lists.comp",
        "    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(lanes);\n",
        "    return subgroupBroadcastFirst(base) + gl_SubgroupInvocationID;\n",
        r"^RayTrace\.DenseLaunchTracesThePlainLaunchsRays",
    ),
    "dense-launch-stores-its-ray-alone": (
        "shaders/raytrace.rgen",
        "    if (bits != 0u) imageAtomicOr(traced_image, pixel, bits);\n",
        "    if (bits != 0u) imageStore(traced_image, pixel, uvec4(bits));\n",
        r"^RayTrace\.DenseLaunchTracesThePlainLaunchsRays",
    ),
    # docs/ray-tracing.md, "The views": the ray-tracing stages' views trace the launch the frame
    # traced. A view that traces one raygen per pixel while the frame went dense writes pixels that
    # are in no list; one that skips the clear keeps the frame's values where they outrank the
    # records (a blocked shadow ray's bits); swapped entries let the shadow entry's record win; a
    # primary launch that writes nothing leaves the forward path's unlisted pixels empty.
    "stage-view-traces-the-plain-launch": (
        "src/passes/ray_trace_pass.cpp",
        "    bool dense = f.ray_traced && traced_dense_;\n",
        "    bool dense = false;\n",
        r"^RayTrace\.StageViewsTraceTheLaunchTheFrameTraces",
    ),
    "dense-view-keeps-the-frames-values": (
        "src/passes/ray_trace_pass.cpp",
        "    vkCmdClearColorImage(f.cmd, f.targets.ray_traced.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);\n",
        "",
        r"^RayTrace\.StageViewsTraceTheLaunchTheFrameTraces",
    ),
    "dense-view-shadow-entry-wins": (
        "shaders/raytrace.rgen",
        "kViewShadowEntry = 1u, kViewReflectionEntry = 2u;",
        "kViewShadowEntry = 2u, kViewReflectionEntry = 1u;",
        r"^RayTrace\.StageViewsTraceTheLaunchTheFrameTraces",
    ),
    "primary-view-writes-nothing": (
        "shaders/raytrace.rgen",
        "    store_view_record(pixel, own_record != 0u ? own_record : primary_record, kViewPixelEntry);\n",
        "",
        r"^RayTrace\.StageViewsTraceTheLaunchTheFrameTraces",
    ),
    "primary-hits-of-the-next-triangle": (
        "shaders/raytrace.rgen",
        "hit ? uvec2(payload.draw, payload.primitive) : uvec2(kNoPrimaryHit);",
        "hit ? uvec2(payload.draw, payload.primitive ^ 1u) : uvec2(kNoPrimaryHit);",
        r"^RayTrace\.DenseLaunchTracesThePlainLaunchsRays",
    ),
    # docs/ray-tracing.md, "Refitting": a refitting frame that skips the lights' BLAS update (the
    # first frame's tree, its lights where they were), and one that refits from stale boxes
    # (light_aabbs.comp not run after the first frame): the reflections see the lights elsewhere.
    "ray-refit-skips-the-light-update": (
        "src/passes/ray_trace_pass.cpp",
        "    cmd_build(f.cmd, 1, &info, &range_pointer);\n    // The TLAS over the meshes' BLASes",
        "    if (!refit) cmd_build(f.cmd, 1, &info, &range_pointer);\n    // The TLAS over the meshes' BLASes",
        r"^RayTrace\.RefitTracesLikeTheFullRebuild",
    ),
    "ray-refit-from-stale-boxes": (
        "src/passes/ray_trace_pass.cpp",
        "    if (lights_) {\n        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, aabbs_.handle());",
        "    if (lights_ && !(f.plan.ray_refit && updatable_)) {\n        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, aabbs_.handle());",
        r"^RayTrace\.RefitTracesLikeTheFullRebuild",
    ),
    "difference-panel-always-zero": (
        "src/compare/chart.cpp",
        "            if (worst == 0) continue;\n",
        "            if (worst >= 0) continue;\n",
        r"^DifferencePanel\.",
    ),
    "lod-error-scaled-0.6": (
        "src/scene/lod.cpp",
        "        error_so_far += relative_error * scale;\n",
        "        error_so_far += relative_error * scale * 0.6f;\n",
        r"^LodChain\.StoredErrorsMatchTheDistanceToLevelZeroOnAScaledSphere",
    ),
    "lod-error-scaled-1.6": (
        "src/scene/lod.cpp",
        "        error_so_far += relative_error * scale;\n",
        "        error_so_far += relative_error * scale * 1.6f;\n",
        r"^LodChain\.StoredErrorsMatchTheDistanceToLevelZeroOnAScaledSphere",
    ),
    "tuning-verdicts-swapped": (
        "src/tuning/cache.cpp",
        '    {"shading", 0, &LoadedTuning::shading, &PlanRequest::measured_shading, Shading::forward},\n'
        '    {"derivatives", 1, &LoadedTuning::derivatives, &PlanRequest::measured_derivatives, Shading::visibility},\n',
        '    {"shading", 1, &LoadedTuning::shading, &PlanRequest::measured_shading, Shading::forward},\n'
        '    {"derivatives", 0, &LoadedTuning::derivatives, &PlanRequest::measured_derivatives, Shading::visibility},\n',
        r"^Tune\.InfoShowsMeasuredChoicesAfterATuneAndNoneWithNoTuning",
    ),
    # Tuned auto's stored decisions and size classes (docs/comparison.md, "Which verdict applies").
    "raster-path-verdict-ignored": (
        "src/plan/plan.cpp",
        "    } else if (path && path->winner == Variant::fallback) {\n",
        "    } else if (false && path) {\n",
        r"^TuningFile\.TheRasterPathIsStoredAndFollowed$|^Tune\.AStoredRasterPathVerdictIsFollowed",
    ),
    "ray-trace-verdict-across-shadings": (
        "src/plan/plan.cpp",
        "    if (*id == PassId::ray_trace) return m.in.shading == shading;\n",
        "    if (*id == PassId::ray_trace) return true;\n",
        r"^TuningFile\.TheRayTracersVerdictIsKeptPerShading$",
    ),
    "size-class-not-in-the-file-name": (
        "src/tuning/cache.cpp",
        '("tuning-" + std::string(ids) + "-" + driver + "-" + size_class(key.width, key.height).tag + "-" +',
        '("tuning-" + std::string(ids) + "-" + driver + "-" +',
        r"^FirstRun\.AVerdictOfAnotherSizeClassIsMeasuredAgain|^TuningFile\.LivesInTheCacheFolderPerDeviceAndDriver$",
    ),
    "size-class-not-checked": (
        "src/tuning/cache.cpp",
        "    if (&measured != &run) {\n",
        "    if (false) {\n",
        r"^FirstRun\.AVerdictOfAnotherSizeClassIsMeasuredAgain|^TuningFile\.AFileThatDoesNotFitIsIgnoredWithWhy$",
    ),
    "scene-class-not-in-the-file-name": (
        "src/tuning/cache.cpp",
        "             scene_class(key.triangles, key.lights).tag() + \".json\")).string();",
        "             std::string(\"any-scene\") + \".json\")).string();",
        r"^FirstRun\.AVerdictOfAnotherSceneClassIsMeasuredAgain|^TuningFile\.LivesInTheCacheFolderPerDeviceAndDriver$",
    ),
    "scene-class-not-checked": (
        "src/tuning/cache.cpp",
        "    if (measured_scene != run_scene) {\n",
        "    if (false) {\n",
        r"^FirstRun\.AVerdictOfAnotherSceneClassIsMeasuredAgain|^TuningFile\.AVerdictOfAnotherSceneClassIsIgnored$",
    ),
    "scene-key-without-lights": (
        "src/tuning/cache.cpp",
        "    return {options.width, options.height, triangles, options.lights};\n",
        "    return {options.width, options.height, triangles, 0};\n",
        r"^FirstRun\.AVerdictOfAnotherSceneClassIsMeasuredAgain",
    ),
    "comparison-rows-ignore-autos-plan": (
        "src/compare/compare.cpp",
        "    PlanRequest request = base;\n    request.passes = config.requests;\n",
        "    PlanRequest request;\n    request.lod = base.lod;\n    request.passes = config.requests;\n",
        r"^Tune\.TheComparisonMeasuresItsRowsInAutosPlan",
    ),
    "adaptive-rounds-never-stop": (
        "src/compare/compare.cpp",
        "            if (a.running) charge(*a.run, [&] { a.headless->render(method.round_frames[r], r); });\n",
        "            charge(*a.run, [&] { a.headless->render(method.round_frames[r], r); });\n",
        r"^Verdicts\.AdaptiveRoundsStopADecidedPairAndRunAnUndecidedOneToTheCap",
    ),
    "one-renderer-never-shared": (
        "src/compare/compare.cpp",
        "        bool share = shared && shared->fits(scene, renderer_config(o, run.plan, {o.width, o.height}));\n",
        "        bool share = false;\n",
        r"^Verdicts\.OneRendererForSeveralRowsStillStopsADecidedPairEarly|^FirstRun\.StoresAQuickVerdictThatTheNextRunUsesUntilTheDriverOrBuildChanges",
    ),
    # docs/comparison.md, "Tuned auto" and "The first run": --tune and the quick measurement on one renderer.
    "tune-builds-a-renderer-per-row": (
        "src/compare/tuning.cpp",
        "    CompareMethod rows_method = render_in_rounds(ctx, scene, options, runs, progress_line, 0, {}, &shared);\n",
        "    CompareMethod rows_method = render_in_rounds(ctx, scene, options, runs, progress_line, 0, {}, nullptr);\n",
        r"^Tune\.InfoShowsMeasuredChoicesAfterATuneAndNoneWithNoTuning",
    ),
    "tune-check-builds-a-renderer-of-its-own": (
        "src/compare/tuning.cpp",
        "    CompareMethod check_method = render_in_rounds(ctx, scene, options, check, progress_line, 0, {}, &shared);\n",
        "    SharedRenderer own;\n    CompareMethod check_method = render_in_rounds(ctx, scene, options, check, progress_line, 0, {}, &own);\n",
        r"^Tune\.InfoShowsMeasuredChoicesAfterATuneAndNoneWithNoTuning",
    ),
    "quick-measurement-shows-no-progress": (
        "src/compare/tuning.cpp",
        "            ctx, scene, o, runs, step, kQuickRoundsSeconds,\n",
        "            ctx, scene, o, runs, {}, kQuickRoundsSeconds,\n",
        r"^FirstRun\.StoresAQuickVerdictThatTheNextRunUsesUntilTheDriverOrBuildChanges|^Cli\.ProgressIsALinePerUpdateIntoAPipeAndOneLineRedrawnOnATerminal",
    ),
    "atlas-shows-no-progress": (
        "src/app/atlas.cpp",
        '        line.update("  atlas: " + std::string(stage_name(stage)) + ", stage " + std::to_string(column + 1) + " of " +\n',
        '        if (false) line.update("  atlas: " + std::string(stage_name(stage)) + ", stage " + std::to_string(column + 1) + " of " +\n',
        r"^DebugViews\.AtlasMarksExactlyTheStagesTheDeviceCannotShow",
    ),
    "quick-measurement-builds-a-renderer-per-row": (
        "src/compare/tuning.cpp",
        "            [&](const std::vector<CompareRun>& rows) { return sides_of_undecided(rows, ratios_of(rows)); }, &shared);\n",
        "            [&](const std::vector<CompareRun>& rows) { return sides_of_undecided(rows, ratios_of(rows)); }, nullptr);\n",
        r"^FirstRun\.StoresAQuickVerdictThatTheNextRunUsesUntilTheDriverOrBuildChanges",
    ),
    # docs/comparison.md, "The first run": the rounds' budget does not count the set-up.
    "rounds-budget-counts-the-set-up": (
        "src/compare/compare.cpp",
        "std::chrono::steady_clock::now() - rounds_started).count();\n        if (budget_s > 0",
        "std::chrono::steady_clock::now() - started).count();\n        if (budget_s > 0",
        r"^Verdicts\.TheRoundsBudgetDoesNotCountTheSetUp",
    ),
    "rounds-budget-never-spent": (
        "src/compare/compare.cpp",
        "r + 1 < method.rounds() && rounds_elapsed > budget_s)",
        "r + 1 < method.rounds() && rounds_elapsed > 1e9)",
        r"^Verdicts\.TheRoundsBudgetDoesNotCountTheSetUp",
    ),
    # docs/materials.md: KHR_texture_transform's rotation turns the UVs counter-clockwise as the image shows them.
    "texture-transform-rotation-clockwise": (
        "src/scene/gltf_loader.cpp",
        "glm::vec3(c * scale.x, -s * scale.x, 0.0f), glm::vec3(s * scale.y, c * scale.y, 0.0f),",
        "glm::vec3(c * scale.x, s * scale.x, 0.0f), glm::vec3(-s * scale.y, c * scale.y, 0.0f),",
        r"^(Quantization\.TextureTransformIsTheSlotsMap|GltfSamples\.TextureTransformTestArrowsPointAtTheGreenMarkers)$",
    ),
    # docs/architecture.md, "Start-up": pipelines compiled ahead on threads of their own.
    "compile-ahead-starts-nothing": (
        "src/vk/resources.cpp",
        "    if (!ctx.compile_ahead || !p.compile) return;",
        "    if (true) return;",
        r"^Render\.PipelinesCompiledAheadDrawTheFrameCompiledAtFirstUse",
    ),
    "compile-ahead-on-every-device": (
        "src/vk/context.cpp",
        "        ctx.compile_ahead = ctx.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;",
        "        ctx.compile_ahead = true;",
        r"^Render\.PipelinesCompiledAheadDrawTheFrameCompiledAtFirstUse",
    ),
    "compile-ahead-waits-for-nothing": (
        "src/vk/resources.cpp",
        "compiled = ahead.valid() ? ahead.get() : compile();",
        "compiled = compile();",
        r"^Render\.PipelinesCompiledAheadDrawTheFrameCompiledAtFirstUse",
    ),
    # docs/robustness.md, "Device limits": the meshlet path's buffers in the memory plan.
    "memory-plan-without-the-meshlet-path": (
        "src/run/limits.cpp",
        "    if (draws_meshlets(plan, device.mesh_shader)) {\n        meshlet_frame_allocations(",
        "    if (false) {\n        meshlet_frame_allocations(",
        r"^RobustLimits\.PlannedAllocationsAreWhatTheMeshletComputeRasterizerAllocates|^RobustLimits\.MeshletVisibleListBeyondTheStorageRangeExit2|^Limits\.TheMeshletPathsBuffersFollowThePlan",
    ),
    "memory-plan-without-the-meshlet-raster-chunks": (
        "src/run/limits.cpp",
        "        if (plan.geometry == Geometry::meshlet && plan.raster.raster == Raster::compute)\n            a.push_back({\"meshlet raster chunks\"",
        "        if (false)\n            a.push_back({\"meshlet raster chunks\"",
        r"^RobustLimits\.PlannedAllocationsAreWhatTheMeshletComputeRasterizerAllocates|^Limits\.TheMeshletPathsBuffersFollowThePlan",
    ),
    "shared-renderer-keeps-the-last-plan": (
        "src/run/headless.cpp",
        "    renderer_->set_plan(plan_);  // the frames are synchronous: the renderer is idle here\n",
        "",
        r"^Verdicts\.OneRendererForSeveralRowsStillStopsADecidedPairEarly|^Compare\.EachImageIsAFrameOfItsRoundsAndEqualsAProcessOfItsOwn",
    ),
    # docs/comparison.md, "How the comparison runs": one renderer, each row's own history, its image from its rounds.
    "shared-renderer-keeps-the-last-runs-history": (
        "src/run/headless.cpp",
        "    renderer_->restore(history_);\n    return true;\n",
        "    return true;\n",
        r"^Compare\.EachImageIsAFrameOfItsRoundsAndEqualsAProcessOfItsOwn",
    ),
    "settle-frame-adapts-the-exposure": (
        "src/run/headless.cpp",
        "        submit_frame(frame_, false);\n        renderer_->restore(history_);\n",
        "        submit_frame(frame_, false);\n",
        r"^Compare\.EachImageIsAFrameOfItsRoundsAndEqualsAProcessOfItsOwn",
    ),
    "image-is-the-last-frame-rendered": (
        "src/run/headless.cpp",
        "        if (capture_frame_ == frame_) capture();\n",
        "        if (capture_frame_) capture();\n",
        r"^Compare\.EachImageIsAFrameOfItsRoundsAndEqualsAProcessOfItsOwn",
    ),
    "compare-no-tuning-stores-verdicts": (
        "src/compare/tuning.cpp",
        "    if (options.no_tuning)  // auto ignores the verdicts and nothing is stored: the cache stays as it was\n",
        "    if (false)\n",
        r"^Compare\.EveryConfigurationRunsValidatedAndTheSheetShowsEachScreenshot",
    ),
    "ray-tracing-reason-names-the-extension": (
        "src/vk/context.cpp",
        "        if (ray_tracing_offered && !ctx.features.descriptor_indexing)\n",
        "        if (false)\n",
        r"^MaterialMaps\.WithoutDescriptorIndexing",
    ),
    "adaptive-rule-stops-an-undecided-pair": (
        "src/compare/compare.cpp",
        "        if (!r.ratio || interval_decided(r.ci95, noise_floor)) continue;  // no ratio: more rounds give none\n",
        "        continue;\n",
        r"^CompareRatios\.AdaptiveRoundsGoOnOnlyForTheRowsOfUndecidedRatios$",
    ),
    "adaptive-rounds-stop-every-row-after-the-minimum": (
        "src/compare/compare.cpp",
        "                a.running = a.running && keep[size_t(a.run - runs.data())];\n",
        "                a.running = false;\n",
        r"^Verdicts\.AdaptiveRoundsStopADecidedPairAndRunAnUndecidedOneToTheCap",
    ),
    "raster-path-not-a-stored-decision": (
        "src/tuning/cache.cpp",
        "    {\"raster_path\", 3, &LoadedTuning::raster_path, &PlanRequest::measured_raster_path, Shading::visibility},\n",
        "    {\"raster\", 2, &LoadedTuning::raster, &PlanRequest::measured_raster, Shading::visibility},\n",
        r"^TuningFile\.TheRasterPathIsStoredAndFollowed$|^FirstRun\.StoresAQuickVerdictThatTheNextRunUsesUntilTheDriverOrBuildChanges",
    ),
    "shared-renderer-ignores-test-work": (
        "src/run/headless.cpp",
        "           m.light_loop_split_tiles == c.light_loop_split_tiles && m.test_extra_work == c.test_extra_work &&\n",
        "           m.light_loop_split_tiles == c.light_loop_split_tiles &&\n",
        r"^Verdicts\.OneRendererForSeveralRowsStillStopsADecidedPairEarly",
    ),
    "adaptive-rule-forgets-the-off-row": (
        "src/compare/compare.cpp",
        'mark(std::string(pass.name) + "-off");',
        '(void)pass;',
        r"^CompareRatios\.AdaptiveRoundsGoOnOnlyForTheRowsOfUndecidedRatios$",
    ),
    "counter-barrier-without-fragment": (
        "src/render/renderer.cpp",
        "VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;\n",
        "VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT;\n",
        r"^ViewBarrier\.",
    ),
    "lookback-recount-ignores-pyramid": (
        "shaders/cull.comp",
        "    workgroup_exclusive_scan(bitCount(r.visible), total);\n",
        "    workgroup_exclusive_scan(bitCount(r.visible | r.occlusion_rejected), total);\n",
        r"^Occlusion\.LookbackFallbackInPhase1CountsOnlyWhatThePyramidKeeps",
    ),
    # docs/raster.md: the compute rasterizer's depth plane from the float vertices (not the snapped
    # ones its coverage tests), a negative depth's sign bit kept in the word, the hardware draw of
    # the list past its capacity, and compute allowed where the device snaps to other sub-pixel bits.
    "raster-depth-plane-from-float-vertices": (
        "shaders/raster.comp",
        "    vec2 ab = vec2(d0), ac = vec2(-d2);  // b - a, c - a\n    float det = float(-cross);           // the wound triangle's (ab x ac), > 0\n",
        "    vec2 ab = (pb.xy - pa.xy) * float(kSubPixel), ac = (pc.xy - pa.xy) * float(kSubPixel);\n"
        "    float det = ab.x * ac.y - ab.y * ac.x;\n    det = det != 0.0 ? det : 1.0;\n",
        r"^Raster\.SliverDepthIsTheSnappedPlaneClampedToTheTriangle",
    ),
    "raster-word-keeps-the-sign-bit": (
        "shaders/raster.glsl",
        "    return (bits & 0x80000000u) != 0u ? 0u : min(bits, 0x3f800000u);\n",
        "    return bits;\n",
        r"^RasterWordCompute\.",
    ),
    "raster-hardware-draw-past-the-list-capacity": (
        "shaders/raster_hw.vert",
        "    if (slot >= push.capacity || slot >= hw_command[0] / 3u) {\n",
        "    if (slot >= hw_command[0] / 3u) {\n",
        r"^Raster\.HardwareDrawStopsAtTheListsCapacity",
    ),
    # docs/raster.md, "Ties": the ids name source triangles, so occlusion's two phases write the
    # frame's words: the late draw's words dropped, an id from the triangle's place in the list it
    # was listed in, a late triangle named by its rank in its chunk instead of in its draw's level.
    "raster-late-draw-writes-no-words": (
        "src/passes/raster_pass.cpp",
        "    record_compute(f, p.raster[f.plan.raster.variant == Variant::subgroup ? 1 : 0], p.bin, d, push, false,\n",
        "    if (!late) record_compute(f, p.raster[f.plan.raster.variant == Variant::subgroup ? 1 : 0], p.bin, d, push, false,\n",
        r"^Raster\.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame|^Raster\.OcclusionPhaseTwoMatchesHardware",
    ),
    "raster-id-from-the-listed-place": (
        "shaders/raster.comp",
        "    uint triangle = push.ranked != 0u ? source_ranks[first_index / 3u + primitive] : primitive;\n",
        "    uint triangle = primitive;\n",
        r"^Raster\.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame|^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles",
    ),
    # docs/raster.md, "Counters": the pieces of depth and late_depth (counters.raster.dispatch_ms): a
    # piece not marked, the split's mark before its work (outside the pieces), late_depth not split.
    "raster-pieces-chunks-unmarked": (
        "src/passes/raster_pass.cpp",
        "    if (pieces) f.timer.end_piece(f.cmd, *pieces, RasterPiece::chunks);\n",
        "",
        r"^RasterPieces\.",
    ),
    "raster-pieces-split-marked-before-the-split": (
        "src/passes/raster_pass.cpp",
        "        record_split(f, !f.ids_after_late_draw);\n        f.timer.end_piece(f.cmd, pieces, RasterPiece::split);\n",
        "        f.timer.end_piece(f.cmd, pieces, RasterPiece::split);\n        record_split(f, !f.ids_after_late_draw);\n",
        r"^RasterPieces\.",
    ),
    "raster-late-pieces-never-started": (
        "src/render/renderer.cpp",
        "        if (compute_raster) slot.timer->start_pieces(cmd, Timer::late_depth);\n",
        "",
        r"^RasterPieces\.",
    ),
    "cull-level-command-names-level-0": (
        "shaders/cull.comp",
        "            level_commands[draw_id * 5u + 2u] = draws[draw_id].lod_first_index[level];\n",
        "            level_commands[draw_id * 5u + 2u] = draws[draw_id].first_index;\n",
        r"^Raster\.CoarserLevelsOfDetailNameTheHardwaresTriangles",
    ),
    "decoders-read-the-rasterized-list": (
        "src/render/frame.h",
        "    if (f.ids_name_source) return f.level_commands ? *f.level_commands : f.scene.indirect_all;\n",
        "",
        r"^Raster\.CoarserLevelsOfDetailNameTheHardwaresTriangles|^Raster\.BundledSceneComputeNamesTheHardwaresTriangles",
    ),
    "late-list-source-rank-within-its-chunk": (
        "shaders/cull_late.comp",
        "            source_ranks[dst / 3u] = triangle;\n",
        "            source_ranks[dst / 3u] = rank;\n",
        r"^Raster\.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame",
    ),
    # docs/visibility.md, "Ties": the hardware pre-pass's ids pass after occlusion's merge draws with
    # a count from the GPU, every draw only where phase 2 re-admitted something; phase 1 writes the
    # ids the other frames keep; the report's ids timing counts the frames it drew in.
    "ids-pass-count-in-every-frame": (
        "src/passes/cull_pass.cpp",
        "    vkCmdFillBuffer(cmd, ids_draw_count.buffer, 0, 4, 0);\n",
        "    vkCmdFillBuffer(cmd, ids_draw_count.buffer, 0, 4, draw_count);\n",
        r"^VisibilityTies\.HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted",
    ),
    "ids-pass-count-never-written": (
        "shaders/cull_late.comp",
        "            ids_draw_count = frame.tiles.w;  // the draw count\n",
        "",
        r"^VisibilityTies\.HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted|^VisibilityTies\.LateDrawResolvesEqualDepthsAsForward",
    ),
    "phase-1-writes-no-ids-where-the-ids-pass-is-gated": (
        "src/passes/scene_pass.cpp",
        "               (!f.ids_after_late_draw || (!late && ids_gated(f)));\n",
        "               !f.ids_after_late_draw;\n",
        r"^VisibilityTies\.HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted",
    ),
    "ids-timing-in-every-frame-of-phase-2": (
        "src/render/renderer.cpp",
        "    if (ids >= 0.0 && slots_[slot].ids_gated && read_frame_counters(slot).occlusion_triangles.readmitted_phase2 == 0) ids = -1.0;\n",
        "",
        r"^VisibilityTies\.HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted",
    ),
    # docs/raster.md, "The meshlet path": the kept meshlets' chunks listed by ballot (a lane's first
    # chunk counts the second chunks of the lanes below it too), and the late phase rasterizing the
    # chunks it appended into phase 1's words.
    "meshlet-raster-slots-skip-the-second-chunks": (
        "shaders/meshlet_raster_cull.comp",
        "    uint before = subgroupBallotExclusiveBitCount(one) + subgroupBallotExclusiveBitCount(two);",
        "    uint before = subgroupBallotExclusiveBitCount(one);",
        r"^MeshletGpu\.ComputeRasterNamesTheHardwarePrePassTriangles",
    ),
    "meshlet-raster-late-phase-not-rasterized": (
        "src/render/renderer.cpp",
        "                // The re-admitted meshlets rasterized into phase 1's words: the frame's (docs/raster.md).\n"
        "                raster_pass_.record(f, RasterPhase::late);\n",
        "",
        r"^MeshletGpu\.ComputeRasterOcclusionPhases",
    ),
    "raster-grid-not-folded": (
        "src/passes/raster_pass.cpp",
        "    grid.width = std::max(1u, std::min(chunk_count, max_groups[0]));\n",
        "    grid.width = std::max(1u, chunk_count);\n",
        r"^Raster\.MoreChunksThanTheWorkgroupLimitFoldIntoRows",
    ),
    # --view raster: the hardware's colour on every fragment of its list (not only where the final
    # word is the fragment's), and the compute pixels in the subgroup path's colour whichever path ran.
    "raster-view-paints-every-hardware-fragment": (
        "shaders/raster_hw.frag",
        "    if (uint(words[pixel.y * frame.sizes.x + pixel.x]) != uint(word)) discard;\n",
        "",
        r"^Raster\.ViewColoursEachPixelByWhoWroteItsWord",
    ),
    "raster-view-tile-bin-in-the-split-colour": (
        "src/passes/raster_pass.cpp",
        "kRasterTinyPixels, bin_capacity, guard_band, {kRasterPerLaneColour, kRasterSplitColour, kRasterTileBinColour}};",
        "kRasterTinyPixels, bin_capacity, guard_band, {kRasterPerLaneColour, kRasterSplitColour, kRasterSplitColour}};",
        r"^Raster\.ViewColoursEachPixelByWhoWroteItsWord",
    ),
    # The compute rasterizer's sorting (docs/raster.md, "Where the subgroups act"): a tile bin
    # entry dropped, the subgroup path's slots off by one (its hardware list and its tile bins),
    # the fallback's split queue one short, the full bins' triangles lost instead of drawn by the
    # hardware, and the per-path pixels counted whoever wrote the word.
    "raster-tile-bin-last-entry-dropped": (
        "shaders/raster.comp",
        "    if (entry >= min(bin_count, push.bin_capacity)) return;\n",
        "    if (entry + 1u >= min(bin_count, push.bin_capacity)) return;\n",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles|^Raster\.BundledSceneComputeNamesTheHardwaresTriangles",
    ),
    # docs/raster.md, "Tile bins": a tile is skipped where one edge misses all of it, and tested
    # pixel by pixel unless all three edges hold at its four corners.
    "raster-split-queue-of-one-in-the-fallback": (
        "shaders/raster.comp",
        "const uint kSplitQueueLength = USE_SUBGROUP ? 1u : 64u;",
        "const uint kSplitQueueLength = USE_SUBGROUP ? 64u : 1u;",
        r"^Raster\.(GeneratedScene|BundledScene)ComputeNamesTheHardwaresTriangles",
    ),
    "raster-tile-skipped-where-one-corner-misses": (
        "shaders/raster.comp",
        "        if (any(lessThan(most, i64vec3(0)))) continue;",
        "        if (any(lessThan(least, i64vec3(0)))) continue;",
        r"^Raster\.(GeneratedScene|BundledScene)ComputeNamesTheHardwaresTriangles",
    ),
    "raster-tile-whole-where-one-corner-is-inside": (
        "shaders/raster.comp",
        "        bool whole = all(greaterThanEqual(least, i64vec3(0)));",
        "        bool whole = all(greaterThanEqual(most, i64vec3(0)));",
        r"^Raster\.(GeneratedScene|BundledScene)ComputeNamesTheHardwaresTriangles",
    ),
    "raster-hardware-slot-inclusive-count": (
        "shaders/raster.comp",
        "    uint slot = subgroupBroadcastFirst(first) + subgroupBallotExclusiveBitCount(to_hardware);\n",
        "    uint slot = subgroupBroadcastFirst(first) + subgroupBallotInclusiveBitCount(to_hardware);\n",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles|^Raster\.BundledSceneComputeNamesTheHardwaresTriangles",
    ),
    "raster-tile-bin-first-entry-off-by-one-lane": (
        "shaders/raster.comp",
        "        if (owner < gl_SubgroupInvocationID) before += owned;\n",
        "        if (owner <= gl_SubgroupInvocationID) before += owned;\n",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles|^Raster\.BundledSceneComputeNamesTheHardwaresTriangles",
    ),
    "raster-fallback-split-queue-one-short": (
        "shaders/raster.comp",
        "    for (uint i = 0u; i < s_split; ++i) raster_triangle(",
        "    for (uint i = 1u; i < s_split; ++i) raster_triangle(",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles|^Raster\.BundledSceneComputeNamesTheHardwaresTriangles",
    ),
    "raster-tile-bins-dispatch-not-folded": (
        "shaders/raster_bin_args.comp",
        "    bins.groups_x = min(entries, push.max_groups_x);",
        "    bins.groups_x = entries;",
        r"^Raster\.MoreChunksThanTheWorkgroupLimitFoldIntoRows",
    ),
    "raster-guard-band-ignored": (
        "shaders/raster.comp",
        "    float guard = float(push.guard_band);\n",
        "    float guard = 0.0;\n",
        r"^Raster\.AGuardBandTakesTheFrameCrossingTrianglesInCompute",
    ),
    # The near plane (docs/raster.md, "The near plane"): the polygon not clipped (the triangle's own
    # projected vertices, one behind the eye); a large triangle's depth plane from its first vertex
    # whatever its distance from the frame.
    "raster-near-plane-not-clipped": (
        "shaders/raster.comp",
        "        n = clip_near(clip, p);\n",
        "        for (uint i = 0u; i < 3u; ++i) p[i] = window_position(clip[i]);\n",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles",
    ),
    "raster-plane-origin-far-from-the-frame": (
        "shaders/raster.comp",
        "    if (large) {\n        vec2 centre",
        "    if (false) {\n        vec2 centre",
        r"^Raster\.OcclusionPhaseTwoMatchesHardware",
    ),
    # Occlusion's late draw (docs/raster.md, "Occlusion's two phases"): its chunks launched in every
    # frame, and its split never launched.
    "raster-late-chunks-in-every-frame": (
        "shaders/raster_late_args.comp",
        "    uvec2 chunks = readmitted_draws != 0u ? push.chunks : uvec2(0u);\n",
        "    uvec2 chunks = push.chunks;\n",
        r"^Raster\.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame",
    ),
    "raster-late-split-never": (
        "shaders/raster_late_args.comp",
        "    uvec2 split = readmitted_draws != 0u ? push.split : uvec2(0u);\n",
        "    uvec2 split = uvec2(0u);\n",
        r"^Raster\.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame|^Raster\.OcclusionPhaseTwoMatchesHardware",
    ),
    # The classifying passes after occlusion's late draw size the tile bins' dispatch from the late
    # draw's first entry, not the frame's first: phase 1's large triangles go unclassified.
    "raster-classify-only-the-late-bins": (
        "shaders/raster_bin_args.comp",
        "    if (push.all != 0u) bins.first = 0u;\n",
        "",
        r"^Raster\.UnderOcclusionEveryCoveredPixelHasItsPath|^Raster\.TwoPhaseFramesCountEachPathsPixelsAsOnePhase",
    ),
    "raster-full-tile-bins-drop-the-triangle": (
        "shaders/raster.comp",
        "    if (kind == kTileBin && binning && first_entry + tiles > push.bin_capacity) kind = kHardware;\n",
        "    if (kind == kTileBin && binning && first_entry + tiles > push.bin_capacity) kind = kNothing;\n",
        r"^Raster\.FullTileBinsSendTheRestToTheHardware",
    ),
    "raster-path-pixels-counted-whoever-wrote": (
        "shaders/raster.comp",
        "    if (words[at] != word) return;\n",
        "",
        r"^Raster\.CountersSayWhoRasterizedEachTriangleAndWroteEachPixel|^Raster\.ViewColoursEachPixelByWhoWroteItsWord",
    ),
    "raster-view-runs-without-words": (
        "src/run/headless.cpp",
        "    if (plan.view.mode == ViewMode::raster && plan.view.variant == Variant::unsupported)\n",
        "    if (false)\n",
        r"^Raster\.ViewWithoutTheComputeRasterizerIsRefused",
    ),
    "raster-classify-counts-every-fragment": (
        "shaders/raster_hw.frag",
        "        if (words[pixel.y * frame.sizes.x + pixel.x] == word) atomicAdd(counters[kRasterPixelsHardwareWord], 1u);\n",
        "        atomicAdd(counters[kRasterPixelsHardwareWord], 1u);\n",
        r"^Raster\.CountersSayWhoRasterizedEachTriangleAndWroteEachPixel",
    ),
    "raster-compute-whatever-the-sub-pixel-bits": (
        "src/plan/plan.cpp",
        "    if (features.sub_pixel_bits != kRasterSubPixelBits)\n",
        "    if (false)\n",
        r"^RasterPlan\.ComputeOnlyWhereTheDeviceSnapsToTheSameSubPixelBits|^Raster\.WhereTheSubPixelBitsDifferComputeIsRefused",
    ),
    # docs/architecture.md, "The frame graph": the derivation of barriers from declared uses.
    "graph-write-after-read-forgets-the-readers": (
        "src/render/frame_graph.cpp",
        "            d.src_stage = state.read_stages;\n",
        "            d.src_stage = state.write_stages;\n",
        r"^FrameGraph\.",
    ),
    "graph-read-after-write-without-the-writes-access": (
        "src/render/frame_graph.cpp",
        "    d.src_stage = state.write_stages;\n    d.src_access = state.write_access;\n    state.visible.push_back",
        "    d.src_stage = state.write_stages;\n    state.visible.push_back",
        r"^FrameGraph\.",
    ),
    "graph-one-barrier-makes-a-write-visible-everywhere": (
        "src/render/frame_graph.cpp",
        "        if ((v.access & access) == access) seen |= v.stage;",
        "        seen |= v.stage | stage;",
        r"^FrameGraph\.",
    ),
    "graph-discard-keeps-the-layout": (
        "src/render/frame_graph.cpp",
        "    d.layout_change = image && (use.discard || use.layout != state.layout);",
        "    d.layout_change = image && use.layout != state.layout;",
        r"^FrameGraph\.",
    ),
    "graph-a-write-stays-visible-to-old-readers": (
        "src/render/frame_graph.cpp",
        "        state.visible.clear();\n",
        "",
        r"^FrameGraph\.",
    ),
    "graph-merge-keeps-the-last-dependency": (
        "src/render/frame_graph.cpp",
        "        batch.memory.src_stage |= d.src_stage;",
        "        batch.memory.src_stage = d.src_stage;",
        r"^FrameGraph\.",
    ),
    "graph-ignores-hand-written-transitions": (
        "src/render/frame_graph.cpp",
        "        if (s.image && (s.image->layout != s.written_layout",
        "        if (false && (s.image->layout != s.written_layout",
        r"^FrameGraph\.",
    ),
    # FrameContext::drew_with_count: after the gated ids pass's counted draw, lavapipe's later
    # uncounted indirect draws (the debug views') would draw at most the stale count.
    "views-after-a-counted-draw-pass-no-count": (
        "src/passes/scene_pass.cpp",
        "    if (!draw_count && f.drew_with_count) draw_count = &f.scene.all_draws_count;",
        "",
        r"^RayTrace\.ViewsInTheSixStagesMarkWhatTheDeviceLacks",
    ),
    "lod-view-after-a-counted-draw-passes-no-count": (
        "src/passes/debug_view_pass.cpp",
        "        if (f.drew_with_count)  // as draw_scene: a count of its own after a counted draw",
        "        if (false)",
        r"^VisibilityTies\.ViewsAfterTheGatedIdsPassDrawEverySurface",
    ),
    # The cull's late test forgets that it writes the lists: the late draw reads them unsynchronized.
    "cull-late-declares-no-list-write": (
        "src/passes/cull_pass.cpp",
        "                 writes(Res::draw_lists, kComputeStage, kStorageReadWrite), writes(Res::counters, kComputeStage, kStorageReadWrite)});",
        "                 writes(Res::counters, kComputeStage, kStorageReadWrite)});",
        r"^Occlusion\.StillAndMovingFramesEqualOcclusionOff",
    ),
    # A pass that forgets a write in its declaration: the frame's later readers of it go unsynchronized.
    # The ray tracer under the frame graph: the dense launch's compaction does not declare that it
    # writes the lists. Nothing then orders the header's update (a transfer) before the
    # compaction's atomics on the lists' counts, and synchronization validation reports the
    # hazard. (Synchronization validation does not see the ray-tracing stages' descriptor
    # accesses, nor the indirect launch's command, read through a device address: a launch's
    # undeclared read survives on lavapipe.)
    "ray-compaction-declares-no-list-write": (
        "src/passes/ray_trace_pass.cpp",
        """        std::vector<Use> uses = {writes(Res::ray_lists, kComputeStage, kStorageReadWrite),
                                 writes(Res::ray_traced""",
        """        std::vector<Use> uses = {writes(Res::ray_traced""",
        r"^RayTrace\.DenseLaunchTracesThePlainLaunchsRays",
    ),
    # docs/ray-tracing.md, "The subgroup variant on dense rays": the fold of the subgroup
    # variant's striped counters leaves out the last stripe.
    "ray-stats-fold-skips-the-last-stripe": (
        "shaders/ray_stats_fold.comp",
        "    for (uint s = 0u; s < kStatStripes; ++s) {\n",
        "    for (uint s = 0u; s + 1u < kStatStripes; ++s) {\n",
        r"^RayStatsFoldCompute\.",
    ),
    "light-cull-declares-no-list-write": (
        "src/passes/light_cull_pass.cpp",
        "                   writes(Res::light_lists, kComputeStage, kStorageReadWrite), ",
        "                   ",
        r"^LightCullDemo\.EveryModeRunsValidationCleanAndReports",
    ),
    # docs/raster.md, "Barriers: the frame graph's": the split forgets that it writes the id image,
    # which then keeps its layout (undefined in the first frame) for the split's storage writes.
    "raster-split-declares-no-visibility-write": (
        "src/passes/raster_pass.cpp",
        "                             writes(Res::visibility, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, !gated),\n",
        "",
        r"^Raster\.GeneratedSceneComputeNamesTheHardwaresTriangles",
    ),
    # docs/architecture.md, "The frame graph": the barriers still written by hand each say why on the
    # line before, and none comes in unseen (tools/hand_written_barriers.py).
    "hand-written-barrier-without-its-reason": (
        "src/run/bandwidth_probe.cpp",
        "        // Hand-written: a probe outside the frame, timing copies between buffers of its own.\n",
        "",
        r"^Tools\.HandWrittenBarriersAreFewAndSayWhy$",
    ),
    "hand-written-barrier-added-to-the-rasterizer": (
        "src/passes/raster_pass.cpp",
        "    late_split_gated = gated;\n",
        "    late_split_gated = gated;\n    // Hand-written: the late dispatches, for the chunks' indirect dispatch.\n"
        "    memory_barrier(f.cmd, kComputeStage, kStorageWrite, kRasterIndirectStage, kRasterIndirectRead);\n",
        r"^Tools\.HandWrittenBarriersAreFewAndSayWhy$",
    ),
    # docs/architecture.md, "Shader variants": the switched shaders and their twins.
    "no-subgroup-twin-keeps-the-subgroup-capabilities": (
        "shaders/no_subgroup.cmake",
        r'string(REGEX REPLACE "[ \t]*OpCapability (GroupNonUniform[A-Za-z]*|SubgroupBallotKHR|SubgroupVoteKHR)\n" "" text "${text}")' + "\n",
        "",
        r"^SubgroupSwitch\.EverySwitchedShader",
    ),
    "no-subgroup-twin-freezes-every-constant": (
        "shaders/no_subgroup.cmake",
        "execute_process(COMMAND ${SPIRV_OPT} --target-env=${ENV} -O ${frozen} -o ${frozen} RESULT_VARIABLE failed)",
        "execute_process(COMMAND ${SPIRV_OPT} --target-env=${ENV} --freeze-spec-const -O ${frozen} -o ${frozen} RESULT_VARIABLE failed)",
        r"^SubgroupSwitch\.(EverySwitchedShader|TwinsWithoutSubgroupOperations)",
    ),
    "cull-switch-subgroup-scan-inclusive": (
        "shaders/workgroup_scan.glsl",
        "    uint in_subgroup = subgroupExclusiveAdd(value);",
        "    uint in_subgroup = subgroupInclusiveAdd(value);",
        r"^CullCompute\.BundledSceneSubgroupAndFallbackWriteTheSameListAndMatchTheReference|^SubgroupSwitch\.EachSwitched",
    ),
    "switch-constant-always-false": (
        "src/vk/resources.cpp",
        "    values.push_back(use_subgroup ? VK_TRUE : VK_FALSE);",
        "    values.push_back(VK_FALSE);",
        r"^LightCull\.BallotCutsListAtomicsByHalf",
    ),
    "exposure-table-forgets-arithmetic": (
        "src/passes/pass_table.cpp",
        "     .ops = bit(Op::basic) | bit(Op::arithmetic),\n",
        "     .ops = bit(Op::basic),\n",
        r"^SubgroupSwitch\.TheSwitchDeclaresOnlyTheOperationsItsPassAsksFor",
    ),
    # The compute rasterizer and the meshlet cull switched (docs/architecture.md, "Shader variants"):
    # a subgroup path broken on one side of USE_SUBGROUP only (the split's stride, the meshlet path's
    # visible-triangle count, the mesh and task shaders' counts), the task stage's needs without the
    # arithmetic its switch declares, and the raster view built from the switched source unfrozen.
    "raster-switch-split-strides-past-the-subgroup": (
        "shaders/raster.comp",
        "        raster_triangle(shared_setup, gl_SubgroupInvocationID, gl_SubgroupSize, kSplit);\n",
        "        raster_triangle(shared_setup, gl_SubgroupInvocationID, gl_SubgroupSize + 1u, kSplit);\n",
        r"^SubgroupSwitch\.EachSwitched",
    ),
    "meshlet-raster-switch-counts-inclusive": (
        "shaders/meshlet_raster.glsl",
        "        n = subgroupBallotBitCount(subgroupBallot(visible));  // one atomic per subgroup\n",
        "        n = subgroupBallotInclusiveBitCount(subgroupBallot(visible));  // one atomic per subgroup\n",
        r"^SubgroupSwitch\.EachSwitched",
    ),
    "meshlet-mesh-switch-counts-inclusive": (
        "shaders/meshlet_cull.mesh",
        "        kept_by_subgroup += subgroupBallotBitCount(subgroupBallot(keep[k]));\n",
        "        kept_by_subgroup += subgroupBallotInclusiveBitCount(subgroupBallot(keep[k]));\n",
        r"^SubgroupSwitch\.EachSwitched",
    ),
    "meshlet-task-switch-counts-inclusive": (
        "shaders/meshlet_chunk_cull.glsl",
        "    uint tested_here = subgroupBallotBitCount(subgroupBallot(in_range));\n",
        "    uint tested_here = subgroupBallotInclusiveBitCount(subgroupBallot(in_range));\n",
        r"^SubgroupSwitch\.EachSwitched|^MeshletRasterCompute\.",
    ),
    "meshlet-task-needs-forget-arithmetic": (
        "src/plan/plan.cpp",
        "    return {{{Stage::task, ops}, {Stage::mesh, ops}}};",
        "    return {{{Stage::task, bit(Op::basic) | bit(Op::ballot)}, {Stage::mesh, ops}}};",
        r"^SubgroupSwitch\.TheSwitchDeclaresOnlyTheOperationsItsPassAsksFor",
    ),
    "meshlet-off-pipeline-without-cull-off": (
        "src/passes/meshlet_pass.cpp",
        "        d.specialization = ids.specialization = {v == Variant::off ? 1u : 0u};  // CULL_OFF (meshlet_push.glsl)\n",
        "        d.specialization = ids.specialization = {0u};  // CULL_OFF (meshlet_push.glsl)\n",
        r"^MeshletGpu\.DrawsTheIndexedImageAndExactlyTheTrianglesTheCullPassKeeps",
    ),
    "raster-view-built-unfrozen": (
        "shaders/variants.cmake",
        "sgd_switch_shader(raster.comp NAME view TWIN_ONLY VIEW=1)\n",
        "sgd_shader(raster.comp view_no_subgroup VIEW=1)\n",
        r"^SubgroupSwitch\.TwinsWithoutASwitchHaveNoSubgroupOperations",
    ),
    "scene-error-exits-as-runtime": (
        "src/main.cpp",
        "    if (dynamic_cast<const SceneError*>(&e)) return kBadScene;",
        "    if (dynamic_cast<const SceneError*>(&e)) return kRuntime;",
        r"^Cli\.MissingOrMalformedSceneExits3",
    ),
    "storage-buffers-all-at-the-first-binding": (
        "src/vk/resources.cpp",
        "    for (const Buffer& b : list) buffer(first++, b);",
        "    for (const Buffer& b : list) buffer(first, b);",
        r"^CullGpu\.RealScenesMatchTheCpuReferenceAndDrawTheSameImageAsNoCulling",
    ),
    "pyramid-fallback-workgroup-covers-8-columns": (
        "shaders/pyramid.comp",
        "ivec2(gl_LocalInvocationIndex % 16u, gl_LocalInvocationIndex / 16u)",
        "ivec2(gl_LocalInvocationIndex % 8u, gl_LocalInvocationIndex / 16u)",
        r"^PyramidCompute\.",
    ),
}


def build(build_dir):
    # One job per core (ninja would run cores + 2).
    subprocess.run(["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 1)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)


def run_tests(build_dir, regex):
    """True when every selected test passed (GPU tests at 4 and 8 lanes); none selected stops the tool."""
    # GPU tests at 4 and 8 lanes (not .sg16, where lavapipe cannot draw); unit tests have no suffix.
    select = ["-R", f"({regex})", "-E", r"\.sg16$"]
    listed = subprocess.run(["ctest", "--test-dir", str(build_dir), "-N", *select], capture_output=True, text=True)
    if "Total Tests: 0" in listed.stdout:
        sys.exit(f"no test matches {regex}")
    r = subprocess.run(["ctest", "--test-dir", str(build_dir), *select, "-j2", "--output-on-failure"],
                       capture_output=True, text=True)
    failed = [l for l in r.stdout.splitlines() if "***Failed" in l or "Exception" in l or "***Timeout" in l]
    for line in failed:
        print("   ", line.strip())
    return r.returncode == 0


def run_mutant(name, build_dir):
    path, find, replace, regex = MUTANTS[name]
    file = ROOT / path
    original = file.read_text()
    if original.count(find) != 1:
        sys.exit(f"{name}: the text to mutate occurs {original.count(find)} times in {path}, not once")
    print(f"{name}: {path}; tests {regex}")
    try:
        file.write_text(original.replace(find, replace))
        build(build_dir)
        passed = run_tests(build_dir, regex)
    finally:
        file.write_text(original)
    print(f"  {'SURVIVED' if passed else 'KILLED'}")
    return not passed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["list", "check", "run"])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    if args.command == "list":
        for name, (path, _, _, regex) in MUTANTS.items():
            print(f"{name:45} {path:35} {regex}")
        return 0
    if args.command == "check":
        # Every mutant still applies: its text occurs exactly once in its file. A refactor that moves
        # the text would otherwise leave a mutant that silently stops the run (ctest Tools.*).
        stale = []
        for name, (path, find, _, _) in MUTANTS.items():
            file = ROOT / path
            count = file.read_text().count(find) if file.exists() else 0
            if count != 1:
                stale.append(f"{name}: its text occurs {count} times in {path}, not once")
        for line in stale:
            print(line)
        print(f"{len(MUTANTS) - len(stale)} of {len(MUTANTS)} mutants apply")
        return 1 if stale else 0
    names = args.names or list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        sys.exit(f"unknown mutant(s): {', '.join(unknown)} (tools/mutants.py list)")
    build_dir = (ROOT / args.build).resolve()
    survivors = [n for n in names if not run_mutant(n, build_dir)]
    build(build_dir)  # the unmutated tree again
    print(f"{len(names) - len(survivors)} of {len(names)} killed" + (f"; survived: {', '.join(survivors)}" if survivors else ""))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
