// The host's side of exact sums: the accumulator's rounding against values worked out by
// hand, and the host reference (Shewchuk's expansions) on inputs that defeat plain sums.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace clreduce;

namespace {

template <typename T>
T rounded_sum(const std::vector<double>& values) {
    ExactAccumulator sum(std::is_same_v<T, float> ? DataType::float32 : DataType::float64);
    for (const auto value : values)
        sum.add(value);
    return std::get<T>(sum.rounded());
}

template <typename T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename T>
T host_sum(const std::vector<T>& values) {
    const auto type = std::is_same_v<T, float> ? DataType::float32 : DataType::float64;
    return std::get<T>(
        exact_host_sum(ValuesView(type, values.data(), values.size(), Origin::given)));
}

} // namespace

TEST_CASE("the accumulator rounds a tie to even", "[exact]") {
    const double half_ulp = 0x1p-24; // of 1 in float
    CHECK(rounded_sum<float>({1, half_ulp}) == 1.0f);
    CHECK(rounded_sum<float>({1, half_ulp, half_ulp, half_ulp}) == 1 + 0x1p-22f);
    CHECK(rounded_sum<float>({1, half_ulp, 0x1p-60}) == 1 + 0x1p-23f); // past the tie: up
    CHECK(rounded_sum<double>({1, 0x1p-53}) == 1.0);
    CHECK(rounded_sum<double>({1, 0x1p-52, 0x1p-53}) == 1 + 0x1p-51);
    CHECK(rounded_sum<double>({-1, -0x1p-53, -0x1p-52}) == -(1 + 0x1p-51));
}

TEST_CASE("the accumulator keeps subnormals and cancels exactly", "[exact]") {
    const double tiny = std::numeric_limits<float>::denorm_min();
    CHECK(rounded_sum<float>({tiny, tiny, tiny}) == 3 * std::numeric_limits<float>::denorm_min());
    CHECK(rounded_sum<float>({1e30, tiny, -1e30}) == std::numeric_limits<float>::denorm_min());
    const double smallest = std::numeric_limits<double>::denorm_min();
    CHECK(rounded_sum<double>({1e308, smallest, -1e308, smallest}) == 2 * smallest);
    CHECK(rounded_sum<double>({-smallest}) == -smallest);
}

TEST_CASE("an exact zero is +0", "[exact]") {
    CHECK(same_bits(rounded_sum<float>({1, -1}), 0.0f));
    CHECK(same_bits(rounded_sum<double>({-0.0, -0.0}), 0.0));
}

TEST_CASE("the accumulator overflows to infinity as IEEE rounding does", "[exact]") {
    const double largest = std::numeric_limits<float>::max();
    const double half_ulp = 0x1p103; // of the largest float
    CHECK(rounded_sum<float>({largest, largest, -largest}) == std::numeric_limits<float>::max());
    CHECK(rounded_sum<float>({largest, half_ulp / 2}) == std::numeric_limits<float>::max());
    CHECK(std::isinf(rounded_sum<float>({largest, half_ulp})));
    CHECK(rounded_sum<float>({-largest, -largest}) == -std::numeric_limits<float>::infinity());
    const double most = std::numeric_limits<double>::max();
    CHECK(rounded_sum<double>({most, most, -most}) == most);
    CHECK(rounded_sum<double>({most, most}) == HUGE_VAL);
}

TEST_CASE("NaN and infinities decide the sum as IEEE addition does", "[exact]") {
    const double inf = HUGE_VAL;
    CHECK(std::isnan(rounded_sum<double>({1, NAN, 2})));
    CHECK(std::isnan(rounded_sum<float>({inf, 1, -inf})));
    CHECK(rounded_sum<float>({1, inf, 3e38, 3e38}) == HUGE_VALF);
    CHECK(rounded_sum<double>({-inf, 1e308, 1e308}) == -inf);
}

TEST_CASE("rows add up in any order to the same bits", "[exact]") {
    ExactAccumulator a(DataType::float64), b(DataType::float64), whole(DataType::float64);
    const std::vector<double> values{1e300, -3.5, 0x1p-1074, -1e300, 7e-300, 1e16, 1};
    for (std::size_t i = 0; i < values.size(); ++i) {
        (i % 2 ? a : b).add(values[i]);
        whole.add(values[i]);
    }
    ExactAccumulator ab = a, ba = b;
    ab.add(b);
    ba.add(a);
    CHECK(ab.row() == whole.row());
    CHECK(ba.row() == whole.row());
    CHECK(same_bits(std::get<cl_double>(ab.rounded()), 1e16 - 2.5 + 7e-300));
}

TEST_CASE("the host's exact sum defeats cancellation", "[exact]") {
    std::vector<float> floats;
    for (int i = 0; i < 100000; ++i)
        floats.insert(floats.end(), {1e8f, 1.0f, -1e8f});
    CHECK(host_sum(floats) == 100000.0f);
    const double most = std::numeric_limits<double>::max();
    CHECK(host_sum(std::vector<double>{most, most, -most, -most, 1}) == 1.0); // no overflow
    CHECK(host_sum(std::vector<double>{most, 0x1p970}) == HUGE_VAL);          // the tie rounds up
}

TEST_CASE("only floating-point types have exact sums", "[exact]") {
    CHECK(exact_sums(DataType::float32));
    CHECK(exact_sums(DataType::bfloat16));
    CHECK_FALSE(exact_sums(DataType::int64));
    CHECK_THROWS_AS(ExactAccumulator(DataType::int32), Error);
}

TEST_CASE("float16 and bfloat16 sums are exact and rounded to float", "[exact]") {
    CHECK(ExactAccumulator(DataType::float16).type() == DataType::float32);
    std::vector<Half> halves;
    std::vector<BFloat16> bfloats;
    for (int i = 0; i < 1000; ++i) {
        halves.insert(halves.end(), {to_half(2048), to_half(1), to_half(-2048), to_half(0x1p-24f)});
        bfloats.insert(bfloats.end(), {to_bfloat16(0x1p30f), to_bfloat16(1), to_bfloat16(-0x1p30f),
                                       to_bfloat16(0x1p-20f)});
    }
    const auto sum_of = [](DataType type, const auto& values) {
        return std::get<cl_float>(
            exact_host_sum(ValuesView(type, values.data(), values.size(), Origin::given)));
    };
    // 2^-24 is float16's smallest subnormal; each sum is one rounding of exact operands.
    CHECK(sum_of(DataType::float16, halves) == 1000 + 1000 * 0x1p-24f);
    CHECK(sum_of(DataType::bfloat16, bfloats) == 1000 + 1000 * 0x1p-20f);
}
