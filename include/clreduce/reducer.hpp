#pragma once
// The reduction on the device, as other OpenCL programs call it: a Reducer built for the
// caller's context and device, a value type and an op, reduces a range of a caller's buffer on
// a caller's in-order queue, either blocking (the value comes back) or enqueued (the result
// lands in a caller's buffer, and the returned event chains on). See "Use clreduce in your
// program" in the README, and docs/library.md.
//
// Errors: every call throws clreduce::Error (errors.hpp), whose cause() says why: a range or
// a queue the call cannot take (Errc::invalid_argument), a type, finish or work-group size the
// device cannot run (unsupported), a kernel the compiler rejects (kernel_build, with its log);
// an OpenCL call that fails at run time (Errc::opencl, with the call's status in status()).
//
// Threads: a Reducer serves one in-order queue at a time, on one thread at a time. Its
// temporaries, its kernels' arguments, its arrival counts and its pinned result are its own and
// are not locked, so different queues or threads need a Reducer each. Reducers of one
// context and device share their compiled program (see the program cache below), so a
// Reducer each costs no compile.

#include "clreduce/errors.hpp"
#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace clreduce {

// What the engine decides and measures on its own: the device's report, the tuning policy,
// the pass shape and the built kernels' limits. Their definitions are private to the build
// (src/detail/), for the tool, the bindings and the tests built with it; a program of its own
// sees the Reducer's Recipe, Path, Finish and Pass instead.
struct DeviceReport;
struct Policy;
struct PassShape;
struct KernelLimits;

struct PassTime {
    Pass pass;
    double device_us = 0; // CL_PROFILING_COMMAND_START to _END; 0 when not profiled
};

/// A blocking reduction's value, with what it took.
struct Reduction {
    Scalar value;
    std::vector<PassTime> passes; // an input in several buffers: one launch each, first
    std::size_t pieces = 0;       // those launches: 0 for an input in one buffer
    bool profiled = false;        // the queue profiles: device_us and span_us are measured
    double span_us = 0;           // first pass's START to last pass's END
    double host_us = 0;           // first enqueue to the result on the host
    // argmin and argmax: the index of `value` in the whole input (Piece::start counts it);
    // empty for every other op.
    std::optional<std::int64_t> index = std::nullopt;
};

/// Part of an input held in several buffers: `length` values of `buffer` from value `first` on,
/// which is value `start` of the whole input (where argmin's and argmax's indices and a map's
/// index count from).
struct Piece {
    cl::Buffer buffer;
    std::uint64_t length = 0;
    std::uint64_t first = 0;
    std::uint64_t start = 0;
};

/// A context on one device with two in-order queues: the command-line tool's. `queue`
/// profiles, for the device's times; `unprofiled` is where the host's wait for a result is
/// timed, since profiling itself lengthens that wait (by 8 to 12 us on NVIDIA's driver,
/// docs/driver-notes.md).
struct DeviceQueue {
    explicit DeviceQueue(const cl::Device& device);
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;
    cl::CommandQueue unprofiled;
};

/// A read-only buffer of `context` holding `values`, written on `queue` before this returns.
cl::Buffer upload(const cl::Context& context, const cl::CommandQueue& queue,
                  const HostValues& values);
inline cl::Buffer upload(const DeviceQueue& device_queue, const HostValues& values) {
    return upload(device_queue.context, device_queue.queue, values);
}

/// The program cache: every Reducer's program is compiled once per context, device, completed
/// kernel text (type, op and path) and build options (path, finish, type), and kept for the
/// process's life, with a reference to its context, in one table behind a mutex. A second
/// Reducer for the same thing takes the program from there. clear_program_cache() lets go of
/// the programs (and so of their contexts); Reducers built from them keep theirs.
void clear_program_cache();

