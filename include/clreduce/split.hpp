#pragma once
// Several devices: an input split into shares in proportion to each device's speed, each
// share reduced by its own one-device engine at the same time as the others, the results
// combined on the host (a user's op: on the first device). A layer above the engine; it calls
// Reducer, never the reverse.

#include "clreduce/input.hpp"
#include "clreduce/reducer.hpp"
#include "clreduce/stream.hpp"
#include "clreduce/types.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace clreduce {

/// One device's share of a split input: its engine, and its values, on the device or
/// streamed from host memory. The values' pieces or chunks start at `first`, so the share's
/// kernel counts a map's index and argmin's and argmax's from its place in the whole input.
struct DeviceShare {
    std::unique_ptr<DeviceQueue> queue;
    std::unique_ptr<Reducer> reducer;
    std::uint64_t first = 0; // the share's place in the whole input
    std::uint64_t length = 0;
    std::unique_ptr<DeviceInput> input; // uploaded ...
    std::unique_ptr<HostStream> stream; // ... or streamed from host memory

    /// Reduces the share; blocks until its result is in host memory.
    Reduction reduce();
    /// The share's values in host memory: the stream's, or else those of the whole input
    /// `values`.
    std::vector<ValuesView> host_values(const std::optional<ValuesView>& values) const;
};

/// What every device did in one run, and the host's clock around them all.
struct SplitRun {
    std::vector<Reduction> reductions; // one per share
    double host_us = 0;                // the first start to the last end
};

/// Each share reduced on a thread of its own; returns when the last one ends, rethrowing the
/// first share's failure, if any.
SplitRun reduce_together(std::vector<DeviceShare>& shares);

/// Values per microsecond of each share in `run`. Devices of one name are the same hardware
/// and differ only by timing noise, so they share their mean speed and get equal shares.
std::vector<double> speeds_of(const std::vector<DeviceShare>& shares, const SplitRun& run);

/// The shares' results combined with `op`: the whole input's value and, for argmin and argmax,
/// its index in the whole input (as each share's already counts); the other fields are left
/// empty. The host combines them, but a user's op (Op::custom), which only a device
/// evaluates: the first share's reducer combines those (Reducer::reduce_results).
Reduction combined(Op op, const std::vector<DeviceShare>& shares,
                   const std::vector<Reduction>& reductions);

/// Shares of `length` values in proportion to `speeds` (values per microsecond, one per
/// device), each at least one value while there are values enough; equal speeds get shares
/// that differ by at most one value.
std::vector<std::uint64_t> split_shares(std::uint64_t length, const std::vector<double>& speeds);

} // namespace clreduce
