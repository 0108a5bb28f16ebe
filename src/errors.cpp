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

std::string cl_error_name(cl_int code) {
#define CLREDUCE_ERROR_CASE(name)                                                                  \
    case name:                                                                                     \
        return #name;
    switch (code) {
        CLREDUCE_ERROR_CASE(CL_SUCCESS)
        CLREDUCE_ERROR_CASE(CL_DEVICE_NOT_FOUND)
        CLREDUCE_ERROR_CASE(CL_DEVICE_NOT_AVAILABLE)
        CLREDUCE_ERROR_CASE(CL_COMPILER_NOT_AVAILABLE)
        CLREDUCE_ERROR_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        CLREDUCE_ERROR_CASE(CL_OUT_OF_RESOURCES)
        CLREDUCE_ERROR_CASE(CL_OUT_OF_HOST_MEMORY)
        CLREDUCE_ERROR_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        CLREDUCE_ERROR_CASE(CL_MEM_COPY_OVERLAP)
        CLREDUCE_ERROR_CASE(CL_IMAGE_FORMAT_MISMATCH)
        CLREDUCE_ERROR_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        CLREDUCE_ERROR_CASE(CL_BUILD_PROGRAM_FAILURE)
        CLREDUCE_ERROR_CASE(CL_MAP_FAILURE)
        CLREDUCE_ERROR_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        CLREDUCE_ERROR_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        CLREDUCE_ERROR_CASE(CL_COMPILE_PROGRAM_FAILURE)
        CLREDUCE_ERROR_CASE(CL_LINKER_NOT_AVAILABLE)
        CLREDUCE_ERROR_CASE(CL_LINK_PROGRAM_FAILURE)
        CLREDUCE_ERROR_CASE(CL_DEVICE_PARTITION_FAILED)
        CLREDUCE_ERROR_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        CLREDUCE_ERROR_CASE(CL_INVALID_VALUE)
        CLREDUCE_ERROR_CASE(CL_INVALID_DEVICE_TYPE)
        CLREDUCE_ERROR_CASE(CL_INVALID_PLATFORM)
        CLREDUCE_ERROR_CASE(CL_INVALID_DEVICE)
        CLREDUCE_ERROR_CASE(CL_INVALID_CONTEXT)
        CLREDUCE_ERROR_CASE(CL_INVALID_QUEUE_PROPERTIES)
        CLREDUCE_ERROR_CASE(CL_INVALID_COMMAND_QUEUE)
        CLREDUCE_ERROR_CASE(CL_INVALID_HOST_PTR)
        CLREDUCE_ERROR_CASE(CL_INVALID_MEM_OBJECT)
        CLREDUCE_ERROR_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        CLREDUCE_ERROR_CASE(CL_INVALID_IMAGE_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_SAMPLER)
        CLREDUCE_ERROR_CASE(CL_INVALID_BINARY)
        CLREDUCE_ERROR_CASE(CL_INVALID_BUILD_OPTIONS)
        CLREDUCE_ERROR_CASE(CL_INVALID_PROGRAM)
        CLREDUCE_ERROR_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        CLREDUCE_ERROR_CASE(CL_INVALID_KERNEL_NAME)
        CLREDUCE_ERROR_CASE(CL_INVALID_KERNEL_DEFINITION)
        CLREDUCE_ERROR_CASE(CL_INVALID_KERNEL)
        CLREDUCE_ERROR_CASE(CL_INVALID_ARG_INDEX)
        CLREDUCE_ERROR_CASE(CL_INVALID_ARG_VALUE)
        CLREDUCE_ERROR_CASE(CL_INVALID_ARG_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_KERNEL_ARGS)
        CLREDUCE_ERROR_CASE(CL_INVALID_WORK_DIMENSION)
        CLREDUCE_ERROR_CASE(CL_INVALID_WORK_GROUP_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_WORK_ITEM_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_GLOBAL_OFFSET)
        CLREDUCE_ERROR_CASE(CL_INVALID_EVENT_WAIT_LIST)
        CLREDUCE_ERROR_CASE(CL_INVALID_EVENT)
        CLREDUCE_ERROR_CASE(CL_INVALID_OPERATION)
        CLREDUCE_ERROR_CASE(CL_INVALID_GL_OBJECT)
        CLREDUCE_ERROR_CASE(CL_INVALID_BUFFER_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_MIP_LEVEL)
        CLREDUCE_ERROR_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_PROPERTY)
        CLREDUCE_ERROR_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
        CLREDUCE_ERROR_CASE(CL_INVALID_COMPILER_OPTIONS)
        CLREDUCE_ERROR_CASE(CL_INVALID_LINKER_OPTIONS)
        CLREDUCE_ERROR_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
        CLREDUCE_ERROR_CASE(CL_INVALID_PIPE_SIZE)
        CLREDUCE_ERROR_CASE(CL_INVALID_DEVICE_QUEUE)
        CLREDUCE_ERROR_CASE(CL_INVALID_SPEC_ID)
        CLREDUCE_ERROR_CASE(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
        CLREDUCE_ERROR_CASE(CL_PLATFORM_NOT_FOUND_KHR)
    }
#undef CLREDUCE_ERROR_CASE
    return "unknown OpenCL error " + std::to_string(code);
}

namespace {

ExitCode report(std::ostream& err, ExitCode code, const std::string& message,
                const std::string& details = {}) {
    err << "clreduce: error: " << message << '\n';
    if (!details.empty())
        err << details << (details.back() == '\n' ? "" : "\n");
    return code;
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
    } catch (const cl::Error& error) {
        code = report(err, ExitCode::opencl,
                      error.what() + std::string(" failed with ") + cl_error_name(error.err()));
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
