#pragma once
// What the Python package runs on a device: a clreduce::Reducer for one context, device, type
// and op, called on NumPy arrays (streamed from host memory) and on PyOpenCL buffers (reduced
// where they are, blocking or enqueued). OpenCL objects cross from Python as PyOpenCL's
// int_ptr handles, retained here for as long as they are used.

#include "clreduce/reducer.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
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
    /// --accumulate takes it; none: NumPy's for the type and op.
    Engine(Handle context, Handle device, const std::string& type, const std::string& op,
           const std::optional<std::string>& accumulate);

    /// The name of the type the results have: the accumulator.
    std::string accumulator() const;

    /// The `values`' reduction, copied to the device in chunks on `queue` (or read where they
    /// are, on a CPU device): an int or a float; for argmin and argmax the index, an int.
    nb::object reduce_host(Handle queue, const HostArray& values);
    /// The reduction of `count` values of `buffer` from value `first` on, on `queue` after the
    /// events `wait`; blocks for the value.
    nb::object reduce_buffer(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                             const std::vector<Handle>& wait);
    /// The same, enqueued: the result lands in value `result_index` of `result`. Returns the
    /// last command's event, retained for the caller (pyopencl.Event.from_int_ptr(retain=False)).
    Handle enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                   Handle result, std::uint64_t result_index, const std::vector<Handle>& wait);

private:
    std::mutex mutex_;
    Reducer reducer_;
};

} // namespace clreduce::python
