#pragma once
// How clreduce -d and clreduce-mpi split a reduction along axes (docs/axes.md) into contiguous
// parts, one for each device or rank: whole blocks where the layout has several, the reduced
// rows of a layout of one block, and along axes apart in memory the slices of the outermost
// axis in memory. Plain arithmetic, tested without a device.

#include "clreduce/shape.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace clreduce {

/// One part: the array `shape`, values `first` on of the whole, reduced along `axes`. Where the
/// parts split a reduced axis (`combined`), each holds some of every result's values, and
/// their arrays of results combine element-wise; else its results are a contiguous part of the
/// whole result, the parts' in order. A value's index (a map's i, argmin's and argmax's)
/// counts from `index_base` along the reduced axes, as one device's does. Its `split` (blocks,
/// rows, or slices of axis `split_axis`) are `begin` to `begin + count`.
struct AxisPart {
    bool combined = false;
    std::uint64_t first = 0;
    Shape shape;
    std::vector<int> axes;
    std::uint64_t index_base = 0;
    std::string split;
    int split_axis = -1;
    std::uint64_t begin = 0;
    std::uint64_t count = 0;
    std::uint64_t results() const { return axis_steps(shape, axes).back().results(); }
};

/// How many positions the parts of `shape` along `axes` (its axis_steps(), `steps`) split:
/// blocks, rows or slices; no more parts than these are worth making.
std::uint64_t axis_positions(const Shape& shape, const std::vector<AxisLayout>& steps);

/// Part `part` of `parts`, their positions as even as can be (slice_of()).
AxisPart axis_part(const Shape& shape, const std::vector<int>& axes,
                   const std::vector<AxisLayout>& steps, std::uint64_t parts, std::uint64_t part);

} // namespace clreduce
