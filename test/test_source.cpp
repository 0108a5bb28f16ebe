#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace clreduce;
namespace fs = std::filesystem;

namespace {

/// The definitions for values of `type` in their own type.
std::string definitions(Op op, Path path, DataType type) {
    return op_definitions(op, path, type, type);
}

} // namespace

TEST_CASE("integer sums and products wrap around in the unsigned twin; min and max start from "
          "the type's extremes",
          "[source]") {
    const auto sum = definitions(Op::sum, Path::tree, DataType::int32);
    CHECK_THAT(sum,
               Catch::Contains(
                   "accum_t op(accum_t a, accum_t b) { return as_int(as_uint(a) + as_uint(b)); }"));
    CHECK_THAT(sum, Catch::Contains("accum4_t op4(accum4_t a, accum4_t b) { return "
                                    "as_int4(as_uint4(a) + as_uint4(b)); }"));
    CHECK_THAT(sum, Catch::Contains("accum_t identity(void) { return 0; }"));
    const auto long_sum = definitions(Op::sum, Path::tree, DataType::int64);
    CHECK_THAT(long_sum, Catch::Contains("return as_long(as_ulong(a) + as_ulong(b));"));
    const auto product = definitions(Op::prod, Path::tree, DataType::uint32);
    CHECK_THAT(product, Catch::Contains("return as_uint(as_uint(a) * as_uint(b));"));
    CHECK_THAT(product, Catch::Contains("accum_t identity(void) { return 1; }"));
    const auto min = definitions(Op::min, Path::tree, DataType::int32);
    CHECK_THAT(min, Catch::Contains("min(a, b)"));
    CHECK_THAT(min, Catch::Contains("return INT_MAX;"));
    const auto max = definitions(Op::max, Path::tree, DataType::uint64);
    CHECK_THAT(max, Catch::Contains("accum_t op(accum_t a, accum_t b) { return max(a, b); }"));
    CHECK_THAT(max, Catch::Contains("accum_t identity(void) { return 0; }"));
}

TEST_CASE("floating-point min and max propagate NaN; nanmin and nanmax are fmin and fmax from "
          "NaN",
          "[source]") {
    const auto sum = definitions(Op::sum, Path::tree, DataType::float32);
    CHECK_THAT(sum, Catch::Contains("accum_t op(accum_t a, accum_t b) { return a + b; }"));
    const auto max = definitions(Op::max, Path::tree, DataType::float64);
    CHECK_THAT(max, Catch::Contains("return isunordered(a, b) ? a + b : fmax(a, b);"));
    CHECK_THAT(max, Catch::Contains("accum_t identity(void) { return -INFINITY; }"));
    const auto nanmax = definitions(Op::nanmax, Path::tree, DataType::float64);
    CHECK_THAT(nanmax,
               Catch::Contains("accum4_t op4(accum4_t a, accum4_t b) { return fmax(a, b); }"));
    CHECK_THAT(nanmax, Catch::Contains("accum_t identity(void) { return NAN; }"));
}

