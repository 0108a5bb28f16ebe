#include "detail/segment_plan.hpp"

#include "clreduce/errors.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>

namespace clreduce {
namespace {

std::uint64_t product(const std::vector<std::uint64_t>& extents, std::size_t from, std::size_t to) {
    return std::accumulate(extents.begin() + static_cast<std::ptrdiff_t>(from),
                           extents.begin() + static_cast<std::ptrdiff_t>(to), std::uint64_t{1},
                           std::multiplies<>());
}

std::uint64_t divide_up(std::uint64_t a, std::uint64_t b) {
    return a / b + (a % b != 0);
}

std::uint32_t largest_power_of_two_within(std::uint64_t bound) {
    std::uint32_t power = 1;
    while (power * std::uint64_t{2} <= bound)
        power *= 2;
    return power;
}

/// Axes counted from 0 in memory order (C order: the last axis is the fastest), sorted;
/// refuses what NumPy refuses and, unless `apart` allows them, axes apart in memory.
std::vector<std::size_t> memory_axes(const Shape& shape, const std::vector<int>& axes,
                                     bool apart = false) {
    const auto rank = static_cast<long>(shape.extents.size());
    if (axes.empty())
        throw Error(Errc::invalid_argument, "no axis to reduce");
    std::vector<std::size_t> sorted;
    for (const int axis : axes) {
        const long normal = axis < 0 ? axis + rank : axis;
        if (normal < 0 || normal >= rank)
            throw Error(Errc::invalid_argument, "axis " + std::to_string(axis) +
                                                    " is out of bounds for an array of rank " +
                                                    std::to_string(rank));
        const auto in_memory = shape.order == Order::c ? normal : rank - 1 - normal;
        sorted.push_back(static_cast<std::size_t>(in_memory));
    }
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw Error(Errc::invalid_argument, "an axis is given twice (counted from each end)");
    if (!apart && sorted.back() - sorted.front() + 1 != sorted.size())
        throw Error(Errc::unsupported,
                    "the axes to reduce must be adjacent (reducing axes apart is not supported)");
    return sorted;
}

/// The extents of `shape` in memory order: C order's (the last axis is the fastest).
std::vector<std::uint64_t> memory_extents(const Shape& shape) {
    auto extents = shape.extents;
    if (shape.order == Order::fortran)
        std::reverse(extents.begin(), extents.end());
    return extents;
}

/// Sets the pass's work-groups for its `tiles`: a launch of more than the device's
/// launched_work_groups gives each work-group several neighbouring tiles.
void spread_tiles(SegmentPass& pass, std::uint64_t tiles, const SegmentDevice& device) {
    pass.tiles = tiles;
    pass.tiles_per_group = static_cast<std::uint32_t>(std::max<std::uint64_t>(
        1, tiles / std::max<std::uint64_t>(1, device.launched_work_groups)));
    pass.work_groups = divide_up(tiles, pass.tiles_per_group);
}

/// The launch that reduces `segments` rows of `length` values, split in chunks where the rows
/// are too few to fill the device.
SegmentPass rows_pass(std::uint64_t segments, std::uint64_t length, const SegmentDevice& device,
                      bool may_split) {
    SegmentPass pass;
    pass.kernel = SegmentKernel::rows;
    pass.blocks = segments;
    pass.length = length;
    pass.work_group_size = device.work_group_size;
    pass.width = largest_power_of_two_within(std::clamp<std::uint64_t>(
        length / device.team_values(length, segments), 1, device.work_group_size));
    const auto teams_per_group = device.work_group_size / pass.width;
    // Rows split only when they are few enough to leave most of the device idle: 2048 rows
    // of 2^17 values took 92% of the stream read split in 3 chunks each, 97% whole.
    if (may_split && pass.width == device.work_group_size &&
        segments * 4 < device.target_work_groups) {
        const auto most = std::max<std::uint64_t>(
            1, length / (device.work_group_size * device.values_per_chunk_item));
        pass.chunks = std::min(divide_up(device.target_work_groups, segments), most);
    }
    spread_tiles(pass, divide_up(segments * pass.chunks, teams_per_group), device);
    return pass;
}

/// Short rows in teams (along an axis; CSR segments not measured so) take work-groups of the
/// device's team_group_size, whose trees' barriers wait on fewer work-items; the launch's cap
/// counts work-items, so it holds as many more of them. Measured on the H100 (docs/axes.md):
/// rows of 16 to 128 values 2 to 6% faster in work-groups of 64 than of 256, 4 to 10% slower in
/// work-groups of 32.
void shrink_groups(SegmentPass& pass, const SegmentDevice& device) {
    if (pass.kernel != SegmentKernel::rows || pass.width < 2 || pass.chunks != 1 ||
        pass.length > device.team_group_rows || device.team_group_size < pass.width ||
        device.team_group_size >= pass.work_group_size)
        return;
    auto smaller = device;
    smaller.launched_work_groups *= pass.work_group_size / device.team_group_size;
    pass.work_group_size = device.team_group_size;
    spread_tiles(pass, divide_up(pass.blocks, pass.work_group_size / pass.width), smaller);
}

SegmentPass columns_pass(const AxisLayout& layout, const SegmentDevice& device) {
    SegmentPass pass;
    pass.kernel = SegmentKernel::columns;
    pass.blocks = layout.blocks;
    pass.length = layout.length;
    pass.columns = layout.inner;
    pass.work_group_size = device.work_group_size;
    pass.width =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(layout.inner, device.work_group_size));
    const auto phases = device.work_group_size / pass.width;
    const auto groups = layout.blocks * divide_up(layout.inner, pass.width);
    if (groups < device.target_work_groups) {
        const auto most =
            std::max<std::uint64_t>(1, layout.length / (phases * device.values_per_column_item));
        pass.chunks = std::min(divide_up(device.target_work_groups, groups), most);
    }
    spread_tiles(pass, groups * pass.chunks, device);
    return pass;
}

/// CPUs: the narrowest strip of columns a work-item of reduce_column_runs reduces where a
/// pass is not split (partials).
constexpr std::uint64_t narrowest_column_run = 16;
/// A split column strip's chunk holds at least this many rows: its partials a fraction of them.
constexpr std::uint64_t rows_per_run_chunk = 64;

/// CPUs: splits each of the pass's `pieces` (rows, or strips of columns) in up to `most`
/// chunks where they are too few for the work-items of the device's target work-groups, and
/// gives a work-item each chunk.
void split_runs(SegmentPass& pass, std::uint64_t pieces, std::uint64_t most,
                const SegmentDevice& device) {
    pass.work_group_size = device.contiguous_work_group_size;
    const auto items = device.target_work_groups * pass.work_group_size;
    if (pieces < items)
        pass.chunks = std::min(divide_up(items, pieces), std::max<std::uint64_t>(1, most));
    spread_tiles(pass, divide_up(pieces * pass.chunks, pass.work_group_size), device);
}

/// CPUs, whose driver runs a work-group's work-items one after another on one core: each
/// work-item reads a contiguous run, which the core's prefetcher follows. Rows too few for a
/// work-item each in wide work-groups on every core: a work-item per row, or per chunk (of at
/// least values_per_run) of a long row (a team of work-items reading a value 256 apart each,
/// as on GPUs, read few long rows at 7% to 33% of the stream read on the 16-core PoCL).
SegmentPass contiguous_rows_pass(std::uint64_t segments, std::uint64_t length,
                                 const SegmentDevice& device) {
    SegmentPass pass;
    pass.kernel = SegmentKernel::rows;
    pass.blocks = segments;
    pass.length = length;
    split_runs(pass, segments, length / device.values_per_run, device);
    return pass;
}

/// CPUs: columns in strips, a work-item each over a chunk of the rows, each row's strip a
/// contiguous run (a work-item per column read 5% to 39% of the stream read on the 16-core
/// PoCL). A split's strips are as wide as can be, the longest runs; its partials, `chunks`
/// rows of every column, are reduced by a second pass (not split) in strips narrow enough
/// for every work-item to have one.
SegmentPass column_runs_pass(const AxisLayout& layout, const SegmentDevice& device,
                             bool may_split) {
    SegmentPass pass;
    pass.kernel = SegmentKernel::column_runs;
    pass.blocks = layout.blocks;
    pass.length = layout.length;
    pass.columns = layout.inner;
    const auto items = device.target_work_groups * device.contiguous_work_group_size;
    const auto widest = may_split ? device.column_run
                                  : std::clamp(divide_up(layout.blocks * layout.inner, items),
                                               std::min(narrowest_column_run, device.column_run),
                                               device.column_run);
    const auto strips = divide_up(layout.inner, widest);
    pass.width = static_cast<std::uint32_t>(divide_up(layout.inner, strips)); // as even as can be
    split_runs(pass, layout.blocks * strips, may_split ? layout.length / rows_per_run_chunk : 1,
               device);
    return pass;
}

/// The first launch along an axis: on CPUs, contiguous runs where they help.
SegmentPass first_axis_pass(const AxisLayout& layout, const SegmentDevice& device) {
    const bool contiguous = device.contiguous_work_group_size != 0;
    if (layout.inner > 1)
        return contiguous ? column_runs_pass(layout, device, true) : columns_pass(layout, device);
    if (contiguous && layout.blocks < device.contiguous_rows_below)
        return contiguous_rows_pass(layout.blocks, layout.length, device);
    return rows_pass(layout.blocks, layout.length, device, true);
}

/// segmented.cl's SEGMENT_BATCH: the tiles a batched kernel's work-item reduces at once.
constexpr std::uint32_t kernel_batch = 4;

/// Where each work-item reduces one whole narrow row or column a tile, it takes the device's
/// batched_tiles neighbouring tiles at once, their loads in flight together: a tile's few loads
/// alone left the H100's memory idle. Measured there (docs/axes.md): rows of 2 and 4 values
/// took 0.75 and 0.93 times as long batched, columns of 2 rows 0.89 times; rows of 8 took 1.14
/// times as long, columns of 4 to 32 rows 1.04 to 1.12 times, so they stay a tile at a time.
/// Each work-group then loops over a multiple of the batch's tiles.
void batch_narrow(SegmentPass& pass, const SegmentDevice& device) {
    if (pass.kernel == SegmentKernel::column_runs)
        return;
    const bool rows = pass.kernel == SegmentKernel::rows;
    const bool one_each = rows ? pass.width == 1 : pass.width == pass.work_group_size;
    if (device.batched_tiles < 2 || !one_each || pass.chunks != 1 || pass.strip > 1 ||
        pass.length > (rows ? 4u : 2u))
        return;
    pass.batch = device.batched_tiles;
    pass.tiles_per_group = static_cast<std::uint32_t>(
        divide_up(std::max(pass.tiles_per_group, pass.batch), pass.batch) * pass.batch);
    pass.work_groups = divide_up(pass.tiles, pass.tiles_per_group);
}

/// segmented.cl's SEGMENT_STRIP: the columns a work-item of reduce_column_strips owns.
constexpr std::uint32_t kernel_strip = 4;

/// Where columns of fewer rows than the device's strip_rows_below are read whole, a work-item
/// a column, each work-item takes a strip of kernel_strip neighbouring columns instead, a
/// row's strip one vector load: a column of few rows left each work-item only a few loads of
/// 4 bytes in flight. Measured on the H100 (docs/axes.md), R x C = 2^28 int32 and float: 2 rows
/// took 0.73 times as long, 4 to 16 rows 0.82 to 0.93 times, 32 to 1024 rows 0.91 to 0.96
/// times. Only where every strip is whole (columns a multiple of the strip), a tile's
/// work-items all have one (the columns fill a work-group's strips), and the strips' tiles,
/// a quarter of the columns', still number the device's fewest_strip_tiles.
void strip_columns(SegmentPass& pass, const SegmentDevice& device) {
    const auto width = pass.work_group_size * kernel_strip;
    const auto tiles = pass.blocks * divide_up(pass.columns, width);
    if (pass.kernel != SegmentKernel::columns || pass.length >= device.strip_rows_below ||
        pass.chunks != 1 || pass.columns % kernel_strip != 0 || pass.columns < width ||
        tiles < device.fewest_strip_tiles)
        return;
    pass.strip = kernel_strip;
    pass.width = static_cast<std::uint32_t>(width);
    spread_tiles(pass, tiles, device);
}

/// Rows of 4- and 8-byte values (4 a load) of fewer loads than this keep their plan, a
/// work-item a row: read as vectors, rows of 4 and 8 floats took 1 to 3% longer on the H100.
constexpr std::uint64_t fewest_loads_of_wide_values = 4;

/// Narrow uniform rows, whole, of aligned vector loads, fewer than the device's
/// vector_loads_below, a work-item a row (reduce_vector_rows).
/// - GPUs: where a row is a power of two of loads, no more than a work-group's work-items, the
///   rows of a tile are read side by side as vectors, in work-groups of the device's
///   team_group_size; their partials, two tiles' worth, must fit in local memory. Measured on
///   the H100 (docs/axes.md), R x C = 2^28: rows of 16 to 64 floats took 0.88 to 0.97 times
///   as long as in teams, rows of 16 to 256 bytes 0.42 to 0.61 times, of 8 to 128 int16 0.62
///   to 0.90 times, of 16 to 64 doubles 0.79 to 0.84 times; teams read each row a value per
///   work-item, 1 to 8 bytes a load. Rows of 32 loads took longer.
/// - CPUs (contiguous runs): each work-item reads its own row's loads, any number of them, in
///   the work-groups the rows had (reduce_vector_row_runs). On the 16-core PoCL, whole rows of
///   4 to 65536 int32 or floats took 0.45 to 0.91 times as long as read a value at a time.
void read_rows_as_vectors(SegmentPass& pass, const SegmentDevice& device, std::uint64_t first) {
    const auto n = device.values_per_load;
    if (n == 0 || pass.kernel != SegmentKernel::rows || pass.chunks != 1 || first % n != 0 ||
        pass.length % n != 0 || pass.length == 0)
        return;
    const auto loads = pass.length / n;
    const bool own_rows = device.contiguous_work_group_size != 0;
    const auto size =
        own_rows ? pass.work_group_size
                 : std::min<std::uint64_t>(device.work_group_size,
                                           std::max<std::uint64_t>(1, device.team_group_size));
    if (loads >= device.vector_loads_below)
        return;
    if (!own_rows && (loads > size || (loads & (loads - 1)) != 0 ||
                      (n == 4 && loads < fewest_loads_of_wide_values)))
        return;
    auto vectors = pass;
    vectors.vectors = static_cast<std::uint32_t>(loads);
    vectors.own_rows = own_rows;
    vectors.width = 1;
    vectors.batch = 1;
    vectors.work_group_size = size;
    if (!own_rows && scratch_bytes(vectors, 1) > device.local_accumulators)
        return;
    auto smaller = device;
    smaller.launched_work_groups *= device.work_group_size / size;
    spread_tiles(vectors, divide_up(pass.blocks, size), smaller);
    pass = vectors;
}

} // namespace

