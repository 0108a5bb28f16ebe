// --exact: the exact sum, correctly rounded, on one device or split across several, the
// input in device buffers (--max-buffer) or streamed from host memory in chunks
// (--host-input, --chunk). Every layout gives the same accumulator rows, which add up as
// integers on the host, so the result's bits never depend on it. The check is equality with
// the host's exact sum, computed another way (docs/exact-sums.md).

#include "clreduce/exact.hpp"
#include "clreduce/input.hpp"
#include "clreduce/split.hpp"
#include "detail/capabilities.hpp"
#include "detail/measure.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"
#include "tool/progress.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <ostream>

namespace clreduce {
namespace {

/// One device's part: its share of the values, the engine that sums them, and the share
/// uploaded in buffers of at most --max-buffer values (none with --host-input, which
/// uploads chunk by chunk in each run).
struct ExactShare {
    ExactShare(const SelectedDevice& selected, const Options& options, const std::string& kernel,
               const ValuesView& share_values)
        : selected(selected)
        , queue(selected.device)
        , exact_sum(queue.context, queue.device, options.type, options.work_group_size, kernel)
        , values(share_values) {
        if (options.host_input)
            return;
        const auto report = query_report(selected.device);
        if (values.length > report.global_memory / info(options.type).size)
            throw Failure(ExitCode::unsupported,
                          "length " + std::to_string(values.length) + " needs " +
                              bytes_text(values.length, info(options.type).size) +
                              " of device memory, but device '" + report.name + "' has " +
                              bytes_text(report.global_memory, 1) +
                              " (CL_DEVICE_GLOBAL_MEM_SIZE; --host-input streams it)");
        input =
            std::make_unique<DeviceInput>(queue.context, queue.queue, values,
                                          buffer_values(report, options.type, options.max_buffer));
    }
    SelectedDevice selected;
    DeviceQueue queue;
    ExactSum exact_sum;
    ValuesView values;
    std::unique_ptr<DeviceInput> input;
};

/// The share's exact sum streamed from host memory in chunks of `chunk` values, each chunk
/// uploaded and summed in turn; the chunks' accumulators add up on the host.
ExactAccumulator sum_streamed(ExactShare& share, std::uint64_t chunk, ExactTimes& times) {
    ExactAccumulator sum(share.values.type);
    for (std::uint64_t first = 0; first < share.values.length; first += chunk) {
        const auto part = share.values.part(first, std::min(chunk, share.values.length - first));
        const DeviceInput input(share.queue.context, share.queue.queue, part, part.length);
        ExactTimes chunk_times;
        sum.add(
            share.exact_sum.accumulate(share.queue.queue, input.prefix(part.length), &chunk_times));
        times.span_us += chunk_times.span_us;
        times.launch_us.insert(times.launch_us.end(), chunk_times.launch_us.begin(),
                               chunk_times.launch_us.end());
    }
    return sum;
}

/// The share's exact sum, in its buffers or streamed in chunks of `chunk` values.
ExactAccumulator sum_share(ExactShare& share, std::uint64_t chunk, ExactTimes& times) {
    if (share.input == nullptr)
        return sum_streamed(share, chunk, times);
    return share.exact_sum.accumulate(share.queue.queue, share.input->prefix(share.values.length),
                                      &times);
}

/// One run: every share summed on a thread of its own, the accumulators added on the host.
struct ExactRun {
    Scalar result;
    std::vector<ExactTimes> times; // one per share
    double host_us = 0;            // first launch (or upload, streamed) to the rounded result
};

ExactRun run_once(std::vector<ExactShare>& shares, DataType type, std::uint64_t chunk) {
    ExactRun run;
    run.times.resize(shares.size());
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::future<ExactAccumulator>> sums;
    for (std::size_t i = 0; i < shares.size(); ++i)
        sums.push_back(std::async(std::launch::async,
                                  [&, i] { return sum_share(shares[i], chunk, run.times[i]); }));
    ExactAccumulator total(type);
    for (auto& sum : sums)
        total.add(sum.get());
    run.result = total.rounded();
    run.host_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
            .count();
    return run;
}

/// The exact kernel's text: exact_sum.cl from --kernels, or the copy built in.
std::string exact_kernel_text(const Options& options) {
    if (options.kernel_dir.empty())
        return std::string(embedded_exact_kernel_source());
    return read_kernel_file("exact_sum.cl", {options.kernel_dir});
}

/// The devices' shares of `values`, uploaded unless streamed. Equal shares: the accumulators'
/// sum does not depend on where the values were summed.
std::vector<ExactShare> make_shares(const std::vector<SelectedDevice>& devices,
                                    const Options& options, const std::string& kernel,
                                    const ValuesView& values) {
    const auto lengths = split_shares(
        options.length,
        std::vector<double>(std::min<std::uint64_t>(devices.size(), options.length), 1.0));
    std::vector<ExactShare> shares;
    shares.reserve(lengths.size());
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        shares.emplace_back(devices[i], options, kernel, values.part(first, lengths[i]));
        first += lengths[i];
    }
    return shares;
}

struct ExactOutcome {
    std::vector<ExactRun> runs;     // the timed runs, warm-up excluded
    std::optional<Scalar> expected; // the host's exact sum; none with --no-check
    /// Whether every run gave the expected bits (true with --no-check).
    bool valid() const {
        return !expected || std::all_of(runs.begin(), runs.end(), [&](const ExactRun& run) {
            return same_bits(run.result, *expected);
        });
    }
    Statistic host_us() const {
        return over_runs([](const ExactRun& run) { return run.host_us; });
    }
    Statistic span_us(std::size_t share) const {
        return over_runs([&](const ExactRun& run) { return run.times[share].span_us; });
    }

private:
    template <typename Sample>
    Statistic over_runs(Sample sample) const {
        std::vector<double> samples;
        for (const auto& run : runs)
            samples.push_back(sample(run));
        return summarize(samples);
    }
};

void print_exact(std::ostream& out, const ExactOutcome& outcome,
                 const std::vector<ExactShare>& shares, const Options& options) {
    const auto& result = outcome.runs.front().result;
    const bool repeated = outcome.runs.size() > 1;
    const auto bytes = options.length * info(options.type).size;
    if (options.format == Format::json) {
        out << "{\"exact\": true, \"op\": \"sum\", \"type\": " << json_string(name_of(options.type))
            << ", \"length\": " << options.length << ", \"devices\": [";
        for (std::size_t i = 0; i < shares.size(); ++i)
            out << (i ? ", " : "")
                << "{\"name\": " << json_string(shares[i].queue.device.getInfo<CL_DEVICE_NAME>())
                << ", \"length\": " << shares[i].values.length
                << ", \"span_us\": {\"min\": " << fixed(outcome.span_us(i).min)
                << ", \"median\": " << fixed(outcome.span_us(i).median) << "}}";
        out << "], \"result\": " << json_string(to_string(result)) << ", \"expected\": "
            << (outcome.expected ? json_string(to_string(*outcome.expected)) : "null")
            << ", \"check\": " << (outcome.expected ? "\"identical\"" : "\"skipped\"")
            << ", \"valid\": "
            << (!outcome.expected ? "null"
                : outcome.valid() ? "true"
                                  : "false")
            << ", \"host_us\": {\"min\": " << fixed(outcome.host_us().min)
            << ", \"median\": " << fixed(outcome.host_us().median) << "}}\n";
        return;
    }
    if (options.verbosity == Verbosity::quiet) {
        out << to_string(result) << '\n';
        return;
    }
    out << "clreduce --exact: sum of " << options.length << ' ' << name_of(options.type)
        << " values, rounded once to nearest even\n";
    for (std::size_t i = 0; i < shares.size(); ++i)
        out << "  device " << shares[i].selected.device_index << " '"
            << shares[i].queue.device.getInfo<CL_DEVICE_NAME>() << "': " << shares[i].values.length
            << " values, work-groups "
            << shares[i].exact_sum.work_groups_for(shares[i].values.length) << " x "
            << shares[i].exact_sum.work_group_size_for(shares[i].values.length) << ", "
            << outcome.runs.front().times[i].launch_us.size() << " launches, device span "
            << timing_text(outcome.span_us(i), shares[i].values.length * info(options.type).size,
                           repeated)
            << "\n"
            << (options.verbosity == Verbosity::verbose
                    ? "    build options " + shares[i].exact_sum.build_options() + "\n"
                    : "");
    out << "  host observed " << timing_text(outcome.host_us(), bytes, repeated)
        << ", first launch to the rounded result\n";
    out << "result " << to_string(result)
        << (!outcome.expected ? " (not checked: --no-check)"
            : outcome.valid()
                ? " (identical to the host's exact sum, computed another way)"
                : " (WRONG: the host's exact sum is " + to_string(*outcome.expected) + ")")
        << '\n';
}

} // namespace

