#include "clreduce/errors.hpp"
#include "clreduce/stream.hpp"
#include "detail/capabilities.hpp"
#include "detail/policy.hpp"

#include <algorithm>

namespace clreduce {
namespace {

constexpr std::size_t staging_buffers = StreamStaging::count;

/// Whether `values` may be one buffer the device reads in place: aligned as its buffers are,
/// and no larger than its largest.
bool fits_in_place(const DeviceReport& report, const ValuesView& values) {
    return starts_aligned(report, values.data) &&
           values.length * info(values.type).size <= report.largest_buffer;
}

/// The axes the steps after the first reduce, numbered as in the first step's result (C
/// order, the extents in memory order): the reduced axes in memory order but the first step's
/// run, the innermost, which leaves every axis before it where it was.
std::vector<int> later_axes(const Shape& shape, const std::vector<int>& axes) {
    const auto rank = static_cast<int>(shape.extents.size());
    std::vector<int> in_memory;
    for (const int axis : axes) {
        const int normal = axis < 0 ? axis + rank : axis;
        in_memory.push_back(shape.order == Order::c ? normal : rank - 1 - normal);
    }
    std::sort(in_memory.begin(), in_memory.end());
    for (int run = in_memory.back() + 1; !in_memory.empty() && in_memory.back() + 1 == run;
         in_memory.pop_back())
        run = in_memory.back();
    return in_memory;
}

} // namespace

AxisStream::AxisStream(SegmentedReducer& reducer, const cl::CommandQueue& queue,
                       const ValuesView& values, std::uint64_t chunk, bool in_place,
                       std::shared_ptr<StreamStaging> staging) try
    : reducer_(reducer)
    , queue_(queue)
    , copy_queue_(reducer.context(), reducer.device(), cl::QueueProperties::Profiling)
    , values_(values)
    , chunk_(std::max<std::uint64_t>(1, chunk))
    , staging_(std::move(staging))
    , uploads_(staging_buffers)
    , last_reads_(staging_buffers) {
    if (in_place && values.length > 0 && fits_in_place(reducer.report(), values))
        whole_ = cl::Buffer(reducer.context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                            values.length * info(values.type).size,
                            const_cast<void*>(values.data)); // never written: read only
} catch (const cl::Error& error) {
    throw Error(error);
}

AxisStream::~AxisStream() {
    try {
        copy_queue_.finish();
        queue_.finish();
    } catch (const cl::Error&) { // nothing to do about it while being destroyed
    }
}

void AxisStream::stage(std::uint64_t bytes) {
    if (staging_ && staging_->bytes() >= bytes && staging_->pinned())
        return;
    // The staging about to go may still be read by uploads and launches enqueued before.
    copy_queue_.finish();
    queue_.finish();
    staging_ = std::make_shared<StreamStaging>(reducer_.context(), queue_, bytes, true);
    std::fill(last_reads_.begin(), last_reads_.end(), cl::Event());
    std::fill(uploads_.begin(), uploads_.end(), cl::Event());
}

AxisStream::Chunk AxisStream::chunk_at(std::uint64_t k, std::uint64_t first, std::uint64_t count) {
    if (in_place())
        return {whole_, first, {}};
    const auto slot = k % staging_buffers;
    const auto bytes = count * info(values_.type).size;
    // The pinned copy overwrites what the slot's last upload read; the upload overwrites the
    // device buffer that the slot's last launch read.
    if (uploads_[slot]())
        uploads_[slot].wait();
    copy_in_parallel(
        staging_->host(slot),
        static_cast<const unsigned char*>(values_.data) + first * info(values_.type).size, bytes);
    const std::vector<cl::Event> free{last_reads_[slot]};
    copy_queue_.enqueueWriteBuffer(staging_->device(slot), CL_FALSE, 0, bytes, staging_->host(slot),
                                   last_reads_[slot]() ? &free : nullptr, &uploads_[slot]);
    copy_queue_.flush();
    return {staging_->device(slot), 0, {uploads_[slot]}};
}

void AxisStream::stream_step(const AxisLayout& layout, std::uint64_t first_value,
                             std::uint64_t index_base, const cl::Buffer& out,
                             std::uint64_t out_index, std::vector<cl::Event>& launched) {
    const auto block = layout.length * layout.inner;
    // Chunk k's reduction of `part` (its `values` from value `first` on) into `into`, after
    // its upload; the launch that reads it last frees its staging buffer.
    const auto reduce_chunk = [&](std::uint64_t k, std::uint64_t first, const Shape& part, int axis,
                                  const cl::Buffer& into, std::uint64_t at, std::uint64_t index) {
        const auto chunk = chunk_at(k, first_value + first, part.values());
        std::vector<cl::Event> events;
        last_reads_[k % staging_buffers] =
            reducer_.enqueue_reduce_axes(queue_, chunk.buffer, chunk.first, part, {axis}, into, at,
                                         chunk.ready, &events, index_base + index);
        // A later upload waits for this launch: a driver that holds commands until a flush
        // would otherwise hold the launch, and with it the upload.
        queue_.flush();
        launched.insert(launched.end(), events.begin(), events.end());
    };
    if (layout.blocks != 1) {
        const auto per_chunk = std::clamp<std::uint64_t>(chunk_ / block, 1, layout.blocks);
        if (!in_place())
            stage(per_chunk * block * info(values_.type).size);
        for (std::uint64_t k = 0; k * per_chunk < layout.blocks; ++k) {
            const auto blocks = std::min(per_chunk, layout.blocks - k * per_chunk);
            reduce_chunk(k, k * per_chunk * block, Shape{{blocks, layout.length, layout.inner}}, 1,
                         out, out_index + k * per_chunk * layout.inner, 0);
        }
        return;
    }
    const auto rows = std::clamp<std::uint64_t>(chunk_ / layout.inner, 1, layout.length);
    const auto chunks = (layout.length + rows - 1) / rows;
    if (!in_place())
        stage(rows * layout.inner * info(values_.type).size);
    const cl::Buffer partials(reducer_.context(), CL_MEM_READ_WRITE,
                              chunks * layout.inner * reducer_.accumulator_size());
    for (std::uint64_t k = 0; k < chunks; ++k)
        reduce_chunk(k, k * rows * layout.inner,
                     Shape{{std::min(rows, layout.length - k * rows), layout.inner}}, 0, partials,
                     k * layout.inner, k * rows);
    std::vector<cl::Event> events;
    reducer_.enqueue_combine_axes(queue_, partials, 0, Shape{{chunks, layout.inner}}, {0}, out,
                                  out_index, {}, &events);
    launched.insert(launched.end(), events.begin(), events.end());
}

cl::Event AxisStream::enqueue_reduce_axes(const Shape& shape, const std::vector<int>& axes,
                                          const cl::Buffer& result, std::uint64_t result_index,
                                          std::vector<cl::Event>* events,
                                          std::uint64_t index_base) try {
    if (shape.values() != values_.length)
        throw Error(Errc::invalid_argument,
                    "reduce: the shape has " + std::to_string(shape.values()) +
                        " values, the stream " + std::to_string(values_.length));
    std::vector<cl::Event> launched;
    if (shape.values() == 0) { // nothing to stream: each result is the identity
        const cl::Buffer none(reducer_.context(), CL_MEM_READ_ONLY, info(values_.type).size);
        const auto last = reducer_.enqueue_reduce_axes(queue_, none, 0, shape, axes, result,
                                                       result_index, {}, &launched);
        if (events)
            *events = launched;
        return last;
    }
    const auto steps = axis_steps(shape, axes);
    const auto& recipe = reducer_.policy().recipe;
    if (steps.size() > 1 && info(recipe.op).indexed)
        throw Error(Errc::unsupported,
                    "axes apart in memory are reduced one run of adjacent axes after another, "
                    "and the index of argmin and argmax counts along one run");
    // A map's i along axes apart counts from each group's index base (first_step_groups()).
    const auto groups = recipe.user.map.empty() ? StepGroups{steps.front().blocks, {0}}
                                                : first_step_groups(shape, axes);
    const auto stream_first_step = [&](const cl::Buffer& out, std::uint64_t out_index) {
        auto group = steps.front();
        group.blocks = groups.blocks;
        for (std::size_t g = 0; g < groups.index_bases.size(); ++g)
            stream_step(group, g * group.blocks * group.length * group.inner,
                        index_base + groups.index_bases[g], out,
                        out_index + g * group.blocks * group.inner, launched);
    };
    if (steps.size() == 1) {
        stream_first_step(result, result_index);
    } else {
        // The first step's partials, which the later steps read where they are.
        const cl::Buffer partials(reducer_.context(), CL_MEM_READ_WRITE,
                                  steps.front().results() * reducer_.accumulator_size());
        stream_first_step(partials, 0);
        std::vector<cl::Event> later;
        reducer_.enqueue_combine_axes(queue_, partials, 0, steps.front().result,
                                      later_axes(shape, axes), result, result_index, {}, &later);
        launched.insert(launched.end(), later.begin(), later.end());
    }
    if (events)
        *events = launched;
    return launched.back();
} catch (const cl::Error& error) {
    throw Error(error);
}

SegmentedResult AxisStream::reduce_axes(const Shape& shape, const std::vector<int>& axes) try {
    auto last = axis_steps(shape, axes).back();
    const cl::Buffer results(reducer_.context(), CL_MEM_READ_WRITE,
                             std::max<std::uint64_t>(1, last.results()) *
                                 reducer_.accumulator_size());
    std::vector<cl::Event> events;
    enqueue_reduce_axes(shape, axes, results, 0, &events);
    return reducer_.read_results(queue_, results, std::move(last.result), events);
} catch (const cl::Error& error) {
    throw Error(error);
}

} // namespace clreduce