std::size_t scratch_bytes(const SegmentPass& pass, std::size_t accumulator_size) {
    if (pass.vectors == 0 || pass.own_rows)
        return pass.work_group_size * accumulator_size;
    // reduce_vector_rows: two tiles of a row a work-item, a row's partials an odd pitch apart.
    return 2 * pass.work_group_size * (pass.vectors | 1u) * accumulator_size;
}

SegmentDevice segment_device(std::size_t work_group_size, std::uint64_t compute_units, bool cpu,
                             const SegmentTuning& tuning) {
    const auto or_default = [](std::uint64_t value, std::uint64_t otherwise) {
        return value != 0 ? value : otherwise;
    };
    SegmentDevice device;
    device.work_group_size = work_group_size;
    // Splits aim for many waves of work-groups: with one, a work-group or two past what the
    // device holds at once made a second wave (on the H100, 1088 work-groups took 1.4 times as
    // long as 1024); with 128 per compute unit, few rows of 2^18 values or more read at 96% of
    // the stream read on the H100, against 89 to 91% with 32 (docs/axes.md). A CPU runs one
    // work-group per core at a time.
    device.target_work_groups =
        compute_units * or_default(tuning.work_groups_per_unit, cpu ? 4 : 128);
    device.values_per_team_item = tuning.values_per_team_item;
    device.values_per_chunk_item = or_default(tuning.values_per_chunk_item, 64);
    device.values_per_column_item = or_default(tuning.values_per_column_item, 1024);
    // On the H100, rows of 8 to 512 values read at up to 1.3 times the speed with 256
    // work-groups a compute unit in a launch as with 64; on the 16-core PoCL, rows of 2 to
    // 2^15 values took 0.77 to 0.99 times as long with 16 a core as with 4 (one shape of 26,
    // 1.05): a core that finishes early takes another work-group (docs/axes.md).
    device.launched_work_groups =
        compute_units * or_default(tuning.launched_groups_per_unit, cpu ? 16 : 256);
    // A CPU core streams a row best alone, as reduce.cl's REDUCE_CONTIGUOUS does: on the
    // 16-core PoCL, rows of 16 to 2^15 values read 1.1 to 2.3 times as fast with a work-item
    // per row, where there are half a work-group's rows per core or more (docs/axes.md).
    if (cpu)
        device.whole_rows_from = compute_units * work_group_size / 2;
    // A CPU's work-item streams its row alone; not measured batched.
    device.batched_tiles =
        or_default(tuning.batched_tiles, cpu ? 1 : kernel_batch) == 1 ? 1 : kernel_batch;
    // Work-groups of 64 for rows of up to 128 values in teams, measured on the H100; a CPU's
    // rows are not in teams.
    device.team_group_size = or_default(tuning.team_group_size, cpu ? 1 : 64);
    device.team_group_rows = or_default(tuning.team_group_rows, 128);
    // A CPU's work-item reads its own row's loads, as many as a whole row has (docs/axes.md).
    device.vector_loads_below =
        or_default(tuning.vector_loads_below, cpu ? std::numeric_limits<std::uint64_t>::max() : 17);
    // Strips measured faster on the H100 up to 1024 rows, the most a column of 2^28 values
    // read whole had; a CPU's work-item streams its column alone, not measured in strips.
    device.strip_rows_below = or_default(tuning.strip_rows_below, cpu ? 1 : 2048);
    // The fewest strips' tiles measured were 256 on 132 compute units (1024 rows of 2^18
    // columns, 99% of the stream read); with fewer than a work-group a unit, a column a
    // work-item keeps four times as many work-groups (not measured against each other).
    device.fewest_strip_tiles = or_default(tuning.fewest_strip_tiles, compute_units);
    // A CPU's work-items run one after another: work-groups of a few, each reading contiguous
    // runs, columns always, rows where there are fewer than two wide work-groups' per core.
    const auto contiguous = or_default(tuning.contiguous_items, cpu ? 16 : 1);
    if (contiguous > 1) {
        device.contiguous_work_group_size =
            std::min(work_group_size, static_cast<std::size_t>(contiguous));
        device.contiguous_rows_below = compute_units * work_group_size * 2;
        device.column_run = or_default(tuning.column_run, device.column_run);
    }
    return device;
}

