# clreduce's package tests: the consumer project (this folder) against clreduce.
#   cmake -DBUILD=<clreduce's build> -DSOURCE=<clreduce's source> -DWORK=<folder> -P consume.cmake
#     installs BUILD into WORK/prefix, checks that it holds the headers of include/clreduce/
#     and none of the private src/detail/, then configures, builds and runs the consumer with
#     find_package(clreduce) from there; the build compiles each installed header alone.
#   cmake -DSOURCE=<clreduce's source> -DWORK=<folder> -P consume.cmake
#     configures the consumer with clreduce's source through add_subdirectory; building it
#     would compile the whole library again, which CI spares.

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${status}): ${command}")
  endif()
endfunction()

set(consumer "${CMAKE_CURRENT_LIST_DIR}")
file(REMOVE_RECURSE "${WORK}")
# The installed headers are the facade, include/clreduce/, and nothing of src/detail/.
function(check_installed_headers include_dir)
  file(GLOB_RECURSE installed RELATIVE "${include_dir}" "${include_dir}/*")
  file(GLOB public RELATIVE "${SOURCE}/include" "${SOURCE}/include/clreduce/*.hpp")
  file(GLOB private RELATIVE "${SOURCE}/src/detail" "${SOURCE}/src/detail/*.hpp")
  foreach(header IN LISTS private)
    if(EXISTS "${include_dir}/clreduce/${header}" OR EXISTS "${include_dir}/detail/${header}")
      message(FATAL_ERROR "the private header ${header} (src/detail/) is installed")
    endif()
  endforeach()
  list(SORT installed)
  list(SORT public)
  if(NOT installed STREQUAL public)
    message(FATAL_ERROR "installed headers: ${installed}\nnot include/clreduce/'s: ${public}")
  endif()
endfunction()

if(BUILD)
  run("${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix")
  check_installed_headers("${WORK}/prefix/include")
  run("${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK}/build" "-DCMAKE_PREFIX_PATH=${WORK}/prefix")
  run("${CMAKE_COMMAND}" --build "${WORK}/build")
  run("${WORK}/build/consumer")
else()
  run("${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK}/build" "-DCLREDUCE_SOURCE_DIR=${SOURCE}")
endif()
