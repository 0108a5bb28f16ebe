#include "clreduce/split.hpp"

#include "clreduce/capabilities.hpp"
#include "clreduce/input.hpp"
#include "clreduce/measure.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/report.hpp"
#include "clreduce/run.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <ostream>
#include <thread>

namespace clreduce {
namespace {

using Clock = std::chrono::steady_clock;

/// One device's part: its engine, and its share of the input on it.
struct Part {
    SelectedDevice selected;
    std::unique_ptr<DeviceQueue> queue;
    std::unique_ptr<Reducer> reducer;
    std::uint64_t first = 0; // its share's place in the whole input
    std::uint64_t length = 0;
    std::unique_ptr<DeviceInput> input;
    Measurement measurement;
};

/// What every device did in one run, and the host's clock around them all.
struct SplitRun {
    std::vector<Reduction> reductions;
    double host_us = 0; // the first start to the last end
};

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
                run.reductions[i] =
                    parts[i].reducer->reduce(parts[i].input->prefix(parts[i].length));
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

/// Uploads each part's share of `values` by the shares given.
void place_shares(std::vector<Part>& parts, const HostValues& values,
                  const std::vector<std::uint64_t>& shares) {
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        auto& part = parts[i];
        part.first = first;
        part.length = shares[i];
        first += shares[i];
        const auto per_buffer = buffer_values(part.reducer->report(), part.reducer->type(), 0);
        part.reducer->check_fits(std::max<std::uint64_t>(part.length, 1), per_buffer);
        const auto share = visit_type(type_of(values), [&](auto zero) -> HostValues {
            using T = decltype(zero);
            const auto* data = static_cast<const T*>(data_of(values)) + part.first;
            return std::vector<T>(data, data + std::max<std::uint64_t>(part.length, 1));
        });
        part.input = std::make_unique<DeviceInput>(*part.queue, share, per_buffer);
    }
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

} // namespace

std::vector<std::uint64_t> split_shares(std::uint64_t length, const std::vector<double>& speeds) {
    const auto& weights = speeds;
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<std::uint64_t> shares;
    std::uint64_t given = 0;
    for (std::size_t i = 0; i + 1 < weights.size(); ++i) {
        auto share = static_cast<std::uint64_t>(static_cast<double>(length) * weights[i] / total);
        share = std::clamp<std::uint64_t>(share, length - given >= weights.size() - i ? 1 : 0,
                                          length - given);
        shares.push_back(share);
        given += share;
    }
    shares.push_back(length - given);
    return shares;
}

ExitCode run_split(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::string& kernel_text, std::ostream& out) {
    std::vector<Part> parts;
    for (const auto& selected : devices) {
        Part part;
        part.selected = selected;
        const auto report = query_report(selected.device);
        const auto path = choose_path(report, options.path, options.allow_unreported);
        part.queue = std::make_unique<DeviceQueue>(selected.device);
        const Recipe recipe{options.type,   options.op,     path,
                            options.factor, options.finish, options.work_group_size};
        part.reducer = std::make_unique<Reducer>(*part.queue, report, recipe, kernel_text);
        parts.push_back(std::move(part));
    }
    refuse_past_host_memory(options.length, parts.front().reducer->value_size());
    if (options.length < parts.size())
        throw Failure(ExitCode::unsupported, "length " + std::to_string(options.length) +
                                                 " is shorter than the " +
                                                 std::to_string(parts.size()) + " devices");
    const auto values = random_values(options.type, options.length, options.seed);

    // The warm-up, on equal shares, measures each device's speed for the real split.
    place_shares(parts, values, split_shares(options.length, std::vector<double>(parts.size(), 1)));
    const auto warm = reduce_together(parts);
    std::vector<double> measured;
    for (std::size_t i = 0; i < parts.size(); ++i)
        measured.push_back(static_cast<double>(parts[i].length) /
                           std::max(warm.reductions[i].span_us, 1e-3));
    // Devices of one name are the same hardware: they differ only by timing noise, so they
    // share their mean speed and get equal shares.
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
    const auto shares = split_shares(options.length, speeds);
    place_shares(parts, values, shares);

    std::vector<double> overall;
    std::vector<SplitRun> runs;
    repeat({options.iterations, !options.cold}, [&](bool counted) {
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
        check_against(part.measurement, *part.reducer, {options.iterations, !options.cold}, [&] {
            const auto* data = static_cast<const unsigned char*>(data_of(values)) +
                               part.first * part.reducer->value_size();
            return host_reduce(options.op, options.type, {{data, part.length}});
        });
    }
    for (const auto& run : runs)
        overall.push_back(run.host_us);

    // The whole: the host combines the devices' results, one more addition for a sum.
    Measurement whole;
    whole.type = options.type;
    whole.length = options.length;
    for (const auto& run : runs) {
        Reduction reduction = run.reductions.front();
        reduction.value = combined(options.op, run.reductions);
        reduction.host_us = run.host_us;
        whole.runs.push_back(reduction);
    }
    check_against(whole, *parts.front().reducer, {options.iterations, !options.cold},
                  [&] { return host_reduce(options.op, values, options.length); });
    if (whole.tolerance > 0) { // each share's bound, and the host's additions of the shares
        whole.tolerance = sum_tolerance(
            options.type, parts.size() - 1, whole.expected.magnitude,
            std::visit([](auto x) { return static_cast<double>(x); }, whole.expected.value));
        for (const auto& part : parts)
            whole.tolerance += part.measurement.tolerance;
    }

    if (options.verbosity == Verbosity::quiet) {
        out << to_string(whole.runs.front().value) << '\n';
    } else {
        print_title(out, options);
        out << "split    " << parts.size()
            << " devices, shares in proportion to their speed in the warm-up\n";
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const auto& part = parts[i];
            out << "\n== share " << i + 1 << ": " << part.length << " values ("
                << fixed(100.0 * static_cast<double>(part.length) /
                             static_cast<double>(options.length),
                         1)
                << "%), warm-up speed " << fixed(speeds[i] * 1e6 / 1e9, 2) << " G values/s\n";
            print_setup(out, part.selected, *part.reducer, options);
            print_measurement(out, part.measurement);
        }
        const auto time = summarize(overall);
        out << "\noverall         min " << fixed(time.min) << " us, median " << fixed(time.median)
            << " us (" << fixed(gigabytes_per_second(whole.bytes(), time.min))
            << " GB/s), the first device's start to the last one's end, on the host's clock\n"
            << "result          " << to_string(whole.runs.front().value)
            << (whole.valid()
                    ? " (matches the host reference)"
                    : " (WRONG: the host reference is " + to_string(whole.expected.value) + ")")
            << '\n';
    }
    out.flush();
    for (const auto& part : parts)
        refuse_wrong_result(part.measurement);
    refuse_wrong_result(whole);
    return ExitCode::success;
}

} // namespace clreduce