std::uint64_t SegmentDevice::team_values(std::uint64_t length, std::uint64_t segments) const {
    if (values_per_team_item != 0)
        return values_per_team_item;
    if (whole_rows_from != 0 && segments >= whole_rows_from)
        return std::max<std::uint64_t>(1, length);
    // Longer rows take fewer work-items each, so that a work-group holds more rows and its
    // tree is shallower (measured best on the H100, docs/axes.md); rows of 256 values read
    // at 95% of the stream read in teams of 16 work-items, at 93% in teams of 8.
    return length < 64 ? 8 : length <= 256 ? 16 : length < 1024 ? 32 : 64;
}

std::uint64_t Shape::values() const {
    return product(extents, 0, extents.size());
}

AxisLayout axis_layout(const Shape& shape, const std::vector<int>& axes) {
    const auto sorted = memory_axes(shape, axes);
    const auto extents = memory_extents(shape);
    AxisLayout layout;
    layout.blocks = product(extents, 0, sorted.front());
    layout.length = product(extents, sorted.front(), sorted.back() + 1);
    layout.inner = product(extents, sorted.back() + 1, extents.size());
    layout.result.order = shape.order;
    for (std::size_t axis = 0; axis < extents.size(); ++axis)
        if (axis < sorted.front() || axis > sorted.back())
            layout.result.extents.push_back(extents[axis]);
    if (shape.order == Order::fortran)
        std::reverse(layout.result.extents.begin(), layout.result.extents.end());
    return layout;
}