ExitCode run_exact(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, std::ostream& out) {
    refuse_inexact_op(options);
    const auto kernel = exact_kernel_text(options);
    HostValues drawn;
    ValuesView values;
    if (file) {
        values = file->part(0, options.length);
    } else {
        refuse_past_host_memory(options.length, info(options.type).size);
        const Progress note("generating " + std::to_string(options.length) + " random " +
                            name_of(options.type) + " values");
        drawn = random_values(options.type, Op::sum, options.length, options.seed);
        values = drawn;
    }
    auto shares = make_shares(devices, options, kernel, values);
    const auto chunk =
        options.chunk != 0
            ? options.chunk
            : std::max<std::uint64_t>(1, default_chunk_bytes / info(options.type).size);

    ExactOutcome outcome;
    repeat({options.iterations, !options.cold}, [&](bool counted) {
        auto run = run_once(shares, options.type, chunk);
        if (counted)
            outcome.runs.push_back(std::move(run));
    });
    if (options.check) {
        const Progress note("the host's exact sum of " + std::to_string(options.length) +
                            " values");
        outcome.expected = exact_host_sum(values);
    }
    print_exact(out, outcome, shares, options);
    out.flush();
    for (const auto& run : outcome.runs)
        if (outcome.expected && !same_bits(run.result, *outcome.expected))
            throw Failure(ExitCode::wrong_result,
                          "wrong result for length " + std::to_string(options.length) +
                              ": the device gave " + to_string(run.result) +
                              ", the host's exact sum is " + to_string(*outcome.expected));
    return ExitCode::success;
}

} // namespace clreduce
