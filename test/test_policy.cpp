#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"
#include "clreduce/input.hpp"
#include "clreduce/shape.hpp"
#include "detail/policy.hpp"
#include "detail/source.hpp"

#include <functional>
#include <string>
#include <vector>

using namespace clreduce;

namespace {

DeviceReport device(cl_device_type type, Version opencl, std::vector<Version> opencl_c,
                    unsigned compute_units, std::uint64_t local_memory) {
    DeviceReport report;
    report.name = "device";
    report.type = type;
    report.opencl = opencl;
    report.opencl_c = std::move(opencl_c);
    report.compute_units = compute_units;
    report.local_memory = local_memory;
    report.max_work_item_size = 4096;
    return report;
}

/// PoCL 3.1 on a CPU: OpenCL C 3.0 with the atomics features, no collectives.
DeviceReport pocl() {
    auto report = device(CL_DEVICE_TYPE_CPU, {3, 0}, {{1, 0}, {1, 1}, {1, 2}, {3, 0}}, 2, 1 << 22);
    report.features = {"__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_scope_device",
                       "__opencl_c_int64", "__opencl_c_fp64"};
    return report;
}

/// NVIDIA's GPU: OpenCL C 3.0 without the atomics features; a compiler that makes PTX.
DeviceReport nvidia() {
    auto report = device(CL_DEVICE_TYPE_GPU, {3, 0}, {{1, 0}, {1, 1}, {1, 2}, {3, 0}}, 132, 49152);
    report.features = {"__opencl_c_int64", "__opencl_c_fp64"};
    report.extensions = {"cl_khr_fp64", "cl_nv_compiler_options"};
    return report;
}

/// A GPU with OpenCL C 2.0 and sub-groups.
DeviceReport opencl_2() {
    auto report = device(CL_DEVICE_TYPE_GPU, {2, 0}, {{1, 2}, {2, 0}}, 64, 65536);
    report.extensions = {"cl_khr_fp64", "cl_khr_subgroups"};
    return report;
}

/// Oclgrind: an OpenCL 1.2 CPU device.
DeviceReport oclgrind() {
    auto report = device(CL_DEVICE_TYPE_CPU, {1, 2}, {{1, 0}, {1, 1}, {1, 2}}, 1, 1 << 16);
    report.extensions = {"cl_khr_fp64"};
    return report;
}

std::string not_asked() {
    FAIL("the binary was asked for, though the report settles the finish");
    return {};
}

/// PTX whose reduce_and_finish fences around its atomic and loads the partials volatile.
std::string proven_ptx() {
    return ".entry reduce_and_finish(\n)\n{\n\tmembar.gl;\n\tatom.global.inc.u32 %r1, [%rd1], "
           "-1;\n\tmembar.gl;\n\tld.volatile.global.u32 %r2, [%rd2];\n}\n";
}

std::string int32_types() {
    return type_options(DataType::int32, DataType::int32);
}

} // namespace

TEST_CASE("a CPU's policy: the tree, ordered atomics, contiguous runs, SIMD-wide work-groups",
          "[policy]") {
    const auto built = policy_for(pocl(), {});
    Policy expected;
    expected.path = Path::tree;
    expected.finish = Finish::last_group;
    expected.ordering = FinishOrdering::memory_model;
    expected.contiguous_runs = true;
    expected.simd_sized_work_groups = true;
    expected.build_options = int32_types() + " -cl-std=CL3.0 "
                                             "-D REDUCE_ORDERED_ATOMICS -D REDUCE_CONTIGUOUS";
    expected.partials_build_options = expected.build_options;
    CHECK(built == expected);

    // The preferred multiple; 4 work-groups per compute unit, at 256 KiB of int each past one
    // per compute unit.
    expected.shape = {8, 16, 8, 65536, 2};
    CHECK(settle(built, pocl(), {4096, 0, 8}, not_asked) == expected);
}

TEST_CASE("NVIDIA's policy: PTX fences, kept only where the binary proves them", "[policy]") {
    Recipe recipe;
    recipe.type = DataType::float32;
    const auto built = policy_for(nvidia(), recipe);
    Policy expected;
    expected.recipe = recipe;
    expected.finish = Finish::last_group;
    expected.ordering = FinishOrdering::proven_fences;
    expected.accumulator = DataType::float32;
    expected.build_options = type_options(DataType::float32, DataType::float32) +
                             " -D REDUCE_PTX_FENCES -cl-nv-maxrregcount=64";
    expected.partials_build_options = expected.build_options;
    CHECK(built == expected);

    expected.shape = {1024, 16, 528}; // as large as the kernel allows
    CHECK(settle(built, nvidia(), {1024, 0, 32}, proven_ptx) == expected);
    expected.finish = Finish::passes;
    CHECK(settle(built, nvidia(), {1024, 0, 32}, [] { return std::string(); }) == expected);
}

TEST_CASE("an OpenCL C 2.0 device's policy: its best path, or a sub-group path of 4 or more",
          "[policy]") {
    CHECK(policy_for(opencl_2(), {}).path == Path::work_group);
    Recipe recipe;
    recipe.type = DataType::float64;
    recipe.path = Path::sub_group;
    recipe.work_group_size = 2;
    const auto built = policy_for(opencl_2(), recipe);
    Policy expected;
    expected.recipe = recipe;
    expected.path = Path::sub_group;
    expected.finish = Finish::last_group;
    expected.ordering = FinishOrdering::memory_model;
    expected.smallest_work_group = 4;
    expected.accumulator = DataType::float64;
    expected.build_options = type_options(DataType::float64, DataType::float64) +
                             " -cl-std=CL2.0 -D REDUCE_PATH_SUB_GROUP -D REDUCE_ORDERED_ATOMICS";
    expected.partials_build_options = expected.build_options;
    CHECK(built == expected);

    expected.shape = {4, 16, 256}; // 2 asked for, 4 the least the path runs with
    CHECK(settle(built, opencl_2(), {256, 0, 64}, not_asked) == expected);
}

