#include "clreduce/reducer.hpp"

#include "clreduce/errors.hpp"
#include "detail/policy.hpp"
#include "detail/profiling.hpp"
#include "detail/program.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace clreduce {
namespace {

double microseconds_between(std::chrono::steady_clock::time_point from,
                            std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
}

/// Whether the policy's first pass takes the work-group step as keys (pairs_rank_as_keys()).
bool keyed(const Policy& policy) {
    return pairs_rank_as_keys(policy.recipe.op, policy.recipe.type, policy.accumulator,
                              !policy.recipe.user.map.empty());
}

/// The program's binary for its one device: PTX text on NVIDIA's platform.
std::string program_binary(const cl::Program& program) {
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    return binaries.empty() ? std::string{}
                            : std::string(binaries.front().begin(), binaries.front().end());
}

/// Waits for `event`. On a CPU device the host's thread sleeps in clWaitForEvents: the
/// device's threads run on the host's cores, and a thread spinning beside them took one of
/// them (on the 2-core CI machine 2^26 values took 1.7 times as long, polled). Elsewhere it
/// polls the event's status: a blocking wait lets the driver put the thread to sleep, and
/// waking it added 2 to 3 us to each reduction on NVIDIA's driver (docs/benchmarks.md), more than a
/// tenth of a short reduction's wait.
void wait_for(const cl::Event& event, const DeviceReport& report) {
    if (report.type & CL_DEVICE_TYPE_CPU) {
        event.wait();
        return;
    }
    cl_int status;
    while ((status = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>()) > CL_COMPLETE) {
    }
    if (status < 0)
        throw cl::Error(status, "waiting for the result");
}

} // namespace

/// The program's kernel `name`. A program built without it is a failed build.
cl::Kernel program_kernel(const cl::Device& device, const cl::Program& program,
                          const std::string& name) {
    try {
        return cl::Kernel(program, name.c_str());
    } catch (const cl::Error& error) {
        // A compiler that accepts an unknown built-in as an external function (Oclgrind)
        // "builds" a program whose kernels cannot be created: that is a failed build.
        if (error.err() != CL_INVALID_KERNEL_NAME)
            throw;
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

namespace {

/// Builds `source` for `device`; a compiler error becomes Error(Errc::kernel_build) carrying
/// the build log.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options) {
    cl::Program program(context, source);
    try {
        program.build({device}, options.c_str());
    } catch (const cl::BuildError& error) {
        std::string log;
        for (const auto& device_log : error.getBuildLog())
            log += device_log.second;
        throw Error(Errc::kernel_build,
                    "kernel build failed (" + cl_error_name(error.err()) + ") on device '" +
                        device.getInfo<CL_DEVICE_NAME>() + "' with options '" + options +
                        "'; build log:",
                    log.empty() ? "(the build log is empty)" : log);
    }
    return program;
}

/// What a compiled program is built from. The handles are those of objects the cached program
/// holds references to, so no other context or device can take them while it is cached.
struct ProgramKey {
    cl_context context;
    cl_device_id device;
    std::string options;
    std::string source;
    bool operator<(const ProgramKey& other) const {
        return std::tie(context, device, options, source) <
               std::tie(other.context, other.device, other.options, other.source);
    }
};

struct ProgramCache {
    std::mutex mutex;
    std::map<ProgramKey, cl::Program> programs;
};

/// Never destroyed: at exit the driver may already be gone, and releasing a program then
/// crashes some.
ProgramCache& program_cache() {
    static auto* cache = new ProgramCache;
    return *cache;
}

/// The expressions that passes over partials take: the op's, not the map, which the first pass
/// applied.
Expressions without_map(Expressions user) {
    user.map.clear();
    return user;
}

/// The queue's properties; refuses an out-of-order queue, on which the passes would race.
cl_command_queue_properties in_order_properties(const cl::CommandQueue& queue) {
    const auto properties = queue.getInfo<CL_QUEUE_PROPERTIES>();
    if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        throw Error(Errc::invalid_argument,
                    "reduce: the queue runs out of order; the reducer needs an in-order queue");
    return properties;
}

/// Whether the queue profiles its commands; refuses an out-of-order one.
bool profiles(const cl::CommandQueue& queue) {
    return (in_order_properties(queue) & CL_QUEUE_PROFILING_ENABLE) != 0;
}

} // namespace

DeviceQueue::DeviceQueue(const cl::Device& device)
    : device(device)
    , context(device)
    , queue(context, device, cl::QueueProperties::Profiling)
    , unprofiled(context, device) {}

cl::Buffer upload(const cl::Context& context, const cl::CommandQueue& queue,
                  const HostValues& values) try {
    const auto bytes = length_of(values) * info(type_of(values)).size;
    cl::Buffer buffer(context, CL_MEM_READ_ONLY, bytes);
    queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data_of(values));
    return buffer;
} catch (const cl::Error& error) {
    throw Error(error);
}

