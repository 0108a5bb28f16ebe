#pragma once
// Exact floating-point sums (--exact): the sum of float or double values rounded once, to
// nearest even, bitwise identical on every device, work-group size, buffer layout, chunking
// and device split. See docs/exact-sums.md.
//
// The device (ExactSum, kernels/exact_sum.cl) turns the values into one fixed-point integer,
// held as an accumulator row of 64-bit limbs; rows add up as integers, which is associative,
// so any split of the input into pieces, devices or ranks gives the same row once added.
// ExactAccumulator is that row on the host: where rows from pieces, chunks, devices and
// ranks meet, and where the one rounding happens. exact_host_sum() is the host reference,
// computed another way (Shewchuk's expansions), so that the two check each other.

#include "clreduce/reducer.hpp"
#include "clreduce/shape.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clreduce {

/// Whether --exact sums `type`: float32 and float64, and float16 and bfloat16, whose exact
/// sums are rounded to float32 (their sums' type, every value of theirs being a float).
bool exact_sums(DataType type);

/// The fixed-point integer of an exact sum: digits of 32 bits in signed 64-bit limbs, the
/// least significant first, whose unit is the type's smallest subnormal value, then the
/// counts of NaNs, +infinities and -infinities. Wide enough for 2^64 values of the type's
/// largest magnitude. Adding rows is exact and in any order gives the same result.
class ExactAccumulator {
public:
    /// The accumulator of a sum of `type` values (exact_sums(type), else invalid_argument),
    /// rounded to float32 for float16 and bfloat16.
    explicit ExactAccumulator(DataType type);

    /// The limbs of the integer of a sum of `type` values, and the entries of a row (limbs and
    /// the 3 counts).
    static std::size_t limbs(DataType type);
    static std::size_t row_width(DataType type) { return limbs(type) + 3; }
    /// The exponent of the integer's unit: -149 for float32 (and float16, bfloat16), -1074
    /// for float64.
    static int lowest_bit(DataType type);

    /// Adds a value of the summed type (as a double, which holds every float exactly).
    void add(double value);
    /// Adds a row as the kernels write it, or another accumulator's row (row_width entries).
    void add_row(const cl_long* row);
    void add(const ExactAccumulator& other) { add_row(other.row_.data()); }

    /// The row, normalised (every limb but the top one in [0, 2^32)): what MPI_SUM adds.
    const std::vector<cl_long>& row() const { return row_; }
    /// The type the sum is rounded to: float32 or float64.
    DataType type() const { return type_; }

    /// The sum rounded once to the type, to nearest even: NaN for a NaN or for both
    /// infinities, else an infinity for one, else the exact sum rounded (±infinity where it
    /// rounds past the largest finite value). An exact zero is +0.
    Scalar rounded() const;

private:
    void normalise();
    DataType type_;
    std::vector<cl_long> row_; // normalised after every addition
};

/// Whether two results are the same bits, every NaN alike: how --exact checks.
bool same_bits(const Scalar& a, const Scalar& b);

/// The exact sum of `values` (float, double, float16 or bfloat16) rounded once to their sum's
/// type (float for the 16-bit types), computed on
/// the host another way than the device's: Shewchuk's nonoverlapping expansions in double
/// (as Python's math.fsum), in chunks run in parallel; an accumulator adds the chunks' few
/// components, and an addend whose sum would overflow, and rounds.
Scalar exact_host_sum(const ValuesView& values);
/// The same over the concatenation of `spans`, all of `type`.
Scalar exact_host_sum(DataType type, const std::vector<ValuesView>& spans);

/// The values of each result of reducing an array along axes, gathered side by side on the
/// host: `results` runs of `length` values of the array's type, in the results' order (the
/// remaining axes' in memory order), each run's values in memory order. What
/// ExactSum::enqueue_runs() sums, one exact sum a run.
struct GatheredRuns {
    std::vector<unsigned char> bytes;
    std::uint64_t results = 0;
    std::uint64_t length = 0;
};
/// `values`, an array of `shape`, gathered for a reduction along `axes` (adjacent or apart,
/// negative from the end; errors as axis_steps()'s).
GatheredRuns gather_along_axes(const ValuesView& values, const Shape& shape,
                               const std::vector<int>& axes);
