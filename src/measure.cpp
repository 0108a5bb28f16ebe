#include "detail/measure.hpp"

#include "detail/policy.hpp"
#include "detail/profiling.hpp"
#include "detail/program.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace clreduce {
namespace {

/// |a - b| as a double; both hold the same type.
double difference(const Scalar& a, const Scalar& b) {
    return std::visit(
        [&](auto x) {
            return std::abs(static_cast<double>(x) - static_cast<double>(std::get<decltype(x)>(b)));
        },
        a);
}

double as_double(const Scalar& value) {
    return std::visit([](auto x) { return static_cast<double>(x); }, value);
}

/// The passes a run made; pieces of one input run side by side, so counting each of them
/// for every value overstates a value's additions, which keeps the bound safe.
std::vector<Pass> passes_of(const Reduction& run) {
    std::vector<Pass> passes;
    for (const auto& pass : run.passes)
        passes.push_back(pass.pass);
    return passes;
}

template <typename Field>
Statistic summarize_runs(const std::vector<Reduction>& runs, Field field) {
    std::vector<double> samples;
    for (const auto& run : runs)
        samples.push_back(field(run));
    return summarize(samples);
}

} // namespace

Statistic summarize(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const auto middle = samples.size() / 2;
    const double median =
        samples.size() % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
    return {samples.front(), median};
}

double gigabytes_per_second(std::uint64_t bytes, double microseconds) {
    return microseconds > 0 ? static_cast<double>(bytes) / microseconds / 1e3 : 0.0;
}

double sum_tolerance(DataType type, std::uint64_t additions, double magnitude, double expected) {
    const double u = info(type).unit_roundoff;
    if (u == 0)
        return 0;
    const double k = static_cast<double>(additions);
    return k * u / (1 - k * u) * magnitude + u * std::abs(expected);
}

StreamRead::StreamRead(const Reducer& reducer, const cl::CommandQueue& queue)
    : reducer_(reducer)
    , queue_(queue)
    , kernel_(cached_program(reducer.context(), reducer.device(),
                             reducer.source() + std::string(embedded_stream_read_source()),
                             reducer.build_options()),
              "stream_read")
    , work_group_limit_(kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(reducer.device()))
    , sink_(reducer.context(), CL_MEM_WRITE_ONLY, reducer.accumulator_size()) {}

double StreamRead::launch_us(const std::vector<Piece>& input) {
    std::vector<cl::Event> events;
    for (const auto& piece : input) {
        const auto first_pass = reducer_.plan(piece.length).front();
        const auto global_size = first_pass.work_groups * first_pass.work_group_size;
        // Both sizes are powers of two, so the smaller one divides the global size.
        const auto local_size = std::min(first_pass.work_group_size, work_group_limit_);
        // As many bytes as the largest partial: argmin's and argmax's pair.
        const unsigned char unlikely[16] = {0x55, 0x1e, 0xed, 0x5e, 0x0b, 0xad, 0xf0, 0x0d,
                                            0x55, 0x1e, 0xed, 0x5e, 0x0b, 0xad, 0xf0, 0x0d};
        kernel_.setArg(0, piece.buffer);
        kernel_.setArg(1, static_cast<cl_ulong>(piece.length));
        kernel_.setArg(2, reducer_.accumulator_size(), unlikely);
        kernel_.setArg(3, sink_);
        events.emplace_back();
        queue_.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(global_size),
                                    cl::NDRange(local_size), nullptr, &events.back());
    }
    events.back().wait();
    return span_us(events.front(), events.back());
}

std::string name_of(Check check) {
    switch (check) {
    case Check::exact:
        return "exact";
    case Check::bound:
        return "bound";
    case Check::skipped:
        return "skipped";
    case Check::unchecked:
        break;
    }
    return "unchecked";
}

Check check_for(DataType type, Op op, const Reference& reference, Origin origin) {
    if (!info(type).floating())
        return Check::exact;
    if (info(op).rounding == Rounding::none)
        return Check::exact;
    if (reference.in_order) // another order of roundings: bound, relative to the result
        return std::isfinite(as_double(reference.value)) ? Check::bound : Check::exact;
    if (info(op).rounding == Rounding::multiplicative) // drawn: -1 and 1, exact in any order
        return origin == Origin::drawn || !std::isfinite(as_double(reference.value)) ? Check::exact
                                                                                     : Check::bound;
    return visit_accumulator(type, [&](auto zero) {
        using T = decltype(zero);
        using limits = std::numeric_limits<T>;
        if (reference.magnitude >= static_cast<double>(limits::max()) / 2)
            return Check::unchecked;
        const bool exact_in_any_order =
            reference.grain >= static_cast<double>(limits::min()) &&
            reference.magnitude < std::ldexp(reference.grain, limits::digits);
        // clreduce's N values, each at least 1 in magnitude: while N <= 2^(2 digits) / (128 M^2),
        // some partial sum leaves the integers T holds with probability below 4N e^-64
        // (docs/validation.md).
        const double m = largest_random_addend;
        const bool drawn_exact =
            origin == Origin::drawn &&
            reference.magnitude <= std::ldexp(1.0, 2 * limits::digits) / (128 * m * m);
        const auto value = as_double(reference.value);
        return !std::isfinite(value) || drawn_exact || exact_in_any_order ? Check::exact
                                                                          : Check::bound;
    });
}

