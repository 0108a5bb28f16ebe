#include "exact_ranks.hpp"

#include "clreduce/exact.hpp"
#include "clreduce/input.hpp"
#include "detail/capabilities.hpp"
#include "detail/reference.hpp"
#include "place.hpp"
#include "slice.hpp"
#include "tool/devices.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/partition.hpp"
#include "tool/recipe.hpp"

#include <mpi.h>
#include <optional>
#include <ostream>
#include <vector>

namespace clreduce::mpi {
namespace {

/// The values [slice.first, slice.first + slice.length) of the whole input: the file's, or
/// clreduce's random ones, which depend only on (seed, index).
ValuesView slice_values(const Options& options, const std::optional<InputFile>& file,
                        RankSlice slice, HostValues& drawn) {
    if (file)
        return file->values().part(slice.first, slice.length);
    drawn = random_slice(options, slice); // of a sum: --exact refuses other ops first
    return drawn;
}

/// This rank's accumulator row: its slice summed exactly on its device (none for an empty
/// slice, whose row is zero).
std::vector<cl_long> rank_row(const Options& options, const ValuesView& values, int node_rank) {
    ExactAccumulator sum(options.type);
    if (values.length > 0) {
        const auto device = device_of_rank(options.triplet, node_rank);
        const DeviceQueue queue(device.device);
        ExactSum exact_sum(queue.context, queue.device, options.type, options.work_group_size);
        const DeviceInput input(queue.context, queue.queue, values,
                                buffer_values(query_report(device.device), options.type, 0));
        sum.add(exact_sum.accumulate(queue.queue, input.prefix(values.length)));
    }
    return sum.row();
}

} // namespace

int exact_across_ranks(const Options& options, const std::optional<InputFile>& file,
                       const Agreement& agree, int node_rank, std::ostream& out) {
    const auto world = place_in(MPI_COMM_WORLD);
    HostValues drawn;
    std::vector<cl_long> row;
    agree.stage([&] {
        refuse_inexact_op(options);
        if (options.benchmark)
            throw Failure(ExitCode::usage, "clreduce-mpi --exact runs once: no --iterations");
        const auto values =
            slice_values(options, file, slice_of(options.length, world.ranks, world.rank), drawn);
        row = rank_row(options, values, node_rank);
    });
    std::vector<cl_long> rows(row.size());
    MPI_Reduce(row.data(), rows.data(), static_cast<int>(row.size()), MPI_INT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    agree.stage([&] {
        if (world.rank != 0)
            return;
        ExactAccumulator total(options.type);
        total.add_row(rows.data());
        const auto result = total.rounded();
        HostValues whole;
        const auto expected =
            exact_host_sum(slice_values(options, file, {0, options.length}, whole));
        const bool identical = same_bits(result, expected);
        if (options.format == Format::json)
            out << "{\"exact\": true, \"ranks\": " << world.ranks
                << ", \"length\": " << options.length << ", \"result\": \"" << to_string(result)
                << "\", \"expected\": \"" << to_string(expected)
                << "\", \"check\": \"identical\", \"valid\": " << (identical ? "true" : "false")
                << "}\n";
        else if (options.verbosity == Verbosity::quiet)
            out << to_string(result) << '\n';
        else
            out << "clreduce-mpi --exact: sum of " << options.length << ' ' << name_of(options.type)
                << " values over " << world.ranks
                << " ranks, their accumulator rows added with MPI_INT64_T, MPI_SUM\nresult "
                << to_string(result)
                << (identical ? " (identical to the host's exact sum, computed another way)\n"
                              : " (WRONG: the host's exact sum is " + to_string(expected) + ")\n");
        out.flush();
        if (!identical)
            throw Failure(ExitCode::wrong_result, "the combined exact sum " + to_string(result) +
                                                      " differs from the host's " +
                                                      to_string(expected));
    });
    return 0;
}

} // namespace clreduce::mpi
