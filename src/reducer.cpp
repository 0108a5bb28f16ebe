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

/// A user event that commands can wait for, completed when the scope ends, also by an
/// exception, so that nothing waits forever.
struct HeldUntilScopeEnds {
    explicit HeldUntilScopeEnds(const cl::Context& context)
        : wait_list{cl::UserEvent(context)} {}
    ~HeldUntilScopeEnds() { clSetUserEventStatus(wait_list.front()(), CL_COMPLETE); }
    HeldUntilScopeEnds(const HeldUntilScopeEnds&) = delete;
    HeldUntilScopeEnds& operator=(const HeldUntilScopeEnds&) = delete;

    std::vector<cl::Event> wait_list;
};

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
                 const std::string& kernel_text, Factor factor, std::size_t work_group_size)
    : device_queue_(device_queue)
    , report_(report)
    , op_(op)
    , path_(path)
    , factor_(factor)
    , build_options_(clreduce::build_options(report, path)) {
    program_ =
        build_program(device_queue_, complete_kernel_source(kernel_text, op, path), build_options_);
    kernel_ = cl::Kernel(program_, "reduce");
    const auto& device = device_queue_.device;
    const auto local_used = kernel_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device);
    WorkGroupLimits limits;
    limits.kernel = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    limits.work_item = report.max_work_item_size;
    limits.local_memory_free = report.local_memory - std::min(local_used, report.local_memory);
    // A CPU runs a work-group as a loop on one core: it only needs enough work-items for the
    // SIMD lanes the compiler spreads them over, which the preferred multiple reports.
    if (report.type & CL_DEVICE_TYPE_CPU)
        limits.wanted =
            kernel_.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(device);
    if (work_group_size != 0)
        limits.wanted = work_group_size;
    // PoCL 5.0 aborts (its kernel library lacks __pocl_work_group_alloca) when a sub-group
    // kernel runs in work-groups of fewer than 4 work-items.
    if (path == Path::sub_group)
        limits.smallest = 4;
    shape_ = pass_shape(factor, choose_work_group_size(limits), report.compute_units);
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
    {
        // The first pass waits for `release`, so that every pass is queued before the device
        // starts: a short pass would otherwise end before the host has enqueued the next.
        HeldUntilScopeEnds release(device_queue_.context);
        const cl::Buffer* from = &input;
        for (std::size_t i = 0; i < passes.size(); ++i) {
            const auto& pass = passes[i];
            const cl::Buffer* to = &temporaries_[i % 2];
            kernel_.setArg(0, *from);
            kernel_.setArg(1, *to);
            kernel_.setArg(2, static_cast<cl_ulong>(pass.in));
            kernel_.setArg(3, cl::Local(pass.work_group_size * sizeof(cl_int)));
            queue.enqueueNDRangeKernel(kernel_, cl::NullRange,
                                       cl::NDRange(pass.work_groups * pass.work_group_size),
                                       cl::NDRange(pass.work_group_size),
                                       i == 0 ? &release.wait_list : nullptr, &events[i]);
            from = to;
        }
    }
    Reduction reduction;
    queue.enqueueReadBuffer(temporaries_[(passes.size() - 1) % 2], CL_TRUE, 0, sizeof(cl_int),
                            &reduction.value);
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
