#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/finish.hpp"
#include "tool/failure.hpp"

#include <sstream>
#include <utility>

using namespace clreduce;

TEST_CASE("OpenCL error codes are named", "[errors]") {
    CHECK(cl_error_name(CL_SUCCESS) == "CL_SUCCESS");
    CHECK(cl_error_name(CL_INVALID_WORK_GROUP_SIZE) == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(cl_error_name(CL_PLATFORM_NOT_FOUND_KHR) == "CL_PLATFORM_NOT_FOUND_KHR");
    CHECK(cl_error_name(-12345) == "unknown OpenCL error -12345");
}

TEST_CASE("every exception becomes one line and its exit code", "[errors]") {
    std::ostringstream err;
    CHECK(exit_code_of([] { return ExitCode::success; }, err) == 0);
    CHECK(err.str().empty());

    CHECK(exit_code_of([]() -> ExitCode { throw Failure(ExitCode::no_device, "none here"); },
                       err) == 3);
    CHECK(err.str() == "clreduce: error: none here\n");

    err.str("");
    CHECK(exit_code_of(
              []() -> ExitCode { throw cl::Error(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel"); },
              err) == 7);
    CHECK(err.str() == "clreduce: error: clEnqueueNDRangeKernel failed with CL_OUT_OF_RESOURCES\n");

    err.str("");
    CHECK(exit_code_of([]() -> ExitCode { throw std::bad_alloc(); }, err) == 8);
    CHECK(err.str() == "clreduce: error: out of host memory\n");

    err.str("");
    CHECK(exit_code_of([]() -> ExitCode { throw 42; }, err) == 8);
}

TEST_CASE("the engine's errors carry their cause, and the tool maps each to its exit code",
          "[errors]") {
    const std::pair<Errc, int> causes[] = {{Errc::unsupported, 4},
                                           {Errc::kernel_source, 5},
                                           {Errc::kernel_build, 6},
                                           {Errc::opencl, 7},
                                           {Errc::invalid_argument, 8}};
    for (const auto& [cause, code] : causes) {
        std::ostringstream err;
        CHECK(exit_code_of([&]() -> ExitCode { throw Error(cause, "it failed"); }, err) == code);
        CHECK(err.str() == "clreduce: error: it failed\n");
    }
    std::ostringstream err;
    exit_code_of([]() -> ExitCode { throw Error(Errc::kernel_build, "build failed", "log"); }, err);
    CHECK(err.str() == "clreduce: error: build failed\nlog\n");
}

TEST_CASE("the tool reads the engine's fields as the options that set them", "[errors]") {
    std::ostringstream err;
    CHECK(exit_code_of(
              []() -> ExitCode {
                  choose_finish(Factor::textbook, Finish::last_group);
                  return ExitCode::success;
              },
              err) == 4);
    CHECK(err.str() == "clreduce: error: --finish last-group needs --factor device: the textbook "
                       "factor runs every pass\n");
    err.str("");
    exit_code_of(
        []() -> ExitCode {
            throw Error(Errc::unsupported, "work_group_size 2048 is more than device 'd' runs "
                                           "the kernels with (allow_unreported)");
        },
        err);
    CHECK(err.str() == "clreduce: error: --work-group-size 2048 is more than device 'd' runs the "
                       "kernels with (--allow-unreported)\n");
}

TEST_CASE("an OpenCL call's failure becomes an error with its status", "[errors]") {
    const Error error(cl::Error(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel"));
    CHECK(error.cause() == Errc::opencl);
    CHECK(error.status() == CL_INVALID_KERNEL_ARGS);
    CHECK(std::string(error.what()) == "clEnqueueNDRangeKernel failed with CL_INVALID_KERNEL_ARGS");
    CHECK(Error(Errc::unsupported, "no").status() == CL_SUCCESS);
}

TEST_CASE("a failure's details follow its line", "[errors]") {
    std::ostringstream err;
    exit_code_of(
        []() -> ExitCode { throw Failure(ExitCode::kernel_build, "build failed", "log line"); },
        err);
    CHECK(err.str() == "clreduce: error: build failed\nlog line\n");
}

TEST_CASE("output that could not be written is a host failure", "[errors]") {
    std::ostringstream written;
    written << "report\n";
    CHECK_NOTHROW(require_written(written));
    std::ostringstream lost;
    lost.setstate(std::ios::badbit);
    try {
        require_written(lost);
        FAIL("a failed write passed");
    } catch (const Failure& failure) {
        CHECK(failure.code() == ExitCode::host);
        CHECK_THAT(failure.what(), Catch::StartsWith("cannot write the output"));
    }
}
