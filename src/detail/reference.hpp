#pragma once
// The host side of the check: the random input and the reference result.

#include "clreduce/kinds.hpp"
#include "clreduce/ops.hpp"
#include "clreduce/types.hpp"
#include "detail/segment_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace clreduce {

/// The largest magnitude of the random values of a floating-point sum.
constexpr int largest_random_addend = 8;

/// Pseudo-random values of `type` to reduce with `op`: integers over the type's whole range
/// (odd ones for a product, which would otherwise soon be 0); for a floating-point sum (and a
/// user's op), nonzero integers in [-8, 8] (largest_random_addend), whose every partial sum is
/// exact in any order (docs/validation.md, "Floating point"); for a floating-point product, -1
/// and 1, whose every partial product is exact; else uniform in [-1, 1). Value i depends only
/// on (seed, i): a longer input with the same seed starts with the shorter one, and filling
/// runs in parallel.
HostValues random_values(DataType type, Op op, std::uint64_t length, std::uint64_t seed);

/// The same values, random_values(type, op, first + length, seed)'s last `length`, written to
/// `data` (memory the caller owns, such as pinned memory for streaming).
void fill_random(DataType type, Op op, void* data, std::uint64_t first, std::uint64_t length,
                 std::uint64_t seed);

/// op's identity for the accumulator T: op(identity, x) == x for every x (and for nanmin and
/// nanmax every x but NaN, which the identity NaN leaves to an input of NaNs only).
template <typename T>
T identity_of(Op op) {
    using limits = std::numeric_limits<T>;
    switch (info(op).identity) {
    case Identity::zero:
        return T{0};
    case Identity::one:
        return T{1};
    case Identity::highest:
        return limits::has_infinity ? limits::infinity() : limits::max();
    case Identity::lowest:
        return limits::has_infinity ? -limits::infinity() : limits::lowest();
    case Identity::highest_or_nan:
        return limits::has_quiet_NaN ? limits::quiet_NaN() : limits::max();
    case Identity::lowest_or_nan:
        break;
    }
    return limits::has_quiet_NaN ? limits::quiet_NaN() : limits::lowest();
}

/// op(a, b) on the host as the kernel computes it (the host twin of the op's row): integer
/// sums and products wrap around (computed unsigned); floating-point min and max propagate
/// NaN, nanmin and nanmax ignore it as OpenCL C's fmin and fmax do.
template <typename T>
T combine(Op op, T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        const bool nan = std::isnan(a) || std::isnan(b);
        switch (op) {
        case Op::sum:
            return a + b;
        case Op::prod:
            return a * b;
        case Op::min:
        case Op::argmin: // on the pairs' values: combine_indexed()
            return nan ? a + b : std::fmin(a, b);
        case Op::max:
        case Op::argmax:
            return nan ? a + b : std::fmax(a, b);
        case Op::nanmin:
            return std::fmin(a, b);
        case Op::nanmax:
            return std::fmax(a, b);
        case Op::any:
        case Op::all:
        case Op::custom:
            break;
        }
        return a; // any and all accumulate in uint32; custom has no host twin
    } else {
        using Unsigned = std::make_unsigned_t<T>;
        const auto wrapped_product = static_cast<Unsigned>(
            static_cast<std::uint64_t>(static_cast<Unsigned>(a)) * static_cast<Unsigned>(b));
        switch (op) {
        case Op::sum:
            return static_cast<T>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b));
        case Op::prod:
            return static_cast<T>(wrapped_product);
        case Op::min:
        case Op::nanmin:
        case Op::argmin: // on the pairs' values: combine_indexed()
            return std::min(a, b);
        case Op::max:
        case Op::nanmax:
        case Op::argmax:
            return std::max(a, b);
        case Op::any:
            return a | b;
        case Op::all:
        case Op::custom: // no host twin: host_reduce refuses it
            break;
        }
        return a & b;
    }
}

/// argmin's and argmax's pair, laid out as the kernel's accum_t (partial_size() in ops.hpp):
/// a value of the accumulator and its index in the whole input.
template <typename A>
struct IndexedValue {
    A value;
    std::int64_t index;
};

/// The pair that argmin or argmax (`op`) keeps of a and b, as the kernel's op(): the first
/// NaN, else the least (argmin) or greatest (argmax) value, and of equal values (-0 and +0
/// among them) the first index: np.argmin's and np.argmax's answer in any order.
template <typename A>
IndexedValue<A> combine_indexed(Op op, IndexedValue<A> a, IndexedValue<A> b) {
    const auto nan = [](A x) { return std::isnan(static_cast<double>(x)); };
    const bool earlier = b.index < a.index;
    bool b_wins;
    if (nan(a.value) || nan(b.value))
        b_wins = nan(b.value) && (!nan(a.value) || earlier);
    else
        b_wins = (op == Op::argmin ? b.value < a.value : b.value > a.value) ||
                 (b.value == a.value && earlier);
    return b_wins ? b : a;
}

/// The pair that no value loses to: the op's identity and an index past every input's.
template <typename A>
IndexedValue<A> indexed_identity(Op op) {
    return {identity_of<A>(op), std::numeric_limits<std::int64_t>::max()};
}

/// The map that `op` applies before `map`'s place: any and all's x != 0 (they take no other),
/// else `map`. Looked up once per reduction, not per value (to_accumulator()).
inline HostMap map_of(Op op, HostMap map) {
    return info(op).map ? HostMap::nonzero : map;
}

