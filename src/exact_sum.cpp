// The exact sum on one device: one launch of exact_sum.cl over each piece, whose work-groups
// add their rows into one accumulator row with atomics, and that row read back for the host
// to round (or rounded on the device).

#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"
#include "detail/capabilities.hpp"
#include "detail/plan.hpp"
#include "detail/profiling.hpp"
#include "detail/program.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace clreduce {
namespace {

constexpr std::size_t default_work_group_size = 256;
// The smallest work-group size of a short piece's launch, and the values a work-item takes at
// most before the next size up is worth its deeper fold (ExactSum::work_group_size_for()).
constexpr std::size_t smallest_work_group_size = 64;
constexpr std::uint64_t short_values_per_work_item = 16;
// A run's work-group (ExactSum::plan_runs()) starts at a warp's 32 work-items and doubles
// while its work-items would get more than run_values_per_work_item values: every work-item
// costs its share of the work-group's fold, which a run of few values a work-item feels. On an
// H200, runs of 4096 floats took 509 us with 64 values a work-item (work-groups of 64) and 915
// us with 16 (of 256), runs of 1024 675 and 1110 us (docs/exact-sums.md).
constexpr std::size_t smallest_run_work_group_size = 32;
constexpr std::uint64_t run_values_per_work_item = 64;
// Runs of at most this many values, where there are enough of them to fill the device, are
// summed a work-item each (exact_short_runs), in work-groups of short_run_work_items: on the
// H200, 2^28 floats in runs of 4 took 1.7 ms so (102 ms a work-group each), in runs of 256
// 1.07 ms (1.74 ms); runs of 1024 took 1.08 ms so, 0.68 ms a work-group each.
constexpr std::uint64_t largest_short_run = 256;
constexpr std::size_t short_run_work_items = 64;
// The values a work-item reads at least in a chunk of a long run: fewer, and the chunk's
// fold and row cost more than its reads.
constexpr std::uint64_t chunk_values_per_work_item = 64;

/// The work-groups per compute unit over a long piece: more keep more loads in flight, but
/// each costs a fold and a row. On the H100, 2 per compute unit were fastest for doubles
/// (725 us against 774 with 4 at 2^28, 14 against 24 at 2^20) and 4 for floats (375 us
/// against 478 with 2 and 381 with 8 at 2^28; docs/exact-sums.md). A CPU's work-groups of one
/// work-item (`one_work_item_a_group`) are runs of their own that its cores take in turn: 4 a
/// core spread doubles' runs more evenly, and on the 16-core PoCL 2^24 doubles took 882 us so
/// against 1010 with 2, 2^27 10751 against 12448 (medians of four rounds; docs/exact-sums.md).
std::size_t work_groups_per_compute_unit(DataType type, bool one_work_item_a_group) {
    return type == DataType::float64 && !one_work_item_a_group ? 2 : 4;
}

// How far ahead a CPU's blocks prefetch, in bytes (two blocks of doubles, four of floats): on
// the 16-core PoCL the exact double sum of 2^27 took 11775 us so against 14036, the float sum
// of 2^28 9504 against 14324 (medians of three rounds; docs/exact-sums.md, "Prefetching the
// blocks").
constexpr int exact_prefetch_bytes = 4096;

std::string exact_build_options(DataType type, const DeviceReport& report) {
    // float16 and bfloat16 load as floats (VALUE_IS_FLOAT), each its own way. On CPUs, -w: the
    // blocks' sixteen-lane vectors, passed between inline functions, made PoCL's compiler warn
    // where a CPU lacks AVX-512 that they change the ABI (no call remains to change), and print
    // "9 warnings generated." (doubles) on the user's stderr. On NVIDIA's compiler, doubles
    // take a register budget (exact_register_budget()).
    const std::string register_budget = exact_register_budget(report, type);
    return "-D VALUE=" + std::string(info(type).cl_storage) +
           " -D LIMBS=" + std::to_string(ExactAccumulator::limbs(type)) +
           " -D LOWEST_BIT=" + std::to_string(ExactAccumulator::lowest_bit(type)) +
           (std::string_view(info(type).cl_value) == "float" ? " -D VALUE_IS_FLOAT" : "") +
           (type == DataType::float16 ? " -D VALUE_IS_HALF" : "") +
           (type == DataType::bfloat16 ? " -D VALUE_IS_BFLOAT16" : "") +
           (reads_contiguous_runs(report) ? " -D CONTIGUOUS -w" : "") +
           (prefetches_runs(report) ? " -D PREFETCH_BYTES=" + std::to_string(exact_prefetch_bytes)
                                    : "") +
           (register_budget.empty() ? "" : " " + register_budget);
}

/// The work-group size to run: `requested`, or the default, within what the kernel takes; a
/// request past that is refused.
std::size_t settle_work_group_size(std::size_t requested, const cl::Device& device,
                                   const cl::Kernel& kernel) {
    const auto largest = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    if (requested > largest)
        throw Error(Errc::unsupported, "work-group size " + std::to_string(requested) +
                                           " is past the exact sum's largest on this device, " +
                                           std::to_string(largest));
    return requested != 0 ? requested : std::min(default_work_group_size, largest);
}

/// Throws Error(Errc::unsupported) when the device lacks what exact_sum.cl needs.
void require_exact_support(const DeviceReport& report) {
    // The expansions are in double, for float input too, and the digits 64-bit integers
    // added with local atomics.
    require_type_support(report, DataType::float64);
    require_type_support(report, DataType::int64);
    if (!report.has_extension("cl_khr_int64_base_atomics"))
        throw Error(Errc::unsupported,
                    "exact sums need 64-bit atomics (cl_khr_int64_base_atomics), "
                    "which device '" +
                        report.name + "' does not report");
}

} // namespace