void clear_program_cache() {
    auto& cache = program_cache();
    const std::lock_guard<std::mutex> lock(cache.mutex);
    cache.programs.clear();
}

// The build runs outside the lock, so that one thread's compile does not hold up another's
// cache hit; two threads that build the same program at once both compile, and the first one
// stored is kept.
cl::Program cached_program(const cl::Context& context, const cl::Device& device,
                           const std::string& source, const std::string& options) {
    ProgramKey key{context(), device(), options, source};
    auto& cache = program_cache();
    {
        const std::lock_guard<std::mutex> lock(cache.mutex);
        const auto found = cache.programs.find(key);
        if (found != cache.programs.end())
            return found->second;
    }
    auto program = build_program(context, device, source, options);
    const std::lock_guard<std::mutex> lock(cache.mutex);
    return cache.programs.emplace(std::move(key), std::move(program)).first->second;
}

Reducer::Reducer(const cl::Context& context, const cl::Device& device, const Recipe& recipe)
    : Reducer(context, device, recipe, embedded_kernel_source()) {}

Reducer::Reducer(const cl::Context& context, const cl::Device& device, const Recipe& recipe,
                 std::string_view kernel_text) try
    : context_(context)
    , device_(device)
    , report_(std::make_unique<DeviceReport>(query_report(device)))
    , policy_(std::make_unique<Policy>(policy_for(*report_, recipe)))
    , source_(complete_kernel_source(std::string(kernel_text), recipe.op, policy_->path,
                                     recipe.type, policy_->accumulator, recipe.user)) {
    program_ = cached_program(context_, device_, source_,
                              policy_->build_options + (keyed(*policy_) ? " -D REDUCE_KEYS" : ""));
    values_kernels_ = kernels_of(program_);
    partials_program_ =
        cached_program(context_, device_,
                       complete_kernel_source(std::string(kernel_text), recipe.op, policy_->path,
                                              policy_->accumulator, policy_->accumulator,
                                              without_map(recipe.user), Reads::partials),
                       policy_->partials_build_options);
    partials_kernels_ =
        partials_program_() == program_() ? values_kernels_ : kernels_of(partials_program_);
    *policy_ = settle(std::move(*policy_), *report_, kernel_limits(),
                      [&] { return program_binary(program_); });
    for (auto& arrivals : arrivals_) {
        cl_uint none = 0;
        arrivals =
            cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof none, &none);
    }
    result_slot_ = cl::Buffer(context_, CL_MEM_READ_WRITE, accumulator_size());
} catch (const cl::Error& error) {
    throw Error(error);
}

const Recipe& Reducer::recipe() const {
    return policy_->recipe;
}

DataType Reducer::accumulator() const {
    return policy_->accumulator;
}

Path Reducer::path() const {
    return policy_->path;
}

Finish Reducer::finish() const {
    return policy_->finish;
}

const std::string& Reducer::build_options() const {
    return policy_->build_options;
}

const PassShape& Reducer::shape() const {
    return policy_->shape;
}

std::size_t Reducer::work_group_size() const {
    return shape().work_group_size;
}

std::vector<Pass> Reducer::plan(std::uint64_t length) const {
    return plan_passes(length, shape(), finish());
}

