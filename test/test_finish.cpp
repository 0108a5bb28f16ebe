#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/finish.hpp"
#include "flags.hpp"

using namespace clreduce;

namespace {

/// An OpenCL 3.0 device with OpenCL C 1.x and 3.0, and the features given.
DeviceReport opencl_3(const std::string& name, cl_device_type type,
                      std::vector<std::string> features) {
    DeviceReport report;
    report.name = name;
    report.type = type;
    report.opencl = {3, 0};
    report.opencl_c = {{1, 0}, {1, 1}, {1, 2}, {3, 0}};
    report.features = std::move(features);
    return report;
}

/// PoCL 3.1's report: OpenCL C 3.0 with the atomics features the last-group finish needs.
DeviceReport pocl_3() {
    return opencl_3(
        "pocl", CL_DEVICE_TYPE_CPU,
        {"__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_scope_device", "__opencl_c_int64"});
}

/// NVIDIA's report: OpenCL C 3.0 without those features, and its compiler's extensions.
DeviceReport nvidia() {
    auto report = opencl_3("NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU,
                           {"__opencl_c_fp64", "__opencl_c_int64"});
    report.extensions = {"cl_khr_fp64", "cl_nv_compiler_options", "cl_nv_pragma_unroll"};
    return report;
}

/// The shape of NVIDIA's PTX for reduce_and_finish, cut down to the instructions that count.
/// The partials' load is a volatile one, as reduce.cl asks for, unless `partials_load` says
/// otherwise.
std::string ptx(const std::string& before_atomic, const std::string& after_atomic,
                const std::string& partials_load = "\tld.volatile.global.u32 %r11, [%rd6];\n") {
    return ".version 8.0\n.target sm_90\n"
           ".entry reduce(\n)\n{\n\tmembar.gl;\n\tatom.global.add.u32 %r1, [%rd1], 1;\n}\n"
           ".entry reduce_and_finish(\n\t.param .u64 reduce_and_finish_param_0\n)\n{\n"
           "\tst.global.u32 [%rd4], %r9;\n" +
           before_atomic + "\tatom.global.inc.u32 %r10, [%rd5], -1;\n" + after_atomic +
           "\tld.shared.u32 %r12, [%r13];\n" + partials_load + "\tret;\n}\n";
}

std::string no_binary() {
    FAIL("the binary was asked for, though the report settles the finish");
    return {};
}

} // namespace

TEST_CASE("the OpenCL C 2.0 memory model orders the last-group finish's atomics", "[finish]") {
    CHECK(finish_ordering(pocl_3()) == FinishOrdering::memory_model);
    auto opencl_2 = nvidia();
    opencl_2.opencl_c = {{1, 2}, {2, 0}};
    CHECK(finish_ordering(opencl_2) == FinishOrdering::memory_model);

    auto without_scope = pocl_3();
    without_scope.features = {"__opencl_c_atomic_order_acq_rel"};
    CHECK(finish_ordering(without_scope) == FinishOrdering::proven_fences);
    CHECK(finish_ordering(nvidia()) == FinishOrdering::proven_fences);
    CHECK_THAT(missing_ordered_atomics(nvidia()),
               Catch::Contains("__opencl_c_atomic_order_acq_rel") &&
                   Catch::Contains("__opencl_c_atomic_scope_device"));
}

TEST_CASE("fences count only when they stand before and after the finishing kernel's atomic",
          "[finish]") {
    CHECK(ordering_proven(ptx("\tmembar.gl;\n", "\tmembar.gl;\n"), "reduce_and_finish"));
    CHECK(ordering_proven(ptx("\tfence.sc.gpu;\n", "\tfence.acq_rel.gpu;\n"), "reduce_and_finish"));
    CHECK_FALSE(ordering_proven(ptx("", "\tmembar.gl;\n"), "reduce_and_finish"));
    CHECK_FALSE(ordering_proven(ptx("\tmembar.gl;\n", ""), "reduce_and_finish"));
    // A fence within the work-group (membar.cta) orders nothing across work-groups.
    CHECK_FALSE(ordering_proven(ptx("\tmembar.cta;\n", "\tmembar.cta;\n"), "reduce_and_finish"));
    // Another kernel's fences prove nothing, nor does a binary that is not PTX.
    CHECK_FALSE(ordering_proven(ptx("", ""), "reduce_and_finish"));
    CHECK_FALSE(ordering_proven("\x7f"
                                "ELF binary with membar.gl atom. inside",
                                "reduce_and_finish"));
    CHECK_FALSE(ordering_proven("", "reduce_and_finish"));
}

