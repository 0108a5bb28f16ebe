# Whether the README's example, the cpp block of the section whose title says "your program",
# is test/consumer/main.cpp character for character: the package tests build and run that file,
# so they prove the example compiles and runs as printed.
#   cmake -DREADME=<README.md> -DEXAMPLE=<main.cpp> -P readme-example.cmake

file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(REGEX MATCH "\n#+ [^\n]*your program[^\n]*\n" heading "${readme}")
if(NOT heading)
  message(FATAL_ERROR "${README} has no section whose title says \"your program\"")
endif()
string(FIND "${readme}" "${heading}" at)
string(SUBSTRING "${readme}" ${at} -1 section)
set(fence "```cpp\n")
string(FIND "${section}" "${fence}" open)
if(open EQUAL -1)
  message(FATAL_ERROR "the section '${heading}' has no cpp block")
endif()
string(LENGTH "${fence}" fence_length)
math(EXPR begin "${open} + ${fence_length}")
string(SUBSTRING "${section}" ${begin} -1 section)
string(FIND "${section}" "```\n" close)
string(SUBSTRING "${section}" 0 ${close} block)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "the README's example differs from ${EXAMPLE}: copy one onto the other")
endif()
