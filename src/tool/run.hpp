#pragma once
// The tool's flows, each from a built engine to the printed, validated report: reduce one
// input on the device, stream it from host memory, split it across devices, or sweep lengths
// as a benchmark.

#include "clreduce/reducer.hpp"
#include "detail/measure.hpp"
#include "tool/devices.hpp"
#include "tool/failure.hpp"
#include "tool/options.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

/// --host-input's default chunk (--chunk): 64 MiB, long enough that a launch and an upload each
/// take far longer than the fixed cost of enqueueing them. The plain and the exact streams take
/// the same.
constexpr std::uint64_t default_chunk_bytes = std::uint64_t{64} << 20;

/// Reduces the first options.length values of `file` (--input), or as many random values
/// without one (repeatedly in benchmark mode; once, without a warm-up, with -q), checks the
/// result against the host reference (unless --no-check) and prints the report. A wrong result
/// throws Failure(ExitCode::wrong_result) after the report is printed.
ExitCode run_reduction(Reducer& reducer, const DeviceQueue& queues, const SelectedDevice& selected,
                       const Options& options, const std::optional<ValuesView>& file,
                       StreamRead* stream_read, std::ostream& out);

/// --host-input: reduces the first options.length values of `file` (--input), or as many
/// random values without one, that stay in host memory, streamed in chunks, and reports the
/// passes, the uploads, the end-to-end time and the copy ceiling.
ExitCode run_streamed(Reducer& reducer, const cl::CommandQueue& queue,
                      const SelectedDevice& selected, const Options& options,
                      const std::optional<ValuesView>& file, std::ostream& out);

/// The chunk to stream with: `requested` (--chunk, 0: the default), refused (exit 4) past
/// the device's largest buffer.
std::uint64_t stream_chunk(const Reducer& reducer, std::uint64_t length, std::uint64_t requested);

/// Reduces the first options.length values of `file` (--input), or as many random values
/// without one, split across `devices` (the first options.length of them when there are
/// fewer values than devices), reports each device's share and passes and the overall time
/// on the host's clock (with --json, as one object), and validates each share and the
/// combined result against the host reference (unless --no-check).
ExitCode run_split(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, const std::string& kernel_text,
                   std::ostream& out);

/// --exact: the exact sum of the first options.length values of `file` (--input), or as many
/// random values without one, on `devices` (split in equal shares across several), in
/// device buffers or streamed (--host-input), checked for identical bits against the host's
/// exact sum (exit 1 otherwise). Float32 and float64 sums only (else exit 2).
ExitCode run_exact(const std::vector<SelectedDevice>& devices, const Options& options,
                   const std::optional<ValuesView>& file, std::ostream& out);

/// --axis: reduces `file`'s values (of `file_shape`, its .npy shape) or random ones of
/// --shape (else one axis of --length) along options.axes, the blocks of the array (what
/// lies before the reduced axes) split among `devices` (uploaded whole or, --host-input,
/// streamed in chunks of blocks; --exact: each result's exact sum), checks every result
/// against the host's (unless --no-check), writes them to --output and prints them (exit 9
/// for an axis the file has not, 2 for one --shape has not, 4 for what docs/axes.md lists).
ExitCode run_axes(const std::vector<SelectedDevice>& devices, const Options& options,
                  const std::optional<ValuesView>& file, const std::optional<Shape>& file_shape,
                  std::ostream& out);

/// `reference`, the host's reduction to check against, or none with --no-check, which makes
/// check_against skip the check.
std::function<Reference()> reference_unless_skipped(const Options& options,
                                                    std::function<Reference()> reference);

/// An --input without values, which only a sum was allowed (open_input): its sum is 0, the
/// identity, as NumPy's is, and no device needs to run for it. A sweep of it is refused.
ExitCode answer_empty_sum(const Options& options, std::ostream& out);

/// Throws Failure(ExitCode::unsupported) when `length` values do not fit in host memory.
void refuse_past_host_memory(std::uint64_t length, std::size_t value_size);

/// Throws Failure(ExitCode::wrong_result) naming the first result that misses the reference.
void refuse_wrong_result(const Measurement& measurement);

/// 2^10, 2^11, ... up to `largest`, and `largest` itself (alone when below 2^10).
std::vector<std::uint64_t> sweep_lengths(std::uint64_t largest);

/// The reducers the options ask for on one device: one with the requested finish, or for a
/// sweep without --finish one with passes and one with auto, where auto is the single launch,
/// so that the table shows both finishes side by side.
std::vector<std::unique_ptr<Reducer>> build_reducers(const DeviceQueue& device_queue,
                                                     const DeviceReport& report,
                                                     const std::string& kernel_text,
                                                     const Options& options);

/// Benchmarks every power of two from 2^10 up to options.length (and options.length itself)
/// on one input (`file`'s prefixes, or random values) with each reducer (all on one
/// device), with the stream read beside it, and prints each row as soon as it is measured:
/// a row of the table or of the CSV, or (--json) one JSON object on a line of its own. A
/// wrong result ends the sweep after its row.
ExitCode run_sweep(const std::vector<std::unique_ptr<Reducer>>& reducers, const DeviceQueue& queues,
                   const SelectedDevice& selected, const Options& options,
                   const std::optional<ValuesView>& file, StreamRead& stream_read,
                   std::ostream& out);

} // namespace clreduce
