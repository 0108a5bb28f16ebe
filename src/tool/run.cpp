#include "tool/run.hpp"

#include "detail/reference.hpp"
#include "tool/progress.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"

#include <ostream>
#include <unistd.h>
#include <utility>

namespace clreduce {
namespace {

/// Refuses a length that the device's or the host's memory cannot hold, before anything is
/// printed or allocated. A mapped file takes no host memory of its own: it pages in and out.
void refuse_past_memory(const Reducer& reducer, std::uint64_t length, std::uint64_t per_buffer,
                        const std::optional<ValuesView>& file) {
    reducer.check_fits(length, per_buffer);
    if (!file)
        refuse_past_host_memory(length, reducer.value_size());
}

/// The input: the file's first options.length values, or else a random draw; uploaded. Each
/// step says what it does when it takes long.
struct Input {
    Input(const Reducer& reducer, const cl::CommandQueue& queue, const Options& options,
          const std::optional<ValuesView>& file, std::uint64_t per_buffer)
        : values(file ? file->part(0, options.length) : generate(reducer, options, drawn))
        , device(upload(reducer, queue, values, per_buffer)) {}

    HostValues drawn; // the random draw, without a file
    ValuesView values;
    DeviceInput device;

private:
    static ValuesView generate(const Reducer& reducer, const Options& options, HostValues& drawn) {
        const Progress note("generating " + std::to_string(options.length) + " random " +
                            name_of(reducer.type()) + " values");
        drawn = random_values(reducer.type(), reducer.op(), options.length, options.seed);
        return drawn;
    }
    static DeviceInput upload(const Reducer& reducer, const cl::CommandQueue& queue,
                              const ValuesView& values, std::uint64_t per_buffer) {
        const Progress note("uploading " + bytes_text(values.length, reducer.value_size()) +
                            " to the device");
        return DeviceInput(reducer.context(), queue, values, per_buffer);
    }
};

/// `measure`, saying so when it takes long.
Measurement measure_noted(Reducer& reducer, const DeviceQueue& queues, const Input& input,
                          std::uint64_t length, const Options& options, StreamRead* stream_read) {
    const Progress note(std::to_string(options.iterations) + " timed run" +
                        (options.iterations == 1 ? "" : "s") + " of " + std::to_string(length) +
                        " values and the host reference");
    return measure(reducer, queues, input.device, input.values, length,
                   {options.iterations, !options.cold}, stream_read, options.check);
}

/// -q: the answer alone, from one reduction on the queue without profiling (no warm-up, no
/// second run for the host's wait), checked against the host reference unless --no-check.
Measurement answer_once(Reducer& reducer, const DeviceQueue& queues, const Input& input,
                        const Options& options) {
    auto measurement = Measurement::of(reducer, options.length);
    const auto pieces = input.device.prefix(options.length);
    measurement.runs.push_back(reducer.reduce_timed(queues.unprofiled, pieces));
    check_against(measurement, reducer, {1, false},
                  reference_unless_skipped(options,
                                           [&] {
                                               return reference_for(
                                                   reducer, queues.unprofiled, pieces,
                                                   input.values.part(0, options.length));
                                           }),
                  input.values.origin);
    return measurement;
}

} // namespace

std::function<Reference()> reference_unless_skipped(const Options& options,
                                                    std::function<Reference()> reference) {
    return options.check ? std::move(reference) : nullptr;
}

ExitCode answer_empty_sum(const Options& options, std::ostream& out) {
    if (options.mode == Mode::sweep)
        throw Failure(ExitCode::input_data, "--input '" + *options.input +
                                                "' holds no values: there is nothing to sweep");
    print_empty_sum(out, options);
    return ExitCode::success;
}

void refuse_past_host_memory(std::uint64_t length, std::size_t value_size) {
    const auto host_memory = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                             static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    if (length > host_memory / value_size)
        throw Failure(
            ExitCode::unsupported,
            "length " + std::to_string(length) + " needs " + bytes_text(length, value_size) +
                " of host memory for its values, but this host has " + bytes_text(host_memory, 1));
}

void refuse_wrong_result(const Measurement& measurement) {
    const auto text = [](const Scalar& value, std::optional<std::int64_t> index) {
        return to_string(value) + (index ? " at index " + std::to_string(*index) : "");
    };
    for (const auto& run : measurement.results())
        if (!measurement.matches(run))
            throw Failure(ExitCode::wrong_result,
                          "wrong result for length " + std::to_string(measurement.length) +
                              ": the device gave " + text(run.value, run.index) +
                              ", the host reference is " +
                              text(measurement.expected.value, measurement.expected.index) +
                              (measurement.check == Check::bound
                                   ? " (bound " + to_string(measurement.tolerance) + ")"
                                   : ""));
}

std::vector<std::uint64_t> sweep_lengths(std::uint64_t largest) {
    std::vector<std::uint64_t> lengths;
    for (std::uint64_t length = shortest_sweep; length <= largest; length *= 2) {
        lengths.push_back(length);
        if (length > largest / 2)
            break;
    }
    if (lengths.empty() || lengths.back() != largest)
        lengths.push_back(largest);
    return lengths;
}

std::vector<std::unique_ptr<Reducer>> build_reducers(const DeviceQueue& device_queue,
                                                     const DeviceReport& report,
                                                     const std::string& kernel_text,
                                                     const Options& options) {
    std::vector<std::optional<Finish>> finishes{options.finish};
    if (options.mode == Mode::sweep && !options.finish_given)
        finishes = {Finish::passes, std::nullopt};
    std::vector<std::unique_ptr<Reducer>> reducers;
    for (const auto finish : finishes) {
        auto reducer = with_stderr_held([&] {
            return std::make_unique<Reducer>(device_queue.context, device_queue.device,
                                             recipe_for(options, report, finish), kernel_text);
        });
        if (reducers.empty() || reducer->finish() != reducers.front()->finish())
            reducers.push_back(std::move(reducer));
    }
    return reducers;
}

ExitCode run_reduction(Reducer& reducer, const DeviceQueue& queues, const SelectedDevice& selected,
                       const Options& options, const std::optional<ValuesView>& file,
                       StreamRead* stream_read, std::ostream& out) {
    const auto per_buffer = buffer_values(reducer.report(), reducer.type(), options.max_buffer);
    refuse_past_memory(reducer, options.length, per_buffer, file);
    const bool text = options.format == Format::text && options.verbosity != Verbosity::quiet;
    if (text) {
        print_title(out, options);
        print_setup(out, selected, reducer, options);
    }
    if (options.verbosity == Verbosity::verbose) {
        print_memory(out, reducer, options.length, per_buffer);
        print_plan(out, reducer.plan(options.length));
    }

    const Input input(reducer, queues.queue, options, file, per_buffer);
    const auto measurement =
        options.verbosity == Verbosity::quiet
            ? answer_once(reducer, queues, input, options)
            : measure_noted(reducer, queues, input, options.length, options, stream_read);

    print_outcome(out, measurement, selected, reducer, options);
    out.flush();
    refuse_wrong_result(measurement);
    return ExitCode::success;
}

ExitCode run_sweep(const std::vector<std::unique_ptr<Reducer>>& reducers, const DeviceQueue& queues,
                   const SelectedDevice& selected, const Options& options,
                   const std::optional<ValuesView>& file, StreamRead& stream_read,
                   std::ostream& out) {
    const auto& reducer = *reducers.front();
    const auto per_buffer = buffer_values(reducer.report(), reducer.type(), options.max_buffer);
    refuse_past_memory(reducer, options.length, per_buffer, file);
    if (options.format == Format::text) {
        print_title(out, options);
        for (const auto& each : reducers)
            print_setup(out, selected, *each, options);
        if (options.verbosity == Verbosity::verbose)
            print_memory(out, reducer, options.length, per_buffer);
    }
    const Input input(reducer, queues.queue, options, file, per_buffer);
    // Each row is printed as soon as it is measured: an interrupted sweep keeps its rows.
    if (options.format != Format::json)
        print_sweep_header(out, options.format);
    for (const auto length : sweep_lengths(options.length))
        for (const auto& each : reducers) {
            const SweepRow row{each->op(), each->finish(),
                               measure_noted(*each, queues, input, length, options, &stream_read)};
            if (options.format == Format::json)
                print_json(out, row.measurement, selected, *each, options);
            else
                print_sweep_row(out, row, options.format, reducer.report().name);
            require_written(out);
            refuse_wrong_result(row.measurement);
        }
    return ExitCode::success;
}

} // namespace clreduce
