#pragma once
// One rank's slice on its device. This is the one place clreduce-mpi calls the engine's
// reduction: building the reducer, making and uploading the slice, reducing it and the host
// reference of the slice, and rank 0's combine of a user's op. Everything else in src/mpi sees only
// values and times.

#include "clreduce/types.hpp"
#include "detail/measure.hpp"
#include "tool/devices.hpp"
#include "tool/options.hpp"
#include "tool/partition.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clreduce::mpi {

/// The values [slice.first, slice.first + slice.length) of clreduce's random input: value i
/// of the whole depends only on (seed, i), so the whole is the same for any number of ranks.
HostValues random_slice(const Options& options, RankSlice slice);

/// This rank's device: of the devices the triplet selects, the one at its node-local rank,
/// round-robin when a node has more ranks than devices.
SelectedDevice device_of_rank(const DeviceTriplet& triplet, int node_rank);

/// The slice's result held to its host reference (Measurement's check).
struct SliceCheck {
    Scalar result; // the first counted reduction's
    Scalar reference;
    // argmin and argmax: the indices of both, counted from the start of the whole input.
    std::optional<std::int64_t> result_index;
    std::optional<std::int64_t> reference_index;
    Check check = Check::exact;
    double tolerance = 0; // with Check::bound
    bool valid = true;
};

class SliceReducer {
public:
    /// Builds the reducer for `options` on `device` and puts the slice on it: `file`'s part
    /// when given (mapped: only the slice's pages are read), else the random values
    /// [slice.first, slice.first + slice.length) of the whole input, drawn here alone. Its
    /// pieces start at slice.first, so the kernel counts a map's index and argmin's and
    /// argmax's in the whole input. An empty slice touches no device. Throws what the engine
    /// throws (Error, cl::Error).
    SliceReducer(const SelectedDevice& device, const Options& options,
                 const std::optional<ValuesView>& file, RankSlice slice);
    ~SliceReducer();

    /// One reduction of the slice: its value and, for argmin and argmax, its index in the whole
    /// input; an empty slice gives the op's identity (and an index past every value's). Kept
    /// for check().
    Reduction reduce();
    /// Device spans of the counted reductions (those after `uncounted` first ones).
    std::vector<double> span_us(std::size_t uncounted) const;
    /// The first counted reduction's result against the slice's host reference.
    SliceCheck check(std::size_t uncounted) const;
    /// The ranks' `results` combined by the op on this rank's device, as a pass over partials
    /// combines them: a user's op, which only a device evaluates. The identity for an empty
    /// slice, which only an empty input gives rank 0.
    Reduction combine(const std::vector<Reduction>& results);
    /// The whole input's reference on this rank's device, in index order block by block
    /// (Reducer::reduce_in_order): `file`'s values, else the whole random input drawn again
    /// here, in host memory. For a user's op, whose ranks' references no host combines.
    Scalar whole_reference(const Options& options, const std::optional<ValuesView>& file);
    /// "path tree, work-group size 8, finish passes", for -v; empty for an empty slice.
    std::string setup() const;

private:
    struct Engine;
    std::unique_ptr<Engine> engine_; // null for an empty slice
    Reduction identity_;
    std::vector<double> spans_;
};

} // namespace clreduce::mpi
