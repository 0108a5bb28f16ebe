# The engine (include/clreduce/, src/detail/, src/*.cpp) knows nothing of the command-line tool: no tool
# header, no Options, no exit codes, no TCLAP, nothing printed to the standard streams.
# Run with -DSOURCE=<clreduce's source folder>; fails naming each file and what it uses.
file(GLOB engine_files "${SOURCE}/include/clreduce/*.hpp" "${SOURCE}/src/detail/*.hpp"
                       "${SOURCE}/src/*.cpp")
set(tool_words "\"tool/" "[^_A-Za-z]Options[^_A-Za-z]" "ExitCode" "Failure" "tclap"
               "std::cout" "std::cerr")
set(found "")
foreach(file IN LISTS engine_files)
  file(READ "${file}" text)
  foreach(word IN LISTS tool_words)
    if(text MATCHES "${word}")
      string(APPEND found "\n  ${file}: ${CMAKE_MATCH_0}")
    endif()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "the engine uses the tool's:${found}")
endif()
