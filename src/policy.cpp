#include "clreduce/policy.hpp"

#include "clreduce/errors.hpp"

#include <algorithm>
#include <tuple>

namespace clreduce {
namespace {

/// A --work-group-size past what the device runs the kernels with is refused, not shrunk.
void refuse_past_bound(std::size_t work_group_size, const WorkGroupBound& bound,
                       const std::string& device_name) {
    if (work_group_size > bound.size)
        throw Error(Errc::unsupported, "--work-group-size " + std::to_string(work_group_size) +
                                           " is more than device '" + device_name +
                                           "' runs the kernels with: at most " +
                                           std::to_string(bound.size) + " work-items, " +
                                           bound.limit);
}

std::size_t work_group_size(const Policy& policy, const DeviceReport& report,
                            const KernelLimits& kernels) {
    WorkGroupLimits limits;
    limits.kernel = kernels.work_group_size;
    limits.work_item = report.max_work_item_size;
    limits.local_memory_free =
        report.local_memory - std::min(kernels.local_memory, report.local_memory);
    limits.value_size = info(policy.recipe.type).size;
    if (policy.simd_sized_work_groups)
        limits.wanted = kernels.preferred_multiple;
    if (policy.recipe.work_group_size != 0) {
        refuse_past_bound(policy.recipe.work_group_size, work_group_bound(limits), report.name);
        limits.wanted = policy.recipe.work_group_size;
    }
    limits.smallest = policy.smallest_work_group;
    return choose_work_group_size(limits);
}

} // namespace

bool operator==(const Recipe& a, const Recipe& b) {
    return std::tie(a.type, a.op, a.path, a.factor, a.finish, a.work_group_size) ==
           std::tie(b.type, b.op, b.path, b.factor, b.finish, b.work_group_size);
}

bool operator==(const Policy& a, const Policy& b) {
    const auto shape = [](const PassShape& s) {
        return std::tie(s.work_group_size, s.values_per_work_item, s.max_work_groups,
                        s.values_per_cpu_work_group, s.compute_units);
    };
    return std::tie(a.recipe, a.path, a.finish, a.ordering, a.contiguous_runs,
                    a.simd_sized_work_groups, a.smallest_work_group, a.build_options) ==
               std::tie(b.recipe, b.path, b.finish, b.ordering, b.contiguous_runs,
                        b.simd_sized_work_groups, b.smallest_work_group, b.build_options) &&
           shape(a.shape) == shape(b.shape);
}

Policy policy_for(const DeviceReport& report, const Recipe& recipe) {
    Policy policy;
    policy.recipe = recipe;
    policy.path = recipe.path.value_or(best_path(report));
    policy.finish = choose_finish(recipe.factor, recipe.finish);
    require_type_support(report, recipe.type);
    policy.ordering = finish_ordering(report);
    policy.contiguous_runs = reads_contiguous_runs(report);
    // A CPU runs a work-group as a loop on one core: it only needs enough work-items for the
    // SIMD lanes the compiler spreads them over, which the preferred multiple reports.
    policy.simd_sized_work_groups = (report.type & CL_DEVICE_TYPE_CPU) != 0;
    // PoCL 5.0 aborts (its kernel library lacks __pocl_work_group_alloca) when a sub-group
    // kernel runs in work-groups of fewer than 4 work-items.
    policy.smallest_work_group = policy.path == Path::sub_group ? 4 : 1;
    policy.build_options = build_options(report, policy.path, policy.finish, recipe.type);
    return policy;
}

Policy settle(Policy policy, const DeviceReport& report, const KernelLimits& kernels,
              const std::function<std::string()>& compiled_binary) {
    policy.finish = confirm_finish(report, policy.finish, policy.recipe.finish, compiled_binary);
    policy.shape = pass_shape(policy.recipe.factor, work_group_size(policy, report, kernels),
                              report.compute_units, report.address_bits);
    if (report.type & CL_DEVICE_TYPE_CPU && policy.recipe.factor == Factor::device)
        policy.shape = for_cpu(policy.shape, report.compute_units, info(policy.recipe.type).size);
    return policy;
}

} // namespace clreduce
