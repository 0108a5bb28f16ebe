#include "clreduce/measure.hpp"

#include "clreduce/reference.hpp"

#include <algorithm>
#include <chrono>

namespace clreduce {
namespace {

/// Calls `run` (which returns microseconds) once to warm up if asked, then `iterations` times.
template <typename Run>
std::vector<double> repeat_us(const Repeats& repeats, Run run) {
    if (repeats.warm_up)
        run();
    std::vector<double> samples;
    for (unsigned i = 0; i < repeats.iterations; ++i)
        samples.push_back(run());
    return samples;
}

} // namespace

Statistic summarize(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const auto middle = samples.size() / 2;
    const double median =
        samples.size() % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
    return {samples.front(), median};
}

double gigabytes_per_second(std::uint64_t values, double microseconds) {
    return microseconds > 0 ? static_cast<double>(values) * sizeof(cl_int) / microseconds / 1e3
                            : 0.0;
}

StreamRead::StreamRead(const Reducer& reducer)
    : reducer_(reducer)
    , kernel_(reducer.program(), "stream_read")
    , sink_(reducer.device_queue().context, CL_MEM_WRITE_ONLY, sizeof(cl_int)) {}

Statistic StreamRead::measure_us(const cl::Buffer& input, std::uint64_t length,
                                 const Repeats& repeats) {
    const auto first_pass = reducer_.plan(length).front();
    kernel_.setArg(0, input);
    kernel_.setArg(1, static_cast<cl_ulong>(length));
    kernel_.setArg(2, cl_int{0x5eed1e55});
    kernel_.setArg(3, sink_);
    return summarize(repeat_us(repeats, [&] {
        cl::Event event;
        reducer_.device_queue().queue.enqueueNDRangeKernel(
            kernel_, cl::NullRange,
            cl::NDRange(first_pass.work_groups * first_pass.work_group_size),
            cl::NDRange(first_pass.work_group_size), nullptr, &event);
        event.wait();
        return event_us<CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END>(event);
    }));
}

bool Measurement::valid() const {
    return std::all_of(runs.begin(), runs.end(),
                       [&](const Reduction& run) { return run.value == expected; });
}

Statistic Measurement::span_us() const {
    std::vector<double> samples;
    for (const auto& run : runs)
        samples.push_back(run.span_us);
    return summarize(samples);
}

Statistic Measurement::pass_us(std::size_t pass) const {
    std::vector<double> samples;
    for (const auto& run : runs)
        samples.push_back(run.passes.at(pass).device_us);
    return summarize(samples);
}

Measurement measure(Reducer& reducer, const cl::Buffer& input, const std::vector<cl_int>& values,
                    std::uint64_t length, const Repeats& repeats, StreamRead* ceiling) {
    Measurement measurement;
    measurement.length = length;
    repeat_us(repeats, [&] {
        measurement.runs.push_back(reducer.reduce(input, length));
        return measurement.runs.back().span_us;
    });
    if (repeats.warm_up) // it is not counted
        measurement.runs.erase(measurement.runs.begin());

    measurement.host_reference_us = summarize(repeat_us(repeats, [&] {
        const auto started = std::chrono::steady_clock::now();
        measurement.expected = host_reduce(reducer.op(), values.data(), length);
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
            .count();
    }));
    if (ceiling)
        measurement.ceiling_us = ceiling->measure_us(input, length, repeats);
    return measurement;
}

} // namespace clreduce
