#pragma once
// What the Python package runs on a device: a clreduce::Reducer for one context, device, type
// and op, called on NumPy arrays (streamed from host memory) and on PyOpenCL buffers (reduced
// where they are, blocking or enqueued). OpenCL objects cross from Python as PyOpenCL's
// int_ptr handles, retained here for as long as they are used.

#include "clreduce/exact.hpp"
#include "clreduce/reducer.hpp"
#include "clreduce/segmented.hpp"
#include "clreduce/stream.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clreduce::python {

namespace nb = nanobind;

/// An OpenCL handle as PyOpenCL's int_ptr gives it.
using Handle = std::uintptr_t;

/// The ops of the engine's table (all_ops()) by name, but a user's own (custom).
std::vector<std::string> op_names();
/// The name of the accumulator the engine takes for `op` on `type` values: the op's own
/// (any, all), else `accumulate`, else the type's (NumPy's for sums and products).
std::string accumulator_of(const std::string& type, const std::string& op,
                           const std::optional<std::string>& accumulate);
/// The type of the exact sum of `type` values, rounded once to it (float for float16); none
/// where the engine has no exact sum of them.
std::optional<std::string> exact_sum_type(const std::string& type);
/// The engine's value types that NumPy has: each one's name and NumPy's type code ("i4", "f8").
std::vector<std::pair<std::string, std::string>> types();

/// A context and an in-order queue on one device: where NumPy input is reduced.
struct DeviceQueue {
    explicit DeviceQueue(Handle device);
    Handle context_handle() const { return reinterpret_cast<Handle>(context()); }
    Handle queue_handle() const { return reinterpret_cast<Handle>(queue()); }
    cl::Context context;
    cl::CommandQueue queue;
};

/// Host values that the engine streams: one-dimensional, contiguous, read only.
using HostArray = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// One Reducer with a lock: Python threads may share an Engine, a Reducer serves one at a time.
/// Every call lets go of the GIL while it waits for the device (and for the lock).
class Engine {
public:
    /// Builds the reducer (or takes its program from the engine's cache); lets go of the GIL
    /// meanwhile, since a build may take seconds. `accumulate`: the accumulator's type name, as
    /// --accumulate takes it; none: NumPy's for the type and op. `user`: the custom op's
    /// reduce and identity, and a map for any op (empty: none), as --reduce, --identity and
    /// --map take them.
    Engine(Handle context, Handle device, const std::string& type, const std::string& op,
           const std::optional<std::string>& accumulate, const Expressions& user);

    /// The name of the type the results have: the accumulator.
    std::string accumulator() const;

    /// The `values`' reduction, copied to the device in chunks on `queue` through pinned
    /// staging memory, the copies overlapped with the reduction (or read where they are, on a
    /// CPU device): an int or a float; for argmin and argmax the index, an int.
    nb::object reduce_host(Handle queue, const HostArray& values);
    /// The reduction of `count` values of `buffer` from value `first` on, on `queue` after the
    /// events `wait`; blocks for the value.
    nb::object reduce_buffer(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                             const std::vector<Handle>& wait);
    /// The same, enqueued: the result lands in value `result_index` of `result` (for argmin
    /// and argmax the index, an int64). Returns the last command's event, retained for the
    /// caller (pyopencl.Event.from_int_ptr(retain=False)).
    Handle enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                   Handle result, std::uint64_t result_index, const std::vector<Handle>& wait);

private:
    std::mutex mutex_;
    Reducer reducer_;
    std::shared_ptr<StreamStaging> staging_; // the last stream's, for the next
};

/// Reductions along axes (a SegmentedReducer) for one context, device, type and op, with a lock,
/// as Engine. The results come back as NumPy reads them (numpy.frombuffer): the accumulators'
/// bytes in the input's order with the reduced axes left out, or argmin's and argmax's int64
/// indices along the reduced axes.
class AxisEngine {
public:
    /// Arguments as Engine's.
    AxisEngine(Handle context, Handle device, const std::string& type, const std::string& op,
               const std::optional<std::string>& accumulate, const Expressions& user);

