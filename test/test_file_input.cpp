// Unit tests of the .npy header reader: header strings as numpy writes them and as it
// might, and the broken ones, each refused with a message that says what is wrong.

#include "catch_compat.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"

#include <string>

using namespace clreduce;

namespace {

using Extents = std::vector<std::uint64_t>;

/// The input error's message, or "" when the header was read.
std::string error_of(const std::string& header) {
    try {
        parse_npy_header(header);
    } catch (const Failure& failure) {
        CHECK(failure.code() == ExitCode::input_data);
        return failure.what();
    }
    return "";
}

} // namespace

TEST_CASE("a header as numpy writes it is read", "[file_input]") {
    const auto header = parse_npy_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }                 \n");
    CHECK(header.descr == "<f8");
    CHECK_FALSE(header.fortran_order);
    CHECK(header.shape == Extents{3, 4});
}

TEST_CASE("keys in any order, either quote, any spacing, with or without a trailing comma",
          "[file_input]") {
    const auto header =
        parse_npy_header("{ \"shape\":(7,) ,'fortran_order':True,\t\"descr\" : \"<i4\"}\n");
    CHECK(header.descr == "<i4");
    CHECK(header.fortran_order);
    CHECK(header.shape == Extents{7});
}

TEST_CASE("shapes: a scalar, one dimension, several, Python 2's longs, no comma", "[file_input]") {
    const auto shape_of = [](const std::string& shape) {
        return parse_npy_header("{'descr': '<i4', 'fortran_order': False, 'shape': " + shape + "}")
            .shape;
    };
    CHECK(shape_of("()") == Extents{});
    CHECK(shape_of("(5,)") == Extents{5});
    CHECK(shape_of("(5)") == Extents{5});
    CHECK(shape_of("(2, 3, 4)") == Extents{2, 3, 4});
    CHECK(shape_of("(3L, 4L)") == Extents{3, 4});
    CHECK(shape_of("(18446744073709551615,)") == Extents{18446744073709551615u});
}

TEST_CASE("a malformed header is refused, saying what is wrong and where", "[file_input]") {
    CHECK_THAT(error_of(""), Catch::Contains("expected '{' at character 0"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False}"),
               Catch::Contains("malformed .npy header: no 'shape'"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False, 'shape': [3]}"),
               Catch::Contains("expected '(' at character 50"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': false, 'shape': (3,)}"),
               Catch::Contains("expected True or False"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), 'x': 1}"),
               Catch::Contains("unknown key 'x'"));
    CHECK_THAT(error_of("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': ()}"),
               Catch::Contains("'descr' given twice"));
    CHECK_THAT(error_of("{'descr': '<i4, 'fortran_order': False, 'shape': ()}"),
               Catch::Contains("expected '}' at character 17"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False, 'shape': (3,)"),
               Catch::Contains("expected '}'"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False, 'shape': (3,)} x"),
               Catch::Contains("text after the dict"));
    CHECK_THAT(error_of("{'descr': '<i4', 'fortran_order': False, 'shape': (-3,)}"),
               Catch::Contains("expected a non-negative integer"));
    CHECK_THAT(
        error_of("{'descr': '<i4', 'fortran_order': False, 'shape': (18446744073709551616,)}"),
        Catch::Contains("a size past 2^64 - 1"));
    CHECK_THAT(error_of("{'descr': 'i4"), Catch::Contains("unterminated string"));
    CHECK_THAT(error_of("{'descr': [('x', '<i4')], 'fortran_order': False, 'shape': ()}"),
               Catch::Contains("unsupported dtype: a structured array"));
}

TEST_CASE("a malformed header's message is one line", "[file_input]") {
    const auto message = error_of("{'descr':\n'<i4'\n 'shape': ()}\n");
    CHECK(message.find('\n') == std::string::npos);
    CHECK_THAT(message, Catch::Contains("{'descr':?'<i4'? 'shape': ()}\""));
}

TEST_CASE("every dtype maps to its type, in any little-endian spelling", "[file_input]") {
    CHECK(npy_type("<i4") == DataType::int32);
    CHECK(npy_type("<u4") == DataType::uint32);
    CHECK(npy_type("<i8") == DataType::int64);
    CHECK(npy_type("<u8") == DataType::uint64);
    CHECK(npy_type("<f4") == DataType::float32);
    CHECK(npy_type("<f8") == DataType::float64);
    CHECK(npy_type("=f8") == DataType::float64);
    CHECK(npy_type("|u4") == DataType::uint32);
    CHECK(npy_type("|i1") == DataType::int8);
    CHECK(npy_type("<u1") == DataType::uint8);
    CHECK(npy_type("<i2") == DataType::int16);
    CHECK(npy_type("=u2") == DataType::uint16);
    CHECK(npy_type("<f2") == DataType::float16);
    CHECK(npy_type("|b1") == DataType::boolean);
}

TEST_CASE("other dtypes are refused, big-endian ones with how to convert them", "[file_input]") {
    for (const char* descr : {"|O", "<c8", "<V2", "", "<f16", "float64"}) {
        INFO(descr);
        CHECK_THROWS_WITH(npy_type(descr),
                          Catch::Contains("unsupported dtype '" + std::string(descr) + "'"));
    }
    CHECK_THROWS_WITH(npy_type(">i4"),
                      Catch::Contains("big-endian dtype '>i4'") && Catch::Contains("'<i4'"));
}

TEST_CASE("a shape holds the product of its sizes, one for a scalar", "[file_input]") {
    CHECK(values_in({}) == 1);
    CHECK(values_in({0, 3}) == 0);
    CHECK(values_in({2, 3, 4}) == 24);
    CHECK(values_in({std::uint64_t{1} << 32, std::uint64_t{1} << 31}) == std::uint64_t{1} << 63);
    CHECK_THROWS_WITH(values_in({std::uint64_t{1} << 32, std::uint64_t{1} << 32}),
                      Catch::Contains("more than 2^64 - 1 values"));
}