ExactSum::ExactSum(const cl::Context& context, const cl::Device& device, DataType type,
                   std::size_t work_group_size)
    : ExactSum(context, device, type, work_group_size, embedded_exact_kernel_source()) {}

ExactSum::ExactSum(const cl::Context& context, const cl::Device& device, DataType type,
                   std::size_t work_group_size, std::string_view kernel_text) try
    : type_(type)
    , context_(context)
    , device_(device) {
    if (!exact_sums(type))
        throw Error(Errc::unsupported,
                    "exact sums are of float, double, float16 or bfloat16 values, not " +
                        name_of(type));
    const auto report = query_report(device);
    require_exact_support(report);
    build_options_ = exact_build_options(type, report);
    const auto program = cached_program(context, device, std::string(kernel_text), build_options_);
    partials_ = program_kernel(device, program, "exact_partials");
    runs_ = program_kernel(device, program, "exact_runs");
    short_runs_ = program_kernel(device, program, "exact_short_runs");
    local_memory_ = report.local_memory;
    round_ = program_kernel(device, program, "exact_round");
    work_group_size_ = settle_work_group_size(work_group_size, device, partials_);
    fixed_work_group_size_ = work_group_size != 0;
    one_work_item_a_group_ = reads_contiguous_runs(report);
    compute_units_ = report.compute_units;
    work_groups_ = compute_units_ * work_groups_per_compute_unit(type, one_work_item_a_group_);
    clear_sums();
} catch (const cl::Error& error) {
    throw Error(error);
}

std::size_t ExactSum::work_group_size_for(std::uint64_t length) const {
    if (fixed_work_group_size_)
        return work_group_size_;
    // A CPU runs a work-group's work-items one after another on one core; each pays for its
    // own chain starts, deposits and step of the fold, and none reads faster for the others.
    // A work-item a work-group reads the group's whole share as one run: on the 16-core PoCL,
    // 2^20 doubles took 59 us so against 256 in work-groups of 256 (the plain sum 41), 2^24
    // floats 292 against 481 (270; docs/exact-sums.md).
    if (one_work_item_a_group_)
        return 1;
    // On a GPU, a work-group folds its work-items' expansions in log2(size) steps, a fixed
    // cost that a short piece feels. Its launch takes smaller work-groups, as long as each
    // work-item still gets few values: on the H100, 64 work-items a work-group took 2 us off
    // the float sums of 2^10 and 2^16 values, 128 off those of 2^20 (docs/exact-sums.md).
    std::size_t size = std::min(smallest_work_group_size, work_group_size_);
    while (size < work_group_size_ && length > short_values_per_work_item * size * work_groups_)
        size = std::min(2 * size, work_group_size_);
    return size;
}

