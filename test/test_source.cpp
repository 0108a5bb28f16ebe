#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace clreduce;
namespace fs = std::filesystem;

TEST_CASE("integer sums wrap around in the unsigned twin; min and max start from the "
          "type's extremes",
          "[source]") {
    const auto sum = op_definitions(Op::sum, Path::tree, DataType::int32);
    CHECK_THAT(sum,
               Catch::Contains("int op(int a, int b) { return as_int(as_uint(a) + as_uint(b)); }"));
    CHECK_THAT(sum, Catch::Contains("int4 op4(int4 a, int4 b) { return as_int4(as_uint4(a) + "
                                    "as_uint4(b)); }"));
    CHECK_THAT(sum, Catch::Contains("int identity(void) { return 0; }"));
    const auto long_sum = op_definitions(Op::sum, Path::tree, DataType::int64);
    CHECK_THAT(long_sum, Catch::Contains("return as_long(as_ulong(a) + as_ulong(b));"));
    const auto min = op_definitions(Op::min, Path::tree, DataType::int32);
    CHECK_THAT(min, Catch::Contains("min(a, b)"));
    CHECK_THAT(min, Catch::Contains("return INT_MAX;"));
    const auto max = op_definitions(Op::max, Path::tree, DataType::uint64);
    CHECK_THAT(max, Catch::Contains("ulong op(ulong a, ulong b) { return max(a, b); }"));
    CHECK_THAT(max, Catch::Contains("ulong identity(void) { return 0; }"));
}

TEST_CASE("floating-point sums add plainly; min and max are fmin and fmax from the infinities",
          "[source]") {
    const auto sum = op_definitions(Op::sum, Path::tree, DataType::float32);
    CHECK_THAT(sum, Catch::Contains("float op(float a, float b) { return a + b; }"));
    const auto max = op_definitions(Op::max, Path::tree, DataType::float64);
    CHECK_THAT(max, Catch::Contains("double4 op4(double4 a, double4 b) { return fmax(a, b); }"));
    CHECK_THAT(max, Catch::Contains("double identity(void) { return -INFINITY; }"));
}

TEST_CASE("only the chosen path's built-in is referenced", "[source]") {
    const auto tree = op_definitions(Op::sum, Path::tree, DataType::int32);
    CHECK_THAT(tree, !Catch::Contains("work_group_reduce") && !Catch::Contains("sub_group_reduce"));

    const auto work_group = op_definitions(Op::sum, Path::work_group, DataType::int32);
    CHECK_THAT(work_group, Catch::Contains("int work_group_reduce_op(int x) { return "
                                           "as_int(work_group_reduce_add(as_uint(x))); }"));
    CHECK_THAT(work_group, !Catch::Contains("sub_group_reduce"));

    const auto sub_group = op_definitions(Op::min, Path::sub_group, DataType::int32);
    CHECK_THAT(
        sub_group,
        Catch::Contains("int sub_group_reduce_op(int x) { return sub_group_reduce_min(x); }"));
    CHECK_THAT(sub_group, !Catch::Contains("work_group_reduce"));

    const auto float_sum = op_definitions(Op::sum, Path::sub_group, DataType::float32);
    CHECK_THAT(float_sum, Catch::Contains("float sub_group_reduce_op(float x) { return "
                                          "sub_group_reduce_add(x); }"));
    const auto max = op_definitions(Op::max, Path::work_group, DataType::uint32);
    CHECK_THAT(max, Catch::Contains("return work_group_reduce_max(x);"));
}

TEST_CASE("the definitions are appended after the kernel's declarations", "[source]") {
    const auto source =
        complete_kernel_source("int op(int a, int b);\n", Op::min, Path::tree, DataType::int32);
    CHECK(source.rfind("int op(int a, int b);\n", 0) == 0);
    CHECK(source.find("int op(int a, int b) {") > source.find("int op(int a, int b);"));
}

TEST_CASE("kernel files are read from the first folder that has them", "[source]") {
    const auto root = fs::temp_directory_path() / "clreduce-test-source";
    fs::remove_all(root);
    fs::create_directories(root / "first");
    fs::create_directories(root / "second");
    std::ofstream(root / "second" / "k.cl") << "kernel void k() {}";
    CHECK(read_kernel_file("k.cl", {root / "first", root / "second"}) == "kernel void k() {}");

    try {
        read_kernel_file("missing.cl", {root / "first", root / "second"});
        FAIL("a missing kernel file was read");
    } catch (const Error& failure) {
        CHECK(failure.cause() == Errc::kernel_source);
        CHECK_THAT(failure.what(), Catch::Contains((root / "first" / "missing.cl").string()) &&
                                       Catch::Contains((root / "second" / "missing.cl").string()));
    }

    fs::create_directories(root / "first" / "folder.cl"); // exists, but cannot be read as a file
    CHECK_THROWS_WITH(read_kernel_file("folder.cl", {root / "first"}),
                      Catch::Contains("cannot read kernel file"));
    fs::remove_all(root);
}

TEST_CASE("an empty kernel file is called empty, an unreadable one says why", "[source]") {
    const auto root = fs::temp_directory_path() / "clreduce-test-empty-source";
    fs::create_directories(root);
    std::ofstream(root / "empty.cl").close();
    CHECK_THROWS_WITH(read_kernel_file("empty.cl", {root}),
                      "kernel file " + (root / "empty.cl").string() + " is empty");
    fs::remove_all(root);
    // Reading /proc/self/mem from offset 0 fails (EIO) even for root, which reads any file.
    CHECK_THROWS_WITH(read_kernel_file("mem", {"/proc/self"}),
                      "cannot read kernel file /proc/self/mem: " + std::string(std::strerror(EIO)));
}

TEST_CASE("the kernels built into the library are those of kernels/ as they are now", "[source]") {
    const auto on_disk = read_kernel_file("reduce.cl", {CLREDUCE_TEST_KERNEL_DIR});
    CHECK(embedded_kernel_source() == on_disk);
    CHECK(reduce_kernel_source("") == on_disk);
    CHECK(embedded_stream_read_source() ==
          read_kernel_file("stream_read.cl", {CLREDUCE_TEST_KERNEL_DIR}));
}

TEST_CASE("a kernel folder given is read instead of the built-in kernel", "[source]") {
    const auto folder = fs::temp_directory_path() / "clreduce-test-kernel-folder";
    fs::remove_all(folder);
    fs::create_directories(folder);
    CHECK_THROWS_WITH(reduce_kernel_source(folder.string()),
                      Catch::Contains((folder / "reduce.cl").string()));
    std::ofstream(folder / "reduce.cl") << "kernel void edited() {}";
    CHECK(reduce_kernel_source(folder.string()) == "kernel void edited() {}");
    fs::remove_all(folder);
}
