#pragma once
// One rank's slice on its device. This is the one place clreduce-mpi calls the engine's
// reduction: building the reducer, making and uploading the slice, reducing it and the host
// reference of the slice. Everything else in src/mpi sees only values and times.

#include "clreduce/measure.hpp"
#include "clreduce/types.hpp"
#include "partition.hpp"
#include "tool/devices.hpp"
#include "tool/options.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clreduce::mpi {

/// The slice's result held to its host reference (Measurement's check).
struct SliceCheck {
    Scalar result; // the first counted reduction's
    Scalar reference;
    Check check = Check::exact;
    double tolerance = 0; // with Check::bound
    bool valid = true;
};

class SliceReducer {
public:
    /// Builds the reducer for `options` on `device` and puts the slice on it: `file`'s part
    /// when given (mapped: only the slice's pages are read), else the random values
    /// [slice.first, slice.first + slice.length) of the whole input, drawn here alone. An
    /// empty slice touches no device. Throws what the engine throws (Error, cl::Error).
    SliceReducer(const SelectedDevice& device, const Options& options,
                 const std::optional<ValuesView>& file, RankSlice slice);
    ~SliceReducer();

    /// One reduction of the slice; an empty slice gives the op's identity. Kept for check().
    Scalar reduce();
    /// Device spans of the counted reductions (those after `uncounted` first ones).
    std::vector<double> span_us(std::size_t uncounted) const;
    /// The first counted reduction's result against the slice's host reference.
    SliceCheck check(std::size_t uncounted) const;
    /// "path tree, work-group size 8, finish passes", for -v; empty for an empty slice.
    std::string setup() const;

private:
    struct Engine;
    std::unique_ptr<Engine> engine_; // null for an empty slice
    Scalar identity_;
    std::vector<double> spans_;
};

} // namespace clreduce::mpi
