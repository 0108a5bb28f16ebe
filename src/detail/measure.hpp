#pragma once
// Measuring: repeated, validated reductions of one input, the host reference beside them,
// and the device's stream read: the time to read the input and do nothing else.

#include "clreduce/input.hpp"
#include "clreduce/reducer.hpp"
#include "clreduce/types.hpp"
#include "detail/reference.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

struct Statistic {
    double min = 0;
    double median = 0;
};

/// Min and median of at least one sample.
Statistic summarize(std::vector<double> samples);

/// How often to run, and whether one uncounted run warms the device up first (the default)
/// or the first launch is measured as it comes (--cold).
struct Repeats {
    unsigned iterations = 1;
    bool warm_up = true;
};

/// The stream read: stream_read.cl's kernel, which makes the first pass's reads with the first
/// pass's launch shape (within its own work-group limit) and does nothing else. It is built
/// from the reducer's program text with stream_read.cl appended, with the same options, so
/// it reads as the reduction does; the first StreamRead for a reducer compiles it.
/// On GPUs it is the reduction's ceiling; on CPUs it is a reference, not a bound
/// (docs/command-line.md, "Output").
class StreamRead {
public:
    /// Launches on `queue`, which must profile.
    StreamRead(const Reducer& reducer, const cl::CommandQueue& queue);
    /// One launch per piece of `input`, in device microseconds from the first's start to the
    /// last's end.
    double launch_us(const std::vector<Piece>& input);

private:
    const Reducer& reducer_;
    cl::CommandQueue queue_;
    cl::Kernel kernel_;
    std::size_t work_group_limit_;
    cl::Buffer sink_;
};

/// How a result is held to the host reference.
enum class Check {
    exact,     // same_value(): NaN matches NaN, +0 matches -0
    bound,     // within the tolerance: a floating-point sum whose order of roundings varies
    unchecked, // a floating-point sum whose magnitudes reach the type's range: some order of
               // additions overflows, so any result, finite or not, may be right
    skipped,   // no host reference was asked for (the tool's --no-check)
};

/// "exact", "bound", "unchecked" or "skipped".
std::string name_of(Check check);

/// How a result of `op` accumulated in `type` is checked against `reference`: exactly for
/// integers and every op but a sum or product; a floating-point product drawn by clreduce
/// (-1 and 1) exactly, else within a bound relative to it; for a floating-point sum, unchecked
/// where the finite values' magnitudes add up to half the type's largest value or more, exactly
/// where the reference is a NaN or an infinity (the input's own), where the values are clreduce's
/// draw (floats whose magnitudes add up to 2^35 at most, some 7.6e9 of them; doubles at any
/// length), or where every finite value is a multiple of a power of two q (their grain, at least
/// the type's smallest normal value) and their magnitudes add up to less than 2^digits * q (then
/// every partial sum in any order is exact); else within the bound.
Check check_for(DataType type, Op op, const Reference& reference, Origin origin);

struct Measurement {
    DataType type = DataType::int32; // of the input values
    Op op = Op::sum;
    DataType accumulator = DataType::int32; // of the results
    std::uint64_t length = 0;
    std::vector<Reduction> runs; // the timed runs, warm-up excluded
    // The same reductions on a queue without profiling, timed for the host's wait; empty
    // where the runs' own host_us is that wait (a split over several devices).
    std::vector<Reduction> waits;
    Reference expected;         // the host reference
    Check check = Check::exact; // how the results are held to it
    double tolerance = 0;       // with Check::bound, the largest difference allowed
    Statistic host_reference_us;
    std::optional<Statistic> stream_read_us; // with a StreamRead, interleaved with the runs

    /// An empty measurement of `length` values of what `reducer` reduces.
    static Measurement of(const Reducer& reducer, std::uint64_t length);

