#pragma once
// How the engine fails: every failure it detects is a clreduce::Error that carries its cause.

#include <CL/opencl.hpp>
#include <stdexcept>
#include <string>

namespace clreduce {

/// The cause of an Error.
enum class Errc {
    unsupported,      // the device cannot run the requested path, type, finish, size or length
    kernel_source,    // a kernel file is missing, unreadable or empty
    kernel_build,     // the OpenCL C compiler rejected the kernel (details(): its log)
    opencl,           // an OpenCL call failed (status(): its CL_... code)
    invalid_argument, // the caller's arguments contradict each other (a buffer too short)
};

/// The engine's one exception type. Every failure the engine detects throws it, with a
/// one-line message and, for a failed build, the compiler's log in details().
///
/// An OpenCL call that fails inside the engine throws the C++ wrapper's cl::Error
/// (CL_HPP_ENABLE_EXCEPTIONS, which clreduce::clreduce defines for its users); the engine's
/// public calls (Reducer's, DeviceInput's, HostStream's, upload) catch it and throw
/// Error(const cl::Error&) instead: Errc::opencl, the call named in what(), its status in
/// status(). A caller of the engine thus catches one type; its own OpenCL calls still throw
/// cl::Error.
class Error : public std::runtime_error {
public:
    Error(Errc cause, const std::string& message, std::string details = {});
    /// Errc::opencl: "<the call> failed with CL_...", status() the call's code.
    explicit Error(const cl::Error& error);
    Errc cause() const { return cause_; }
    /// The compiler's log for Errc::kernel_build; empty otherwise.
    const std::string& details() const { return details_; }
    /// The OpenCL status for Errc::opencl; CL_SUCCESS otherwise.
    cl_int status() const { return status_; }

private:
    Errc cause_;
    std::string details_;
    cl_int status_ = CL_SUCCESS;
};

/// The CL_... name of an OpenCL error code, e.g. "CL_INVALID_VALUE".
std::string cl_error_name(cl_int code);

} // namespace clreduce
