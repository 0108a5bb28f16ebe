#pragma once
// From the command line to the engine's recipe, once, for clreduce and clreduce-mpi alike.

#include "detail/capabilities.hpp"
#include "detail/policy.hpp"
#include "tool/options.hpp"

#include <optional>

namespace clreduce {

/// What the options ask a Reducer on the device of `report` for, with `finish`: an explicit
/// --strategy is checked against what the device reports (choose_path), an absent one is left
/// to the policy, which takes the best path the op has a built-in for.
Recipe recipe_for(const Options& options, const DeviceReport& report, std::optional<Finish> finish);

/// The type the options' results have: accumulator_for() the type, op and --accumulate.
DataType accumulator_of(const Options& options);

/// Throws Failure(ExitCode::usage) unless the options ask for an --exact float sum.
void refuse_inexact_op(const Options& options);

} // namespace clreduce
