#include "detail/profiling.hpp"

namespace clreduce {

double microseconds(const cl::Event& from, cl_profiling_info from_point, const cl::Event& to,
                    cl_profiling_info to_point) {
    cl_ulong start = 0;
    cl_ulong end = 0;
    from.getProfilingInfo(from_point, &start);
    to.getProfilingInfo(to_point, &end);
    return static_cast<double>(end - start) / 1000.0;
}

double command_us(const cl::Event& command) {
    return microseconds(command, CL_PROFILING_COMMAND_START, command, CL_PROFILING_COMMAND_END);
}

double span_us(const cl::Event& first, const cl::Event& last) {
    return microseconds(first, CL_PROFILING_COMMAND_START, last, CL_PROFILING_COMMAND_END);
}

} // namespace clreduce
