#pragma once
// How clreduce fails: every failure is one line on stderr and a documented exit code.

#include <CL/opencl.hpp>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace clreduce {

/// The process exit codes; the README's table documents each.
enum class ExitCode : int {
    success = 0,
    wrong_result = 1,  // the device's result differs from the host reference
    usage = 2,         // the command line is invalid
    no_device = 3,     // no OpenCL platform or device matches the request
    unsupported = 4,   // the device cannot run the requested path or length
    kernel_source = 5, // a kernel file is missing or unreadable
    kernel_build = 6,  // the OpenCL C compiler rejected the kernel (its log is printed)
    opencl = 7,        // an OpenCL call failed at run time
    host = 8,          // the host failed (out of memory, writing the output, an exception)
    input_data = 9,    // the --input file is missing, unreadable or not a valid input
};

/// An expected failure: a one-line message, an exit code and optional details (a build
/// log) printed after the line.
class Failure : public std::runtime_error {
public:
    Failure(ExitCode code, const std::string& message, std::string details = {});
    ExitCode code() const { return code_; }
    const std::string& details() const { return details_; }

private:
    ExitCode code_;
    std::string details_;
};

/// The CL_... name of an OpenCL error code, e.g. "CL_INVALID_VALUE".
std::string cl_error_name(cl_int code);

/// Flushes `out` (standard output) and throws Failure(ExitCode::host) with the system's reason
/// when any write to it failed: a full disk, a closed stream. A report that did not arrive
/// must not end in exit 0.
void require_written(std::ostream& out);

/// Runs `body` and returns its exit code; any exception becomes one line on `err`, prefixed
/// "clreduce: error: ", and the matching exit code. Nothing escapes.
int exit_code_of(const std::function<ExitCode()>& body, std::ostream& err);

} // namespace clreduce
