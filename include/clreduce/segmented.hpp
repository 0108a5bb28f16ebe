#pragma once
// Many reductions at once on a caller's buffer: one result per segment (CSR offsets) or per
// position of an array's remaining axes (NumPy's reduce along `axis`). Like the Reducer
// (reducer.hpp), it is built for a context, a device and a Recipe (type, op, map), and runs
// on the caller's in-order queue, blocking (the values come back) or enqueued (the results
// land in a caller's buffer, and the returned event chains on). docs/axes.md tells how the
// shapes choose the kernel.
//
// Every op and type works, with the same kernel definitions as the whole-array Reducer; a
// value's index, as a map (and an arg op) sees it, is its position within its segment, or
// along the reduced axis. An empty segment gives the op's identity; for argmin and argmax the
// index -1 (no_index).
//
// Axes apart in memory (axis 0 and 2 of a 3-D array) are reduced one run of adjacent axes
// after another, the innermost first (axis_steps() in shape.hpp), through partials; with a
// map, the first step launches once for each group of its blocks that shares an index base
// (first_step_groups()), so that i counts over each result's values in memory order.
//
// Errors: Error (errors.hpp), as the Reducer's: Errc::invalid_argument for axes or ranges the
// call cannot take, Errc::unsupported for argmin and argmax along axes apart in memory
// (NumPy's take one axis; their index would count along one run of adjacent axes).
// Threads: one queue at a time, like a Reducer; its temporaries are its own.

#include "clreduce/kinds.hpp"
#include "clreduce/ops.hpp"
#include "clreduce/shape.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <memory>
#include <vector>

namespace clreduce {

// The plan and its tuning are private to the build (src/detail/segment_plan.hpp), as the
// Reducer's policy is (reducer.hpp).
struct DeviceReport;
struct Policy;
struct SegmentTuning;
struct SegmentDevice;
struct SegmentPass;

/// A blocking call's results, in the order they lie in memory, with their shape.
struct SegmentedResult {
    Shape shape;                 // an axis reduction's remaining axes; CSR: {segments}
    std::vector<Scalar> values;  // of the accumulator's type (scalar_from_bytes)
    std::vector<double> pass_us; // each launch's device time, where the queue profiles
    // argmin and argmax: each value's first index within its segment (along the reduced
    // axis, NumPy's argmax(axis=)), no_index for an empty one; empty for other ops.
    std::vector<std::int64_t> indices;
};

class SegmentedReducer {
public:
    /// Builds (or takes from the program cache, reducer.hpp) reduce.cl and segmented.cl
    /// completed for the recipe's type and op, for the values and for partials, and plans
    /// with what was measured best. Throws as the Reducer's constructor does.
    SegmentedReducer(const cl::Context& context, const cl::Device& device,
                     const Recipe& recipe = {});
    /// The same, planned with `tuning` (the benchmark's, docs/axes.md).
    SegmentedReducer(const cl::Context& context, const cl::Device& device, const Recipe& recipe,
                     const SegmentTuning& tuning);
    ~SegmentedReducer();
    SegmentedReducer(const SegmentedReducer&) = delete;
    SegmentedReducer& operator=(const SegmentedReducer&) = delete;

    const cl::Context& context() const { return context_; }
    const cl::Device& device() const { return device_; }
    /// What the device answered when the reducer was built (capabilities.hpp).
    const DeviceReport& report() const { return *report_; }
    /// The type of the results (accumulator_for() the recipe).
    DataType accumulator() const;
    /// The bytes of one result as the enqueued calls write it: the accumulator's or, for
    /// argmin and argmax, the pair's (partial_size() in ops.hpp: the value, then an int64
    /// index at byte 8, INT64_MAX for an empty segment).
    std::size_t accumulator_size() const;
    /// How it is built, what the launches are cut to on this device, and the launches that
    /// reduce `layout` (src/detail/).
    const Policy& policy() const;
    const SegmentDevice& device_shape() const;
    /// `first`: where the values begin in their buffer (some launches need them aligned).
    std::vector<SegmentPass> plan(const AxisLayout& layout, std::uint64_t first = 0) const;

    /// Enqueues the reduction of the array `shape` (of the recipe's type, from value `first`
    /// of `input` on) along `axes` (negative: from the end), after `wait`, writing
    /// axis_steps(shape, axes).back().results() accumulators to `result` from `result_index` on, in
    /// the input's order. Returns the last launch's event; `events`, if given, gets every
    /// launch's. A value's index (a map's i, argmin's and argmax's) counts from `index_base`
    /// along the reduced axes: a part of a longer axis gives where it begins.
    cl::Event
    enqueue_reduce_axes(const cl::CommandQueue& queue, const cl::Buffer& input, std::uint64_t first,
                        const Shape& shape, const std::vector<int>& axes, const cl::Buffer& result,
                        std::uint64_t result_index, const std::vector<cl::Event>& wait = {},
                        std::vector<cl::Event>* events = nullptr, std::uint64_t index_base = 0);

    /// Enqueues the reduction of an array of accumulators (`partials`, as the enqueued calls
    /// write them, accumulator_size() bytes each, from number `first` on) of `shape` along
    /// `axes`, writing accumulators as enqueue_reduce_axes does: partial arrays combined, e.g.
    /// those of the chunks of a long leading axis, reduced one after another with
    /// `index_base` the index of each chunk's first row (argmin's and argmax's indices then
    /// count along the whole axis).
    cl::Event enqueue_combine_axes(const cl::CommandQueue& queue, const cl::Buffer& partials,
                                   std::uint64_t first, const Shape& shape,
                                   const std::vector<int>& axes, const cl::Buffer& result,
                                   std::uint64_t result_index,
                                   const std::vector<cl::Event>& wait = {},
                                   std::vector<cl::Event>* events = nullptr);

