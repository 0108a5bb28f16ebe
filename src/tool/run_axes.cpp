// --axis: a reduction along axes on one device (SegmentedReducer), checked per result against
// the host, printed as NumPy prints an array or written to a .npy file (docs/axes.md).

#include "clreduce/measure.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/segmented.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>

namespace clreduce {
namespace {

/// The layout of the array along the asked axes; an axis the array does not have is the
/// file's problem (exit 9) or the command line's (exit 2, --shape).
AxisLayout layout_of(const Shape& shape, const Options& options, bool from_file) {
    try {
        return axis_layout(shape, options.axes);
    } catch (const Error& error) {
        if (error.cause() == Errc::unsupported)
            throw Failure(ExitCode::unsupported, std::string("--axis: ") + error.what());
        throw Failure(from_file ? ExitCode::input_data : ExitCode::usage,
                      std::string("--axis: ") + error.what() +
                          (from_file ? " (the --input file's shape)" : ""));
    }
}

/// Whether `value` passes the check against `reference`, as a whole-array result of
/// `length` values would: exactly, or within the bound of a floating-point sum or product.
bool matches(const Options& options, const Reference& reference, const Scalar& value,
             std::uint64_t length, Origin origin) {
    if (same_value(value, reference.value))
        return true;
    const auto accumulator = accumulator_of(options);
    const auto check = check_for(accumulator, options.op, reference, origin);
    if (check == Check::unchecked)
        return true;
    if (check != Check::bound)
        return false;
    const auto as_double = [](const Scalar& x) {
        return std::visit([](auto v) { return static_cast<double>(v); }, x);
    };
    const double expected = as_double(reference.value);
    const double tolerance =
        info(options.op).rounding == Rounding::multiplicative
            ? 2.0 * static_cast<double>(length) * info(accumulator).unit_roundoff *
                  std::abs(expected)
            : sum_tolerance(accumulator, length, reference.magnitude, expected);
    return std::abs(as_double(value) - expected) <= tolerance;
}

/// The first result that misses its reference, or none.
std::optional<std::size_t> first_wrong(const Options& options, const SegmentedResult& result,
                                       const std::vector<Reference>& references,
                                       std::uint64_t length, Origin origin) {
    for (std::size_t i = 0; i < references.size(); ++i)
        if (!matches(options, references[i], result.values[i], length, origin))
            return i;
    return std::nullopt;
}

std::string shape_text(const Shape& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.extents.size(); ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(shape.extents[i]);
    return text + (shape.extents.size() == 1 ? ",)" : ")");
}

/// The values as NumPy prints a long array, flattened in memory order: all of them up to
/// 1000, else the first and last three around "...".
std::string values_text(const Options& options, const std::vector<Scalar>& values) {
    constexpr std::size_t shown = 3;
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values.size() > 1000 && i == shown) {
            text += " ...";
            i = values.size() - shown;
        }
        text += (i == 0 ? "" : " ") + result_text(options.op, values[i]);
    }
    return text + "]";
}

/// The result in a .npy file: the accumulator's dtype, bool for any and all, in the
/// input's order.
void write_npy(const std::string& path, const Options& options, const SegmentedResult& result) {
    const bool boolean = info(options.op).boolean;
    const auto& type = info(boolean ? DataType::boolean : accumulator_of(options));
    std::string dict = std::string("{'descr': '") + type.npy + "', 'fortran_order': " +
                       (result.shape.order == Order::fortran ? "True" : "False") +
                       ", 'shape': " + shape_text(result.shape) + ", }";
    // The header, padded with spaces and ended by a newline, fills a multiple of 64 bytes.
    constexpr std::size_t preamble = 10;
    dict.append(63 - (preamble + dict.size()) % 64, ' ');
    dict += '\n';
    std::ofstream file(path, std::ios::binary);
    const std::uint16_t header_length = static_cast<std::uint16_t>(dict.size());
    file.write("\x93NUMPY\x01\x00", 8);
    file.put(static_cast<char>(header_length & 0xff));
    file.put(static_cast<char>(header_length >> 8));
    file << dict;
    for (const auto& value : result.values)
        std::visit(
            [&](auto x) {
                if (boolean)
                    file.put(x != 0 ? 1 : 0);
                else
                    file.write(reinterpret_cast<const char*>(&x), sizeof x);
            },
            value);
    file.close();
    if (!file)
        throw Failure(ExitCode::host, "--output '" + path + "': cannot write it");
}

