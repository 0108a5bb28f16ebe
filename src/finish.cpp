#include "detail/finish.hpp"

#include "clreduce/errors.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

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

/// The qualifiers of a PTX instruction such as ld.volatile.global.u32: volatile, global, u32.
std::vector<std::string_view> qualifiers_of(std::string_view opcode) {
    std::vector<std::string_view> qualifiers;
    for (auto dot = opcode.find('.'); dot != std::string_view::npos;) {
        const auto next = opcode.find('.', dot + 1);
        qualifiers.push_back(opcode.substr(
            dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1));
        dot = next;
    }
    return qualifiers;
}

/// Whether a load reads memory that other work-groups wrote past any cache that may hold
/// what an earlier launch left there: ld.volatile, or ld.relaxed/ld.acquire at .gpu or .sys
/// scope. Loads from shared, local, param or const memory hold nothing of other work-groups.
bool load_sees_other_work_groups(std::string_view opcode) {
    const auto qualifiers = qualifiers_of(opcode);
    const auto has = [&](std::string_view name) {
        return std::find(qualifiers.begin(), qualifiers.end(), name) != qualifiers.end();
    };
    if (has("shared") || has("local") || has("param") || has("const"))
        return true;
    return has("volatile") || ((has("relaxed") || has("acquire")) && (has("gpu") || has("sys")));
}

/// Whether every load in `code` (ld., and ldu., which reads through the read-only cache) sees
/// the other work-groups' stores: the last work-group's loads of the partials.
bool loads_see_other_work_groups(std::string_view code) {
    for (auto at = code.find("ld"); at != std::string_view::npos; at = code.find("ld", at + 2)) {
        const bool starts_instruction =
            at == 0 || std::isspace(static_cast<unsigned char>(code[at - 1]));
        const auto end = code.find_first_of(" \t\n;", at);
        const auto opcode = code.substr(at, end == std::string_view::npos ? end : end - at);
        if (!starts_instruction || !(opcode.rfind("ld.", 0) == 0 || opcode.rfind("ldu.", 0) == 0))
            continue;
        if (opcode.rfind("ldu.", 0) == 0 || !load_sees_other_work_groups(opcode))
            return false;
    }
    return true;
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

bool ordering_proven(std::string_view binary, std::string_view kernel) {
    const auto entry = ptx_entry(binary, kernel);
    const auto atomic = entry.find("atom.");
    return atomic != std::string_view::npos && fences_global_memory(entry.substr(0, atomic)) &&
           fences_global_memory(entry.substr(atomic)) &&
           loads_see_other_work_groups(entry.substr(atomic));
}

Finish choose_finish(Factor factor, std::optional<Finish> requested) {
    if (requested == Finish::passes)
        return Finish::passes;
    if (factor == Factor::textbook) {
        if (requested)
            throw Error(Errc::unsupported,
                        "the last-group finish needs the device factor: the textbook factor "
                        "runs every pass");
        return Finish::passes;
    }
    return Finish::last_group;
}

Finish confirm_finish(const DeviceReport& report, Finish chosen, std::optional<Finish> requested,
                      const std::function<std::string()>& compiled_binary) {
    if (chosen == Finish::passes || finish_ordering(report) == FinishOrdering::memory_model ||
        ordering_proven(compiled_binary(), finishing_kernel))
        return chosen;
    if (!requested)
        return Finish::passes;
    throw Error(Errc::unsupported,
                "device '" + report.name +
                    "' cannot finish in the last work-group: " + missing_ordered_atomics(report) +
                    ", and its compiled kernel does not show device-wide fences around the "
                    "atomic and coherent loads of the partials after it (only NVIDIA's PTX can "
                    "be checked); the passes finish runs everywhere");
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
