// --axis: a reduction along axes (SegmentedReducer; ExactSum per result for --exact), on one
// device or with the array's blocks split among several, uploaded whole or streamed in chunks
// (--host-input), checked per result against the host, printed as NumPy prints an array or
// written to a .npy file (docs/axes.md).

#include "clreduce/exact.hpp"
#include "clreduce/reducer.hpp"
#include "clreduce/segmented.hpp"
#include "clreduce/stream.hpp"
#include "detail/measure.hpp"
#include "detail/profiling.hpp"
#include "detail/reference.hpp"
#include "tool/axis_results.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <memory>
#include <ostream>

namespace clreduce {
namespace {

/// One device's share: whole blocks of the layout, contiguous in memory, so that its results
/// are a contiguous part of the whole result; it reduces `part` along `axes`, from value
/// `first_value` of the array on.
struct Share {
    const SelectedDevice* device = nullptr;
    std::uint64_t first_block = 0;
    std::uint64_t blocks = 0;
    Shape part;
    std::vector<int> axes;
    std::uint64_t first_value = 0;
    std::vector<double> pass_us;
    std::string plan; // describe() of its launches, for -v
};

/// Along adjacent axes, the blocks split among at most `devices` devices as evenly as can be:
/// a layout of one block (a reduced leading axis) runs on one device, and so do axes apart in
/// memory (`steps` of more than one), whose block is the whole array.
std::vector<Share> shares_of(const Shape& shape, const std::vector<int>& axes,
                             const std::vector<AxisLayout>& steps,
                             const std::vector<SelectedDevice>& devices) {
    if (steps.size() > 1)
        return {{&devices.front(), 0, 1, shape, axes, 0, {}, {}}};
    const auto& layout = steps.front();
    const auto count =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(devices.size(), layout.blocks));
    std::vector<Share> shares;
    for (std::uint64_t k = 0; k < count; ++k) {
        const auto begin = layout.blocks * k / count;
        const auto end = layout.blocks * (k + 1) / count;
        const Shape part{{end - begin, layout.length, layout.inner}, Order::c};
        shares.push_back({&devices[k],
                          begin,
                          end - begin,
                          part,
                          {1},
                          begin * layout.length * layout.inner,
                          {},
                          {}});
    }
    return shares;
}

/// A share on its device: the reducer, the share's values there (whole, or the staging its
/// chunks pass through) and its results.
struct Running {
    DeviceQueue queue;
    std::unique_ptr<SegmentedReducer> reducer;
    cl::Buffer input, results;
    std::unique_ptr<AxisStream> stream;
    std::unique_ptr<ExactSum> exact;
    std::vector<cl::Event> events;
};

/// The values a --host-input chunk holds: --chunk's, else 64 MiB worth, as the whole
/// array's stream takes.
std::uint64_t chunk_values(const Options& options) {
    return options.chunk != 0 ? options.chunk : (std::uint64_t{64} << 20) / info(options.type).size;
}

/// Enqueues the share's reduction with its values uploaded whole, then read on the device.
void enqueue_whole(Running& run, const Share& share, const Options& options, const void* first) {
    // OpenCL has no buffer of 0 bytes: an empty share takes one of a value.
    const auto bytes = share.part.values() * info(options.type).size;
    run.input = cl::Buffer(run.queue.context, CL_MEM_READ_ONLY, std::max<std::uint64_t>(1, bytes));
    if (bytes > 0)
        run.queue.queue.enqueueWriteBuffer(run.input, CL_TRUE, 0, bytes, first);
    for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat)
        run.reducer->enqueue_reduce_axes(run.queue.queue, run.input, 0, share.part, share.axes,
                                         run.results, 0, {}, &run.events);
}

/// --host-input: enqueues the share's reduction streamed from host memory in chunks of
/// about --chunk values, or read in place on a CPU device (AxisStream).
void enqueue_streamed(Running& run, const Share& share, const Options& options,
                      const ValuesView& values) {
    run.stream =
        std::make_unique<AxisStream>(*run.reducer, run.queue.queue, values, chunk_values(options),
                                     reads_in_place(run.reducer->report()));
    for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat) {
        std::vector<cl::Event> launched;
        run.stream->enqueue_reduce_axes(share.part, share.axes, run.results, 0, &launched);
        run.events.insert(run.events.end(), launched.begin(), launched.end());
    }
}

/// --exact: each result's exact sum rounded once by ExactSum, the whole array's exact kernels,
/// one result after another over its values gathered side by side (gather_along_axes()).
/// ExactSum writes the sum's type, float (for float16 and bfloat16 too) or double: the sum's
/// accumulator.
void enqueue_exact(Running& run, const Share& share, const Options& options,
                   const ValuesView& values) {
    const auto runs = gather_along_axes(values, share.part, share.axes);
    run.exact = std::make_unique<ExactSum>(run.queue.context, run.queue.device, options.type,
                                           options.work_group_size);
    for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat)
        run.exact->enqueue_runs(run.queue.queue, runs, run.results, 0, &run.events);
}

