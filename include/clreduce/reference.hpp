#pragma once
// The host side of the check: the random input and the reference result.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace clreduce {

/// The largest magnitude of the random values of a floating-point sum.
constexpr int largest_random_addend = 8;

/// Pseudo-random values of `type` to reduce with `op`: integers over the type's whole range;
/// for a floating-point sum, nonzero integers in [-8, 8] (largest_random_addend), whose every
/// partial sum is exact in any order (docs/validation.md, "Floating point"); for floating-point min
/// and max, uniform in [-1, 1). Value i depends only on (seed, i): a longer input with the same
/// seed starts with the shorter one, and filling runs in parallel.
HostValues random_values(DataType type, Op op, std::uint64_t length, std::uint64_t seed);

/// The same values, random_values(type, op, first + length, seed)'s last `length`, written to
/// `data` (memory the caller owns, such as pinned memory for streaming).
void fill_random(DataType type, Op op, void* data, std::uint64_t first, std::uint64_t length,
                 std::uint64_t seed);

/// op's identity for T: op(identity, x) == x for every x.
template <typename T>
T identity_of(Op op) {
    if (op == Op::sum)
        return T{0};
    if constexpr (std::is_floating_point_v<T>)
        return op == Op::min ? std::numeric_limits<T>::infinity()
                             : -std::numeric_limits<T>::infinity();
    return op == Op::min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

/// op(a, b) on the host as the kernel computes it: integer sums wrap around (computed
/// unsigned), and floating-point min and max ignore a NaN as OpenCL C's fmin and fmax do.
template <typename T>
T combine(Op op, T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (op == Op::sum)
            return a + b;
        return op == Op::min ? std::fmin(a, b) : std::fmax(a, b);
    } else {
        if (op == Op::sum)
            return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                                  static_cast<std::make_unsigned_t<T>>(b));
        return op == Op::min ? std::min(a, b) : std::max(a, b);
    }
}

/// The host's result for the first `length` values, how it was computed, and for a
/// floating-point sum what the check of the device's result needs to know of the values.
struct Reference {
    Scalar value;
    std::string method; // host_reduce_method()
    // Floating-point sums only, over the finite values (NaN and infinities left out):
    double magnitude = 0; // the sum of their magnitudes, which scales the rounding error
    double grain = 0;     // the largest power of two dividing each of them (+inf: all zero)
};

/// Integers and every min and max exactly. Floating-point sums compensated (Neumaier) in
/// double, in chunks run in parallel: within well under one unit in the last place of the
/// exact sum, rounded once to the type. A NaN or an infinity in the input gives what IEEE
/// addition gives: NaN for a NaN or for both infinities, else the infinity.
Reference host_reduce(Op op, const ValuesView& values, std::uint64_t length);
Reference host_reduce(Op op, const HostValues& values, std::uint64_t length);

/// The same over the concatenation of `spans`, all of `type` (their origin plays no part).
Reference host_reduce(Op op, DataType type, const std::vector<ValuesView>& spans);

/// How host_reduce computes `op` of `type` here, e.g. "std::reduce(par_unseq), TBB backend".
std::string host_reduce_method(Op op, DataType type);

/// Whether a result equals the reference exactly: NaN equals NaN, and +0 equals -0 (for a
/// sum as for min and max, which zero comes out is left to the device: docs/validation.md).
bool same_value(const Scalar& a, const Scalar& b);

} // namespace clreduce
