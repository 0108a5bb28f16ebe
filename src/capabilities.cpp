#include "detail/capabilities.hpp"

#include "clreduce/errors.hpp"
#include "detail/finish.hpp"
#include "detail/source.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace clreduce {
namespace {

constexpr Version opencl_c_2_0{2, 0};
constexpr Version opencl_c_3_0{3, 0};
constexpr std::string_view work_group_feature = "__opencl_c_work_group_collective_functions";
constexpr std::string_view sub_group_feature = "__opencl_c_subgroups";
constexpr std::string_view sub_group_extension = "cl_khr_subgroups";

bool contains(const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// Before 3.0 a device names only its newest OpenCL C version and accepts every earlier one.
std::vector<Version> versions_up_to(Version newest) {
    std::vector<Version> versions;
    for (const Version known : {Version{1, 0}, Version{1, 1}, Version{1, 2}, opencl_c_2_0})
        if (!(newest < known))
            versions.push_back(known);
    return versions;
}

std::vector<Version> query_opencl_c_versions(const cl::Device& device, Version opencl) {
    if (opencl < Version{1, 1}) // CL_DEVICE_OPENCL_C_VERSION arrived with 1.1
        return {Version{1, 0}};
    if (opencl < opencl_c_3_0) {
        const auto newest =
            parse_version(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>(), "OpenCL C ");
        return versions_up_to(newest.value_or(Version{1, 0}));
    }
    // A 3.x device lists every version it accepts; its CL_DEVICE_OPENCL_C_VERSION says less.
    std::vector<Version> versions;
    for (const cl_name_version& entry : device.getInfo<CL_DEVICE_OPENCL_C_ALL_VERSIONS>())
        versions.push_back({static_cast<int>(CL_VERSION_MAJOR(entry.version)),
                            static_cast<int>(CL_VERSION_MINOR(entry.version))});
    std::sort(versions.begin(), versions.end());
    return versions;
}

std::string versions_text(const std::vector<Version>& versions) {
    std::string text;
    for (const auto version : versions)
        text += (text.empty() ? "" : " ") + to_string(version);
    return text;
}

/// The OpenCL C version that declares a collective path's built-ins on this device.
std::string language_standard(const DeviceReport& report, Path path) {
    // A path the device does not report gets OpenCL C 2.0, the language these built-ins
    // were written for: a compiler that has them at all is most likely to accept them there.
    if (!reports_support(report, path))
        return "CL2.0";
    if (path == Path::work_group)
        return accepts_opencl_c_2(report) ? "CL2.0" : "CL3.0";
    // cl_khr_subgroups extends OpenCL C 2.0 and later: take the newest the device accepts.
    return report.accepts(opencl_c_3_0) ? "CL3.0" : "CL2.0";
}

} // namespace

bool operator==(Version a, Version b) {
    return a.major == b.major && a.minor == b.minor;
}
bool operator<(Version a, Version b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}
std::string to_string(Version version) {
    return std::to_string(version.major) + "." + std::to_string(version.minor);
}

bool accepts_opencl_c_2(const DeviceReport& report) {
    return std::any_of(report.opencl_c.begin(), report.opencl_c.end(),
                       [](Version version) { return version.major == 2; });
}

std::optional<Version> parse_version(std::string_view text, std::string_view prefix) {
    if (text.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    const char* const end = text.data() + text.size();
    Version version;
    const auto major = std::from_chars(text.data() + prefix.size(), end, version.major);
    if (major.ec != std::errc{} || major.ptr == end || *major.ptr != '.')
        return std::nullopt;
    const auto minor = std::from_chars(major.ptr + 1, end, version.minor);
    if (minor.ec != std::errc{} || (minor.ptr != end && *minor.ptr != ' '))
        return std::nullopt;
    return version;
}

std::vector<std::string> split_tokens(std::string_view text) {
    std::vector<std::string> tokens;
    std::istringstream stream{std::string(text)};
    for (std::string token; stream >> token;)
        tokens.push_back(token);
    return tokens;
}

bool DeviceReport::has_extension(std::string_view name) const {
    return contains(extensions, name);
}
bool DeviceReport::has_feature(std::string_view name) const {
    return contains(features, name);
}
bool DeviceReport::accepts(Version version) const {
    return std::find(opencl_c.begin(), opencl_c.end(), version) != opencl_c.end();
}

DeviceReport query_report(const cl::Device& device) {
    DeviceReport report;
    report.name = device.getInfo<CL_DEVICE_NAME>();
    report.platform_name =
        cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>();
    report.version_text = device.getInfo<CL_DEVICE_VERSION>();
    report.embedded_profile = device.getInfo<CL_DEVICE_PROFILE>() == "EMBEDDED_PROFILE";
    report.type = device.getInfo<CL_DEVICE_TYPE>();
    // A device that garbles its version is treated as the oldest, which asks the least.
    report.opencl = parse_version(report.version_text, "OpenCL ").value_or(Version{1, 0});
    report.opencl_c = query_opencl_c_versions(device, report.opencl);
    report.extensions = split_tokens(device.getInfo<CL_DEVICE_EXTENSIONS>());
    if (!(report.opencl < Version{3, 0})) {
        for (const cl_name_version& feature : device.getInfo<CL_DEVICE_OPENCL_C_FEATURES>())
            report.features.emplace_back(feature.name);
        report.work_group_collectives =
            device.getInfo<CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT>() == CL_TRUE;
    }
    report.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    report.global_memory = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    report.largest_buffer = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    report.local_memory = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    report.max_work_item_size = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(0);
    report.address_bits = device.getInfo<CL_DEVICE_ADDRESS_BITS>();
    report.base_address_align = device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
    return report;
}

bool reports_support(const DeviceReport& report, Path path) {
    return missing_support(report, path).empty();
}

std::string missing_support(const DeviceReport& report, Path path) {
    switch (path) {
    case Path::work_group:
        if (accepts_opencl_c_2(report) ||
            (report.accepts(opencl_c_3_0) && report.work_group_collectives &&
             report.has_feature(work_group_feature)))
            return {};
        return "it needs OpenCL C 2.0, or OpenCL C 3.0 with " + std::string(work_group_feature) +
               ", and the device reports OpenCL C " + versions_text(report.opencl_c) +
               (report.work_group_collectives ? "" : " without work-group collective functions");
    case Path::sub_group:
        if (report.has_extension(sub_group_extension) ||
            (report.accepts(opencl_c_3_0) && report.has_feature(sub_group_feature)))
            return {};
        return "it needs " + std::string(sub_group_extension) + " or " +
               std::string(sub_group_feature) + ", and the device reports neither";
    case Path::tree:
        break;
    }
    return {};
}

Path best_path(const DeviceReport& report) {
    for (const Path path : {Path::work_group, Path::sub_group})
        if (reports_support(report, path))
            return path;
    return Path::tree;
}

Path choose_path(const DeviceReport& report, std::optional<Path> requested, bool allow_unreported) {
    if (!requested)
        return best_path(report);
    const auto missing = missing_support(report, *requested);
    if (!missing.empty() && !allow_unreported)
        throw Error(Errc::unsupported, "device '" + report.name + "' does not report the " +
                                           name_of(*requested) + " path: " + missing +
                                           " (allow_unreported builds it anyway)");
    return *requested;
}

std::string missing_type_support(const DeviceReport& report, DataType type) {
    // A 3.x device states its optional features; before 3.0 the extension or profile did.
    const bool opencl_3 = !(report.opencl < Version{3, 0});
    switch (info(type).needs) {
    case Capability::fp64:
        if (opencl_3 ? report.has_feature("__opencl_c_fp64") : report.has_extension("cl_khr_fp64"))
            return {};
        return name_of(type) + " needs " + (opencl_3 ? "__opencl_c_fp64" : "cl_khr_fp64") +
               ", which the device does not report";
    case Capability::int64:
        if (opencl_3 ? report.has_feature("__opencl_c_int64")
                     : !report.embedded_profile || report.has_extension("cles_khr_int64"))
            return {};
        return name_of(type) + " needs " +
               (opencl_3 ? "__opencl_c_int64" : "the full profile or cles_khr_int64") +
               ", which the device does not report";
    case Capability::none:
        break;
    }
    return {};
}

std::string describe_type_support(const DeviceReport& report) {
    std::string held;
    std::string missing;
    for (const auto& type : all_types()) {
        const auto why = missing_type_support(report, type.type);
        if (why.empty())
            held += (held.empty() ? "" : " ") + std::string(type.name);
        else
            missing += "; no " + std::string(type.name) + ": " + why;
    }
    return held + missing;
}

void require_type_support(const DeviceReport& report, DataType type) {
    const auto missing = missing_type_support(report, type);
    if (!missing.empty())
        throw Error(Errc::unsupported,
                    "device '" + report.name + "' cannot reduce " + name_of(type) + ": " + missing);
}

bool reads_contiguous_runs(const DeviceReport& report) {
    // GPUs coalesce reads interleaved across the launch; a CPU core streams a contiguous run.
    return (report.type & CL_DEVICE_TYPE_CPU) != 0;
}

bool prefetches_runs(const DeviceReport& report) {
    // PoCL names itself in CL_DEVICE_VERSION ("OpenCL 3.0 PoCL ..."); 3.1 and 5.0 compile the
    // prefetch to prefetcht0.
    return reads_contiguous_runs(report) && report.version_text.find("PoCL") != std::string::npos;
}

// The prefetch distance of reduce.cl's contiguous fold, in bytes: on the 16-core PoCL the float
// sum of 2^28 values took 9956 us so against 12183 (medians of three rounds), the double sum of
// 2^27 8972 against 10312; the hardware's own prefetcher left a core's run waiting on memory
// (docs/design.md, "Prefetching a CPU's run").
constexpr int reduce_prefetch_bytes = 2048;

// On NVIDIA's compiler, the registers a work-item may take where the device factor's launch
// (4 work-groups of 256 a compute unit: 65536 registers an SM) still runs in one wave. Left to
// itself, ptxas gave reduce_and_finish 32 to 40 registers for int32, float and float16 values
// and kept fewer loads in flight: on an H200 the uint32 max and int32 min of 2^28 took 281 to
// 286 us, 239 to 244 with this budget (the plain read: 236 to 240), the int32 and float sums 3
// to 4% less. The folds that pick bytes out of words take 48 to 57 registers already; there the
// budget made ptxas spill, and the int8 max took 2.5% longer (docs/design.md, "Registers on
// NVIDIA's compiler").
constexpr const char* ptx_register_budget = "-cl-nv-maxrregcount=64";

// The same for exact_sum.cl's doubles, whose launches run two work-groups of 256 an SM: 128
// registers a work-item. Left to itself, ptxas gave exact_partials 102 but exact_runs, which
// rounds its row where it ends, 139, so that an axis's work-groups of 256 ran one an SM. With
// the budget (exact_runs 128, no spills): on an H200, 4096 runs of 16384 normal doubles took
// 228 us against 370, 16 runs of 2^22 186 against 211; the whole array's sum as long from 2^24,
// 0.4 to 0.6 us longer at 2^20 (docs/exact-sums.md, "Doubles along axes: a register budget").
// Float programs take at most 64 unbidden, as their four work-groups an SM need.
constexpr const char* ptx_exact_double_register_budget = "-cl-nv-maxrregcount=128";

std::string exact_register_budget(const DeviceReport& report, DataType type) {
    return compiles_to_ptx(report) && type == DataType::float64 ? ptx_exact_double_register_budget
                                                                : "";
}

std::string build_options(const DeviceReport& report, Path path, Finish finish, DataType type,
                          std::optional<DataType> accumulator, Op op, Reads reads, bool mapped) {
    std::string options;
    const auto add = [&](const std::string& flag) {
        options += (options.empty() ? "" : " ") + flag;
    };
    add(type_options(type, accumulator.value_or(type), op, reads, mapped));
    const bool last_group = finish == Finish::last_group;
    const bool ordered_atomics =
        last_group && finish_ordering(report) == FinishOrdering::memory_model;
    // The tree needs nothing beyond the compiler's default OpenCL C; C11 atomics need 2.0+.
    if (path != Path::tree)
        add("-cl-std=" + language_standard(report, path));
    else if (ordered_atomics)
        add(accepts_opencl_c_2(report) ? "-cl-std=CL2.0" : "-cl-std=CL3.0");
    if (path == Path::work_group)
        add("-D REDUCE_PATH_WORK_GROUP");
    if (path == Path::sub_group)
        add("-D REDUCE_PATH_SUB_GROUP");
    if (ordered_atomics)
        add("-D REDUCE_ORDERED_ATOMICS");
    else if (last_group && compiles_to_ptx(report))
        add("-D REDUCE_PTX_FENCES");
    if (reads_contiguous_runs(report))
        add("-D REDUCE_CONTIGUOUS");
    if (prefetches_runs(report))
        add("-D REDUCE_PREFETCH_BYTES=" + std::to_string(reduce_prefetch_bytes));
    if (compiles_to_ptx(report) && !picks_bytes_in_words(type, op, reads, mapped))
        add(ptx_register_budget);
    return options;
}

} // namespace clreduce
