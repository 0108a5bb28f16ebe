#pragma once
// The reduction on the device: one built program, reused for any number of inputs, and the
// multi-pass, double-buffered run with each pass's profiling event.

#include "clreduce/capabilities.hpp"
#include "clreduce/kinds.hpp"
#include "clreduce/plan.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

struct PassTime {
    Pass pass;
    double device_us = 0; // CL_PROFILING_COMMAND_START to _END
};

struct Reduction {
    Scalar value;
    std::vector<PassTime> passes; // an input in several buffers: one launch each, first
    std::size_t pieces = 0;       // those launches: 0 for an input in one buffer
    double span_us = 0;           // first pass's START to last pass's END
    double host_us = 0;           // first enqueue to the result on the host
};

/// Part of an input held in several buffers: the first `length` values of `buffer`.
struct Piece {
    cl::Buffer buffer;
    std::uint64_t length = 0;
};

/// The time between two profiling points of a finished command, in microseconds.
template <cl_profiling_info From, cl_profiling_info To>
double event_us(const cl::Event& event) {
    return static_cast<double>(event.getProfilingInfo<To>() - event.getProfilingInfo<From>()) /
           1000.0;
}

/// A context with one in-order, profiling queue on one device.
struct DeviceQueue {
    explicit DeviceQueue(const cl::Device& device);
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;
};

/// Builds `source` for the queue's device; a compiler error becomes
/// Error(Errc::kernel_build) carrying the build log.
cl::Program build_program(const DeviceQueue& device_queue, const std::string& source,
                          const std::string& options);

/// A read-only buffer holding `values`, written before this returns.
cl::Buffer upload(const DeviceQueue& device_queue, const HostValues& values);

/// What a Reducer is built for.
struct Recipe {
    DataType type = DataType::int32;
    Op op = Op::sum;
    Path path = Path::tree;
    Factor factor = Factor::device;
    std::optional<Finish> finish = Finish::passes; // nullopt: auto, one launch where allowed
    std::size_t work_group_size = 0;               // 0: the device's best
};

/// A Reducer is used by one thread at a time: its kernels' arguments, its temporaries, its
/// arrival count and its pinned result are its own and are not locked. Reducers on queues of
/// their own may run on several threads at once (several devices do). Nothing survives from
/// one reduction to the next but the buffers' capacity and the two arrival counts, which
/// single launches take in turn, each zeroed by the launch before the one that takes it.
class Reducer {
public:
    /// Builds reduce.cl's text completed for the recipe's type, op and path, settles the finish
    /// (see finish.hpp) and sizes the work-groups: the recipe's size if given, within the
    /// kernels' and the device's limits. Throws Error for a type or finish the device
    /// cannot run.
    Reducer(const DeviceQueue& device_queue, const DeviceReport& report, const Recipe& recipe,
            const std::string& kernel_text);
    // Copies would share the kernels' arguments, the temporaries and the arrival counter.
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;
    ~Reducer();

    const DeviceQueue& device_queue() const { return device_queue_; }
    const cl::Program& program() const { return program_; }
    const DeviceReport& report() const { return report_; }
    DataType type() const { return recipe_.type; }
    std::size_t value_size() const { return info(recipe_.type).size; }
    Op op() const { return recipe_.op; }
    Path path() const { return recipe_.path; }
    Factor factor() const { return recipe_.factor; }
    Finish finish() const { return finish_; }
    const std::string& build_options() const { return build_options_; }
    const PassShape& shape() const { return shape_; }
    std::size_t work_group_size() const { return shape_.work_group_size; }
    std::vector<Pass> plan(std::uint64_t length) const {
        return plan_passes(length, shape_, finish_);
    }

    /// Throws Error(Errc::unsupported), naming the limit, when `length` values, in
    /// buffers of at most `per_buffer` values, and the temporaries do not fit in the device's
    /// global memory; call it before making the input.
    void check_fits(std::uint64_t length, std::uint64_t per_buffer) const;
    /// The values of device memory `length` values need in buffers of at most `per_buffer`:
    /// the input, the pieces' partials and the two temporaries.
    std::uint64_t device_values(std::uint64_t length, std::uint64_t per_buffer) const;

    /// Reduces the first `length` values of `input` (of the recipe's type), which it only
    /// reads. Throws Error(Errc::invalid_argument) when `input` holds fewer than `length` values.
    Reduction reduce(const cl::Buffer& input, std::uint64_t length);

    /// Reduces the values of `pieces`, in order, as one input. Each piece is reduced by one
    /// launch of the first pass into one array of partials, which is then reduced like any
    /// input: the report lists the pieces' launches first.
    Reduction reduce(const std::vector<Piece>& pieces);

    /// The partials one piece of `length` values leaves: its first pass's work-groups.
    std::size_t partials_of(std::uint64_t length) const;

    /// For a layer that feeds the pieces itself: enqueues the first pass over `piece`, after
    /// `wait`, writing its partials to `partials` from `first` on.
    cl::Event enqueue_piece(const Piece& piece, const cl::Buffer& partials, std::uint64_t first,
                            const std::vector<cl::Event>& wait);

    /// For the same layer: reduces `count` partials gathered by enqueue_piece, which started
    /// on the host's clock at `started`; `pieces` are the pieces' events, reported first.
    Reduction finish_pieces(const cl::Buffer& partials, std::uint64_t count,
                            std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                            std::chrono::steady_clock::time_point started);

private:
    void size_temporary(std::size_t which, std::uint64_t values);
    void require_holds(const cl::Buffer& input, std::uint64_t length) const;
    void enqueue(const Pass& pass, const cl::Buffer& in, std::size_t out, cl::Event& event);

    DeviceQueue device_queue_;
    DeviceReport report_;
    Recipe recipe_;
    Finish finish_;
    std::string build_options_;
    cl::Program program_;
    cl::Kernel pass_kernel_;      // reduce: one pass
    cl::Kernel finishing_kernel_; // reduce_and_finish: a pass that the last work-group finishes
    cl::Buffer arrivals_[2];      // reduce_and_finish's counts of work-groups done, alternating
    int next_arrivals_ = 0;       // the count the next finishing launch takes
    cl::Buffer result_buffer_;    // pinned host memory (CL_MEM_ALLOC_HOST_PTR) for the result...
    void* result_ = nullptr;      // ...mapped for the reducer's lifetime
    PassShape shape_;
    cl::Buffer piece_partials_; // the pieces' partials when an input has several
    std::uint64_t piece_partials_capacity_ = 0;
    cl::Buffer temporaries_[2];
    std::uint64_t temporary_capacity_[2] = {0, 0};
};

} // namespace clreduce
