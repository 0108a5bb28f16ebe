#pragma once
// Input that stays in host memory: streamed to the device in chunks, each
// uploaded on a second queue while the reducer works on the one before. A layer above the
// one-device engine: it feeds the reducer pieces (Reducer::enqueue_piece) and has it finish
// their partials. As a library call: a HostStream over the caller's values (the ValuesView
// constructor), then reduce(length), blocking, for the value and its times. An AxisStream does
// the same for a SegmentedReducer (segmented.hpp): an array in host memory reduced along axes.

#include "clreduce/reducer.hpp"
#include "clreduce/segmented.hpp"
#include "clreduce/shape.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace clreduce {

/// One streamed reduction: the chunks' launches and the finish, and the uploads beside them.
/// The times are measured where the reducer's queue profiles (reduction.profiled), else 0.
struct StreamedRun {
    Reduction reduction;
    double upload_us = 0;     // the uploads' device time, added up
    double end_to_end_us = 0; // the first upload's start to the last launch's end
};

/// Whether the device should read host input in place (CL_MEM_USE_HOST_PTR): a CPU device,
/// whose memory is the host's.
bool reads_in_place(const DeviceReport& report);

/// Whether the device may take `data` as a buffer's start (CL_MEM_USE_HOST_PTR): it assumes
/// CL_DEVICE_MEM_BASE_ADDR_ALIGN of every buffer, and the kernels' vector loads rely on it.
bool starts_aligned(const DeviceReport& report, const void* data);

/// The chunk a stream of `length` values takes: `requested`, at most `length` (one chunk);
/// shorter than the length, rounded up to a multiple of `align_values`.
std::uint64_t layout_chunk(std::uint64_t requested, std::uint64_t length,
                           std::uint64_t align_values);

/// memcpy on several of the host's cores (one core copies far slower than a link uploads):
/// how values in plain memory reach pinned staging.
void copy_in_parallel(void* to, const void* from, std::size_t bytes);

/// Where a stream's chunks wait on their way to the device: three device buffers of `bytes`
/// each, in turn, and, for values in plain (pageable) host memory, three pinned host buffers
/// (CL_MEM_ALLOC_HOST_PTR, mapped on `queue`) that each chunk is first copied into by the
/// host's cores: drivers upload pinned memory by DMA at the link's speed, plain memory through
/// a slower copy of their own. A caller that streams again and again (the Python package)
/// keeps one from stream to stream, so that it allocates once.
class StreamStaging {
public:
    StreamStaging(const cl::Context& context, const cl::CommandQueue& queue, std::uint64_t bytes,
                  bool pinned);
    ~StreamStaging(); // unmaps the pinned buffers, after what is queued
    StreamStaging(const StreamStaging&) = delete;
    StreamStaging& operator=(const StreamStaging&) = delete;

    static constexpr std::size_t count = 3; // one uploaded, one reduced, one free for the next
    std::uint64_t bytes() const { return bytes_; }
    bool pinned() const { return !host_.empty(); }
    const cl::Buffer& device(std::size_t index) const { return device_[index]; }
    void* host(std::size_t index) const { return host_[index]; }

private:
    cl::CommandQueue queue_;
    std::uint64_t bytes_;
    std::vector<cl::Buffer> device_;
    std::vector<cl::Buffer> pinned_;
    std::vector<void*> host_;
};

