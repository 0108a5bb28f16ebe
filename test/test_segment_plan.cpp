// The plan of reductions along axes and per segment: plain arithmetic, no device.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/segment_plan.hpp"

using namespace clreduce;

namespace {

SegmentDevice gpu() {
    return segment_device(256, 132, false); // an H100: 1056 work-groups fill it
}

} // namespace

TEST_CASE("axes become blocks, a reduced length and an inner stride", "[segment_plan]") {
    const Shape c{{2, 3, 4, 5}};
    const auto middle = axis_layout(c, {1, 2});
    CHECK(middle.blocks == 2);
    CHECK(middle.length == 12);
    CHECK(middle.inner == 5);
    CHECK(middle.result.extents == std::vector<std::uint64_t>{2, 5});
    const auto last = axis_layout(c, {-1});
    CHECK((last.blocks == 24 && last.length == 5 && last.inner == 1));
    CHECK(axis_layout(c, {0, 1, 2, 3}).result.extents.empty());
    // Fortran order: the first axis is the fastest, so reducing it reduces rows.
    const Shape fortran{{6, 7}, Order::fortran};
    const auto first = axis_layout(fortran, {0});
    CHECK((first.blocks == 7 && first.length == 6 && first.inner == 1));
    CHECK(first.result.extents == std::vector<std::uint64_t>{7});
    CHECK(first.result.order == Order::fortran);
}

TEST_CASE("axes out of range, repeated or apart are refused", "[segment_plan]") {
    const Shape shape{{2, 3, 4}};
    const auto cause_of = [&](std::vector<int> axes) {
        try {
            axis_layout(shape, axes);
        } catch (const Error& error) {
            return error.cause();
        }
        FAIL("accepted");
        return Errc::opencl;
    };
    CHECK(cause_of({3}) == Errc::invalid_argument);
    CHECK(cause_of({-4}) == Errc::invalid_argument);
    CHECK(cause_of({1, -2}) == Errc::invalid_argument);
    CHECK(cause_of({}) == Errc::invalid_argument);
    CHECK(cause_of({0, 2}) == Errc::unsupported);
}

TEST_CASE("each result's values lie at its first value plus the reduced offsets",
          "[segment_plan]") {
    using Offsets = std::vector<std::uint64_t>;
    const auto middle = axis_offsets(Shape{{2, 3, 4}}, {1});
    CHECK(middle.results == Offsets{0, 1, 2, 3, 12, 13, 14, 15});
    CHECK(middle.reduced == Offsets{0, 4, 8});
    // Fortran order: axis 0 is the fastest; the results follow the memory's order.
    const auto first = axis_offsets(Shape{{2, 3, 4}, Order::fortran}, {0});
    CHECK(first.results == Offsets{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22});
    CHECK(first.reduced == Offsets{0, 1});
    const auto apart = axis_offsets(Shape{{2, 3, 4}}, {0, 2});
    CHECK(apart.results == Offsets{0, 4, 8});
    CHECK(apart.reduced == Offsets{0, 1, 2, 3, 12, 13, 14, 15});
    CHECK(axis_offsets(Shape{{2, 0, 3}}, {1}).reduced.empty());
}

TEST_CASE("axes apart become steps, the innermost run of adjacent axes first", "[segment_plan]") {
    using Extents = std::vector<std::uint64_t>;
    const auto c = axis_steps(Shape{{2, 3, 4}}, {0, 2});
    REQUIRE(c.size() == 2);
    CHECK((c[0].blocks == 6 && c[0].length == 4 && c[0].inner == 1));
    CHECK((c[1].blocks == 1 && c[1].length == 2 && c[1].inner == 3));
    CHECK(c[1].result.extents == Extents{3});
    // Fortran order: axis 0 is the innermost, reduced first as rows.
    const auto fortran = axis_steps(Shape{{2, 3, 4}, Order::fortran}, {2, 0});
    REQUIRE(fortran.size() == 2);
    CHECK((fortran[0].blocks == 12 && fortran[0].length == 2 && fortran[0].inner == 1));
    CHECK((fortran[1].blocks == 1 && fortran[1].length == 4 && fortran[1].inner == 3));
    CHECK(fortran[1].result.extents == Extents{3});
    CHECK(fortran[1].result.order == Order::fortran);
    // A run of two adjacent axes is one step.
    const auto runs = axis_steps(Shape{{2, 3, 4, 5}}, {0, 1, 3});
    REQUIRE(runs.size() == 2);
    CHECK((runs[0].blocks == 24 && runs[0].length == 5 && runs[0].inner == 1));
    CHECK((runs[1].blocks == 1 && runs[1].length == 6 && runs[1].inner == 4));
    // Adjacent axes: axis_layout()'s one step.
    const auto adjacent = axis_steps(Shape{{2, 3, 4}}, {1, 2});
    REQUIRE(adjacent.size() == 1);
    CHECK((adjacent[0].blocks == 2 && adjacent[0].length == 12));
    CHECK_THROWS(axis_steps(Shape{{2, 3, 4}}, {0, -3}));
}

