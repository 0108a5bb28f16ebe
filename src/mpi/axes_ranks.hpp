#pragma once
// clreduce-mpi --axis: a reduction along axes (docs/axes.md) across the ranks. Where the array
// has several blocks (positions of the axes before the reduced ones), each rank reduces its
// share of whole blocks on its device and rank 0 gathers the result rows with MPI_Gatherv; a
// reduction of the leading axes (one block) splits the reduced rows among the ranks instead,
// and MPI_Reduce combines their partial arrays element-wise with the Combiner (combine.hpp),
// the kernel's own op. Along axes apart in memory the ranks split the slices of the outermost
// axis in memory, combining or gathering as that axis is reduced or kept. Either way integers,
// min, max, argmin and argmax give the same result for any number of ranks; floating-point
// sums within the check's bound.

#include "agree.hpp"
#include "tool/file_input.hpp"
#include "tool/options.hpp"

#include <iosfwd>
#include <optional>

namespace clreduce::mpi {

/// Reduces `file`'s array (mapped: each rank reads its part alone), or the random one of
/// --shape, along options.axes across the ranks of MPI_COMM_WORLD, each on the device at its
/// node-local rank; rank 0 checks every result against the host's, writes --output and
/// prints the result array on `out`. Every rank returns the shared exit code (or throws
/// AgreedFailure).
int axes_across_ranks(const Options& options, const std::optional<InputFile>& file,
                      const Agreement& agree, int node_rank, std::ostream& out);

} // namespace clreduce::mpi
