#pragma once
// The profiling arithmetic, in one place: the time between two CL_PROFILING_COMMAND_* points
// of finished commands on a profiling queue, in microseconds (the points are nanoseconds on
// one device's clock).

#include <CL/opencl.hpp>

namespace clreduce {

/// From `from`'s profiling point `from_point` to `to`'s `to_point`, in microseconds. Both
/// commands have finished, on queues of one device that profile.
double microseconds(const cl::Event& from, cl_profiling_info from_point, const cl::Event& to,
                    cl_profiling_info to_point);

/// A command's own time: its START to its END.
double command_us(const cl::Event& command);

/// From the START of `first` to the END of `last`: what a run of commands spans.
double span_us(const cl::Event& first, const cl::Event& last);

} // namespace clreduce
