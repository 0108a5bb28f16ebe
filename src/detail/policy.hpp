#pragma once
// The tuning policy: every decision about how a reduction is built and launched on one
// device, for one type, op and recipe, in one value (CUB's DeviceReducePolicy is the model).
// policy_for() takes from the device's report all that the program's build needs; settle()
// takes the rest from the built kernels. Both are plain functions of what they are given (the
// decisions themselves are in capabilities.hpp, finish.hpp and plan.hpp), so they are tested
// without a device.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"
#include "detail/capabilities.hpp"
#include "detail/finish.hpp"
#include "detail/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace clreduce {

/// What the two built kernels (reduce and reduce_and_finish) report on the device.
struct KernelLimits {
    std::size_t work_group_size = 1;    // the smaller CL_KERNEL_WORK_GROUP_SIZE
    std::uint64_t local_memory = 0;     // the larger CL_KERNEL_LOCAL_MEM_SIZE, in bytes
    std::size_t preferred_multiple = 1; // reduce's CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
};

/// How a reduction is built and launched.
struct Policy {
    Recipe recipe;                          // what was asked for
    DataType accumulator = DataType::int32; // accumulator_for() the recipe
    Path path = Path::tree;         // the recipe's, else the best the device reports for the op
    Finish finish = Finish::passes; // policy_for: the one built for; settle: the one run
    FinishOrdering ordering = FinishOrdering::memory_model; // of a last-group finish's atomics
    bool contiguous_runs = false; // each work-item reads a contiguous run, not a stride (CPUs)
    bool simd_sized_work_groups = false; // aim for the kernel's preferred multiple (CPUs)
    std::size_t smallest_work_group = 1; // the least the path runs with
    std::string build_options;           // build_options() of the above, for the input
    std::string partials_build_options;  // the same for passes over partials
    PassShape shape;                     // settle: the work-group size, how passes are cut
};
bool operator==(const Policy& a, const Policy& b);

/// Everything the program's build needs, from the device's report. Throws
/// Error(Errc::unsupported) for a last-group finish with the textbook factor, for a type
/// (or accumulator) the device cannot hold, for an accumulator the values cannot be reduced
/// in, and for a collective path the op has no built-in for.
Policy policy_for(const DeviceReport& report, const Recipe& recipe);

/// The rest, once the kernels are built: the finish confirmed (confirm_finish, which asks for
/// `compiled_binary` only where it must), the work-group size within the kernels' and the
/// device's limits, and the pass shape. Throws Error(Errc::unsupported) for a recipe's
/// work-group size past those limits and for a last-group finish the binary does not prove.
Policy settle(Policy policy, const DeviceReport& report, const KernelLimits& kernels,
              const std::function<std::string()>& compiled_binary);

} // namespace clreduce
