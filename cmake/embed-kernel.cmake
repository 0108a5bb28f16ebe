# Writes OUTPUT, a C++ source that defines clreduce::FUNCTION() as the text of KERNEL, so that
# a program linked with the library needs no kernel file. Run at build time:
#   cmake -DKERNEL=kernels/reduce.cl -DFUNCTION=embedded_kernel_source
#         -DOUTPUT=embedded_kernel.cpp -P embed-kernel.cmake
#
# The text is a char array of its bytes, not a string literal: compilers cap the length of
# string literals (MSVC at 16 KiB a piece), and the kernel's text needs no escaping this way.

file(READ "${KERNEL}" hex HEX)
# 16 bytes a line, each as a character literal: '\x2f','\x2f',...
string(REPEAT "[0-9a-f]" 32 line_of_hex)
string(REGEX REPLACE "(${line_of_hex})" "\\1\n" lines "${hex}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${lines}")
get_filename_component(name "${KERNEL}" NAME)

file(WRITE "${OUTPUT}" "// Generated from ${name} by embed-kernel.cmake at build time: do not edit.

#include \"detail/source.hpp\"

namespace clreduce {
namespace {

// ${name}'s bytes, then a zero that ends them (and keeps the array from being empty).
constexpr char kernel_text[] = {
${bytes}'\\0'};

} // namespace

std::string_view ${FUNCTION}() {
    return {kernel_text, sizeof kernel_text - 1};
}

} // namespace clreduce
")
