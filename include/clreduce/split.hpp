#pragma once
// Several devices (-d 0,1 or -d all): the input split into shares in proportion to each
// device's speed, each share reduced by its own one-device engine at the same time as the
// others, the results combined on the host. A layer above the engine; it calls Reducer,
// never the reverse.

#include "clreduce/devices.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/options.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

/// Shares of `length` values in proportion to `speeds` (values per microsecond, one per
/// device), each at least one value while there are values enough; equal speeds get shares
/// that differ by at most one value.
std::vector<std::uint64_t> split_shares(std::uint64_t length, const std::vector<double>& speeds);

/// Reduces the first options.length values of `file` (--input), or as many random values
/// without one, split across `devices` (the first options.length of them when there are
/// fewer values than devices), reports each device's share and passes and the overall time
/// on the host's clock, and validates each share and the combined result against the host
/// reference.
ExitCode run_split(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, const std::string& kernel_text,
                   std::ostream& out);

} // namespace clreduce
