# Build helpers of the quad mip (docs/quad-mip.md), kept out of the shared sgd_shader().
find_program(SGD_SPIRV_AS spirv-as REQUIRED)
find_program(SGD_SPIRV_DIS spirv-dis REQUIRED)

# sgd_shader_full_quads(NAME): build/shaders/NAME.spv -> build/shaders/NAME_full_quads.spv, the same
# SPIR-V with the execution modes of VK_KHR_shader_quad_control and VK_KHR_shader_maximal_reconvergence
# added: RequireFullQuadsKHR (every quad starts with four invocations, helpers included) and
# MaximallyReconvergesKHR (lanes that diverged rejoin where the source says, so the quad swaps after
# shade()'s branches see the whole quad). The renderer uses it where the device has both extensions
# (DeviceFeatures::quad_control_enabled). glslc 2023.2 cannot spell these (GL_EXT_shader_quad_control,
# GL_EXT_maximal_reconvergence are newer), so add_quad_control.cmake edits the disassembly and
# reassembles it, writing the new enumerants as numbers (spirv-as "!N" literals).
function(sgd_shader_full_quads name)
  set(input ${SGD_SHADER_DIR}/${name}.spv)
  set(output ${SGD_SHADER_DIR}/${name}_full_quads.spv)
  set(script ${CMAKE_CURRENT_SOURCE_DIR}/add_quad_control.cmake)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DSPIRV_AS=${SGD_SPIRV_AS} -DSPIRV_DIS=${SGD_SPIRV_DIS} -DINPUT=${input}
            -DOUTPUT=${output} -DTARGET_ENV=vulkan1.2 -P ${script}
    DEPENDS ${input} ${script}
    COMMENT "SPIR-V ${name} + RequireFullQuadsKHR, MaximallyReconvergesKHR"
    VERBATIM)
  set(outputs ${output})
  if(name MATCHES "^forward\\.frag\\.(quad_mip|quad_mip_light_loop)$")
    # The .layers twin (shaders/CMakeLists.txt) of the shipped quad mip variants.
    add_custom_command(
      OUTPUT ${SGD_SHADER_DIR}/${name}_full_quads.layers.spv
      COMMAND ${CMAKE_COMMAND} -DSPIRV_AS=${SGD_SPIRV_AS} -DSPIRV_DIS=${SGD_SPIRV_DIS} -DINPUT=${SGD_SHADER_DIR}/${name}.layers.spv
              -DOUTPUT=${SGD_SHADER_DIR}/${name}_full_quads.layers.spv -DTARGET_ENV=vulkan1.2 -P ${script}
      DEPENDS ${SGD_SHADER_DIR}/${name}.layers.spv ${script}
      COMMENT "SPIR-V ${name} (texture layers) + RequireFullQuadsKHR, MaximallyReconvergesKHR"
      VERBATIM)
    list(APPEND outputs ${SGD_SHADER_DIR}/${name}_full_quads.layers.spv)
  endif()
  set(SGD_SPIRV_OUTPUTS ${SGD_SPIRV_OUTPUTS} ${outputs} PARENT_SCOPE)
endfunction()
