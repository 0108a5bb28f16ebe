#include "tool/failure.hpp"

#include "clreduce/errors.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <ostream>
#include <utility>

namespace clreduce {

Failure::Failure(ExitCode code, const std::string& message, std::string details)
    : std::runtime_error(message)
    , code_(code)
    , details_(std::move(details)) {}

namespace {

ExitCode report(std::ostream& err, ExitCode code, const std::string& message,
                const std::string& details = {}) {
    err << "clreduce: error: " << message << '\n';
    if (!details.empty())
        err << details << (details.back() == '\n' ? "" : "\n");
    return code;
}

/// The exit code of an engine failure's cause.
ExitCode exit_code_for(Errc cause) {
    switch (cause) {
    case Errc::unsupported:
        return ExitCode::unsupported;
    case Errc::kernel_source:
        return ExitCode::kernel_source;
    case Errc::kernel_build:
        return ExitCode::kernel_build;
    case Errc::opencl:
        return ExitCode::opencl;
    case Errc::invalid_argument: // the tool validates its own: this is a bug of the host side
        return ExitCode::host;
    }
    return ExitCode::host;
}

} // namespace

void require_written(std::ostream& out) {
    out.flush();
    if (out)
        return;
    // The failed write's errno is long gone; one more write meets the same error and says
    // which. The output is lost already, so the extra newline costs nothing.
    out.clear();
    errno = 0;
    out << '\n' << std::flush;
    const int reason = errno;
    throw Failure(ExitCode::host, "cannot write the output to standard output" +
                                      (reason ? ": " + std::string(std::strerror(reason)) : ""));
}

int exit_code_of(const std::function<ExitCode()>& body, std::ostream& err) {
    ExitCode code;
    try {
        code = body();
    } catch (const Failure& failure) {
        code = report(err, failure.code(), failure.what(), failure.details());
    } catch (const Error& error) {
        code = report(err, exit_code_for(error.cause()), error.what(), error.details());
    } catch (const cl::Error& error) {
        code = report(err, ExitCode::opencl, Error(error).what());
    } catch (const std::bad_alloc&) {
        code = report(err, ExitCode::host, "out of host memory");
    } catch (const std::exception& unexpected) {
        code = report(err, ExitCode::host, unexpected.what());
    } catch (...) {
        code = report(err, ExitCode::host, "unknown exception");
    }
    return static_cast<int>(code);
}

} // namespace clreduce