std::vector<AxisLayout> axis_steps(const Shape& shape, const std::vector<int>& axes) {
    const auto sorted = memory_axes(shape, axes, true);
    Shape left{memory_extents(shape), Order::c}; // what the steps so far leave, C order
    std::vector<AxisLayout> steps;
    // Runs of adjacent axes, the innermost first: its rows or columns are read from the input
    // as they lie, and every later step reads the smaller array of partials it leaves.
    for (auto end = sorted.size(); end > 0;) {
        auto begin = end - 1;
        while (begin > 0 && sorted[begin - 1] + 1 == sorted[begin])
            --begin;
        std::vector<int> run;
        for (auto k = begin; k < end; ++k)
            run.push_back(static_cast<int>(sorted[k]));
        steps.push_back(axis_layout(left, run));
        left = steps.back().result;
        end = begin;
    }
    // The last step's result in the input's order, as axis_layout() gives it.
    if (shape.order == Order::fortran) {
        std::reverse(left.extents.begin(), left.extents.end());
        steps.back().result = Shape{left.extents, Order::fortran};
    }
    return steps;
}

StepGroups first_step_groups(const Shape& shape, const std::vector<int>& axes) {
    const auto sorted = memory_axes(shape, axes, true);
    const auto extents = memory_extents(shape);
    // The first step's run: the innermost adjacent reduced axes, from `begin` on.
    auto begin = sorted.size() - 1;
    while (begin > 0 && sorted[begin - 1] + 1 == sorted[begin])
        --begin;
    const auto length = product(extents, sorted[begin], sorted.back() + 1);
    // A group: the blocks between the last reduced axis before the run and the run.
    const auto outer = begin == 0 ? 0 : sorted[begin - 1] + 1;
    StepGroups groups{product(extents, outer, sorted[begin]), {0}};
    // Each axis before, the outermost first: a reduced one numbers its positions among the
    // result's values, a kept one repeats the numbers.
    for (std::size_t axis = 0; axis < outer; ++axis) {
        const bool reduced = std::binary_search(sorted.begin(), sorted.end(), axis);
        std::vector<std::uint64_t> grown;
        grown.reserve(groups.index_bases.size() * extents[axis]);
        for (const auto base : groups.index_bases)
            for (std::uint64_t k = 0; k < extents[axis]; ++k)
                grown.push_back(reduced ? base * extents[axis] + k : base);
        groups.index_bases = std::move(grown);
    }
    for (auto& base : groups.index_bases)
        base *= length;
    return groups;
}

