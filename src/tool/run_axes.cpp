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
    std::unique_ptr<StreamStaging> staging;
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

/// Uploads each of `chunks` chunks of `first`'s values, of `chunk_bytes` each (the last may
/// be shorter, the whole `bytes`), on a queue of its own into one of StreamStaging's device
/// buffers in turn, and has `reduce(k, buffer, uploaded)` enqueue chunk k's reduction after
/// its upload, returning the event after which the buffer is free again: the reducer works
/// on one chunk while the next is uploaded.
template <typename Reduce>
void stream_chunks(Running& run, const void* first, std::uint64_t bytes, std::uint64_t chunk_bytes,
                   Reduce reduce) {
    if (!run.staging) // one for every repeat
        run.staging = std::make_unique<StreamStaging>(
            run.queue.context, run.queue.queue, std::max<std::uint64_t>(1, chunk_bytes), false);
    const cl::CommandQueue uploads(run.queue.context, run.queue.device);
    std::vector<cl::Event> last_read(StreamStaging::count); // each staging buffer's last reader
    for (std::uint64_t k = 0; k * chunk_bytes < bytes; ++k) {
        const auto& buffer = run.staging->device(k % StreamStaging::count);
        auto& reader = last_read[k % StreamStaging::count];
        const std::vector<cl::Event> free{reader};
        cl::Event uploaded;
        uploads.enqueueWriteBuffer(buffer, CL_FALSE, 0,
                                   std::min(chunk_bytes, bytes - k * chunk_bytes),
                                   static_cast<const unsigned char*>(first) + k * chunk_bytes,
                                   reader() ? &free : nullptr, &uploaded);
        reader = reduce(k, buffer, uploaded);
    }
    uploads.finish();
}

/// --host-input: enqueues the share's reduction streamed in chunks of about --chunk values
/// (stream_chunks()): whole blocks (at least one) where the share has several, each chunk's
/// results landing in their place; else rows of its one block (a reduced leading axis), each
/// chunk's partial array, its indices counted from its first row, combined at the end.
void enqueue_streamed(Running& run, const Share& share, const Options& options, const void* first) {
    const auto& extents = share.part.extents; // blocks x length x inner
    const auto blocks = extents[0], length = extents[1], inner = extents[2];
    const auto size = info(options.type).size;
    const auto bytes = share.part.values() * size;
    const auto wanted = chunk_values(options);
    if (bytes == 0) // nothing to stream: each result is the identity
        return enqueue_whole(run, share, options, first);
    std::vector<cl::Event> launched;
    const auto timed = [&](cl::Event last) {
        run.events.insert(run.events.end(), launched.begin(), launched.end());
        return last;
    };
    for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat) {
        if (blocks != 1) {
            const auto per_chunk = std::max<std::uint64_t>(1, wanted / (length * inner));
            stream_chunks(
                run, first, bytes, per_chunk * length * inner * size,
                [&](std::uint64_t k, const cl::Buffer& buffer, const cl::Event& ready) {
                    const Shape part{{std::min(per_chunk, blocks - k * per_chunk), length, inner}};
                    return timed(run.reducer->enqueue_reduce_axes(
                        run.queue.queue, buffer, 0, part, {1}, run.results, k * per_chunk * inner,
                        {ready}, &launched));
                });
            continue;
        }
        const auto rows = std::max<std::uint64_t>(1, wanted / inner);
        const auto chunks = std::max<std::uint64_t>(1, (length + rows - 1) / rows);
        const cl::Buffer partials(run.queue.context, CL_MEM_READ_WRITE,
                                  chunks * inner * run.reducer->accumulator_size());
        stream_chunks(run, first, bytes, rows * inner * size,
                      [&](std::uint64_t k, const cl::Buffer& buffer, const cl::Event& ready) {
                          const Shape part{{std::min(rows, length - k * rows), inner}};
                          return timed(run.reducer->enqueue_reduce_axes(
                              run.queue.queue, buffer, 0, part, {0}, partials, k * inner, {ready},
                              &launched, k * rows));
                      });
        timed(run.reducer->enqueue_combine_axes(run.queue.queue, partials, 0,
                                                Shape{{chunks, inner}}, {0}, run.results, 0, {},
                                                &launched));
    }
}

/// --exact: each result's exact sum rounded once by ExactSum, the whole array's exact kernels,
/// one result after another over its values gathered side by side in memory order
/// (correctness first: a segmented exact kernel is not written yet). ExactSum writes the
/// sum's type, float (for float16 and bfloat16 too) or double: the sum's accumulator.
void enqueue_exact(Running& run, const Share& share, const Options& options,
                   const ValuesView& values) {
    const auto offsets = axis_offsets(share.part, share.axes);
    const auto length = offsets.reduced.size();
    const auto size = info(options.type).size;
    std::vector<unsigned char> gathered(std::max<std::size_t>(1, offsets.results.size() * length) *
                                        size);
    for (std::size_t k = 0; k < offsets.results.size(); ++k)
        gather_result(values, offsets, k, &gathered[k * length * size]);
    run.input = cl::Buffer(run.queue.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           gathered.size(), gathered.data());
    run.exact = std::make_unique<ExactSum>(run.queue.context, run.queue.device, options.type,
                                           options.work_group_size);
    for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat)
        for (std::size_t k = 0; k < offsets.results.size(); ++k)
            run.events.push_back(run.exact->enqueue(
                run.queue.queue, {{run.input, length, k * length}}, run.results, k));
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
            enqueue_streamed(run, share, options, first);
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

/// Each result's reference: the host's reduction where it evaluates the op and the map, else
/// the whole-array check's (reference_for()): the same definitions in index order, on the
/// first device, over each result's values gathered in memory order, so that a map's i is the
/// value's index along the reduced axes there too.
std::vector<Reference> references_of(const Options& options, const SelectedDevice& device,
                                     const ValuesView& values, const Shape& shape) {
    if (options.exact) // the exact sum rounded once, which the device must give bit for bit
        return axis_references(values, shape, options.axes, [](const ValuesView& segment) {
            return Reference{exact_host_sum(segment), "exact"};
        });
    const auto map = host_map(options.user.map);
    if (map && options.op != Op::custom)
        return host_reduce_axes(options.op, values, shape, options.axes, options.accumulate, *map);
    DeviceQueue queues(device.device);
    Reducer reducer(queues.context, device.device,
                    recipe_for(options, query_report(device.device), Finish::passes));
    return axis_references(values, shape, options.axes, [&](const ValuesView& segment) {
        return reference_for(reducer, queues.queue, {segment});
    });
}

/// --host-input streams chunks of one run of adjacent axes (enqueue_streamed()): not axes
/// apart, whose steps after the first would each need the whole of the step before.
void refuse_streaming(const Options& options, const std::vector<AxisLayout>& steps) {
    if (options.exact && options.host_input)
        throw Failure(ExitCode::usage, "--exact --axis sums each result from the device's "
                                       "memory, so not with --host-input");
    if (options.host_input && steps.size() > 1)
        throw Failure(ExitCode::unsupported,
                      "--host-input --axis streams chunks of one run of adjacent axes, so not "
                      "along axes apart: their later steps read the whole first step's partials");
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
    refuse_streaming(options, steps);
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
        refuse_wrong(options, result, references_of(options, devices.front(), values, shape),
                     length, values.origin);
    if (!options.output.empty())
        write_npy(options.output, options, result);
    if (options.format == Format::json)
        print_json(out, options, shares, result, options.check);
    else
        print_text(out, options, shares, result, options.check);
    return ExitCode::success;
}

} // namespace clreduce
