// A program of its own that uses clreduce through its CMake package: on the first OpenCL
// device found, with a context of its own, it sums its own data with the library's reducer
// and the kernel built into the library (no kernel file), and exits 0 when the sum is right.

#include <CL/opencl.hpp>
#include <clreduce/capabilities.hpp>
#include <clreduce/reducer.hpp>
#include <clreduce/source.hpp>
#include <cstdint>
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <variant>
#include <vector>

int main() try {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<cl::Device> devices;
    platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
    const cl::Device device = devices.at(0);

    std::vector<cl_int> values(1000003);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<cl_int>(i % 1000) - 400;
    const auto expected = std::accumulate(values.begin(), values.end(), std::int64_t{0});

    const clreduce::DeviceQueue device_queue(device); // its own context and queue
    cl::Buffer input(device_queue.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     values.size() * sizeof(cl_int), values.data());
    const auto report = clreduce::query_report(device);
    clreduce::Recipe recipe; // int32 sum
    recipe.path = clreduce::best_path(report);
    clreduce::Reducer reducer(device_queue, report, recipe,
                              std::string(clreduce::embedded_kernel_source()));

    const auto sum = std::get<cl_int>(reducer.reduce(input, values.size()).value);
    std::cout << "sum of " << values.size() << " values on " << report.name << ": " << sum
              << " (expected " << expected << ")\n";
    return sum == expected ? 0 : 1;
} catch (const std::exception& error) {
    std::cerr << "consumer: error: " << error.what() << '\n';
    return 1;
}
