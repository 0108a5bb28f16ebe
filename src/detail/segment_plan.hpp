#pragma once
// The plan of a reduction per segment or along axes (SegmentedReducer, segmented.hpp): plain
// arithmetic from the layout (shape.hpp) and the device's size, computed before anything is
// enqueued, printed by the tool's -v and tested without a device. docs/axes.md tells how the shapes
// choose the kernel and what was measured.

#include "clreduce/shape.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clreduce {

/// The kernels of segmented.cl (rows and columns each with its batched twin, SegmentPass::batch,
/// the columns' with its strips on GPUs, SegmentPass::strip).
enum class SegmentKernel {
    rows,        // reduce_segments: each segment's values side by side
    columns,     // reduce_columns: a segment's values `inner` apart
    column_runs, // reduce_column_runs (CPUs): as columns, a strip of them per work-item
};
std::string name_of(SegmentKernel kernel);

/// One launch.
struct SegmentPass {
    SegmentKernel kernel = SegmentKernel::rows;
    std::uint64_t blocks = 1;  // columns: blocks; rows: segments
    std::uint64_t length = 0;  // rows: each segment's values (CSR: their mean); columns: rows
    std::uint64_t columns = 1; // columns only
    std::uint32_t width = 1;   // work-items that share a segment; columns per work-group (strips:
                               // per work-item)
    std::uint64_t chunks = 1;  // launches' pieces per segment; >1: partials, a second pass
    std::uint64_t tiles = 0;   // what a work-group of one tile each would do
    std::uint32_t tiles_per_group = 1; // >1: a work-group loops over several
    std::uint32_t batch = 1; // >1: the batched kernel, a work-item reduces that many tiles at once
    std::uint32_t strip = 1; // >1: reduce_column_strips, a work-item owns that many columns
    std::uint32_t vectors = 0; // >0: reduce_vector_rows, each row that many vector loads
    bool own_rows = false;     // with vectors: reduce_vector_row_runs (CPUs), a work-item its row's
    std::uint64_t work_groups = 0; // tiles / tiles_per_group
    std::size_t work_group_size = 1;
    std::uint64_t outputs() const;
};

/// The tunables of the plan, measured on an H100 (docs/axes.md); 0: the default.
struct SegmentTuning {
    std::uint64_t values_per_team_item = 0;     // a row's team: a work-item per this many values
    std::uint64_t values_per_chunk_item = 0;    // a split row: at least this many per work-item
    std::uint64_t work_groups_per_unit = 0;     // the work-groups a split aims for per unit
    std::uint64_t values_per_column_item = 0;   // a split column: at least this many per work-item
    std::uint64_t launched_groups_per_unit = 0; // a launch's work-groups per unit at most
    std::uint64_t batched_tiles = 0;            // 1: narrow rows and columns a tile at a time
    std::uint64_t strip_rows_below = 0;         // columns of fewer rows: column strips (1: never)
    std::uint64_t fewest_strip_tiles = 0;       // strips only where they make this many tiles
    std::uint64_t contiguous_items = 0;   // CPUs: a work-group's runs (1: none, the GPUs' plans)
    std::uint64_t column_run = 0;         // CPUs: the most columns a work-item reduces
    std::uint64_t team_group_size = 0;    // short rows in teams: work-groups of this size (1: none)
    std::uint64_t team_group_rows = 0;    // ... rows of at most this many values
    std::uint64_t vector_loads_below = 0; // rows of fewer vector loads: read as vectors (1: never)
};

/// What the device allows and aims for.
struct SegmentDevice {
    std::size_t work_group_size = 256;      // a power of two
    std::uint64_t target_work_groups = 1;   // what a split aims for
    std::uint64_t values_per_team_item = 0; // 0: by the row's length (team_values)
    std::uint64_t values_per_chunk_item = 64;
    std::uint64_t values_per_column_item = 1024;
    std::uint64_t launched_work_groups = 1; // more tiles than this: work-groups loop over tiles
    std::uint64_t whole_rows_from = 0;      // this many rows or more: a work-item each (0: never)
    std::uint32_t batched_tiles = 1;        // narrow rows and columns: 1, or the batched kernels
    std::uint64_t strip_rows_below = 1;     // columns of fewer rows: column strips (1: never)
    std::uint64_t fewest_strip_tiles = 1;   // strips only where they make this many tiles
    // CPUs: work-groups of this many work-items, each reading contiguous runs, for columns and
    // for fewer rows than contiguous_rows_below (0: never).
    std::size_t contiguous_work_group_size = 0;
    std::uint64_t contiguous_rows_below = 0;
    std::uint64_t values_per_run = 4096; // a contiguous run is split no shorter
    std::uint64_t column_run = 4096;     // the most columns a work-item reduces in runs
    std::size_t team_group_size = 0;     // short rows in teams: work-groups of this size (0: all)
    std::uint64_t team_group_rows = 0;   // ... rows of at most this many values
    // Narrow rows read as vectors (reduce_vector_rows): the values a load reads (0: never, as
    // for argmin's and argmax's values, whose first pass reads them as leads), the rows of
    // fewer loads than vector_loads_below that are, and the accumulators a work-group's local
    // memory holds (their partials must fit).
    std::uint64_t values_per_load = 0;
    std::uint64_t vector_loads_below = 1;
    std::uint64_t local_accumulators = 0;
    /// How many of a row's values each work-item of its team reads, of `segments` rows.
    std::uint64_t team_values(std::uint64_t length, std::uint64_t segments) const;
};

/// The device's shape for `work_group_size` and `compute_units`, tuned.
SegmentDevice segment_device(std::size_t work_group_size, std::uint64_t compute_units, bool cpu,
                             const SegmentTuning& tuning = {});

/// The launches that reduce `layout`: one, or two where a segment is split among
/// work-groups (few long rows, few columns); the second reduces the partials as rows.
/// `first`: where the values begin in their buffer (rows read as vectors must be aligned).
std::vector<SegmentPass> plan_axis(const AxisLayout& layout, const SegmentDevice& device,
                                   std::uint64_t first = 0);

/// The bytes of local memory a launch of `pass` takes, of accumulators of `accumulator_size`.
std::size_t scratch_bytes(const SegmentPass& pass, std::size_t accumulator_size);

/// The launches that reduce `segments` CSR segments of `values` values in all (their lengths
/// are on the device): teams sized for the mean length, one chunk each; or, where the segments
/// are few and long, each split in as many chunks as fill the device, and a second launch that
/// reduces each segment's chunks as rows.
std::vector<SegmentPass> plan_csr(std::uint64_t segments, std::uint64_t values,
                                  const SegmentDevice& device);

/// One line per launch, for -v: "rows: 4096 segments of 65536, 256 work-items each, 2 chunks,
/// 8192 work-groups of 256".
std::string describe(const std::vector<SegmentPass>& passes);

} // namespace clreduce