TEST_CASE("the last work-group must load the partials past caches that may hold stale ones",
          "[finish]") {
    const auto fenced = [](const std::string& partials_load) {
        return ordering_proven(ptx("\tmembar.gl;\n", "\tmembar.gl;\n", partials_load),
                               "reduce_and_finish");
    };
    CHECK(fenced("\tld.volatile.global.u32 %r11, [%rd6];\n"));
    CHECK(fenced("\t@%p3 ld.volatile.global.f64 %fd2, [%rd6+8];\n"));
    CHECK(fenced("\tld.relaxed.gpu.global.u32 %r11, [%rd6];\n"));
    CHECK(fenced("\tld.acquire.sys.global.u32 %r11, [%rd6];\n"));
    // A plain load may be served from a cache that still holds an earlier launch's partial.
    CHECK_FALSE(fenced("\tld.global.u32 %r11, [%rd6];\n"));
    CHECK_FALSE(fenced("\tld.u32 %r11, [%rd6];\n"));
    CHECK_FALSE(fenced("\tld.global.nc.u32 %r11, [%rd6];\n"));
    CHECK_FALSE(fenced("\tldu.global.u32 %r11, [%rd6];\n"));
    CHECK_FALSE(fenced("\tld.relaxed.cta.global.u32 %r11, [%rd6];\n"));
}

TEST_CASE("auto takes the single launch except with the textbook factor", "[finish]") {
    CHECK(choose_finish(Factor::device, std::nullopt) == Finish::last_group);
    CHECK(choose_finish(Factor::device, Finish::passes) == Finish::passes);
    CHECK(choose_finish(Factor::textbook, std::nullopt) == Finish::passes);
    CHECK(choose_finish(Factor::textbook, Finish::passes) == Finish::passes);
    CHECK_THROWS_WITH(choose_finish(Factor::textbook, Finish::last_group),
                      Catch::Contains("needs the device factor"));
}

TEST_CASE("after the build, unproven fences turn auto into passes and refuse last-group",
          "[finish]") {
    const auto proven = [] { return ptx("\tmembar.gl;\n", "\tmembar.gl;\n"); };
    const auto unproven = [] { return ptx("", ""); };
    CHECK(confirm_finish(pocl_3(), Finish::last_group, std::nullopt, no_binary) ==
          Finish::last_group);
    CHECK(confirm_finish(nvidia(), Finish::passes, Finish::passes, no_binary) == Finish::passes);
    CHECK(confirm_finish(nvidia(), Finish::last_group, std::nullopt, proven) == Finish::last_group);
    CHECK(confirm_finish(nvidia(), Finish::last_group, std::nullopt, unproven) == Finish::passes);
    try {
        confirm_finish(nvidia(), Finish::last_group, Finish::last_group, unproven);
        FAIL("an unproven last-group finish was accepted");
    } catch (const Error& failure) {
        CHECK(failure.cause() == Errc::unsupported);
        CHECK_THAT(failure.what(), Catch::Contains("cannot finish in the last work-group"));
    }
}

TEST_CASE("the last-group finish builds with C11 atomics where they are ordered, else with "
          "PTX fences on NVIDIA's compiler",
          "[finish]") {
    CHECK(beyond_type(build_options(pocl_3(), Path::tree, Finish::last_group)) ==
          "-cl-std=CL3.0 -D REDUCE_ORDERED_ATOMICS -D REDUCE_CONTIGUOUS");
    CHECK(beyond_type(build_options(pocl_3(), Path::tree, Finish::passes)) ==
          "-D REDUCE_CONTIGUOUS");
    // NVIDIA's mem_fence is membar.cta: its fences are inline PTX.
    CHECK(beyond_type(build_options(nvidia(), Path::tree, Finish::last_group)) ==
          "-D REDUCE_PTX_FENCES -cl-nv-maxrregcount=64");
    CHECK(beyond_type(build_options(nvidia(), Path::tree, Finish::passes)) ==
          "-cl-nv-maxrregcount=64");
    auto other_opencl_1 = nvidia();
    other_opencl_1.extensions = {"cl_khr_fp64"};
    CHECK(beyond_type(build_options(other_opencl_1, Path::tree, Finish::last_group)).empty());
    auto opencl_2 = nvidia();
    opencl_2.opencl_c = {{1, 2}, {2, 0}};
    CHECK(beyond_type(build_options(opencl_2, Path::tree, Finish::last_group)) ==
          "-cl-std=CL2.0 -D REDUCE_ORDERED_ATOMICS -cl-nv-maxrregcount=64");
}

TEST_CASE("the device list says passes where neither the memory model nor PTX can order the finish",
          "[finish]") {
    auto opencl_1 = opencl_3("Oclgrind Simulator", CL_DEVICE_TYPE_GPU, {});
    opencl_1.opencl = {1, 2};
    opencl_1.opencl_c = {{1, 0}, {1, 1}, {1, 2}};
    CHECK_THAT(describe_finish_support(opencl_1),
               Catch::StartsWith("passes: it reports neither OpenCL C 2.x") &&
                   !Catch::Contains("NVIDIA"));
    CHECK_THAT(describe_finish_support(nvidia()),
               Catch::StartsWith("last-group where the compiled kernel shows"));
    CHECK_THAT(describe_finish_support(pocl_3()), Catch::StartsWith("last-group (atomics"));
}
