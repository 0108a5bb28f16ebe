#include "../../src/tool/partition.hpp"
#include "catch_compat.hpp"

using namespace clreduce;

TEST_CASE("ranks' slices cover the input in order, lengths differing by one at most",
          "[mpi][partition]") {
    const std::uint64_t total = GENERATE(0, 1, 2, 3, 4, 7, 1000003);
    const std::uint64_t ranks = GENERATE(1, 2, 3, 4, 5);
    INFO("total " << total << ", ranks " << ranks);
    std::uint64_t next = 0;
    for (std::uint64_t rank = 0; rank < ranks; ++rank) {
        const auto slice = slice_of(total, ranks, rank);
        CHECK(slice.first == next);
        CHECK(slice.length >= total / ranks);
        CHECK(slice.length <= total / ranks + 1);
        next += slice.length;
    }
    CHECK(next == total);
}

TEST_CASE("with fewer values than ranks, the last ranks get none", "[mpi][partition]") {
    CHECK(slice_of(2, 4, 0).length == 1);
    CHECK(slice_of(2, 4, 1).length == 1);
    CHECK(slice_of(2, 4, 2).length == 0);
    CHECK(slice_of(2, 4, 3).length == 0);
}
