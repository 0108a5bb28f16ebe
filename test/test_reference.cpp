#include "catch_compat.hpp"
#include "clreduce/reference.hpp"

#include <climits>
#include <cmath>
#include <set>

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

TEST_CASE("min and max of NaN alone give the identity, so never NaN", "[reference]") {
    CHECK(reduce(Op::min, std::vector<cl_float>{NAN, NAN}) == Scalar(cl_float{INFINITY}));
    CHECK(reduce(Op::max, std::vector<cl_double>{NAN}) == Scalar(cl_double{-INFINITY}));
}

TEST_CASE("a floating-point sum with a NaN or an infinity is what IEEE addition makes it",
          "[reference]") {
    const auto inf = std::numeric_limits<cl_double>::infinity();
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    CHECK(reduce(Op::sum, std::vector<cl_double>{1, inf, 2}) == Scalar(inf));
    CHECK(reduce(Op::sum, std::vector<cl_float>{1, -INFINITY, 2}) == Scalar(-INFINITY));
    CHECK(same_value(reduce(Op::sum, std::vector<cl_double>{inf, 1, -inf}), Scalar(nan)));
    CHECK(same_value(reduce(Op::sum, std::vector<cl_float>{1, NAN}), Scalar(cl_float{NAN})));
    // Across the parallel chunks, the infinity in one of them and finite sums in the others.
    std::vector<cl_double> long_input(300007, 1.5);
    long_input[200000] = -inf;
    CHECK(reduce(Op::sum, long_input) == Scalar(-inf));
    // The magnitude and the grain are the finite values'.
    const auto reference = host_reduce(Op::sum, std::vector<cl_double>{0.75, inf, -2.5, 0}, 4);
    CHECK(reference.magnitude == 3.25);
    CHECK(reference.grain == 0.25);
    CHECK(host_reduce(Op::sum, std::vector<cl_float>{0, -0.0f}, 2).grain == inf);
    CHECK(host_reduce(Op::sum, std::vector<cl_float>{0x1p-149f, 3}, 2).grain == 0x1p-149);
}

TEST_CASE("a result equals the reference when both are NaN, and +0 equals -0", "[reference]") {
    CHECK(same_value(Scalar(cl_float{NAN}), Scalar(cl_float{-NAN})));
    CHECK(same_value(Scalar(cl_double{-0.0}), Scalar(cl_double{0.0})));
    CHECK(same_value(Scalar(cl_double{INFINITY}), Scalar(cl_double{INFINITY})));
    CHECK_FALSE(same_value(Scalar(cl_double{INFINITY}), Scalar(cl_double{-INFINITY})));
    CHECK_FALSE(same_value(Scalar(cl_float{NAN}), Scalar(cl_float{1})));
    CHECK_FALSE(same_value(Scalar(cl_int{1}), Scalar(cl_int{2})));
}

TEST_CASE("the host reference names the method it ran", "[reference]") {
    const auto float_sum = host_reduce(Op::sum, std::vector<cl_float>{1, 2}, 2);
    CHECK(float_sum.method == host_reduce_method(Op::sum, DataType::float32));
    CHECK(float_sum.method.find("compensated (Neumaier) sum in double") == 0);
    CHECK(host_reduce(Op::max, std::vector<cl_float>{1, 2}, 2).method.find("std::reduce") == 0);
    CHECK(host_reduce(Op::sum, std::vector<cl_int>{1, 2}, 2).method.find("std::reduce") == 0);
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
    // A floating-point sum too: its random values are small integers, exact in any order.
    for (const auto& type : all_types())
        for (const auto op : {Op::sum, Op::min, Op::max}) {
            INFO(type.name << " " << name_of(op));
            const auto values = random_values(type.type, op, 300017, 7);
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
    for (const auto& type : all_types())
        for (const auto op : {Op::sum, Op::min, Op::max}) {
            INFO(type.name << " " << name_of(op));
            const auto longer = random_values(type.type, op, 5000, 42);
            auto shorter = random_values(type.type, op, 1000, 42);
            CHECK(type_of(longer) == type.type);
            std::visit(
                [&](auto& short_values) {
                    const auto& long_values =
                        std::get<std::decay_t<decltype(short_values)>>(longer);
                    CHECK(
                        std::equal(short_values.begin(), short_values.end(), long_values.begin()));
                },
                shorter);
            CHECK(random_values(type.type, op, 1000, 43) != shorter);
        }
    // Integers spread over the whole range, so that sums overflow; floats for min and max in
    // [-1, 1).
    const auto ints =
        std::get<std::vector<cl_int>>(random_values(DataType::int32, Op::sum, 5000, 42));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v < -(1 << 30); }));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v > (1 << 30); }));
    const auto floats =
        std::get<std::vector<cl_float>>(random_values(DataType::float32, Op::min, 5000, 42));
    CHECK(std::all_of(floats.begin(), floats.end(), [](cl_float v) { return v >= -1 && v < 1; }));
    CHECK(*std::min_element(floats.begin(), floats.end()) < -0.99f);
    CHECK(*std::max_element(floats.begin(), floats.end()) > 0.99f);
}

TEST_CASE("random floating-point sums are nonzero integers from -8 to 8", "[reference]") {
    const auto doubles =
        std::get<std::vector<cl_double>>(random_values(DataType::float64, Op::sum, 5000, 42));
    std::set<cl_double> drawn(doubles.begin(), doubles.end());
    std::set<cl_double> expected;
    for (int magnitude = 1; magnitude <= largest_random_addend; ++magnitude)
        expected.insert({cl_double(magnitude), -cl_double(magnitude)});
    CHECK(drawn == expected);
    const auto floats =
        std::get<std::vector<cl_float>>(random_values(DataType::float32, Op::sum, 1000, 42));
    CHECK(std::equal(floats.begin(), floats.end(), doubles.begin()));
}

TEST_CASE("every type's table row names itself", "[types]") {
    for (const auto& type : all_types()) {
        CHECK(info(type.type).name == type.name);
        CHECK(to_string(scalar_from_bytes(type.type, "\0\0\0\0\0\0\0\0")) == "0");
    }
    // The shortest text that reads back as the same value, as NumPy's repr.
    CHECK(to_string(Scalar(cl_float{0.1f})) == "0.1");
    CHECK(to_string(Scalar(cl_double{-5.085743453373197})) == "-5.085743453373197");
    CHECK(to_string(Scalar(cl_float{-0.999608278f})) == "-0.9996083");
    CHECK(to_string(Scalar(cl_double{1e-300})) == "1e-300");
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