void print_text(std::ostream& out, const Options& options, const SegmentedReducer& reducer,
                const AxisLayout& layout, const SegmentedResult& result, bool checked) {
    if (options.verbosity == Verbosity::verbose)
        out << "plan:\n" << describe(reducer.plan(layout));
    if (options.verbosity != Verbosity::quiet) {
        for (std::size_t pass = 0; pass < result.pass_us.size(); ++pass)
            out << "pass " << pass + 1 << ": " << fixed(result.pass_us[pass]) << " us\n";
        out << "shape " << shape_text(result.shape) << "\n";
    }
    if (options.output.empty())
        out << values_text(options, result.values) << "\n";
    else
        out << "written to " << options.output << "\n";
    if (options.verbosity != Verbosity::quiet)
        out << (checked ? "every result matches the host reference\n" : "unchecked (--no-check)\n");
}

void print_json(std::ostream& out, const Options& options, const SegmentedResult& result,
                bool checked) {
    out << "{\"shape\": [";
    for (std::size_t i = 0; i < result.shape.extents.size(); ++i)
        out << (i == 0 ? "" : ", ") << result.shape.extents[i];
    out << "], \"output\": " << (options.output.empty() ? "null" : json_string(options.output))
        << ", \"passes_us\": [";
    for (std::size_t i = 0; i < result.pass_us.size(); ++i)
        out << (i == 0 ? "" : ", ") << fixed(result.pass_us[i]);
    out << "], \"check\": " << json_string(checked ? "passed" : "skipped") << "}\n";
}

} // namespace

ExitCode run_axes(const SelectedDevice& selected, const Options& options,
                  const std::optional<ValuesView>& file, const std::optional<Shape>& file_shape,
                  std::ostream& out) {
    const Shape shape =
        file_shape ? *file_shape
                   : Shape{options.shape.empty() ? std::vector<std::uint64_t>{options.length}
                                                 : options.shape,
                           Order::c};
    const auto layout = layout_of(shape, options, file_shape.has_value());
    refuse_past_host_memory(shape.values(), info(options.type).size);
    const auto drawn =
        file ? HostValues{} : random_values(options.type, options.op, shape.values(), options.seed);
    const ValuesView values = file ? *file : ValuesView(drawn);

    const DeviceQueue device_queue(selected.device);
    const auto report = query_report(selected.device);
    SegmentedReducer reducer(device_queue.context, selected.device,
                             recipe_for(options, report, Finish::passes));
    // OpenCL has no buffer of 0 bytes: an empty array takes one of a value.
    const auto bytes = std::max<std::uint64_t>(1, values.length) * info(values.type).size;
    const cl::Buffer input(device_queue.context, CL_MEM_READ_ONLY, bytes);
    if (values.length > 0)
        device_queue.queue.enqueueWriteBuffer(input, CL_TRUE, 0,
                                              values.length * info(values.type).size, values.data);
    SegmentedResult result;
    for (unsigned run = 0; run < std::max(1u, options.iterations); ++run)
        result = reducer.reduce_axes(device_queue.queue, input, 0, shape, options.axes);

    if (options.check) {
        const auto references = host_reduce_axes(options.op, values, layout, options.accumulate);
        if (const auto wrong =
                first_wrong(options, result, references, layout.length, values.origin))
            throw Failure(ExitCode::wrong_result,
                          "result " + std::to_string(*wrong) + " is " +
                              result_text(options.op, result.values[*wrong]) + ", the host's is " +
                              result_text(options.op, references[*wrong].value));
    }
    if (!options.output.empty())
        write_npy(options.output, options, result);
    if (options.format == Format::json)
        print_json(out, options, result, options.check);
    else
        print_text(out, options, reducer, layout, result, options.check);
    return ExitCode::success;
}

} // namespace clreduce
