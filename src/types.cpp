#include "clreduce/types.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>

namespace clreduce {

const std::vector<TypeInfo>& all_types() {
    static const std::vector<TypeInfo> types = {
        {DataType::int32, "int32", "int", "uint", 4, Capability::none, "INT_MIN", "INT_MAX", 0},
        {DataType::uint32, "uint32", "uint", "uint", 4, Capability::none, "0", "UINT_MAX", 0},
        {DataType::int64, "int64", "long", "ulong", 8, Capability::int64, "LONG_MIN", "LONG_MAX",
         0},
        {DataType::uint64, "uint64", "ulong", "ulong", 8, Capability::int64, "0", "ULONG_MAX", 0},
        {DataType::float32, "float", "float", nullptr, 4, Capability::none, "-INFINITY", "INFINITY",
         0x1p-24},
        {DataType::float64, "double", "double", nullptr, 8, Capability::fp64, "-INFINITY",
         "INFINITY", 0x1p-53},
    };
    return types;
}

const TypeInfo& info(DataType type) {
    return all_types().at(static_cast<std::size_t>(type));
}

std::string name_of(DataType type) {
    return info(type).name;
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
    return visit_type(type, [&](auto zero) -> Scalar {
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
