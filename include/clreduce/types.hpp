#pragma once
// The value types clreduce reduces. One table row describes each type once: its OpenCL C
// names, its .npy dtype, its size, its limits, its default accumulator and the capability it
// needs. The kernel's definitions, the capability check, the buffers, the .npy reader and the
// host reference all derive from that row, and HostTypes is the one list that turns a
// DataType into a C++ type.

#include <CL/opencl.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace clreduce {

/// In the table's order: the six that are their own accumulator, then the narrow ones.
enum class DataType {
    int32,
    uint32,
    int64,
    uint64,
    float32,
    float64,
    int8,
    uint8,
    int16,
    uint16,
    float16,
    bfloat16,
    boolean,
};

/// What a type needs beyond what every OpenCL device has.
enum class Capability { none, int64, fp64 };

/// One row per type. A type is stored in the input buffer as `cl_storage`, loaded into a
/// `cl_value` (float for the two 16-bit floating-point types, which OpenCL C loads with
/// vload_half and a shift), and reduced in an accumulator (`accumulator`, NumPy's choice for
/// sums; --accumulate picks another).
struct TypeInfo {
    DataType type;
    const char* name;       // as --data-type spells it
    const char* npy;        // the .npy dtype, little-endian: "<i4", "|u1"; null: none
    const char* cl_storage; // the OpenCL C type of the input buffer's elements
    const char* cl_value;   // the OpenCL C type a value is loaded into; "<cl_value>4" its vector
    const char* wrapping;   // integers: the unsigned type whose + and * wrap like the sum's
    std::size_t size;       // bytes in the input
    Capability needs;
    const char* lowest;   // OpenCL C: the least value of cl_value (min's identity)
    const char* highest;  // OpenCL C: the largest value of cl_value
    double unit_roundoff; // floating point: half an ulp of 1; 0 for integers
    DataType accumulator; // NumPy's accumulator for sum and prod (np.add.reduce's dtype)
    // OpenCL C that loads value i from `in` (an expression of a value_t), and the body of a
    // function that returns values nv ... nv + n - 1 (n values_per_load(), a valuen_t,
    // aligned); null: in[i], and the buffer read as valuen_t.
    const char* load = nullptr;
    const char* loadn = nullptr;
    bool floating() const { return unit_roundoff > 0; }
    /// The values one load of the kernel reads: at least 4 (the accumulators' vector) and at
    /// least 16 bytes, which a GPU's work-item needs per load to reach the stream read.
    std::size_t values_per_load() const { return size >= 4 ? 4 : 16 / size; }
};

/// Every type, in --data-type's order.
const std::vector<TypeInfo>& all_types();
const TypeInfo& info(DataType type);
std::string name_of(DataType type);
/// Whether `type` can hold results: the six types that are their own accumulator.
bool accumulates(DataType type);

/// IEEE binary16, held as its bits: the host converts it to and from float, rounding to
/// nearest even, as the device's vload_half does.
struct Half {
    std::uint16_t bits = 0;
};
/// bfloat16, held as its bits: a float's upper half.
struct BFloat16 {
    std::uint16_t bits = 0;
};
/// NumPy's bool: one byte, nonzero for true.
struct Boolean {
    std::uint8_t byte = 0;
};
inline bool operator==(Half a, Half b) {
    return a.bits == b.bits;
}
inline bool operator==(BFloat16 a, BFloat16 b) {
    return a.bits == b.bits;
}
inline bool operator==(Boolean a, Boolean b) {
    return a.byte == b.byte;
}
float to_float(Half value);
Half to_half(float value);
inline float to_float(BFloat16 value) {
    const std::uint32_t bits = static_cast<std::uint32_t>(value.bits) << 16;
    float result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
}
BFloat16 to_bfloat16(float value);

/// The host type of each DataType, in the enum's order: the one list the C++ side derives
/// visit_type, HostValues and Scalar from.
template <typename... T>
struct TypeList {
    using Values = std::variant<std::vector<T>...>;
};
using HostTypes = TypeList<cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double, cl_char,
                           cl_uchar, cl_short, cl_ushort, Half, BFloat16, Boolean>;
/// The accumulators: the first six host types.
constexpr std::size_t accumulator_count = 6;

namespace detail {
template <std::size_t I, typename T, typename... Rest>
struct Nth : Nth<I - 1, Rest...> {};
template <typename T, typename... Rest>
struct Nth<0, T, Rest...> {
    using type = T;
};
template <std::size_t First, typename Visit, typename... T, std::size_t... I>
auto visit_index(std::size_t index, Visit&& visit, TypeList<T...>, std::index_sequence<I...>)
    -> decltype(visit(typename Nth<First, T...>::type{})) {
    using Result = decltype(visit(typename Nth<First, T...>::type{}));
    if constexpr (std::is_void_v<Result>) {
        ((index == First + I ? (visit(typename Nth<First + I, T...>::type{}), true) : false) ||
         ...);
    } else {
        std::optional<Result> result;
        ((index == First + I ? (result.emplace(visit(typename Nth<First + I, T...>::type{})), true)
                             : false) ||
         ...);
        return Result(std::move(*result));
    }
}
} // namespace detail

/// Calls `visit` with a value of the host type that holds `type` (cl_int ... Boolean).
template <typename Visit>
auto visit_type(DataType type, Visit&& visit) {
    return detail::visit_index<0>(static_cast<std::size_t>(type), visit, HostTypes{},
                                  std::make_index_sequence<13>{});
}

/// The same for an accumulator type (one of the first six): fewer instantiations.
template <typename Visit>
auto visit_accumulator(DataType type, Visit&& visit) {
    return detail::visit_index<0>(static_cast<std::size_t>(type), visit, HostTypes{},
                                  std::make_index_sequence<accumulator_count>{});
}

/// One value of an accumulator type: a result or a reference.
using Scalar = std::variant<cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double>;

/// The value as the user reads it: integers in full, floating point with enough digits to
/// tell any two values apart.
std::string to_string(const Scalar& value);

/// The value of `type` (an accumulator type) whose bytes are at `bytes`.
Scalar scalar_from_bytes(DataType type, const void* bytes);

/// The values of one input, all of one type.
using HostValues = HostTypes::Values;

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
