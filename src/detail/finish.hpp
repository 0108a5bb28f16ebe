#pragma once
// Whether a device may finish a reduction in its last work-group (Finish::last_group), and
// how that kernel is built there. The decision is a plain function of what the device
// reports and of the compiled kernel's text, so it is tested without a device.

#include "clreduce/kinds.hpp"
#include "detail/capabilities.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace clreduce {

/// How the last-group finish orders each partial's store before the arrival count.
enum class FinishOrdering {
    memory_model,  // OpenCL C 2.x, or 3.0 with acq_rel order and device scope: C11 atomics
    proven_fences, // OpenCL C 1.x's fences and atomic_inc, where the binary shows the fences
};

/// What the device's report allows: proven_fences needs ordering_proven() after the build.
FinishOrdering finish_ordering(const DeviceReport& report);

/// Whether the device's compiler is NVIDIA's, which makes PTX and takes inline PTX
/// (it reports cl_nv_compiler_options).
bool compiles_to_ptx(const DeviceReport& report);

/// Why the device's report orders no atomics across work-groups (empty when it does).
std::string missing_ordered_atomics(const DeviceReport& report);

/// Whether `binary` (CL_PROGRAM_BINARIES) is PTX in which `kernel` fences memory for the
/// whole device (membar.gl, or fence at .gpu or .sys scope) both before and after its first
/// atomic, and after it loads from global memory only past stale caches (ld.volatile, or
/// ld.relaxed/ld.acquire at .gpu or .sys scope; not a plain ld, ld.global.nc or ldu), so
/// that the last work-group reads the partials the others stored. membar.cta, a fence within
/// the work-group, does not count.
bool ordering_proven(std::string_view binary, std::string_view kernel);

/// The finish to build, before the build: `requested`, or for nullopt (auto) the last-group
/// finish unless the factor is textbook, which runs every pass. Throws
/// Error(Errc::unsupported) for an explicit last-group with the textbook factor.
Finish choose_finish(Factor factor, std::optional<Finish> requested);

/// After the build: `chosen`, unless it is the last-group finish on a device that needs
/// proven fences and `compiled_binary()` does not prove them; then passes for auto, and for
/// an explicit last-group Error(Errc::unsupported) saying why.
Finish confirm_finish(const DeviceReport& report, Finish chosen, std::optional<Finish> requested,
                      const std::function<std::string()>& compiled_binary);

/// A line for --list and --verbose: which finish `auto` takes on this device and why.
std::string describe_finish_support(const DeviceReport& report);

} // namespace clreduce
