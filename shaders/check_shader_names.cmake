# Build-time check (shaders/CMakeLists.txt): every shader name that a C++ source spells as a string
# literal, "SOURCE.STAGE.VARIANT", is one the build compiles. A misspelt or removed variant then fails
# the build instead of a run. Names the code composes at run time (the views' "view.<stage>" + kind,
# the mip experiments' prefix ending in '_') are not literals of that form and are left to the tests.
# -DNAMES_FILE: the built names, one per line; -DSOURCES_FILE: the C++ files to scan; -DSHADER_DIR:
# build/shaders; -DSTAMP: output.
file(STRINGS ${NAMES_FILE} built)
file(STRINGS ${SOURCES_FILE} sources)
set(missing "")
foreach(source ${sources})
  file(READ ${source} text)
  string(REGEX MATCHALL "\"[a-z_]+\\.(vert|frag|comp|tesc|tese|geom|task|mesh|rgen|rahit|rchit|rmiss|rint|rcall)\\.[a-z0-9_]*\"" literals "${text}")
  foreach(literal ${literals})
    string(REPLACE "\"" "" name ${literal})
    if(name MATCHES "[_.]$")
      continue()  # a prefix completed at run time ("mipx_", "meshlet_cull.task.")
    endif()
    list(FIND built ${name} found)
    if(found EQUAL -1)
      list(APPEND missing "${source}: ${name}")
    endif()
  endforeach()
endforeach()
if(missing)
  list(JOIN missing "\n  " lines)
  message(FATAL_ERROR "shader names used in C++ but not built by shaders/variants.cmake:\n  ${lines}")
endif()
# SPIR-V a removed variant left in the build directory goes too: a test that still loads it then
# fails here as it does on a clean clone, not only there.
file(GLOB present RELATIVE ${SHADER_DIR} ${SHADER_DIR}/*.spv)
foreach(file ${present})
  string(REGEX REPLACE "\\.spv$" "" name ${file})
  list(FIND built ${name} found)
  if(found EQUAL -1)
    message(STATUS "removing ${file}: no variant builds it any more")
    file(REMOVE ${SHADER_DIR}/${file} ${SHADER_DIR}/${file}.d)
  endif()
endforeach()
file(WRITE ${STAMP} "ok\n")
