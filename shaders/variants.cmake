# One line per SPIR-V output: sgd_shader(SOURCE VARIANT [DEFINES...]).
# The renderer loads them by "SOURCE.VARIANT" (see shader_path() in src/vk/resources.cpp).

# Scene draws: depth pre-pass and forward shading.
sgd_shader(scene.vert depth DEPTH_ONLY=1)
sgd_shader(scene.vert forward)
sgd_shader(forward.frag plain)

# Triangle culling (src/passes/cull_pass.cpp): subgroup scan and shared-memory fallback, and
# the step that totals the survivors for the report.
sgd_shader(cull.comp subgroup CULL_SUBGROUP=1)
sgd_shader(cull.comp fallback)
sgd_shader(cull_count.comp plain)
