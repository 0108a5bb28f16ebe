#pragma once
// The results of a reduction along axes as clreduce --axis and clreduce-mpi --axis check,
// print and write them (docs/axes.md).

#include "clreduce/segmented.hpp"
#include "detail/reference.hpp"
#include "tool/options.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace clreduce {

/// The array to reduce: the --input file's shape (`file_shape`), else --shape, else one axis
/// of --length values (C order).
Shape array_shape(const Options& options, const std::optional<Shape>& file_shape);

/// The layout of `shape` along options.axes; an axis the array does not have is the file's
/// problem (`from_file`: Failure with exit 9) or the command line's (exit 2, --shape); axes
/// apart are unsupported (exit 4).
AxisLayout layout_of(const Shape& shape, const Options& options, bool from_file);

/// The same as steps one after another (axis_steps()): axes apart in memory too.
std::vector<AxisLayout> steps_of(const Shape& shape, const Options& options, bool from_file);

/// Each result's reference for `values`, an array of `shape` reduced along options.axes: the
/// exact sum rounded once (--exact); the host's reduction where it evaluates the op and the
/// map; else the whole-array check's (reference_for()): the same definitions in index order,
/// on `device`, over each result's values gathered in memory order, so that a map's i is the
/// value's index along the reduced axes there too.
std::vector<Reference> axis_references_of(const Options& options, const cl::Device& device,
                                          const ValuesView& values, const Shape& shape);

/// Throws Failure(ExitCode::wrong_result) naming the first result that misses its reference
/// (of `length` values each): its value, exactly or within the bound of a floating-point sum
/// or product, or argmin's and argmax's index.
void refuse_wrong(const Options& options, const SegmentedResult& result,
                  const std::vector<Reference>& references, std::uint64_t length, Origin origin);

/// The result array as NumPy prints it (its indices for argmin and argmax, -v their values
/// first), or the line saying where --output wrote it.
void print_results(std::ostream& out, const Options& options, const SegmentedResult& result);

/// Partial arrays of the whole result (`parts` x `results` accumulators, side by side in
/// `partials`, as the kernels write them: the parts of an array that split a reduced axis)
/// combined element-wise on `reducer`'s device, the parts in order (argmin's and argmax's
/// first index wins): the accumulators of the whole result.
std::vector<unsigned char> combined_on_device(SegmentedReducer& reducer,
                                              const std::vector<unsigned char>& partials,
                                              std::uint64_t parts, std::uint64_t results);

/// The exact sums of `type` values that the parts' rows hold (each part a row a result of the
/// array `result_shape`, ExactAccumulator::row_width() cl_long entries, as
/// ExactSum::enqueue_run_rows() writes them; the parts split the results' values), added up
/// and rounded once on the host.
SegmentedResult rounded_rows(DataType type, const Shape& result_shape,
                             const std::vector<std::vector<unsigned char>>& parts);

/// The result in the .npy file `path`, in the input's order: the accumulator's dtype, bool
/// for any and all, int64 indices for argmin and argmax (NumPy's argmax(axis=)). Throws
/// Failure(ExitCode::host) where it cannot be written.
void write_npy(const std::string& path, const Options& options, const SegmentedResult& result);

} // namespace clreduce