std::size_t ExactSum::work_groups_for(std::uint64_t length) const {
    // Each work-item reads four values at a time: a short piece needs fewer work-groups, and
    // every work-group costs its merge.
    const auto values_per_group = std::uint64_t{4} * work_group_size_for(length);
    auto groups = (length + values_per_group - 1) / values_per_group;
    // A CPU's work-group is a run of one core's, whose row (cleared, spilled into, merged
    // into the sum's with atomics) costs more than a short run's reads: a piece takes one a
    // compute unit, more only as each still gets 256 KiB of the values as added (float16 and
    // bfloat16 as floats, which cost as much), as the plain sum's passes do. On the 16-core
    // PoCL 2^18 doubles took 29 us so against 41 with four a compute unit, 2^20 floats 33
    // against 47; float16 by its own size, 2^21 took 70 us against 56 (docs/exact-sums.md).
    if (one_work_item_a_group_) {
        const auto added_size = std::max(info(type_).size, sizeof(cl_float));
        const auto per_cpu_group = values_per_cpu_work_group(added_size);
        const auto cpu_groups = (length + per_cpu_group - 1) / per_cpu_group;
        groups = std::min(groups, std::max<std::uint64_t>(compute_units_, cpu_groups));
    }
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(groups, 1, work_groups_));
}

void ExactSum::clear_sums() {
    std::vector<cl_long> zeros(ExactAccumulator::row_width(type_));
    for (auto& sum : sums_)
        sum = cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                         zeros.size() * sizeof(cl_long), zeros.data());
}

const cl::Buffer& ExactSum::enqueue_row(const cl::CommandQueue& queue,
                                        const std::vector<Piece>& pieces,
                                        const std::vector<cl::Event>* wait,
                                        std::vector<cl::Event>& events) try {
    // The two rows take turns: this sum's launches add into one, and zero the other, which
    // the previous sum used and the next one will. The in-order queue has read or rounded it
    // by then.
    const auto& sum = sums_[next_sum_];
    next_sum_ ^= 1;
    partials_.setArg(3, sum);
    partials_.setArg(4, sums_[next_sum_]);
    for (const auto& piece : pieces) {
        partials_.setArg(0, piece.buffer);
        partials_.setArg(1, static_cast<cl_ulong>(piece.first));
        partials_.setArg(2, static_cast<cl_ulong>(piece.length));
        // The caller's events hold back the first launch; the in-order queue, the rest.
        events.emplace_back();
        const auto size = work_group_size_for(piece.length);
        queue.enqueueNDRangeKernel(
            partials_, cl::NullRange, cl::NDRange(work_groups_for(piece.length) * size),
            cl::NDRange(size), events.size() == 1 ? wait : nullptr, &events.back());
    }
    return sum;
} catch (const cl::Error&) {
    // A launch that was not enqueued did not zero the next sum's row.
    clear_sums();
    throw;
}