class Reducer {
public:
    /// Takes the tuning policy for the recipe on the device, builds (or takes from the program
    /// cache) reduce.cl's text completed for its type, op and path with its build options,
    /// then settles it: the finish (the last work-group where the device orders its atomics)
    /// and the work-groups, the recipe's size if given, within the kernels' and the device's
    /// limits. An explicit path is built even where the device does not report it. Blocks for
    /// the compile, which takes from milliseconds to seconds; a cached program costs the device
    /// queries and two clCreateKernel. Throws Error(Errc::unsupported) for a type, finish or
    /// work-group size the device cannot run and Error(Errc::kernel_build) for a kernel that
    /// does not build. Allocates the small buffers only: temporaries grow on first use.
    Reducer(const cl::Context& context, const cl::Device& device, const Recipe& recipe = {});
    /// The same with `kernel_text` in place of the embedded reduce.cl (the tool's --kernels,
    /// for readers who edit the kernel).
    Reducer(const cl::Context& context, const cl::Device& device, const Recipe& recipe,
            std::string_view kernel_text);
    // Copies would share the kernels' arguments, the temporaries and the arrival counts.
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;
    /// Waits for the queue of the first blocking call, if any (it unmaps the pinned result
    /// there). Commands still pending on other queues keep what they use alive.
    ~Reducer();

    const cl::Context& context() const { return context_; }
    const cl::Device& device() const { return device_; }
    const cl::Program& program() const { return program_; }
    /// The OpenCL C text the program was built from: the kernel text completed for the op.
    const std::string& source() const { return source_; }
    /// The recipe as the reducer took it on its device.
    const Recipe& recipe() const;
    DataType type() const { return recipe().type; }
    std::size_t value_size() const { return info(type()).size; } // of an input value
    /// The type of partials and results (accumulator_for() the recipe).
    DataType accumulator() const;
    /// The bytes of a partial or a result: partial_size() (ops.hpp) of the op and accumulator.
    std::size_t accumulator_size() const { return partial_size(op(), accumulator()); }
    Op op() const { return recipe().op; }
    Path path() const;
    Factor factor() const { return recipe().factor; }
    Finish finish() const;
    const std::string& build_options() const;
    std::size_t work_group_size() const;
    /// The launches that reduce `length` values, computed before anything is enqueued.
    std::vector<Pass> plan(std::uint64_t length) const;
    /// What the device reports and how this reducer is built and launched (src/detail/).
    const DeviceReport& report() const { return *report_; }
    const Policy& policy() const { return *policy_; }
    const PassShape& shape() const;

    /// Blocking: reduces the `count` values of `input` from value `first` on (of the recipe's
    /// type; only read) on `queue`, an in-order queue of the reducer's context and device, and
    /// returns the result (the op's identity for none; for argmin and argmax the extreme value,
    /// whose index reduce_timed() gives). Any offset works: the kernel reads the
    /// up to 3 values before the first multiple of 4 one by one. Costs the launches of
    /// plan(count) (one with the last-group finish), a read of one value into pinned memory
    /// and the host's wait; the first call also allocates the temporaries. Throws
    /// Error(Errc::invalid_argument) for a range past the buffer's end or an out-of-order queue.
    Scalar reduce(const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first,
                  std::uint64_t count);

    /// reduce(), as T (cl_int ... cl_double), which must be the accumulator's type: else
    /// Error(Errc::invalid_argument).
    template <typename T>
    T reduce(const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first,
             std::uint64_t count) {
        require_type<T>();
        return std::get<T>(reduce(queue, input, first, count));
    }

    /// Blocking, timed: the values of `pieces` (one, or an input held in several buffers), in
    /// order, as one input, as reduce() does, with each pass's device time and the span when
    /// `queue` profiles (CL_QUEUE_PROFILING_ENABLE; else Reduction::profiled is false and they
    /// are 0), and the host's wait from first enqueue to result. Several pieces are reduced by
    /// one launch of the first pass each into one array of partials, which is then reduced
    /// like any input: the passes list the pieces' launches first.
    Reduction reduce_timed(const cl::CommandQueue& queue, const std::vector<Piece>& pieces);

