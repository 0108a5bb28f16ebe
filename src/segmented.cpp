#include "clreduce/segmented.hpp"

#include "clreduce/errors.hpp"
#include "clreduce/reducer.hpp"
#include "detail/policy.hpp"
#include "detail/profiling.hpp"
#include "detail/program.hpp"
#include "detail/segment_plan.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <limits>

namespace clreduce {
namespace {

/// Work-groups of at most this many work-items: enough to read a row's values side by side,
/// few enough for the columns' combine of phases.
constexpr std::size_t largest_work_group = 256;

/// reduce.cl followed by segmented.cl, completed for the op on values of `input` (`reads`:
/// the input's values, or partials, which for argmin and argmax are pairs already).
std::string segmented_source(const Policy& policy, DataType input, const Expressions& user,
                             Reads reads) {
    const std::string text =
        std::string(embedded_kernel_source()) + std::string(embedded_segmented_source());
    return complete_kernel_source(text, policy.recipe.op, policy.path, input, policy.accumulator,
                                  user, reads);
}

/// The launch shape: a power of two within the kernels', the device's and the local memory's
/// limits (and the recipe's size, if given), with the tuning.
SegmentDevice launch_shape(const DeviceReport& report, const Policy& policy,
                           const std::vector<cl::Kernel>& kernels, const cl::Device& device,
                           const SegmentTuning& tuning) {
    std::size_t bound = std::min(largest_work_group, report.max_work_item_size);
    if (policy.recipe.work_group_size != 0)
        bound = std::min(bound, policy.recipe.work_group_size);
    for (const auto& kernel : kernels)
        if (kernel()) // not every build has every kernel
            bound = std::min(bound, kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device));
    bound = std::min<std::uint64_t>(bound, report.local_memory /
                                               partial_size(policy.recipe.op, policy.accumulator));
    std::size_t size = 1;
    while (size * 2 <= bound)
        size *= 2;
    auto shape =
        segment_device(size, report.compute_units, (report.type & CL_DEVICE_TYPE_CPU) != 0, tuning);
    // argmin's and argmax's values are read as leads, which reduce_vector_rows does not.
    if (!info(policy.recipe.op).indexed)
        shape.values_per_load = info(policy.recipe.type).values_per_load();
    shape.local_accumulators =
        report.local_memory / partial_size(policy.recipe.op, policy.accumulator);
    return shape;
}

} // namespace

SegmentedReducer::SegmentedReducer(const cl::Context& context, const cl::Device& device,
                                   const Recipe& recipe)
    : SegmentedReducer(context, device, recipe, SegmentTuning{}) {}

SegmentedReducer::SegmentedReducer(const cl::Context& context, const cl::Device& device,
                                   const Recipe& recipe, const SegmentTuning& tuning) try
    : context_(context)
    , device_(device)
    , report_(std::make_unique<DeviceReport>(query_report(device)))
    , policy_(std::make_unique<Policy>(policy_for(*report_, recipe))) {
    const auto kernels_of = [&](const std::string& source, const std::string& options,
                                bool vector_rows) {
        const auto program = cached_program(context_, device_, source, options);
        return Kernels{
            program_kernel(device_, program, "reduce_segments"),
            program_kernel(device_, program, "reduce_columns"),
            program_kernel(device_, program, "reduce_segments_batched"),
            program_kernel(device_, program, "reduce_columns_batched"),
            program_kernel(device_, program, "reduce_column_strips"),
            policy_->contiguous_runs ? program_kernel(device_, program, "reduce_column_runs")
                                     : cl::Kernel(),
            vector_rows ? program_kernel(device_, program, "reduce_vector_rows") : cl::Kernel(),
            vector_rows && policy_->contiguous_runs
                ? program_kernel(device_, program, "reduce_vector_row_runs")
                : cl::Kernel()};
    };
    // Only the values' first pass reads rows as vectors; not argmin's or argmax's (leads).
    values_kernels_ =
        kernels_of(segmented_source(*policy_, recipe.type, recipe.user, Reads::values),
                   policy_->build_options, !info(recipe.op).indexed);
    auto partials_user = recipe.user; // partials were mapped by the first pass
    partials_user.map.clear();
    partials_kernels_ =
        kernels_of(segmented_source(*policy_, policy_->accumulator, partials_user, Reads::partials),
                   policy_->partials_build_options, false);
    device_shape_ = std::make_unique<SegmentDevice>(launch_shape(
        *report_, *policy_,
        {values_kernels_.rows, values_kernels_.columns, values_kernels_.rows_batched,
         values_kernels_.columns_batched, values_kernels_.column_strips, partials_kernels_.rows,
         partials_kernels_.columns, partials_kernels_.rows_batched,
         partials_kernels_.columns_batched, partials_kernels_.column_strips,
         values_kernels_.vector_rows, values_kernels_.vector_row_runs},
        device_, tuning));
} catch (const cl::Error& error) {
    throw Error(error);
}

