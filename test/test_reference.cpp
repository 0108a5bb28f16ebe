#include "catch_compat.hpp"
#include "clreduce/reference.hpp"

#include <climits>

using namespace clreduce;

namespace {

template <typename T>
Scalar reduce(Op op, std::vector<T> values) {
    const auto length = values.size();
    return host_reduce(op, HostValues(std::move(values)), length).value;
}

} // namespace

TEST_CASE("integer sums wrap around in the type's width", "[reference]") {
    CHECK(reduce(Op::sum, std::vector<cl_int>{INT_MAX, 1}) == Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_int>{INT_MIN, INT_MIN, INT_MIN}) ==
          Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_uint>{UINT_MAX, 2}) == Scalar(cl_uint{1}));
    CHECK(reduce(Op::sum, std::vector<cl_long>{LLONG_MAX, 1}) == Scalar(cl_long{LLONG_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_ulong>{ULLONG_MAX, ULLONG_MAX}) ==
          Scalar(cl_ulong{ULLONG_MAX - 1}));
    CHECK(combine(Op::sum, cl_int{INT_MIN}, cl_int{-1}) == INT_MAX);
}

TEST_CASE("min and max see the extremes of every type", "[reference]") {
    CHECK(reduce(Op::min, std::vector<cl_int>{5, INT_MAX, INT_MIN, 7}) == Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::max, std::vector<cl_int>{5, INT_MIN, 7}) == Scalar(cl_int{7}));
    CHECK(reduce(Op::max, std::vector<cl_uint>{0, UINT_MAX, 3}) == Scalar(cl_uint{UINT_MAX}));
    CHECK(reduce(Op::min, std::vector<cl_ulong>{9, 0, 3}) == Scalar(cl_ulong{0}));
    CHECK(reduce(Op::min, std::vector<cl_long>{LLONG_MAX}) == Scalar(cl_long{LLONG_MAX}));
    CHECK(reduce(Op::max, std::vector<cl_double>{-1.5, -0.25}) == Scalar(cl_double{-0.25}));
    CHECK(reduce(Op::min, std::vector<cl_float>{1.0f, -3.5f, 2.0f}) == Scalar(cl_float{-3.5f}));
}

TEST_CASE("floating-point min and max ignore a NaN, as OpenCL C's fmin and fmax do",
          "[reference]") {
    const auto nan = std::numeric_limits<cl_float>::quiet_NaN();
    CHECK(reduce(Op::min, std::vector<cl_float>{nan, 2.0f, 1.0f}) == Scalar(cl_float{1.0f}));
    CHECK(reduce(Op::max, std::vector<cl_float>{2.0f, nan}) == Scalar(cl_float{2.0f}));
}

TEST_CASE("floating-point sums are compensated, with the sum of magnitudes beside them",
          "[reference]") {
    // 1 + 2^-60 + ... - 1: a plain double sum loses every small term.
    std::vector<cl_double> values{1.0};
    for (int i = 0; i < 1000; ++i)
        values.push_back(0x1p-60);
    values.push_back(-1.0);
    const auto reference = host_reduce(Op::sum, values, values.size());
    CHECK(std::get<cl_double>(reference.value) == 1000 * 0x1p-60);
    CHECK(reference.magnitude >= 2.0);

    // A float sum is rounded once, from a double sum.
    const std::vector<cl_float> floats{16777216.0f, 1.0f, 1.0f};
    CHECK(host_reduce(Op::sum, floats, 3).value == Scalar(cl_float{16777218.0f}));
}

TEST_CASE("the host reference agrees with a plain loop on random input", "[reference]") {
    for (const auto& type : all_types())
        for (const auto op : {Op::sum, Op::min, Op::max}) {
            if (type.floating() && op == Op::sum)
                continue; // the loop's rounding differs; the test above covers the sum
            INFO(type.name << " " << name_of(op));
            const auto values = random_values(type.type, 300017, 7);
            std::visit(
                [&](const auto& vector) {
                    using T = typename std::decay_t<decltype(vector)>::value_type;
                    T expected = identity_of<T>(op);
                    for (const auto value : vector)
                        expected = combine(op, expected, value);
                    CHECK(host_reduce(op, values, vector.size()).value == Scalar(expected));
                },
                values);
        }
}

TEST_CASE("random input depends only on seed and index", "[reference]") {
    for (const auto& type : all_types()) {
        INFO(type.name);
        const auto longer = random_values(type.type, 5000, 42);
        auto shorter = random_values(type.type, 1000, 42);
        CHECK(type_of(longer) == type.type);
        std::visit(
            [&](auto& short_values) {
                const auto& long_values = std::get<std::decay_t<decltype(short_values)>>(longer);
                CHECK(std::equal(short_values.begin(), short_values.end(), long_values.begin()));
            },
            shorter);
        CHECK(random_values(type.type, 1000, 43) != shorter);
    }
    // Integers spread over the whole range, so that sums overflow; floats in [-1, 1).
    const auto ints = std::get<std::vector<cl_int>>(random_values(DataType::int32, 5000, 42));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v < -(1 << 30); }));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v > (1 << 30); }));
    const auto floats = std::get<std::vector<cl_float>>(random_values(DataType::float32, 5000, 42));
    CHECK(std::all_of(floats.begin(), floats.end(), [](cl_float v) { return v >= -1 && v < 1; }));
    CHECK(*std::min_element(floats.begin(), floats.end()) < -0.99f);
    CHECK(*std::max_element(floats.begin(), floats.end()) > 0.99f);
}

TEST_CASE("every type's table row names itself", "[types]") {
    for (const auto& type : all_types()) {
        CHECK(info(type.type).name == type.name);
        CHECK(to_string(scalar_from_bytes(type.type, "\0\0\0\0\0\0\0\0")) == "0");
    }
    CHECK(to_string(Scalar(cl_float{0.1f})) == "0.100000001");
    CHECK(to_string(Scalar(cl_long{LLONG_MIN})) == "-9223372036854775808");
}

TEST_CASE("non-finite values print as nan, inf and -inf, whatever a NaN's sign", "[types]") {
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    CHECK(to_string(Scalar(nan)) == "nan");
    CHECK(to_string(Scalar(-nan)) == "nan");
    CHECK(to_string(Scalar(static_cast<cl_float>(-nan))) == "nan");
    CHECK(to_string(Scalar(std::numeric_limits<cl_float>::infinity())) == "inf");
    CHECK(to_string(Scalar(-std::numeric_limits<cl_double>::infinity())) == "-inf");
}

TEST_CASE("memory sizes print in one set of binary units", "[types]") {
    CHECK(bytes_text(100, 4) == "400 B");
    CHECK(bytes_text(1 << 20, 4) == "4.0 MiB");
    CHECK(bytes_text(std::uint64_t{1} << 32, 4) == "16.0 GiB");
    CHECK(bytes_text(std::uint64_t{1} << 60, 4) == "4.0 EiB");
    CHECK(bytes_text(UINT64_MAX, 8) == "128.0 EiB");
}
