#include "tool/failure.hpp"

#include "clreduce/errors.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <new>
#include <ostream>
#include <string_view>
#include <unistd.h>
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

/// The engine's messages speak of its own fields (a recipe's, a call's); the tool's user set
/// them through options, and reads them so: the causes' words, as exit_code_for maps their
/// codes.
std::string in_tool_words(std::string message) {
    static const std::pair<std::string_view, std::string_view> words[] = {
        {"work_group_size ", "--work-group-size "},
        {"the buffer limit ", "--max-buffer "},
        {"allow_unreported", "--allow-unreported"},
        {"the last-group finish needs the device factor",
         "--finish last-group needs --factor device"},
        {"the passes finish runs everywhere", "--finish passes runs everywhere"},
    };
    for (const auto& [engine, tool] : words)
        if (const auto at = message.find(engine); at != std::string::npos)
            message.replace(at, engine.size(), tool);
    return message;
}

} // namespace

HeldStderr::HeldStderr()
    : held_(std::tmpfile()) {
    if (!held_)
        return;
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    if (saved_ < 0 || dup2(fileno(held_), STDERR_FILENO) < 0) {
        std::fclose(held_);
        held_ = nullptr;
    }
}

HeldStderr::~HeldStderr() {
    const auto text = release();
    if (!text.empty())
        std::cerr << text << std::flush;
}

std::string HeldStderr::release() {
    if (!held_)
        return {};
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    std::string text;
    std::rewind(held_);
    for (int c = std::fgetc(held_); c != EOF; c = std::fgetc(held_))
        text += static_cast<char>(c);
    std::fclose(held_);
    held_ = nullptr;
    return text;
}

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
        code =
            report(err, exit_code_for(error.cause()), in_tool_words(error.what()), error.details());
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
