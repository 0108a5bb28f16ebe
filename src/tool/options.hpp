#pragma once
// The command line: what the user asked for, validated before any OpenCL call.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

/// The OpenCL SDK samples' way of naming a device: platform index, device index, type.
struct DeviceTriplet {
    std::optional<std::size_t> platform; // unset: the first platform with such a device
    std::vector<std::size_t> devices{0}; // indices among the platform's devices of `type`
    bool all = false;                    // every device of `type` on the platform instead
    // Unset: all types on an explicit platform; else the first of gpu, acc, cpu found.
    std::optional<cl_device_type> type;
};

/// The most buffers (--max-buffer) or chunks (--chunk) one input may be cut into.
constexpr std::uint64_t most_pieces = 65536;
/// --sweep's first length: 2^10, where a launch's fixed cost still dominates on every device.
constexpr std::uint64_t shortest_sweep = 1024;

enum class Verbosity { quiet, normal, verbose };
enum class Mode { reduce, list, sweep };
enum class Format { text, json, csv };

struct Options {
    Mode mode = Mode::reduce;
    DataType type = DataType::int32;
    bool type_given = false;
    Op op = Op::sum;
    std::optional<DataType> accumulate; // --accumulate; unset: accumulator_for(type, op)
    Expressions user;                   // --reduce and --identity (then op is Op::custom), --map
    std::uint64_t length = std::uint64_t{1} << 20; // with --sweep: the largest length swept
    bool length_given = false;
    DeviceTriplet triplet;
    std::optional<Path> path; // unset: the best path the device reports
    bool allow_unreported = false;
    Factor factor = Factor::device;
    std::optional<Finish> finish = Finish::passes; // unset: auto
    bool finish_given = false;
    std::size_t work_group_size = 0; // 0: the device's best
    std::uint64_t max_buffer = 0;    // values per device buffer; 0: CL_DEVICE_MAX_MEM_ALLOC_SIZE
    bool host_input = false;         // the input stays in host memory, streamed in chunks
    std::uint64_t chunk = 0;         // values per streamed chunk; 0: the default
    bool exact = false;              // --exact: the exact sum, correctly rounded (float sums)
    std::uint64_t seed = 1;
    std::optional<std::string> input; // the file whose values are reduced; unset: random ones
    unsigned iterations = 1;
    bool benchmark = false; // --iterations or --sweep: min and median, and the stream read
    bool cold = false;      // measure the first launch instead of warming up (also with -q)
    bool check = true;      // compare with the host reference (--no-check: no)
    Format format = Format::text;
    Verbosity verbosity = Verbosity::normal;
    std::string kernel_dir; // empty: the kernel built into the library
    // --axis: the axes to reduce (NumPy's numbers, negative from the end); empty: all values
    // to one. --shape: the random input's extents (else one axis of --length values).
    std::vector<int> axes;
    std::vector<std::uint64_t> shape;
    std::string output; // --output: where the result array goes, a .npy file
};

/// Parses and validates the command line. Returns nothing when --help or --version was
/// answered (on stdout); throws Failure(ExitCode::usage) naming the problem otherwise.
std::optional<Options> parse_options(int argc, const char* const* argv);

/// Refuses (Failure(ExitCode::usage)) a --max-buffer or --chunk that cuts the input's
/// `length` values into more than most_pieces: parse_options calls it for random values
/// (-l, --shape), open_input once an --input file's header has given its length.
void refuse_too_many_pieces(const Options& options);

/// A positive decimal count, or a power of two written 2^N; `what` names it in errors.
std::uint64_t parse_count(const std::string& text, const std::string& what);

/// `--axis`: integers separated by commas, each at most once; throws Failure(ExitCode::usage)
/// otherwise (whether the array has such an axis is checked against its shape).
std::vector<int> parse_axes(const std::string& text);

/// `--shape`: extents separated by 'x' (4096x65536), each a count; throws
/// Failure(ExitCode::usage) otherwise.
std::vector<std::uint64_t> parse_shape(const std::string& text);

/// `-d`: "all", or indices separated by commas, each at most once; throws
/// Failure(ExitCode::usage) otherwise.
void parse_device_list(const std::string& text, DeviceTriplet& triplet);

/// CL_DEVICE_TYPE_... for all|cpu|gpu|acc|cus|def; throws Failure(ExitCode::usage).
cl_device_type parse_device_type(const std::string& name);

} // namespace clreduce
