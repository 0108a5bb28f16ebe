// The library's calls timed: what a program pays that reduces its own
// buffer through clreduce's API rather than through the command line.
//
//   api_benchmark [gpu|cpu|all] [largest log2 length] [runs] [int32|int64]
//                                                     (default: gpu 28 50 int32)
//
// For every power of two from 2^10 to 2^largest (int32 sum, accumulated in int32, or in int64
// as NumPy's sum of int32 is and the Python package asks, the finish the device allows, on
// the first device of the type), three figures, each the min and median of `runs` after one
// warm-up:
//   span       reduce_timed() on a profiling queue: the device's time, first start to last end;
//   blocking   reduce() on a queue without profiling, as a program calls it (and as clreduce
//              times its "host observed"), on the host's clock around the call;
//   chained    1000 enqueue_reduce() back to back into one result buffer and one read of the
//              1000 results, on the host's clock, per reduction.
// Every result is checked against the host's sum; a wrong one exits 1. Speed is judged on
// the GPU machine (docs/benchmarks.md), never here: the CTest run only checks that it runs
// and is right.

#include <CL/opencl.hpp>
#include <algorithm>
#include <chrono>
#include <clreduce/reducer.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t chain_length = 1000;

struct MinMedian {
    double min = 0;
    double median = 0;
};

MinMedian summarize(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return {samples.front(), samples[samples.size() / 2]};
}

double microseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

/// One warm-up, then `runs` samples of `sample`.
MinMedian measure(unsigned runs, const std::function<double()>& sample) {
    sample();
    std::vector<double> samples;
    for (unsigned i = 0; i < runs; ++i)
        samples.push_back(sample());
    return summarize(samples);
}

cl::Device first_device(cl_device_type type) {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    for (const auto& platform : platforms) {
        std::vector<cl::Device> devices;
        try {
            platform.getDevices(type, &devices);
        } catch (const cl::Error&) { // CL_DEVICE_NOT_FOUND
            continue;
        }
        if (!devices.empty())
            return devices.front();
    }
    throw std::runtime_error("no OpenCL device of that type");
}

cl_device_type type_named(const std::string& name) {
    if (name == "gpu")
        return CL_DEVICE_TYPE_GPU;
    if (name == "cpu")
        return CL_DEVICE_TYPE_CPU;
    return CL_DEVICE_TYPE_ALL;
}

/// The host's sum in the accumulator T (cl_int or cl_long), wrapping as the device's does.
template <typename T>
T host_sum(const std::vector<cl_int>& values, std::size_t count) {
    using Unsigned = std::make_unsigned_t<T>;
    Unsigned sum = 0;
    for (std::size_t i = 0; i < count; ++i)
        sum += static_cast<Unsigned>(static_cast<T>(values[i]));
    return static_cast<T>(sum);
}

void require(bool right, const std::string& what) {
    if (!right)
        throw std::runtime_error("wrong result: " + what);
}

/// The three figures at every length, int32 values summed in T.
template <typename T>
void benchmark(const cl::Device& device, unsigned largest, unsigned runs) {
    const cl::Context context(device);
    const cl::CommandQueue profiling(context, device, cl::QueueProperties::Profiling);
    const cl::CommandQueue plain(context, device);
    clreduce::Recipe int32_sum; // the best path the device reports, the fastest finish
    int32_sum.type = clreduce::DataType::int32;
    int32_sum.op = clreduce::Op::sum;
    int32_sum.accumulate =
        std::is_same_v<T, cl_long> ? clreduce::DataType::int64 : clreduce::DataType::int32;
    clreduce::Reducer sum(context, device, int32_sum);

    std::vector<cl_int> values(std::size_t{1} << largest);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<cl_int>(i * 2654435761u);
    const cl::Buffer input(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           values.size() * sizeof(cl_int), values.data());
    const cl::Buffer results(context, CL_MEM_READ_WRITE, chain_length * sizeof(T));
    std::vector<T> chained(chain_length);

    std::printf("device %s, finish %s, accumulated in %s, %u runs\n",
                device.getInfo<CL_DEVICE_NAME>().c_str(), clreduce::name_of(sum.finish()).c_str(),
                clreduce::name_of(sum.accumulator()).c_str(), runs);
    std::printf("%12s %22s %22s %22s\n", "length", "span us", "blocking host us",
                "chained us/reduction");
    for (unsigned log2 = 10; log2 <= largest; ++log2) {
        const std::size_t count = std::size_t{1} << log2;
        const auto expected = host_sum<T>(values, count);
        const auto span = measure(runs, [&] {
            const auto run = sum.reduce_timed(profiling, {{input, count, 0}});
            require(std::get<T>(run.value) == expected, "profiled");
            return run.span_us;
        });
        const auto blocking = measure(runs, [&] {
            const auto start = Clock::now();
            const auto value = sum.template reduce<T>(plain, input, 0, count);
            const auto us = microseconds_since(start);
            require(value == expected, "blocking");
            return us;
        });
        const auto per_chained = measure(std::max(runs / 10, 1u), [&] {
            const auto start = Clock::now();
            for (std::size_t i = 0; i < chain_length; ++i)
                sum.enqueue_reduce(plain, input, 0, count, results, i);
            plain.enqueueReadBuffer(results, CL_TRUE, 0, chain_length * sizeof(T), chained.data());
            const auto us = microseconds_since(start) / chain_length;
            require(std::all_of(chained.begin(), chained.end(),
                                [&](T value) { return value == expected; }),
                    "chained");
            return us;
        });
        std::printf("%12zu %10.2f / %9.2f %10.2f / %9.2f %10.2f / %9.2f\n", count, span.min,
                    span.median, blocking.min, blocking.median, per_chained.min,
                    per_chained.median);
    }
}

} // namespace

int main(int argc, char* argv[]) try {
    const auto device = first_device(type_named(argc > 1 ? argv[1] : "gpu"));
    const unsigned largest = argc > 2 ? std::stoul(argv[2]) : 28;
    const unsigned runs = argc > 3 ? std::stoul(argv[3]) : 50;
    const std::string accumulator = argc > 4 ? argv[4] : "int32";
    if (accumulator == "int64")
        benchmark<cl_long>(device, largest, runs);
    else if (accumulator == "int32")
        benchmark<cl_int>(device, largest, runs);
    else
        throw std::runtime_error("the accumulator is int32 or int64, not " + accumulator);
    return EXIT_SUCCESS;
} catch (const std::exception& error) {
    std::fprintf(stderr, "api_benchmark: error: %s\n", error.what());
    return EXIT_FAILURE;
}