KernelLimits Reducer::kernel_limits() const {
    KernelLimits limits;
    limits.work_group_size = std::numeric_limits<std::size_t>::max();
    for (const auto* kernels : {&values_kernels_, &partials_kernels_})
        for (const auto* kernel : {&kernels->pass, &kernels->finishing}) {
            limits.work_group_size =
                std::min(limits.work_group_size,
                         kernel->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_));
            limits.local_memory = std::max<std::uint64_t>(
                limits.local_memory, kernel->getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device_));
        }
    if (policy_->simd_sized_work_groups) // asked only where the policy aims for it
        limits.preferred_multiple =
            values_kernels_.pass.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(
                device_);
    return limits;
}

Reducer::~Reducer() {
    if (result_ == nullptr)
        return;
    try {
        mapped_on_.enqueueUnmapMemObject(result_buffer_, result_);
        mapped_on_.finish();
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
    const Wide reduced = partials == 0 ? length : partials; // what the finish reduces
    if (reduced > most)
        return most; // the partials alone are past any memory
    const auto temporaries = temporary_values(plan(static_cast<std::uint64_t>(reduced)));
    // The partials and temporaries hold accumulators, counted here in input values' bytes.
    const Wide accumulators = partials + temporaries[0] + temporaries[1];
    const Wide needed =
        Wide{length} + (accumulators * accumulator_size() + value_size() - 1) / value_size();
    return needed > most ? most : static_cast<std::uint64_t>(needed);
}

void Reducer::check_fits(std::uint64_t length, std::uint64_t per_buffer) const {
    const auto size = value_size();
    const auto needed = device_values(length, per_buffer);
    const std::uint64_t available = report_->global_memory / size;
    if (needed > available)
        throw Error(Errc::unsupported,
                    "length " + std::to_string(length) + " needs " + bytes_text(needed, size) +
                        " of device memory with its temporaries, but device '" + report_->name +
                        "' has " + bytes_text(available, size) + " (CL_DEVICE_GLOBAL_MEM_SIZE)");
}

void Reducer::size_temporaries(const std::vector<Pass>& passes) {
    // Sized before anything is enqueued, so that none is replaced between two passes that use
    // it. A replaced buffer stays alive for the commands already enqueued on it.
    const auto values = temporary_values(passes);
    for (std::size_t which = 0; which < 2; ++which)
        if (temporary_capacity_[which] < values[which]) {
            temporaries_[which] =
                cl::Buffer(context_, CL_MEM_READ_WRITE, values[which] * accumulator_size());
            temporary_capacity_[which] = values[which];
        }
}

void Reducer::require_holds(const cl::Buffer& buffer, std::uint64_t first, std::uint64_t count,
                            Reads reads, const char* what) const {
    // An input holds values of the type; a result buffer accumulators, or argmin's pairs.
    const auto size = reads == Reads::values ? value_size() : accumulator_size();
    const auto name = name_of(reads == Reads::values ? type() : accumulator());
    const auto held = info(op()).indexed && reads == Reads::partials
                          ? " pairs of " + name + " and int64"
                          : " values of " + name;
    const auto values = buffer.getInfo<CL_MEM_SIZE>() / size;
    if (first > values || count > values - first)
        throw Error(Errc::invalid_argument, std::string("reduce: the ") + what + " buffer holds " +
                                                std::to_string(values) + held + ", fewer than " +
                                                std::to_string(first) + " + " +
                                                std::to_string(count));
}

Reducer::Kernels Reducer::kernels_of(const cl::Program& program) const {
    return Kernels{program_kernel(device_, program, "reduce"),
                   program_kernel(device_, program, "reduce_and_finish")};
}

Reducer::Kernels& Reducer::kernels_for(Reads reads, const Piece& in, std::uint64_t length) {
    if (reads == Reads::partials)
        return partials_kernels_;
    // Keys hold indices below 2^32 - 1 (reduce.cl's REDUCE_KEYS); past them, argmin's and
    // argmax's program without keys, built once: no input shorter than 2^32 - 1 values needs it.
    constexpr std::uint64_t keyed_indices = std::numeric_limits<std::uint32_t>::max();
    if (!keyed(*policy_) || in.start + length <= keyed_indices)
        return values_kernels_;
    if (!wide_index_kernels_)
        wide_index_kernels_ =
            kernels_of(cached_program(context_, device_, source_, policy_->build_options));
    return *wide_index_kernels_;
}

void Reducer::enqueue_pass(const cl::CommandQueue& queue, const Pass& pass, Reads reads,
                           const Piece& in, const cl::Buffer& out, std::uint64_t first_out,
                           const std::vector<cl::Event>& wait, cl::Event& event) {
    auto& kernels = kernels_for(reads, in, pass.in);
    auto& kernel = pass.finishes ? kernels.finishing : kernels.pass;
    kernel.setArg(0, in.buffer);
    kernel.setArg(1, static_cast<cl_ulong>(in.first));
    kernel.setArg(2, static_cast<cl_ulong>(pass.in));
    kernel.setArg(3, static_cast<cl_ulong>(in.start));
    cl_uint next = 4;
    if (pass.finishes)
        kernel.setArg(next++, temporaries_[1]); // the partials
    kernel.setArg(next++, out);
    kernel.setArg(next++, static_cast<cl_ulong>(first_out));
    kernel.setArg(next++, cl::Local(pass.work_group_size * accumulator_size()));
    if (pass.finishes) {
        kernel.setArg(next++, arrivals_[next_arrivals_]);
        kernel.setArg(next++, arrivals_[1 - next_arrivals_]);
        next_arrivals_ = 1 - next_arrivals_;
    }
    queue.enqueueNDRangeKernel(
        kernel, cl::NullRange, cl::NDRange(pass.work_groups * pass.work_group_size),
        cl::NDRange(pass.work_group_size), wait.empty() ? nullptr : &wait, &event);
}

std::vector<cl::Event> Reducer::enqueue_passes(const cl::CommandQueue& queue,
                                               const std::vector<Pass>& passes, Reads reads,
                                               const Piece& input, const cl::Buffer& result,
                                               std::uint64_t result_index,
                                               const std::vector<cl::Event>& wait) {
    size_temporaries(passes);
    static const std::vector<cl::Event> none;
    std::vector<cl::Event> events(passes.size());
    Piece in = input;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const bool last = i + 1 == passes.size();
        enqueue_pass(queue, passes[i], i == 0 ? reads : Reads::partials, in,
                     last ? result : temporaries_[i % 2], last ? result_index : 0,
                     i == 0 ? wait : none, events[i]);
        in = {temporaries_[i % 2], passes[i].out(), 0};
    }
    return events;
}