    /// Blocking: the same, the results read back.
    SegmentedResult reduce_axes(const cl::CommandQueue& queue, const cl::Buffer& input,
                                std::uint64_t first, const Shape& shape,
                                const std::vector<int>& axes);

    /// Enqueues the reduction of `segments` segments of the `count` values of `input` from
    /// `first` on: segment s is values offsets[s] ... offsets[s + 1] - 1 of them, where
    /// `offsets` holds segments + 1 non-decreasing cl_ulong, the last at most `count` (the
    /// kernel trusts them). Writes `segments` accumulators to `result` from `result_index` on.
    /// Returns (and `launch`, if given, gets) the last launch's event: few long segments are
    /// cut in chunks, whose partials a second launch reduces.
    cl::Event enqueue_reduce_segments(const cl::CommandQueue& queue, const cl::Buffer& input,
                                      std::uint64_t first, std::uint64_t count,
                                      const cl::Buffer& offsets, std::uint64_t segments,
                                      const cl::Buffer& result, std::uint64_t result_index,
                                      const std::vector<cl::Event>& wait = {},
                                      cl::Event* launch = nullptr);

    /// Blocking: the same, the results read back.
    SegmentedResult reduce_segments(const cl::CommandQueue& queue, const cl::Buffer& input,
                                    std::uint64_t first, std::uint64_t count,
                                    const cl::Buffer& offsets, std::uint64_t segments);

    /// Blocking: the `shape.values()` results an enqueued call wrote to `results` (from the
    /// first on), read back once `queue` has finished, with `events`' device times.
    SegmentedResult read_results(const cl::CommandQueue& queue, const cl::Buffer& results,
                                 Shape shape, const std::vector<cl::Event>& events) const;

    /// Appends `count` results, as an enqueued call wrote them (accumulator_size() bytes
    /// each), to `into`'s values and, for argmin and argmax, its indices.
    void append_results(SegmentedResult& into, const void* bytes, std::uint64_t count) const;

private:
    /// What a launch reads: values of the recipe's type, or accumulators (`partials`), from
    /// number `first` of `buffer` on, their indices counted from `index_base`.
    struct Source {
        cl::Buffer buffer;
        std::uint64_t first = 0;
        bool partials = false;
        std::uint64_t index_base = 0;
    };
    cl::Event enqueue_axes(const cl::CommandQueue& queue, const Source& input, const Shape& shape,
                           const std::vector<int>& axes, const cl::Buffer& result,
                           std::uint64_t result_index, const std::vector<cl::Event>& wait,
                           std::vector<cl::Event>* events);
    /// Enqueues the launches of one step (axis_steps()), after `wait`, reading `in`, and
    /// appends their events to `launched`.
    void enqueue_step(const cl::CommandQueue& queue, const AxisLayout& layout, const Source& in,
                      const cl::Buffer& out, std::uint64_t first_out,
                      const std::vector<cl::Event>& wait, std::vector<cl::Event>& launched);
    /// Enqueues the first step (`layout`) of a map along axes apart, a launch or two for each
    /// of `groups`, each group's values' i counted from its index base.
    void enqueue_map_step(const cl::CommandQueue& queue, const StepGroups& groups,
                          const AxisLayout& layout, const Source& in, const cl::Buffer& out,
                          const std::vector<cl::Event>& wait, std::vector<cl::Event>& launched);
    /// enqueue_reduce_segments, every launch's event appended to `launched`.
    void enqueue_segments(const cl::CommandQueue& queue, const cl::Buffer& input,
                          std::uint64_t first, std::uint64_t count, const cl::Buffer& offsets,
                          std::uint64_t segments, const cl::Buffer& result,
                          std::uint64_t result_index, const std::vector<cl::Event>& wait,
                          std::vector<cl::Event>& launched);
    /// Enqueues `passes` (one, or a split's two through partials_), reading `in` (CSR: from
    /// `offsets`), and appends their events to `launched`.
    void enqueue_passes(const cl::CommandQueue& queue, const std::vector<SegmentPass>& passes,
                        const Source& in, const cl::Buffer* offsets, const cl::Buffer& out,
                        std::uint64_t first_out, const std::vector<cl::Event>& wait,
                        std::vector<cl::Event>& launched);
    void enqueue_pass(const cl::CommandQueue& queue, const SegmentPass& pass, const Source& in,
                      const cl::Buffer* offsets, const cl::Buffer& out, std::uint64_t first_out,
                      const std::vector<cl::Event>& wait, cl::Event& event);
    void require_holds(const cl::Buffer& buffer, std::uint64_t first, std::uint64_t count,
                       std::size_t size, const char* what) const;

    cl::Context context_;
    cl::Device device_;
    std::unique_ptr<const DeviceReport> report_;
    std::unique_ptr<Policy> policy_;
    std::unique_ptr<const SegmentDevice> device_shape_;
    struct Kernels {
        cl::Kernel rows;
        cl::Kernel columns;
        cl::Kernel rows_batched; // narrow rows and columns, several tiles at once
        cl::Kernel columns_batched;
        cl::Kernel column_strips; // few rows of many columns, a strip of columns a work-item
        cl::Kernel column_runs;   // CPUs only (REDUCE_CONTIGUOUS)
        cl::Kernel vector_rows;   // narrow rows read as vectors; not for argmin's, argmax's values
        cl::Kernel vector_row_runs; // ... on CPUs only (REDUCE_CONTIGUOUS)
    };
    Kernels values_kernels_;   // read the input's values
    Kernels partials_kernels_; // read partials (accumulators)
    cl::Buffer partials_;
    std::uint64_t partials_capacity_ = 0;
};

} // namespace clreduce
