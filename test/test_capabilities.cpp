#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/capabilities.hpp"
#include "detail/source.hpp"
#include "flags.hpp"

using namespace clreduce;

namespace {

/// A device as PoCL 3.1 on the CI machine reports itself: OpenCL C 1.2 and 3.0, nothing more.
DeviceReport plain_opencl_3() {
    DeviceReport report;
    report.name = "plain";
    report.opencl = {3, 0};
    report.opencl_c = {{1, 0}, {1, 1}, {1, 2}, {3, 0}};
    report.extensions = {"cl_khr_fp64", "cl_khr_int64_base_atomics"};
    report.features = {"__opencl_c_int64", "__opencl_c_fp64"};
    return report;
}

} // namespace

TEST_CASE("versions are read as the spec lays them out, not by substring", "[capabilities]") {
    const auto version = parse_version("OpenCL 3.0 CUDA 12.2.140", "OpenCL ");
    REQUIRE(version);
    CHECK(*version == Version{3, 0});
    CHECK(parse_version("OpenCL C 1.2 PoCL", "OpenCL C ") == std::optional<Version>(Version{1, 2}));
    CHECK(parse_version("OpenCL 2.1", "OpenCL ") == std::optional<Version>(Version{2, 1}));
    CHECK(parse_version("OpenCL 12.10 x", "OpenCL ") == std::optional<Version>(Version{12, 10}));
    // A driver version that merely contains "2." is no OpenCL 2.x.
    CHECK_FALSE(parse_version("Driver 12.2.0", "OpenCL "));
    CHECK_FALSE(parse_version("OpenCL C 2.0", "OpenCL "));
    CHECK_FALSE(parse_version("OpenCL 3", "OpenCL "));
    CHECK_FALSE(parse_version("OpenCL 3.x", "OpenCL "));
    CHECK_FALSE(parse_version("OpenCL 3.0beta", "OpenCL "));
    CHECK_FALSE(parse_version("", "OpenCL "));
}

TEST_CASE("versions order by major, then minor", "[capabilities]") {
    CHECK(Version{1, 2} < Version{2, 0});
    CHECK(Version{2, 0} < Version{2, 1});
    CHECK_FALSE(Version{3, 0} < Version{2, 9});
    CHECK(to_string(Version{3, 0}) == "3.0");
}

TEST_CASE("extensions are whole tokens, not prefixes", "[capabilities]") {
    DeviceReport report;
    report.extensions = split_tokens("  cl_khr_subgroups_extended   cl_khr_fp64 ");
    CHECK(report.extensions.size() == 2);
    CHECK(report.has_extension("cl_khr_fp64"));
    CHECK_FALSE(report.has_extension("cl_khr_subgroups"));
    CHECK_FALSE(report.has_extension("cl_khr"));
}

TEST_CASE("the tree is the only path of a device that reports no collectives", "[capabilities]") {
    const auto report = plain_opencl_3();
    CHECK(reports_support(report, Path::tree));
    CHECK_FALSE(reports_support(report, Path::work_group));
    CHECK_FALSE(reports_support(report, Path::sub_group));
    CHECK(best_path(report) == Path::tree);
    CHECK(beyond_type(build_options(report, Path::tree)).empty());
    CHECK_THAT(missing_support(report, Path::work_group),
               Catch::Contains("OpenCL C 1.0 1.1 1.2 3.0"));
}

TEST_CASE("work-group reduce comes with OpenCL C 2.x", "[capabilities]") {
    DeviceReport report;
    report.opencl = {2, 1};
    report.opencl_c = {{1, 0}, {1, 1}, {1, 2}, {2, 0}};
    CHECK(best_path(report) == Path::work_group);
    CHECK(beyond_type(build_options(report, Path::work_group)) ==
          "-cl-std=CL2.0 -D REDUCE_PATH_WORK_GROUP");
}

TEST_CASE("OpenCL C 3.0 needs both the query and the feature for work-group reduce",
          "[capabilities]") {
    auto report = plain_opencl_3();
    report.work_group_collectives = true;
    CHECK_FALSE(reports_support(report, Path::work_group));
    report.features.push_back("__opencl_c_work_group_collective_functions");
    CHECK(reports_support(report, Path::work_group));
    CHECK(beyond_type(build_options(report, Path::work_group)) ==
          "-cl-std=CL3.0 -D REDUCE_PATH_WORK_GROUP");
    report.work_group_collectives = false;
    CHECK_FALSE(reports_support(report, Path::work_group));
}

