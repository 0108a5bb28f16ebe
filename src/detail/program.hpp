#pragma once
// Built programs and their kernels, as the Reducer, the SegmentedReducer, ExactSum and the
// stream read take them: through the program cache (clear_program_cache() in reducer.hpp).

#include <CL/opencl.hpp>
#include <string>

namespace clreduce {

/// The program built from `source` with `options` for `device`: taken from the program cache,
/// or compiled now (blocking) and kept there. Throws Error(Errc::kernel_build) with the build
/// log when the compiler rejects it.
cl::Program cached_program(const cl::Context& context, const cl::Device& device,
                           const std::string& source, const std::string& options);

/// The program's kernel `name`; throws Error(Errc::kernel_build) when the built program has
/// none (a compiler that took an unknown built-in as an external function).
cl::Kernel program_kernel(const cl::Device& device, const cl::Program& program,
                          const std::string& name);

/// Sets `kernel`'s arguments from index `first` on to `args`, in order; returns the index after
/// the last.
template <typename... Args>
cl_uint set_args(cl::Kernel& kernel, cl_uint first, const Args&... args) {
    (kernel.setArg(first++, args), ...);
    return first;
}

} // namespace clreduce
