// clreduce-mpi: each MPI rank reduces its slice of the input on its own device through
// clreduce's engine, and MPI combines the ranks' results on rank 0, which reports.
//
// The flow: parse clreduce's options (refusing those of one process only), open the input,
// check that every rank asks for the same run (fingerprint.hpp), pick this rank's device by
// its node-local rank, make or map the slice and build the reducer (slice.cpp, the
// one place that calls the engine's reduction), reduce it, combine the results with
// MPI_Reduce (a user's op: gathered and combined on rank 0's device), check every slice against
// its reference and the combination against the combined references (a user's op: against the
// whole input's, in index order on rank 0's device), and print the report on rank 0. Every stage
// that may fail on some ranks ends in an agreement (agree.hpp), so that all ranks fail together.

#include "agree.hpp"
#include "axes_ranks.hpp"
#include "combine.hpp"
#include "exact_ranks.hpp"
#include "fingerprint.hpp"
#include "place.hpp"
#include "rank_report.hpp"
#include "slice.hpp"
#include "tool/devices.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/options.hpp"
#include "tool/partition.hpp"
#include "tool/recipe.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <mpi.h>
#include <optional>
#include <string>

using namespace clreduce;
using namespace clreduce::mpi;

namespace {

constexpr const char* mpi_help =
    "clreduce-mpi takes the options above, run under mpirun: -l is the total length, split "
    "across the ranks; --axis splits the array's blocks among them, or a reduced leading axis's "
    "rows, once (no --iterations); -d names the devices each node's ranks take in turn by "
    "node-local rank "
    "(-d all: one rank per device). Refused: --list, --sweep, --csv, --host-input, --chunk, "
    "--max-buffer, --no-check (every slice and the combination are always checked).\n";

/// Options that only mean something in one process, or that clreduce-mpi does not act on, are
/// refused, never ignored.
void refuse_options_it_lacks(const Options& options) {
    const auto refuse = [](const std::string& what) {
        throw Failure(ExitCode::usage, what + " is clreduce's alone: clreduce-mpi refuses it");
    };
    if (options.mode == Mode::list)
        refuse("--list");
    if (options.mode == Mode::sweep)
        refuse("--sweep");
    if (options.host_input)
        refuse("--host-input");
    if (options.max_buffer != 0)
        refuse("--max-buffer");
    if (!options.check) // rank 0's check of the combination rests on every slice's reference
        throw Failure(ExitCode::usage,
                      "--no-check: clreduce-mpi checks every slice and the combination, always");
}

/// This rank's index among the ranks of its node (a collective: called outside the stages,
/// which a failed rank leaves early).
int node_local_rank() {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    return node_rank;
}

/// This rank's figures and checked result, for rank 0's report.
void fill_row(RankRow& row, const SliceReducer& slice, std::size_t uncounted, RankSlice part) {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_length = 0;
    MPI_Get_processor_name(host, &host_length);
    set_text(row.host, host);
    row.first = part.first;
    row.length = part.length;
    row.span_us_median = summarize(slice.span_us(uncounted)).median;
    const auto check = slice.check(uncounted);
    set_value(row.result, check.result);
    set_value(row.reference, check.reference);
    row.result_index = check.result_index.value_or(0);
    row.reference_index = check.reference_index.value_or(0);
    row.check = static_cast<int>(check.check);
    row.tolerance = check.tolerance;
    row.valid = check.valid;
    set_text(row.setup, slice.setup());
}

/// Rank 0: the combined check (against `whole_reference`, the whole input's, where given) and the
/// report; a wrong result throws
/// Failure(ExitCode::wrong_result) once the report is out, as in clreduce.
void report_on_root(std::ostream& out, const Options& options, const std::vector<RankRow>& rows,
                    const Combiner& combiner, const Timing& timing, const Reduction& result,
                    const std::optional<Scalar>& whole_reference) {
    const auto origin = options.input ? Origin::given : Origin::drawn;
    const auto check =
        check_combined(accumulator_of(options), options.op, origin, rows, result, whole_reference);
    const auto print = options.format == Format::json ? print_json : print_text;
    print(out, options, rows, combiner.call(), timing, result, check);
    require_written(out);
    if (!check.wrong_ranks.empty())
        throw Failure(ExitCode::wrong_result, "rank " + std::to_string(check.wrong_ranks.front()) +
                                                  "'s slice differs from its host reference");
    if (!check.valid)
        throw Failure(ExitCode::wrong_result,
                      "the combined result " + to_string(result.value) +
                          (result.index ? " at index " + std::to_string(*result.index) : "") +
                          " differs from the combined host references " +
                          to_string(check.reference));
}

bool asked_for_help(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h")
            return true;
    return false;
}

/// Ends every rank with a usage error when the ranks' options or inputs differ; rank 0 prints
/// the one line that names the first difference (a collective).
void require_same_run(const Options& options, const std::optional<InputFile>& file, int rank) {
    const auto mine = fingerprint(options, file ? std::filesystem::file_size(*options.input) : 0,
                                  file ? file->values().length : 0);
    const auto difference = disagreement(gather_fingerprints(mine, MPI_COMM_WORLD));
    if (!difference)
        return;
    if (rank == 0)
        std::cerr << "clreduce-mpi: error: ranks disagree: " << *difference << std::endl;
    throw AgreedFailure{static_cast<int>(ExitCode::usage)};
}

double microseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
        .count();
}

