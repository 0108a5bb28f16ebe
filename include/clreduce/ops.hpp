#pragma once
// The ops clreduce reduces with. One table row describes each op once: its name, its identity,
// its OpenCL C text for scalars and 4-vectors, the work-group built-in that computes it (if
// any), what a value becomes before it is reduced, the accumulator it forces (if any), how its
// result reads and how it is checked. The kernel's definitions (source.cpp), the host
// reference (reference.hpp), the tool and the MPI combine read the row; a user's op
// (UserOp) is a row made at run time.

#include "clreduce/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

enum class Op { sum, prod, min, max, nanmin, nanmax, argmin, argmax, any, all, custom };
constexpr std::size_t op_count = 11;

/// A user's OpenCL C, pasted into the kernel's definitions as the built-in ops' text is:
/// `reduce` over a and b (accum_t) with its `identity` makes Op::custom; `map` (over x, the
/// value, and i, its ulong index from the start of the range) transforms each value before
/// any op reduces it. Empty: not given.
struct Expressions {
    std::string reduce;
    std::string identity;
    std::string map;
};
bool operator==(const Expressions& a, const Expressions& b);

/// The identity, as a kind that each accumulator type spells in OpenCL C and in C++.
enum class Identity {
    zero,
    one,
    highest,        // the type's largest value; +infinity for floating point
    lowest,         // the type's least value; -infinity for floating point
    highest_or_nan, // nanmin: NaN for floating point, so that only NaNs give NaN
    lowest_or_nan,  // nanmax
};

/// How a result compares with the host reference.
enum class Rounding {
    none,           // exact in any order: integers, min, max, any, all
    additive,       // a floating-point sum: its roundings depend on the order
    multiplicative, // a floating-point product: likewise, relative to the result
};

struct OpInfo {
    Op op;
    const char* name; // as -o spells it
    Identity identity;
    // OpenCL C of op(a, b), for scalars and 4-vectors alike; $T is the accumulator's (vector)
    // type and $U its unsigned twin, through which integer sums and products wrap around.
    const char* integer;
    const char* floating;
    // The suffix of the work_group_/sub_group_reduce_ built-in that computes the op, and
    // whether it does for floating point too (NaN in the built-ins is left open by the spec).
    const char* builtin;
    bool builtin_for_floating;
    // OpenCL C that makes a value x (of the value type V; V4 for a vector) an accumulator
    // (A, A4); null: a conversion. The ops that force an accumulator name it.
    const char* map;
    const char* map4;
    std::optional<DataType> accumulator;
    bool boolean; // the result reads true or false
    Rounding rounding;
    // argmin and argmax reduce (value, index) pairs, `integer` and `floating` then being the
    // condition under which pair b wins over pair a (see arg_partial_size()).
    bool indexed = false;
    // Of indexed ops, the cheaper condition under which b wins where b's index is known to
    // come after a's (a work-item's private fold, reduce.cl's wins_in_order): ties keep a, so
    // indices are not compared.
    const char* integer_in_order = nullptr;
    const char* floating_in_order = nullptr;
};

/// Every op, in -o's order; Op::custom last, its text the user's.
const std::vector<OpInfo>& all_ops();
const OpInfo& info(Op op);
std::string name_of(Op op);

/// Whether NumPy reduces no values to the op's identity (sum 0, prod 1, any false, all true)
/// rather than refusing them (min, max: "zero-size array"; a user's op).
bool empty_gives_identity(Op op);

/// The bytes of one partial result of `op` reduced in `accumulator`: the accumulator's size
/// or, for argmin and argmax, that of the pair the kernel reduces, the value then its index
/// (an int64 at byte 8): 16 bytes (see IndexedValue in reference.hpp).
std::size_t partial_size(Op op, DataType accumulator);

/// The index of a pair of argmin or argmax, read from its bytes.
std::int64_t index_of_pair(const void* pair);

/// The index argmin and argmax give an empty segment of a segmented reduction (segmented.hpp),
/// where NumPy refuses one.
constexpr std::int64_t no_index = -1;

/// The accumulator of `op` on values of `type`: the op's own (any, all), else `requested`,
/// else the type's default (NumPy's for sums and products).
DataType accumulator_for(DataType type, Op op, std::optional<DataType> requested = {});

/// The identity as OpenCL C for `accumulator`.
std::string identity_text(Op op, DataType accumulator);

/// The maps the host applies as the kernel does, so that a map with a built-in op is checked
/// against the host reference.
enum class HostMap { none, square, absolute, nonzero };

/// The host's twin of `map` ("" none, "x * x", "fabs(x)", "x != 0", spaces optional); nullopt
/// for any other text, which only the kernel evaluates.
std::optional<HostMap> host_map(const std::string& map);

/// A result as the user reads it: "true"/"false" for any and all, else to_string().
std::string result_text(Op op, const Scalar& value);

} // namespace clreduce
