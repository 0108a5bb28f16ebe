#include "clreduce/reducer.hpp"

#include "clreduce/errors.hpp"
#include "clreduce/finish.hpp"
#include "clreduce/source.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace clreduce {
namespace {

double microseconds_between(std::chrono::steady_clock::time_point from,
                            std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
}

/// The program's binary for its one device: PTX text on NVIDIA's platform.
std::string program_binary(const cl::Program& program) {
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    return binaries.empty() ? std::string{}
                            : std::string(binaries.front().begin(), binaries.front().end());
}

/// Waits for `event` by polling its status. A blocking wait lets the driver put the thread to
/// sleep, and waking it added 2 to 3 µs to each reduction on NVIDIA's driver (README), more
/// than a tenth of a short reduction's wait.
void poll_until_complete(const cl::Event& event) {
    cl_int status;
    while ((status = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>()) > CL_COMPLETE) {
    }
    if (status < 0)
        throw cl::Error(status, "waiting for the result");
}

/// A --work-group-size past what the device runs the kernels with is refused, not shrunk.
void refuse_past_bound(std::size_t work_group_size, const WorkGroupBound& bound,
                       const std::string& device_name) {
    if (work_group_size > bound.size)
        throw Error(Errc::unsupported, "--work-group-size " + std::to_string(work_group_size) +
                                           " is more than device '" + device_name +
                                           "' runs the kernels with: at most " +
                                           std::to_string(bound.size) + " work-items, " +
                                           bound.limit);
}

/// The program's kernel `name`. A program built without it is a failed build.
cl::Kernel program_kernel(const DeviceQueue& device_queue, const cl::Program& program,
                          const std::string& name) {
    try {
        return cl::Kernel(program, name.c_str());
    } catch (const cl::Error& error) {
        // A compiler that accepts an unknown built-in as an external function (Oclgrind)
        // "builds" a program whose kernels cannot be created: that is a failed build.
        if (error.err() != CL_INVALID_KERNEL_NAME)
            throw;
        const auto device = device_queue.device;
        const auto log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
        throw Error(Errc::kernel_build,
                    "kernel build failed on device '" + device.getInfo<CL_DEVICE_NAME>() +
                        "': the built program has no kernel '" + name +
                        "' (CL_INVALID_KERNEL_NAME); build log:",
                    log.find_first_not_of(" \n\r\t") == std::string::npos
                        ? "(the build log is empty)"
                        : log);
    }
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
        throw Error(Errc::kernel_build,
                    "kernel build failed (" + cl_error_name(error.err()) + ") on device '" +
                        device_queue.device.getInfo<CL_DEVICE_NAME>() + "' with options '" +
                        options + "'; build log:",
                    log.empty() ? "(the build log is empty)" : log);
    }
    return program;
}

cl::Buffer upload(const DeviceQueue& device_queue, const HostValues& values) {
    const auto bytes = length_of(values) * info(type_of(values)).size;
    cl::Buffer buffer(device_queue.context, CL_MEM_READ_ONLY, bytes);
    device_queue.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data_of(values));
    return buffer;
}

Reducer::Reducer(const DeviceQueue& device_queue, const DeviceReport& report, const Recipe& recipe,
                 const std::string& kernel_text)
    : device_queue_(device_queue)
    , report_(report)
    , recipe_(recipe)
    , finish_(choose_finish(recipe.factor, recipe.finish))
    , build_options_(clreduce::build_options(report, recipe.path, finish_, recipe.type)) {
    require_type_support(report, recipe.type);
    program_ = build_program(
        device_queue_, complete_kernel_source(kernel_text, recipe.op, recipe.path, recipe.type),
        build_options_);
    finish_ =
        confirm_finish(report, finish_, recipe.finish, [&] { return program_binary(program_); });
    pass_kernel_ = program_kernel(device_queue_, program_, "reduce");
    finishing_kernel_ = program_kernel(device_queue_, program_, "reduce_and_finish");
    for (auto& arrivals : arrivals_) {
        cl_uint none = 0;
        arrivals = cl::Buffer(device_queue_.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof none, &none);
    }
    const auto& device = device_queue_.device;
    WorkGroupLimits limits;
    limits.kernel = std::min(pass_kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device),
                             finishing_kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device));
    limits.work_item = report.max_work_item_size;
    const auto local_used =
        std::max(pass_kernel_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device),
                 finishing_kernel_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device));
    limits.local_memory_free = report.local_memory - std::min(local_used, report.local_memory);
    limits.value_size = value_size();
    // A CPU runs a work-group as a loop on one core: it only needs enough work-items for the
    // SIMD lanes the compiler spreads them over, which the preferred multiple reports.
    if (report.type & CL_DEVICE_TYPE_CPU)
        limits.wanted =
            pass_kernel_.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(device);
    if (recipe.work_group_size != 0) {
        refuse_past_bound(recipe.work_group_size, work_group_bound(limits), report.name);
        limits.wanted = recipe.work_group_size;
    }
    // PoCL 5.0 aborts (its kernel library lacks __pocl_work_group_alloca) when a sub-group
    // kernel runs in work-groups of fewer than 4 work-items.
    if (recipe.path == Path::sub_group)
        limits.smallest = 4;
    shape_ = pass_shape(recipe.factor, choose_work_group_size(limits), report.compute_units,
                        report.address_bits);

    // Drivers copy into pinned memory directly, where other memory goes through a staging copy.
    // Mapped last: nothing after it throws, so the destructor always unmaps it.
    result_buffer_ =
        cl::Buffer(device_queue_.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, value_size());
    result_ = device_queue_.queue.enqueueMapBuffer(result_buffer_, CL_TRUE,
                                                   CL_MAP_READ | CL_MAP_WRITE, 0, value_size());
}

