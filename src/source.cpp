#include "clreduce/source.hpp"

#include "clreduce/errors.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

namespace clreduce {
namespace {

namespace fs = std::filesystem;

fs::path executable_folder() {
    std::error_code error;
    const auto executable = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::current_path() : executable.parent_path();
}

std::string read_whole(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file || !text)
        throw Failure(ExitCode::kernel_source, "cannot read kernel file " + path.string());
    return text.str();
}

/// Defines <scope>_reduce_op() on top of the built-in <scope>_reduce_<op>(). The sum uses
/// the built-in's uint overload, which wraps around where the int one would overflow.
std::string collective_relay(const std::string& scope, Op op) {
    const auto builtin = scope + "_reduce_";
    const auto body = op == Op::sum ? "as_int(" + builtin + "add(as_uint(x)))" : builtin + "min(x)";
    return "int " + scope + "_reduce_op(int x) { return " + body + "; }\n";
}

} // namespace

std::vector<fs::path> kernel_folders(const std::string& override_dir) {
    if (!override_dir.empty())
        return {override_dir};
    const auto here = executable_folder();
    return {here / "kernels", here / ".." / CLREDUCE_INSTALL_KERNEL_DIR};
}

std::string read_kernel_file(const std::string& file_name, const std::vector<fs::path>& folders) {
    std::string tried;
    for (const auto& folder : folders) {
        const auto path = folder / file_name;
        std::error_code error;
        if (fs::exists(path, error)) {
            if (!fs::is_regular_file(path, error))
                throw Failure(ExitCode::kernel_source,
                              "cannot read kernel file " + path.string() + ": not a regular file");
            return read_whole(path);
        }
        tried += (tried.empty() ? "" : ", ") + path.lexically_normal().string();
    }
    throw Failure(ExitCode::kernel_source,
                  "kernel file " + file_name + " not found; tried " + tried);
}

std::string op_definitions(Op op, Path path) {
    std::string text = "\n// Appended by clreduce for --op " + name_of(op) + " on the " +
                       name_of(path) + " path.\n";
    if (op == Op::sum)
        text += "int identity(void) { return 0; }\n"
                "int op(int a, int b) { return as_int(as_uint(a) + as_uint(b)); }\n"
                "int4 op4(int4 a, int4 b) { return as_int4(as_uint4(a) + as_uint4(b)); }\n";
    else
        text += "int identity(void) { return INT_MAX; }\n"
                "int op(int a, int b) { return min(a, b); }\n"
                "int4 op4(int4 a, int4 b) { return min(a, b); }\n";
    if (path == Path::work_group)
        text += collective_relay("work_group", op);
    if (path == Path::sub_group)
        text += collective_relay("sub_group", op);
    return text;
}

std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path) {
    return kernel_text + op_definitions(op, path);
}

} // namespace clreduce
