#pragma once
// The engine's programs, built once per context, device, text and options (the program cache
// in reducer.hpp) and their kernels: shared by the Reducer and ExactSum. Not installed.

#include <CL/opencl.hpp>
#include <string>

namespace clreduce {

/// The program for `source` built with `options`, from the program cache or built now.
/// Throws Error(Errc::kernel_build) with the build log when the compiler rejects it.
cl::Program cached_program(const cl::Context& context, const cl::Device& device,
                           const std::string& source, const std::string& options);

/// The program's kernel `name`; throws Error(Errc::kernel_build) when the built program has
/// none (a compiler that took an unknown built-in as an external function).
cl::Kernel program_kernel(const cl::Device& device, const cl::Program& program,
                          const std::string& name);

} // namespace clreduce
