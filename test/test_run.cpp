#include "catch_compat.hpp"
#include "tool/run.hpp"

using namespace clreduce;

TEST_CASE("a sweep covers every power of two from 2^10 and its largest length", "[run]") {
    CHECK(sweep_lengths(4096) == std::vector<std::uint64_t>{1024, 2048, 4096});
    CHECK(sweep_lengths(5000) == std::vector<std::uint64_t>{1024, 2048, 4096, 5000});
    CHECK(sweep_lengths(100) == std::vector<std::uint64_t>{100});
    const auto huge = sweep_lengths(std::uint64_t{1} << 63);
    CHECK(huge.size() == 54);
    CHECK(huge.back() == std::uint64_t{1} << 63);
}
