#pragma once
// Finding devices: the SDK samples' triplet (platform, device, type) and --list.

#include "tool/options.hpp"

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

/// The type the triplet asks for: --type if given; else all types on an explicit platform,
/// or the first of gpu, acc and cpu that some platform has (all if none has any).
cl_device_type preferred_type(const DeviceTriplet& triplet,
                              const std::vector<cl::Platform>& platforms);

/// The devices the triplet names, in its order, all on one platform. Without a platform
/// index, the first platform that has them is taken. Throws Failure(ExitCode::no_device)
/// saying what is there instead.
std::vector<SelectedDevice> select_devices(const DeviceTriplet& triplet);

/// "cpu", "gpu", "acc", "cus", "def" or "all", as --type spells them.
std::string type_name(cl_device_type type);

/// Every platform and device, each with its triplet, versions, reduction path and finish,
/// and which device a run without -p and -t takes.
void list_devices(std::ostream& out);

} // namespace clreduce
