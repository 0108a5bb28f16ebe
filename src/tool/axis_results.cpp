#include "tool/axis_results.hpp"

#include "clreduce/exact.hpp"
#include "detail/capabilities.hpp"
#include "detail/measure.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/recipe.hpp"

#include <cmath>
#include <cstring>
#include <fstream>

namespace clreduce {
namespace {

/// Whether `value` passes the check against `reference`, as a whole-array result of
/// `length` values would: exactly, or within the bound of a floating-point sum or product.
bool matches(const Options& options, const Reference& reference, const Scalar& value,
             std::uint64_t length, Origin origin) {
    if (options.exact) // the exact sum rounded once: the same bits, the sign of a zero too
        return same_bits(value, reference.value);
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
    // A product's roundings, and those of the same definitions in index order (a user's op or
    // map), are relative to the result; each reference rounds once per value, as the device does.
    const bool relative =
        info(options.op).rounding == Rounding::multiplicative || reference.in_order;
    const double tolerance =
        relative ? sum_tolerance(accumulator, 2 * length, std::abs(expected), expected)
                 : sum_tolerance(accumulator, length, reference.magnitude, expected);
    return std::abs(as_double(value) - expected) <= tolerance;
}

/// An array as NumPy prints a long one, flattened in memory order: all of its `count`
/// entries (text_of(i)) up to 1000, else the first and last three around "...".
template <typename TextOf>
std::string array_text(std::size_t count, TextOf text_of) {
    constexpr std::size_t shown = 3;
    std::string text = "[";
    for (std::size_t i = 0; i < count; ++i) {
        if (count > 1000 && i == shown) {
            text += " ...";
            i = count - shown;
        }
        text += (i == 0 ? "" : " ") + text_of(i);
    }
    return text + "]";
}

} // namespace

Shape array_shape(const Options& options, const std::optional<Shape>& file_shape) {
    if (file_shape)
        return *file_shape;
    return Shape{options.shape.empty() ? std::vector<std::uint64_t>{options.length} : options.shape,
                 Order::c};
}

namespace {

/// layout(), with its errors as the tool's: an axis the array does not have is the file's
/// problem (`from_file`) or the command line's; axes apart are unsupported.
template <typename Layout>
auto refusing_axes(bool from_file, Layout layout) {
    try {
        return layout();
    } catch (const Error& error) {
        if (error.cause() == Errc::unsupported)
            throw Failure(ExitCode::unsupported, std::string("--axis: ") + error.what());
        throw Failure(from_file ? ExitCode::input_data : ExitCode::usage,
                      std::string("--axis: ") + error.what() +
                          (from_file ? " (the --input file's shape)" : ""));
    }
}

} // namespace

AxisLayout layout_of(const Shape& shape, const Options& options, bool from_file) {
    return refusing_axes(from_file, [&] { return axis_layout(shape, options.axes); });
}

std::vector<AxisLayout> steps_of(const Shape& shape, const Options& options, bool from_file) {
    return refusing_axes(from_file, [&] { return axis_steps(shape, options.axes); });
}

std::vector<Reference> axis_references_of(const Options& options, const cl::Device& device,
                                          const ValuesView& values, const Shape& shape) {
    if (options.exact) // the exact sum rounded once, which the device must give bit for bit
        return axis_references(values, shape, options.axes, [](const ValuesView& segment) {
            return Reference{exact_host_sum(segment), "exact"};
        });
    const auto map = host_map(options.user.map);
    if (map && options.op != Op::custom)
        return host_reduce_axes(options.op, values, shape, options.axes, options.accumulate, *map);
    DeviceQueue queues(device);
    Reducer reducer(queues.context, device,
                    recipe_for(options, query_report(device), Finish::passes));
    return in_order_axis_references(reducer, queues.queue, values, shape, options.axes);
}

void refuse_wrong(const Options& options, const SegmentedResult& result,
                  const std::vector<Reference>& references, std::uint64_t length, Origin origin) {
    for (std::size_t i = 0; i < references.size(); ++i) {
        const auto& reference = references[i];
        if (matches(options, reference, result.values[i], length, origin) &&
            (!reference.index || *reference.index == result.indices[i]))
            continue;
        const auto device_index =
            reference.index ? " at index " + std::to_string(result.indices[i]) : "";
        const auto host_index =
            reference.index ? " at index " + std::to_string(*reference.index) : "";
        throw Failure(ExitCode::wrong_result, "result " + std::to_string(i) + " is " +
                                                  result_text(options.op, result.values[i]) +
                                                  device_index + ", the host's is " +
                                                  result_text(options.op, reference.value) +
                                                  host_index);
    }
}

SegmentedResult rounded_rows(DataType type, const Shape& result_shape,
                             const std::vector<std::vector<unsigned char>>& parts) {
    SegmentedResult result;
    result.shape = result_shape;
    std::vector<cl_long> row(ExactAccumulator::row_width(type));
    const auto row_bytes = row.size() * sizeof(cl_long);
    for (std::uint64_t k = 0; k < result_shape.values(); ++k) {
        ExactAccumulator sum(type);
        for (const auto& rows : parts) {
            std::memcpy(row.data(), rows.data() + k * row_bytes, row_bytes);
            sum.add_row(row.data());
        }
        result.values.push_back(sum.rounded());
    }
    return result;
}

std::vector<unsigned char> combined_on_device(SegmentedReducer& reducer,
                                              const std::vector<unsigned char>& partials,
                                              std::uint64_t parts, std::uint64_t results) {
    if (results == 0)
        return {};
    const cl::CommandQueue queue(reducer.context(), reducer.device());
    const cl::Buffer gathered(reducer.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              partials.size(), const_cast<unsigned char*>(partials.data()));
    std::vector<unsigned char> combined(results * reducer.accumulator_size());
    const cl::Buffer whole(reducer.context(), CL_MEM_WRITE_ONLY, combined.size());
    reducer.enqueue_combine_axes(queue, gathered, 0, Shape{{parts, results}, Order::c}, {0}, whole,
                                 0);
    queue.enqueueReadBuffer(whole, CL_TRUE, 0, combined.size(), combined.data());
    return combined;
}

void print_results(std::ostream& out, const Options& options, const SegmentedResult& result) {
    // argmin and argmax print their indices, as np.argmax(axis=) returns them; -v their values.
    const bool indexed = info(options.op).indexed;
    const auto value_of = [&](std::size_t i) { return result_text(options.op, result.values[i]); };
    if (indexed && options.verbosity == Verbosity::verbose)
        out << "values " << array_text(result.values.size(), value_of) << "\n";
    if (!options.output.empty())
        out << "written to " << options.output << "\n";
    else if (indexed)
        out << array_text(result.indices.size(), [&](std::size_t i) {
            return std::to_string(result.indices[i]);
        }) << "\n";
    else
        out << array_text(result.values.size(), value_of) << "\n";
}

void write_npy(const std::string& path, const Options& options, const SegmentedResult& result) {
    const bool boolean = info(options.op).boolean;
    const bool indexed = info(options.op).indexed;
    const auto& type = info(boolean   ? DataType::boolean
                            : indexed ? DataType::int64
                                      : accumulator_of(options));
    std::string dict = std::string("{'descr': '") + type.npy + "', 'fortran_order': " +
                       (result.shape.order == Order::fortran ? "True" : "False") +
                       ", 'shape': " + shape_text(result.shape.extents) + ", }";
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
    if (indexed)
        file.write(reinterpret_cast<const char*>(result.indices.data()),
                   static_cast<std::streamsize>(result.indices.size() * sizeof(std::int64_t)));
    else
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

} // namespace clreduce