Reduction Reducer::run(const cl::CommandQueue& queue, const Piece& input, Reads reads,
                       std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                       std::chrono::steady_clock::time_point started, bool timed) {
    const auto passes = plan(input.length);
    const auto events = enqueue_passes(queue, passes, reads, input, result_slot_, 0, {});
    queue.flush(); // the passes start while the read is enqueued
    void* result = pinned_result(queue);
    cl::Event read;
    queue.enqueueReadBuffer(result_slot_, CL_FALSE, 0, accumulator_size(), result, nullptr, &read);
    queue.flush();
    wait_for(read, *report_);
    auto reduction = result_from_bytes(result);
    reduction.host_us = microseconds_between(started, std::chrono::steady_clock::now());

    reduction.pieces = pieces.size();
    reduction.passes = std::move(pieces);
    for (const auto& pass : passes)
        reduction.passes.push_back({pass, 0});
    if (!timed)
        return reduction;
    reduction.profiled = true;
    piece_events.insert(piece_events.end(), events.begin(), events.end());
    for (std::size_t i = 0; i < reduction.passes.size(); ++i)
        reduction.passes[i].device_us = command_us(piece_events[i]);
    reduction.span_us = span_us(piece_events.front(), piece_events.back());
    return reduction;
}

void* Reducer::pinned_result(const cl::CommandQueue& queue) {
    // Drivers copy into pinned memory directly, where other memory goes through a staging
    // copy. Mapping takes a queue, so the first blocking call maps it, on its own.
    if (result_ == nullptr) {
        result_buffer_ =
            cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, accumulator_size());
        result_ = queue.enqueueMapBuffer(result_buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         accumulator_size());
        mapped_on_ = queue;
    }
    return result_;
}

Scalar Reducer::reduce(const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first,
                       std::uint64_t count) try {
    in_order_properties(queue);
    require_holds(input, first, count, Reads::values, "input");
    return run(queue, {input, count, first}, Reads::values, {}, {},
               std::chrono::steady_clock::now(), false)
        .value;
} catch (const cl::Error& error) {
    throw Error(error);
}