SegmentedReducer::~SegmentedReducer() = default;

const Policy& SegmentedReducer::policy() const {
    return *policy_;
}

DataType SegmentedReducer::accumulator() const {
    return policy_->accumulator;
}

std::size_t SegmentedReducer::accumulator_size() const {
    return partial_size(policy_->recipe.op, accumulator());
}

const SegmentDevice& SegmentedReducer::device_shape() const {
    return *device_shape_;
}

std::vector<SegmentPass> SegmentedReducer::plan(const AxisLayout& layout,
                                                std::uint64_t first) const {
    return plan_axis(layout, *device_shape_, first);
}

void SegmentedReducer::require_holds(const cl::Buffer& buffer, std::uint64_t first,
                                     std::uint64_t count, std::size_t size,
                                     const char* what) const {
    const auto values = buffer.getInfo<CL_MEM_SIZE>() / size;
    if (first > values || count > values - first)
        throw Error(Errc::invalid_argument, std::string("reduce: the ") + what + " buffer holds " +
                                                std::to_string(values) + " values, fewer than " +
                                                std::to_string(first) + " + " +
                                                std::to_string(count));
}

void SegmentedReducer::enqueue_pass(const cl::CommandQueue& queue, const SegmentPass& pass,
                                    const Source& in, const cl::Buffer* offsets,
                                    const cl::Buffer& out, std::uint64_t first_out,
                                    const std::vector<cl::Event>& wait, cl::Event& event) {
    auto& kernels = in.partials ? partials_kernels_ : values_kernels_;
    const auto scratch = cl::Local(scratch_bytes(pass, accumulator_size()));
    const bool rows = pass.kernel == SegmentKernel::rows;
    const bool runs = pass.kernel == SegmentKernel::column_runs;
    const bool batched = pass.batch > 1;
    cl::Kernel kernel = runs ? kernels.column_runs
                        : pass.vectors > 0
                            ? (pass.own_rows ? kernels.vector_row_runs : kernels.vector_rows)
                        : rows           ? (batched ? kernels.rows_batched : kernels.rows)
                        : batched        ? kernels.columns_batched
                        : pass.strip > 1 ? kernels.column_strips
                                         : kernels.columns;
    // Where the kernels read, the shape each reads, then the arguments all take: how the
    // work is cut, where the results go; the team kernels' local memory last. Uniform rows
    // still pass a buffer where the offsets go; the kernel does not read it.
    const cl_uint shape =
        set_args(kernel, 0, in.buffer, cl_ulong{in.first}, cl_ulong{in.index_base});
    cl_uint shared = rows ? set_args(kernel, shape, offsets ? *offsets : out,
                                     cl_ulong{offsets ? 0 : pass.length}, cl_ulong{pass.blocks})
                          : set_args(kernel, shape, cl_ulong{pass.length}, cl_ulong{pass.columns});
    if (runs)
        shared = set_args(kernel, shared, cl_ulong{pass.blocks});
    const cl_uint local =
        set_args(kernel, shared, cl_uint{pass.width}, cl_ulong{pass.chunks}, cl_ulong{pass.tiles},
                 cl_uint{pass.tiles_per_group}, out, cl_ulong{first_out});
    if (!runs)
        set_args(kernel, local, scratch);
    queue.enqueueNDRangeKernel(
        kernel, cl::NullRange, cl::NDRange(pass.work_groups * pass.work_group_size),
        cl::NDRange(pass.work_group_size), wait.empty() ? nullptr : &wait, &event);
}

void SegmentedReducer::enqueue_step(const cl::CommandQueue& queue, const AxisLayout& layout,
                                    const Source& in, const cl::Buffer& out,
                                    std::uint64_t first_out, const std::vector<cl::Event>& wait,
                                    std::vector<cl::Event>& launched) {
    auto device = *device_shape_;
    if (in.partials) // only values are read as vectors (values_kernels_.vector_rows)
        device.values_per_load = 0;
    enqueue_passes(queue, plan_axis(layout, device, in.first), in, nullptr, out, first_out, wait,
                   launched);
}

