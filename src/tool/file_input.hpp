#pragma once
// --input: values from a file, mapped read-only instead of copied, so that a file larger than
// the host's free memory (or the device's) reduces. A NumPy .npy file, recognised by its
// magic, names its type and shape in its header; any other file is raw little-endian values
// of --data-type.

#include "clreduce/types.hpp"
#include "detail/segment_plan.hpp"
#include "tool/options.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clreduce {

/// What a .npy header's Python dict literal holds, e.g.
/// "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }".
struct NpyHeader {
    std::string descr; // the dtype, e.g. "<f8"
    bool fortran_order = false;
    std::vector<std::uint64_t> shape; // empty for a scalar: shape ()
};

/// Reads the header's dict: exactly the keys 'descr' (a quoted string), 'fortran_order'
/// (True or False) and 'shape' (a tuple of integers), in any order, quoted either way, with
/// any spacing and a trailing comma. Throws Failure(ExitCode::input_data) naming what is
/// wrong and where.
NpyHeader parse_npy_header(std::string_view text);

/// The type of a 'descr': <i4 <u4 <i8 <u8 <f4 <f8; '=' (native) and '|' (no order given)
/// read as '<' on this little-endian host. Throws Failure(ExitCode::input_data) for any
/// other dtype, big-endian ones ('>') included.
DataType npy_type(const std::string& descr);

/// A shape as Python writes a tuple: "(3, 4)", "(1000,)", "()".
std::string shape_text(const std::vector<std::uint64_t>& shape);

/// How many values a shape holds: the product of its sizes, 1 for (). Throws
/// Failure(ExitCode::input_data) past 2^64 - 1.
std::uint64_t values_in(const std::vector<std::uint64_t>& shape);

/// A file's values, mapped read-only for as long as this lives.
class InputFile {
public:
    /// Maps `path`, a regular file or a block device (anything else is refused before it is
    /// opened): a .npy file when it starts with the magic "\x93NUMPY" (versions 1.0, 2.0,
    /// 3.0; C or Fortran order alike, as a reduction of all values does not depend on their
    /// order), else raw values of `raw_type`. Throws Failure(ExitCode::input_data) with one
    /// line naming the file and what is wrong with it, or Failure(ExitCode::usage) for a raw
    /// file without `raw_type`. A file may hold no values.
    InputFile(const std::string& path, std::optional<DataType> raw_type);

    /// The file's values, Origin::given.
    ValuesView values() const { return values_; }
    /// The .npy header's shape and order; a raw file's values are one axis.
    const Shape& shape() const { return shape_; }

private:
    struct Unmap {
        std::size_t bytes;
        void operator()(void* address) const;
    };
    std::unique_ptr<void, Unmap> mapping_;
    ValuesView values_;
    Shape shape_;
};

/// --input: the file mapped, and `options` made to fit it: their type becomes the file's (an
/// explicit --data-type that differs from a .npy header's is a usage error, and a raw file
/// needs one), their length the file's, or the --length prefix (one longer than the file is
/// a usage error). A file without values is refused for min and max, which have no identity
/// (exit 9), as NumPy refuses them. Nothing without --input.
std::optional<InputFile> open_input(Options& options);

} // namespace clreduce