/// Reduces each share on its device (all enqueued before any is read) and gathers the
/// results in order; each share's launches are timed.
SegmentedResult reduce_shares(std::vector<Share>& shares, const Options& options,
                              const Shape& result_shape, const ValuesView& values) {
    std::vector<std::unique_ptr<Running>> running;
    const auto size = info(values.type).size;
    for (auto& share : shares) {
        auto& run = *running.emplace_back(
            new Running{DeviceQueue(share.device->device), {}, {}, {}, {}, {}, {}});
        run.reducer = std::make_unique<SegmentedReducer>(
            run.queue.context, share.device->device,
            recipe_for(options, query_report(share.device->device), Finish::passes));
        const auto steps = axis_steps(share.part, share.axes);
        run.results = cl::Buffer(run.queue.context, CL_MEM_READ_WRITE,
                                 std::max<std::uint64_t>(1, steps.back().results()) *
                                     run.reducer->accumulator_size());
        const auto* first =
            static_cast<const unsigned char*>(values.data) + share.first_value * size;
        if (options.exact) {
            share.plan = "exact: " + std::to_string(steps.back().results()) +
                         " results, one exact sum after another\n";
            enqueue_exact(run, share, options,
                          ValuesView(values.type, first, share.part.values(), values.origin));
            continue;
        }
        for (const auto& step : steps)
            share.plan += describe(run.reducer->plan(step));
        if (options.host_input)
            enqueue_streamed(run, share, options,
                             ValuesView(values.type, first, share.part.values(), values.origin));
        else
            enqueue_whole(run, share, options, first);
    }
    SegmentedResult whole;
    whole.shape = result_shape;
    for (std::size_t k = 0; k < shares.size(); ++k) {
        auto& run = *running[k];
        const auto count = axis_steps(shares[k].part, shares[k].axes).back().results();
        std::vector<unsigned char> bytes(count * run.reducer->accumulator_size());
        if (count > 0)
            run.queue.queue.enqueueReadBuffer(run.results, CL_TRUE, 0, bytes.size(), bytes.data());
        run.queue.queue.finish();
        run.reducer->append_results(whole, bytes.data(), count);
        for (const auto& event : run.events)
            shares[k].pass_us.push_back(command_us(event));
    }
    return whole;
}

/// --exact sums each result on the device from a gathered copy of its values, so not with
/// --host-input.
void refuse_streaming(const Options& options) {
    if (options.exact && options.host_input)
        throw Failure(ExitCode::usage, "--exact --axis sums each result from the device's "
                                       "memory, so not with --host-input");
}

std::string device_name(const Share& share) {
    return share.device->device.getInfo<CL_DEVICE_NAME>() + " (-p " +
           std::to_string(share.device->platform_index) + " -d " +
           std::to_string(share.device->device_index) + ")";
}

void print_text(std::ostream& out, const Options& options, const std::vector<Share>& shares,
                const SegmentedResult& result, bool checked) {
    if (options.verbosity != Verbosity::quiet)
        for (const auto& share : shares) {
            out << "device " << device_name(share) << ", blocks " << share.first_block << " to "
                << share.first_block + share.blocks << "\n";
            if (options.verbosity == Verbosity::verbose)
                out << "plan:\n" << share.plan;
            for (std::size_t pass = 0; pass < share.pass_us.size(); ++pass)
                out << "pass " << pass + 1 << ": " << fixed(share.pass_us[pass]) << " us\n";
        }
    if (options.verbosity != Verbosity::quiet)
        out << "shape " << shape_text(result.shape.extents) << "\n";
    print_results(out, options, result);
    if (options.verbosity != Verbosity::quiet)
        out << (checked ? "every result matches the host reference\n" : "unchecked (--no-check)\n");
}

/// A JSON array of `values`, each written by `write`.
template <typename T, typename Write>
std::string json_array(const std::vector<T>& values, Write write) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i == 0 ? "" : ", ") + write(values[i]);
    return text + "]";
}

void print_json(std::ostream& out, const Options& options, const std::vector<Share>& shares,
                const SegmentedResult& result, bool checked) {
    const auto number = [](std::uint64_t x) { return std::to_string(x); };
    const auto microseconds = [](double x) { return fixed(x); };
    out << "{\"shape\": " << json_array(result.shape.extents, number)
        << ", \"output\": " << (options.output.empty() ? "null" : json_string(options.output))
        << ", \"check\": " << json_string(checked ? "passed" : "skipped") << ", \"shares\": "
        << json_array(shares,
                      [&](const Share& share) {
                          return "{\"device\": " + json_string(device_name(share)) +
                                 ", \"blocks\": [" + number(share.first_block) + ", " +
                                 number(share.first_block + share.blocks) +
                                 "], \"passes_us\": " + json_array(share.pass_us, microseconds) +
                                 "}";
                      })
        << "}\n";
}

} // namespace

ExitCode run_axes(const std::vector<SelectedDevice>& devices, const Options& options,
                  const std::optional<ValuesView>& file, const std::optional<Shape>& file_shape,
                  std::ostream& out) {
    const auto shape = array_shape(options, file_shape);
    const auto steps = steps_of(shape, options, file_shape.has_value());
    if (options.exact)
        refuse_inexact_op(options);
    refuse_streaming(options);
    refuse_past_host_memory(shape.values(), info(options.type).size);
    const auto drawn =
        file ? HostValues{} : random_values(options.type, options.op, shape.values(), options.seed);
    const ValuesView values = file ? *file : ValuesView(drawn);

    auto shares = shares_of(shape, options.axes, steps, devices);
    const auto result = reduce_shares(shares, options, steps.back().result, values);
    // Every result reduces this many values, whatever order the steps compose them in.
    std::uint64_t length = 1;
    for (const auto& step : steps)
        length *= step.length;
    if (options.check)
        refuse_wrong(options, result,
                     axis_references_of(options, devices.front().device, values, shape), length,
                     values.origin);
    if (!options.output.empty())
        write_npy(options.output, options, result);
    if (options.format == Format::json)
        print_json(out, options, shares, result, options.check);
    else
        print_text(out, options, shares, result, options.check);
    return ExitCode::success;
}

} // namespace clreduce
