#include "catch_compat.hpp"
#include "tool/failure.hpp"
#include "tool/options.hpp"

#include <string>
#include <vector>

using namespace clreduce;

namespace {

std::optional<Options> parse(const std::vector<const char*>& arguments) {
    std::vector<const char*> argv{"clreduce"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return parse_options(static_cast<int>(argv.size()), argv.data());
}

/// The usage error's message, or "" when parsing succeeded.
std::string usage_error_of(const std::vector<const char*>& arguments) {
    try {
        parse(arguments);
    } catch (const Failure& failure) {
        CHECK(failure.code() == ExitCode::usage);
        return failure.what();
    }
    return "";
}

} // namespace

TEST_CASE("defaults reduce 2^20 values with sum on the first device", "[options]") {
    const auto options = parse({});
    REQUIRE(options);
    CHECK(options->mode == Mode::reduce);
    CHECK(options->op == Op::sum);
    CHECK(options->length == 1048576);
    CHECK_FALSE(options->triplet.platform);
    CHECK(options->triplet.devices == std::vector<std::size_t>{0});
    CHECK_FALSE(options->triplet.all);
    CHECK_FALSE(options->triplet.type); // gpu, else acc, else cpu
    CHECK_FALSE(options->path);
    CHECK(options->factor == Factor::device);
    CHECK(options->finish == Finish::passes);
    CHECK(options->iterations == 1);
    CHECK_FALSE(options->benchmark);
    CHECK_FALSE(options->cold);
}

TEST_CASE("every option is read into its field", "[options]") {
    const auto options = parse({"-o",
                                "min",
                                "-l",
                                "2^31",
                                "-p",
                                "1",
                                "-d",
                                "2",
                                "-t",
                                "gpu",
                                "--strategy",
                                "sub-group",
                                "--allow-unreported",
                                "-f",
                                "textbook",
                                "-w",
                                "64",
                                "-s",
                                "99",
                                "-i",
                                "7",
                                "-v",
                                "--kernels",
                                "/k",
                                "--finish",
                                "passes",
                                "--cold"});
    REQUIRE(options);
    CHECK(options->op == Op::min);
    CHECK(options->length == (std::uint64_t{1} << 31));
    CHECK(options->triplet.platform == std::size_t{1});
    CHECK(options->triplet.devices == std::vector<std::size_t>{2});
    CHECK(options->triplet.type == CL_DEVICE_TYPE_GPU);
    CHECK(options->path == Path::sub_group);
    CHECK(options->allow_unreported);
    CHECK(options->factor == Factor::textbook);
    CHECK(options->work_group_size == 64);
    CHECK(options->seed == 99);
    CHECK(options->iterations == 7);
    CHECK(options->benchmark);
    CHECK(options->verbosity == Verbosity::verbose);
    CHECK(options->kernel_dir == "/k");
    CHECK(options->finish == Finish::passes);
    CHECK(options->finish_given);
    CHECK(options->cold);
}

TEST_CASE("an option written --name=value reads as --name value", "[options]") {
    const auto options = parse({"--length=2^10", "--op=min", "--kernels=/a=b", "-s", "5"});
    REQUIRE(options);
    CHECK(options->length == 1024);
    CHECK(options->op == Op::min);
    CHECK(options->kernel_dir == "/a=b");
    CHECK(options->seed == 5);
}

TEST_CASE("a JSON run asks for one object", "[options]") {
    const auto options = parse({"--json", "-i", "3"});
    REQUIRE(options);
    CHECK(options->format == Format::json);
}

TEST_CASE("verbose output shapes a sweep's text table", "[options]") {
    const auto options = parse({"--sweep", "-v", "-l", "2^10"});
    REQUIRE(options);
    CHECK(options->verbosity == Verbosity::verbose);
    CHECK(options->format == Format::text);
}

TEST_CASE("a JSON sweep prints one object per length", "[options]") {
    const auto options = parse({"--json", "--sweep", "-l", "2^11"});
    REQUIRE(options);
    CHECK(options->format == Format::json);
    CHECK(options->mode == Mode::sweep);
}

TEST_CASE("a quiet run is one run without a warm-up, checked unless --no-check", "[options]") {
    const auto quiet = parse({"-q"});
    REQUIRE(quiet);
    CHECK(quiet->cold);
    CHECK(quiet->iterations == 1);
    CHECK(quiet->check);
    const auto unchecked = parse({"-q", "--no-check"});
    REQUIRE(unchecked);
    CHECK_FALSE(unchecked->check);
}

TEST_CASE("a finish of auto leaves the choice to the device", "[options]") {
    const auto options = parse({"--finish", "auto"});
    REQUIRE(options);
    CHECK_FALSE(options->finish);
    CHECK(options->finish_given);
}

TEST_CASE("a sweep defaults to 2^28 values and 10 iterations", "[options]") {
    const auto options = parse({"--sweep", "--csv"});
    REQUIRE(options);
    CHECK(options->mode == Mode::sweep);
    CHECK(options->length == (std::uint64_t{1} << 28));
    CHECK(options->iterations == 10);
    CHECK(options->format == Format::csv);
}

TEST_CASE("counts are digits or 2^N and nothing else", "[options]") {
    CHECK(parse_count("1", "n") == 1);
    CHECK(parse_count("18446744073709551615", "n") == 18446744073709551615u);
    CHECK(parse_count("2^0", "n") == 1);
    CHECK(parse_count("2^63", "n") == (std::uint64_t{1} << 63));
    for (const char* bad :
         {"", "0", "-1", "+1", " 1", "1 ", "1e6", "0x10", "abc", "12a", "2^", "3^2", "2^64", "2^-1",
          "18446744073709551616", "99999999999999999999999"}) {
        INFO("count '" << bad << "'");
        CHECK_THROWS_AS(parse_count(bad, "n"), Failure);
    }
}

TEST_CASE("device types are spelled as the SDK samples spell them", "[options]") {
    CHECK(parse_device_type("all") == CL_DEVICE_TYPE_ALL);
    CHECK(parse_device_type("cpu") == CL_DEVICE_TYPE_CPU);
    CHECK(parse_device_type("gpu") == CL_DEVICE_TYPE_GPU);
    CHECK(parse_device_type("acc") == CL_DEVICE_TYPE_ACCELERATOR);
    CHECK(parse_device_type("cus") == CL_DEVICE_TYPE_CUSTOM);
    CHECK(parse_device_type("def") == CL_DEVICE_TYPE_DEFAULT);
    CHECK_THROWS_AS(parse_device_type("fpga"), Failure);
}

TEST_CASE("invalid command lines are usage errors that name the problem", "[options]") {
    using Case = std::pair<std::vector<const char*>, const char*>;
    const std::vector<Case> cases = {
        Case{{"-o", "mean"}, "does not meet constraint"},
        Case{{"--data-type", "half"}, "does not meet constraint"},
        Case{{"-o"}, "Missing a value"},
        Case{{"-l", "0"}, "--length must be at least 1"},
        Case{{"-l", "-3"}, "--length '-3'"},
        Case{{"-l", "many"}, "--length 'many'"},
        Case{{"-l", "99999999999999999999"}, "out of range"},
        Case{{"-p", "x"}, "--platform 'x'"},
        Case{{"-d", "-1"}, "--device '-1'"},
        Case{{"-t", "fpga"}, "does not meet constraint"},
        Case{{"--frobnicate"}, "Couldn't find match"},
        Case{{"-w", "100"}, "not a power of two"},
        Case{{"-w", "0"}, "not a power of two"},
        Case{{"-i", "0"}, "--iterations must be at least 1"},
        Case{{"-i", "1000001"}, "out of range"},
        Case{{"-s", "-1"}, "--seed '-1'"},
        Case{{"-v", "-q"}, "cannot be used together"},
        Case{{"--list", "--sweep"}, "--list takes no other option (--sweep given)"},
        Case{{"--list", "--json"}, "--list takes no other option (--json given)"},
        Case{{"--list", "-d", "1"}, "--list takes no other option (--device given)"},
        Case{{"--list", "-t", "cpu"}, "--list takes no other option (--type given)"},
        Case{{"--list", "-q"}, "--list takes no other option (--quiet given)"},
        Case{{"--list", "-l", "5"}, "--list takes no other option (--length given)"},
        Case{{"-v", "--json"}, "--verbose and --json cannot be used together"},
        Case{{"-v", "--sweep", "--csv"}, "--verbose and --csv cannot be used together"},
        Case{{"--kernels", ""}, "--kernels '' names no folder"},
        Case{{"--kernels="}, "--kernels '' names no folder"},
        Case{{"--sweep", "-l", "100"}, "--sweep measures lengths from 2^10"},
        Case{{"-q", "-i", "3"}, "--quiet and --iterations cannot be used together"},
        Case{{"--no-check", "--sweep"}, "--no-check and --sweep cannot be used together"},
        Case{{"--csv"}, "--csv needs --sweep"},
        Case{{"--allow-unreported"}, "needs an explicit --strategy"},
        Case{{"--strategy", "fastest"}, "does not meet constraint"},
        Case{{"--finish", "first-group"}, "does not meet constraint"},
        Case{{"extra"}, "Couldn't find match"},
        Case{{"--"}, "'--' is not an option"},
        Case{{"-q", "--", "values.npy"}, "'--' is not an option"},
        Case{{"-"}, "'-' is not an option"},
        Case{{"--ignore_rest"}, "Couldn't find match"},
        Case{{"--version", "-l", "5", "-o", "foo"}, "does not meet constraint"},
        Case{{"--version", "-l", "5"}, "--version takes no other option (--length given)"},
        Case{{"-l", "5", "--version"}, "--version takes no other option (--length given)"},
        Case{{"--help", "-o", "max"}, "--help takes no other option (--op given)"},
        Case{{"-h", "-q"}, "--help takes no other option (--quiet given)"},
        Case{{"--help", "--version"}, "--help takes no other option (--version given)"},
        Case{{"-f", "textbook", "--finish", "last-group"},
             "--factor textbook and --finish last-group cannot be used together"},
    };
    for (const auto& [arguments, expected] : cases) {
        const auto message = usage_error_of(arguments);
        INFO("arguments starting " << arguments.front());
        CHECK_THAT(message, Catch::Contains(expected));
    }
}

TEST_CASE("--help and --version alone are answered", "[options]") {
    CHECK_FALSE(parse({"--version"}));
    CHECK_FALSE(parse({"--help"}));
    CHECK_FALSE(parse({"-h"}));
}

TEST_CASE("the textbook factor with --finish auto or passes is no conflict", "[options]") {
    CHECK(usage_error_of({"-f", "textbook", "--finish", "auto"}).empty());
    CHECK(usage_error_of({"-f", "textbook", "--finish", "passes"}).empty());
}

TEST_CASE("several devices are a list of indices or all", "[options]") {
    DeviceTriplet triplet;
    parse_device_list("1,0,3", triplet);
    CHECK(triplet.devices == std::vector<std::size_t>{1, 0, 3});
    CHECK_FALSE(triplet.all);
    parse_device_list("all", triplet);
    CHECK(triplet.all);
    for (const auto& [list, problem] :
         std::vector<std::pair<const char*, const char*>>{{"0,0", "names device 0 twice"},
                                                          {"", "has an empty entry"},
                                                          {"0,", "has an empty entry"},
                                                          {",1", "has an empty entry"},
                                                          {"0,x", "--device 'x'"},
                                                          {"al", "--device 'al'"}}) {
        INFO("-d '" << list << "'");
        CHECK_THROWS_WITH(parse_device_list(list, triplet), Catch::Contains(problem));
    }
}

TEST_CASE("an input is cut into at most 65536 buffers or chunks", "[options]") {
    CHECK_THAT(usage_error_of({"--max-buffer", "1"}),
               Catch::Contains("--max-buffer 1 cuts 1048576 values into 1048576 buffers, more "
                               "than 65536: give it at least 16"));
    CHECK(usage_error_of({"--max-buffer", "16"}).empty());
    CHECK_THAT(usage_error_of({"--host-input", "--chunk", "1", "-l", "65537"}),
               Catch::Contains("into 65537 chunks"));
    CHECK(usage_error_of({"--host-input", "--chunk", "2", "-l", "65537"}).empty());
}

TEST_CASE("axes are a list of integers and shapes extents joined by x", "[options]") {
    CHECK(parse_axes("1") == std::vector<int>{1});
    CHECK(parse_axes("0,-1,2") == std::vector<int>{0, -1, 2});
    CHECK(parse_shape("4096x65536") == std::vector<std::uint64_t>{4096, 65536});
    CHECK(parse_shape("2^10x3") == std::vector<std::uint64_t>{1024, 3});
    for (const auto& [axes, problem] :
         std::vector<std::pair<const char*, const char*>>{{"1,1", "names axis 1 twice"},
                                                          {"", "has an empty entry"},
                                                          {"0,", "has an empty entry"},
                                                          {"x", "is not an axis"},
                                                          {"1.5", "is not an axis"}}) {
        INFO("--axis '" << axes << "'");
        CHECK_THROWS_WITH(parse_axes(axes), Catch::Contains(problem));
    }
    for (const auto& [shape, problem] : std::vector<std::pair<const char*, const char*>>{
             {"3xx4", "has an empty entry"},
             {"3x0", "must be at least 1"},
             {"2^40x2^40", "more than 2^64 - 1 values"}}) {
        INFO("--shape '" << shape << "'");
        CHECK_THROWS_WITH(parse_shape(shape), Catch::Contains(problem));
    }
    CHECK_THAT(usage_error_of({"--shape", "3x4"}), Catch::Contains("--shape needs --axis"));
    CHECK_THAT(usage_error_of({"--axis", "0", "--sweep"}),
               Catch::Contains("--axis and --sweep cannot be used together"));
    CHECK(usage_error_of({"--axis", "0", "--shape", "3x4"}).empty());
}