/// Values of the reducer's type in host memory, and the means to stream any prefix of them
/// through the device in chunks of `chunk` values (at most `length`; read in place, rounded
/// up to a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN so that every chunk starts aligned for
/// the kernel's vector loads: chunk() says what it took). Copied, three device buffers take
/// the chunks in turn; `in_place`, the device reads each chunk where it is
/// (CL_MEM_USE_HOST_PTR) and there is nothing to copy. The reducer launches on `queue` (the
/// caller's, in-order, of the reducer's context and device); the uploads run on a queue of
/// the stream's own. One stream, like its reducer, serves one thread at a time.
class HostStream {
public:
    /// `length` random values, those at `first` ... `first + length` of the random input
    /// `seed` makes for the reducer's type and op (a share of a larger input, on several
    /// devices, whose indices count from `first`), in memory of the stream's own: pinned
    /// (CL_MEM_ALLOC_HOST_PTR, mapped, in blocks no larger than one buffer may be) to be
    /// copied, page-aligned to be read in place.
    HostStream(Reducer& reducer, const cl::CommandQueue& queue, std::uint64_t first,
               std::uint64_t length, std::uint64_t chunk, std::uint64_t seed, bool in_place);
    /// `values` where they are (a mapped file, a NumPy array): read in place if asked and
    /// their address has the alignment the device gives its buffers
    /// (CL_DEVICE_MEM_BASE_ADDR_ALIGN), else copied from there through pinned staging;
    /// `staging` if given and large enough (staging() hands it on to the next stream).
    /// `start` is the values' place in the whole input they are a share of: the chunks count
    /// argmin's and argmax's indices and a map's index from there (Piece::start).
    HostStream(Reducer& reducer, const cl::CommandQueue& queue, const ValuesView& values,
               std::uint64_t chunk, bool in_place, std::shared_ptr<StreamStaging> staging = nullptr,
               std::uint64_t start = 0);
    ~HostStream();
    HostStream(const HostStream&) = delete;
    HostStream& operator=(const HostStream&) = delete;

    bool in_place() const { return in_place_; }
    std::uint64_t chunk() const { return chunk_; }
    /// The staging the chunks go through; none when read in place.
    const std::shared_ptr<StreamStaging>& staging() const { return staging_; }

    /// Reduces the first `length` values; blocks until the result is on the host.
    StreamedRun reduce(std::uint64_t length);

    /// The copy ceiling: the uploads of the first `length` values alone, back to back, in
    /// device microseconds. Nothing for a stream read in place.
    std::optional<double> copy_us(std::uint64_t length);

    /// The host's values of the first `length`, for the host reference.
    std::vector<ValuesView> spans(std::uint64_t length) const;

private:
    /// Everything but the values, which are the whole input's from `start` on; `pinned`: the
    /// values are in plain memory, staged through pinned memory (`staging` if it is so and
    /// large enough).
    HostStream(Reducer& reducer, const cl::CommandQueue& queue, std::uint64_t start,
               std::uint64_t length, std::uint64_t chunk, bool in_place, bool pinned,
               std::shared_ptr<StreamStaging> staging);

    struct Block {
        cl::Buffer pinned; // on a GPU; empty where `data` is plain memory
        void* data;
        std::uint64_t length;
    };
    const void* chunk_data(std::uint64_t index) const;
    /// Where chunk `index` is uploaded from: its values, or a pinned copy of them made once
    /// the upload that last read that copy's memory (in `uploads`) has ended.
    const void* upload_source(std::uint64_t index, std::uint64_t length,
                              const std::vector<cl::Event>& uploads) const;
    std::uint64_t chunk_length(std::uint64_t index, std::uint64_t length) const;

    Reducer& reducer_;
    cl::CommandQueue queue_;
    cl::CommandQueue copy_queue_;
    std::uint64_t start_; // the first value's index in the whole input
    std::uint64_t chunk_;
    bool in_place_;
    Origin origin_ = Origin::drawn; // the values' own: a random draw's, or the view's
    std::uint64_t values_per_block_;
    std::vector<Block> blocks_;
    std::unique_ptr<unsigned char, void (*)(void*)> plain_memory_{nullptr, nullptr};
    std::shared_ptr<StreamStaging> staging_;
    cl::Buffer partials_;
};