TEST_CASE("sub-group reduce comes with cl_khr_subgroups or __opencl_c_subgroups",
          "[capabilities]") {
    auto with_extension = plain_opencl_3(); // PoCL 5 on the GPU machine
    with_extension.extensions.push_back("cl_khr_subgroups");
    CHECK(best_path(with_extension) == Path::sub_group);
    CHECK(beyond_type(build_options(with_extension, Path::sub_group)) ==
          "-cl-std=CL3.0 -D REDUCE_PATH_SUB_GROUP");

    auto with_feature = plain_opencl_3();
    with_feature.features.push_back("__opencl_c_subgroups");
    CHECK(best_path(with_feature) == Path::sub_group);

    DeviceReport opencl_2; // an OpenCL 2.x device with the extension
    opencl_2.opencl_c = {{1, 2}, {2, 0}};
    opencl_2.extensions = {"cl_khr_subgroups"};
    CHECK(beyond_type(build_options(opencl_2, Path::sub_group)) ==
          "-cl-std=CL2.0 -D REDUCE_PATH_SUB_GROUP");
    CHECK(best_path(opencl_2) == Path::work_group);
}

TEST_CASE("CPU devices give each work-item a contiguous run", "[capabilities]") {
    auto cpu = plain_opencl_3();
    cpu.type = CL_DEVICE_TYPE_CPU;
    CHECK(beyond_type(build_options(cpu, Path::tree)) == "-D REDUCE_CONTIGUOUS");
    cpu.extensions.push_back("cl_khr_subgroups");
    CHECK(beyond_type(build_options(cpu, Path::sub_group)) ==
          "-cl-std=CL3.0 -D REDUCE_PATH_SUB_GROUP -D REDUCE_CONTIGUOUS");
    auto gpu = plain_opencl_3();
    gpu.type = CL_DEVICE_TYPE_GPU;
    CHECK(beyond_type(build_options(gpu, Path::tree)).empty());
}

TEST_CASE("PoCL's CPU devices prefetch their runs; other CPU devices and GPUs do not",
          "[capabilities]") {
    auto pocl = plain_opencl_3();
    pocl.type = CL_DEVICE_TYPE_CPU;
    pocl.version_text = "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-haswell";
    CHECK(prefetches_runs(pocl));
    CHECK(beyond_type(build_options(pocl, Path::tree)) ==
          "-D REDUCE_CONTIGUOUS -D REDUCE_PREFETCH_BYTES=2048");
    auto oclgrind = pocl; // a CPU device whose compiler has no prefetch
    oclgrind.version_text = "OpenCL 1.2 Oclgrind 21.10";
    CHECK_FALSE(prefetches_runs(oclgrind));
    CHECK(beyond_type(build_options(oclgrind, Path::tree)) == "-D REDUCE_CONTIGUOUS");
    auto pocl_gpu = pocl; // PoCL's GPU drivers read strided, and prefetch nothing
    pocl_gpu.type = CL_DEVICE_TYPE_GPU;
    CHECK_FALSE(prefetches_runs(pocl_gpu));
}

TEST_CASE("NVIDIA's compiler is given the registers the launch leaves a work-item, but for the "
          "folds that pick bytes out of words",
          "[capabilities]") {
    auto nvidia = plain_opencl_3();
    nvidia.type = CL_DEVICE_TYPE_GPU;
    nvidia.extensions.push_back("cl_nv_compiler_options");
    const auto budgeted = [&](DataType type, Op op, Reads reads = Reads::values,
                              bool mapped = false) {
        const auto options = build_options(nvidia, Path::tree, Finish::passes, type, std::nullopt,
                                           op, reads, mapped);
        return options.find("-cl-nv-maxrregcount=64") != std::string::npos;
    };
    CHECK(budgeted(DataType::int32, Op::min));
    CHECK(budgeted(DataType::float32, Op::sum));
    CHECK(budgeted(DataType::int8, Op::sum));
    CHECK(budgeted(DataType::int16, Op::max));
    CHECK(budgeted(DataType::boolean, Op::max)); // bool's max is its any, a test of words
    CHECK_FALSE(budgeted(DataType::int8, Op::max));
    CHECK_FALSE(budgeted(DataType::uint8, Op::nanmin));
    CHECK_FALSE(budgeted(DataType::int8, Op::argmax));
    CHECK_FALSE(budgeted(DataType::boolean, Op::argmin));
    // A map takes each byte on its own, and partials are 32 bits or wider.
    CHECK(budgeted(DataType::int8, Op::max, Reads::values, true));
    CHECK(budgeted(DataType::int8, Op::argmax, Reads::partials));
    CHECK(beyond_type(build_options(plain_opencl_3(), Path::tree)).empty());
}

