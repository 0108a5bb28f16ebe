#include "clreduce/split.hpp"

#include "clreduce/capabilities.hpp"
#include "clreduce/input.hpp"
#include "clreduce/measure.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/report.hpp"
#include "clreduce/run.hpp"
#include "clreduce/stream.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <thread>

namespace clreduce {
namespace {

using Clock = std::chrono::steady_clock;

/// One device's part: its engine, and its share of the input, on the device or streamed
/// from host memory.
struct Part {
    SelectedDevice selected;
    std::unique_ptr<DeviceQueue> queue;
    std::unique_ptr<Reducer> reducer;
    std::uint64_t first = 0; // the share's place in the whole input
    std::uint64_t length = 0;
    std::unique_ptr<DeviceInput> input;
    std::unique_ptr<HostStream> stream;
    Measurement measurement;
};

/// What every device did in one run, and the host's clock around them all.
struct SplitRun {
    std::vector<Reduction> reductions;
    double host_us = 0; // the first start to the last end
};

std::vector<Part> build_parts(const std::vector<SelectedDevice>& devices, const Options& options,
                              const std::string& kernel_text) {
    std::vector<Part> parts;
    for (const auto& selected : devices) {
        Part part;
        part.selected = selected;
        const auto report = query_report(selected.device);
        const auto path = choose_path(report, options.path, options.allow_unreported);
        part.queue = std::make_unique<DeviceQueue>(selected.device);
        const Recipe recipe{options.type,   options.op,     path,
                            options.factor, options.finish, options.work_group_size};
        part.reducer =
            std::make_unique<Reducer>(part.queue->context, part.queue->device, recipe, kernel_text);
        parts.push_back(std::move(part));
    }
    return parts;
}

/// Gives each part its share of `values` (a file's or a random draw), uploaded or, with
/// --host-input, streamed from there; without `values` (random host input) each stream
/// draws its share into host memory of its own.
void place_shares(std::vector<Part>& parts, const Options& options,
                  const std::optional<ValuesView>& values,
                  const std::vector<std::uint64_t>& shares) {
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        auto& part = parts[i];
        auto& reducer = *part.reducer;
        part.first = first;
        part.length = shares[i];
        first += shares[i];
        part.input.reset();
        part.stream.reset();
        if (options.host_input) {
            part.stream =
                make_host_stream(reducer, part.queue->queue, values, part.first, part.length,
                                 stream_chunk(reducer, part.length, options.chunk), options.seed);
            continue;
        }
        const auto per_buffer = buffer_values(reducer.report(), reducer.type(), options.max_buffer);
        reducer.check_fits(part.length, per_buffer);
        part.input =
            std::make_unique<DeviceInput>(part.queue->context, part.queue->queue,
                                          values->part(part.first, part.length), per_buffer);
    }
}

Reduction reduce_share(Part& part) {
    if (part.stream)
        return part.stream->reduce(part.length).reduction;
    return part.reducer->reduce_timed(part.queue->queue, part.input->prefix(part.length));
}

/// Each part reduces its share on a thread of its own; the run ends when the last does.
SplitRun reduce_together(std::vector<Part>& parts) {
    SplitRun run;
    run.reductions.resize(parts.size());
    std::vector<std::exception_ptr> failures(parts.size());
    const auto started = Clock::now();
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < parts.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                run.reductions[i] = reduce_share(parts[i]);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        });
    for (auto& thread : threads)
        thread.join();
    run.host_us = std::chrono::duration<double, std::micro>(Clock::now() - started).count();
    for (const auto& failure : failures)
        if (failure)
            std::rethrow_exception(failure);
    return run;
}

/// Values per microsecond in the warm-up. Devices of one name are the same hardware and
/// differ only by timing noise, so they share their mean speed and get equal shares.
std::vector<double> speeds_of(const std::vector<Part>& parts, const SplitRun& warm) {
    std::vector<double> measured;
    for (std::size_t i = 0; i < parts.size(); ++i)
        measured.push_back(static_cast<double>(parts[i].length) /
                           std::max(warm.reductions[i].span_us, 1e-3));
    std::vector<double> speeds;
    for (const auto& part : parts) {
        double sum = 0;
        int same = 0;
        for (std::size_t j = 0; j < parts.size(); ++j)
            if (parts[j].reducer->report().name == part.reducer->report().name) {
                sum += measured[j];
                ++same;
            }
        speeds.push_back(sum / same);
    }
    return speeds;
}

/// The host's values of a part's share.
/// Where the values came from: without `values`, each stream drew its own.
Origin origin_of(const std::optional<ValuesView>& values) {
    return values ? values->origin : Origin::drawn;
}

std::vector<HostSpan> spans_of(const Part& part, const std::optional<ValuesView>& values) {
    if (part.stream)
        return part.stream->spans(part.length);
    return {{values->part(part.first, part.length).data, part.length}};
}

Scalar combined(Op op, const std::vector<Reduction>& reductions) {
    Scalar total = reductions.front().value;
    for (std::size_t i = 1; i < reductions.size(); ++i)
        total = std::visit(
            [&](auto a) -> Scalar {
                return combine(op, a, std::get<decltype(a)>(reductions[i].value));
            },
            total);
    return total;
}