TEST_CASE("the built-in ops broadcast with a vector literal, argmin and argmax fill four pairs",
          "[source]") {
    CHECK_THAT(definitions(Op::sum, Path::tree, DataType::int32),
               Catch::Contains("accum4_t splat4(accum_t x) { return (accum4_t)(x); }"));
    const auto argmax = op_definitions(Op::argmax, Path::tree, DataType::int8, DataType::int64);
    CHECK_THAT(argmax, Catch::Contains("accum4_t splat4(accum_t x) { accum4_t lanes = {x, x, x, "
                                       "x}; return lanes; }"));
    // The value's index pairs with it as it is read; the identity's index loses every tie.
    CHECK_THAT(argmax, Catch::Contains("accum_t map(value_t x, ulong i) { accum_t pair = "
                                       "{(long)(x), (long)i}; return pair; }"));
    CHECK_THAT(argmax, Catch::Contains("accum_t identity(void) { accum_t pair = {LONG_MIN, "
                                       "LONG_MAX}; return pair; }"));
    // The pair that wins, field by field (?: on a struct went through local memory on NVIDIA).
    CHECK_THAT(argmax, Catch::Contains("accum_t op(accum_t a, accum_t b) { const bool b_wins = "
                                       "(b.value > a.value || (b.value == a.value && b.index < "
                                       "a.index)); const accum_t won = {b_wins ? b.value : "
                                       "a.value, b_wins ? b.index : a.index}; return won; }"));
    CHECK_THAT(argmax, Catch::Contains("{ accum4_t lanes = {op(a.x, b.x), op(a.y, b.y), op(a.z, "
                                       "b.z), op(a.w, b.w)}; return lanes; }"));
    // Partials are pairs already: no map, and the pair types are the input's.
    const auto partials = op_definitions(Op::argmin, Path::tree, DataType::float32,
                                         DataType::float32, {}, Reads::partials);
    CHECK_THAT(partials, Catch::Contains("accum_t map(value_t x, ulong i) { return x; }"));
    CHECK_THAT(partials, Catch::Contains("isnan(a.value) == isnan(b.value) && b.index < "
                                         "a.index"));
    // A work-item's leads (REDUCE_INDEXING) are only the first pass's: the condition in index
    // order, and the op's own on a lead's 32-bit place.
    CHECK_THAT(partials, !Catch::Contains("lead_t"));
    CHECK_THAT(argmax, Catch::Contains("bool wins_in_order(lead_t a, lead_t b) { return b.value > "
                                       "a.value; }"));
    CHECK_THAT(argmax, Catch::Contains("lead_t lead_op(lead_t a, lead_t b) { const bool b_wins = "
                                       "(b.value > a.value || (b.value == a.value && b.index < "
                                       "a.index)); const lead_t won = {b_wins ? b.value : "
                                       "a.value, b_wins ? b.index : a.index}; return won; }"));
    CHECK_THAT(argmax, Catch::Contains("REDUCE_LEAD_MASK4 wins4_in_order(lead_lanes_t a, "
                                       "lead_lanes_t b) { return b.value > a.value; }"));
    CHECK(type_options(DataType::float32, DataType::float32, Op::argmin, Reads::partials) ==
          "-D REDUCE_INDEXED -D REDUCE_INPUT=accum_t -D REDUCE_VALUE=accum_t -D "
          "REDUCE_VALUE4=accum4_t -D REDUCE_VALUEN=accum4_t -D REDUCE_VALUES_PER_LOAD=4 -D "
          "REDUCE_ACCUM=float -D REDUCE_ACCUM4=float4");
    CHECK(type_options(DataType::float16, DataType::float32, Op::argmax) ==
          "-D REDUCE_INDEXED -D REDUCE_INDEXING -D REDUCE_INPUT=half -D REDUCE_VALUE=float -D "
          "REDUCE_VALUE4=float4 "
          "-D REDUCE_VALUEN=float8 -D REDUCE_VALUES_PER_LOAD=8 -D REDUCE_ACCUM=float -D "
          "REDUCE_ACCUM4=float4 -D REDUCE_LEAD_MASK4=int4 -D REDUCE_LOADS_PER_ACCUMULATOR=2");
    CHECK(type_options(DataType::int32, DataType::int32, Op::max, Reads::partials) ==
          "-D REDUCE_INPUT=int -D REDUCE_VALUE=int -D REDUCE_VALUE4=int4 -D REDUCE_VALUEN=int4 "
          "-D REDUCE_VALUES_PER_LOAD=4 -D REDUCE_ACCUM=int -D REDUCE_ACCUM4=int4");
}

