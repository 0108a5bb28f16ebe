#include "tool/devices.hpp"

#include "detail/capabilities.hpp"
#include "detail/finish.hpp"
#include "detail/policy.hpp"
#include "tool/failure.hpp"

#include <algorithm>
#include <ostream>

namespace clreduce {
namespace {

std::string count_text(std::size_t count, const std::string& what) {
    return std::to_string(count) + " " + what + (count == 1 ? "" : "s");
}

/// "a cpu device", "an acc device".
std::string with_article(const std::string& noun) {
    return (std::string("aeiou").find(noun.front()) == std::string::npos ? "a " : "an ") + noun;
}

std::string device_kind(cl_device_type type) {
    return type == CL_DEVICE_TYPE_ALL ? "device" : type_name(type) + " device";
}

void list_device(std::ostream& out, std::size_t platform_index, std::size_t device_index,
                 const cl::Device& device) {
    const auto report = query_report(device);
    out << "  -p " << platform_index << " -d " << device_index << "  " << type_name(report.type)
        << "  " << report.name << '\n';
    out << "      " << report.version_text << "; OpenCL C";
    for (const auto version : report.opencl_c)
        out << ' ' << to_string(version);
    out << '\n';
    // The path a default reducer takes: the best reported, so every one before it is missing
    // something.
    const auto path = policy_for(report, Recipe{}).path;
    out << "      reduction path: " << name_of(path);
    for (const Path better : {Path::work_group, Path::sub_group}) {
        if (better == path)
            break;
        out << "; no " << name_of(better) << ": " << missing_support(report, better);
    }
    out << "\n      --finish auto: " << describe_finish_support(report)
        << "\n      types: " << describe_type_support(report) << '\n';
}

} // namespace

std::vector<cl::Platform> all_platforms() {
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error& error) {
        if (error.err() != CL_PLATFORM_NOT_FOUND_KHR)
            throw;
    }
    if (platforms.empty())
        throw Failure(ExitCode::no_device,
                      "no OpenCL platform found: no driver (ICD) is installed or registered");
    return platforms;
}

std::vector<cl::Device> devices_of(const cl::Platform& platform, cl_device_type type) {
    std::vector<cl::Device> devices;
    try {
        platform.getDevices(type, &devices);
    } catch (const cl::Error& error) {
        // Some drivers (NVIDIA's) answer a type they never have, such as custom, as invalid.
        if (error.err() != CL_DEVICE_NOT_FOUND && error.err() != CL_INVALID_DEVICE_TYPE)
            throw;
    }
    return devices;
}

cl_device_type preferred_type(const DeviceTriplet& triplet,
                              const std::vector<cl::Platform>& platforms) {
    if (triplet.type)
        return *triplet.type;
    if (triplet.platform)
        return CL_DEVICE_TYPE_ALL;
    for (const cl_device_type type :
         {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU})
        for (const auto& platform : platforms)
            if (!devices_of(platform, type).empty())
                return type;
    return CL_DEVICE_TYPE_ALL;
}

std::vector<SelectedDevice> select_devices(const DeviceTriplet& triplet) {
    const auto platforms = all_platforms();
    const auto type = preferred_type(triplet, platforms);
    const auto kind = device_kind(type);
    // The most devices the triplet needs: one past its largest index, or one for all.
    const std::size_t needed =
        triplet.all ? 1 : *std::max_element(triplet.devices.begin(), triplet.devices.end()) + 1;
    const auto pick = [&](std::size_t platform_index) {
        const auto devices = devices_of(platforms[platform_index], type);
        std::vector<SelectedDevice> picked;
        if (triplet.all)
            for (std::size_t index = 0; index < devices.size(); ++index)
                picked.push_back({devices[index], platform_index, index});
        for (const auto index : triplet.all ? std::vector<std::size_t>{} : triplet.devices) {
            if (index >= devices.size())
                throw Failure(ExitCode::no_device, "device index " + std::to_string(index) +
                                                       " is past the end: platform " +
                                                       std::to_string(platform_index) + " has " +
                                                       count_text(devices.size(), kind) +
                                                       " (--list shows them)");
            picked.push_back({devices[index], platform_index, index});
        }
        return picked;
    };
    if (triplet.platform) {
        const auto platform_index = *triplet.platform;
        if (platform_index >= platforms.size())
            throw Failure(ExitCode::no_device, "platform index " + std::to_string(platform_index) +
                                                   " is past the end: there " +
                                                   (platforms.size() == 1 ? "is " : "are ") +
                                                   count_text(platforms.size(), "platform") +
                                                   " (--list shows them)");
        const auto picked = pick(platform_index);
        if (picked.empty())
            throw Failure(ExitCode::no_device, "platform " + std::to_string(platform_index) +
                                                   " has no " + kind + " (--list shows them)");
        return picked;
    }
    std::size_t most = 0; // the most devices of the type on one platform
    for (std::size_t platform_index = 0; platform_index < platforms.size(); ++platform_index) {
        const auto count = devices_of(platforms[platform_index], type).size();
        if (count >= needed)
            return pick(platform_index);
        most = std::max(most, count);
    }
    if (most == 0)
        throw Failure(ExitCode::no_device,
                      "no platform has " + with_article(kind) + " (--list shows every device)");
    throw Failure(ExitCode::no_device, "device index " + std::to_string(needed - 1) +
                                           " is past the end: no platform has more than " +
                                           count_text(most, kind) + " (--list shows every device)");
}

std::string type_name(cl_device_type type) {
    if (type == CL_DEVICE_TYPE_ALL)
        return "all";
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "acc";
    if (type & CL_DEVICE_TYPE_CUSTOM)
        return "cus";
    return "def";
}

void list_devices(std::ostream& out) {
    const auto platforms = all_platforms();
    out << "Without -p and -t, clreduce takes the first "
        << type_name(preferred_type({}, platforms)) << " device found.\n";
    for (std::size_t platform_index = 0; platform_index < platforms.size(); ++platform_index) {
        const auto& platform = platforms[platform_index];
        out << "Platform " << platform_index << ": " << platform.getInfo<CL_PLATFORM_NAME>() << " ("
            << platform.getInfo<CL_PLATFORM_VERSION>() << ")\n";
        const auto devices = devices_of(platform, CL_DEVICE_TYPE_ALL);
        for (std::size_t device_index = 0; device_index < devices.size(); ++device_index)
            list_device(out, platform_index, device_index, devices[device_index]);
    }
}

} // namespace clreduce
