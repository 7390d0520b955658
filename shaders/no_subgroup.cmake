# The fallback twin of a switched shader (shaders/subgroup_switch.glsl): NAME.switch.spv with
# USE_SUBGROUP (constant 100) frozen to false, its other specialization constants left as they are,
# and the code it no longer reaches removed (spirv-opt),
# then every subgroup capability dropped, for devices or stages without the subgroup branch's
# operations. Fails if the fallback branch itself still holds a subgroup instruction or built-in.
# -DIN, -DOUT: SPIR-V files; -DENV: the --target-env; -DSPIRV_OPT, -DSPIRV_DIS, -DSPIRV_AS, -DSPIRV_VAL.
# Only USE_SUBGROUP becomes a constant: spirv-opt's --freeze-spec-const would freeze every
# specialization constant, a workgroup size set at pipeline creation (cull.comp's local_size_x_id)
# among them. So its OpSpecConstantFalse/True turns into OpConstantFalse and its SpecId goes, in the
# text, and spirv-opt -O then folds the branches on it and removes the code they no longer reach.
execute_process(COMMAND ${SPIRV_DIS} --raw-id ${IN} OUTPUT_VARIABLE text RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "spirv-dis failed on ${IN}")
endif()
string(REGEX MATCH "OpDecorate (%[0-9]+) SpecId 100\n" decoration "${text}")
if(NOT decoration)
  message(FATAL_ERROR "${IN} has no USE_SUBGROUP (SpecId 100); include subgroup_switch.glsl and branch on it")
endif()
set(id ${CMAKE_MATCH_1})
string(REPLACE "${decoration}" "" text "${text}")
string(REGEX REPLACE "${id} = OpSpecConstant(False|True) " "${id} = OpConstantFalse " text "${text}")
set(frozen ${OUT}.frozen)
file(WRITE ${frozen}.spvasm "${text}")
execute_process(COMMAND ${SPIRV_AS} --target-env ${ENV} --preserve-numeric-ids ${frozen}.spvasm -o ${frozen}
                RESULT_VARIABLE failed)
file(REMOVE ${frozen}.spvasm)
if(failed)
  message(FATAL_ERROR "spirv-as could not assemble ${IN} with USE_SUBGROUP false")
endif()
execute_process(COMMAND ${SPIRV_OPT} --target-env=${ENV} -O ${frozen} -o ${frozen} RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "spirv-opt could not fold USE_SUBGROUP in ${IN}")
endif()
execute_process(COMMAND ${SPIRV_DIS} --raw-id ${frozen} OUTPUT_VARIABLE text RESULT_VARIABLE failed)
file(REMOVE ${frozen})
if(failed)
  message(FATAL_ERROR "spirv-dis failed on ${frozen}")
endif()
string(REGEX REPLACE "[ \t]*OpCapability (GroupNonUniform[A-Za-z]*|SubgroupBallotKHR|SubgroupVoteKHR)\n" "" text "${text}")
string(REGEX MATCH "OpGroupNonUniform[A-Za-z]*|OpSubgroup[A-Za-z]*|BuiltIn (Subgroup|NumSubgroups)[A-Za-z]*" left "${text}")
if(left)
  message(FATAL_ERROR "${IN}: with USE_SUBGROUP false the shader still uses ${left}; "
                      "put every subgroup operation under `if (USE_SUBGROUP)`")
endif()
file(WRITE ${OUT}.spvasm "${text}")
execute_process(COMMAND ${SPIRV_AS} --target-env ${ENV} --preserve-numeric-ids ${OUT}.spvasm -o ${OUT}
                RESULT_VARIABLE failed)
file(REMOVE ${OUT}.spvasm)
if(failed)
  message(FATAL_ERROR "spirv-as could not assemble the fallback twin of ${IN}")
endif()
execute_process(COMMAND ${SPIRV_VAL} --target-env ${ENV} ${OUT} RESULT_VARIABLE failed)
if(failed)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "the fallback twin of ${IN} is not valid SPIR-V")
endif()