    /// The first run's result as the user reads it (result_text()): for argmin and argmax, the
    /// value.
    std::string result_text() const;
    /// What the tool's -q prints: argmin's and argmax's index (as np.argmax returns), else
    /// result_text().
    std::string answer_text() const;
    /// Whether `run`'s result passes the check against the host reference: its value and, for
    /// argmin and argmax, its index, which is exact.
    bool matches(const Reduction& run) const;
    /// Every timed result: the runs', then the waits'.
    std::vector<Reduction> results() const;
    /// Whether every timed result matches the host reference.
    bool valid() const;
    /// The largest difference between a timed result and the host reference (0 for a result
    /// that is the same value, NaN or infinity included).
    double largest_error() const;
    std::uint64_t bytes() const { return length * info(type).size; }
    Statistic span_us() const;
    Statistic observed_us() const; // the host's wait, first enqueue to result (of the waits)
    Statistic pass_us(std::size_t pass) const;
};

/// Reduces the first `length` of `values` (already in `input`) `repeats` times and with the
/// host reference: first on `queues.queue` for the device's times (runs), then as many times
/// again on `queues.unprofiled` for the host's wait (waits). With `stream_read`, each profiled
/// reduction is followed by a launch of the streaming read, so that both see the same cache and
/// clock state. The values' origin decides how a floating-point sum is checked (check_for);
/// without `check`, no host reference is computed (Check::skipped).
Measurement measure(Reducer& reducer, const DeviceQueue& queues, const DeviceInput& input,
                    const ValuesView& values, std::uint64_t length, const Repeats& repeats,
                    StreamRead* stream_read, bool check = true);

/// The reference for what `reducer` reduces over `values` (held on the device as `pieces`):
/// host_reduce() where the host computes the op and the map (a built-in op, with no map or
/// x * x, fabs(x), x != 0), else Reducer::reduce_in_order() on `queue`. argmin's and
/// argmax's index counts from where the pieces start in the whole input, as theirs does.
Reference reference_for(Reducer& reducer, const cl::CommandQueue& queue,
                        const std::vector<Piece>& pieces, const ValuesView& values);

/// The same for `spans` of host memory, one input in their order, the whole input's from
/// `start` on (a stream's, the shares of several devices): host_reduce(), else
/// Reducer::reduce_in_order() on `queue` over the spans as buffers of CL_MEM_USE_HOST_PTR (a
/// CPU device reads them where they are); the index and a map's index count from `start`.
Reference reference_for(Reducer& reducer, const cl::CommandQueue& queue,
                        const std::vector<ValuesView>& spans, std::uint64_t start = 0);

/// The references of an axis reduction of `values` (of `shape`) along `axes` by `reducer`'s
/// op and map in index order on the device: each result's values gathered side by side and
/// reduced at once (Reducer::reduce_runs_in_order()) where they are runs of at most
/// in_order_block values that fit one buffer, else each alone (reduce_in_order()).
std::vector<Reference> in_order_axis_references(Reducer& reducer, const cl::CommandQueue& queue,
                                                const ValuesView& values, const Shape& shape,
                                                const std::vector<int>& axes);

/// How reference_for() computes the reference for `recipe`: host_reduce_method(), or in index
/// order on the device.
std::string reference_method(const Recipe& recipe);

/// Calls run(false) once to warm up if asked, then run(true) `iterations` times.
template <typename Run>
void repeat(const Repeats& repeats, Run run) {
    if (repeats.warm_up)
        run(false);
    for (unsigned i = 0; i < repeats.iterations; ++i)
        run(true);
}

/// Sets the measurement's host reference from `reference` (timed like the runs), its check
/// (check_for, with the values' `origin`) and, for Check::bound, its tolerance from the
/// first run's passes. Call it after the runs. An empty `reference` skips the check
/// (Check::skipped).
void check_against(Measurement& measurement, const Reducer& reducer, const Repeats& repeats,
                   const std::function<Reference()>& reference, Origin origin = Origin::given);

/// The largest error a floating-point sum of values whose magnitudes add up to `magnitude`
/// may have after `additions` roundings each (Higham's gamma bound), plus the reference's
/// own rounding of `expected` to the type; 0 for integers.
double sum_tolerance(DataType type, std::uint64_t additions, double magnitude, double expected);

/// Gigabytes per second of reading `bytes` in `microseconds`.
double gigabytes_per_second(std::uint64_t bytes, double microseconds);

} // namespace clreduce