TEST_CASE("argmin's and argmax's values rank in 32 bits where their accumulator is 32 bits",
          "[source]") {
    // The work-group step's keys (REDUCE_KEYS, which the Reducer adds): the winner ranks
    // highest, NaN above all.
    const auto rank = [](Op op, DataType type, Reads reads = Reads::values) {
        return op_definitions(op, Path::tree, type, type, {}, reads);
    };
    CHECK_THAT(rank(Op::argmax, DataType::int32),
               Catch::Contains("uint rank_of(REDUCE_ACCUM value) { return (as_uint(value) ^ "
                               "0x80000000u); }"));
    CHECK_THAT(rank(Op::argmin, DataType::uint32),
               Catch::Contains("uint rank_of(REDUCE_ACCUM value) { return ~value; }"));
    CHECK_THAT(rank(Op::argmin, DataType::float32),
               Catch::Contains("{ return isnan(value) ? UINT_MAX : ~(value == 0.0f ? "
                               "0x80000000u : as_uint(value) >> 31 ? ~as_uint(value) : "
                               "as_uint(value) | 0x80000000u); }"));
    // 64-bit accumulators, partials (whose indices no launch bounds) and other ops: none.
    CHECK_THAT(rank(Op::argmax, DataType::int64), !Catch::Contains("rank_of"));
    CHECK_THAT(rank(Op::argmax, DataType::float32, Reads::partials), !Catch::Contains("rank_of"));
    CHECK_THAT(rank(Op::max, DataType::float32), !Catch::Contains("rank_of"));
    CHECK(pairs_rank_as_keys(Op::argmax, DataType::float32, DataType::float32, false));
    CHECK_FALSE(pairs_rank_as_keys(Op::argmax, DataType::int64, DataType::int64, false));
    CHECK_FALSE(
        pairs_rank_as_keys(Op::argmin, DataType::int32, DataType::int32, false, Reads::partials));
    CHECK_FALSE(pairs_rank_as_keys(Op::max, DataType::int32, DataType::int32, false));
}

TEST_CASE("argmin's and argmax's values of 1- and 2-byte integers rank as their 32-bit leads",
          "[source]") {
    // Their accumulator is 64 bits; its identity saturates into the lead's type, so that it
    // still ranks below every value (above, for argmin, before the ~).
    CHECK_THAT(op_definitions(Op::argmax, Path::tree, DataType::int8, DataType::int64),
               Catch::Contains("uint rank_of(REDUCE_ACCUM value) { return "
                               "(as_uint(convert_int_sat(value)) ^ 0x80000000u); }"));
    CHECK_THAT(op_definitions(Op::argmin, Path::tree, DataType::uint16, DataType::uint64),
               Catch::Contains("uint rank_of(REDUCE_ACCUM value) { return "
                               "~convert_uint_sat(value); }"));
    CHECK(pairs_rank_as_keys(Op::argmax, DataType::boolean, DataType::uint64, false));
    // A map may take the values past 32 bits.
    CHECK_FALSE(pairs_rank_as_keys(Op::argmax, DataType::int16, DataType::int64, true));
    CHECK_THAT(
        op_definitions(Op::argmax, Path::tree, DataType::int8, DataType::int64, {"", "", "x * x"}),
        !Catch::Contains("rank_of"));
}

