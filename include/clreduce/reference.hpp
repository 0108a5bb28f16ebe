#pragma once
// The host side of the check: the random input and the reference result.

#include "clreduce/kinds.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace clreduce {

/// Pseudo-random ints over the whole int32 range. Value i depends only on (seed, i): a
/// longer input with the same seed starts with the shorter one, and filling runs in parallel.
std::vector<cl_int> random_values(std::uint64_t length, std::uint64_t seed);

/// op(a, b) on the host, the sum wrapping around in 32 bits like the kernel's.
cl_int combine(Op op, cl_int a, cl_int b);

/// The reference result of the first `length` values, with std::reduce(par_unseq).
cl_int host_reduce(Op op, const cl_int* values, std::uint64_t length);

/// How host_reduce runs here, e.g. "std::reduce(par_unseq), TBB backend".
std::string host_reduce_description();

} // namespace clreduce
