#pragma once
// Finding devices: the SDK samples' triplet (platform, device, type) and --list.

#include "clreduce/options.hpp"

#include <CL/opencl.hpp>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace clreduce {

struct SelectedDevice {
    cl::Device device;
    std::size_t platform_index = 0;
    std::size_t device_index = 0; // among the platform's devices of the requested type
};

/// Every platform; throws Failure(ExitCode::no_device) when there is none.
std::vector<cl::Platform> all_platforms();

/// The platform's devices of `type`, none when it has no such device.
std::vector<cl::Device> devices_of(const cl::Platform& platform, cl_device_type type);

/// The device the triplet names. Without a platform index, the first platform that has the
/// device is taken. Throws Failure(ExitCode::no_device) saying what is there instead.
SelectedDevice select_device(const DeviceTriplet& triplet);

/// "cpu", "gpu", "acc", "cus", "def" or "all", as --type spells them.
std::string type_name(cl_device_type type);

/// Every platform and device, each with its triplet, versions and reduction path.
void list_devices(std::ostream& out);

} // namespace clreduce
