#pragma once
// A built program's kernels, as the Reducer and ExactSum take them (the programs themselves
// come from cached_program() in reducer.hpp). Not installed.

#include <CL/opencl.hpp>
#include <string>

namespace clreduce {

/// The program's kernel `name`; throws Error(Errc::kernel_build) when the built program has
/// none (a compiler that took an unknown built-in as an external function).
cl::Kernel program_kernel(const cl::Device& device, const cl::Program& program,
                          const std::string& name);

} // namespace clreduce