AxisOffsets axis_offsets(const Shape& shape, const std::vector<int>& axes) {
    const auto sorted = memory_axes(shape, axes, true);
    const auto extents = memory_extents(shape);
    AxisOffsets offsets{{0}, {0}};
    // Each axis, the outermost first, multiplies the offsets of its kind by its extent.
    std::uint64_t stride = shape.values();
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        stride = extents[axis] == 0 ? 0 : stride / extents[axis];
        const bool reduced = std::binary_search(sorted.begin(), sorted.end(), axis);
        auto& kind = reduced ? offsets.reduced : offsets.results;
        std::vector<std::uint64_t> grown;
        grown.reserve(kind.size() * extents[axis]);
        for (const auto offset : kind)
            for (std::uint64_t k = 0; k < extents[axis]; ++k)
                grown.push_back(offset + k * stride);
        kind = std::move(grown);
    }
    return offsets;
}

std::string name_of(SegmentKernel kernel) {
    switch (kernel) {
    case SegmentKernel::rows:
        return "rows";
    case SegmentKernel::columns:
        return "columns";
    case SegmentKernel::column_runs:
        return "column runs";
    }
    return "";
}

std::uint64_t SegmentPass::outputs() const {
    return (kernel == SegmentKernel::rows ? blocks : blocks * columns) * chunks;
}