/// The story on every rank; rank 0 prints to `out`. Returns the exit code all ranks share.
int reduce_across_ranks(int argc, char* argv[], std::ostream& out) {
    const Agreement agree(MPI_COMM_WORLD);
    const auto world = place_in(MPI_COMM_WORLD);
    const auto node_rank = node_local_rank();

    std::optional<Options> options;
    agree.stage([&] {
        options = parse_options(argc, argv);
        if (options)
            refuse_options_it_lacks(*options);
    });
    if (!options) { // --help or --version, answered
        if (world.rank == 0 && asked_for_help(argc, argv))
            out << mpi_help;
        return 0;
    }

    std::optional<InputFile> file;
    agree.stage([&] { file = open_input(*options); }); // maps it: only the slice's pages are read
    require_same_run(*options, file, world.rank);
    if (!options->axes.empty())
        return axes_across_ranks(*options, file, agree, node_rank, out);
    if (options->exact)
        return exact_across_ranks(*options, file, agree, node_rank, out);

    std::optional<SliceReducer> slice;
    const auto part = [&] { return slice_of(options->length, world.ranks, world.rank); };
    RankRow row;
    agree.stage([&] {
        const auto device = device_of_rank(options->triplet, node_rank);
        slice.emplace(device, *options, file ? std::optional(file->values()) : std::nullopt,
                      part());
        set_text(row.device, device.device.getInfo<CL_DEVICE_NAME>());
        row.platform_index = device.platform_index;
        row.device_index = device.device_index;
    });

    const Combiner combiner(accumulator_of(*options), options->op);
    const std::size_t uncounted = options->cold ? 0 : 1;
    std::vector<double> combine_us;
    std::vector<double> whole_us;
    Reduction result;
    for (std::size_t run = 0; run < uncounted + options->iterations; ++run) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto started = std::chrono::steady_clock::now();
        Reduction mine;
        agree.stage([&] { mine = slice->reduce(); }); // also the barrier before the combine
        const auto combining = std::chrono::steady_clock::now();
        result = combiner.reduce_to_root(
            mine, MPI_COMM_WORLD, [&](const auto& results) { return slice->combine(results); });
        if (run >= uncounted) {
            combine_us.push_back(microseconds_since(combining));
            whole_us.push_back(microseconds_since(started));
        }
    }

    agree.stage([&] { fill_row(row, *slice, uncounted, part()); });
    const auto rows = gather_rows(row, MPI_COMM_WORLD);
    const Timing timing{summarize(combine_us), summarize(whole_us), options->iterations > 1};
    agree.stage([&] {
        if (world.rank != 0)
            return;
        // No host combines a user's op: rank 0 checks the whole input on its device instead.
        std::optional<Scalar> whole;
        if (options->op == Op::custom)
            whole = slice->whole_reference(*options,
                                           file ? std::optional(file->values()) : std::nullopt);
        report_on_root(out, *options, rows, combiner, timing, result, whole);
    });
    return 0;
}

} // namespace

int main(int argc, char* argv[]) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        std::cout.rdbuf(nullptr); // rank 0 alone answers --help and prints the report
    int code = 0;
    try {
        code = reduce_across_ranks(argc, argv, std::cout);
    } catch (const AgreedFailure& failure) {
        code = failure.code;
    } catch (...) {
        // Outside any agreed stage, the other ranks may be waiting in a collective: only
        // MPI_Abort ends them.
        code = exit_code_of([]() -> ExitCode { throw; }, std::cerr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    MPI_Finalize();
    return code;
}