ExactAccumulator ExactSum::accumulate(const cl::CommandQueue& queue,
                                      const std::vector<Piece>& pieces, ExactTimes* times) try {
    std::vector<cl::Event> events;
    const auto& merged = enqueue_row(queue, pieces, nullptr, events);
    std::vector<cl_long> row(ExactAccumulator::row_width(type_));
    queue.enqueueReadBuffer(merged, CL_TRUE, 0, row.size() * sizeof(cl_long), row.data());

    ExactAccumulator sum(type_);
    sum.add_row(row.data());
    const bool profiled = (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0;
    if (times != nullptr && profiled && !events.empty()) {
        times->launch_us.clear();
        for (const auto& event : events)
            times->launch_us.push_back(command_us(event));
        times->span_us = span_us(events.front(), events.back());
    }
    return sum;
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Event ExactSum::enqueue(const cl::CommandQueue& queue, const std::vector<Piece>& pieces,
                            const cl::Buffer& result, std::uint64_t offset,
                            const std::vector<cl::Event>* wait) try {
    std::vector<cl::Event> events;
    round_.setArg(0, enqueue_row(queue, pieces, wait, events));
    round_.setArg(1, cl_ulong{1});
    round_.setArg(2, result);
    round_.setArg(3, static_cast<cl_ulong>(offset));
    cl::Event rounded;
    queue.enqueueNDRangeKernel(round_, cl::NullRange, cl::NDRange(1), cl::NDRange(1),
                               events.empty() ? wait : nullptr, &rounded);
    return rounded;
} catch (const cl::Error& error) {
    throw Error(error);
}

ExactSum::RunsPlan ExactSum::plan_runs(std::uint64_t run_length, std::uint64_t count) const {
    RunsPlan plan;
    plan.work_group_size = work_group_size_;
    if (!fixed_work_group_size_) {
        plan.work_group_size = std::min(smallest_run_work_group_size, work_group_size_);
        while (plan.work_group_size < work_group_size_ &&
               run_length > run_values_per_work_item * plan.work_group_size)
            plan.work_group_size = std::min(2 * plan.work_group_size, work_group_size_);
    }
    // Many short runs: a work-item each, with its own row in local memory.
    const auto row_bytes = ExactAccumulator::row_width(type_) * sizeof(cl_long);
    auto items = fixed_work_group_size_ ? work_group_size_
                                        : std::min(short_run_work_items, work_group_size_);
    while (items > 1 && items * row_bytes > local_memory_ / 2) // half: the rest is the runtime's
        items /= 2;
    if (run_length <= largest_short_run && count >= items * work_groups_) {
        plan.work_group_size = items;
        plan.work_item_each = true;
        return plan;
    }
    // Fewer runs than the launch over a long piece has work-groups: each cut in chunks, as
    // many as fill the device and still give each work-item enough values.
    if (count > 0 && count < work_groups_) {
        const auto values_per_chunk = chunk_values_per_work_item * plan.work_group_size;
        const auto most_chunks = (run_length + values_per_chunk - 1) / values_per_chunk;
        plan.chunks = std::max<std::uint64_t>(
            1, std::min<std::uint64_t>((work_groups_ + count - 1) / count, most_chunks));
    }
    return plan;
}

cl::Event ExactSum::enqueue_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                                 std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                                 const cl::Buffer& result, std::uint64_t offset,
                                 const std::vector<cl::Event>* wait,
                                 std::vector<cl::Event>* launches) try {
    cl::Event last;
    if (count == 0) { // nothing to sum: an event still to chain on
        queue.enqueueMarkerWithWaitList(wait, &last);
        return last;
    }
    const auto plan = plan_runs(run_length, count);
    if (plan.work_item_each)
        return enqueue_short_runs(queue, input, first, run_length, count, result, offset, wait,
                                  plan.work_group_size, launches);
    // A run of one chunk is rounded by its work-group; the chunks of longer runs add into
    // rows, zeros first, which exact_round() rounds after.
    if (plan.chunks == 1)
        return launch_runs(queue, input, first, run_length, count, plan, false, nullptr, result,
                           offset, wait, launches);
    const cl::Buffer rows = zero_rows(queue, count, wait);
    launch_runs(queue, input, first, run_length, count, plan, false, &rows, result, offset, nullptr,
                launches);
    round_.setArg(0, rows);
    round_.setArg(1, static_cast<cl_ulong>(count));
    round_.setArg(2, result);
    round_.setArg(3, static_cast<cl_ulong>(offset));
    cl::Event rounded;
    queue.enqueueNDRangeKernel(round_, cl::NullRange, cl::NDRange(count), cl::NullRange, nullptr,
                               &rounded);
    if (launches)
        launches->push_back(rounded);
    return rounded;
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Buffer ExactSum::enqueue_run_rows(const cl::CommandQueue& queue, const cl::Buffer& input,
                                      std::uint64_t first, std::uint64_t run_length,
                                      std::uint64_t count, cl::Event* done) try {
    auto plan = plan_runs(run_length, count);
    plan.work_item_each = false; // exact_runs keeps a run's row; exact_short_runs rounds it
    const cl::Buffer rows = zero_rows(queue, std::max<std::uint64_t>(1, count), nullptr);
    const auto last = count == 0 ? cl::Event()
                                 : launch_runs(queue, input, first, run_length, count, plan, true,
                                               &rows, cl::Buffer(), 0, nullptr, nullptr);
    if (done)
        *done = last;
    return rows;
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Buffer ExactSum::zero_rows(const cl::CommandQueue& queue, std::uint64_t count,
                               const std::vector<cl::Event>* wait) {
    const auto bytes = count * ExactAccumulator::row_width(type_) * sizeof(cl_long);
    const cl::Buffer rows(context_, CL_MEM_READ_WRITE, bytes);
    queue.enqueueFillBuffer(rows, cl_long{0}, 0, bytes, wait);
    return rows;
}

cl::Event ExactSum::launch_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                                std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                                const RunsPlan& plan, bool keep_rows, const cl::Buffer* rows,
                                const cl::Buffer& result, std::uint64_t offset,
                                const std::vector<cl::Event>* wait,
                                std::vector<cl::Event>* launches) {
    runs_.setArg(0, input);
    runs_.setArg(1, static_cast<cl_ulong>(first));
    runs_.setArg(2, static_cast<cl_ulong>(run_length));
    runs_.setArg(3, static_cast<cl_uint>(plan.chunks));
    runs_.setArg(4, static_cast<cl_uint>(keep_rows));
    runs_.setArg(5, sizeof(cl_mem), rows ? &(*rows)() : nullptr); // a null buffer: not read
    runs_.setArg(6, sizeof(cl_mem), result() ? &result() : nullptr);
    runs_.setArg(7, static_cast<cl_ulong>(offset));
    cl::Event launched;
    queue.enqueueNDRangeKernel(runs_, cl::NullRange,
                               cl::NDRange(count * plan.chunks * plan.work_group_size),
                               cl::NDRange(plan.work_group_size), wait, &launched);
    if (launches)
        launches->push_back(launched);
    return launched;
}

cl::Event ExactSum::enqueue_short_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                                       std::uint64_t first, std::uint64_t run_length,
                                       std::uint64_t count, const cl::Buffer& result,
                                       std::uint64_t offset, const std::vector<cl::Event>* wait,
                                       std::size_t work_items, std::vector<cl::Event>* launches) {
    short_runs_.setArg(0, input);
    short_runs_.setArg(1, static_cast<cl_ulong>(first));
    short_runs_.setArg(2, static_cast<cl_ulong>(run_length));
    short_runs_.setArg(3, static_cast<cl_ulong>(count));
    short_runs_.setArg(
        4, cl::Local(work_items * ExactAccumulator::row_width(type_) * sizeof(cl_long)));
    short_runs_.setArg(5, result);
    short_runs_.setArg(6, static_cast<cl_ulong>(offset));
    cl::Event last;
    const auto groups = (count + work_items - 1) / work_items;
    queue.enqueueNDRangeKernel(short_runs_, cl::NullRange, cl::NDRange(groups * work_items),
                               cl::NDRange(work_items), wait, &last);
    if (launches)
        launches->push_back(last);
    return last;
}

cl::Event ExactSum::enqueue_runs(const cl::CommandQueue& queue, const GatheredRuns& runs,
                                 const cl::Buffer& result, std::uint64_t offset,
                                 std::vector<cl::Event>* launches) try {
    const auto input = upload_runs(context_, runs, info(type_).size);
    return enqueue_runs(queue, input, 0, runs.length, runs.results, result, offset, nullptr,
                        launches);
} catch (const cl::Error& error) {
    throw Error(error);
}

cl::Buffer upload_runs(const cl::Context& context, const GatheredRuns& runs,
                       std::size_t value_size) {
    if (runs.bytes.empty())
        return cl::Buffer(context, CL_MEM_READ_ONLY, value_size);
    return cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, runs.bytes.size(),
                      const_cast<unsigned char*>(runs.bytes.data()));
}

GatheredRuns gather_along_axes(const ValuesView& values, const Shape& shape,
                               const std::vector<int>& axes) {
    const auto offsets = axis_offsets(shape, axes);
    GatheredRuns runs;
    runs.results = offsets.results.size();
    runs.length = offsets.reduced.size();
    const auto run_bytes = runs.length * info(values.type).size;
    runs.bytes.resize(runs.results * run_bytes);
    for (std::size_t k = 0; k < offsets.results.size(); ++k)
        gather_result(values, offsets, k, runs.bytes.data() + k * run_bytes);
    return runs;
}

} // namespace clreduce