std::vector<SegmentPass> plan_axis(const AxisLayout& layout, const SegmentDevice& device,
                                   std::uint64_t first_value) {
    if (layout.results() == 0)
        return {};
    auto first = first_axis_pass(layout, device);
    strip_columns(first, device);
    shrink_groups(first, device);
    batch_narrow(first, device);
    read_rows_as_vectors(first, device, first_value);
    if (first.chunks == 1)
        return {first};
    auto second =
        first.kernel == SegmentKernel::column_runs
            ? column_runs_pass({first.blocks, first.chunks, first.columns, {}}, device, false)
            : rows_pass(layout.results(), first.chunks, device, false);
    batch_narrow(second, device);
    return {first, second};
}

std::vector<SegmentPass> plan_csr(std::uint64_t segments, std::uint64_t values,
                                  const SegmentDevice& device) {
    if (segments == 0)
        return {};
    // Ragged lengths: a team takes as long as the longest segment in its warp, and teams of
    // twice the work-items a row of the mean length would take read segments of 0 to 2000
    // values at 82% of the stream read on the H100, against 80% (docs/axes.md).
    auto ragged = device;
    if (ragged.values_per_team_item == 0 && ragged.whole_rows_from == 0)
        ragged.values_per_team_item =
            std::max<std::uint64_t>(1, device.team_values(values / segments, segments) / 2);
    auto first = rows_pass(segments, values / segments, ragged, false);
    // Few segments, each a work-group's: their lengths are on the device, and a long one among
    // short ones (a heavy tail) would be left to one work-group while the rest of the device
    // idles. So each is cut in the chunks that would fill the device were they all alike; a
    // short segment's chunks are mostly empty, and cost a work-group's start each.
    if (first.width < device.work_group_size || segments * 4 >= device.target_work_groups)
        return {first};
    first.chunks = divide_up(device.target_work_groups, segments);
    spread_tiles(first, segments * first.chunks, device);
    auto second = rows_pass(segments, first.chunks, device, false);
    batch_narrow(second, device);
    return {first, second};
}