void SegmentedReducer::enqueue_passes(const cl::CommandQueue& queue,
                                      const std::vector<SegmentPass>& passes, const Source& in,
                                      const cl::Buffer* offsets, const cl::Buffer& out,
                                      std::uint64_t first_out, const std::vector<cl::Event>& wait,
                                      std::vector<cl::Event>& launched) {
    if (passes.empty()) // no results
        return;
    const bool split = passes.size() == 2;
    if (split && partials_capacity_ < passes.front().outputs()) {
        partials_ =
            cl::Buffer(context_, CL_MEM_READ_WRITE, passes.front().outputs() * accumulator_size());
        partials_capacity_ = passes.front().outputs();
    }
    launched.emplace_back();
    enqueue_pass(queue, passes.front(), in, offsets, split ? partials_ : out, split ? 0 : first_out,
                 wait, launched.back());
    if (split) {
        launched.emplace_back();
        enqueue_pass(queue, passes.back(), {partials_, 0, true, 0}, nullptr, out, first_out, {},
                     launched.back());
    }
}

void SegmentedReducer::enqueue_map_step(const cl::CommandQueue& queue, const StepGroups& groups,
                                        const AxisLayout& layout, const Source& in,
                                        const cl::Buffer& out, const std::vector<cl::Event>& wait,
                                        std::vector<cl::Event>& launched) {
    auto group = layout;
    group.blocks = groups.blocks;
    for (std::size_t g = 0; g < groups.index_bases.size(); ++g) {
        const Source part{in.buffer, in.first + g * group.blocks * group.length * group.inner,
                          in.partials, in.index_base + groups.index_bases[g]};
        enqueue_step(queue, group, part, out, g * group.blocks * group.inner,
                     launched.empty() ? wait : std::vector<cl::Event>{}, launched);
    }
}

cl::Event SegmentedReducer::enqueue_reduce_axes(
    const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first, const Shape& shape,
    const std::vector<int>& axes, const cl::Buffer& result, std::uint64_t result_index,
    const std::vector<cl::Event>& wait, std::vector<cl::Event>* events, std::uint64_t index_base) {
    return enqueue_axes(queue, {input, first, false, index_base}, shape, axes, result, result_index,
                        wait, events);
}

cl::Event SegmentedReducer::enqueue_combine_axes(const cl::CommandQueue& queue,
                                                 const cl::Buffer& partials, std::uint64_t first,
                                                 const Shape& shape, const std::vector<int>& axes,
                                                 const cl::Buffer& result,
                                                 std::uint64_t result_index,
                                                 const std::vector<cl::Event>& wait,
                                                 std::vector<cl::Event>* events) {
    return enqueue_axes(queue, {partials, first, true, 0}, shape, axes, result, result_index, wait,
                        events);
}

cl::Event SegmentedReducer::enqueue_axes(const cl::CommandQueue& queue, const Source& input,
                                         const Shape& shape, const std::vector<int>& axes,
                                         const cl::Buffer& result, std::uint64_t result_index,
                                         const std::vector<cl::Event>& wait,
                                         std::vector<cl::Event>* events) try {
    const auto steps = axis_steps(shape, axes);
    require_holds(input.buffer, input.first, shape.values(),
                  input.partials ? accumulator_size() : info(policy_->recipe.type).size, "input");
    require_holds(result, result_index, steps.back().results(), accumulator_size(), "result");
    if (steps.size() > 1 && info(policy_->recipe.op).indexed)
        throw Error(Errc::unsupported,
                    "axes apart in memory are reduced one run of adjacent axes after another, "
                    "and the index of argmin and argmax counts along one run");
    // Each step but the last leaves its results, accumulators, for the next to read.
    std::vector<cl::Event> launched;
    Source from = input;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const bool last = k + 1 == steps.size();
        const auto to =
            last ? result
                 : cl::Buffer(context_, CL_MEM_READ_WRITE,
                              std::max<std::uint64_t>(1, steps[k].results()) * accumulator_size());
        if (k == 0 && steps.size() > 1 && !policy_->recipe.user.map.empty())
            enqueue_map_step(queue, first_step_groups(shape, axes), steps[k], from, to, wait,
                             launched);
        else
            enqueue_step(queue, steps[k], from, to, last ? result_index : 0,
                         launched.empty() ? wait : std::vector<cl::Event>{}, launched);
        from = {to, 0, true, 0};
    }
    if (launched.empty()) { // no results: nothing to do but what the caller waits for
        launched.emplace_back();
        queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &launched.back());
        return launched.back();
    }
    if (events)
        *events = launched;
    return launched.back();
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Event
SegmentedReducer::enqueue_reduce_segments(const cl::CommandQueue& queue, const cl::Buffer& input,
                                          std::uint64_t first, std::uint64_t count,
                                          const cl::Buffer& offsets, std::uint64_t segments,
                                          const cl::Buffer& result, std::uint64_t result_index,
                                          const std::vector<cl::Event>& wait, cl::Event* launch) {
    std::vector<cl::Event> launched;
    enqueue_segments(queue, input, first, count, offsets, segments, result, result_index, wait,
                     launched);
    if (launch)
        *launch = launched.back();
    return launched.back();
}