Reduction Reducer::reduce_timed(const cl::CommandQueue& queue,
                                const std::vector<Piece>& pieces) try {
    for (const auto& piece : pieces)
        require_holds(piece.buffer, piece.first, piece.length, Reads::values, "input");
    const auto started = std::chrono::steady_clock::now();
    if (pieces.size() == 1)
        return run(queue, pieces.front(), Reads::values, {}, {}, started, profiles(queue));
    std::uint64_t count = 0;
    for (const auto& piece : pieces)
        count += partials_of(piece.length);
    if (piece_partials_capacity_ < count) {
        piece_partials_ = cl::Buffer(context_, CL_MEM_READ_WRITE, count * accumulator_size());
        piece_partials_capacity_ = count;
    }
    std::vector<cl::Event> events;
    std::vector<PassTime> piece_passes;
    std::uint64_t first_partial = 0;
    for (const auto& piece : pieces) {
        events.push_back(enqueue_piece(queue, piece, piece_partials_, first_partial, {}));
        piece_passes.push_back({plan_passes(piece.length, shape()).front(), 0});
        first_partial += partials_of(piece.length);
    }
    return finish_pieces(queue, {piece_partials_, count, 0}, std::move(piece_passes),
                         std::move(events), started);
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Event Reducer::enqueue_reduce(const cl::CommandQueue& queue, const cl::Buffer& input,
                                  std::uint64_t first, std::uint64_t count,
                                  const cl::Buffer& result, std::uint64_t result_index,
                                  const std::vector<cl::Event>& wait) try {
    in_order_properties(queue);
    require_holds(input, first, count, Reads::values, "input");
    require_holds(result, result_index, 1, Reads::partials, "result");
    return enqueue_passes(queue, plan(count), Reads::values, {input, count, first}, result,
                          result_index, wait)
        .back();
} catch (const cl::Error& error) {
    throw Error(error);
}

Reduction Reducer::result_from_bytes(const void* bytes) const {
    Reduction reduction;
    reduction.value = scalar_from_bytes(accumulator(), bytes);
    if (info(op()).indexed) // the pair's index, after its value (partial_size() in ops.hpp)
        reduction.index = index_of_pair(bytes);
    return reduction;
}

void Reducer::result_to_bytes(const Reduction& result, unsigned char* bytes) const {
    visit_accumulator(accumulator(), [&](auto zero) {
        const auto* value = std::get_if<decltype(zero)>(&result.value);
        if (value == nullptr)
            throw Error(Errc::invalid_argument,
                        "reduce_results: a result is not of the reducer's accumulator, " +
                            name_of(accumulator()));
        std::memcpy(bytes, value, sizeof *value);
    });
    if (info(op()).indexed) { // the pair's index, after its value (partial_size() in ops.hpp)
        const std::int64_t index = result.index.value_or(0);
        std::memcpy(bytes + 8, &index, sizeof index);
    }
}

std::size_t Reducer::partials_of(std::uint64_t length) const {
    return plan_passes(length, shape()).front().work_groups;
}

cl::Event Reducer::enqueue_piece(const cl::CommandQueue& queue, const Piece& piece,
                                 const cl::Buffer& partials, std::uint64_t first_partial,
                                 const std::vector<cl::Event>& wait) try {
    require_holds(partials, first_partial, partials_of(piece.length), Reads::partials, "partials");
    cl::Event event;
    enqueue_pass(queue, plan_passes(piece.length, shape()).front(), Reads::values, piece, partials,
                 first_partial, wait, event);
    return event;
} catch (const cl::Error& error) {
    throw Error(error);
}

Reduction Reducer::reduce_in_order(const cl::CommandQueue& queue,
                                   const std::vector<Piece>& pieces) try {
    cl::Kernel blocks(program_, "reduce_in_order");
    cl::Kernel combine(program_, "combine_in_order");
    const auto blocks_of = [](std::uint64_t length) {
        return std::max<std::uint64_t>(1, (length + in_order_block - 1) / in_order_block);
    };
    std::uint64_t most_blocks = 1;
    for (const auto& piece : pieces) {
        require_holds(piece.buffer, piece.first, piece.length, Reads::values, "input");
        most_blocks = std::max(most_blocks, blocks_of(piece.length));
    }
    const cl::Buffer block_results(context_, CL_MEM_READ_WRITE, most_blocks * accumulator_size());
    const cl::Buffer result(context_, CL_MEM_READ_WRITE, accumulator_size());
    // No pieces: one combine of no blocks, which writes the identity.
    for (std::size_t i = 0; i < std::max<std::size_t>(1, pieces.size()); ++i) {
        const auto count = pieces.empty() ? 0 : blocks_of(pieces[i].length);
        if (count > 0) {
            blocks.setArg(0, pieces[i].buffer);
            blocks.setArg(1, static_cast<cl_ulong>(pieces[i].first));
            blocks.setArg(2, static_cast<cl_ulong>(pieces[i].length));
            blocks.setArg(3, static_cast<cl_ulong>(pieces[i].start));
            blocks.setArg(4, static_cast<cl_ulong>(in_order_block));
            blocks.setArg(5, block_results);
            queue.enqueueNDRangeKernel(blocks, cl::NullRange, cl::NDRange(count), cl::NullRange);
        }
        combine.setArg(0, block_results);
        combine.setArg(1, static_cast<cl_ulong>(count));
        combine.setArg(2, static_cast<cl_uint>(i > 0)); // go on from the result so far
        combine.setArg(3, result);
        queue.enqueueNDRangeKernel(combine, cl::NullRange, cl::NDRange(1), cl::NDRange(1));
    }
    std::vector<unsigned char> bytes(accumulator_size());
    queue.enqueueReadBuffer(result, CL_TRUE, 0, bytes.size(), bytes.data());
    return result_from_bytes(bytes.data());
} catch (const cl::Error& error) {
    throw Error(error);
}

std::vector<Reduction> Reducer::reduce_runs_in_order(const cl::CommandQueue& queue,
                                                     const cl::Buffer& input, std::uint64_t run,
                                                     std::uint64_t count) try {
    if (run > in_order_block)
        throw Error(Errc::invalid_argument, "reduce_runs_in_order: runs of " + std::to_string(run) +
                                                " values, more than in_order_block (" +
                                                std::to_string(in_order_block) + ")");
    require_holds(input, 0, run * count, Reads::values, "input");
    std::vector<Reduction> reductions;
    if (count == 0)
        return reductions;
    cl::Kernel runs(program_, "reduce_runs_in_order");
    const cl::Buffer results(context_, CL_MEM_READ_WRITE, count * accumulator_size());
    runs.setArg(0, input);
    runs.setArg(1, static_cast<cl_ulong>(run));
    runs.setArg(2, static_cast<cl_ulong>(count));
    runs.setArg(3, results);
    queue.enqueueNDRangeKernel(runs, cl::NullRange, cl::NDRange(count), cl::NullRange);
    std::vector<unsigned char> bytes(count * accumulator_size());
    queue.enqueueReadBuffer(results, CL_TRUE, 0, bytes.size(), bytes.data());
    for (std::uint64_t k = 0; k < count; ++k)
        reductions.push_back(result_from_bytes(bytes.data() + k * accumulator_size()));
    return reductions;
} catch (const cl::Error& error) {
    throw Error(error);
}

Reduction Reducer::reduce_results(const cl::CommandQueue& queue,
                                  const std::vector<Reduction>& results) try {
    const auto size = accumulator_size();
    std::vector<unsigned char> bytes(std::max<std::size_t>(1, results.size()) * size);
    for (std::size_t i = 0; i < results.size(); ++i)
        result_to_bytes(results[i], bytes.data() + i * size);
    const cl::Buffer partials(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes.size(),
                              bytes.data());
    return run(queue, {partials, results.size(), 0}, Reads::partials, {}, {},
               std::chrono::steady_clock::now(), false);
} catch (const cl::Error& error) {
    throw Error(error);
}

Reduction Reducer::finish_pieces(const cl::CommandQueue& queue, const Piece& partials,
                                 std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                                 std::chrono::steady_clock::time_point started) try {
    return run(queue, partials, Reads::partials, std::move(pieces), std::move(piece_events),
               started, profiles(queue));
} catch (const cl::Error& error) {
    throw Error(error);
}

} // namespace clreduce
