#pragma once
// The pass plan: plain arithmetic, computed before anything is enqueued, from the input's
// length and the launch shape the device allows.

#include "clreduce/kinds.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clreduce {

/// How one pass is launched: each work-group reduces its share of the input to one value.
struct Pass {
    std::uint64_t in = 0;            // values read
    std::size_t work_groups = 0;     // also the values written
    std::size_t work_group_size = 0; // a power of two
    std::uint64_t out() const { return work_groups; }
};

/// The shape every pass is cut to.
struct PassShape {
    std::size_t work_group_size = 1;
    std::uint64_t values_per_work_item = 2; // a pass gives each work-item at least this many
    std::size_t max_work_groups = 0;        // 0: no limit
    std::uint64_t values_per_work_group() const { return work_group_size * values_per_work_item; }
};

/// What bounds the work-group size, and what it aims for within those bounds.
struct WorkGroupLimits {
    std::size_t kernel = 1;              // CL_KERNEL_WORK_GROUP_SIZE
    std::size_t work_item = 1;           // CL_DEVICE_MAX_WORK_ITEM_SIZES[0]
    std::uint64_t local_memory_free = 0; // bytes of local memory beside the kernel's own
    std::size_t wanted = 0;              // 0: as large as the bounds allow
    std::size_t smallest = 1;            // the least the path runs with
};

/// The largest power of two within the bounds and `wanted`, raised to `smallest` where the
/// bounds allow.
std::size_t choose_work_group_size(const WorkGroupLimits& limits);

/// Factor::textbook: 2 values per work-item, as many work-groups as that takes.
/// Factor::device: a few work-groups per compute unit, each work-item folding many values,
/// so that the first pass streams the input once and large inputs take two passes.
PassShape pass_shape(Factor factor, std::size_t work_group_size, unsigned compute_units);

/// The passes that take `length` values down to one (one pass for a single value).
std::vector<Pass> plan_passes(std::uint64_t length, const PassShape& shape);

/// Values the two alternating temporaries hold together (odd passes write one, even the other).
std::uint64_t temporary_values(const std::vector<Pass>& passes);

} // namespace clreduce