void SegmentedReducer::enqueue_segments(const cl::CommandQueue& queue, const cl::Buffer& input,
                                        std::uint64_t first, std::uint64_t count,
                                        const cl::Buffer& offsets, std::uint64_t segments,
                                        const cl::Buffer& result, std::uint64_t result_index,
                                        const std::vector<cl::Event>& wait,
                                        std::vector<cl::Event>& launched) try {
    require_holds(input, first, count, info(policy_->recipe.type).size, "input");
    require_holds(offsets, 0, segments + 1, sizeof(cl_ulong), "offsets");
    require_holds(result, result_index, segments, accumulator_size(), "result");
    enqueue_passes(queue, plan_csr(segments, count, *device_shape_), {input, first, false, 0},
                   &offsets, result, result_index, wait, launched);
    if (launched.empty()) { // no segments: nothing to do but what the caller waits for
        launched.emplace_back();
        queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &launched.back());
    }
} catch (const cl::Error& error) {
    throw Error(error);
}

SegmentedResult SegmentedReducer::read_results(const cl::CommandQueue& queue,
                                               const cl::Buffer& results, Shape shape,
                                               const std::vector<cl::Event>& events) const {
    SegmentedResult result;
    result.shape = std::move(shape);
    const auto count = result.shape.values();
    std::vector<unsigned char> bytes(count * accumulator_size());
    if (count > 0)
        queue.enqueueReadBuffer(results, CL_TRUE, 0, bytes.size(), bytes.data());
    queue.finish();
    append_results(result, bytes.data(), count);
    if (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE)
        for (const auto& event : events)
            if (event())
                result.pass_us.push_back(command_us(event));
    return result;
}

void SegmentedReducer::append_results(SegmentedResult& into, const void* bytes,
                                      std::uint64_t count) const {
    const bool indexed = info(policy_->recipe.op).indexed;
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto* result = static_cast<const unsigned char*>(bytes) + i * accumulator_size();
        into.values.push_back(scalar_from_bytes(accumulator(), result));
        if (!indexed)
            continue;
        // The identity's index, past every value's, is what an empty segment leaves.
        const auto index = index_of_pair(result);
        into.indices.push_back(index == std::numeric_limits<std::int64_t>::max() ? no_index
                                                                                 : index);
    }
}

SegmentedResult SegmentedReducer::reduce_axes(const cl::CommandQueue& queue,
                                              const cl::Buffer& input, std::uint64_t first,
                                              const Shape& shape,
                                              const std::vector<int>& axes) try {
    auto last = axis_steps(shape, axes).back();
    const cl::Buffer results(context_, CL_MEM_READ_WRITE,
                             std::max<std::uint64_t>(1, last.results()) * accumulator_size());
    std::vector<cl::Event> events;
    enqueue_reduce_axes(queue, input, first, shape, axes, results, 0, {}, &events);
    return read_results(queue, results, std::move(last.result), events);
} catch (const cl::Error& error) {
    throw Error(error);
}

SegmentedResult SegmentedReducer::reduce_segments(const cl::CommandQueue& queue,
                                                  const cl::Buffer& input, std::uint64_t first,
                                                  std::uint64_t count, const cl::Buffer& offsets,
                                                  std::uint64_t segments) try {
    const cl::Buffer results(context_, CL_MEM_READ_WRITE,
                             std::max<std::uint64_t>(1, segments) * accumulator_size());
    std::vector<cl::Event> launched;
    enqueue_segments(queue, input, first, count, offsets, segments, results, 0, {}, launched);
    return read_results(queue, results, Shape{{segments}, Order::c}, launched);
} catch (const cl::Error& error) {
    throw Error(error);
}

} // namespace clreduce
