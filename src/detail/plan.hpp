#pragma once
// The pass plan: plain arithmetic, computed before anything is enqueued, from the input's
// length and the launch shape the device allows; each launch is a Pass (kinds.hpp).

#include "clreduce/kinds.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clreduce {

/// The shape every pass is cut to.
struct PassShape {
    std::size_t work_group_size = 1;
    std::uint64_t values_per_work_item = 2; // a pass gives each work-item at least this many
    std::size_t max_work_groups = 0;        // 0: no limit
    // CPUs (0 elsewhere, see for_cpu): below max_work_groups, one work-group per this many
    // values, but at least one per compute unit.
    std::uint64_t values_per_cpu_work_group = 0;
    std::size_t compute_units = 0;
    std::uint64_t values_per_work_group() const { return work_group_size * values_per_work_item; }
};

/// What bounds the work-group size, and what it aims for within those bounds.
struct WorkGroupLimits {
    std::size_t kernel = 1;              // CL_KERNEL_WORK_GROUP_SIZE
    std::size_t work_item = 1;           // CL_DEVICE_MAX_WORK_ITEM_SIZES[0]
    std::uint64_t local_memory_free = 0; // bytes of local memory beside the kernel's own
    std::size_t value_size = 4;          // bytes of local memory each work-item needs
    std::size_t wanted = 0;              // 0: as large as the bounds allow
    std::size_t smallest = 1;            // the least the path runs with
};

/// The most work-items a work-group may have within the bounds, and the bound that sets it
/// (its OpenCL name), for refusing a larger --work-group-size.
struct WorkGroupBound {
    std::uint64_t size = 1;
    const char* limit = "";
};
WorkGroupBound work_group_bound(const WorkGroupLimits& limits);

/// The largest power of two within the bounds and `wanted`, raised to `smallest` where the
/// bounds allow.
std::size_t choose_work_group_size(const WorkGroupLimits& limits);

/// Factor::textbook: 2 values per work-item, as many work-groups as that takes, within the
/// global sizes that a device of `address_bits` can launch.
/// Factor::device: a few work-groups per compute unit, each work-item folding many values,
/// so that the first pass streams the input once and large inputs take two passes.
PassShape pass_shape(Factor factor, std::size_t work_group_size, unsigned compute_units,
                     unsigned address_bits = 64);

/// `shape` for a CPU device: on short inputs, PoCL's cost of scheduling a work-group outweighs
/// the balance that more of them give, so a pass takes one work-group per 256 KiB of values,
/// but at least one per compute unit (docs/benchmarks.md, "CPUs").
PassShape for_cpu(PassShape shape, unsigned compute_units, std::size_t value_size);

/// The values of `value_size` bytes that a CPU's work-group takes once there is more than one
/// per compute unit: 256 KiB of them (for_cpu(), and the exact sum's launch).
std::uint64_t values_per_cpu_work_group(std::size_t value_size);

/// The passes that take `length` values down to one (one pass for a single value). With
/// Finish::last_group that is always one pass, the first of Finish::passes, finishing.
std::vector<Pass> plan_passes(std::uint64_t length, const PassShape& shape,
                              Finish finish = Finish::passes);

/// The most additions any one value goes through on its way to the result, in whatever order
/// the kernel takes them: in each pass its work-item's fold (the quarters of a load of 8 or 16
/// values joined in 1 or 3 steps, a (4 x values per load)th of the work-item's share in one
/// accumulator lane, then 5 joining steps; the first pass reads `first_per_load` values a
/// load, later ones 4), the work-group step (log2 of the work-group size for the tree, whose
/// order is fixed; one less than the size for the built-ins, whose order is not specified),
/// and in a finishing pass the same again over the partials. A floating-point
/// sum's rounding error is at most about this many unit roundoffs times the sum of magnitudes.
std::uint64_t additions_per_value(const std::vector<Pass>& passes, Path path,
                                  std::uint64_t first_per_load = 4);

/// Values each of the two temporaries must hold. Passes write to them alternately, the
/// first pass to temporary 0; a finishing pass writes its partials to temporary 1 and the
/// result to temporary 0.
std::array<std::uint64_t, 2> temporary_values(const std::vector<Pass>& passes);

} // namespace clreduce