Reducer::~Reducer() {
    try {
        device_queue_.queue.enqueueUnmapMemObject(result_buffer_, result_);
        device_queue_.queue.finish();
    } catch (const cl::Error&) { // nothing to do about it while being destroyed
    }
}

std::uint64_t Reducer::device_values(std::uint64_t length, std::uint64_t per_buffer) const {
    // In 128 bits: a length near 2^64 with its partials and temporaries would wrap around 64.
    using Wide = unsigned __int128;
    constexpr auto most = std::numeric_limits<std::uint64_t>::max();
    Wide partials = 0; // several pieces each leave their partials
    if (length > per_buffer) {
        const auto rest = length % per_buffer;
        partials =
            Wide{length / per_buffer} * partials_of(per_buffer) + (rest ? partials_of(rest) : 0);
    }
    Wide needed = Wide{length} + partials;
    const Wide reduced = partials == 0 ? length : partials; // what the finish reduces
    if (reduced > most)
        return most; // the partials alone are past any memory
    const auto temporaries = temporary_values(plan(static_cast<std::uint64_t>(reduced)));
    needed += Wide{temporaries[0]} + temporaries[1];
    return needed > most ? most : static_cast<std::uint64_t>(needed);
}

void Reducer::check_fits(std::uint64_t length, std::uint64_t per_buffer) const {
    const auto size = value_size();
    const auto needed = device_values(length, per_buffer);
    const std::uint64_t available = report_.global_memory / size;
    if (needed > available)
        throw Error(Errc::unsupported,
                    "length " + std::to_string(length) + " needs " + bytes_text(needed, size) +
                        " of device memory with its temporaries, but device '" + report_.name +
                        "' has " + bytes_text(available, size) + " (CL_DEVICE_GLOBAL_MEM_SIZE)");
}

void Reducer::size_temporary(std::size_t which, std::uint64_t values) {
    if (temporary_capacity_[which] < values) {
        temporaries_[which] =
            cl::Buffer(device_queue_.context, CL_MEM_READ_WRITE, values * value_size());
        temporary_capacity_[which] = values;
    }
}

void Reducer::enqueue(const Pass& pass, const cl::Buffer& in, std::size_t out, cl::Event& event) {
    auto& kernel = pass.finishes ? finishing_kernel_ : pass_kernel_;
    const auto scratch = cl::Local(pass.work_group_size * value_size());
    kernel.setArg(0, in);
    if (pass.finishes) {
        kernel.setArg(1, temporaries_[1 - out]); // the partials
        kernel.setArg(2, temporaries_[out]);
        kernel.setArg(3, static_cast<cl_ulong>(pass.in));
        kernel.setArg(4, scratch);
        kernel.setArg(5, arrivals_[next_arrivals_]);
        kernel.setArg(6, arrivals_[1 - next_arrivals_]);
    } else {
        kernel.setArg(1, temporaries_[out]);
        kernel.setArg(2, static_cast<cl_ulong>(pass.in));
        kernel.setArg(3, scratch);
        kernel.setArg(4, cl_ulong{0});
    }
    device_queue_.queue.enqueueNDRangeKernel(kernel, cl::NullRange,
                                             cl::NDRange(pass.work_groups * pass.work_group_size),
                                             cl::NDRange(pass.work_group_size), nullptr, &event);
    if (pass.finishes)
        next_arrivals_ = 1 - next_arrivals_;
}

