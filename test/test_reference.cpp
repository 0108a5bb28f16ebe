#include "catch_compat.hpp"
#include "clreduce/reference.hpp"

#include <climits>

using namespace clreduce;

TEST_CASE("the host sum wraps around in 32 bits", "[reference]") {
    const std::vector<cl_int> values{INT_MAX, 1};
    CHECK(host_reduce(Op::sum, values.data(), 2) == INT_MIN);
    const std::vector<cl_int> minima{INT_MIN, INT_MIN, INT_MIN};
    CHECK(host_reduce(Op::sum, minima.data(), 2) == 0);
    CHECK(host_reduce(Op::sum, minima.data(), 3) == INT_MIN);
    CHECK(combine(Op::sum, INT_MIN, -1) == INT_MAX);
}

TEST_CASE("the host min sees the extremes", "[reference]") {
    const std::vector<cl_int> values{5, INT_MAX, INT_MIN, 7};
    CHECK(host_reduce(Op::min, values.data(), 2) == 5);
    CHECK(host_reduce(Op::min, values.data(), 4) == INT_MIN);
    const std::vector<cl_int> maxima(1000, INT_MAX);
    CHECK(host_reduce(Op::min, maxima.data(), maxima.size()) == INT_MAX);
}

TEST_CASE("the host reference agrees with a plain loop on random input", "[reference]") {
    const auto values = random_values(3000017, 7);
    for (const auto op : {Op::sum, Op::min}) {
        cl_int expected = op == Op::sum ? 0 : INT_MAX;
        for (const auto value : values)
            expected = combine(op, expected, value);
        CHECK(host_reduce(op, values.data(), values.size()) == expected);
    }
}

TEST_CASE("random input depends only on seed and index", "[reference]") {
    const auto longer = random_values(5000, 42);
    const auto shorter = random_values(1000, 42);
    CHECK(std::equal(shorter.begin(), shorter.end(), longer.begin()));
    CHECK(random_values(1000, 43) != shorter);
    // Spread over the whole range: both signs, and sums that overflow.
    CHECK(std::any_of(longer.begin(), longer.end(), [](cl_int v) { return v < -(1 << 30); }));
    CHECK(std::any_of(longer.begin(), longer.end(), [](cl_int v) { return v > (1 << 30); }));
}
