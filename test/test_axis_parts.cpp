// How clreduce -d and clreduce-mpi split an array along axes (src/tool/axis_parts.cpp): the
// parts cover the array in order, each contiguous, and where they split a reduced axis each
// counts its values' indices from where it begins among its results' values.

#include "catch_compat.hpp"
#include "tool/axis_parts.hpp"

using namespace clreduce;

namespace {

/// Every part of `parts` along `axes`: consecutive values, together the whole array, each
/// holding the values its shape says.
std::vector<AxisPart> checked_parts(const Shape& shape, const std::vector<int>& axes,
                                    std::uint64_t parts) {
    const auto steps = axis_steps(shape, axes);
    std::vector<AxisPart> all;
    std::uint64_t next = 0;
    for (std::uint64_t k = 0; k < parts; ++k) {
        all.push_back(axis_part(shape, axes, steps, parts, k));
        INFO("part " << k << " of " << parts);
        CHECK(all.back().first == next);
        next += all.back().shape.values();
    }
    CHECK(next == shape.values());
    return all;
}

} // namespace

TEST_CASE("parts split the blocks, whose results follow one another", "[unit][axes]") {
    const Shape shape{{7, 40, 50}, Order::c};
    const auto parts = checked_parts(shape, {1}, 2);
    CHECK(axis_positions(shape, axis_steps(shape, {1})) == 7);
    CHECK(parts[0].split == "blocks");
    CHECK(parts[0].count == 4); // the first parts one longer, as slice_of() gives
    CHECK(parts[1].begin == 4);
    CHECK_FALSE(parts[1].combined);
    CHECK(parts[0].results() + parts[1].results() == 7 * 50);
}

TEST_CASE("parts split a reduced leading axis's rows, counting indices from their first row",
          "[unit][axes]") {
    const Shape shape{{1001, 37}, Order::c};
    const auto parts = checked_parts(shape, {0}, 3);
    for (const auto& part : parts) {
        CHECK(part.split == "rows");
        CHECK(part.combined);
        CHECK(part.index_base == part.begin);
        CHECK(part.results() == 37); // an array of the whole result's length
    }
    CHECK(parts[2].begin == 668);
}

TEST_CASE("parts split axes apart by slices of the outermost axis in memory", "[unit][axes]") {
    SECTION("C order, the outermost axis reduced: indices from the slice times the rest") {
        const Shape shape{{7, 40, 50}, Order::c};
        const auto parts = checked_parts(shape, {0, 2}, 2);
        CHECK(parts[1].split == "slices");
        CHECK(parts[1].split_axis == 0);
        CHECK(parts[1].combined);
        CHECK(parts[1].begin == 4);
        CHECK(parts[1].index_base == 4 * 50); // 4 slices of 50 values of each result before it
        CHECK(parts[1].results() == 40);
    }
    SECTION("C order, the outermost axis kept: the results follow one another") {
        const Shape shape{{6, 5, 7, 3}, Order::c};
        const auto parts = checked_parts(shape, {-1, 1}, 4);
        CHECK_FALSE(parts[0].combined);
        CHECK(parts[0].index_base == 0);
        CHECK(parts[3].results() == 1 * 7); // one slice of the 6 x 7 result
    }
    SECTION("Fortran order: the last axis is the outermost") {
        const Shape shape{{5, 8, 25}, Order::fortran};
        const auto parts = checked_parts(shape, {0, 2}, 3);
        CHECK(parts[0].split_axis == 2);
        CHECK(parts[1].combined);
        CHECK(parts[1].index_base == parts[1].begin * 5);
    }
    SECTION("more parts than slices: the last parts are empty") {
        const Shape shape{{3, 5, 4}, Order::c};
        const auto parts = checked_parts(shape, {2, 0}, 4);
        CHECK(parts[3].count == 0);
        CHECK(parts[3].results() == 5); // the identity, which the combination takes
    }
}
