#include "tool/axis_parts.hpp"

#include "tool/partition.hpp"

namespace clreduce {
namespace {

/// The axis whose slices are contiguous in memory: the first in C order, the last in Fortran.
int outermost_axis(const Shape& shape) {
    return shape.order == Order::c ? 0 : static_cast<int>(shape.extents.size()) - 1;
}

/// Along adjacent axes (one `layout`): with one block (a reduced leading axis) the parts split
/// the rows, else the blocks.
AxisPart part_of_layout(const AxisLayout& layout, std::uint64_t parts, std::uint64_t part) {
    AxisPart share;
    share.combined = layout.blocks == 1;
    share.axes = {1};
    const auto positions = slice_of(share.combined ? layout.length : layout.blocks, parts, part);
    share.begin = positions.first;
    share.count = positions.length;
    if (share.combined) {
        share.split = "rows";
        share.first = positions.first * layout.inner;
        share.shape = Shape{{1, positions.length, layout.inner}, Order::c};
        share.index_base = positions.first;
    } else {
        share.split = "blocks";
        share.first = positions.first * layout.length * layout.inner;
        share.shape = Shape{{positions.length, layout.length, layout.inner}, Order::c};
    }
    return share;
}

/// Along axes apart in memory: the parts split the slices of the outermost axis in memory, so
/// that each is contiguous and has the whole array's axes. Where that axis is reduced, a part's
/// values of each result begin at its first slice times the values of the result's other
/// reduced axes (their index counts the outermost axis first).
AxisPart part_of_slabs(const Shape& shape, const std::vector<int>& axes, std::uint64_t parts,
                       std::uint64_t part) {
    const auto rank = static_cast<int>(shape.extents.size());
    const int outer = outermost_axis(shape);
    const auto extent = shape.extents[outer];
    const auto positions = slice_of(extent, parts, part);
    AxisPart share;
    share.shape = shape;
    share.shape.extents[outer] = positions.length;
    share.axes = axes;
    share.split = "slices";
    share.split_axis = outer;
    share.begin = positions.first;
    share.count = positions.length;
    share.first = extent == 0 ? 0 : positions.first * (shape.values() / extent);
    std::uint64_t others = 1; // values of a result along the reduced axes but the outermost
    for (const auto axis : axes) {
        const auto normal = axis < 0 ? axis + rank : axis;
        share.combined = share.combined || normal == outer;
        others *= normal == outer ? 1 : shape.extents[normal];
    }
    share.index_base = share.combined ? positions.first * others : 0;
    return share;
}

} // namespace

std::uint64_t axis_positions(const Shape& shape, const std::vector<AxisLayout>& steps) {
    if (steps.size() > 1)
        return shape.extents[outermost_axis(shape)];
    const auto& layout = steps.front();
    return layout.blocks == 1 ? layout.length : layout.blocks;
}

AxisPart axis_part(const Shape& shape, const std::vector<int>& axes,
                   const std::vector<AxisLayout>& steps, std::uint64_t parts, std::uint64_t part) {
    return steps.size() == 1 ? part_of_layout(steps.front(), parts, part)
                             : part_of_slabs(shape, axes, parts, part);
}

} // namespace clreduce