/// A read-only buffer of `context` holding the runs' values (one value's bytes, unread, for
/// runs of none: OpenCL has no buffer of 0 bytes).
cl::Buffer upload_runs(const cl::Context& context, const GatheredRuns& runs,
                       std::size_t value_size);

/// What one exact sum on the device took.
struct ExactTimes {
    std::vector<double> launch_us; // each launch's device time, when the queue profiles
    double span_us = 0;            // first launch's START to last launch's END
};

/// The exact sum on one device: kernels/exact_sum.cl built for a type in a context.
class ExactSum {
public:
    /// Builds exact_sum.cl for `type` (float, double, float16 or bfloat16) on `device`. Throws
    /// Error(Errc::unsupported) for another type or a device without 64-bit integers or
    /// doubles, Error(Errc::kernel_build) for a failed build. `work_group_size` 0: 256, or
    /// the kernels' largest if smaller.
    ExactSum(const cl::Context& context, const cl::Device& device, DataType type,
             std::size_t work_group_size = 0);
    /// The same with `kernel_text` in place of the embedded exact_sum.cl (the tool's
    /// --kernels).
    ExactSum(const cl::Context& context, const cl::Device& device, DataType type,
             std::size_t work_group_size, std::string_view kernel_text);

    DataType type() const { return type_; }
    /// The work-group size of the launch over a long piece: the one asked for, else 256 or the
    /// kernel's largest.
    std::size_t work_group_size() const { return work_group_size_; }
    /// The work-group size of the launch over a piece of `length` values: the one asked for,
    /// else 1 on a CPU, else work_group_size() or, for a short piece, a smaller one (64 at
    /// least).
    std::size_t work_group_size_for(std::uint64_t length) const;
    /// The work-groups of the launch over a piece of `length` values: a few per compute unit,
    /// fewer for a short piece (on a CPU, one a compute unit until each gets 256 KiB of values,
    /// float16 and bfloat16 counted as floats).
    std::size_t work_groups_for(std::uint64_t length) const;
    /// exact_sum.cl's build options: the type, the limbs, the unit, the layout.
    const std::string& build_options() const { return build_options_; }

    /// Blocking: the exact sum of the values of `pieces`, on `queue` (in-order, of the
    /// context and device), as an accumulator to add to others or round. With `times`, and a
    /// queue that profiles, each launch's device time.
    ExactAccumulator accumulate(const cl::CommandQueue& queue, const std::vector<Piece>& pieces,
                                ExactTimes* times = nullptr);

    /// Blocking: the exact sum of `count` values of `input` from value `first` on, rounded.
    Scalar reduce(const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first,
                  std::uint64_t count) {
        return accumulate(queue, {{input, count, first}}).rounded();
    }

    /// Non-blocking: enqueues the exact sum of the values of `pieces` on `queue`, rounded once
    /// on the device, and written to `result` at value `offset` as the sum's type (cl_float,
    /// also for float16 and bfloat16, or cl_double), as rounded() would give it. The first
    /// launch waits for `wait`; the returned event is the last one's, to chain on or wait
    /// for. Calls on one ExactSum share its rows, so they go to one in-order queue.
    cl::Event enqueue(const cl::CommandQueue& queue, const std::vector<Piece>& pieces,
                      const cl::Buffer& result, std::uint64_t offset = 0,
                      const std::vector<cl::Event>* wait = nullptr);

