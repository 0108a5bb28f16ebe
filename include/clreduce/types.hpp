#pragma once
// The value types clreduce reduces. One table row describes each type once: its OpenCL C
// names, its size, its identities and the capability it needs. The kernel's definitions,
// the capability check, the buffers and the host reference all derive from that row, and
// visit_type() is the one place that turns a DataType into a C++ type.

#include <CL/opencl.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace clreduce {

enum class DataType { int32, uint32, int64, uint64, float32, float64 };

/// What a type needs beyond what every OpenCL device has.
enum class Capability { none, int64, fp64 };

struct TypeInfo {
    DataType type;
    const char* name;     // as --data-type spells it
    const char* cl_name;  // the OpenCL C scalar type; "<cl_name>4" is its vector
    const char* wrapping; // integers: the unsigned type whose + wraps like the sum must
    std::size_t size;     // bytes
    Capability needs;
    const char* lowest;   // OpenCL C: max's identity
    const char* highest;  // OpenCL C: min's identity
    double unit_roundoff; // floating point: half an ulp of 1; 0 for integers
    bool floating() const { return unit_roundoff > 0; }
};

/// Every type, in --data-type's order.
const std::vector<TypeInfo>& all_types();
const TypeInfo& info(DataType type);
std::string name_of(DataType type);

/// Calls `visit` with a value of the C++ type that holds `type` (cl_int ... cl_double).
template <typename Visit>
decltype(auto) visit_type(DataType type, Visit&& visit) {
    switch (type) {
    case DataType::int32:
        return visit(cl_int{});
    case DataType::uint32:
        return visit(cl_uint{});
    case DataType::int64:
        return visit(cl_long{});
    case DataType::uint64:
        return visit(cl_ulong{});
    case DataType::float32:
        return visit(cl_float{});
    case DataType::float64:
        break;
    }
    return visit(cl_double{});
}

/// One value of any type: a result or a reference.
using Scalar = std::variant<cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double>;

/// The value as the user reads it: integers in full, floating point with enough digits to
/// tell any two values apart.
std::string to_string(const Scalar& value);

/// The value of `type` whose bytes are at `bytes`.
Scalar scalar_from_bytes(DataType type, const void* bytes);

/// The values of one input, all of one type.
using HostValues =
    std::variant<std::vector<cl_int>, std::vector<cl_uint>, std::vector<cl_long>,
                 std::vector<cl_ulong>, std::vector<cl_float>, std::vector<cl_double>>;

DataType type_of(const HostValues& values);
std::size_t length_of(const HostValues& values);
const void* data_of(const HostValues& values);

/// Where an input's values come from. clreduce's own draw (random_values) makes every partial
/// sum of a floating-point sum exact, so that sum is checked exactly; values it did not draw
/// (a file, --input, a caller's data) get the error bound, unless they show that every
/// partial sum is exact (check_for in measure.hpp).
enum class Origin { given, drawn };

/// Read-only values of one type in host memory that another object owns (a HostValues, a
/// mapped file), so that the uploads, the stream and the host reference read any input
/// alike. A view of a HostValues lasts as long as that HostValues.
struct ValuesView {
    DataType type = DataType::int32;
    const void* data = nullptr;
    std::uint64_t length = 0;
    Origin origin = Origin::drawn;

    ValuesView() = default;
    ValuesView(DataType type, const void* data, std::uint64_t length, Origin origin);
    ValuesView(const HostValues& values); // implicit: a random input is viewed as it is

    /// The `length` values from value `first` on.
    ValuesView part(std::uint64_t first, std::uint64_t length) const;
};

/// `values` values of `size` bytes in binary units, "512 B", "4.0 MiB", "16.0 GiB", without
/// overflowing for absurd counts: every memory figure clreduce prints, so that they compare.
std::string bytes_text(std::uint64_t values, std::size_t size);

} // namespace clreduce
