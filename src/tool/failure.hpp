#pragma once
// How the command-line tool fails: every failure is one line on stderr and a documented exit
// code. The engine's errors (clreduce::Error) are mapped to these codes in exit_code_of.

#include "clreduce/errors.hpp"

#include <cstdio>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace clreduce {

/// The process exit codes; docs/command-line.md ("Exit codes") documents each.
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

/// A failure of the tool's own (the command line, the device triplet, the --input file, a
/// wrong result, the host): a one-line message, an exit code and optional details printed
/// after the line.
class Failure : public std::runtime_error {
public:
    Failure(ExitCode code, const std::string& message, std::string details = {});
    ExitCode code() const { return code_; }
    const std::string& details() const { return details_; }

private:
    ExitCode code_;
    std::string details_;
};

/// Flushes `out` (standard output) and throws Failure(ExitCode::host) with the system's reason
/// when any write to it failed: a full disk, a closed stream. A report that did not arrive
/// must not end in exit 0.
void require_written(std::ostream& out);

/// Standard error (file descriptor 2) sent to a temporary file for as long as this lives,
/// for what an OpenCL driver writes there itself; when it ends, what was held is written to
/// standard error, unless release() took it first. Without a temporary file, holds nothing.
class HeldStderr {
public:
    HeldStderr();
    ~HeldStderr();
    /// Restores standard error and returns what was written to it meanwhile.
    std::string release();
    HeldStderr(const HeldStderr&) = delete;
    HeldStderr& operator=(const HeldStderr&) = delete;

private:
    std::FILE* held_;
    int saved_ = -1;
};

/// Runs `build`, which builds a kernel, with standard error held: PoCL's compiler prints
/// "1 error generated." there itself, which would come before the tool's error line. A
/// failed build's Error carries the held text after its build log, so that the error line
/// comes first; otherwise the text is written out as it came, once the build is over.
template <typename Build>
auto with_stderr_held(Build build) -> decltype(build()) {
    HeldStderr held;
    try {
        return build();
    } catch (const Error& error) {
        if (error.cause() != Errc::kernel_build)
            throw;
        throw Error(Errc::kernel_build, error.what(), error.details() + held.release());
    }
}

/// Runs `body` and returns its exit code; any exception becomes one line on `err`, prefixed
/// "clreduce: error: ", and the matching exit code: a Failure's own, an engine Error's by its
/// cause (its message in the options' words: the recipe's work_group_size is
/// --work-group-size), ExitCode::opencl for cl::Error, ExitCode::host for anything else.
/// Nothing escapes.
int exit_code_of(const std::function<ExitCode()>& body, std::ostream& err);

} // namespace clreduce
