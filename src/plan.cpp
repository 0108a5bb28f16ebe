#include "detail/plan.hpp"

#include <algorithm>
#include <limits>

namespace clreduce {
namespace {

/// Enough work-groups per compute unit to keep it busy and even out the tail; more only
/// lengthen the second pass (docs/design.md, "The launch shape").
constexpr std::size_t work_groups_per_compute_unit = 4;

/// On CPUs, the input each work-group takes once there is more than one per compute unit
/// (for_cpu).
constexpr std::uint64_t cpu_work_group_bytes = 256 * 1024;

/// Four int4 loads per work-item, one per accumulator, before the work-group step is worth
/// its barriers.
constexpr std::uint64_t device_values_per_work_item = 16;

std::size_t floor_power_of_two(std::uint64_t value) {
    std::size_t power = 1;
    while (power <= value / 2)
        power *= 2;
    return power;
}

std::uint64_t divided_up(std::uint64_t values, std::uint64_t per_group) {
    return values / per_group + (values % per_group != 0 ? 1 : 0);
}

/// The most work-groups `values` are spread over before the shape's maximum: no limit but on
/// CPUs (for_cpu).
std::uint64_t spread_limit(std::uint64_t values, const PassShape& shape) {
    if (shape.values_per_cpu_work_group == 0)
        return std::numeric_limits<std::uint64_t>::max();
    return std::max<std::uint64_t>(shape.compute_units,
                                   divided_up(values, shape.values_per_cpu_work_group));
}

std::uint64_t log2_of(std::uint64_t power_of_two) {
    std::uint64_t exponent = 0;
    while (power_of_two > 1) {
        power_of_two /= 2;
        ++exponent;
    }
    return exponent;
}

} // namespace

WorkGroupBound work_group_bound(const WorkGroupLimits& limits) {
    WorkGroupBound bound{limits.kernel, "CL_KERNEL_WORK_GROUP_SIZE"};
    if (limits.work_item < bound.size)
        bound = {limits.work_item, "CL_DEVICE_MAX_WORK_ITEM_SIZES[0]"};
    const std::uint64_t local_memory_items = limits.local_memory_free / limits.value_size;
    if (local_memory_items < bound.size)
        bound = {local_memory_items,
                 "the local memory beside the kernel's own, one value per work-item "
                 "(CL_DEVICE_LOCAL_MEM_SIZE)"};
    bound.size = std::max<std::uint64_t>(bound.size, 1);
    return bound;
}

std::size_t choose_work_group_size(const WorkGroupLimits& limits) {
    const std::uint64_t bound = work_group_bound(limits).size;
    const std::uint64_t wanted =
        limits.wanted == 0 ? bound : std::min<std::uint64_t>(limits.wanted, bound);
    const std::uint64_t smallest = std::min<std::uint64_t>(limits.smallest, bound);
    return floor_power_of_two(std::max(wanted, smallest));
}

PassShape pass_shape(Factor factor, std::size_t work_group_size, unsigned compute_units,
                     unsigned address_bits) {
    if (factor == Factor::textbook) {
        // A global size must fit the device's size_t: past that, work-items fold more values.
        const std::uint64_t largest_global_size = address_bits >= 64
                                                      ? std::numeric_limits<std::uint64_t>::max()
                                                      : (std::uint64_t{1} << address_bits) - 1;
        const auto most = largest_global_size / work_group_size;
        return {work_group_size, 2,
                most >= std::numeric_limits<std::size_t>::max() ? 0
                                                                : static_cast<std::size_t>(most)};
    }
    return {work_group_size, device_values_per_work_item,
            std::max<std::size_t>(compute_units, 1) * work_groups_per_compute_unit};
}

std::uint64_t values_per_cpu_work_group(std::size_t value_size) {
    return cpu_work_group_bytes / value_size;
}

PassShape for_cpu(PassShape shape, unsigned compute_units, std::size_t value_size) {
    shape.values_per_cpu_work_group = values_per_cpu_work_group(value_size);
    shape.compute_units = std::max(compute_units, 1u);
    return shape;
}

std::vector<Pass> plan_passes(std::uint64_t length, const PassShape& shape, Finish finish) {
    const std::uint64_t per_work_group = shape.values_per_work_group();
    const std::uint64_t most = shape.max_work_groups == 0 ? std::numeric_limits<std::size_t>::max()
                                                          : shape.max_work_groups;
    std::vector<Pass> passes;
    std::uint64_t remaining = length;
    do {
        const std::uint64_t needed =
            std::min(divided_up(remaining, per_work_group), spread_limit(remaining, shape));
        const auto work_groups =
            static_cast<std::size_t>(std::clamp<std::uint64_t>(needed, 1, most));
        const bool finishes = finish == Finish::last_group && work_groups > 1;
        passes.push_back({remaining, work_groups, shape.work_group_size, finishes});
        remaining = passes.back().out();
    } while (remaining > 1);
    return passes;
}

std::uint64_t additions_per_value(const std::vector<Pass>& passes, Path path,
                                  std::uint64_t first_per_load) {
    std::uint64_t additions = 0;
    std::uint64_t per_load = first_per_load;
    for (const auto& pass : passes) {
        const std::uint64_t work_group_step =
            path == Path::tree ? log2_of(pass.work_group_size) : pass.work_group_size - 1;
        const std::uint64_t items = std::uint64_t{pass.work_groups} * pass.work_group_size;
        // A load's per_load / 4 quarters join one after the other; each of the 4 accumulators'
        // 4 lanes takes one value of every 4 loads of the work-item's share; then two steps
        // join the accumulators, two the lanes, one the tail.
        const std::uint64_t share = (pass.in + items - 1) / items;
        const std::uint64_t per_lane = 4 * per_load;
        additions += per_load / 4 - 1 + (share + per_lane - 1) / per_lane + 5 + work_group_step;
        per_load = 4; // later passes read the accumulators
        if (pass.finishes)
            additions += (pass.work_groups + pass.work_group_size - 1) / pass.work_group_size +
                         work_group_step;
    }
    return additions;
}

std::array<std::uint64_t, 2> temporary_values(const std::vector<Pass>& passes) {
    const auto& first = passes.front();
    if (first.finishes)
        return {1, first.work_groups};
    // Outputs only shrink, so each temporary's largest use is its first.
    return {first.out(), passes.size() > 1 ? passes[1].out() : 0};
}

} // namespace clreduce
