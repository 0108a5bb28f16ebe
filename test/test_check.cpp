#include "catch_compat.hpp"
#include "detail/measure.hpp"

#include <cfloat>
#include <cmath>

using namespace clreduce;

namespace {

template <typename T>
Check check_of(std::vector<T> values, Origin origin = Origin::given, Op op = Op::sum) {
    const auto length = values.size();
    const HostValues host(std::move(values));
    return check_for(type_of(host), op, host_reduce(op, host, length), origin);
}

/// A measurement of one run that gave `result`, against the reference of `values`.
template <typename T>
Measurement measured(T result, std::vector<T> values, Origin origin = Origin::given) {
    Measurement measurement;
    const auto length = values.size();
    const HostValues host(std::move(values));
    measurement.type = type_of(host);
    measurement.expected = host_reduce(Op::sum, host, length);
    measurement.check = check_for(measurement.type, Op::sum, measurement.expected, origin);
    measurement.tolerance = measurement.check == Check::bound ? 1e-3 : 0;
    measurement.runs.push_back({Scalar(result), {}, 0, 0, 0});
    return measurement;
}

} // namespace

TEST_CASE("integers, min and max are checked exactly", "[check]") {
    CHECK(check_of(std::vector<cl_int>{1, 2}) == Check::exact);
    CHECK(check_of(std::vector<cl_float>{0.1f, 0.7f}, Origin::given, Op::min) == Check::exact);
    CHECK(check_of(std::vector<cl_double>{DBL_MAX, DBL_MAX}, Origin::given, Op::max) ==
          Check::exact);
}

TEST_CASE("a floating-point sum is exact where every partial sum is, else bound", "[check]") {
    // clreduce's own draw, at any length where no partial sum leaves the integers the type
    // holds, short of a chance below 10^-16: floats whose magnitudes add up to 2^35 at most.
    CHECK(check_of(std::vector<cl_float>{2, 3}, Origin::drawn) == Check::exact);
    const auto drawn = [](double magnitude) {
        return check_for(DataType::float32, Op::sum, {Scalar(cl_float{1}), "", magnitude, 1},
                         Origin::drawn);
    };
    CHECK(drawn(0x1p30) == Check::exact);
    CHECK(drawn(0x1p35) == Check::exact);
    CHECK(drawn(0x1p35 + 1) == Check::bound);
    CHECK(check_for(DataType::float64, Op::sum, {Scalar(cl_double{1}), "", 0x1p40, 1},
                    Origin::drawn) == Check::exact);
    // Multiples of 2^-2 whose magnitudes add up to less than 2^24 * 2^-2.
    CHECK(check_of(std::vector<cl_float>{0.25f, -3.5f, 0x1p21f}) == Check::exact);
    CHECK(check_of(std::vector<cl_float>{0.25f, -3.5f, 0x1p22f}) == Check::bound);
    // Multiples of 2^-60 whose magnitudes add up to less than 2^53 * 2^-60, and to just that.
    CHECK(check_of(std::vector<cl_double>{0x1p-60, -0x1p-8}) == Check::exact);
    CHECK(check_of(std::vector<cl_double>{0x1p-60, -0x1p-7}) == Check::bound);
    CHECK(check_of(std::vector<cl_float>{0.1f, 0.7f}) == Check::bound);
    // Subnormal grains are left to the bound: a device may flush them to zero.
    CHECK(check_of(std::vector<cl_float>{0x1p-149f, 1e-40f}) == Check::bound);
    CHECK(check_of(std::vector<cl_float>{0, -0.0f}) == Check::exact);
    // A NaN or an infinity in the input decides the sum: exact.
    CHECK(check_of(std::vector<cl_float>{0.1f, INFINITY}) == Check::exact);
    CHECK(check_of(std::vector<cl_double>{0.1, NAN}) == Check::exact);
    // Magnitudes past half the range: some order of additions overflows.
    CHECK(check_of(std::vector<cl_float>{FLT_MAX / 2, -1}) == Check::unchecked);
    CHECK(check_of(std::vector<cl_double>{DBL_MAX, -DBL_MAX}) == Check::unchecked);
    CHECK(check_of(std::vector<cl_float>{FLT_MAX / 4, -1, NAN}) == Check::exact);
}

TEST_CASE("the exact check matches NaN with NaN and +0 with -0, and nothing else", "[check]") {
    CHECK(measured(cl_float{NAN}, std::vector<cl_float>{1, NAN}).valid());
    CHECK(measured(cl_double{NAN}, std::vector<cl_double>{INFINITY, -INFINITY}).valid());
    CHECK(measured(cl_float{INFINITY}, std::vector<cl_float>{1, INFINITY}).valid());
    CHECK_FALSE(measured(cl_float{-INFINITY}, std::vector<cl_float>{1, INFINITY}).valid());
    CHECK_FALSE(measured(cl_float{NAN}, std::vector<cl_float>{1, INFINITY}).valid());
    CHECK_FALSE(measured(cl_float{1}, std::vector<cl_float>{1, NAN}).valid());
    CHECK(measured(cl_float{-0.0f}, std::vector<cl_float>{0, 0}).valid());
    CHECK(measured(cl_double{0.0}, std::vector<cl_double>{-0.0, -0.0}).valid());
    CHECK_FALSE(measured(cl_float{6}, std::vector<cl_float>{2, 3}, Origin::drawn).valid());
    CHECK(measured(cl_float{6}, std::vector<cl_float>{2, 3}, Origin::drawn).largest_error() == 1);
    CHECK(std::isnan(measured(cl_float{NAN}, std::vector<cl_float>{2, 3}).largest_error()));
}

TEST_CASE("the bound holds finite results to the tolerance and refuses NaN and infinities",
          "[check]") {
    CHECK(measured(cl_float{0.8f}, std::vector<cl_float>{0.1f, 0.7f}).valid());
    CHECK_FALSE(measured(cl_float{0.81f}, std::vector<cl_float>{0.1f, 0.7f}).valid());
    CHECK_FALSE(measured(cl_float{NAN}, std::vector<cl_float>{0.1f, 0.7f}).valid());
    CHECK_FALSE(measured(cl_float{INFINITY}, std::vector<cl_float>{0.1f, 0.7f}).valid());
}

TEST_CASE("an unchecked sum accepts any result, an overflow included", "[check]") {
    CHECK(measured(cl_float{INFINITY}, std::vector<cl_float>{FLT_MAX, FLT_MAX, -FLT_MAX}).valid());
    CHECK(measured(cl_double{NAN}, std::vector<cl_double>{DBL_MAX, DBL_MAX, -DBL_MAX}).valid());
}

TEST_CASE("a wrong result in a wait fails the measurement as one in a run does", "[check]") {
    auto measurement = measured(cl_int{5}, std::vector<cl_int>{2, 3});
    measurement.waits.push_back({Scalar(cl_int{5}), {}, 0, 0, 0});
    CHECK(measurement.valid());
    measurement.waits.push_back({Scalar(cl_int{4}), {}, 0, 0, 0});
    CHECK_FALSE(measurement.valid());
    CHECK(measurement.largest_error() == 1);
    CHECK(measurement.results().size() == 3);
}

TEST_CASE("the host's wait is the waits' where there are any, else the runs'", "[check]") {
    auto measurement = measured(cl_int{5}, std::vector<cl_int>{2, 3});
    measurement.runs.front().host_us = 30;
    CHECK(measurement.observed_us().min == 30);
    measurement.waits.push_back({Scalar(cl_int{5}), {}, 0, 0, 0, 12});
    CHECK(measurement.observed_us().min == 12);
}
