#pragma once
// How clreduce-mpi splits a length across ranks, and clreduce an array's slices or rows across
// devices: plain arithmetic, tested without MPI.

#include <algorithm>
#include <cstdint>

namespace clreduce {

/// The values one rank reduces: values [first, first + length) of the whole input.
struct RankSlice {
    std::uint64_t first = 0;
    std::uint64_t length = 0;
};

/// Rank `rank`'s slice of `total` values over `ranks` ranks: contiguous slices in rank order,
/// the first total % ranks ranks one value longer, so that lengths differ by one at most.
/// With fewer values than ranks, the last ranks get none.
inline RankSlice slice_of(std::uint64_t total, std::uint64_t ranks, std::uint64_t rank) {
    const auto base = total / ranks;
    const auto longer = total % ranks;
    return {rank * base + std::min(rank, longer), base + (rank < longer ? 1 : 0)};
}

} // namespace clreduce
