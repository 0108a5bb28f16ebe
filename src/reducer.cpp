#include "clreduce/reducer.hpp"

#include "clreduce/errors.hpp"
#include "clreduce/source.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace clreduce {
namespace {

/// "16.0 GiB" for a count of int32 values, without overflowing for absurd counts.
std::string gibibytes_of(std::uint64_t values) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB",
                  static_cast<double>(values) * sizeof(cl_int) / (1024.0 * 1024.0 * 1024.0));
    return text;
}

double microseconds_between(std::chrono::steady_clock::time_point from,
                            std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
}

} // namespace

DeviceQueue::DeviceQueue(const cl::Device& device)
    : device(device)
    , context(device)
    , queue(context, device, cl::QueueProperties::Profiling) {}

cl::Program build_program(const DeviceQueue& device_queue, const std::string& source,
                          const std::string& options) {
    cl::Program program(device_queue.context, source);
    try {
        program.build({device_queue.device}, options.c_str());
    } catch (const cl::BuildError& error) {
        std::string log;
        for (const auto& device_log : error.getBuildLog())
            log += device_log.second;
        throw Failure(ExitCode::kernel_build,
                      "kernel build failed (" + cl_error_name(error.err()) + ") on device '" +
                          device_queue.device.getInfo<CL_DEVICE_NAME>() + "' with options '" +
                          options + "'; build log:",
                      log.empty() ? "(the build log is empty)" : log);
    }
    return program;
}

cl::Buffer upload(const DeviceQueue& device_queue, const std::vector<cl_int>& values) {
    const auto bytes = values.size() * sizeof(cl_int);
    cl::Buffer buffer(device_queue.context, CL_MEM_READ_ONLY, bytes);
    device_queue.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, values.data());
    return buffer;
}

Reducer::Reducer(const DeviceQueue& device_queue, const DeviceReport& report, Op op, Path path,
                 const std::string& kernel_text, Factor factor, std::size_t work_group_size_limit)
    : device_queue_(device_queue)
    , report_(report)
    , op_(op)
    , path_(path)
    , factor_(factor)
    , build_options_(clreduce::build_options(report, path)) {
    const auto program =
        build_program(device_queue_, complete_kernel_source(kernel_text, op, path), build_options_);
    kernel_ = cl::Kernel(program, "reduce");
    const auto& device = device_queue_.device;
    const auto local_used = kernel_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device);
    const auto local_free = report.local_memory - std::min(local_used, report.local_memory);
    const auto work_group_size =
        choose_work_group_size(kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device),
                               report.max_work_item_size, local_free, work_group_size_limit);
    shape_ = pass_shape(factor, work_group_size, report.compute_units);
}

void Reducer::check_fits(std::uint64_t length) const {
    const std::uint64_t largest = report_.largest_buffer / sizeof(cl_int);
    if (length > largest)
        throw Failure(ExitCode::unsupported,
                      "length " + std::to_string(length) + " needs " + gibibytes_of(length) +
                          " in one buffer, but device '" + report_.name + "' allocates at most " +
                          gibibytes_of(largest) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE), " +
                          std::to_string(largest) + " values");
    const std::uint64_t needed = length + temporary_values(plan(length));
    const std::uint64_t available = report_.global_memory / sizeof(cl_int);
    if (needed > available)
        throw Failure(ExitCode::unsupported,
                      "length " + std::to_string(length) + " needs " + gibibytes_of(needed) +
                          " with its temporaries, but device '" + report_.name + "' has " +
                          gibibytes_of(available) + " (CL_DEVICE_GLOBAL_MEM_SIZE)");
}

cl::Buffer& Reducer::temporary(std::size_t which, std::uint64_t values) {
    if (temporary_capacity_[which] < values) {
        temporaries_[which] =
            cl::Buffer(device_queue_.context, CL_MEM_READ_WRITE, values * sizeof(cl_int));
        temporary_capacity_[which] = values;
    }
    return temporaries_[which];
}

Reduction Reducer::reduce(const cl::Buffer& input, std::uint64_t length) {
    const auto passes = plan(length);
    // Size both temporaries before enqueueing, so none is replaced while a pass uses it.
    temporary(0, passes.front().out());
    if (passes.size() > 1)
        temporary(1, passes[1].out());

    auto& queue = device_queue_.queue;
    std::vector<cl::Event> events(passes.size());
    const auto started = std::chrono::steady_clock::now();
    const cl::Buffer* from = &input;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const auto& pass = passes[i];
        cl::Buffer* to = &temporaries_[i % 2];
        kernel_.setArg(0, *from);
        kernel_.setArg(1, *to);
        kernel_.setArg(2, static_cast<cl_ulong>(pass.in));
        kernel_.setArg(3, cl::Local(pass.work_group_size * sizeof(cl_int)));
        queue.enqueueNDRangeKernel(kernel_, cl::NullRange,
                                   cl::NDRange(pass.work_groups * pass.work_group_size),
                                   cl::NDRange(pass.work_group_size), nullptr, &events[i]);
        from = to;
    }
    Reduction reduction;
    queue.enqueueReadBuffer(*from, CL_TRUE, 0, sizeof(cl_int), &reduction.value);
    reduction.host_us = microseconds_between(started, std::chrono::steady_clock::now());

    for (std::size_t i = 0; i < passes.size(); ++i)
        reduction.passes.push_back(
            {passes[i], event_us<CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END>(events[i])});
    reduction.span_us =
        static_cast<double>(events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                            events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>()) /
        1000.0;
    return reduction;
}

} // namespace clreduce
