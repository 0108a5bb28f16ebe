#include "clreduce/stream.hpp"

#include "clreduce/input.hpp"
#include "detail/policy.hpp"
#include "detail/profiling.hpp"
#include "detail/reference.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace clreduce {
namespace {

constexpr std::size_t staging_buffers = StreamStaging::count;

/// Values per CL_DEVICE_MEM_BASE_ADDR_ALIGN: a chunk read in place that is a multiple of it
/// starts where a buffer of the device would, so the kernel's vector view of it is aligned.
std::uint64_t in_place_alignment(const Reducer& reducer) {
    return std::max<std::uint64_t>(reducer.report().base_address_align / reducer.value_size(),
                                   info(reducer.type()).values_per_load());
}

} // namespace

namespace {

/// The host's cores, started once for the process, that copy the parts of a chunk: starting a
/// thread for each part of each chunk cost tens of microseconds a thread, as much as copying
/// a megabyte. One copy at a time uses them; the caller copies the first part itself.
class CopyThreads {
public:
    static CopyThreads& shared() {
        static CopyThreads threads;
        return threads;
    }

    /// Whether the threads run in this process: a child forked after they started (Python's
    /// multiprocessing) has none of them, and its copies would wait for them forever.
    bool here() const { return started_in_ == getpid(); }

    /// Copies `bytes` from `from` to `to` in `parts` parts of `part` bytes (the last shorter).
    void copy(void* to, const void* from, std::size_t bytes, std::size_t part, std::size_t parts) {
        const std::lock_guard<std::mutex> one_copy(copying_);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            job_ = {static_cast<unsigned char*>(to), static_cast<const unsigned char*>(from), bytes,
                    part};
            next_part_ = 1;
            parts_ = parts;
            parts_left_ = parts - 1;
        }
        wake_.notify_all();
        copy_part(job_, 0);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return parts_left_ == 0; });
    }

    std::size_t size() const { return workers_.size() + 1; }

    ~CopyThreads() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& worker : workers_)
            worker.join();
    }

private:
    struct Job {
        unsigned char* to = nullptr;
        const unsigned char* from = nullptr;
        std::size_t bytes = 0;
        std::size_t part = 0;
    };

    CopyThreads() {
        const unsigned cores = std::max(std::thread::hardware_concurrency(), 1u);
        for (unsigned i = 1; i < cores; ++i)
            workers_.emplace_back([this] { work(); });
    }

    static void copy_part(const Job& job, std::size_t index) {
        const auto first = index * job.part;
        std::memcpy(job.to + first, job.from + first, std::min(job.part, job.bytes - first));
    }

    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stopping_ || next_part_ < parts_; });
            if (stopping_)
                return;
            const auto index = next_part_++;
            const auto job = job_;
            lock.unlock();
            copy_part(job, index);
            lock.lock();
            if (--parts_left_ == 0)
                done_.notify_one();
        }
    }

    std::mutex copying_; // one copy at a time
    std::mutex mutex_;   // guards what follows
    std::condition_variable wake_;
    std::condition_variable done_;
    Job job_;
    std::size_t next_part_ = 0;
    std::size_t parts_ = 0;
    std::size_t parts_left_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
    pid_t started_in_ = getpid();
};

} // namespace

void copy_in_parallel(void* to, const void* from, std::size_t bytes) {
    // Every core: one core copies a few GB/s into pinned memory, far below a link's rate
    // (8 of the H100 machine's 16 cores took 20 GB/s, its PCIe link 55 GB/s from pinned memory).
    constexpr std::size_t least_part = std::size_t{1} << 20;
    if (bytes == 0)
        return;
    auto& threads = CopyThreads::shared();
    if (!threads.here()) {
        std::memcpy(to, from, bytes);
        return;
    }
    const std::size_t parts = std::clamp<std::size_t>(bytes / least_part, 1, threads.size());
    const std::size_t part = (bytes + parts - 1) / parts;
    threads.copy(to, from, bytes, part, (bytes + part - 1) / part);
}

