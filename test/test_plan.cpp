#include "catch_compat.hpp"
#include "detail/measure.hpp"
#include "detail/plan.hpp"

using namespace clreduce;

namespace {

WorkGroupLimits bounds(std::size_t kernel, std::size_t work_item, std::uint64_t local_memory_free) {
    WorkGroupLimits limits;
    limits.kernel = kernel;
    limits.work_item = work_item;
    limits.local_memory_free = local_memory_free;
    return limits;
}

} // namespace

TEST_CASE("the work-group size is the largest power of two within every bound", "[plan]") {
    CHECK(choose_work_group_size(bounds(1024, 1024, 49152)) == 1024);
    CHECK(choose_work_group_size(bounds(1024, 512, 49152)) == 512);
    CHECK(choose_work_group_size(bounds(768, 1024, 49152)) == 512); // not a power of two
    CHECK(choose_work_group_size(bounds(1024, 1024, 1024)) == 256); // 256 ints of local memory
    CHECK(choose_work_group_size(bounds(1024, 1024, 0)) == 1);      // never zero
}

TEST_CASE("a wanted work-group size is kept within the bounds", "[plan]") {
    auto limits = bounds(4096, 4096, 1 << 20);
    limits.wanted = 8; // a CPU's preferred multiple, or the user's -w
    CHECK(choose_work_group_size(limits) == 8);
    limits.wanted = 8192;
    CHECK(choose_work_group_size(limits) == 4096);
    limits.wanted = 48;
    CHECK(choose_work_group_size(limits) == 32);
}

TEST_CASE("the bound a work-group size is held to is named, to refuse a larger -w", "[plan]") {
    const auto kernel = work_group_bound(bounds(4096, 4096, 1 << 20));
    CHECK(kernel.size == 4096);
    CHECK(std::string(kernel.limit) == "CL_KERNEL_WORK_GROUP_SIZE");
    const auto work_item = work_group_bound(bounds(4096, 1024, 1 << 20));
    CHECK(work_item.size == 1024);
    CHECK(std::string(work_item.limit) == "CL_DEVICE_MAX_WORK_ITEM_SIZES[0]");
    const auto local_memory = work_group_bound(bounds(1024, 1024, 1000));
    CHECK(local_memory.size == 250); // 250 ints
    CHECK_THAT(local_memory.limit, Catch::Contains("CL_DEVICE_LOCAL_MEM_SIZE"));
}

TEST_CASE("a path's smallest work-group size wins over a smaller wish, not over the bounds",
          "[plan]") {
    auto limits = bounds(4096, 4096, 1 << 20);
    limits.wanted = 1;
    limits.smallest = 4;
    CHECK(choose_work_group_size(limits) == 4);
    limits.kernel = 2;
    CHECK(choose_work_group_size(limits) == 2);
}

TEST_CASE("the textbook factor shrinks each pass by twice the work-group size", "[plan]") {
    const auto passes = plan_passes(1 << 20, pass_shape(Factor::textbook, 256, 132));
    REQUIRE(passes.size() == 3);
    CHECK(passes[0].in == 1 << 20);
    CHECK(passes[0].work_groups == 2048);
    CHECK(passes[1].in == 2048);
    CHECK(passes[1].work_groups == 4);
    CHECK(passes[2].in == 4);
    CHECK(passes[2].out() == 1);
    for (const auto& pass : passes)
        CHECK(pass.work_group_size == 256);
}

TEST_CASE("the device factor streams large inputs in two passes", "[plan]") {
    const auto shape = pass_shape(Factor::device, 256, 132);
    CHECK(shape.max_work_groups >= 132);
    for (const std::uint64_t length : {std::uint64_t{1} << 24, std::uint64_t{1} << 28,
                                       std::uint64_t{1} << 32, (std::uint64_t{1} << 33) + 5}) {
        const auto passes = plan_passes(length, shape);
        INFO("length " << length);
        REQUIRE(passes.size() == 2);
        CHECK(passes[0].work_groups == shape.max_work_groups);
        CHECK(passes[1].in == shape.max_work_groups);
        CHECK(passes[1].out() == 1);
    }
}

TEST_CASE("each pass reads what the previous one wrote, down to one value", "[plan]") {
    for (const auto factor : {Factor::device, Factor::textbook})
        for (const std::size_t work_group_size : {1, 2, 64, 4096})
            for (const std::uint64_t length : {1, 2, 3, 255, 256, 257, 65537, 1000003}) {
                const auto passes = plan_passes(length, pass_shape(factor, work_group_size, 2));
                INFO("length " << length << ", work-group size " << work_group_size);
                REQUIRE_FALSE(passes.empty());
                CHECK(passes.front().in == length);
                CHECK(passes.back().out() == 1);
                for (std::size_t i = 1; i < passes.size(); ++i) {
                    CHECK(passes[i].in == passes[i - 1].out());
                    CHECK(passes[i].in > passes[i].out());
                }
            }
}