TEST_CASE("a map along axes apart launches the first step once for each index base",
          "[segment_plan]") {
    using Bases = std::vector<std::uint64_t>;
    // (2, 3, 4) along 0 and 2: value (a, b, c) is result b's a * 4 + c-th, so each a is a
    // group of 3 blocks (the b) from index a * 4.
    const auto middle = first_step_groups(Shape{{2, 3, 4}}, {0, 2});
    CHECK(middle.blocks == 3);
    CHECK(middle.index_bases == Bases{0, 4});
    // Kept axes before the reduced ones repeat the bases; each group is one block here.
    const auto four = first_step_groups(Shape{{2, 3, 4, 5}}, {1, 3});
    CHECK(four.blocks == 4);
    CHECK(four.index_bases == Bases{0, 5, 10, 0, 5, 10});
    // Fortran order: axis 0 is the innermost run.
    const auto fortran = first_step_groups(Shape{{2, 3, 4}, Order::fortran}, {0, 2});
    CHECK(fortran.blocks == 3);
    CHECK(fortran.index_bases == Bases{0, 2, 4, 6});
    // Adjacent axes: one group of every block.
    const auto adjacent = first_step_groups(Shape{{2, 3, 4}}, {1, 2});
    CHECK(adjacent.blocks == 2);
    CHECK(adjacent.index_bases == Bases{0});
}

