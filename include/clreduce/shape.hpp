#pragma once
// An array's shape and what reducing it along axes makes of it: the layout that a
// SegmentedReducer (segmented.hpp) reads and the shape of its results, as NumPy's reduce along
// `axis` has them.

#include <cstdint>
#include <vector>

namespace clreduce {

/// How a multi-dimensional array lies in memory: NumPy's C order (last index fastest) or
/// Fortran order (first index fastest).
enum class Order { c, fortran };

/// An array's extents and order: what an axis reduction reads.
struct Shape {
    std::vector<std::uint64_t> extents;
    Order order = Order::c;
    std::uint64_t values() const;
};

/// Any reduction along adjacent axes, as memory sees it: `blocks` blocks of `length` x
/// `inner` values, where value r of result k of block o is at (o * length + r) * inner + k.
/// The results, blocks x inner of them, lie in the input's order with the reduced axes left
/// out (`result`).
struct AxisLayout {
    std::uint64_t blocks = 1;
    std::uint64_t length = 1; // values reduced into each result
    std::uint64_t inner = 1;  // 1: the reduced values are contiguous (rows)
    Shape result;
    std::uint64_t results() const { return blocks * inner; }
};

/// The layout of reducing `shape` along `axes` (NumPy's meaning: -1 the last). Throws
/// Error(Errc::invalid_argument) for an axis out of range or given twice, or no axis, and
/// Error(Errc::unsupported) for axes that are not adjacent in memory.
AxisLayout axis_layout(const Shape& shape, const std::vector<int>& axes);

/// A reduction along axes adjacent in memory or apart, as steps one after another: each
/// reduces adjacent axes (axis_layout()) of what the step before left, the innermost first;
/// axes that are all adjacent are one step. The last step's result is the whole reduction's,
/// in the input's order. Throws as axis_layout() does, but not for axes apart.
std::vector<AxisLayout> axis_steps(const Shape& shape, const std::vector<int>& axes);

/// The first step's blocks (axis_steps().front()) in groups that share their position along
/// the later steps' axes: `index_bases.size()` groups of `blocks` adjacent blocks, the values
/// of group g at index index_bases[g] + r among their result's values in memory order (the
/// index a map's i counts), r their index along the first step's axes. Along adjacent axes,
/// one group of every block from 0. What a map along axes apart needs: one launch a group.
struct StepGroups {
    std::uint64_t blocks = 1;
    std::vector<std::uint64_t> index_bases;
};
StepGroups first_step_groups(const Shape& shape, const std::vector<int>& axes);

/// Where the values of a reduction along `axes` (adjacent or apart) lie, counted in values
/// from the array's first: result k's values are at results[k] + reduced[r], r = 0, 1, ...
/// in memory order (r is the index a map's i and the arg ops count over adjacent axes).
struct AxisOffsets {
    std::vector<std::uint64_t> results; // each result's first value, in the results' order
    std::vector<std::uint64_t> reduced; // each reduced value's offset from its result's first
};
AxisOffsets axis_offsets(const Shape& shape, const std::vector<int>& axes);

} // namespace clreduce