StreamStaging::StreamStaging(const cl::Context& context, const cl::CommandQueue& queue,
                             std::uint64_t bytes, bool pinned) try
    : queue_(queue)
    , bytes_(bytes) {
    for (std::size_t i = 0; i < count; ++i) {
        device_.emplace_back(context, CL_MEM_READ_ONLY, bytes);
        if (!pinned)
            continue;
        pinned_.emplace_back(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
        host_.push_back(queue_.enqueueMapBuffer(pinned_.back(), CL_TRUE, CL_MAP_WRITE, 0, bytes));
    }
} catch (const cl::Error& error) {
    throw Error(error);
}

StreamStaging::~StreamStaging() {
    try {
        for (std::size_t i = 0; i < host_.size(); ++i)
            queue_.enqueueUnmapMemObject(pinned_[i], host_[i]);
        queue_.finish();
    } catch (const cl::Error&) { // nothing to do about it while being destroyed
    }
}

std::uint64_t layout_chunk(std::uint64_t requested, std::uint64_t length,
                           std::uint64_t align_values) {
    // Rounded up, so that the chunks are no more than asked for (no larger than the largest
    // buffer either, which is a multiple of the alignment).
    const auto aligned = (requested + align_values - 1) / align_values * align_values;
    return std::min(aligned, length);
}

bool starts_aligned(const DeviceReport& report, const void* data) {
    return reinterpret_cast<std::uintptr_t>(data) %
               std::max<std::uint64_t>(report.base_address_align, 1) ==
           0;
}

bool reads_in_place(const DeviceReport& report) {
    return (report.type & CL_DEVICE_TYPE_CPU) != 0;
}

HostStream::HostStream(Reducer& reducer, const cl::CommandQueue& queue, std::uint64_t start,
                       std::uint64_t length, std::uint64_t chunk, bool in_place, bool pinned,
                       std::shared_ptr<StreamStaging> staging) try
    : reducer_(reducer)
    , queue_(queue)
    , copy_queue_(reducer.context(), reducer.device(), cl::QueueProperties::Profiling)
    , start_(start)
    , chunk_(layout_chunk(chunk, length, in_place ? in_place_alignment(reducer) : 1))
    , in_place_(in_place) {
    const auto size = reducer.value_size();
    const auto& context = reducer.context();
    const bool fits = staging && staging->bytes() >= chunk_ * size && staging->pinned() == pinned;
    if (!in_place_)
        staging_ = fits ? std::move(staging)
                        : std::make_shared<StreamStaging>(context, queue, chunk_ * size, pinned);
    const auto chunks = (length + chunk_ - 1) / chunk_;
    // Partials are accumulators, which may be wider than the values (int32 summed in int64).
    partials_ = cl::Buffer(context, CL_MEM_READ_WRITE,
                           chunks * reducer.partials_of(chunk_) * reducer.accumulator_size());
} catch (const cl::Error& error) {
    throw Error(error);
}

HostStream::HostStream(Reducer& reducer, const cl::CommandQueue& queue, std::uint64_t first,
                       std::uint64_t length, std::uint64_t chunk, std::uint64_t seed,
                       bool in_place) try
    : HostStream(reducer, queue, first, length, chunk, in_place, false, nullptr) {
    const auto size = reducer.value_size();
    const auto& context = reducer.context();
    if (in_place_) {
        // Page-aligned, so that the device may use the memory as it is.
        const std::size_t page = std::max<std::size_t>(4096, reducer.report().base_address_align);
        const auto bytes = (length * size + page - 1) / page * page;
        plain_memory_ = {static_cast<unsigned char*>(std::aligned_alloc(page, bytes)), std::free};
        if (!plain_memory_)
            throw std::bad_alloc();
        values_per_block_ = length;
        blocks_.push_back({cl::Buffer(), plain_memory_.get(), length});
    } else {
        // Each block is a whole number of chunks, so that no chunk straddles two.
        const std::uint64_t largest = reducer.report().largest_buffer / size;
        values_per_block_ = std::max<std::uint64_t>(largest / chunk_, 1) * chunk_;
        for (std::uint64_t first = 0; first < length; first += values_per_block_) {
            const auto count = std::min(values_per_block_, length - first);
            cl::Buffer pinned(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, count * size);
            void* data = queue_.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                                 count * size);
            blocks_.push_back({pinned, data, count});
        }
    }
    for (const auto& block : blocks_) {
        fill_random(reducer.type(), reducer.op(), block.data, first, block.length, seed);
        first += block.length;
    }
} catch (const cl::Error& error) {
    throw Error(error);
}

HostStream::HostStream(Reducer& reducer, const cl::CommandQueue& queue, const ValuesView& values,
                       std::uint64_t chunk, bool in_place, std::shared_ptr<StreamStaging> staging,
                       std::uint64_t start) try
    : HostStream(reducer, queue, start, values.length, chunk,
                 in_place && starts_aligned(reducer.report(), values.data), true,
                 std::move(staging)) {
    origin_ = values.origin;
    values_per_block_ = values.length;
    // Never written: the device's buffers over it are read-only.
    blocks_.push_back({cl::Buffer(), const_cast<void*>(values.data), values.length});
} catch (const cl::Error& error) {
    throw Error(error);
}

HostStream::~HostStream() {
    try {
        // After an exception mid-stream, uploads and launches may still read the host memory
        // that is about to go.
        copy_queue_.finish();
        queue_.finish();
        for (const auto& block : blocks_)
            if (block.pinned())
                queue_.enqueueUnmapMemObject(block.pinned, block.data);
        queue_.finish();
    } catch (const cl::Error&) { // nothing to do about it while being destroyed
    }
}

const void* HostStream::chunk_data(std::uint64_t index) const {
    const auto first = index * chunk_;
    const auto& block = blocks_[first / values_per_block_];
    return static_cast<const unsigned char*>(block.data) +
           (first % values_per_block_) * reducer_.value_size();
}

