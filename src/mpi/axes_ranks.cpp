#include "axes_ranks.hpp"

#include "clreduce/exact.hpp"
#include "clreduce/segmented.hpp"
#include "combine.hpp"
#include "detail/capabilities.hpp"
#include "detail/reference.hpp"
#include "partition.hpp"
#include "place.hpp"
#include "slice.hpp"
#include "tool/axis_results.hpp"
#include "tool/failure.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"

#include <climits>
#include <cstring>
#include <memory>
#include <mpi.h>
#include <ostream>
#include <vector>

namespace clreduce::mpi {
namespace {

/// What one rank reduces: the array `shape`, values `first` on of the whole, along `axes`.
/// Where the ranks split a reduced axis (`combined`), each part holds some of every result's
/// values, and the ranks' partial arrays combine element-wise; else its results are a
/// contiguous part of the whole result, gathered in rank order. A value's index (a map's i,
/// argmin's and argmax's) counts from `index_base` along the reduced axes, as one device's
/// does. Its `split` (blocks, rows, or slices of axis `split_axis`) are `begin` to `begin +
/// count`.
struct RankPart {
    bool combined = false;
    std::uint64_t first = 0;
    Shape shape;
    std::vector<int> axes;
    std::uint64_t index_base = 0;
    std::string split;
    int split_axis = -1;
    std::uint64_t begin = 0;
    std::uint64_t count = 0;
    std::uint64_t results() const { return axis_steps(shape, axes).back().results(); }
};

/// Along adjacent axes (one `layout`): with one block (a reduced leading axis) the ranks split
/// the rows, else the blocks.
RankPart part_of_layout(const AxisLayout& layout, int ranks, int rank) {
    RankPart part;
    part.combined = layout.blocks == 1;
    part.axes = {1};
    const auto positions = slice_of(part.combined ? layout.length : layout.blocks, ranks, rank);
    part.begin = positions.first;
    part.count = positions.length;
    if (part.combined) {
        part.split = "rows";
        part.first = positions.first * layout.inner;
        part.shape = Shape{{1, positions.length, layout.inner}, Order::c};
        part.index_base = positions.first;
    } else {
        part.split = "blocks";
        part.first = positions.first * layout.length * layout.inner;
        part.shape = Shape{{positions.length, layout.length, layout.inner}, Order::c};
    }
    return part;
}

/// Along axes apart in memory: the ranks split the positions of the outermost axis in memory,
/// so that each part is contiguous and has the whole array's axes. Where that axis is reduced,
/// a part's values of each result begin its positions times the values of the result's other
/// reduced axes on (their index counts the outermost axis first).
RankPart part_of_slab(const Shape& shape, const std::vector<int>& axes, int ranks, int rank) {
    const auto rank_of_shape = static_cast<int>(shape.extents.size());
    const int outer = shape.order == Order::c ? 0 : rank_of_shape - 1;
    const auto extent = shape.extents[outer];
    const auto positions = slice_of(extent, ranks, rank);
    RankPart part;
    part.shape = shape;
    part.shape.extents[outer] = positions.length;
    part.axes = axes;
    part.split = "slices";
    part.split_axis = outer;
    part.begin = positions.first;
    part.count = positions.length;
    part.first = extent == 0 ? 0 : positions.first * (shape.values() / extent);
    std::uint64_t others = 1; // values of a result along the reduced axes but the outermost
    for (const auto axis : axes) {
        const auto normal = axis < 0 ? axis + rank_of_shape : axis;
        part.combined = part.combined || normal == outer;
        others *= normal == outer ? 1 : shape.extents[normal];
    }
    part.index_base = part.combined ? positions.first * others : 0;
    return part;
}

RankPart part_of(const Shape& shape, const std::vector<int>& axes,
                 const std::vector<AxisLayout>& steps, int ranks, int rank) {
    return steps.size() == 1 ? part_of_layout(steps.front(), ranks, rank)
                             : part_of_slab(shape, axes, ranks, rank);
}

/// "rank 1: blocks 3 to 7" (or rows, or slices) for each rank, for the report.
std::string parts_text(const Shape& shape, const std::vector<int>& axes,
                       const std::vector<AxisLayout>& steps, int ranks) {
    std::string text;
    for (int rank = 0; rank < ranks; ++rank) {
        const auto part = part_of(shape, axes, steps, ranks, rank);
        text += "rank " + std::to_string(rank) + ": " + part.split + " " +
                std::to_string(part.begin) + " to " + std::to_string(part.begin + part.count) +
                "\n";
    }
    return text;
}

/// This rank's part's values: the file's, or clreduce's random values at their places in the
/// whole array, drawn into `drawn`.
ValuesView part_values(const Options& options, const std::optional<InputFile>& file,
                       const RankPart& part, HostValues& drawn) {
    const auto count = part.shape.values();
    if (file)
        return file->values().part(part.first, count);
    drawn = random_slice(options, {part.first, count});
    return ValuesView(drawn);
}

/// This rank's part reduced on its device: the reducer (which reads results back; none for
/// --exact) and the results' bytes, as the kernels write them.
struct PartResults {
    std::unique_ptr<SegmentedReducer> reducer;
    std::vector<unsigned char> bytes;
};

PartResults reduce_part(const SelectedDevice& device, const Options& options,
                        const std::optional<InputFile>& file, const RankPart& part) {
    const DeviceQueue queue(device.device);
    PartResults done;
    done.reducer = std::make_unique<SegmentedReducer>(
        queue.context, queue.device,
        recipe_for(options, query_report(device.device), Finish::passes));
    const auto count = part.shape.values();
    HostValues drawn;
    const auto values = part_values(options, file, part, drawn);
    const auto size = info(options.type).size;
    // OpenCL has no buffer of 0 bytes: an empty part takes one of a value.
    const cl::Buffer input(queue.context, CL_MEM_READ_ONLY,
                           std::max<std::uint64_t>(1, count) * size);
    if (count > 0)
        queue.queue.enqueueWriteBuffer(input, CL_TRUE, 0, count * size, values.data);
    const auto results = part.results();
    const auto result_size = done.reducer->accumulator_size();
    const cl::Buffer output(queue.context, CL_MEM_READ_WRITE,
                            std::max<std::uint64_t>(1, results) * result_size);
    done.reducer->enqueue_reduce_axes(queue.queue, input, 0, part.shape, part.axes, output, 0, {},
                                      nullptr, part.index_base);
    done.bytes.resize(results * result_size);
    if (results > 0)
        queue.queue.enqueueReadBuffer(output, CL_TRUE, 0, done.bytes.size(), done.bytes.data());
    return done;
}

/// --exact: this rank's part as each of its results' exact accumulator row
/// (ExactSum::enqueue_run_rows(), row_width() cl_long entries a result, as bytes), over the
/// values of each result gathered side by side first; no reducer. A result's rows from the
/// ranks that split its values add up to the whole result's row.
PartResults exact_rows_of_part(const SelectedDevice& device, const Options& options,
                               const std::optional<InputFile>& file, const RankPart& part) {
    const DeviceQueue queue(device.device);
    ExactSum exact_sum(queue.context, queue.device, options.type, options.work_group_size);
    HostValues drawn;
    const auto runs =
        gather_along_axes(part_values(options, file, part, drawn), part.shape, part.axes);
    const auto input = upload_runs(queue.context, runs, info(options.type).size);
    const auto rows = exact_sum.enqueue_run_rows(queue.queue, input, 0, runs.length, runs.results);
    PartResults done;
    done.bytes.resize(runs.results * ExactAccumulator::row_width(options.type) * sizeof(cl_long));
    if (!done.bytes.empty())
        queue.queue.enqueueReadBuffer(rows, CL_TRUE, 0, done.bytes.size(), done.bytes.data());
    return done;
}

/// The exact sums that `rows` (a row a result of the array `result_shape`, as
/// exact_rows_of_part() gives them, all ranks' added) hold, each rounded once on the host.
SegmentedResult rounded_rows(const Options& options, const Shape& result_shape,
                             const std::vector<unsigned char>& rows) {
    SegmentedResult result;
    result.shape = result_shape;
    std::vector<cl_long> row(ExactAccumulator::row_width(options.type));
    const auto row_bytes = row.size() * sizeof(cl_long);
    for (std::uint64_t k = 0; k < result_shape.values(); ++k) {
        std::memcpy(row.data(), rows.data() + k * row_bytes, row_bytes);
        ExactAccumulator sum(options.type);
        sum.add_row(row.data());
        result.values.push_back(sum.rounded());
    }
    return result;
}

/// A user's op has no host twin: the ranks' partial arrays (`ranks` x `inner` accumulators,
/// gathered in rank order) combined along their first axis on rank 0's device.
std::vector<unsigned char> combined_on_device(SegmentedReducer& reducer,
                                              std::vector<unsigned char> partials, int ranks,
                                              std::uint64_t inner) {
    if (inner == 0)
        return {};
    const cl::CommandQueue queue(reducer.context(), reducer.device());
    const cl::Buffer gathered(reducer.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              partials.size(), partials.data());
    std::vector<unsigned char> combined(inner * reducer.accumulator_size());
    const cl::Buffer results(reducer.context(), CL_MEM_WRITE_ONLY, combined.size());
    reducer.enqueue_combine_axes(queue, gathered, 0,
                                 Shape{{static_cast<std::uint64_t>(ranks), inner}, Order::c}, {0},
                                 results, 0);
    queue.enqueueReadBuffer(results, CL_TRUE, 0, combined.size(), combined.data());
    return combined;
}

/// The report: how the ranks split the array (rank 0's `part` names what) and combined their
/// results, each rank's positions (`parts`), then the result array.
void print_report(std::ostream& out, const Options& options, const RankPart& part,
                  const std::string& parts, int ranks, const Combiner& combiner,
                  const SegmentedResult& result) {
    if (options.format == Format::json) {
        std::string shape;
        for (const auto extent : result.shape.extents)
            shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
        out << "{\"shape\": [" << shape
            << "], \"output\": " << (options.output.empty() ? "null" : json_string(options.output))
            << ", \"check\": \"passed\", \"ranks\": " << ranks
            << ", \"split\": " << json_string(part.split)
            << ", \"combine\": " << json_string(part.combined ? combiner.description() : "gather")
            << "}\n";
        return;
    }
    const auto how = part.combined ? "the ranks' arrays combined with " + combiner.call()
                                   : std::string("gathered with MPI_Gatherv");
    if (options.verbosity != Verbosity::quiet)
        out << "clreduce-mpi --axis: " << name_of(options.op) << " of " << name_of(options.type)
            << " over " << ranks << " ranks, the " << part.split
            << (part.split_axis < 0 ? "" : " of axis " + std::to_string(part.split_axis))
            << " split, " << how << "\n"
            << parts << "shape " << shape_text(result.shape.extents) << "\n";
    print_results(out, options, result);
    if (options.verbosity != Verbosity::quiet)
        out << "every result matches the host reference\n";
}

} // namespace

int axes_across_ranks(const Options& options, const std::optional<InputFile>& file,
                      const Agreement& agree, int node_rank, std::ostream& out) {
    const auto world = place_in(MPI_COMM_WORLD);
    Shape shape;
    std::vector<AxisLayout> steps;
    RankPart part;
    PartResults mine;
    cl::Device device;
    agree.stage([&] {
        if (options.benchmark)
            throw Failure(ExitCode::usage, "clreduce-mpi --axis runs once: no --iterations");
        if (options.exact)
            refuse_inexact_op(options);
        shape = array_shape(options, file ? std::optional(file->shape()) : std::nullopt);
        steps = steps_of(shape, options, file.has_value());
        part = part_of(shape, options.axes, steps, world.ranks, world.rank);
        const auto entries =
            part.results() * (options.exact ? ExactAccumulator::row_width(options.type) : 1);
        if (entries > INT_MAX)
            throw Failure(ExitCode::unsupported,
                          "clreduce-mpi --axis: " + std::to_string(part.results()) +
                              " results on one rank, more than MPI counts");
        const auto selected = device_of_rank(options.triplet, node_rank);
        device = selected.device;
        mine = options.exact ? exact_rows_of_part(selected, options, file, part)
                             : reduce_part(selected, options, file, part);
    });
    // --exact: the results' rows, which add up as integers (MPI_SUM) where the ranks' parts
    // combine; else the results as the kernels write them.
    const Combiner combiner(options.exact ? DataType::int64 : accumulator_of(options),
                            options.exact ? Op::sum : options.op);
    const auto count =
        static_cast<int>(options.exact ? mine.bytes.size() / sizeof(cl_long) : part.results());
    // The ranks' partial arrays combine element-wise: by MPI_Reduce with the op's host twin,
    // or for a user's op gathered and combined on rank 0's device.
    const bool on_device = options.op == Op::custom;
    std::vector<unsigned char> whole;
    if (part.combined && !on_device) {
        whole.resize(world.rank == 0 ? mine.bytes.size() : 0);
        combiner.reduce_to_root(mine.bytes.data(), whole.data(), count, MPI_COMM_WORLD);
    } else {
        whole = combiner.gather_to_root(mine.bytes.data(), count, MPI_COMM_WORLD);
    }
    agree.stage([&] {
        if (world.rank != 0)
            return;
        const auto& result_shape = steps.back().result;
        SegmentedResult result;
        if (options.exact) {
            result = rounded_rows(options, result_shape, whole);
        } else {
            if (part.combined && on_device)
                whole = combined_on_device(*mine.reducer, std::move(whole), world.ranks,
                                           result_shape.values());
            result.shape = result_shape;
            mine.reducer->append_results(result, whole.data(), result_shape.values());
        }
        const HostValues drawn = file ? HostValues{} : random_slice(options, {0, options.length});
        const ValuesView values = file ? file->values() : ValuesView(drawn);
        const auto values_per_result =
            shape.values() / std::max<std::uint64_t>(1, result_shape.values());
        refuse_wrong(options, result, axis_references_of(options, device, values, shape),
                     values_per_result, values.origin);
        if (!options.output.empty())
            write_npy(options.output, options, result);
        print_report(out, options, part, parts_text(shape, options.axes, steps, world.ranks),
                     world.ranks, combiner, result);
        out.flush();
    });
    return 0;
}

} // namespace clreduce::mpi