TEST_CASE("values are loaded by their row and mapped to the accumulator", "[source]") {
    const auto own = definitions(Op::sum, Path::tree, DataType::int32);
    CHECK_THAT(own, Catch::Contains("valuen_t loadn(global const input_t* in, ulong v) { return "
                                    "((global const valuen_t*)in)[v]; }"));
    CHECK_THAT(own, Catch::Contains("accum4_t map4(value4_t x, ulong i) { return x; }"));
    const auto bytes = op_definitions(Op::sum, Path::tree, DataType::int8, DataType::int64);
    CHECK_THAT(bytes, Catch::Contains("accum4_t map4(value4_t x, ulong i) { return "
                                      "convert_long4(x); }"));
    const auto half = op_definitions(Op::sum, Path::tree, DataType::float16, DataType::float32);
    CHECK_THAT(half, Catch::Contains("const ushort8 bits = ((global const ushort8*)in)[v]; "
                                     "return vload_half8(0, (const private half*)&bits);"));
    CHECK_THAT(half, Catch::Contains("accum4_t map4(value4_t x, ulong i) { return x; }"));
    const auto brain = op_definitions(Op::max, Path::tree, DataType::bfloat16, DataType::float32);
    CHECK_THAT(brain, Catch::Contains("return as_float((uint)in[i] << 16);"));
    const auto any = op_definitions(Op::any, Path::tree, DataType::float64, DataType::uint32);
    CHECK_THAT(any, Catch::Contains("accum_t map(value_t x, ulong i) { return x != 0; }"));
    CHECK_THAT(any, Catch::Contains("accum_t op(accum_t a, accum_t b) { return a | b; }"));
    CHECK(type_options(DataType::float16, DataType::float32) ==
          "-D REDUCE_INPUT=half -D REDUCE_VALUE=float -D REDUCE_VALUE4=float4 -D "
          "REDUCE_VALUEN=float8 -D REDUCE_VALUES_PER_LOAD=8 -D REDUCE_ACCUM=float -D "
          "REDUCE_ACCUM4=float4");
}

