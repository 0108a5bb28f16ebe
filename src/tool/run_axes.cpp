// --axis: a reduction along axes (SegmentedReducer; ExactSum's segmented sums for --exact), on one
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
#include "tool/axis_parts.hpp"
#include "tool/axis_results.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <ostream>

namespace clreduce {
namespace {

/// One device's share: its part of the array, contiguous in memory (axis_parts.hpp).
struct Share {
    const SelectedDevice* device = nullptr;
    AxisPart part;
    std::vector<double> spans_us; // each timed run's, its first launch's start to its last's end
    std::vector<double> pass_us;  // the fastest run's launches
    std::string plan;             // describe() of its launches, for -v

    std::uint64_t bytes(DataType type) const { return part.shape.values() * info(type).size; }

    /// Records one timed run's launches: its span and, for the fastest run so far, each
    /// launch's time. A run without launches (no values) spans nothing.
    void record(const std::vector<cl::Event>& launched) {
        const double span = launched.empty() ? 0 : span_us(launched.front(), launched.back());
        if (spans_us.empty() || span < *std::min_element(spans_us.begin(), spans_us.end())) {
            pass_us.clear();
            for (const auto& event : launched)
                pass_us.push_back(command_us(event));
        }
        spans_us.push_back(span);
    }
};

/// The array's blocks, rows or slices (axis_parts.hpp) split among at most `devices` devices
/// as evenly as can be.
std::vector<Share> shares_of(const Shape& shape, const std::vector<int>& axes,
                             const std::vector<AxisLayout>& steps,
                             const std::vector<SelectedDevice>& devices) {
    const auto count = std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(devices.size(), axis_positions(shape, steps)));
    std::vector<Share> shares;
    for (std::uint64_t k = 0; k < count; ++k)
        shares.push_back({&devices[k], axis_part(shape, axes, steps, count, k), {}, {}, {}});
    return shares;
}

/// Whether the shares' arrays of results combine element-wise (they split a reduced axis).
bool combined(const std::vector<Share>& shares) {
    return shares.size() > 1 && shares.front().part.combined;
}

/// Enqueues one reduction of a share, each launch's event appended to `launched`.
using Enqueue = std::function<void(std::vector<cl::Event>& launched)>;

/// A share on its device: the reducer, the share's values there (whole, the staging its
/// chunks pass through, or gathered for --exact), how to enqueue its reduction and its results.
struct Running {
    DeviceQueue queue;
    std::unique_ptr<SegmentedReducer> reducer;
    cl::Buffer input, results;
    std::size_t result_size = 0; // the bytes of a result in `results`
    std::unique_ptr<AxisStream> stream;
    std::unique_ptr<ExactSum> exact;
    Enqueue enqueue;
    std::vector<unsigned char> bytes; // the last run's results, as the device wrote them
};

/// The values a --host-input chunk holds: --chunk's, else 64 MiB worth, as the whole
/// array's stream takes.
std::uint64_t chunk_values(const Options& options) {
    return options.chunk != 0 ? options.chunk : (std::uint64_t{64} << 20) / info(options.type).size;
}

/// The share's reduction with its values uploaded whole (now, untimed), then read on the
/// device.
Enqueue whole_input(Running& run, const Share& share, const Options& options, const void* first) {
    // OpenCL has no buffer of 0 bytes: an empty share takes one of a value.
    const auto bytes = share.bytes(options.type);
    run.input = cl::Buffer(run.queue.context, CL_MEM_READ_ONLY, std::max<std::uint64_t>(1, bytes));
    if (bytes > 0)
        run.queue.queue.enqueueWriteBuffer(run.input, CL_TRUE, 0, bytes, first);
    return [&run, &share](std::vector<cl::Event>& launched) {
        run.reducer->enqueue_reduce_axes(run.queue.queue, run.input, 0, share.part.shape,
                                         share.part.axes, run.results, 0, {}, &launched,
                                         share.part.index_base);
    };
}

/// --host-input: the share's reduction streamed from host memory in chunks of about
/// --chunk values, or read in place on a CPU device (AxisStream).
Enqueue streamed_input(Running& run, const Share& share, const Options& options,
                       const ValuesView& values) {
    run.stream =
        std::make_unique<AxisStream>(*run.reducer, run.queue.queue, values, chunk_values(options),
                                     reads_in_place(run.reducer->report()));
    return [&run, &share](std::vector<cl::Event>& launched) {
        run.stream->enqueue_reduce_axes(share.part.shape, share.part.axes, run.results, 0,
                                        &launched, share.part.index_base);
    };
}

/// How ExactSum sums the runs, for -v's plan.
std::string describe(const ExactSum::RunsPlan& plan) {
    const auto size = std::to_string(plan.work_group_size);
    if (plan.work_item_each)
        return "a work-item each in work-groups of " + size + ", one launch";
    if (plan.chunks > 1)
        return std::to_string(plan.chunks) + " work-groups each of " + size +
               ", one launch and a rounding launch";
    return "one work-group each of " + size + ", one launch";
}

/// --exact: each result's exact sum rounded once by ExactSum's segmented kernel, over its
/// values gathered side by side on the host (gather_along_axes(), now) and uploaded once,
/// untimed, as whole_input() uploads a share. ExactSum writes the sum's type, float (for
/// float16 and bfloat16 too) or double: the sum's accumulator. Where the shares split the
/// results' values (`rows`), each result's exact accumulator row instead, which the host adds
/// to the other shares' rows and rounds (rounded_rows()): rounded sums could not combine.
/// Sets the share's plan (-v).
Enqueue exact_sums(Running& run, Share& share, const Options& options, const ValuesView& values,
                   bool rows) {
    const auto gathered = gather_along_axes(values, share.part.shape, share.part.axes);
    run.exact = std::make_unique<ExactSum>(run.queue.context, run.queue.device, options.type,
                                           options.work_group_size);
    run.input = upload_runs(run.queue.context, gathered, info(options.type).size);
    share.plan = "exact: " + std::to_string(gathered.results) + " results of " +
                 std::to_string(gathered.length) + " values, " +
                 describe(run.exact->plan_runs(gathered.length, gathered.results)) +
                 (rows ? ", each result's row added to the other devices' on the host\n" : "\n");
    if (rows) {
        run.result_size = ExactAccumulator::row_width(options.type) * sizeof(cl_long);
        return [&run, runs = gathered.results,
                length = gathered.length](std::vector<cl::Event>& launched) {
            cl::Event done;
            run.results =
                run.exact->enqueue_run_rows(run.queue.queue, run.input, 0, length, runs, &done);
            if (runs > 0)
                launched.push_back(done);
        };
    }
    return [&run, runs = gathered.results,
            length = gathered.length](std::vector<cl::Event>& launched) {
        run.exact->enqueue_runs(run.queue.queue, run.input, 0, length, runs, run.results, 0,
                                nullptr, &launched);
    };
}

/// Each share's results, read once its queue has finished.
void read_results(std::vector<std::unique_ptr<Running>>& running,
                  const std::vector<Share>& shares) {
    for (std::size_t k = 0; k < shares.size(); ++k) {
        auto& run = *running[k];
        const auto count = shares[k].part.results();
        run.bytes.resize(count * run.result_size);
        if (count > 0)
            run.queue.queue.enqueueReadBuffer(run.results, CL_TRUE, 0, run.bytes.size(),
                                              run.bytes.data());
        run.queue.queue.finish();
    }
}

/// Reduces every share (all enqueued before any is read) `options.iterations` times, after an
/// uncounted warm-up unless --cold, each share's launches timed per run; returns each timed
/// run's time on the host's clock, from the first enqueue to the last share's results read.
std::vector<double> repeat_shares(std::vector<std::unique_ptr<Running>>& running,
                                  std::vector<Share>& shares, const Options& options) {
    std::vector<double> observed_us;
    repeat({options.iterations, !options.cold}, [&](bool counted) {
        std::vector<std::vector<cl::Event>> launched(running.size());
        const auto started = std::chrono::steady_clock::now();
        for (std::size_t k = 0; k < running.size(); ++k)
            running[k]->enqueue(launched[k]);
        read_results(running, shares);
        const std::chrono::duration<double, std::micro> took =
            std::chrono::steady_clock::now() - started;
        if (!counted)
            return;
        observed_us.push_back(took.count());
        for (std::size_t k = 0; k < shares.size(); ++k)
            shares[k].record(launched[k]);
    });
    return observed_us;
}

/// The whole result of shares that split a reduced axis (each with an array of the whole
/// result's length), once, after the timed runs: their exact rows added and rounded on the
/// host (--exact), else their arrays combined on the first device.
SegmentedResult combined_result(const std::vector<std::unique_ptr<Running>>& running,
                                const Options& options, const Shape& result_shape) {
    if (options.exact) {
        std::vector<std::vector<unsigned char>> rows;
        for (const auto& run : running)
            rows.push_back(run->bytes);
        return rounded_rows(options.type, result_shape, rows);
    }
    std::vector<unsigned char> partials;
    for (const auto& run : running)
        partials.insert(partials.end(), run->bytes.begin(), run->bytes.end());
    const auto results = result_shape.values();
    auto& reducer = *running.front()->reducer;
    const auto whole = combined_on_device(reducer, partials, running.size(), results);
    SegmentedResult result;
    result.shape = result_shape;
    reducer.append_results(result, whole.data(), results);
    return result;
}

/// What the shares gave: the results in order and each timed run's host-observed time.
struct AxisOutcome {
    SegmentedResult result;
    std::vector<double> observed_us;
};

/// Reduces each share on its device (repeat_shares()) and gathers the last run's results in
/// order.
AxisOutcome reduce_shares(std::vector<Share>& shares, const Options& options,
                          const Shape& result_shape, const ValuesView& values) {
    std::vector<std::unique_ptr<Running>> running;
    const auto size = info(values.type).size;
    for (auto& share : shares) {
        auto& run = *running.emplace_back(
            new Running{DeviceQueue(share.device->device), {}, {}, {}, {}, {}, {}, {}, {}});
        run.reducer = std::make_unique<SegmentedReducer>(
            run.queue.context, share.device->device,
            recipe_for(options, query_report(share.device->device), Finish::passes));
        const auto steps = axis_steps(share.part.shape, share.part.axes);
        run.result_size = run.reducer->accumulator_size();
        run.results =
            cl::Buffer(run.queue.context, CL_MEM_READ_WRITE,
                       std::max<std::uint64_t>(1, steps.back().results()) * run.result_size);
        const auto* first =
            static_cast<const unsigned char*>(values.data) + share.part.first * size;
        if (options.exact) {
            run.enqueue =
                exact_sums(run, share, options,
                           ValuesView(values.type, first, share.part.shape.values(), values.origin),
                           combined(shares));
            continue;
        }
        for (const auto& step : steps)
            share.plan += describe(run.reducer->plan(step));
        run.enqueue = options.host_input
                          ? streamed_input(run, share, options,
                                           ValuesView(values.type, first, share.part.shape.values(),
                                                      values.origin))
                          : whole_input(run, share, options, first);
    }
    AxisOutcome outcome;
    outcome.observed_us = repeat_shares(running, shares, options);
    outcome.result.shape = result_shape;
    if (combined(shares)) {
        outcome.result = combined_result(running, options, result_shape);
        return outcome;
    }
    for (const auto& run : running)
        run->reducer->append_results(outcome.result, run->bytes.data(),
                                     run->bytes.size() / run->reducer->accumulator_size());
    return outcome;
}

/// --exact sums each result on the device from a gathered copy of its values, so not with
/// --host-input.
void refuse_streaming(const Options& options) {
    if (options.exact && options.host_input)
        throw Failure(ExitCode::usage, "--exact --axis sums each result from the device's "
                                       "memory, so not with --host-input");
}

/// The bytes of every share's values: what each run reads.
std::uint64_t input_bytes(const std::vector<Share>& shares, DataType type) {
    std::uint64_t bytes = 0;
    for (const auto& share : shares)
        bytes += share.bytes(type);
    return bytes;
}

std::string device_name(const Share& share) {
    return share.device->device.getInfo<CL_DEVICE_NAME>() + " (-p " +
           std::to_string(share.device->platform_index) + " -d " +
           std::to_string(share.device->device_index) + ")";
}

/// Whether the figures are of several timed runs, so each is a min and a median.
bool repeated(const Options& options) {
    return options.iterations > 1;
}

void print_text(std::ostream& out, const Options& options, const std::vector<Share>& shares,
                const AxisOutcome& outcome, bool checked) {
    const auto& result = outcome.result;
    if (options.verbosity != Verbosity::quiet) {
        for (const auto& share : shares) {
            out << "device " << device_name(share) << ", " << share.part.split << " "
                << share.part.begin << " to " << share.part.begin + share.part.count << "\n";
            if (options.verbosity == Verbosity::verbose)
                out << "plan:\n" << share.plan;
            for (std::size_t pass = 0; pass < share.pass_us.size(); ++pass)
                out << "pass " << pass + 1 << ": " << fixed(share.pass_us[pass]) << " us\n";
            out << "device span     "
                << timing_text(summarize(share.spans_us), share.bytes(options.type),
                               repeated(options))
                << ", profiled runs: the first launch's start to the last one's end"
                << (repeated(options) ? "; the passes are the fastest run's" : "") << "\n";
        }
        if (combined(shares))
            out << (options.exact ? "the devices' exact rows added and rounded on the host"
                                  : "the devices' arrays combined on the first device")
                << ", once, after the runs\n";
        out << "host observed   "
            << timing_text(summarize(outcome.observed_us), input_bytes(shares, options.type),
                           repeated(options))
            << ", the first enqueue to the last share's results read, on the host's clock\n"
            << "shape " << shape_text(result.shape.extents) << "\n";
    }
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
                const AxisOutcome& outcome, bool checked) {
    const auto number = [](std::uint64_t x) { return std::to_string(x); };
    const auto microseconds = [](double x) { return fixed(x); };
    const auto share_json = [&](const Share& share) {
        return JsonObject()
            .text("device", device_name(share))
            .member(share.part.split,
                    json_array(std::vector<std::uint64_t>{share.part.begin,
                                                          share.part.begin + share.part.count},
                               number))
            .member("passes_us", json_array(share.pass_us, microseconds))
            .timing("span_us", summarize(share.spans_us), share.bytes(options.type), "span_gbps")
            .str();
    };
    out << JsonObject()
               .member("shape", json_array(outcome.result.shape.extents, number))
               .member("output", options.output.empty() ? "null" : json_string(options.output))
               .text("check", checked ? "passed" : "skipped")
               .count("iterations", outcome.observed_us.size())
               .flag("warm_up", !options.cold)
               .member("shares", json_array(shares, share_json))
               .timing("host_observed_us", summarize(outcome.observed_us),
                       input_bytes(shares, options.type))
               .str()
        << "\n";
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
    const auto outcome = reduce_shares(shares, options, steps.back().result, values);
    const auto& result = outcome.result;
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
        print_json(out, options, shares, outcome, options.check);
    else
        print_text(out, options, shares, outcome, options.check);
    return ExitCode::success;
}

} // namespace clreduce
