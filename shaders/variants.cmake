# One line per SPIR-V output: sgd_shader(SOURCE VARIANT [DEFINES...]).
# The renderer loads them by "SOURCE.VARIANT" (see shader_path() in src/vk/resources.cpp).

# Scene draws: depth pre-pass and forward shading.
sgd_shader(scene.vert depth DEPTH_ONLY=1)
sgd_shader(scene.vert forward)
sgd_shader(forward.frag plain)

# Screen-space overlay: legends, markings, HUD.
sgd_shader(overlay.vert main)
sgd_shader(overlay.frag main)

# Tests: a probe that GPU-assisted validation must catch writing past its binding.
sgd_shader(robust_probe.comp main)
