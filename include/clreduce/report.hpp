#pragma once
// Printing what was measured: the text report, one JSON object, or the sweep's table/CSV.

#include "clreduce/devices.hpp"
#include "clreduce/measure.hpp"
#include "clreduce/options.hpp"
#include "clreduce/reducer.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace clreduce {

/// `value` with `decimals` digits after the point.
std::string fixed(double value, int decimals = 2);

/// "min X us, median Y us (Z GB/s)" of several runs, or "X us (Z GB/s)" of one, over
/// `bytes` read.
std::string timing_text(const Statistic& us, std::uint64_t bytes, bool repeated);

/// The first run's result and how it compares with the host reference: its error and bound
/// for a floating-point sum.
void print_result(std::ostream& out, const Measurement& measurement);

/// What is reduced: the op, the length, the type and the seed.
void print_title(std::ostream& out, const Options& options);

/// The device, the path and how it was built (more with --verbose).
void print_setup(std::ostream& out, const SelectedDevice& selected, const Reducer& reducer,
                 const Options& options);

/// The pass plan for `length`, before anything runs (--verbose).
void print_plan(std::ostream& out, const std::vector<Pass>& passes);

/// Per pass: elements in -> out, work-groups x size, device time and GB/s; then the span,
/// the host-observed time, the host reference and the verdict.
void print_measurement(std::ostream& out, const Measurement& measurement);

/// One JSON object with the same content as print_measurement.
void print_json(std::ostream& out, const Measurement& measurement, const Reducer& reducer,
                const Options& options);

/// One length of a sweep, measured with one op and finish.
struct SweepRow {
    Op op;
    Finish finish;
    Measurement measurement;
};

/// The sweep as an aligned table or as CSV, one row per length and finish.
void print_sweep(std::ostream& out, const std::vector<SweepRow>& rows, Format format);

} // namespace clreduce