void Reducer::require_holds(const cl::Buffer& input, std::uint64_t length) const {
    const auto input_values = input.getInfo<CL_MEM_SIZE>() / value_size();
    if (input_values < length)
        throw Error(Errc::invalid_argument, "reduce: the input buffer holds " +
                                                std::to_string(input_values) + " values of " +
                                                name_of(type()) + ", fewer than the length " +
                                                std::to_string(length));
}

Reduction Reducer::reduce(const cl::Buffer& input, std::uint64_t length) {
    require_holds(input, length);
    return finish_pieces(input, length, {}, {}, std::chrono::steady_clock::now());
}

Reduction Reducer::reduce(const std::vector<Piece>& pieces) {
    if (pieces.size() == 1)
        return reduce(pieces.front().buffer, pieces.front().length);
    std::uint64_t count = 0;
    for (const auto& piece : pieces) {
        require_holds(piece.buffer, piece.length);
        count += partials_of(piece.length);
    }
    if (piece_partials_capacity_ < count) {
        piece_partials_ =
            cl::Buffer(device_queue_.context, CL_MEM_READ_WRITE, count * value_size());
        piece_partials_capacity_ = count;
    }
    const auto started = std::chrono::steady_clock::now();
    std::vector<cl::Event> events;
    std::uint64_t first = 0;
    for (const auto& piece : pieces) {
        events.push_back(enqueue_piece(piece, piece_partials_, first, {}));
        first += partials_of(piece.length);
    }
    std::vector<PassTime> piece_passes;
    for (const auto& piece : pieces)
        piece_passes.push_back({plan_passes(piece.length, shape_).front(), 0});
    return finish_pieces(piece_partials_, count, std::move(piece_passes), std::move(events),
                         started);
}

std::size_t Reducer::partials_of(std::uint64_t length) const {
    return plan_passes(length, shape_).front().work_groups;
}

cl::Event Reducer::enqueue_piece(const Piece& piece, const cl::Buffer& partials,
                                 std::uint64_t first, const std::vector<cl::Event>& wait) {
    const auto pass = plan_passes(piece.length, shape_).front();
    pass_kernel_.setArg(0, piece.buffer);
    pass_kernel_.setArg(1, partials);
    pass_kernel_.setArg(2, static_cast<cl_ulong>(piece.length));
    pass_kernel_.setArg(3, cl::Local(pass.work_group_size * value_size()));
    pass_kernel_.setArg(4, static_cast<cl_ulong>(first));
    cl::Event event;
    device_queue_.queue.enqueueNDRangeKernel(
        pass_kernel_, cl::NullRange, cl::NDRange(pass.work_groups * pass.work_group_size),
        cl::NDRange(pass.work_group_size), wait.empty() ? nullptr : &wait, &event);
    return event;
}

Reduction Reducer::finish_pieces(const cl::Buffer& partials, std::uint64_t count,
                                 std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                                 std::chrono::steady_clock::time_point started) {
    const auto passes = plan(count);
    // Size both temporaries before enqueueing, so none is replaced while a pass uses it.
    const auto temporaries = temporary_values(passes);
    for (std::size_t which = 0; which < 2; ++which)
        size_temporary(which, temporaries[which]);

    std::vector<cl::Event> events(passes.size());
    enqueue(passes.front(), partials, 0, events.front());
    for (std::size_t i = 1; i < passes.size(); ++i)
        enqueue(passes[i], temporaries_[(i - 1) % 2], i % 2, events[i]);
    cl::Event read;
    device_queue_.queue.enqueueReadBuffer(temporaries_[(passes.size() - 1) % 2], CL_FALSE, 0,
                                          value_size(), result_, nullptr, &read);
    device_queue_.queue.flush();
    poll_until_complete(read);
    Reduction reduction;
    reduction.value = scalar_from_bytes(type(), result_);
    reduction.host_us = microseconds_between(started, std::chrono::steady_clock::now());

    reduction.pieces = pieces.size();
    reduction.passes = std::move(pieces);
    for (std::size_t i = 0; i < reduction.passes.size(); ++i)
        reduction.passes[i].device_us =
            event_us<CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END>(piece_events[i]);
    for (std::size_t i = 0; i < passes.size(); ++i)
        reduction.passes.push_back(
            {passes[i], event_us<CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END>(events[i])});
    const auto& first = piece_events.empty() ? events.front() : piece_events.front();
    reduction.span_us =
        static_cast<double>(events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                            first.getProfilingInfo<CL_PROFILING_COMMAND_START>()) /
        1000.0;
    return reduction;
}

} // namespace clreduce
