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

/// `text` with every $T replaced by `type` and every $U by `twin`.
std::string with_types(std::string text, const std::string& type, const std::string& twin) {
    for (const auto& [placeholder, name] : {std::pair{"$T", &type}, std::pair{"$U", &twin}})
        for (auto at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder, at + name->size()))
            text.replace(at, 2, *name);
    return text;
}

/// The OpenCL C expression of op(a, b) on `accumulator` or, with `vector` "4", its 4-vector.
/// Integer sums and products go through the unsigned twin, whose + and * wrap where the
/// signed ones overflow.
std::string combination(const OpInfo& op, const TypeInfo& accumulator, const std::string& vector) {
    if (accumulator.floating() && op.floating)
        return op.floating;
    return with_types(op.integer, accumulator.cl_value + vector,
                      accumulator.wrapping ? accumulator.wrapping + vector : std::string());
}

/// Defines <scope>_reduce_op() on top of the built-in <scope>_reduce_<op>(). An integer sum
/// uses the built-in's unsigned overload, which wraps around where the signed one would
/// overflow.
std::string collective_relay(const std::string& scope, const TypeInfo& type, const OpInfo& op) {
    const auto builtin = scope + "_reduce_" + op.builtin;
    const bool wrap = op.op == Op::sum && !type.floating();
    const std::string cl = type.cl_value;
    const auto body =
        wrap ? "as_" + cl + "(" + builtin + "(as_" + type.wrapping + "(x)))" : builtin + "(x)";
    return "accum_t " + scope + "_reduce_op(accum_t x) { return " + body + "; }\n";
}

/// load() and loadn(): the row's, else an element and a vector of the buffer.
std::string loads(const TypeInfo& input) {
    const std::string load = input.load ? input.load : "in[i]";
    const std::string loadn = input.loadn ? input.loadn : "((global const valuen_t*)in)[v]";
    return "value_t load(global const input_t* in, ulong i) { return " + load + "; }\n" +
           "valuen_t loadn(global const input_t* in, ulong v) { return " + loadn + "; }\n";
}

/// Lane by lane: what a user's expression, written for scalars, computes on a 4-vector.
constexpr const char* lane_wise_map =
    "(accum4_t)(map(x.x, i), map(x.y, i + 1), map(x.z, i + 2), map(x.w, i + 3))";
constexpr const char* lane_wise_op =
    "(accum4_t)(op(a.x, b.x), op(a.y, b.y), op(a.z, b.z), op(a.w, b.w))";

/// map() and map4(): the user's, the op's, else the value itself or, for another accumulator,
/// converted.
std::string maps(const OpInfo& op, const TypeInfo& value, const TypeInfo& accumulator,
                 const std::string& user_map) {
    if (!user_map.empty())
        return "accum_t map(value_t x, ulong i) { return (accum_t)(" + user_map + "); }\n" +
               "accum4_t map4(value4_t x, ulong i) { return " + lane_wise_map + "; }\n";
    const bool same = std::string(value.cl_value) == accumulator.cl_value;
    const std::string map = op.map ? op.map : same ? "x" : "(accum_t)x";
    const std::string map4 = op.map4 ? op.map4
                             : same  ? "x"
                                     : "convert_" + std::string(accumulator.cl_value) + "4(x)";
    return "accum_t map(value_t x, ulong i) { return " + map + "; }\n" +
           "accum4_t map4(value4_t x, ulong i) { return " + map4 + "; }\n";
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

bool has_builtin(Op op, DataType accumulator) {
    const auto& row = info(op);
    return row.builtin && (row.builtin_for_floating || !info(accumulator).floating());
}

std::string type_options(DataType input, DataType accumulator) {
    const auto& in = info(input);
    const std::string value = in.cl_value;
    const std::string accum = info(accumulator).cl_value;
    const auto per_load = std::to_string(in.values_per_load());
    return "-D REDUCE_INPUT=" + std::string(in.cl_storage) + " -D REDUCE_VALUE=" + value +
           " -D REDUCE_VALUE4=" + value + "4 -D REDUCE_VALUEN=" + value + per_load +
           " -D REDUCE_VALUES_PER_LOAD=" + per_load + " -D REDUCE_ACCUM=" + accum +
           " -D REDUCE_ACCUM4=" + accum + "4";
}

std::string op_definitions(Op op, Path path, DataType input, DataType accumulator,
                           const Expressions& user) {
    const auto& row = info(op);
    const auto& accum = info(accumulator);
    const bool custom = op == Op::custom;
    std::string text = "\n// Appended by clreduce for --op " + std::string(row.name) + " of " +
                       info(input).name + " accumulated in " + accum.name + " on the " +
                       name_of(path) + " path" + (user.map.empty() ? "" : ", mapped") + ".\n";
    text += loads(info(input));
    text += maps(row, info(input), accum, user.map);
    text += "accum_t identity(void) { return " +
            (custom ? "(accum_t)(" + user.identity + ")" : identity_text(op, accumulator)) +
            "; }\n";
    text += "accum_t op(accum_t a, accum_t b) { return " +
            (custom ? user.reduce : combination(row, accum, "")) + "; }\n";
    text += "accum4_t op4(accum4_t a, accum4_t b) { return " +
            (custom ? lane_wise_op : combination(row, accum, "4")) + "; }\n";
    if (path == Path::work_group)
        text += collective_relay("work_group", accum, row);
    if (path == Path::sub_group)
        text += collective_relay("sub_group", accum, row);
    return text;
}

std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path, DataType input,
                                   DataType accumulator, const Expressions& user) {
    return kernel_text + op_definitions(op, path, input, accumulator, user);
}

} // namespace clreduce