bool Measurement::matches(const Reduction& run) const {
    if (run.index != expected.index && check != Check::skipped)
        return false;
    switch (check) {
    case Check::exact:
        return same_value(run.value, expected.value);
    case Check::bound:
        return difference(run.value, expected.value) <= tolerance;
    case Check::unchecked:
    case Check::skipped:
        break;
    }
    return true;
}

Measurement Measurement::of(const Reducer& reducer, std::uint64_t length) {
    Measurement measurement;
    measurement.type = reducer.type();
    measurement.op = reducer.op();
    measurement.accumulator = reducer.accumulator();
    measurement.length = length;
    return measurement;
}

std::string Measurement::result_text() const {
    return clreduce::result_text(op, runs.front().value);
}

std::string Measurement::answer_text() const {
    const auto& index = runs.front().index;
    return index ? std::to_string(*index) : result_text();
}

std::vector<Reduction> Measurement::results() const {
    std::vector<Reduction> all = runs;
    all.insert(all.end(), waits.begin(), waits.end());
    return all;
}

bool Measurement::valid() const {
    const auto all = results();
    return std::all_of(all.begin(), all.end(), [&](const Reduction& run) { return matches(run); });
}

double Measurement::largest_error() const {
    double largest = 0;
    for (const auto& run : results())
        if (!same_value(run.value, expected.value)) {
            const double error = difference(run.value, expected.value);
            largest = std::isnan(error) || error > largest ? error : largest; // NaN sticks
        }
    return largest;
}

Statistic Measurement::span_us() const {
    return summarize_runs(runs, [](const Reduction& run) { return run.span_us; });
}

Statistic Measurement::observed_us() const {
    return summarize_runs(waits.empty() ? runs : waits,
                          [](const Reduction& run) { return run.host_us; });
}

Statistic Measurement::pass_us(std::size_t pass) const {
    return summarize_runs(runs,
                          [&](const Reduction& run) { return run.passes.at(pass).device_us; });
}

void check_against(Measurement& measurement, const Reducer& reducer, const Repeats& repeats,
                   const std::function<Reference()>& reference, Origin origin) {
    if (!reference) {
        measurement.check = Check::skipped;
        return;
    }
    std::vector<double> samples;
    repeat(repeats, [&](bool counted) {
        const auto started = std::chrono::steady_clock::now();
        measurement.expected = reference();
        if (counted)
            samples.push_back(std::chrono::duration<double, std::micro>(
                                  std::chrono::steady_clock::now() - started)
                                  .count());
    });
    measurement.host_reference_us = summarize(samples);
    measurement.check =
        check_for(reducer.accumulator(), reducer.op(), measurement.expected, origin);
    if (measurement.check != Check::bound)
        return;
    // A product's roundings are relative to the product itself, and so are those of a result
    // whose values the host never saw.
    const double expected = as_double(measurement.expected.value);
    const bool product =
        info(reducer.op()).rounding == Rounding::multiplicative || measurement.expected.in_order;
    // One work-item's reference rounds once per value it adds.
    const auto in_order = measurement.expected.in_order ? measurement.length : 0;
    measurement.tolerance =
        sum_tolerance(reducer.accumulator(),
                      additions_per_value(passes_of(measurement.runs.front()), reducer.path(),
                                          info(reducer.type()).values_per_load()) +
                          in_order,
                      product ? std::abs(expected) : measurement.expected.magnitude, expected);
}

Measurement measure(Reducer& reducer, const DeviceQueue& queues, const DeviceInput& input,
                    const ValuesView& values, std::uint64_t length, const Repeats& repeats,
                    StreamRead* stream_read, bool check) {
    const auto pieces = input.prefix(length);
    auto measurement = Measurement::of(reducer, length);
    std::vector<double> read_samples;
    repeat(repeats, [&](bool counted) {
        auto run = reducer.reduce_timed(queues.queue, pieces);
        const auto read_us = stream_read ? stream_read->launch_us(pieces) : 0.0;
        if (!counted)
            return;
        measurement.runs.push_back(std::move(run));
        if (stream_read)
            read_samples.push_back(read_us);
    });
    if (stream_read)
        measurement.stream_read_us = summarize(read_samples);
    // The waits come after the runs, back to back, as an application's reductions on its own
    // queue do: NVIDIA's driver takes 1.5 to 3.5 us longer for the first command on a queue
    // after another queue's (docs/benchmarks.md), which the warm-up absorbs once, not every repeat.
    repeat(repeats, [&](bool counted) {
        auto wait = reducer.reduce_timed(queues.unprofiled, pieces);
        if (counted)
            measurement.waits.push_back(std::move(wait));
    });

    std::function<Reference()> reference;
    if (check)
        reference = [&] {
            return reference_for(reducer, queues.queue, pieces, values.part(0, length));
        };
    check_against(measurement, reducer, repeats, reference, values.origin);
    return measurement;
}

