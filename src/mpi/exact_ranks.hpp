#pragma once
// clreduce-mpi --exact: each rank sums its slice exactly on its device into an accumulator
// row (clreduce/exact.hpp), MPI_Reduce adds the rows as 64-bit integers with MPI_SUM on rank
// 0, which rounds once. Integer addition is associative, so the result's bits are the same
// for any number of ranks, and the same as clreduce --exact's.

#include "agree.hpp"
#include "tool/file_input.hpp"
#include "tool/options.hpp"

#include <iosfwd>
#include <optional>

namespace clreduce::mpi {

/// The exact sum of options.length values (of `file`, mapped, or random) across the ranks of
/// MPI_COMM_WORLD, each summing slice_of(length, ranks, rank) on the device at its node-local
/// rank; rank 0 checks it for identical bits against the host's exact sum of the whole input
/// and prints it on `out`. Every rank returns the shared exit code (or throws AgreedFailure).
int exact_across_ranks(const Options& options, const std::optional<InputFile>& file,
                       const Agreement& agree, int node_rank, std::ostream& out);

} // namespace clreduce::mpi