TEST_CASE("shapes choose the kernel, the team and the split", "[segment_plan]") {
    const auto plan = [](std::uint64_t rows, std::uint64_t columns, int axis) {
        return plan_axis(axis_layout(Shape{{rows, columns}}, {axis}), gpu());
    };
    SECTION("narrow rows: one work-item per row, one launch") {
        const auto passes = plan(1 << 26, 4, 1);
        REQUIRE(passes.size() == 1);
        CHECK(passes[0].kernel == SegmentKernel::rows);
        CHECK(passes[0].width == 1);
        CHECK(passes[0].tiles == (1 << 26) / 256);
    }
    SECTION("more tiles than the device runs well at once: each work-group loops over several") {
        const auto passes = plan(1 << 26, 4, 1);
        CHECK(passes[0].tiles_per_group == 8); // (1 << 18) / (132 * 256), a multiple of 4
        CHECK(passes[0].work_groups * passes[0].tiles_per_group >= passes[0].tiles);
        CHECK((passes[0].work_groups - 1) * passes[0].tiles_per_group < passes[0].tiles);
        CHECK(plan(2, 1 << 27, 0)[0].tiles_per_group == 3);    // strips: (1 << 17) / (132 * 256)
        CHECK(plan(1 << 15, 8192, 1)[0].tiles_per_group == 1); // 16384 tiles: one each
    }
    SECTION("narrow rows and columns: a work-item reduces 4 tiles' rows or columns at once") {
        CHECK(plan(1 << 26, 4, 1)[0].batch == 4);
        CHECK(plan(1 << 25, 8, 1)[0].batch == 1);       // rows of 8: measured slower batched
        CHECK(plan(1 << 23, 32, 1)[0].batch == 1);      // teams of 4 work-items: not a row each
        const auto columns = plan(2, (1 << 27) - 2, 0); // no strips: 4 do not divide the width
        CHECK(columns[0].batch == 4);
        CHECK(columns[0].tiles_per_group == 16); // 15 a work-group, but 4 at once
        CHECK(columns[0].work_groups == (1 << 27) / 256 / 16);
        CHECK(plan(4, 1 << 26, 0)[0].batch == 1); // columns of 4 rows: measured slower batched
        CHECK(plan(1 << 26, 4, 0)[0].batch == 1); // 4 columns: a work-group reads many rows
        CHECK(plan_axis(axis_layout(Shape{{1 << 26, 4}}, {1}), segment_device(256, 16, true))[0]
                  .batch == 1); // a CPU: not measured
    }
    SECTION("medium rows: a team of work-items per row, fewer for shorter rows") {
        const auto passes = plan(1 << 20, 512, 1);
        REQUIRE(passes.size() == 1);
        CHECK(passes[0].width == 16);
        CHECK(plan(1 << 20, 256, 1)[0].width == 16); // rows of 256: measured best so
        CHECK(plan(1 << 21, 128, 1)[0].width == 8);
        CHECK(plan(1 << 22, 64, 1)[0].width == 4);
        CHECK(plan(1 << 15, 8192, 1)[0].width == 128);
    }
    SECTION("rows of up to 128 values in teams: work-groups of 64, as many more in a launch") {
        const auto passes = plan(1 << 22, 64, 1);
        CHECK(passes[0].work_group_size == 64);
        CHECK(passes[0].tiles == (1 << 22) / 16); // 16 teams of 4 a work-group
        CHECK(passes[0].work_groups == passes[0].tiles / passes[0].tiles_per_group);
        CHECK(plan(1 << 21, 128, 1)[0].work_group_size == 64);
        CHECK(plan(1 << 20, 256, 1)[0].work_group_size == 256); // teams of 16: not measured so
        CHECK(plan(1 << 25, 8, 1)[0].work_group_size == 256);   // a work-item a row
        CHECK(plan_axis(axis_layout(Shape{{1 << 22, 64}}, {1}), segment_device(256, 16, true))[0]
                  .work_group_size != 64); // a CPU's rows are not in teams
    }
    SECTION("few long rows: several work-groups per row, then their partials as rows") {
        const auto passes = plan(16, 1 << 24, 1);
        REQUIRE(passes.size() == 2);
        CHECK(passes[0].width == 256);
        CHECK(passes[0].chunks == 1024); // 128 a compute unit, but 64 x 256 values a chunk at least
        CHECK(passes[1].blocks == 16);
        CHECK(passes[1].length == 1024);
        CHECK(passes[1].chunks == 1);
    }
    SECTION("many columns of few rows: each work-item owns a strip of 4, no split") {
        const auto passes = plan(16, 1 << 24, 0);
        REQUIRE(passes.size() == 1);
        CHECK(passes[0].kernel == SegmentKernel::columns);
        CHECK(passes[0].strip == 4);
        CHECK(passes[0].width == 1024);
        CHECK(passes[0].tiles == (1 << 24) / 1024);
        CHECK(passes[0].batch == 1);
        CHECK(plan(1024, 1 << 18, 0)[0].strip == 4);
    }
    SECTION("many columns of many rows, or strips that would not be whole: a column each") {
        const auto passes = plan(2048, 1 << 24, 0); // strips measured up to 1024 rows
        REQUIRE(passes.size() == 1);
        CHECK(passes[0].strip == 1);
        CHECK(passes[0].width == 256);
        CHECK(passes[0].tiles == (1 << 24) / 256);
        CHECK(plan(16, (1 << 24) + 2, 0)[0].strip == 1); // 4 do not divide the width
        CHECK(plan(16, 1020, 0)[0].strip == 1);          // fewer than a work-group's strips
        CHECK(plan(16, 131 * 1024, 0)[0].strip == 1);    // fewer tiles than compute units
        CHECK(plan(16, 132 * 1024, 0)[0].strip == 4);
        CHECK(plan_axis(axis_layout(Shape{{16, 1 << 24}}, {0}), segment_device(256, 16, true))[0]
                  .strip == 1); // a CPU: not measured
    }
    SECTION("few columns: the rows split among work-groups, then the partials as rows") {
        const auto passes = plan(1 << 26, 4, 0);
        REQUIRE(passes.size() == 2);
        CHECK(passes[0].width == 4);
        CHECK(passes[0].work_groups == 1024); // each work-item reads 1024 values at least
        CHECK(passes[1].blocks == 4);
        CHECK(passes[1].length == 1024);
    }
    SECTION("no results, no launch") {
        CHECK(plan_axis(axis_layout(Shape{{0, 5}}, {1}), gpu()).empty());
    }
}