namespace {

/// The host's twin of the recipe's map, where the host has one for the op and the map.
std::optional<HostMap> host_twin(const Recipe& recipe) {
    return recipe.op == Op::custom ? std::nullopt : host_map(recipe.user.map);
}

} // namespace

std::string reference_method(const Recipe& recipe) {
    if (host_twin(recipe))
        return host_reduce_method(recipe.op, recipe.type, recipe.accumulate);
    return "the same definitions in index order on the device, in blocks of " +
           std::to_string(Reducer::in_order_block) +
           " values in a row: this checks the parallel structure, not the expression";
}

namespace {

/// A reduction in index order on the device (Reducer::reduce_in_order()), as the reference.
Reference in_order_reference(const Reducer& reducer, const Reduction& in_order) {
    Reference reference;
    reference.value = in_order.value;
    reference.index = in_order.index;
    reference.method = reference_method(reducer.policy().recipe);
    reference.in_order = true;
    return reference;
}

/// Reducer::reduce_in_order() of `pieces`, as the reference.
Reference in_order_reference(Reducer& reducer, const cl::CommandQueue& queue,
                             const std::vector<Piece>& pieces) {
    return in_order_reference(reducer, reducer.reduce_in_order(queue, pieces));
}

/// `spans` of host memory, the whole input's from `start` on, as pieces of the reducer's
/// device, each at most a buffer long, with their places in the whole input:
/// CL_MEM_USE_HOST_PTR, so that a CPU device reads them where they are; another device may
/// keep a copy in its own memory while they live.
std::vector<Piece> pieces_in_place(const Reducer& reducer, const std::vector<ValuesView>& spans,
                                   std::uint64_t start) {
    const auto per_buffer = buffer_values(reducer.report(), reducer.type(), 0);
    std::vector<Piece> pieces;
    for (const auto& span : spans)
        for (std::uint64_t first = 0; first < span.length; first += per_buffer) {
            const auto part = span.part(first, std::min(per_buffer, span.length - first));
            cl::Buffer buffer(reducer.context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                              part.length * reducer.value_size(), const_cast<void*>(part.data));
            pieces.push_back({buffer, part.length, 0, start});
            start += part.length;
        }
    return pieces;
}

/// The host's `reference` of values that are the whole input's from `start` on, its index
/// (argmin's, argmax's) counted in the whole input, as the device counts it.
Reference counted_from(std::uint64_t start, Reference reference) {
    if (reference.index)
        *reference.index += static_cast<std::int64_t>(start);
    return reference;
}

} // namespace

Reference reference_for(Reducer& reducer, const cl::CommandQueue& queue,
                        const std::vector<Piece>& pieces, const ValuesView& values) {
    if (const auto map = host_twin(reducer.policy().recipe))
        return counted_from(
            pieces.empty() ? 0 : pieces.front().start,
            host_reduce(reducer.op(), values, values.length, reducer.accumulator(), *map));
    return in_order_reference(reducer, queue, pieces);
}

std::vector<Reference> in_order_axis_references(Reducer& reducer, const cl::CommandQueue& queue,
                                                const ValuesView& values, const Shape& shape,
                                                const std::vector<int>& axes) try {
    const auto offsets = axis_offsets(shape, axes);
    const auto run = offsets.reduced.size();
    const auto count = offsets.results.size();
    const auto size = info(values.type).size;
    if (run > Reducer::in_order_block || run * count * size > reducer.report().largest_buffer)
        return axis_references(values, shape, axes, [&](const ValuesView& segment) {
            return reference_for(reducer, queue, {segment});
        });
    // Every result's values side by side, one run each, in one buffer and one launch: a
    // buffer, two launches and a read a result took 53 s for 262144 rows of 64 on PoCL.
    std::vector<unsigned char> runs(std::max<std::size_t>(1, run * count * size));
    for (std::size_t k = 0; k < count; ++k)
        gather_result(values, offsets, k, runs.data() + k * run * size);
    const cl::Buffer input(reducer.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, runs.size(),
                           runs.data());
    std::vector<Reference> references;
    for (const auto& reduction : reducer.reduce_runs_in_order(queue, input, run, count))
        references.push_back(in_order_reference(reducer, reduction));
    return references;
} catch (const cl::Error& error) {
    throw Error(error);
}

Reference reference_for(Reducer& reducer, const cl::CommandQueue& queue,
                        const std::vector<ValuesView>& spans, std::uint64_t start) try {
    if (const auto map = host_twin(reducer.policy().recipe))
        return counted_from(
            start, host_reduce(reducer.op(), reducer.type(), spans, reducer.accumulator(), *map));
    return in_order_reference(reducer, queue, pieces_in_place(reducer, spans, start));
} catch (const cl::Error& error) {
    throw Error(error);
}

} // namespace clreduce
