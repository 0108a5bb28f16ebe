#include "clreduce/finish.hpp"

#include "clreduce/errors.hpp"

namespace clreduce {
namespace {

constexpr std::string_view acq_rel_feature = "__opencl_c_atomic_order_acq_rel";
constexpr std::string_view device_scope_feature = "__opencl_c_atomic_scope_device";
constexpr std::string_view finishing_kernel = "reduce_and_finish";

/// The body of `kernel`'s .entry in PTX text: up to the next .entry or the end.
std::string_view ptx_entry(std::string_view ptx, std::string_view kernel) {
    const std::string header = ".entry " + std::string(kernel) + "(";
    const auto begin = ptx.find(header);
    if (begin == std::string_view::npos)
        return {};
    const auto end = ptx.find(".entry ", begin + header.size());
    return ptx.substr(begin, end == std::string_view::npos ? end : end - begin);
}

bool fences_global_memory(std::string_view code) {
    for (const std::string_view fence : {"membar.gl", "membar.sys", "fence.sc.gpu",
                                         "fence.acq_rel.gpu", "fence.sc.sys", "fence.acq_rel.sys"})
        if (code.find(fence) != std::string_view::npos)
            return true;
    return false;
}

} // namespace

bool compiles_to_ptx(const DeviceReport& report) {
    return report.has_extension("cl_nv_compiler_options");
}

FinishOrdering finish_ordering(const DeviceReport& report) {
    return missing_ordered_atomics(report).empty() ? FinishOrdering::memory_model
                                                   : FinishOrdering::proven_fences;
}

std::string missing_ordered_atomics(const DeviceReport& report) {
    if (accepts_opencl_c_2(report) ||
        (report.accepts({3, 0}) && report.has_feature(acq_rel_feature) &&
         report.has_feature(device_scope_feature)))
        return {};
    return "it reports neither OpenCL C 2.x nor OpenCL C 3.0 with " + std::string(acq_rel_feature) +
           " and " + std::string(device_scope_feature);
}

bool fences_proven(std::string_view binary, std::string_view kernel) {
    const auto entry = ptx_entry(binary, kernel);
    const auto atomic = entry.find("atom.");
    return atomic != std::string_view::npos && fences_global_memory(entry.substr(0, atomic)) &&
           fences_global_memory(entry.substr(atomic));
}

Finish choose_finish(Factor factor, std::optional<Finish> requested) {
    if (requested == Finish::passes)
        return Finish::passes;
    if (factor == Factor::textbook) {
        if (requested)
            throw Failure(ExitCode::unsupported,
                          "--finish last-group needs --factor device: the textbook factor runs "
                          "every pass");
        return Finish::passes;
    }
    return Finish::last_group;
}

Finish confirm_finish(const DeviceReport& report, Finish chosen, std::optional<Finish> requested,
                      const std::function<std::string()>& compiled_binary) {
    if (chosen == Finish::passes || finish_ordering(report) == FinishOrdering::memory_model ||
        fences_proven(compiled_binary(), finishing_kernel))
        return chosen;
    if (!requested)
        return Finish::passes;
    throw Failure(ExitCode::unsupported,
                  "device '" + report.name +
                      "' cannot finish in the last work-group: " + missing_ordered_atomics(report) +
                      ", and its compiled kernel does not show device-wide fences around the "
                      "atomic (only NVIDIA's PTX can be checked); --finish passes runs everywhere");
}

std::string describe_finish_support(const DeviceReport& report) {
    if (finish_ordering(report) == FinishOrdering::memory_model)
        return "last-group (atomics ordered by the OpenCL C memory model)";
    if (!compiles_to_ptx(report))
        return "passes: " + missing_ordered_atomics(report) +
               ", and its compiler makes no PTX whose fences could be checked";
    return "last-group where the compiled kernel shows device-wide fences around its atomic "
           "(NVIDIA's PTX), else passes: " +
           missing_ordered_atomics(report);
}

} // namespace clreduce