const void* HostStream::upload_source(std::uint64_t index, std::uint64_t length,
                                      const std::vector<cl::Event>& uploads) const {
    if (!staging_->pinned())
        return chunk_data(index);
    if (index >= staging_buffers)
        uploads[index - staging_buffers].wait();
    void* copy = staging_->host(index % staging_buffers);
    copy_in_parallel(copy, chunk_data(index), chunk_length(index, length) * reducer_.value_size());
    return copy;
}

std::uint64_t HostStream::chunk_length(std::uint64_t index, std::uint64_t length) const {
    return std::min(chunk_, length - index * chunk_);
}

std::vector<ValuesView> HostStream::spans(std::uint64_t length) const {
    std::vector<ValuesView> blocks;
    for (const auto& block : blocks_)
        blocks.push_back({reducer_.type(), block.data, block.length, origin_});
    return first_values(blocks, length);
}

StreamedRun HostStream::reduce(std::uint64_t length) try {
    const auto size = reducer_.value_size();
    const auto chunks = (length + chunk_ - 1) / chunk_;
    const auto started = std::chrono::steady_clock::now();
    std::vector<cl::Event> uploads;
    std::vector<cl::Event> launches;
    std::vector<PassTime> pieces;
    std::uint64_t first_partial = 0;
    for (std::uint64_t k = 0; k < chunks; ++k) {
        Piece piece;
        piece.length = chunk_length(k, length);
        piece.start = start_ + k * chunk_;
        std::vector<cl::Event> ready;
        if (in_place_) {
            piece.buffer = cl::Buffer(reducer_.context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                      piece.length * size, const_cast<void*>(chunk_data(k)));
        } else {
            // The staging buffer is free once the launch that read it three chunks ago ended.
            piece.buffer = staging_->device(k % staging_buffers);
            std::vector<cl::Event> free;
            if (k >= staging_buffers)
                free.push_back(launches[k - staging_buffers]);
            const void* source = upload_source(k, length, uploads);
            uploads.emplace_back();
            copy_queue_.enqueueWriteBuffer(piece.buffer, CL_FALSE, 0, piece.length * size, source,
                                           free.empty() ? nullptr : &free, &uploads.back());
            copy_queue_.flush();
            ready.push_back(uploads.back());
        }
        launches.push_back(reducer_.enqueue_piece(queue_, piece, partials_, first_partial, ready));
        // A later upload waits for this launch: a driver that holds commands until a flush
        // would otherwise hold the launch, and with it the upload, until finish_pieces flushes.
        if (!in_place_)
            queue_.flush();
        pieces.push_back({plan_passes(piece.length, reducer_.shape()).front(), 0});
        first_partial += reducer_.partials_of(piece.length);
    }
    StreamedRun run;
    const auto first_launch = launches.front();
    run.reduction = reducer_.finish_pieces(queue_, {partials_, first_partial, 0}, std::move(pieces),
                                           std::move(launches), started);
    if (!run.reduction.profiled)
        return run;
    if (!uploads.empty()) {
        for (const auto& upload : uploads)
            run.upload_us += command_us(upload);
        // Both queues run on one device, so their profiling clocks agree.
        run.end_to_end_us = microseconds(uploads.front(), CL_PROFILING_COMMAND_START, first_launch,
                                         CL_PROFILING_COMMAND_START) +
                            run.reduction.span_us;
    } else {
        run.end_to_end_us = run.reduction.span_us;
    }
    return run;
} catch (const cl::Error& error) {
    throw Error(error);
}

std::optional<double> HostStream::copy_us(std::uint64_t length) try {
    if (in_place_)
        return std::nullopt;
    const auto chunks = (length + chunk_ - 1) / chunk_;
    std::vector<cl::Event> uploads;
    for (std::uint64_t k = 0; k < chunks; ++k) {
        const void* source = upload_source(k, length, uploads);
        uploads.emplace_back();
        copy_queue_.enqueueWriteBuffer(staging_->device(k % staging_buffers), CL_FALSE, 0,
                                       chunk_length(k, length) * reducer_.value_size(), source,
                                       nullptr, &uploads.back());
    }
    uploads.back().wait();
    return span_us(uploads.front(), uploads.back());
} catch (const cl::Error& error) {
    throw Error(error);
}

std::unique_ptr<HostStream> make_host_stream(Reducer& reducer, const cl::CommandQueue& queue,
                                             const std::optional<ValuesView>& values,
                                             std::uint64_t first, std::uint64_t length,
                                             std::uint64_t chunk, std::uint64_t seed) {
    const bool in_place = reads_in_place(reducer.report());
    if (values)
        return std::make_unique<HostStream>(reducer, queue, values->part(first, length), chunk,
                                            in_place, nullptr, first);
    return std::make_unique<HostStream>(reducer, queue, first, length, chunk, seed, in_place);
}

} // namespace clreduce
