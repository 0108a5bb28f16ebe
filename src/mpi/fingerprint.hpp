#pragma once
// Ranks that agree: every rank of one clreduce-mpi job must reduce the same input the same
// way, or MPI_Reduce combines results of different ops (undefined) and the slices cut
// different wholes. Each rank describes what its options and input make of the run, the ranks
// exchange these fingerprints before any work, and a difference is a usage error.

#include "tool/options.hpp"

#include <cstdint>
#include <mpi.h>
#include <optional>
#include <string>
#include <vector>

namespace clreduce::mpi {

/// What decides this rank's result and its part in the collectives, one option a line, as
/// the command line says it ("--op sum"): the input (a file by its size and values, not its
/// name, which may differ from node to node), the type, the op, the length, the seed, the
/// path, the factor, the finish, the work-group size and the runs. `file_bytes` and
/// `file_values` describe --input, once opened.
std::vector<std::string> fingerprint(const Options& options, std::uint64_t file_bytes,
                                     std::uint64_t file_values);

/// For the fingerprints of every rank, in rank order: nothing when all are equal, else
/// "rank 0 has --op sum, rank 1 has --op max", for the lowest rank that differs from rank 0
/// and the first line in which it does.
std::optional<std::string> disagreement(const std::vector<std::vector<std::string>>& fingerprints);

/// Every rank's fingerprint, in rank order (a collective).
std::vector<std::vector<std::string>> gather_fingerprints(const std::vector<std::string>& mine,
                                                          MPI_Comm comm);

} // namespace clreduce::mpi