    /// Enqueues the exact sums of `count` runs of `run_length` values each, side by side in
    /// `input` from value `first` on, each rounded once on the device into `result` from value
    /// `offset` on, as enqueue() rounds: one launch of a segmented kernel (exact_runs), and for
    /// few long runs, cut in chunks to fill the device, a clearing of their rows before and a
    /// rounding launch after (plan_runs()). The first command waits for `wait`; returns the
    /// last one's event, and `launches`, if given, gets each launch's.
    cl::Event enqueue_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                           std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                           const cl::Buffer& result, std::uint64_t offset = 0,
                           const std::vector<cl::Event>* wait = nullptr,
                           std::vector<cl::Event>* launches = nullptr);
    /// The exact sums of `count` runs as enqueue_runs() takes them, unrounded: a buffer of
    /// each run's accumulator row (ExactAccumulator::row_width() cl_long entries a run, its
    /// carries passed up one limb only), to read and add to other rows with
    /// ExactAccumulator::add_row() before rounding: how clreduce-mpi adds its ranks' partial
    /// arrays. `done`, if given, gets the launch's event (none where `count` is 0).
    cl::Buffer enqueue_run_rows(const cl::CommandQueue& queue, const cl::Buffer& input,
                                std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                                cl::Event* done = nullptr);
    /// The same as enqueue_runs() over `runs` (gather_along_axes()), uploaded first (the host
    /// blocks for that).
    cl::Event enqueue_runs(const cl::CommandQueue& queue, const GatheredRuns& runs,
                           const cl::Buffer& result, std::uint64_t offset = 0,
                           std::vector<cl::Event>* launches = nullptr);

    /// How enqueue_runs() launches over `count` runs of `run_length` values: many short runs
    /// a work-item each (`work_item_each`, in work-groups of `work_group_size`), else each run
    /// a work-group of `work_group_size`, or `chunks` work-groups for few long runs.
    struct RunsPlan {
        std::size_t work_group_size = 0;
        std::uint64_t chunks = 1;
        bool work_item_each = false;
    };
    RunsPlan plan_runs(std::uint64_t run_length, std::uint64_t count) const;

private:
    /// enqueue_runs() for many short runs: a work-item each, in work-groups of `work_items`.
    cl::Event enqueue_short_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                                 std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                                 const cl::Buffer& result, std::uint64_t offset,
                                 const std::vector<cl::Event>* wait, std::size_t work_items,
                                 std::vector<cl::Event>* launches);
    /// A launch of exact_runs as `plan` says: with `rows`, each chunked (or, with
    /// `keep_rows`, every) run's row added into it; the others rounded into `result`.
    cl::Event launch_runs(const cl::CommandQueue& queue, const cl::Buffer& input,
                          std::uint64_t first, std::uint64_t run_length, std::uint64_t count,
                          const RunsPlan& plan, bool keep_rows, const cl::Buffer* rows,
                          const cl::Buffer& result, std::uint64_t offset,
                          const std::vector<cl::Event>* wait, std::vector<cl::Event>* launches);
    /// A buffer of `count` rows, zeroed on `queue` after `wait`.
    cl::Buffer zero_rows(const cl::CommandQueue& queue, std::uint64_t count,
                         const std::vector<cl::Event>* wait);
    /// Enqueues a launch over each piece, each launch's event appended to `events`; returns
    /// the row (of a sums_ buffer) that the launches add the sum into.
    const cl::Buffer& enqueue_row(const cl::CommandQueue& queue, const std::vector<Piece>& pieces,
                                  const std::vector<cl::Event>* wait,
                                  std::vector<cl::Event>& events);
    /// Makes both rows of sums_ zeros again.
    void clear_sums();

    DataType type_;
    cl::Context context_;
    cl::Device device_;
    std::size_t work_group_size_ = 0;
    bool fixed_work_group_size_ = false; // asked for: every launch takes it
    std::size_t compute_units_ = 0;      // the device's
    std::size_t work_groups_ = 0;        // of the launch over a long piece
    bool one_work_item_a_group_ = false; // a CPU's launch over a piece (work_group_size_for())
    std::string build_options_;
    cl::Kernel partials_;
    cl::Kernel runs_;
    cl::Kernel short_runs_;
    std::uint64_t local_memory_ = 0; // the device's, in bytes
    cl::Kernel round_;
    cl::Buffer sums_[2]; // one sum's row, and the next one's, zero (enqueue_row())
    int next_sum_ = 0;
};

} // namespace clreduce
