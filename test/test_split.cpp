#include "catch_compat.hpp"
#include "clreduce/split.hpp"

#include <numeric>

using namespace clreduce;

TEST_CASE("shares follow the devices' speeds and cover the input", "[split]") {
    const auto shares = split_shares(1000, {3.0, 1.0});
    CHECK(shares == std::vector<std::uint64_t>{750, 250});
    CHECK(split_shares(1001, {2.5, 2.5}) == std::vector<std::uint64_t>{500, 501});
    for (const std::uint64_t length : {2, 3, 7, 1000003})
        for (const auto& speeds : std::vector<std::vector<double>>{{1, 1}, {1, 100}, {5, 1, 2}}) {
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
