#include "detail/policy.hpp"

#include "clreduce/errors.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <tuple>

namespace clreduce {
namespace {

/// A recipe's work_group_size past what the device runs the kernels with is refused, not shrunk.
void refuse_past_bound(std::size_t work_group_size, const WorkGroupBound& bound,
                       const std::string& device_name) {
    if (work_group_size > bound.size)
        throw Error(Errc::unsupported, "work_group_size " + std::to_string(work_group_size) +
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
    limits.value_size =
        partial_size(policy.recipe.op, policy.accumulator); // local memory holds partials
    if (policy.simd_sized_work_groups)
        limits.wanted = kernels.preferred_multiple;
    if (policy.recipe.work_group_size != 0) {
        refuse_past_bound(policy.recipe.work_group_size, work_group_bound(limits), report.name);
        limits.wanted = policy.recipe.work_group_size;
    }
    limits.smallest = policy.smallest_work_group;
    return choose_work_group_size(limits);
}

/// Only results can be accumulators, and floating-point values are not truncated to integers
/// (any and all map each value to 0 or 1 first).
void refuse_accumulator(DataType type, Op op, DataType accumulator) {
    if (!accumulates(accumulator))
        throw Error(Errc::invalid_argument,
                    "the accumulator " + name_of(accumulator) +
                        " is not one of int32, uint32, int64, uint64, float, double");
    if (info(type).floating() && !info(accumulator).floating() && !info(op).map)
        throw Error(Errc::invalid_argument,
                    name_of(type) + " values cannot accumulate in " + name_of(accumulator));
}

/// A user's op needs both its expressions; a map replaces no op's own (any and all's).
void refuse_expressions(Op op, const Expressions& user) {
    if (op == Op::custom && (user.reduce.empty() || user.identity.empty()))
        throw Error(Errc::invalid_argument, "a custom op needs both its reduce expression and "
                                            "its identity");
    if (op != Op::custom && (!user.reduce.empty() || !user.identity.empty()))
        throw Error(Errc::invalid_argument,
                    "a reduce expression and an identity make the custom op, not " + name_of(op));
    if (!user.map.empty() && info(op).map)
        throw Error(Errc::invalid_argument,
                    name_of(op) + " maps each value to x != 0 itself and takes no other map");
}

/// The recipe's path, else the best the device reports; the tree where the op has no
/// built-in.
Path path_for(const DeviceReport& report, std::optional<Path> requested, Op op,
              DataType accumulator) {
    if (has_builtin(op, accumulator))
        return requested.value_or(best_path(report));
    if (requested.value_or(Path::tree) != Path::tree)
        throw Error(Errc::unsupported, "the " + name_of(*requested) + " path has no built-in for " +
                                           name_of(op) + " of " + name_of(accumulator) +
                                           ": only the tree reduces it");
    return Path::tree;
}

} // namespace

bool operator==(const Policy& a, const Policy& b) {
    const auto shape = [](const PassShape& s) {
        return std::tie(s.work_group_size, s.values_per_work_item, s.max_work_groups,
                        s.values_per_cpu_work_group, s.compute_units);
    };
    return std::tie(a.recipe, a.accumulator, a.path, a.finish, a.ordering, a.contiguous_runs,
                    a.simd_sized_work_groups, a.smallest_work_group, a.build_options,
                    a.partials_build_options) ==
               std::tie(b.recipe, b.accumulator, b.path, b.finish, b.ordering, b.contiguous_runs,
                        b.simd_sized_work_groups, b.smallest_work_group, b.build_options,
                        b.partials_build_options) &&
           shape(a.shape) == shape(b.shape);
}

Policy policy_for(const DeviceReport& report, const Recipe& recipe) {
    Policy policy;
    policy.recipe = recipe;
    policy.accumulator = accumulator_for(recipe.type, recipe.op, recipe.accumulate);
    if (info(recipe.op).indexed && recipe.accumulate)
        throw Error(Errc::invalid_argument, name_of(recipe.op) +
                                                " gives the extreme value as it is: the recipe's "
                                                "accumulate must be empty");
    refuse_accumulator(recipe.type, recipe.op, policy.accumulator);
    refuse_expressions(recipe.op, recipe.user);
    policy.path = path_for(report, recipe.path, recipe.op, policy.accumulator);
    policy.finish = choose_finish(recipe.factor, recipe.finish);
    require_type_support(report, recipe.type);
    require_type_support(report, policy.accumulator);
    policy.ordering = finish_ordering(report);
    policy.contiguous_runs = reads_contiguous_runs(report);
    // A CPU runs a work-group as a loop on one core: it only needs enough work-items for the
    // SIMD lanes the compiler spreads them over, which the preferred multiple reports.
    policy.simd_sized_work_groups = (report.type & CL_DEVICE_TYPE_CPU) != 0;
    // PoCL 5.0 aborts (its kernel library lacks __pocl_work_group_alloca) when a sub-group
    // kernel runs in work-groups of fewer than 4 work-items.
    policy.smallest_work_group = policy.path == Path::sub_group ? 4 : 1;
    policy.build_options = build_options(report, policy.path, policy.finish, recipe.type,
                                         policy.accumulator, recipe.op, Reads::values);
    policy.partials_build_options =
        build_options(report, policy.path, policy.finish, policy.accumulator, policy.accumulator,
                      recipe.op, Reads::partials);
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
