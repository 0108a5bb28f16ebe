#pragma once
// Measuring: repeated, validated reductions of one input, the host reference beside them,
// and the device's streaming-read ceiling.

#include "clreduce/reducer.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

struct Statistic {
    double min = 0;
    double median = 0;
};

/// Min and median of at least one sample.
Statistic summarize(std::vector<double> samples);

/// How often to run and whether to warm up first (benchmark mode) or measure a cold run.
struct Repeats {
    unsigned iterations = 1;
    bool warm_up = false;
};

/// The streaming-read ceiling: reduce.cl's stream_read kernel, which makes the first pass's
/// reads with the first pass's launch shape and does nothing else. No reduction of the same
/// input can take less time on the device.
class StreamRead {
public:
    explicit StreamRead(const Reducer& reducer);
    Statistic measure_us(const cl::Buffer& input, std::uint64_t length, const Repeats& repeats);

private:
    const Reducer& reducer_;
    cl::Kernel kernel_;
    cl::Buffer sink_;
};

struct Measurement {
    std::uint64_t length = 0;
    std::vector<Reduction> runs; // the timed runs, warm-up excluded
    cl_int expected = 0;         // the host reference
    Statistic host_reference_us;
    std::optional<Statistic> ceiling_us;

    /// Whether every timed run's result equals the host reference.
    bool valid() const;
    Statistic span_us() const;
    Statistic pass_us(std::size_t pass) const;
};

/// Reduces the first `length` of `values` (already in `input`) `repeats` times on the device
/// and with the host reference, and the streaming-read ceiling when `ceiling` is given.
Measurement measure(Reducer& reducer, const cl::Buffer& input, const std::vector<cl_int>& values,
                    std::uint64_t length, const Repeats& repeats, StreamRead* ceiling);

/// Gigabytes per second of reading `values` int32s in `microseconds`.
double gigabytes_per_second(std::uint64_t values, double microseconds);

} // namespace clreduce
