#include "devices.hpp"

#include "detail/capabilities.hpp"
#include "detail/finish.hpp"
#include "detail/policy.hpp"
#include "tool/devices.hpp"
#include "tool/options.hpp"

#include <algorithm>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace clreduce::python {
namespace {

/// What --list says of the device, as a dict: its indices among all its platform's devices
/// (none for a sub-device), its handle for pyopencl.Device.from_int_ptr, and what a default
/// reducer takes on it.
nb::dict describe(std::optional<std::size_t> platform_index, const cl::Device& device) {
    std::optional<std::size_t> device_index;
    if (platform_index) {
        const auto devices = devices_of(all_platforms()[*platform_index], CL_DEVICE_TYPE_ALL);
        const auto found = std::find_if(devices.begin(), devices.end(),
                                        [&](const cl::Device& each) { return each() == device(); });
        if (found != devices.end())
            device_index = static_cast<std::size_t>(found - devices.begin());
    }
    const auto report = query_report(device);
    std::vector<std::string> opencl_c;
    for (const auto version : report.opencl_c)
        opencl_c.push_back(to_string(version));
    nb::dict info;
    info["platform"] = platform_index ? nb::cast(*platform_index) : nb::none();
    info["index"] = device_index ? nb::cast(*device_index) : nb::none();
    info["type"] = type_name(report.type);
    info["name"] = report.name;
    info["platform_name"] = report.platform_name;
    info["version"] = report.version_text;
    info["opencl_c"] = opencl_c;
    info["path"] = name_of(policy_for(report, Recipe{}).path);
    info["finish"] = describe_finish_support(report);
    info["types"] = describe_type_support(report);
    info["handle"] = reinterpret_cast<std::uintptr_t>(device());
    return info;
}

} // namespace

nb::list list_devices() {
    nb::list listed;
    const auto platforms = all_platforms();
    for (std::size_t platform = 0; platform < platforms.size(); ++platform)
        for (const auto& device : devices_of(platforms[platform], CL_DEVICE_TYPE_ALL))
            listed.append(describe(platform, device));
    return listed;
}

nb::dict select_device(std::optional<std::size_t> platform, std::size_t device,
                       std::optional<std::string> type) {
    DeviceTriplet triplet;
    triplet.platform = platform;
    triplet.devices = {device};
    if (type)
        triplet.type = parse_device_type(*type);
    const auto selected = select_devices(triplet).front();
    return describe(selected.platform_index, selected.device);
}

nb::dict device_of_handle(std::uintptr_t handle) {
    const cl::Device device(reinterpret_cast<cl_device_id>(handle), true);
    const auto platforms = all_platforms();
    // Older OpenCL-CLHPP headers (Debian's) return a cl_platform_id, newer ones (Ubuntu
    // 24.04's) a cl::Platform: constructing one from either compiles with both.
    const cl::Platform own(device.getInfo<CL_DEVICE_PLATFORM>());
    const auto found = std::find_if(platforms.begin(), platforms.end(),
                                    [&](const cl::Platform& each) { return each() == own(); });
    std::optional<std::size_t> platform;
    if (found != platforms.end())
        platform = static_cast<std::size_t>(found - platforms.begin());
    return describe(platform, device);
}

} // namespace clreduce::python