TEST_CASE("NVIDIA's compiler is given a register budget for the exact sum of doubles alone",
          "[capabilities]") {
    auto nvidia = plain_opencl_3();
    nvidia.type = CL_DEVICE_TYPE_GPU;
    nvidia.extensions.push_back("cl_nv_compiler_options");
    CHECK(exact_register_budget(nvidia, DataType::float64) == "-cl-nv-maxrregcount=128");
    for (const auto type : {DataType::float32, DataType::float16, DataType::bfloat16})
        CHECK(exact_register_budget(nvidia, type).empty());
    auto other_gpu = plain_opencl_3();
    other_gpu.type = CL_DEVICE_TYPE_GPU;
    CHECK(exact_register_budget(other_gpu, DataType::float64).empty());
}

TEST_CASE("an unreported path is refused unless the user allows it", "[capabilities]") {
    const auto report = plain_opencl_3();
    CHECK(choose_path(report, std::nullopt, false) == Path::tree);
    CHECK(choose_path(report, Path::tree, false) == Path::tree);
    try {
        choose_path(report, Path::work_group, false);
        FAIL("an unreported path was accepted");
    } catch (const Error& failure) {
        CHECK(failure.cause() == Errc::unsupported);
        CHECK_THAT(failure.what(), Catch::Contains("allow_unreported"));
    }
    CHECK(choose_path(report, Path::work_group, true) == Path::work_group);
    // Unreported paths are built as OpenCL C 2.0, the language the built-ins came with.
    CHECK(beyond_type(build_options(report, Path::work_group)) ==
          "-cl-std=CL2.0 -D REDUCE_PATH_WORK_GROUP");
    CHECK(beyond_type(build_options(report, Path::sub_group)) ==
          "-cl-std=CL2.0 -D REDUCE_PATH_SUB_GROUP");
}

TEST_CASE("the value and accumulator types reach the kernel as build flags", "[capabilities]") {
    const auto options =
        build_options(plain_opencl_3(), Path::tree, Finish::passes, DataType::float64);
    CHECK(options.rfind(type_options(DataType::float64, DataType::float64), 0) == 0);
    const auto bytes = build_options(plain_opencl_3(), Path::tree, Finish::passes, DataType::int8,
                                     DataType::int64);
    CHECK(bytes.rfind("-D REDUCE_INPUT=char -D REDUCE_VALUE=char -D REDUCE_VALUE4=char4 "
                      "-D REDUCE_VALUEN=char16 -D REDUCE_VALUES_PER_LOAD=16 "
                      "-D REDUCE_ACCUM=long -D REDUCE_ACCUM4=long4",
                      0) == 0);
}

TEST_CASE("a type is refused, saying why, where the device lacks what it needs", "[capabilities]") {
    auto no_fp64 = plain_opencl_3();
    no_fp64.features = {"__opencl_c_int64"};
    CHECK(missing_type_support(no_fp64, DataType::float32).empty());
    CHECK_THAT(missing_type_support(no_fp64, DataType::float64),
               Catch::Contains("double needs __opencl_c_fp64"));
    CHECK_THROWS_WITH(require_type_support(no_fp64, DataType::float64),
                      Catch::Contains("cannot reduce double"));

    auto no_int64 = plain_opencl_3();
    no_int64.features = {"__opencl_c_fp64"};
    CHECK_THAT(missing_type_support(no_int64, DataType::uint64),
               Catch::Contains("uint64 needs __opencl_c_int64"));
    CHECK_THAT(describe_type_support(no_int64),
               Catch::Contains("int32 uint32 float double int8 uint8 int16 uint16 float16 "
                               "bfloat16 bool; no int64: ") &&
                   Catch::Contains("; no uint64: "));

    // Before 3.0: extensions and the profile.
    DeviceReport opencl_1;
    opencl_1.opencl = {1, 2};
    opencl_1.embedded_profile = true;
    CHECK_THAT(missing_type_support(opencl_1, DataType::int64),
               Catch::Contains("the full profile or cles_khr_int64"));
    CHECK_THAT(missing_type_support(opencl_1, DataType::float64), Catch::Contains("cl_khr_fp64"));
    opencl_1.extensions = {"cles_khr_int64", "cl_khr_fp64"};
    CHECK(missing_type_support(opencl_1, DataType::int64).empty());
    CHECK(missing_type_support(opencl_1, DataType::float64).empty());
    opencl_1.extensions.clear();
    opencl_1.embedded_profile = false;
    CHECK(missing_type_support(opencl_1, DataType::int64).empty());
}