TEST_CASE("narrow integers' loads combine before their map: sums, any and all of bytes in words, "
          "min and max in the values' type (of bytes: folded in 32-bit lanes), products in 32 "
          "bits, unless a map changes each value",
          "[source]") {
    using T = DataType;
    struct Case {
        DataType type, accumulator;
        Op op;
        Reads reads;
        bool mapped;
        const char* flags; // after the accumulator's, the last of the types'
    };
    const auto values = Reads::values;
    const std::string bytes = " -D REDUCE_SUM_BYTES";
    const std::string signed_bytes = " -D REDUCE_SUM_BYTES -D REDUCE_SIGNED_BYTES";
    // A CPU sums them into a 64-bit integer accumulator in 16-bit lanes.
    const std::string widened_bytes = bytes + " -D REDUCE_WIDENING_SUM=ushort";
    const std::string widened_signed_bytes = signed_bytes + " -D REDUCE_WIDENING_SUM=short";
    const std::string two_loads = " -D REDUCE_LOADS_PER_ACCUMULATOR=2";
    const std::string in_values_two_loads = " -D REDUCE_COMBINE_VALUES" + two_loads;
    const std::string in_int = " -D REDUCE_COMBINE_VALUES -D REDUCE_COMBINED=int";
    const std::string in_uint = " -D REDUCE_COMBINE_VALUES -D REDUCE_COMBINED=uint";
    const std::string bytes_in_int = in_int + two_loads;
    // A CPU folds them in their own type instead, with the op's built-in.
    const std::string fold_signed_bytes =
        in_int + " -D REDUCE_SIGNED_BYTES -D REDUCE_FOLD_COMBINED -D REDUCE_OWN_TYPE_OP=max";
    const std::string fold_bytes = " -D REDUCE_COMBINE_VALUES -D REDUCE_COMBINED=uint -D "
                                   "REDUCE_FOLD_COMBINED -D REDUCE_OWN_TYPE_OP=min";
    const std::string any_bytes = " -D REDUCE_TEST_BYTES" + two_loads;
    const std::string all_bytes = " -D REDUCE_TEST_BYTES -D REDUCE_TEST_ALL" + two_loads;
    const Case cases[] = {
        {T::int8, T::int64, Op::sum, values, false, widened_signed_bytes.c_str()},
        {T::int8, T::int32, Op::sum, values, false, signed_bytes.c_str()},
        {T::uint8, T::uint64, Op::sum, values, false, widened_bytes.c_str()},
        {T::boolean, T::uint64, Op::sum, values, false, widened_bytes.c_str()},
        {T::uint8, T::float64, Op::sum, values, false, bytes.c_str()},
        {T::int8, T::int64, Op::sum, values, true, ""},
        {T::int16, T::int64, Op::sum, values, false, ""},
        {T::int64, T::int64, Op::sum, Reads::partials, false, ""},
        {T::int8, T::int64, Op::max, values, false, fold_signed_bytes.c_str()},
        {T::uint8, T::uint64, Op::nanmin, values, false, fold_bytes.c_str()},
        {T::int16, T::int64, Op::max, values, false, in_values_two_loads.c_str()},
        {T::uint16, T::uint64, Op::nanmin, values, false, in_values_two_loads.c_str()},
        {T::int16, T::int64, Op::min, values, true, ""},
        {T::int16, T::int64, Op::prod, values, false, in_int.c_str()},
        {T::int8, T::int64, Op::prod, values, false, bytes_in_int.c_str()},
        {T::int8, T::uint32, Op::prod, values, false, bytes_in_int.c_str()},
        {T::uint8, T::uint64, Op::prod, values, false, in_uint.c_str()},
        {T::uint16, T::uint32, Op::prod, values, false, in_uint.c_str()},
        {T::uint8, T::int64, Op::prod, values, false, in_uint.c_str()},
        // A uint's product does not convert to an int32 modulo its range.
        {T::uint8, T::int32, Op::prod, values, false, ""},
        // Bools are 0 or 1: their product and min are their all, their max their any, tested a
        // word at a time.
        {T::boolean, T::uint64, Op::prod, values, false, all_bytes.c_str()},
        {T::boolean, T::float64, Op::prod, values, false, all_bytes.c_str()},
        {T::boolean, T::uint64, Op::prod, values, true, ""},
        {T::boolean, T::boolean, Op::min, values, false, all_bytes.c_str()},
        {T::boolean, T::boolean, Op::nanmax, values, false, any_bytes.c_str()},
        {T::int8, T::float32, Op::prod, values, false, ""},
        {T::int8, T::int64, Op::prod, values, true, ""},
        {T::int8, T::uint32, Op::any, values, false, any_bytes.c_str()},
        {T::boolean, T::uint32, Op::all, values, false, all_bytes.c_str()},
        {T::int16, T::uint32, Op::any, values, false, ""},
        // argmin's and argmax's leads in 32 bits, 1-byte values' a word at a time, each of
        // the two accumulators taking two loads a turn; 64-bit leads take one. Where they
        // read values, the mask that comparing their lanes gives is as wide as a lead's value.
        // A CPU takes blocks of them by their best value, argmin's the least.
        {T::int16, T::int64, Op::argmax, values, false,
         " -D REDUCE_LEAD=int -D REDUCE_OWN_TYPE_OP=max -D REDUCE_LEAD_MASK4=int4 -D "
         "REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::uint16, T::uint64, Op::argmin, values, false,
         " -D REDUCE_LEAD=uint -D REDUCE_OWN_TYPE_OP=min -D REDUCE_LEAD_MASK4=int4 -D "
         "REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::uint8, T::uint64, Op::argmax, values, false,
         " -D REDUCE_LEAD=uint -D REDUCE_LEAD_WORDS -D REDUCE_OWN_TYPE_OP=max -D "
         "REDUCE_LEAD_MASK4=int4 -D REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::int8, T::int64, Op::argmin, values, false,
         " -D REDUCE_LEAD=int -D REDUCE_LEAD_WORDS -D REDUCE_SIGNED_BYTES -D "
         "REDUCE_OWN_TYPE_OP=min -D REDUCE_LEAD_MASK4=int4 -D REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::boolean, T::uint64, Op::argmax, values, false,
         " -D REDUCE_LEAD=uint -D REDUCE_LEAD_WORDS -D REDUCE_BOOL_LEADS -D "
         "REDUCE_OWN_TYPE_OP=max -D REDUCE_LEAD_MASK4=int4 -D REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::int8, T::int64, Op::argmax, values, true, " -D REDUCE_LEAD_MASK4=long4"},
        {T::int8, T::int64, Op::argmax, Reads::partials, false, ""},
        {T::int32, T::int32, Op::argmax, values, false,
         " -D REDUCE_LEAD_MASK4=int4 -D REDUCE_LOADS_PER_ACCUMULATOR=2"},
        {T::int64, T::int64, Op::argmin, values, false, " -D REDUCE_LEAD_MASK4=long4"},
        {T::float16, T::float32, Op::max, values, false, ""},
        {T::int32, T::int32, Op::max, values, false, ""},
    };
    for (const auto& c : cases) {
        const auto options = type_options(c.type, c.accumulator, c.op, c.reads, c.mapped);
        const auto accumulator_flag =
            " -D REDUCE_ACCUM4=" + std::string(info(c.accumulator).cl_value) + "4";
        INFO(name_of(c.type) << " " << name_of(c.op) << " in " << name_of(c.accumulator)
                             << (c.mapped ? ", mapped" : ""));
        CHECK(options.substr(options.find(accumulator_flag) + accumulator_flag.size()) == c.flags);
    }
    const auto max = op_definitions(Op::max, Path::tree, DataType::int16, DataType::int64);
    CHECK_THAT(max, Catch::Contains("short4 op4_values(short4 a, short4 b) { return max(a, b); }"));
    const auto prod = op_definitions(Op::prod, Path::tree, DataType::int8, DataType::int64);
    CHECK_THAT(prod, Catch::Contains("int4 op4_values(int4 a, int4 b) { return "
                                     "as_int4(as_uint4(a) * as_uint4(b)); }"));
    const auto mapped =
        op_definitions(Op::max, Path::tree, DataType::int16, DataType::int64, {"", "", "x * x"});
    CHECK_THAT(mapped, !Catch::Contains("op4_values"));
}

TEST_CASE("only the chosen path's built-in is referenced", "[source]") {
    const auto tree = definitions(Op::sum, Path::tree, DataType::int32);
    CHECK_THAT(tree, !Catch::Contains("work_group_reduce") && !Catch::Contains("sub_group_reduce"));

    const auto work_group = definitions(Op::sum, Path::work_group, DataType::int32);
    CHECK_THAT(work_group, Catch::Contains("accum_t work_group_reduce_op(accum_t x) { return "
                                           "as_int(work_group_reduce_add(as_uint(x))); }"));
    CHECK_THAT(work_group, !Catch::Contains("sub_group_reduce"));

    const auto sub_group = definitions(Op::min, Path::sub_group, DataType::int32);
    CHECK_THAT(sub_group, Catch::Contains("accum_t sub_group_reduce_op(accum_t x) { return "
                                          "sub_group_reduce_min(x); }"));
    CHECK_THAT(sub_group, !Catch::Contains("work_group_reduce"));

    const auto float_sum = definitions(Op::sum, Path::sub_group, DataType::float32);
    CHECK_THAT(float_sum, Catch::Contains("accum_t sub_group_reduce_op(accum_t x) { return "
                                          "sub_group_reduce_add(x); }"));
    const auto max = definitions(Op::max, Path::work_group, DataType::uint32);
    CHECK_THAT(max, Catch::Contains("return work_group_reduce_max(x);"));
    CHECK(has_builtin(Op::max, DataType::uint32));
    CHECK(!has_builtin(Op::max, DataType::float32)); // NaN in the built-ins is left open
    CHECK(!has_builtin(Op::prod, DataType::int32));
}

TEST_CASE("the definitions are appended after the kernel's declarations", "[source]") {
    const auto source = complete_kernel_source("accum_t op(accum_t a, accum_t b);\n", Op::min,
                                               Path::tree, DataType::int32, DataType::int32);
    CHECK(source.rfind("accum_t op(accum_t a, accum_t b);\n", 0) == 0);
    CHECK(source.find("accum_t op(accum_t a, accum_t b) {") >
          source.find("accum_t op(accum_t a, accum_t b);"));
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
