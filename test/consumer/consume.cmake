# clreduce's package tests: the consumer project (this folder) against clreduce.
#   cmake -DBUILD=<clreduce's build> -DWORK=<folder> -P consume.cmake
#     installs BUILD into WORK/prefix, then configures, builds and runs the consumer with
#     find_package(clreduce) from there.
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
if(BUILD)
  run("${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix")
  run("${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK}/build" "-DCMAKE_PREFIX_PATH=${WORK}/prefix")
  run("${CMAKE_COMMAND}" --build "${WORK}/build")
  run("${WORK}/build/consumer")
else()
  run("${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK}/build" "-DCLREDUCE_SOURCE_DIR=${SOURCE}")
endif()