    /// Asynchronous: enqueues the reduction of `count` values of `input` from value `first` on,
    /// after the events of `wait`, on `queue` (in-order, the reducer's context and device), and
    /// the writing of the result to `result[result_index]` (a value of the accumulator's type;
    /// for argmin and argmax the pair of accumulator_size(), 16 bytes: the value at byte 0,
    /// then its index from `first`, an int64 at byte 8).
    /// Returns the event of the last command, whose completion means the result is there.
    /// Nothing blocks and nothing is read back, so reductions chain in the queue: any number
    /// of them, into one result buffer or several; the temporaries are reused in queue order.
    /// Costs the launches of plan(count) and the checks of the ranges. Throws
    /// Error(Errc::invalid_argument) for a range past either buffer's end or an out-of-order queue.
    cl::Event enqueue_reduce(const cl::CommandQueue& queue, const cl::Buffer& input,
                             std::uint64_t first, std::uint64_t count, const cl::Buffer& result,
                             std::uint64_t result_index, const std::vector<cl::Event>& wait = {});

    /// Throws Error(Errc::unsupported), naming the limit, when `length` values, in
    /// buffers of at most `per_buffer` values, and the temporaries do not fit in the device's
    /// global memory; call it before making the input.
    void check_fits(std::uint64_t length, std::uint64_t per_buffer) const;
    /// The values of device memory `length` values need in buffers of at most `per_buffer`:
    /// the input, the pieces' partials and the two temporaries.
    std::uint64_t device_values(std::uint64_t length, std::uint64_t per_buffer) const;

    /// The partials one piece of `length` values leaves: its first pass's work-groups.
    std::size_t partials_of(std::uint64_t length) const;

    /// The check of a user's op or map, which has no host twin: the same definitions applied
    /// in index order (reduce.cl's reduce_in_order and combine_in_order), over `pieces` in
    /// turn. Each work-item of a first launch folds one block of in_order_block values in a
    /// row; one work-item then folds the blocks' results in order. Contiguous blocks, where the
    /// passes interleave their work-items' values over the whole input: it checks the parallel
    /// structure (passes, work-groups, lanes, finish), not the expression. Blocking; gives the
    /// value and, for argmin and argmax, its index; no times.
    Reduction reduce_in_order(const cl::CommandQueue& queue, const std::vector<Piece>& pieces);
    /// Values each work-item of reduce_in_order() folds in order.
    static constexpr std::uint64_t in_order_block = 4096;
    /// reduce_in_order() of each of `count` runs of `run` values (at most in_order_block) of
    /// `input`, side by side from value 0 on, at once: each run a work-item's (reduce.cl's
    /// reduce_runs_in_order), its index counted from its first value. As reduce_in_order() of
    /// each run alone gives, in one launch instead of two and a read a run. Blocking.
    std::vector<Reduction> reduce_runs_in_order(const cl::CommandQueue& queue,
                                                const cl::Buffer& input, std::uint64_t run,
                                                std::uint64_t count);

    /// The results of reductions with this reducer's recipe (of shares of one input, on other
    /// devices or MPI ranks) combined by its op on the device, as a pass over partials combines
    /// them: a user's op has no host twin, so only a device can combine its results. Blocking;
    /// `results` hold values of the accumulator (else Error(Errc::invalid_argument)) and, for
    /// argmin and argmax, indices in the whole input; none gives the identity.
    Reduction reduce_results(const cl::CommandQueue& queue, const std::vector<Reduction>& results);

    /// For a layer that feeds the pieces itself (HostStream): enqueues the first pass over
    /// `piece` on `queue`, after `wait`, writing its partials to `partials` from
    /// `first_partial` on.
    cl::Event enqueue_piece(const cl::CommandQueue& queue, const Piece& piece,
                            const cl::Buffer& partials, std::uint64_t first_partial,
                            const std::vector<cl::Event>& wait);

