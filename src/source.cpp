#include "clreduce/source.hpp"

#include "clreduce/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

namespace clreduce {
namespace {

namespace fs = std::filesystem;

/// The file's bytes; a file that cannot be opened or read is refused with the system's
/// reason, an empty one as empty (it would build to a program without kernels).
std::string read_whole(const fs::path& path) {
    const auto refuse = [&](const std::string& reason) {
        throw Error(Errc::kernel_source,
                    "cannot read kernel file " + path.string() + ": " + reason);
    };
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               std::fclose);
    if (!file)
        refuse(std::strerror(errno));
    std::string text;
    char block[65536];
    std::size_t count;
    while ((count = std::fread(block, 1, sizeof block, file.get())) > 0)
        text.append(block, count);
    if (std::ferror(file.get()))
        refuse(std::strerror(errno));
    if (text.empty())
        throw Error(Errc::kernel_source, "kernel file " + path.string() + " is empty");
    return text;
}

/// The OpenCL C expression of op(a, b) for `type` or, with `vector` "4", its 4-vector. An
/// integer sum goes through the unsigned twin, whose + wraps where the signed one overflows.
std::string combination(const TypeInfo& type, Op op, const std::string& vector) {
    const std::string cl = type.cl_name + vector;
    if (op == Op::sum)
        return type.floating() ? "a + b"
                               : "as_" + cl + "(as_" + type.wrapping + vector + "(a) + as_" +
                                     type.wrapping + vector + "(b))";
    const std::string function = std::string(type.floating() ? "f" : "") + name_of(op);
    return function + "(a, b)";
}

/// Defines <scope>_reduce_op() on top of the built-in <scope>_reduce_<op>(). An integer sum
/// uses the built-in's unsigned overload, which wraps around where the signed one would
/// overflow.
std::string collective_relay(const std::string& scope, const TypeInfo& type, Op op) {
    const auto builtin = scope + "_reduce_" + (op == Op::sum ? "add" : name_of(op));
    const bool wrap = op == Op::sum && !type.floating();
    const std::string cl = type.cl_name;
    const auto body =
        wrap ? "as_" + cl + "(" + builtin + "(as_" + type.wrapping + "(x)))" : builtin + "(x)";
    return cl + " " + scope + "_reduce_op(" + cl + " x) { return " + body + "; }\n";
}

} // namespace

std::string reduce_kernel_source(const std::string& kernel_dir) {
    if (kernel_dir.empty())
        return std::string(embedded_kernel_source());
    return read_kernel_file("reduce.cl", {kernel_dir});
}

std::string read_kernel_file(const std::string& file_name, const std::vector<fs::path>& folders) {
    std::string tried;
    for (const auto& folder : folders) {
        const auto path = folder / file_name;
        std::error_code error;
        if (fs::exists(path, error)) {
            if (!fs::is_regular_file(path, error))
                throw Error(Errc::kernel_source,
                            "cannot read kernel file " + path.string() + ": not a regular file");
            return read_whole(path);
        }
        tried += (tried.empty() ? "" : ", ") + path.lexically_normal().string();
    }
    throw Error(Errc::kernel_source, "kernel file " + file_name + " not found; tried " + tried);
}

std::string op_definitions(Op op, Path path, DataType data_type) {
    const auto& type = info(data_type);
    const std::string cl = type.cl_name;
    const std::string identity = op == Op::sum ? "0" : op == Op::min ? type.highest : type.lowest;
    std::string text = "\n// Appended by clreduce for --op " + name_of(op) + " of " + type.name +
                       " on the " + name_of(path) + " path.\n";
    text += cl + " identity(void) { return " + identity + "; }\n";
    text += cl + " op(" + cl + " a, " + cl + " b) { return " + combination(type, op, "") + "; }\n";
    text +=
        cl + "4 op4(" + cl + "4 a, " + cl + "4 b) { return " + combination(type, op, "4") + "; }\n";
    if (path == Path::work_group)
        text += collective_relay("work_group", type, op);
    if (path == Path::sub_group)
        text += collective_relay("sub_group", type, op);
    return text;
}

std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path,
                                   DataType type) {
    return kernel_text + op_definitions(op, path, type);
}

} // namespace clreduce