TEST_CASE("a single value still takes one pass", "[plan]") {
    const auto passes = plan_passes(1, pass_shape(Factor::device, 256, 4));
    REQUIRE(passes.size() == 1);
    CHECK(passes[0].work_groups == 1);
}

TEST_CASE("the temporaries hold the first two passes' outputs", "[plan]") {
    const auto passes = plan_passes(1 << 20, pass_shape(Factor::textbook, 256, 1));
    CHECK(temporary_values(passes) == std::array<std::uint64_t, 2>{2048, 4});
    CHECK(temporary_values(plan_passes(5, pass_shape(Factor::textbook, 256, 1))) ==
          std::array<std::uint64_t, 2>{1, 0});
}

TEST_CASE("the last-group finish reduces in one launch of the first pass's shape", "[plan]") {
    const auto shape = pass_shape(Factor::device, 256, 132);
    for (const std::uint64_t length :
         {std::uint64_t{2}, std::uint64_t{1} << 20, (std::uint64_t{1} << 33) + 5}) {
        INFO("length " << length);
        const auto passes = plan_passes(length, shape, Finish::last_group);
        const auto multi_pass = plan_passes(length, shape, Finish::passes);
        REQUIRE(passes.size() == 1);
        CHECK(passes[0].in == length);
        CHECK(passes[0].work_groups == multi_pass[0].work_groups);
        CHECK(passes[0].finishes == (multi_pass.size() > 1));
        CHECK(passes[0].out() == 1);
        // The partials go to temporary 1, the result to temporary 0.
        CHECK(temporary_values(passes) ==
              std::array<std::uint64_t, 2>{1, passes[0].finishes ? passes[0].work_groups : 0});
    }
    // A single work-group needs no finishing: its partial is the result.
    CHECK_FALSE(plan_passes(4096, shape, Finish::last_group)[0].finishes);
}

TEST_CASE("a textbook launch stays within the global sizes of the device's address bits",
          "[plan]") {
    const auto shape = pass_shape(Factor::textbook, 1, 1, 32);
    CHECK(shape.max_work_groups == 0xffffffffu);
    const auto passes = plan_passes(std::uint64_t{1} << 34, shape);
    for (const auto& pass : passes)
        CHECK(pass.work_groups * pass.work_group_size <= 0xffffffffu);
    CHECK(passes.back().out() == 1);
    CHECK(pass_shape(Factor::textbook, 1, 1, 64).max_work_groups == 0);
}

TEST_CASE("a value's additions grow with its work-item's share and the work-group steps",
          "[plan]") {
    // One pass of 8 x 8 work-items over 64 * 160 values: 160 each, 10 per accumulator lane,
    // 5 joining steps, log2(8) tree steps.
    const std::vector<Pass> one{{64 * 160, 8, 8, false}};
    CHECK(additions_per_value(one, Path::tree) == 10 + 5 + 3);
    // The built-ins' order is unspecified: a work-group step may take 7 additions.
    CHECK(additions_per_value(one, Path::work_group) == 10 + 5 + 7);
    // Finishing in the last work-group adds a fold of the 8 partials (one each) and a tree.
    const std::vector<Pass> finishing{{64 * 160, 8, 8, true}};
    CHECK(additions_per_value(finishing, Path::tree) == 10 + 5 + 3 + 1 + 3);
    // Loads of 16 values: 3 steps join their quarters, and a lane takes one value of 64.
    CHECK(additions_per_value(one, Path::tree, 16) == 3 + 3 + 5 + 3);
}

TEST_CASE("a float sum's tolerance is Higham's bound over the sum of magnitudes", "[plan]") {
    CHECK(sum_tolerance(DataType::int32, 100, 1e6, 5) == 0);
    const double u = 0x1p-24;
    CHECK(sum_tolerance(DataType::float32, 10, 1000, 2) == 10 * u / (1 - 10 * u) * 1000 + u * 2);
    CHECK(sum_tolerance(DataType::float64, 10, 1000, 2) < 1e-11);
}

TEST_CASE("a CPU spreads short inputs over one work-group per compute unit", "[plan]") {
    const auto shape = for_cpu(pass_shape(Factor::device, 8, 16), 16, sizeof(cl_int));
    const auto work_groups = [&](std::uint64_t length) {
        return plan_passes(length, shape, Finish::last_group).front().work_groups;
    };
    CHECK(work_groups(100) == 1);            // as few as 16 values per work-item need
    CHECK(work_groups(1 << 12) == 16);       // one per compute unit...
    CHECK(work_groups(1 << 20) == 16);       // ...up to 4 MiB
    CHECK(work_groups((1 << 20) + 1) == 17); // then 256 KiB each
    CHECK(work_groups(1 << 21) == 32);
    CHECK(work_groups(1 << 22) == 64); // at most 4 per compute unit
    CHECK(work_groups(1 << 30) == 64);
    CHECK(for_cpu(pass_shape(Factor::device, 8, 16), 16, sizeof(cl_double))
              .values_per_cpu_work_group == 32768);
}