    /// For the same layer: blocking, timed, reduces the partials gathered by enqueue_piece, which
    /// started on the host's clock at `started`; `pieces` are the pieces' passes and
    /// `piece_events` their events, reported first.
    Reduction finish_pieces(const cl::CommandQueue& queue, const Piece& partials,
                            std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                            std::chrono::steady_clock::time_point started);

private:
    template <typename T>
    void require_type() const {
        const bool same = visit_accumulator(
            accumulator(), [](auto zero) { return std::is_same_v<decltype(zero), T>; });
        if (!same)
            throw Error(Errc::invalid_argument,
                        "reduce<T>: T is not the reducer's accumulator, " + name_of(accumulator()));
    }
    KernelLimits kernel_limits() const;
    /// A result read back: its value and, for argmin and argmax, its index.
    Reduction result_from_bytes(const void* bytes) const;
    /// `result` as a partial's bytes, at `bytes` (accumulator_size() of them).
    void result_to_bytes(const Reduction& result, unsigned char* bytes) const;
    void size_temporaries(const std::vector<Pass>& passes);
    void require_holds(const cl::Buffer& buffer, std::uint64_t first, std::uint64_t count,
                       Reads reads, const char* what) const;
    void enqueue_pass(const cl::CommandQueue& queue, const Pass& pass, Reads reads, const Piece& in,
                      const cl::Buffer& out, std::uint64_t first_out,
                      const std::vector<cl::Event>& wait, cl::Event& event);
    std::vector<cl::Event> enqueue_passes(const cl::CommandQueue& queue,
                                          const std::vector<Pass>& passes, Reads reads,
                                          const Piece& input, const cl::Buffer& result,
                                          std::uint64_t result_index,
                                          const std::vector<cl::Event>& wait);
    Reduction run(const cl::CommandQueue& queue, const Piece& input, Reads reads,
                  std::vector<PassTime> pieces, std::vector<cl::Event> piece_events,
                  std::chrono::steady_clock::time_point started, bool timed);
    void* pinned_result(const cl::CommandQueue& queue);

    cl::Context context_;
    cl::Device device_;
    std::unique_ptr<const DeviceReport> report_;
    std::unique_ptr<Policy> policy_;
    /// The two kernels of one program: reduce (one pass) and reduce_and_finish (a pass that
    /// the last work-group finishes).
    struct Kernels {
        cl::Kernel pass;
        cl::Kernel finishing;
    };
    Kernels kernels_of(const cl::Program& program) const;
    /// The kernels of a pass that reads `reads`, `length` values from `in`.
    Kernels& kernels_for(Reads reads, const Piece& in, std::uint64_t length);
    std::string source_;           // the values' program's text
    cl::Program program_;          // reads the input's values
    cl::Program partials_program_; // reads partials: the same program where the types agree
    Kernels values_kernels_;
    Kernels partials_kernels_;
    // argmin's and argmax's values' kernels whose work-group step takes pairs, not 64-bit keys
    // (reduce.cl's REDUCE_KEYS): built at the first launch whose indices reach 2^32 - 1.
    std::optional<Kernels> wide_index_kernels_;
    cl::Buffer arrivals_[2];    // reduce_and_finish's counts of work-groups done, alternating
    int next_arrivals_ = 0;     // the count the next finishing launch takes
    cl::Buffer piece_partials_; // the pieces' partials when an input has several
    std::uint64_t piece_partials_capacity_ = 0;
    cl::Buffer temporaries_[2];
    std::uint64_t temporary_capacity_[2] = {0, 0};
    cl::Buffer result_slot_; // where a blocking call's last pass writes the result
    // Pinned host memory (CL_MEM_ALLOC_HOST_PTR) for a blocking call's result, mapped on the
    // queue of the first blocking call and unmapped there by the destructor.
    cl::Buffer result_buffer_;
    cl::CommandQueue mapped_on_;
    void* result_ = nullptr;
};

} // namespace clreduce
