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

/// What one rank reduces: `blocks` x `rows` x layout.inner values of the whole array from
/// value `first` on, along its rows. With one block (a reduced leading axis) the ranks split
/// the rows, each starting at row `first_row`; else they split the blocks.
struct RankPart {
    bool split_rows = false;
    std::uint64_t first = 0;
    std::uint64_t blocks = 0;
    std::uint64_t rows = 0;
    std::uint64_t first_row = 0;
    std::uint64_t results(const AxisLayout& layout) const { return blocks * layout.inner; }
};

RankPart part_of(const AxisLayout& layout, int ranks, int rank) {
    RankPart part;
    part.split_rows = layout.blocks == 1;
    if (part.split_rows) {
        const auto rows = slice_of(layout.length, ranks, rank);
        part.first = rows.first * layout.inner;
        part.blocks = 1;
        part.rows = rows.length;
        part.first_row = rows.first;
    } else {
        const auto blocks = slice_of(layout.blocks, ranks, rank);
        part.first = blocks.first * layout.length * layout.inner;
        part.blocks = blocks.length;
        part.rows = layout.length;
    }
    return part;
}

/// "blocks 3 to 7" or "rows 100 to 150" of each rank, for the text report.
std::string parts_text(const AxisLayout& layout, int ranks) {
    std::string text;
    for (int rank = 0; rank < ranks; ++rank) {
        const auto part = part_of(layout, ranks, rank);
        const auto begin =
            part.split_rows ? part.first_row : part.first / (layout.length * layout.inner);
        const auto count = part.split_rows ? part.rows : part.blocks;
        text += "rank " + std::to_string(rank) + ": " + (part.split_rows ? "rows " : "blocks ") +
                std::to_string(begin) + " to " + std::to_string(begin + count) + "\n";
    }
    return text;
}

/// This rank's part's values: the file's, or clreduce's random values at their places in the
/// whole array, drawn into `drawn`.
ValuesView part_values(const Options& options, const std::optional<InputFile>& file,
                       const AxisLayout& layout, const RankPart& part, HostValues& drawn) {
    const auto count = part.blocks * part.rows * layout.inner;
    if (file)
        return file->values().part(part.first, count);
    drawn = random_slice(options, {part.first, count});
    return ValuesView(drawn);
}

/// The shape of this rank's part: its blocks, its rows, and the values of a row.
Shape part_shape(const AxisLayout& layout, const RankPart& part) {
    return Shape{{part.blocks, part.rows, layout.inner}, Order::c};
}

/// This rank's part reduced on its device: the reducer (which reads results back; none for
/// --exact) and the results' bytes, as the kernels write them. With the rows split, a value's index
/// (a map's i, argmin's and argmax's) counts from the part's first row in the whole axis, as one
/// device's does.
struct PartResults {
    std::unique_ptr<SegmentedReducer> reducer;
    std::vector<unsigned char> bytes;
};

PartResults reduce_part(const SelectedDevice& device, const Options& options,
                        const std::optional<InputFile>& file, const AxisLayout& layout,
                        const RankPart& part) {
    const DeviceQueue queue(device.device);
    PartResults done;
    done.reducer = std::make_unique<SegmentedReducer>(
        queue.context, queue.device,
        recipe_for(options, query_report(device.device), Finish::passes));
    const auto count = part.blocks * part.rows * layout.inner;
    HostValues drawn;
    const auto values = part_values(options, file, layout, part, drawn);
    const auto size = info(options.type).size;
    // OpenCL has no buffer of 0 bytes: an empty part takes one of a value.
    const cl::Buffer input(queue.context, CL_MEM_READ_ONLY,
                           std::max<std::uint64_t>(1, count) * size);
    if (count > 0)
        queue.queue.enqueueWriteBuffer(input, CL_TRUE, 0, count * size, values.data);
    const auto results = part.results(layout);
    const auto result_size = done.reducer->accumulator_size();
    const cl::Buffer output(queue.context, CL_MEM_READ_WRITE,
                            std::max<std::uint64_t>(1, results) * result_size);
    done.reducer->enqueue_reduce_axes(queue.queue, input, 0, part_shape(layout, part), {1}, output,
                                      0, {}, nullptr, part.split_rows ? part.first_row : 0);
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
                               const std::optional<InputFile>& file, const AxisLayout& layout,
                               const RankPart& part) {
    const DeviceQueue queue(device.device);
    ExactSum exact_sum(queue.context, queue.device, options.type, options.work_group_size);
    HostValues drawn;
    const auto runs = gather_along_axes(part_values(options, file, layout, part, drawn),
                                        part_shape(layout, part), {1});
    const auto input = upload_runs(queue.context, runs, info(options.type).size);
    const auto rows = exact_sum.enqueue_run_rows(queue.queue, input, 0, runs.length, runs.results);
    PartResults done;
    done.bytes.resize(runs.results * ExactAccumulator::row_width(options.type) * sizeof(cl_long));
    if (!done.bytes.empty())
        queue.queue.enqueueReadBuffer(rows, CL_TRUE, 0, done.bytes.size(), done.bytes.data());
    return done;
}