/// A value of the host type In as the accumulator A, as the kernel's map does: 16-bit floats
/// widened to float, the map (map_of(): the user's, or any and all's x != 0) in the value's own
/// arithmetic (an int32 or int64 square wraps around), else a conversion.
template <typename A, typename In>
A to_accumulator(In x, HostMap map = HostMap::none) {
    const auto value = [&] {
        if constexpr (std::is_same_v<In, Half> || std::is_same_v<In, BFloat16>)
            return to_float(x);
        else if constexpr (std::is_same_v<In, Boolean>)
            return static_cast<std::uint8_t>(x.byte != 0); // NumPy's True for any nonzero byte
        else
            return x;
    }();
    using V = decltype(value);
    switch (map) {
    case HostMap::square:
        if constexpr (std::is_integral_v<V> && sizeof(V) >= sizeof(int)) {
            using Unsigned = std::make_unsigned_t<V>;
            return static_cast<A>(
                static_cast<V>(static_cast<Unsigned>(value) * static_cast<Unsigned>(value)));
        } else {
            return static_cast<A>(value * value); // promoted to int: exact
        }
    case HostMap::absolute:
        return static_cast<A>(std::fabs(value));
    case HostMap::nonzero:
        return static_cast<A>(value != 0);
    case HostMap::none:
        break;
    }
    return static_cast<A>(value);
}

/// The host's result for the first `length` values, how it was computed, and for a
/// floating-point sum what the check of the device's result needs to know of the values.
struct Reference {
    Scalar value;
    std::string method; // host_reduce_method()
    // Floating-point sums only, over the finite values (NaN and infinities left out):
    double magnitude = 0; // the sum of their magnitudes, which scales the rounding error
    double grain = 0;     // the largest power of two dividing each of them (+inf: all zero)
    // Computed on the device in index order (a user's op or map): only its value is known.
    bool in_order = false;
    // argmin and argmax: the index of `value` (NumPy's np.argmin and np.argmax).
    std::optional<std::int64_t> index = std::nullopt;
};

/// The values mapped to the accumulator (accumulator_for(type, op, accumulate)), reduced:
/// integers and every op but a floating-point sum exactly, in the accumulator's arithmetic.
/// Floating-point sums exactly too where float or double values are summed unmapped in their
/// own type: the exact sum rounded once, to nearest even (exact_host_sum in exact.hpp;
/// ±infinity where it rounds past the largest value); others compensated (Neumaier) in
/// double, within well under one unit in the last place of the exact sum. A NaN or an
/// infinity in the input gives what IEEE addition gives: NaN for a NaN or for both
/// infinities, else the infinity.
/// With `map`, each value is mapped first, as map() in the kernel: the map's index must not
/// matter. Op::custom has no host twin: Error(Errc::invalid_argument).
Reference host_reduce(Op op, const ValuesView& values, std::uint64_t length,
                      std::optional<DataType> accumulate = {}, HostMap map = HostMap::none);
Reference host_reduce(Op op, const HostValues& values, std::uint64_t length,
                      std::optional<DataType> accumulate = {}, HostMap map = HostMap::none);

/// The same over the concatenation of `spans`, all of `type` (their origin plays no part).
Reference host_reduce(Op op, DataType type, const std::vector<ValuesView>& spans,
                      std::optional<DataType> accumulate = {}, HostMap map = HostMap::none);

/// host_reduce() of each CSR segment of `values`: segment s is values offsets[s] ...
/// offsets[s + 1] - 1. argmin's and argmax's index is the first within the segment (along the
/// reduced axes, for host_reduce_axes: NumPy's argmax(axis=)), no_index for an empty one.
std::vector<Reference> host_reduce_segments(Op op, const ValuesView& values,
                                            const std::vector<std::uint64_t>& offsets,
                                            std::optional<DataType> accumulate = {},
                                            HostMap map = HostMap::none);

/// host_reduce() of each result of `layout` over `values`, in the results' order (NumPy's
/// reduce along the layout's axes).
std::vector<Reference> host_reduce_axes(Op op, const ValuesView& values, const AxisLayout& layout,
                                        std::optional<DataType> accumulate = {},
                                        HostMap map = HostMap::none);

/// The same for `shape` reduced along `axes`, adjacent in memory or apart (NumPy's reduce
/// along several axes): each result over all of its values at once, whatever order the
/// device composes the axes in.
std::vector<Reference> host_reduce_axes(Op op, const ValuesView& values, const Shape& shape,
                                        const std::vector<int>& axes,
                                        std::optional<DataType> accumulate = {},
                                        HostMap map = HostMap::none);

/// reference_of(segment) for each result of `shape` (of `values`) reduced along `axes`, in the
/// results' order: `segment` holds the result's values gathered in memory order
/// (axis_offsets()), valid during the call.
std::vector<Reference>
axis_references(const ValuesView& values, const Shape& shape, const std::vector<int>& axes,
                const std::function<Reference(const ValuesView& segment)>& reference_of);

/// Copies result k's values (`offsets`: axis_offsets() of `values`' shape) to `into`, side by
/// side in memory order: offsets.reduced.size() values of `values`' type.
void gather_result(const ValuesView& values, const AxisOffsets& offsets, std::size_t k, void* into);

/// How host_reduce computes `op` of `type` here, e.g. "chunks of 65536 under
/// std::for_each(par), TBB backend".
std::string host_reduce_method(Op op, DataType type, std::optional<DataType> accumulate = {},
                               HostMap map = HostMap::none);

/// Whether a result equals the reference exactly: NaN equals NaN, and +0 equals -0 (for a
/// sum as for min and max, which zero comes out is left to the device: docs/validation.md).
bool same_value(const Scalar& a, const Scalar& b);

} // namespace clreduce
