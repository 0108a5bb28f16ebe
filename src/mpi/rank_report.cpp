#include "rank_report.hpp"

#include "detail/reference.hpp"
#include "place.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"

#include <cmath>
#include <cstring>
#include <ostream>
#include <variant>

namespace clreduce::mpi {
namespace {

Scalar combine_scalars(Op op, const Scalar& a, const Scalar& b) {
    return std::visit(
        [&](auto value) { return Scalar(combine(op, value, std::get<decltype(value)>(b))); }, a);
}

double as_double(const Scalar& value) {
    return std::visit([](auto x) { return static_cast<double>(x); }, value);
}

/// The tolerance of a floating-point sum combined from the ranks' partial sums: each rank's
/// own bound, plus the rounding of the P - 1 additions that combine the partials, on the
/// device's side and on the reference's (Higham's gamma_(P-1) times the partials' magnitudes).
double combined_tolerance(DataType type, const std::vector<RankRow>& rows) {
    double tolerance = 0;
    double magnitudes = 0;
    for (const auto& row : rows) {
        tolerance += row.tolerance;
        magnitudes += std::fabs(as_double(scalar_from_bytes(type, row.result))) +
                      std::fabs(as_double(scalar_from_bytes(type, row.reference)));
    }
    const double additions_u = static_cast<double>(rows.size() - 1) * info(type).unit_roundoff;
    return tolerance + additions_u / (1 - additions_u) * magnitudes;
}

/// A result as the report reads it: the value, and for argmin and argmax its index.
std::string with_index(Op op, const Scalar& value, std::optional<std::int64_t> index) {
    return result_text(op, value) + (index ? " at index " + std::to_string(*index) : "");
}

/// argmin's or argmax's pairs of the ranks' references, combined as the kernel combines them.
Reduction combined_pairs(DataType type, Op op, const std::vector<RankRow>& rows) {
    return visit_accumulator(type, [&](auto zero) {
        using A = decltype(zero);
        auto pair = indexed_identity<A>(op);
        for (const auto& row : rows)
            pair = combine_indexed<A>(
                op, pair,
                {std::get<A>(scalar_from_bytes(type, row.reference)), row.reference_index});
        Reduction combined;
        combined.value = pair.value;
        combined.index = pair.index;
        return combined;
    });
}

std::string verdict(Op op, const CombinedCheck& check) {
    const auto expected = with_index(op, check.reference, check.reference_index);
    if (check.check == Check::unchecked)
        return " (not checked: a rank's slice was not; " + check.reference_name + " give " +
               expected + ")";
    const auto how = check.check == Check::exact ? std::string(" exactly")
                                                 : " within " + to_string(check.tolerance);
    if (!check.valid)
        return " (" + check.reference_name + " give " + expected + ")";
    return " (matches " + check.reference_name + how + ")";
}

std::string timing_text(const Statistic& us, bool repeated) {
    return repeated ? "min " + fixed(us.min) + " us, median " + fixed(us.median) + " us"
                    : fixed(us.median) + " us";
}

/// Whether two ranks of one host share a device: more ranks than devices there.
bool devices_shared(const std::vector<RankRow>& rows) {
    for (std::size_t a = 0; a < rows.size(); ++a)
        for (std::size_t b = a + 1; b < rows.size(); ++b)
            if (std::string(rows[a].host) == rows[b].host &&
                rows[a].platform_index == rows[b].platform_index &&
                rows[a].device_index == rows[b].device_index)
                return true;
    return false;
}

void print_row(std::ostream& out, std::size_t rank, const RankRow& row, bool verbose) {
    out << "rank " << rank << "   " << row.host << ", " << row.device << " (-p "
        << row.platform_index << " -d " << row.device_index << ")";
    if (row.length == 0) {
        out << ": no values, contributes the identity\n";
        return;
    }
    out << ": values " << row.first << " to " << row.first + row.length - 1 << " (" << row.length
        << "), device span " << fixed(row.span_us_median) << " us"
        << (row.valid ? "" : ", DIFFERS from its host reference") << '\n';
    if (verbose)
        out << "         " << row.setup << '\n';
}

} // namespace

void set_value(unsigned char (&field)[8], const Scalar& value) {
    std::visit([&](const auto& held) { std::memcpy(field, &held, sizeof held); }, value);
}

std::vector<RankRow> gather_rows(const RankRow& mine, MPI_Comm comm) {
    const auto [rank, ranks] = place_in(comm);
    std::vector<RankRow> rows(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, rows.data(), sizeof mine, MPI_BYTE, 0, comm);
    return rows;
}

CombinedCheck check_combined(DataType type, Op op, Origin origin, const std::vector<RankRow>& rows,
                             const Reduction& device,
                             const std::optional<Scalar>& whole_reference) {
    const auto& result = device.value;
    CombinedCheck combined;
    combined.reference = whole_reference.value_or(scalar_from_bytes(type, rows.front().reference));
    if (whole_reference)
        combined.reference_name = "the whole input's reference, in index order on rank 0's device";
    if (info(op).indexed) {
        const auto pairs = combined_pairs(type, op, rows);
        combined.reference = pairs.value;
        combined.reference_index = pairs.index;
    }
    bool exact = true;
    for (std::size_t rank = 0; rank < rows.size(); ++rank) {
        const auto& row = rows[rank];
        if (rank > 0 && !info(op).indexed && !whole_reference)
            combined.reference =
                combine_scalars(op, combined.reference, scalar_from_bytes(type, row.reference));
        if (!row.valid)
            combined.wrong_ranks.push_back(static_cast<int>(rank));
        if (static_cast<Check>(row.check) == Check::unchecked)
            combined.check = Check::unchecked;
        exact = exact && static_cast<Check>(row.check) == Check::exact;
    }
    // clreduce's random sums stay exact in any order (docs/validation.md, "Floating point"), and so
    // does a sum reaching NaN or an infinity; other floating-point sums round as they combine.
    const bool rounds = info(type).floating() && info(op).rounding != Rounding::none &&
                        (origin == Origin::given || !exact) &&
                        std::isfinite(as_double(combined.reference));
    if (combined.check != Check::unchecked && rounds) {
        combined.check = Check::bound;
        combined.tolerance = combined_tolerance(type, rows);
    }
    const bool matches =
        combined.check == Check::bound
            ? std::fabs(as_double(result) - as_double(combined.reference)) <= combined.tolerance
            : combined.check == Check::unchecked || same_value(result, combined.reference);
    combined.valid =
        matches && device.index == combined.reference_index && combined.wrong_ranks.empty();
    return combined;
}

void print_text(std::ostream& out, const Options& options, const std::vector<RankRow>& rows,
                const std::string& combine, const Timing& timing, const Reduction& result,
                const CombinedCheck& check) {
    if (options.verbosity == Verbosity::quiet) { // argmin's and argmax's index, as np.argmax's
        out << (result.index ? std::to_string(*result.index)
                             : result_text(options.op, result.value))
            << '\n';
        return;
    }
    out << "clreduce-mpi " << CLREDUCE_VERSION << ": " << name_of(options.op) << " of "
        << options.length << " " << name_of(options.type) << " values "
        << (options.input ? "from " + *options.input
                          : "(seed " + std::to_string(options.seed) + ")")
        << " over " << rows.size() << " ranks\n";
    for (std::size_t rank = 0; rank < rows.size(); ++rank)
        print_row(out, rank, rows[rank], options.verbosity == Verbosity::verbose);
    if (devices_shared(rows))
        out << "note     more ranks than devices on a host: they share them, round-robin by "
               "node-local rank\n";
    // A user's op names rank 0 itself: "MPI_Gather to rank 0 of ..., combined there ...".
    out << "combine  " << timing_text(timing.combine_us, timing.repeated) << ", " << combine
        << (options.op == Op::custom ? "\n" : " to rank 0\n") << "whole    "
        << timing_text(timing.whole_us, timing.repeated)
        << ", from a barrier to the combined result on rank 0\n"
        << "result   " << with_index(options.op, result.value, result.index)
        << verdict(options.op, check) << '\n';
}

void print_json(std::ostream& out, const Options& options, const std::vector<RankRow>& rows,
                const std::string& combine, const Timing& timing, const Reduction& result,
                const CombinedCheck& check) {
    const auto accumulator = accumulator_of(options);
    const bool indexed = info(options.op).indexed;
    out << "{\"clreduce_version\": " << json_string(CLREDUCE_VERSION)
        << ", \"ranks\": " << rows.size() << ", \"op\": " << json_string(name_of(options.op))
        << ", \"type\": " << json_string(name_of(options.type))
        << ", \"length\": " << options.length
        << ", \"accumulator\": " << json_string(name_of(accumulator))
        << ", \"seed\": " << (options.input ? "null" : std::to_string(options.seed))
        << ", \"input\": " << (options.input ? json_string(*options.input) : "null")
        << ", \"per_rank\": [";
    for (std::size_t rank = 0; rank < rows.size(); ++rank) {
        const auto& row = rows[rank];
        out << (rank ? ", " : "") << "{\"rank\": " << rank
            << ", \"host\": " << json_string(row.host)
            << ", \"device\": " << json_string(row.device)
            << ", \"platform_index\": " << row.platform_index
            << ", \"device_index\": " << row.device_index << ", \"first\": " << row.first
            << ", \"length\": " << row.length
            << ", \"span_us_median\": " << fixed(row.span_us_median) << ", \"result\": "
            << json_string(result_text(options.op, scalar_from_bytes(accumulator, row.result)))
            << ", \"reference\": "
            << json_string(result_text(options.op, scalar_from_bytes(accumulator, row.reference)));
        if (indexed)
            out << ", \"index\": " << row.result_index
                << ", \"reference_index\": " << row.reference_index;
        out << ", \"check\": " << json_string(name_of(static_cast<Check>(row.check)))
            << ", \"valid\": " << (row.valid ? "true" : "false") << "}";
    }
    out << "], \"combine\": " << json_string(combine)
        << ", \"combine_us_min\": " << fixed(timing.combine_us.min)
        << ", \"combine_us_median\": " << fixed(timing.combine_us.median)
        << ", \"whole_us_min\": " << fixed(timing.whole_us.min)
        << ", \"whole_us_median\": " << fixed(timing.whole_us.median)
        << ", \"result\": " << json_string(result_text(options.op, result.value))
        << ", \"reference\": " << json_string(result_text(options.op, check.reference));
    if (indexed)
        out << ", \"index\": " << *result.index
            << ", \"reference_index\": " << *check.reference_index;
    out << ", \"check\": " << json_string(name_of(check.check))
        << ", \"bound\": " << to_string(check.tolerance)
        << ", \"valid\": " << (check.valid ? "true" : "false") << "}\n";
}

} // namespace clreduce::mpi