/// The whole input's result per run, checked against the host reference. A float sum's
/// bound is each share's, plus the host's additions of the shares' results.
Measurement measure_whole(std::vector<Part>& parts, const std::vector<SplitRun>& runs,
                          const Options& options, const std::optional<ValuesView>& values) {
    Measurement whole;
    whole.type = options.type;
    whole.length = options.length;
    for (const auto& run : runs) {
        Reduction reduction = run.reductions.front();
        reduction.value = combined(options.op, run.reductions);
        reduction.host_us = run.host_us;
        whole.runs.push_back(reduction);
    }
    std::vector<HostSpan> all;
    for (const auto& part : parts)
        for (const auto& span : spans_of(part, values))
            all.push_back(span);
    check_against(
        whole, *parts.front().reducer, {options.iterations, !options.cold},
        [&] { return host_reduce(options.op, options.type, all); }, origin_of(values));
    if (whole.check == Check::bound) {
        whole.tolerance = sum_tolerance(
            options.type, parts.size() - 1, whole.expected.magnitude,
            std::visit([](auto x) { return static_cast<double>(x); }, whole.expected.value));
        for (const auto& part : parts)
            whole.tolerance += part.measurement.tolerance;
    }
    return whole;
}

void print_split(std::ostream& out, const std::vector<Part>& parts, std::size_t named,
                 const std::vector<double>& speeds, const std::vector<SplitRun>& runs,
                 const Measurement& whole, const Options& options) {
    print_title(out, options);
    out << "split    " << parts.size();
    if (parts.size() < named)
        out << " of the " << named << " devices named, as many as there are values";
    else
        out << " devices";
    out << ", shares in proportion to their speed in the warm-up"
        << (options.host_input ? ", each streaming its share from host memory" : "") << '\n';
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto& part = parts[i];
        out << "\n== share " << i + 1 << ": " << part.length << " values ("
            << fixed(100.0 * static_cast<double>(part.length) / static_cast<double>(options.length),
                     1)
            << "%), warm-up speed " << fixed(speeds[i] / 1e3) << " G values/s\n";
        print_setup(out, part.selected, *part.reducer, options);
        if (options.verbosity == Verbosity::verbose)
            print_plan(out, part.reducer->plan(part.length));
        print_measurement(out, part.measurement);
    }
    std::vector<double> overall;
    for (const auto& run : runs)
        overall.push_back(run.host_us);
    out << "\noverall         " << timing_text(summarize(overall), whole.bytes(), runs.size() > 1)
        << ", the first device's start to the last one's end, on the host's clock\n";
    print_result(out, whole);
}

} // namespace

std::vector<std::uint64_t> split_shares(std::uint64_t length, const std::vector<double>& speeds) {
    const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    const bool one_each = length >= speeds.size();
    std::vector<std::uint64_t> shares;
    std::vector<double> fractions; // what rounding down left of each exact share
    for (const auto speed : speeds) {
        const double exact = static_cast<double>(length) * speed / total;
        const auto share = std::min(static_cast<std::uint64_t>(exact), length);
        shares.push_back(one_each ? std::max<std::uint64_t>(share, 1) : share);
        fractions.push_back(exact - static_cast<double>(share));
    }
    // Largest fractions first; ties to the later device, so that two equal devices sharing an
    // odd length give the extra value to the second.
    std::vector<std::size_t> order(speeds.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return fractions[a] > fractions[b] || (fractions[a] == fractions[b] && a > b);
    });
    std::uint64_t given = std::accumulate(shares.begin(), shares.end(), std::uint64_t{0});
    for (std::size_t i = 0; given < length; i = (i + 1) % order.size(), ++given)
        ++shares[order[i]];
    // Raising a share to one value may have given too many: take them from the largest.
    while (given > length) {
        --*std::max_element(shares.begin(), shares.end());
        --given;
    }
    return shares;
}

ExitCode run_split(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, const std::string& kernel_text,
                   std::ostream& out) {
    if (options.mode == Mode::sweep || options.format == Format::json)
        throw Failure(ExitCode::usage,
                      std::string(options.mode == Mode::sweep ? "--sweep" : "--json") +
                          " reports one device, and --device names " +
                          std::to_string(devices.size()) + " (see --help)");
    // A device without a value would have nothing to reduce: the first `length` devices do it.
    const std::vector<SelectedDevice> used(
        devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(
                                               devices.size(), options.length)));
    auto parts = build_parts(used, options, kernel_text);
    if (!file)
        refuse_past_host_memory(options.length, parts.front().reducer->value_size());
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
    place_shares(parts, options, values,
                 split_shares(options.length, std::vector<double>(parts.size(), 1)));
    const auto speeds = speeds_of(parts, reduce_together(parts));
    place_shares(parts, options, values, split_shares(options.length, speeds));

    std::vector<SplitRun> runs;
    const Repeats repeats{options.iterations, !options.cold};
    repeat(repeats, [&](bool counted) {
        auto run = reduce_together(parts);
        if (counted)
            runs.push_back(std::move(run));
    });
    for (std::size_t i = 0; i < parts.size(); ++i) {
        auto& part = parts[i];
        part.measurement.type = options.type;
        part.measurement.length = part.length;
        for (const auto& run : runs)
            part.measurement.runs.push_back(run.reductions[i]);
        check_against(
            part.measurement, *part.reducer, repeats,
            [&] { return host_reduce(options.op, options.type, spans_of(part, values)); },
            origin_of(values));
    }
    const auto whole = measure_whole(parts, runs, options, values);

    if (options.verbosity == Verbosity::quiet)
        out << to_string(whole.runs.front().value) << '\n';
    else
        print_split(out, parts, devices.size(), speeds, runs, whole, options);
    out.flush();
    for (const auto& part : parts)
        refuse_wrong_result(part.measurement);
    refuse_wrong_result(whole);
    return ExitCode::success;
}

} // namespace clreduce
