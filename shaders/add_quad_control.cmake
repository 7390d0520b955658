# cmake -DSPIRV_AS=.. -DSPIRV_DIS=.. -DINPUT=in.spv -DOUTPUT=out.spv -DTARGET_ENV=vulkan1.2 -P add_quad_control.cmake
# Adds to a fragment shader module (see quad_control.cmake):
#   OpCapability QuadControlKHR (5087)
#   OpExtension "SPV_KHR_quad_control", OpExtension "SPV_KHR_maximal_reconvergence"
#   OpExecutionMode %main RequireFullQuadsKHR (5089), OpExecutionMode %main MaximallyReconvergesKHR (6023)
execute_process(COMMAND ${SPIRV_DIS} --raw-id --no-header ${INPUT} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spirv-dis ${INPUT} failed")
endif()

# Capabilities come first in a module; any position among them will do.
string(REPLACE "OpCapability Shader\n" "OpCapability Shader\nOpCapability !5087\n" patched "${text}")
# Extensions go after all capabilities and before the first OpExtInstImport (or OpMemoryModel).
string(FIND "${patched}" "OpExtInstImport" anchor)
if(anchor EQUAL -1)
  string(FIND "${patched}" "OpMemoryModel" anchor)
endif()
string(SUBSTRING "${patched}" 0 ${anchor} head)
string(FIND "${head}" "\n" line_start REVERSE)
math(EXPR line_start "${line_start} + 1")
string(SUBSTRING "${patched}" 0 ${line_start} head)
string(SUBSTRING "${patched}" ${line_start} -1 tail)
set(patched "${head}OpExtension \"SPV_KHR_quad_control\"\nOpExtension \"SPV_KHR_maximal_reconvergence\"\n${tail}")
# Execution modes: next to the fragment entry point's OriginUpperLeft.
string(REGEX REPLACE "OpExecutionMode (%[0-9]+) OriginUpperLeft\n"
       "OpExecutionMode \\1 OriginUpperLeft\nOpExecutionMode \\1 !5089\nOpExecutionMode \\1 !6023\n" patched "${patched}")

foreach(expected "OpCapability !5087" "SPV_KHR_quad_control" "OpExecutionMode %[0-9]+ !5089" "OpExecutionMode %[0-9]+ !6023")
  if(NOT patched MATCHES "${expected}")
    message(FATAL_ERROR "add_quad_control: ${INPUT} has no place for '${expected}' (not a fragment shader?)")
  endif()
endforeach()

file(WRITE ${OUTPUT}.spvasm "${patched}")
execute_process(COMMAND ${SPIRV_AS} --target-env ${TARGET_ENV} ${OUTPUT}.spvasm -o ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spirv-as ${OUTPUT}.spvasm failed")
endif()
