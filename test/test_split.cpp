#include "catch_compat.hpp"
#include "clreduce/split.hpp"

#include <algorithm>
#include <numeric>

using namespace clreduce;

TEST_CASE("shares follow the devices' speeds and cover the input", "[split]") {
    const auto shares = split_shares(1000, {3.0, 1.0});
    CHECK(shares == std::vector<std::uint64_t>{750, 250});
    CHECK(split_shares(1001, {2.5, 2.5}) == std::vector<std::uint64_t>{500, 501});
    for (const std::uint64_t length : {2, 3, 7, 1000003})
        for (const auto& speeds : std::vector<std::vector<double>>{
                 {1, 1}, {1, 100}, {5, 1, 2}, {1000, 1, 1}, {1, 1, 1, 1}}) {
            if (length < speeds.size())
                continue;
            const auto split = split_shares(length, speeds);
            INFO("length " << length);
            CHECK(split.size() == speeds.size());
            CHECK(std::accumulate(split.begin(), split.end(), std::uint64_t{0}) == length);
            for (const auto share : split)
                CHECK(share >= 1); // every device gets work while there is enough
        }
}

TEST_CASE("a slow device among fast ones still gets a value", "[split]") {
    CHECK(split_shares(10, {1000, 1, 1}) == std::vector<std::uint64_t>{8, 1, 1});
    CHECK(split_shares(3, {1, 1000, 1}) == std::vector<std::uint64_t>{1, 1, 1});
}

TEST_CASE("equal devices get shares that differ by at most one value", "[split]") {
    for (const std::uint64_t length : {4, 7, 10, 1000003}) {
        const auto split = split_shares(length, {2, 2, 2, 2});
        INFO("length " << length);
        CHECK(*std::max_element(split.begin(), split.end()) -
                  *std::min_element(split.begin(), split.end()) <=
              1);
    }
}