/// The exact sums that `rows` (a row a result, as exact_rows_of_part() gives them, all ranks'
/// added) hold, each rounded once on the host.
SegmentedResult rounded_rows(const Options& options, const AxisLayout& layout,
                             const std::vector<unsigned char>& rows) {
    SegmentedResult result;
    result.shape = layout.result;
    std::vector<cl_long> row(ExactAccumulator::row_width(options.type));
    const auto row_bytes = row.size() * sizeof(cl_long);
    for (std::uint64_t k = 0; k < layout.results(); ++k) {
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

void print_report(std::ostream& out, const Options& options, const AxisLayout& layout, int ranks,
                  const Combiner& combiner, const SegmentedResult& result) {
    const bool split_rows = layout.blocks == 1;
    std::string how = "the blocks split, gathered with MPI_Gatherv";
    if (split_rows)
        how = "the reduced rows split, the ranks' arrays combined with " + combiner.call();
    if (options.format == Format::json) {
        std::string shape;
        for (const auto extent : result.shape.extents)
            shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
        out << "{\"shape\": [" << shape
            << "], \"output\": " << (options.output.empty() ? "null" : json_string(options.output))
            << ", \"check\": \"passed\", \"ranks\": " << ranks
            << ", \"split\": " << json_string(split_rows ? "rows" : "blocks")
            << ", \"combine\": " << json_string(split_rows ? combiner.description() : "gather")
            << "}\n";
        return;
    }
    if (options.verbosity != Verbosity::quiet)
        out << "clreduce-mpi --axis: " << name_of(options.op) << " of " << name_of(options.type)
            << " over " << ranks << " ranks, " << how << "\n"
            << parts_text(layout, ranks) << "shape " << shape_text(result.shape.extents) << "\n";
    print_results(out, options, result);
    if (options.verbosity != Verbosity::quiet)
        out << "every result matches the host reference\n";
}

} // namespace

int axes_across_ranks(const Options& options, const std::optional<InputFile>& file,
                      const Agreement& agree, int node_rank, std::ostream& out) {
    const auto world = place_in(MPI_COMM_WORLD);
    Shape shape;
    AxisLayout layout;
    RankPart part;
    PartResults mine;
    cl::Device device;
    agree.stage([&] {
        if (options.benchmark)
            throw Failure(ExitCode::usage, "clreduce-mpi --axis runs once: no --iterations");
        if (options.exact)
            refuse_inexact_op(options);
        shape = array_shape(options, file ? std::optional(file->shape()) : std::nullopt);
        layout = layout_of(shape, options, file.has_value());
        part = part_of(layout, world.ranks, world.rank);
        const auto entries =
            part.results(layout) * (options.exact ? ExactAccumulator::row_width(options.type) : 1);
        if (entries > INT_MAX)
            throw Failure(ExitCode::unsupported,
                          "clreduce-mpi --axis: " + std::to_string(part.results(layout)) +
                              " results on one rank, more than MPI counts");
        const auto selected = device_of_rank(options.triplet, node_rank);
        device = selected.device;
        mine = options.exact ? exact_rows_of_part(selected, options, file, layout, part)
                             : reduce_part(selected, options, file, layout, part);
    });
    // --exact: the results' rows, which add up as integers (MPI_SUM) where the ranks split the
    // rows; else the results as the kernels write them.
    const Combiner combiner(options.exact ? DataType::int64 : accumulator_of(options),
                            options.exact ? Op::sum : options.op);
    const auto count = static_cast<int>(options.exact ? mine.bytes.size() / sizeof(cl_long)
                                                      : part.results(layout));
    // The rows split, the ranks' partial arrays combine element-wise: by MPI_Reduce with the
    // op's host twin, or for a user's op gathered and combined on rank 0's device.
    const bool on_device = options.op == Op::custom;
    std::vector<unsigned char> whole;
    if (part.split_rows && !on_device) {
        whole.resize(world.rank == 0 ? mine.bytes.size() : 0);
        combiner.reduce_to_root(mine.bytes.data(), whole.data(), count, MPI_COMM_WORLD);
    } else {
        whole = combiner.gather_to_root(mine.bytes.data(), count, MPI_COMM_WORLD);
    }
    agree.stage([&] {
        if (world.rank != 0)
            return;
        SegmentedResult result;
        if (options.exact) {
            result = rounded_rows(options, layout, whole);
        } else {
            if (part.split_rows && on_device)
                whole =
                    combined_on_device(*mine.reducer, std::move(whole), world.ranks, layout.inner);
            result.shape = layout.result;
            mine.reducer->append_results(result, whole.data(), layout.results());
        }
        const HostValues drawn = file ? HostValues{} : random_slice(options, {0, options.length});
        const ValuesView values = file ? file->values() : ValuesView(drawn);
        refuse_wrong(options, result, axis_references_of(options, device, values, shape),
                     layout.length, values.origin);
        if (!options.output.empty())
            write_npy(options.output, options, result);
        print_report(out, options, layout, world.ranks, combiner, result);
        out.flush();
    });
    return 0;
}

} // namespace clreduce::mpi
