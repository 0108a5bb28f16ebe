#pragma once
// What a device reports about itself, read in a way that is valid on OpenCL 1.x, 2.x and 3.x
// runtimes, and the decisions taken from it: which reduction paths it may run and how to
// build them. The decisions are plain functions of the report, so they are tested without
// a device.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <CL/opencl.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clreduce {

struct Version {
    int major = 0;
    int minor = 0;
};
bool operator==(Version a, Version b);
bool operator<(Version a, Version b);
std::string to_string(Version version);

/// Reads "<prefix><major>.<minor>[ <anything>]", as the spec lays out CL_DEVICE_VERSION
/// ("OpenCL ") and CL_DEVICE_OPENCL_C_VERSION ("OpenCL C "). Nothing for any other text.
std::optional<Version> parse_version(std::string_view text, std::string_view prefix);

/// Splits a space-separated list (extensions) into whole tokens.
std::vector<std::string> split_tokens(std::string_view text);

struct DeviceReport {
    std::string name;
    std::string platform_name;
    std::string version_text; // CL_DEVICE_VERSION as reported
    bool embedded_profile = false;
    cl_device_type type = 0;
    Version opencl;                      // from CL_DEVICE_VERSION
    std::vector<Version> opencl_c;       // every OpenCL C version the compiler accepts
    std::vector<std::string> extensions; // whole names
    std::vector<std::string> features;   // OpenCL C features (3.0 devices only)
    bool work_group_collectives = false; // CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT
    cl_uint compute_units = 1;
    std::uint64_t global_memory = 0;      // CL_DEVICE_GLOBAL_MEM_SIZE
    std::uint64_t largest_buffer = 0;     // CL_DEVICE_MAX_MEM_ALLOC_SIZE
    std::uint64_t local_memory = 0;       // CL_DEVICE_LOCAL_MEM_SIZE
    std::size_t max_work_item_size = 1;   // CL_DEVICE_MAX_WORK_ITEM_SIZES[0]
    cl_uint address_bits = 64;            // CL_DEVICE_ADDRESS_BITS
    std::size_t base_address_align = 128; // CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes

    bool has_extension(std::string_view name) const;
    bool has_feature(std::string_view name) const;
    bool accepts(Version opencl_c_version) const;
};

/// Whether the device accepts some OpenCL C 2.x, which has work-group collectives and the
/// memory model's atomics without optional features.
bool accepts_opencl_c_2(const DeviceReport& report);

/// Asks only what the device's OpenCL version defines: the 3.0 queries on 3.x devices.
DeviceReport query_report(const cl::Device& device);

/// Whether the device reports what `path` needs.
bool reports_support(const DeviceReport& report, Path path);

/// Why the device cannot run `path` (for messages and --list); empty when it can.
std::string missing_support(const DeviceReport& report, Path path);

/// The best path the device reports: work-group, then sub-group, then the tree.
Path best_path(const DeviceReport& report);

/// The path to build: the best reported one for `requested` == nullopt, else the one asked
/// for, if the device reports it or `allow_unreported`. Throws Error(Errc::unsupported).
Path choose_path(const DeviceReport& report, std::optional<Path> requested, bool allow_unreported);

/// Why the device cannot hold values of `type` (empty when it can): double needs cl_khr_fp64
/// or __opencl_c_fp64; 64-bit integers need the full profile, cles_khr_int64 or
/// __opencl_c_int64 (on 3.0 devices).
std::string missing_type_support(const DeviceReport& report, DataType type);

/// The types the device holds, then why it holds none of the others: for --list and -v.
std::string describe_type_support(const DeviceReport& report);

/// Throws Error(Errc::unsupported) naming what is missing when the device cannot hold
/// values of `type`; call it before building.
void require_type_support(const DeviceReport& report, DataType type);

/// Whether each work-item should read a contiguous run of the input rather than a stride of
/// the launch: on CPUs.
bool reads_contiguous_runs(const DeviceReport& report);

/// Whether the kernels may ask the compiler to prefetch the run ahead (__builtin_prefetch):
/// on PoCL's CPU devices, which make it the CPU's prefetch instruction. Oclgrind, a CPU device
/// too, has no such intrinsic and fails the build.
bool prefetches_runs(const DeviceReport& report);

/// The one place that maps the device, path, finish and types to compiler flags: the types
/// (type_options() of `type` and `accumulator`, by default `type` itself, for `op` reading
/// `reads`, the values `mapped` by the user's map or not), the -cl-std the
/// built-ins and atomics need, the -D that selects the kernel's work-group step, on CPUs the -D
/// that gives each work-item a contiguous run of the input (and where prefetches_runs() the
/// -D that prefetches it), for the last-group finish the -D
/// that orders its atomics, and on NVIDIA's compiler the registers a work-item may take.
std::string build_options(const DeviceReport& report, Path path, Finish finish = Finish::passes,
                          DataType type = DataType::int32,
                          std::optional<DataType> accumulator = std::nullopt, Op op = Op::sum,
                          Reads reads = Reads::values, bool mapped = false);

/// The flag that caps the registers a work-item of exact_sum.cl's program may take (see
/// exact_build_options()): on NVIDIA's compiler for doubles, whose program's runs would
/// otherwise take more than their launch leaves; empty elsewhere.
std::string exact_register_budget(const DeviceReport& report, DataType type);

} // namespace clreduce
