#pragma once
// The two things clreduce does with a built reducer: reduce one random input and report, or
// sweep lengths as a benchmark.

#include "clreduce/devices.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/measure.hpp"
#include "clreduce/options.hpp"
#include "clreduce/reducer.hpp"

#include <cstdint>
#include <iosfwd>
#include <vector>

namespace clreduce {

/// Reduces options.length random values (repeatedly in benchmark mode), checks the result
/// against the host reference and prints the report. A wrong result throws
/// Failure(ExitCode::wrong_result) after the report is printed.
ExitCode run_reduction(Reducer& reducer, const SelectedDevice& selected, const Options& options,
                       StreamRead* ceiling, std::ostream& out);

/// 2^10, 2^11, ... up to `largest`, and `largest` itself (alone when below 2^10).
std::vector<std::uint64_t> sweep_lengths(std::uint64_t largest);

/// Benchmarks every power of two from 2^10 up to options.length (and options.length itself)
/// on one input, with the streaming-read ceiling, and prints the table or CSV.
ExitCode run_sweep(Reducer& reducer, const SelectedDevice& selected, const Options& options,
                   StreamRead& ceiling, std::ostream& out);

} // namespace clreduce