    /// The name of the type the results have: the accumulator.
    std::string accumulator() const;

    /// `values`, an array of `shape`, reduced along `axes` (NumPy's numbers: negative from the
    /// end) on `queue`, streamed as Engine::reduce_host streams (an AxisStream: chunks copied
    /// through pinned staging, or read where they are on a CPU device); blocks for the
    /// results.
    nb::object reduce_host(Handle queue, const HostArray& values, const Shape& shape,
                           const std::vector<int>& axes);
    /// The reduction along `axes` of the array `shape` in `buffer` from value `first` on, on
    /// `queue` after the events `wait`; blocks for the results.
    nb::object reduce_buffer(Handle queue, Handle buffer, std::uint64_t first, const Shape& shape,
                             const std::vector<int>& axes, const std::vector<Handle>& wait);
    /// The same, enqueued: the accumulators (argmin's and argmax's int64 indices) land in
    /// `result` from value `result_index` on.
    /// Returns the last launch's event, as Engine::enqueue does.
    Handle enqueue(Handle queue, Handle buffer, std::uint64_t first, const Shape& shape,
                   const std::vector<int>& axes, Handle result, std::uint64_t result_index,
                   const std::vector<Handle>& wait);

private:
    std::mutex mutex_;
    cl::Context context_;
    SegmentedReducer reducer_;
    std::shared_ptr<StreamStaging> staging_; // the last stream's, for the next
};

/// The exact sum (ExactSum) of one context, device and type, with a lock, as Engine: the
/// result is the values' sum rounded once, the same bits on every device and layout.
class ExactEngine {
public:
    ExactEngine(Handle context, Handle device, const std::string& type);

    /// The exact sum of `values`, uploaded in chunks through pinned staging, each uploaded
    /// while the one before is summed; the chunks' accumulators add up on the host.
    nb::object reduce_host(Handle queue, const HostArray& values);
    /// The exact sum of `count` values of `buffer` from value `first` on, after `wait`.
    nb::object reduce_buffer(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                             const std::vector<Handle>& wait);
    /// The exact sum of each result of `values`, an array of `shape`, along `axes` (NumPy's
    /// numbers), as AxisEngine gives results: each result's values gathered side by side on
    /// the host and uploaded once (gather_along_axes()), all results summed and rounded on
    /// the device at once (ExactSum::enqueue_runs()); the rounded sums' bytes, for
    /// numpy.frombuffer.
    nb::object reduce_host(Handle queue, const HostArray& values, const Shape& shape,
                           const std::vector<int>& axes);
    /// The same of the array `shape` in `buffer` from value `first` on, after `wait`: its
    /// values read back to the host first, to be gathered there.
    nb::object reduce_buffer(Handle queue, Handle buffer, std::uint64_t first, const Shape& shape,
                             const std::vector<int>& axes, const std::vector<Handle>& wait);
    /// The same, enqueued, rounded on the device and written to value `result_index` of
    /// `result` (of the type accumulator() names); returns the last command's event, as
    /// Engine::enqueue does.
    Handle enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                   Handle result, std::uint64_t result_index, const std::vector<Handle>& wait);
    /// The name of the type the sum is rounded to.
    std::string accumulator() const;

private:
    /// The rounded exact sums of `values` along `axes`, on `queue`.
    std::vector<unsigned char> sums_along(const cl::CommandQueue& queue, const ValuesView& values,
                                          const Shape& shape, const std::vector<int>& axes);

    std::mutex mutex_;
    cl::Context context_;
    cl::CommandQueue copy_queue_; // the uploads of NumPy input
    ExactSum exact_sum_;
    std::shared_ptr<StreamStaging> staging_; // the last call's, for the next
};

} // namespace clreduce::python
