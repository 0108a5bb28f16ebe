#include "axes_ranks.hpp"

#include "clreduce/exact.hpp"
#include "clreduce/segmented.hpp"
#include "combine.hpp"
#include "detail/capabilities.hpp"
#include "detail/reference.hpp"
#include "place.hpp"
#include "slice.hpp"
#include "tool/axis_parts.hpp"
#include "tool/axis_results.hpp"
#include "tool/failure.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"

#include <climits>
#include <memory>
#include <mpi.h>
#include <ostream>
#include <vector>

namespace clreduce::mpi {
namespace {

/// What one rank reduces, its part of the ranks' (axis_part()).
AxisPart part_of(const Shape& shape, const std::vector<int>& axes,
                 const std::vector<AxisLayout>& steps, int ranks, int rank) {
    return axis_part(shape, axes, steps, static_cast<std::uint64_t>(ranks),
                     static_cast<std::uint64_t>(rank));
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
                       const AxisPart& part, HostValues& drawn) {
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
                        const std::optional<InputFile>& file, const AxisPart& part) {
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
                               const std::optional<InputFile>& file, const AxisPart& part) {
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

/// The report: how the ranks split the array (rank 0's `part` names what) and combined their
/// results, each rank's positions (`parts`), then the result array.
void print_report(std::ostream& out, const Options& options, const AxisPart& part,
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
    AxisPart part;
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
    // or for a user's op, which has none, gathered and combined on rank 0's device.
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
            result = rounded_rows(options.type, result_shape, {whole});
        } else {
            if (part.combined && on_device)
                whole =
                    combined_on_device(*mine.reducer, whole, world.ranks, result_shape.values());
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
