#include "clreduce/types.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>

namespace clreduce {

const std::vector<TypeInfo>& all_types() {
    using T = DataType;
    using C = Capability;
    static const std::vector<TypeInfo> types = {
        {T::int32, "int32", "<i4", "int", "int", "uint", 4, C::none, "INT_MIN", "INT_MAX", 0,
         T::int32},
        {T::uint32, "uint32", "<u4", "uint", "uint", "uint", 4, C::none, "0", "UINT_MAX", 0,
         T::uint32},
        {T::int64, "int64", "<i8", "long", "long", "ulong", 8, C::int64, "LONG_MIN", "LONG_MAX", 0,
         T::int64},
        {T::uint64, "uint64", "<u8", "ulong", "ulong", "ulong", 8, C::int64, "0", "ULONG_MAX", 0,
         T::uint64},
        {T::float32, "float", "<f4", "float", "float", nullptr, 4, C::none, "-INFINITY", "INFINITY",
         0x1p-24, T::float32},
        {T::float64, "double", "<f8", "double", "double", nullptr, 8, C::fp64, "-INFINITY",
         "INFINITY", 0x1p-53, T::float64},
        {T::int8, "int8", "|i1", "char", "char", "uchar", 1, C::none, "CHAR_MIN", "CHAR_MAX", 0,
         T::int64},
        {T::uint8, "uint8", "|u1", "uchar", "uchar", "uchar", 1, C::none, "0", "UCHAR_MAX", 0,
         T::uint64},
        {T::int16, "int16", "<i2", "short", "short", "ushort", 2, C::none, "SHRT_MIN", "SHRT_MAX",
         0, T::int64},
        {T::uint16, "uint16", "<u2", "ushort", "ushort", "ushort", 2, C::none, "0", "USHRT_MAX", 0,
         T::uint64},
        {T::float16, "float16", "<f2", "half", "float", nullptr, 2, C::none, "-INFINITY",
         "INFINITY", 0x1p-11, T::float32, "vload_half(i, in)",
         // One 16-byte load, converted in registers: 8% faster on an H100 than vloada_half8
         // from the buffer (docs/ops-and-types.md).
         "const ushort8 bits = ((global const ushort8*)in)[v]; "
         "return vload_half8(0, (const private half*)&bits);"},
        {T::bfloat16, "bfloat16", nullptr, "ushort", "float", nullptr, 2, C::none, "-INFINITY",
         "INFINITY", 0x1p-8, T::float32, "as_float((uint)in[i] << 16)",
         "return as_float8(convert_uint8(((global const ushort8*)in)[v]) << 16);"},
        // NumPy reads every nonzero byte as True (a uint8 mask viewed as bool holds 255s), so
        // the loads make each byte 0 or 1: the words' bit 7 of a byte is set where the byte's
        // low seven bits add up past 0x7f or its own bit 7 is set, and no byte carries.
        {T::boolean, "bool", "|b1", "uchar", "uchar", "uchar", 1, C::none, "0", "1", 0, T::uint64,
         "in[i] != 0",
         "const uint4 w = ((global const uint4*)in)[v]; "
         "return as_uchar16(((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) >> 7) & 0x01010101u);"},
    };
    return types;
}

const TypeInfo& info(DataType type) {
    return all_types().at(static_cast<std::size_t>(type));
}

std::string name_of(DataType type) {
    return info(type).name;
}

bool accumulates(DataType type) {
    return static_cast<std::size_t>(type) < accumulator_count;
}

float to_float(Half value) {
    const std::uint32_t sign = static_cast<std::uint32_t>(value.bits & 0x8000) << 16;
    const int exponent = (value.bits >> 10) & 0x1f;
    const std::uint32_t fraction = value.bits & 0x3ff;
    float magnitude;
    if (exponent == 0x1f) // infinity or NaN, the NaN's payload kept
        magnitude = fraction ? std::numeric_limits<float>::quiet_NaN()
                             : std::numeric_limits<float>::infinity();
    else if (exponent == 0) // zero or subnormal: fraction * 2^-24, exact in float
        magnitude = std::ldexp(static_cast<float>(fraction), -24);
    else
        magnitude = std::ldexp(static_cast<float>(fraction | 0x400), exponent - 25);
    std::uint32_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;
    float result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
}

Half to_half(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
    const float magnitude = std::fabs(value);
    if (magnitude == 0)
        return {sign};
    if (std::isnan(value))
        return {static_cast<std::uint16_t>(sign | 0x7e00)};
    if (magnitude >= 65520.0f) // rounds past the largest half, 65504
        return {static_cast<std::uint16_t>(sign | 0x7c00)};
    // Scaled so that one unit in the last place of the half is 1, then rounded to nearest
    // even by the float arithmetic (nearbyint in the default rounding mode).
    int exponent;
    std::frexp(magnitude, &exponent); // magnitude = m * 2^exponent, m in [0.5, 1)
    const int ulp_exponent = std::max(exponent - 11, -24); // subnormals: 2^-24
    const auto units =
        static_cast<std::uint32_t>(std::nearbyint(std::ldexp(magnitude, -ulp_exponent)));
    if (ulp_exponent == -24) // subnormal (or the smallest normal, reached by rounding up)
        return {static_cast<std::uint16_t>(sign | units)};
    // units in [2^10, 2^11]: 2^11 carries into the exponent, which the addition does.
    const auto biased = static_cast<std::uint32_t>(ulp_exponent + 25);
    return {static_cast<std::uint16_t>(sign + ((biased - 1) << 10) + units)};
}

BFloat16 to_bfloat16(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if (std::isnan(value))
        return {static_cast<std::uint16_t>((bits >> 16) | 0x40)};
    const std::uint32_t rounding = 0x7fff + ((bits >> 16) & 1); // to nearest, ties to even
    return {static_cast<std::uint16_t>((bits + rounding) >> 16)};
}

std::string to_string(const Scalar& value) {
    return std::visit(
        [](auto x) {
            using T = decltype(x);
            if constexpr (std::is_floating_point_v<T>) {
                if (std::isnan(x)) // a NaN's sign means nothing; to_chars would print "-nan"
                    return std::string("nan");
                // The shortest text that reads back as the same value, as NumPy's repr prints
                // it: -5.085743453373197, not the 17 digits -5.0857434533731967.
                char text[32];
                const auto end = std::to_chars(std::begin(text), std::end(text), x).ptr;
                return std::string(text, end);
            } else {
                return std::to_string(x);
            }
        },
        value);
}

Scalar scalar_from_bytes(DataType type, const void* bytes) {
    return visit_accumulator(type, [&](auto zero) -> Scalar {
        auto value = zero;
        std::memcpy(&value, bytes, sizeof value);
        return value;
    });
}

DataType type_of(const HostValues& values) {
    return all_types().at(values.index()).type;
}

std::size_t length_of(const HostValues& values) {
    return std::visit([](const auto& vector) { return vector.size(); }, values);
}

const void* data_of(const HostValues& values) {
    return std::visit([](const auto& vector) -> const void* { return vector.data(); }, values);
}

ValuesView::ValuesView(DataType type, const void* data, std::uint64_t length, Origin origin)
    : type(type)
    , data(data)
    , length(length)
    , origin(origin) {}

ValuesView::ValuesView(const HostValues& values)
    : ValuesView(type_of(values), data_of(values), length_of(values), Origin::drawn) {}

ValuesView ValuesView::part(std::uint64_t first, std::uint64_t count) const {
    const auto* bytes = static_cast<const unsigned char*>(data) + first * info(type).size;
    return {type, bytes, count, origin};
}

std::string bytes_text(std::uint64_t values, std::size_t size) {
    double amount = static_cast<double>(values) * static_cast<double>(size);
    if (amount < 1024)
        return std::to_string(static_cast<std::uint64_t>(amount)) + " B";
    const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
    std::size_t unit = 0;
    for (amount /= 1024; amount >= 1024 && unit + 1 < std::size(units); amount /= 1024)
        ++unit;
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", amount, units[unit]);
    return text;
}

} // namespace clreduce