std::string describe(const std::vector<SegmentPass>& passes) {
    std::ostringstream text;
    for (const auto& pass : passes) {
        text << name_of(pass.kernel) << ": ";
        if (pass.vectors > 0)
            text << pass.blocks << " segments of " << pass.length << ", a work-item each, read as "
                 << pass.vectors << (pass.vectors == 1 ? " vector" : " vectors")
                 << (pass.own_rows ? " in turn" : " side by side");
        else if (pass.kernel == SegmentKernel::rows)
            text << pass.blocks << " segments of " << pass.length << ", " << pass.width
                 << " work-items each";
        else
            text << pass.blocks << " x " << pass.length << " rows of " << pass.columns
                 << " columns, " << pass.width << " columns per "
                 << (pass.kernel == SegmentKernel::columns ? "work-group" : "work-item");
        text << ", " << pass.chunks << (pass.chunks == 1 ? " chunk" : " chunks") << ", "
             << pass.work_groups << " work-groups of " << pass.work_group_size;
        if (pass.tiles_per_group > 1)
            text << ", " << pass.tiles_per_group << " tiles each";
        if (pass.batch > 1)
            text << ", " << pass.batch << " at once";
        if (pass.strip > 1)
            text << ", strips of " << pass.strip << " columns";
        text << "\n";
    }
    return text.str();
}

} // namespace clreduce