/// An array in host memory reduced along axes by a SegmentedReducer, streamed to the device as
/// a HostStream streams a whole array: each chunk uploaded on a queue of the stream's own into
/// one of StreamStaging's three device buffers (copied there first through pinned staging)
/// while the reducer works on the chunk before; or, `in_place` (a CPU device:
/// reads_in_place()), read where it is, the whole array one buffer (CL_MEM_USE_HOST_PTR) if
/// its address has the device's alignment and one buffer may hold it, else copied.
///
/// A chunk is about `chunk` values of the first step's layout (axis_steps(); the only one
/// along adjacent axes): whole blocks, at least one, where it has several, each chunk's
/// results landing in their place; else rows of its one block (a reduced leading axis), each
/// chunk leaving a partial array, its indices (a map's i, argmin's and argmax's) counted from
/// its first row, the partial arrays combined at the end (enqueue_combine_axes). Along axes
/// apart, the later steps read the first step's partials on the device; with a map, the
/// first step streams each group of first_step_groups() on its own.
/// The reducer launches on `queue` (the caller's, in-order, of the reducer's context and
/// device). One stream, like its reducer, serves one thread at a time.
class AxisStream {
public:
    /// The values stay the caller's: they must outlive what is enqueued from them.
    /// `staging` if given and large enough (staging() hands it on to the next stream).
    AxisStream(SegmentedReducer& reducer, const cl::CommandQueue& queue, const ValuesView& values,
               std::uint64_t chunk, bool in_place,
               std::shared_ptr<StreamStaging> staging = nullptr);
    ~AxisStream(); // waits for what is enqueued: it may read the values
    AxisStream(const AxisStream&) = delete;
    AxisStream& operator=(const AxisStream&) = delete;

    bool in_place() const { return static_cast<bool>(whole_()); }
    /// The staging the last chunks went through; none when read in place.
    const std::shared_ptr<StreamStaging>& staging() const { return staging_; }

    /// Enqueues the reduction of the values, an array of `shape`, along `axes` (as
    /// SegmentedReducer::enqueue_reduce_axes takes them), writing
    /// axis_steps(shape, axes).back().results() accumulators to `result` from `result_index`
    /// on. Returns the last launch's event; `events`, if given, gets every launch's. A value's
    /// index (a map's i, argmin's and argmax's) counts from `index_base` along the reduced
    /// axes, as enqueue_reduce_axes's does. Copying from plain memory blocks the host until all
    /// but the last three chunks are uploaded. Errors as enqueue_reduce_axes's, and
    /// Errc::invalid_argument for a shape of other than the values' count.
    cl::Event enqueue_reduce_axes(const Shape& shape, const std::vector<int>& axes,
                                  const cl::Buffer& result, std::uint64_t result_index,
                                  std::vector<cl::Event>* events = nullptr,
                                  std::uint64_t index_base = 0);
    /// Blocking: the same, the results read back.
    SegmentedResult reduce_axes(const Shape& shape, const std::vector<int>& axes);

private:
    /// Where a chunk is read from: a staging buffer, or the whole array read in place.
    struct Chunk {
        cl::Buffer buffer;
        std::uint64_t first = 0;
        std::vector<cl::Event> ready;
    };
    /// Enqueues the reduction of `layout` (adjacent axes) of the values from `first_value` on,
    /// their indices counted from `index_base`, chunk after chunk, into `out`.
    void stream_step(const AxisLayout& layout, std::uint64_t first_value, std::uint64_t index_base,
                     const cl::Buffer& out, std::uint64_t out_index,
                     std::vector<cl::Event>& launched);
    /// Chunk `k` of `count` values from value `first` on, uploaded (after the launch that read
    /// its staging buffer last, in `launched`) or where it is.
    Chunk chunk_at(std::uint64_t k, std::uint64_t first, std::uint64_t count);
    /// Staging of at least `bytes` a buffer, which the chunks now uploaded go through.
    void stage(std::uint64_t bytes);

    SegmentedReducer& reducer_;
    cl::CommandQueue queue_;
    cl::CommandQueue copy_queue_;
    ValuesView values_;
    std::uint64_t chunk_;
    cl::Buffer whole_; // the values, read in place
    std::shared_ptr<StreamStaging> staging_;
    std::vector<cl::Event> uploads_;    // this stream's, for the pinned copies
    std::vector<cl::Event> last_reads_; // each staging buffer's last launch
};

/// A stream of `values` from `first` to `first + length` where they are or, without
/// `values`, of those random values of the input `seed` makes, its indices counted from
/// `first`; read in place on a CPU device (reads_in_place).
std::unique_ptr<HostStream> make_host_stream(Reducer& reducer, const cl::CommandQueue& queue,
                                             const std::optional<ValuesView>& values,
                                             std::uint64_t first, std::uint64_t length,
                                             std::uint64_t chunk, std::uint64_t seed);

} // namespace clreduce