TEST_CASE("on a CPU, a work-item reads a whole row where there are rows for every core",
          "[segment_plan]") {
    const auto cpu = segment_device(256, 16, true);
    const auto plan = [&](std::uint64_t rows, std::uint64_t columns) {
        return plan_axis(axis_layout(Shape{{rows, columns}}, {1}), cpu);
    };
    CHECK(plan(1 << 22, 16)[0].width == 1);
    CHECK(plan(1 << 22, 16)[0].work_group_size == 256);
    // Fewer than two work-groups of 256 rows per core: work-groups of 16.
    CHECK(plan(2048, 1 << 15)[0].width == 1);
    CHECK(plan(2048, 1 << 15)[0].work_group_size == 16);
    CHECK(plan_axis(axis_layout(Shape{{1 << 22, 16}}, {1}), gpu())[0].width == 2);
    CHECK(cpu.launched_work_groups == 16 * 16);
}

TEST_CASE("on a CPU, each work-item reads contiguous runs: chunks of long rows, strips of columns",
          "[segment_plan]") {
    const auto cpu = segment_device(256, 16, true);
    SECTION("few long rows: a work-item per chunk of at least 4096 values") {
        const auto passes = plan_axis(axis_layout(Shape{{4, 1 << 20}}, {1}), cpu);
        REQUIRE(passes.size() == 2);
        CHECK(passes[0].width == 1);
        CHECK(passes[0].work_group_size == 16);
        CHECK(passes[0].chunks == 256); // 16 cores x 4 work-groups x 16 work-items
        CHECK(passes[0].work_groups == 64);
        CHECK(passes[1].blocks == 4);
        CHECK(passes[1].length == 256);
        CHECK(plan_axis(axis_layout(Shape{{4, 1 << 13}}, {1}), cpu)[0].chunks == 2);
    }
    SECTION("columns in strips of at most 4096, evened, split in chunks of 64 rows or more") {
        const auto passes = plan_axis(axis_layout(Shape{{8192, 5000}}, {0}), cpu);
        REQUIRE(passes.size() == 2);
        CHECK(passes[0].kernel == SegmentKernel::column_runs);
        CHECK(passes[0].width == 2500);
        CHECK(passes[0].chunks == 8192 / 64);
        CHECK(passes[0].work_group_size == 16);
        CHECK(passes[0].outputs() == 128 * 5000);
        // The partials, 128 rows of every column, in strips narrow enough for every work-item.
        CHECK(passes[1].kernel == SegmentKernel::column_runs);
        CHECK(passes[1].length == 128);
        CHECK(passes[1].chunks == 1);
        CHECK(passes[1].width == 16);
        CHECK(describe(passes).find("column runs: 1 x 8192 rows of 5000 columns, 2500 columns "
                                    "per work-item, 128 chunks") == 0);
    }
    SECTION("planned as a GPU: no contiguous runs") {
        SegmentTuning tuning;
        tuning.contiguous_items = 1;
        const auto passes =
            plan_axis(axis_layout(Shape{{8192, 5000}}, {0}), segment_device(256, 16, true, tuning));
        CHECK(passes[0].kernel == SegmentKernel::columns);
        CHECK(passes[0].work_group_size == 256);
    }
}

TEST_CASE("CSR segments take teams sized for their mean length", "[segment_plan]") {
    const auto passes = plan_csr(1000, 64000, gpu());
    REQUIRE(passes.size() == 1);
    CHECK(passes[0].width == 8); // twice the 4 of rows of 64: ragged lengths
    CHECK(passes[0].chunks == 1);
    CHECK(passes[0].work_groups == 1000 * 8 / 256 + 1);
    CHECK(plan_csr(0, 0, gpu()).empty());
}

