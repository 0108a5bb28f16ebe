// A program of its own that uses clreduce: its own context, queue and buffer on the first
// OpenCL device found; one blocking reduction and two chained asynchronous ones; exit 0 when
// every result is right. Built against the installed package: no kernel file needed.

#include <CL/opencl.hpp>
#include <clreduce/reducer.hpp>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <numeric>
#include <vector>

int main() try {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<cl::Device> devices;
    platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
    const cl::Device device = devices.at(0);
    const cl::Context context(device);
    const cl::CommandQueue queue(context, device); // in order, no profiling needed

    std::vector<cl_int> values(1000003);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<cl_int>(i % 1000) - 400;
    const cl::Buffer input(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           values.size() * sizeof(cl_int), values.data());
    const auto sum_from = [&](std::size_t first, std::size_t last) {
        return static_cast<cl_int>(
            std::accumulate(values.begin() + first, values.begin() + last, std::int64_t{0}));
    };

    // int32 sum on the best path the device reports; a second Reducer like it compiles nothing.
    clreduce::Reducer sum(context, device, {clreduce::DataType::int32, clreduce::Op::sum});

    // Blocking: the values from index 1 on, back on the host.
    const cl_int total = sum.reduce<cl_int>(queue, input, 1, values.size() - 1);

    // Asynchronous: both halves into a device buffer, chained by events, read once at the end.
    const std::size_t half = values.size() / 2;
    const cl::Buffer results(context, CL_MEM_WRITE_ONLY, 2 * sizeof(cl_int));
    const cl::Event first = sum.enqueue_reduce(queue, input, 0, half, results, 0);
    const std::vector<cl::Event> second = {
        sum.enqueue_reduce(queue, input, half, values.size() - half, results, 1, {first})};
    cl_int halves[2];
    queue.enqueueReadBuffer(results, CL_TRUE, 0, sizeof halves, halves, &second);

    const bool right = total == sum_from(1, values.size()) && halves[0] == sum_from(0, half) &&
                       halves[1] == sum_from(half, values.size());
    std::cout << "on " << device.getInfo<CL_DEVICE_NAME>() << ": sum from index 1 " << total
              << ", halves " << halves[0] << " + " << halves[1] << (right ? ", right" : ", WRONG")
              << '\n';
    return right ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& error) { // cl::Error, clreduce::Error
    std::cerr << "error: " << error.what() << '\n';
    return EXIT_FAILURE;
}