TEST_CASE("an OpenCL 1.2 device's policy: the last-group finish falls back to passes", "[policy]") {
    const auto built = policy_for(oclgrind(), {});
    Policy expected;
    expected.finish = Finish::last_group;
    expected.ordering = FinishOrdering::proven_fences;
    expected.contiguous_runs = true;
    expected.simd_sized_work_groups = true;
    expected.build_options = int32_types() + " -D REDUCE_CONTIGUOUS";
    expected.partials_build_options = expected.build_options;
    CHECK(built == expected);

    expected.finish = Finish::passes;
    expected.shape = {1, 16, 4, 65536, 1};
    CHECK(settle(built, oclgrind(), {4096, 0, 1}, [] { return std::string("not PTX"); }) ==
          expected);
}

TEST_CASE("a policy refuses what the device cannot run", "[policy]") {
    Recipe textbook_last_group;
    textbook_last_group.factor = Factor::textbook;
    textbook_last_group.finish = Finish::last_group;
    CHECK_THROWS_AS(policy_for(pocl(), textbook_last_group), Error);
    Recipe too_large;
    too_large.work_group_size = 2048;
    CHECK_THROWS_WITH(settle(policy_for(nvidia(), too_large), nvidia(), {1024, 0, 32}, proven_ptx),
                      Catch::Contains("at most 1024 work-items, CL_KERNEL_WORK_GROUP_SIZE"));
}

TEST_CASE("a policy takes the tree for an op without a built-in, and refuses bad expressions",
          "[policy]") {
    Recipe product;
    product.op = Op::prod;
    CHECK(policy_for(opencl_2(), product).path == Path::tree);
    product.path = Path::work_group;
    CHECK_THROWS_WITH(policy_for(opencl_2(), product), Catch::Contains("only the tree"));

    Recipe custom;
    custom.op = Op::custom;
    custom.user = {"a * b", "1", ""};
    CHECK(policy_for(opencl_2(), custom).path == Path::tree);
    custom.user.identity.clear();
    CHECK_THROWS_WITH(policy_for(opencl_2(), custom), Catch::Contains("needs both"));
    Recipe any;
    any.op = Op::any;
    any.user.map = "x * x";
    CHECK_THROWS_WITH(policy_for(opencl_2(), any), Catch::Contains("takes no other map"));
    Recipe truncating;
    truncating.type = DataType::float16;
    truncating.accumulate = DataType::int32;
    CHECK_THROWS_WITH(policy_for(opencl_2(), truncating),
                      Catch::Contains("float16 values cannot accumulate in int32"));
    Recipe narrow;
    narrow.type = DataType::int8;
    narrow.accumulate = DataType::int16;
    CHECK_THROWS_WITH(policy_for(opencl_2(), narrow), Catch::Contains("is not one of"));
    Recipe bytes;
    bytes.type = DataType::uint8;
    CHECK(policy_for(opencl_2(), bytes).accumulator == DataType::uint64);
}

TEST_CASE("the engine's refusals speak of its own fields, never of the tool's options",
          "[policy]") {
    Recipe textbook_last_group;
    textbook_last_group.factor = Factor::textbook;
    textbook_last_group.finish = Finish::last_group;
    Recipe too_large;
    too_large.work_group_size = 2048;
    Recipe product_on_work_group;
    product_on_work_group.op = Op::prod;
    product_on_work_group.path = Path::work_group;
    Recipe argmax_accumulated;
    argmax_accumulated.op = Op::argmax;
    argmax_accumulated.accumulate = DataType::int64;
    auto small_buffers = pocl();
    small_buffers.largest_buffer = 1 << 20;
    const auto no_doubles = device(CL_DEVICE_TYPE_GPU, {1, 2}, {{1, 2}}, 1, 1 << 16);
    const std::vector<std::function<void()>> refusals = {
        [&] { policy_for(pocl(), textbook_last_group); },
        [&] {
            settle(policy_for(nvidia(), too_large), nvidia(), {1024, 0, 32}, proven_ptx);
        },
        [&] { policy_for(opencl_2(), product_on_work_group); },
        [&] { policy_for(opencl_2(), argmax_accumulated); },
        [&] { choose_path(oclgrind(), Path::work_group, false); },
        [&] {
            confirm_finish(oclgrind(), Finish::last_group, Finish::last_group,
                           [] { return std::string(); });
        },
        [&] { buffer_values(small_buffers, DataType::int32, 1 << 20); },
        [&] { require_type_support(no_doubles, DataType::float64); },
        [&] {
            axis_layout(Shape{{3, 4}, Order::c}, {2});
        },
        [&] { ExactAccumulator{DataType::int32}; },
    };
    for (std::size_t i = 0; i < refusals.size(); ++i) {
        INFO("refusal " << i);
        try {
            refusals[i]();
            FAIL("not refused");
        } catch (const Error& error) {
            INFO(error.what());
            CHECK(std::string(error.what()).find("--") == std::string::npos);
        }
    }
}
