#include "clreduce/input.hpp"
#include "clreduce/split.hpp"
#include "clreduce/stream.hpp"
#include "detail/capabilities.hpp"
#include "detail/measure.hpp"
#include "detail/reference.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

namespace clreduce {
namespace {

/// One engine per device, with its own queue, built as the options ask.
std::vector<DeviceShare> build_shares(const std::vector<SelectedDevice>& devices,
                                      const Options& options, const std::string& kernel_text) {
    std::vector<DeviceShare> shares;
    for (const auto& selected : devices) {
        DeviceShare share;
        const auto report = query_report(selected.device);
        share.queue = std::make_unique<DeviceQueue>(selected.device);
        share.reducer = with_stderr_held([&] {
            return std::make_unique<Reducer>(share.queue->context, share.queue->device,
                                             recipe_for(options, report, options.finish),
                                             kernel_text);
        });
        shares.push_back(std::move(share));
    }
    return shares;
}

/// Gives each device its share of `values` (a file's or a random draw), uploaded or, with
/// --host-input, streamed from there; without `values` (random host input) each stream
/// draws its share into host memory of its own.
void place_shares(std::vector<DeviceShare>& shares, const Options& options,
                  const std::optional<ValuesView>& values,
                  const std::vector<std::uint64_t>& lengths) {
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < shares.size(); ++i) {
        auto& share = shares[i];
        auto& reducer = *share.reducer;
        share.first = first;
        share.length = lengths[i];
        first += lengths[i];
        share.input.reset();
        share.stream.reset();
        if (options.host_input) {
            share.stream =
                make_host_stream(reducer, share.queue->queue, values, share.first, share.length,
                                 stream_chunk(reducer, share.length, options.chunk), options.seed);
            continue;
        }
        const auto per_buffer = buffer_values(reducer.report(), reducer.type(), options.max_buffer);
        reducer.check_fits(share.length, per_buffer);
        share.input = std::make_unique<DeviceInput>(share.queue->context, share.queue->queue,
                                                    values->part(share.first, share.length),
                                                    per_buffer, share.first);
    }
}

/// Where the values came from: without `values`, each stream drew its own.
Origin origin_of(const std::optional<ValuesView>& values) {
    return values ? values->origin : Origin::drawn;
}

/// Each share's results in `runs`, checked against the host reference of its values.
std::vector<Measurement> measure_shares(const std::vector<DeviceShare>& shares,
                                        const std::vector<SplitRun>& runs, const Options& options,
                                        const std::optional<ValuesView>& values) {
    std::vector<Measurement> measurements(shares.size());
    for (std::size_t i = 0; i < shares.size(); ++i) {
        const auto& share = shares[i];
        auto& measurement = measurements[i];
        measurement = Measurement::of(*share.reducer, share.length);
        for (const auto& run : runs)
            measurement.runs.push_back(run.reductions[i]);
        check_against(measurement, *share.reducer, {options.iterations, !options.cold},
                      reference_unless_skipped(options,
                                               [&] {
                                                   return reference_for(
                                                       *share.reducer, share.queue->queue,
                                                       share.host_values(values), share.first);
                                               }),
                      origin_of(values));
    }
    return measurements;
}

/// The whole input's result per run, checked against the host reference. A float sum's
/// bound is each share's, plus the host's additions of the shares' results.
Measurement measure_whole(const std::vector<DeviceShare>& shares,
                          const std::vector<Measurement>& measurements,
                          const std::vector<SplitRun>& runs, const Options& options,
                          const std::optional<ValuesView>& values) {
    auto whole = Measurement::of(*shares.front().reducer, options.length);
    for (const auto& run : runs) {
        Reduction reduction = run.reductions.front();
        const auto whole_result = combined(options.op, shares, run.reductions);
        reduction.value = whole_result.value;
        reduction.index = whole_result.index;
        reduction.host_us = run.host_us;
        whole.runs.push_back(reduction);
    }
    std::vector<ValuesView> all;
    for (const auto& share : shares)
        for (const auto& span : share.host_values(values))
            all.push_back(span);
    check_against(whole, *shares.front().reducer, {options.iterations, !options.cold},
                  reference_unless_skipped(options,
                                           [&] {
                                               return reference_for(*shares.front().reducer,
                                                                    shares.front().queue->queue,
                                                                    all);
                                           }),
                  origin_of(values));
    if (whole.check == Check::bound) {
        whole.tolerance = sum_tolerance(
            whole.accumulator, shares.size() - 1, whole.expected.magnitude,
            std::visit([](auto x) { return static_cast<double>(x); }, whole.expected.value));
        for (const auto& measurement : measurements)
            whole.tolerance += measurement.tolerance;
    }
    return whole;
}

} // namespace

ExitCode run_split(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, const std::string& kernel_text,
                   std::ostream& out) {
    if (options.mode == Mode::sweep)
        throw Failure(ExitCode::usage, "--sweep reports one device, and --device names " +
                                           std::to_string(devices.size()) + " (see --help)");
    // A device without a value would have nothing to reduce: the first `length` devices do it.
    SplitFigures figures;
    figures.named = devices.size();
    figures.devices.assign(devices.begin(),
                           devices.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(
                                                 devices.size(), options.length)));
    auto shares = build_shares(figures.devices, options, kernel_text);
    if (!file)
        refuse_past_host_memory(options.length, shares.front().reducer->value_size());
    // The file's values, or a random draw; random host input is drawn by each stream.
    HostValues drawn;
    std::optional<ValuesView> values;
    if (file) {
        values = file->part(0, options.length);
    } else if (!options.host_input) {
        drawn = random_values(options.type, options.op, options.length, options.seed);
        values = drawn;
    }

    // The warm-up, on equal shares, measures each device's speed for the real split.
    place_shares(shares, options, values,
                 split_shares(options.length, std::vector<double>(shares.size(), 1)));
    figures.speeds = speeds_of(shares, reduce_together(shares));
    place_shares(shares, options, values, split_shares(options.length, figures.speeds));

    std::vector<SplitRun> runs;
    repeat({options.iterations, !options.cold}, [&](bool counted) {
        auto run = reduce_together(shares);
        if (counted)
            runs.push_back(std::move(run));
    });
    for (const auto& run : runs)
        figures.overall_us.push_back(run.host_us);
    figures.shares = measure_shares(shares, runs, options, values);
    figures.whole = measure_whole(shares, figures.shares, runs, options, values);

    print_split(out, shares, figures, options);
    out.flush();
    for (const auto& measurement : figures.shares)
        refuse_wrong_result(measurement);
    refuse_wrong_result(figures.whole);
    return ExitCode::success;
}

} // namespace clreduce