TEST_CASE("few long CSR segments are cut in the chunks that fill the device", "[segment_plan]") {
    // A heavy tail: 3550 segments of 2^28 values, 1 to 2^20 each; 132 x 128 work-groups aimed at.
    const auto passes = plan_csr(3550, 1 << 28, gpu());
    REQUIRE(passes.size() == 2);
    CHECK(passes[0].width == 256);
    CHECK(passes[0].chunks == 5);
    CHECK(passes[0].outputs() == 3550 * 5);
    CHECK(passes[1].blocks == 3550);
    CHECK(passes[1].length == 5);
    CHECK(passes[1].chunks == 1);
    CHECK(plan_csr(5000, 1 << 28, gpu()).size() == 1); // enough to fill the device whole
    CHECK(plan_csr(100, 1000, gpu()).size() == 1);     // short: teams of a few work-items
}

TEST_CASE("rows of aligned loads are read as vectors: narrow ones on GPUs where their partials "
          "fit, whole ones on CPUs",
          "[segment_plan]") {
    auto device = gpu();
    device.local_accumulators = 12288; // 48 KiB of 4-byte accumulators
    const auto first_pass = [&](std::uint64_t columns, std::uint64_t first = 0) {
        return plan_axis(axis_layout(Shape{{(1 << 24) / columns, columns}}, {1}), device, first)[0];
    };
    SECTION("4-byte values, 4 a load: rows of 4 to 16 loads") {
        device.values_per_load = 4;
        CHECK(first_pass(32).vectors == 8);
        CHECK(first_pass(32).width == 1);
        CHECK(first_pass(32).work_group_size == 64);
        CHECK(first_pass(32).tiles == (1 << 19) / 64);
        CHECK(first_pass(16).vectors == 4);
        CHECK(first_pass(64).vectors == 16);
        CHECK(first_pass(8).vectors == 0);     // rows of 4 and 8 as before: a work-item a row
        CHECK(first_pass(128).vectors == 0);   // 32 loads: in teams
        CHECK(first_pass(48).vectors == 0);    // 12 loads, not a power of two
        CHECK(first_pass(32, 2).vectors == 0); // not from a multiple of a load
        CHECK(first_pass(32, 8).vectors == 8);
        CHECK(describe({first_pass(32)}) ==
              "rows: 524288 segments of 32, a work-item each, read as 8 vectors side by side, 1 "
              "chunk, 8192 work-groups of 64\n");
    }
    SECTION("1-byte values, 16 a load: rows of 1 load on") {
        device.values_per_load = 16;
        CHECK(first_pass(16).vectors == 1);
        CHECK(first_pass(256).vectors == 16);
    }
    SECTION("none where the partials do not fit, or for argmin's and argmax's values") {
        device.values_per_load = 4;
        device.local_accumulators = 2 * 64 * 17 - 1;
        CHECK(first_pass(64).vectors == 0);
        CHECK(first_pass(32).vectors == 8);
        device.values_per_load = 0;
        CHECK(first_pass(32).vectors == 0);
    }
    SECTION("on CPUs each work-item reads its own row's loads, any number") {
        auto cpu = segment_device(256, 16, true);
        cpu.values_per_load = 4;
        cpu.local_accumulators = 0; // its own row's: no partials in local memory
        const auto cpu_pass = [&](std::uint64_t rows, std::uint64_t columns) {
            return plan_axis(axis_layout(Shape{{rows, columns}}, {1}), cpu)[0];
        };
        CHECK(cpu_pass(1 << 19, 32).vectors == 8);
        CHECK(cpu_pass(1 << 19, 32).own_rows);
        CHECK(cpu_pass(1 << 19, 32).work_group_size == 256);
        CHECK(cpu_pass(1 << 19, 4).vectors == 1);
        CHECK(cpu_pass(1 << 19, 48).vectors == 12);
        CHECK(cpu_pass(1 << 19, 68).vectors == 17);
        CHECK(cpu_pass(1 << 12, 1 << 12).vectors == 1024);
        CHECK(cpu_pass(16, 1 << 20).vectors == 0);       // few long rows: split in chunks
        CHECK(cpu_pass(1 << 19, 30).vectors == 0);       // not a multiple of a load
        CHECK(cpu_pass(1000, 32).work_group_size == 16); // few rows: the contiguous plan's groups
        CHECK(describe({cpu_pass(1 << 19, 32)}) ==
              "rows: 524288 segments of 32, a work-item each, read as 8 vectors in turn, 1 "
              "chunk, 256 work-groups of 256, 8 tiles each\n");
    }
}
