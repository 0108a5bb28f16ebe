// --axis: a reduction along axes (SegmentedReducer), on one device or with the array's blocks
// split among several, checked per result against the host, printed as NumPy prints an array
// or written to a .npy file (docs/axes.md).

#include "clreduce/measure.hpp"
#include "clreduce/profiling.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/segmented.hpp"
#include "tool/file_input.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <ostream>

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

/// One device's share: whole blocks of the layout, contiguous in memory, so that its results
/// are a contiguous part of the whole result.
struct Share {
    const SelectedDevice* device = nullptr;
    std::uint64_t first_block = 0;
    std::uint64_t blocks = 0;
    std::vector<double> pass_us;
    std::string plan; // describe() of its launches, for -v
};

/// The blocks split among at most `devices` devices as evenly as can be: a layout of one
/// block (a reduced leading axis) runs on one device.
std::vector<Share> shares_of(const AxisLayout& layout, const std::vector<SelectedDevice>& devices) {
    const auto count =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(devices.size(), layout.blocks));
    std::vector<Share> shares;
    for (std::uint64_t k = 0; k < count; ++k) {
        const auto begin = layout.blocks * k / count;
        const auto end = layout.blocks * (k + 1) / count;
        shares.push_back({&devices[k], begin, end - begin, {}, {}});
    }
    return shares;
}

/// Reduces each share on its device (all enqueued before any is read) and gathers the
/// results in order; each share's launches are timed.
SegmentedResult reduce_shares(std::vector<Share>& shares, const Options& options,
                              const AxisLayout& layout, const ValuesView& values) {
    struct Running {
        DeviceQueue queue;
        std::unique_ptr<SegmentedReducer> reducer;
        cl::Buffer input, results;
        std::vector<cl::Event> events;
    };
    std::vector<std::unique_ptr<Running>> running;
    const auto size = info(values.type).size;
    const auto per_block = layout.length * layout.inner;
    for (auto& share : shares) {
        auto& run =
            *running.emplace_back(new Running{DeviceQueue(share.device->device), {}, {}, {}, {}});
        run.reducer = std::make_unique<SegmentedReducer>(
            run.queue.context, share.device->device,
            recipe_for(options, query_report(share.device->device), Finish::passes));
        // OpenCL has no buffer of 0 bytes: an empty share takes one of a value.
        const auto count = share.blocks * per_block;
        run.input = cl::Buffer(run.queue.context, CL_MEM_READ_ONLY,
                               std::max<std::uint64_t>(1, count) * size);
        if (count > 0)
            run.queue.queue.enqueueWriteBuffer(run.input, CL_TRUE, 0, count * size,
                                               static_cast<const unsigned char*>(values.data) +
                                                   share.first_block * per_block * size);
        run.results = cl::Buffer(run.queue.context, CL_MEM_READ_WRITE,
                                 std::max<std::uint64_t>(1, share.blocks * layout.inner) *
                                     run.reducer->accumulator_size());
        const Shape part{{share.blocks, layout.length, layout.inner}, Order::c};
        share.plan = describe(run.reducer->plan(axis_layout(part, {1})));
        for (unsigned repeat = 0; repeat < std::max(1u, options.iterations); ++repeat)
            run.reducer->enqueue_reduce_axes(run.queue.queue, run.input, 0, part, {1}, run.results,
                                             0, {}, &run.events);
    }
    SegmentedResult whole;
    whole.shape = layout.result;
    for (std::size_t k = 0; k < shares.size(); ++k) {
        auto& run = *running[k];
        const auto count = shares[k].blocks * layout.inner;
        std::vector<unsigned char> bytes(count * run.reducer->accumulator_size());
        if (count > 0)
            run.queue.queue.enqueueReadBuffer(run.results, CL_TRUE, 0, bytes.size(), bytes.data());
        run.queue.queue.finish();
        for (std::uint64_t i = 0; i < count; ++i)
            whole.values.push_back(scalar_from_bytes(run.reducer->accumulator(),
                                                     &bytes[i * run.reducer->accumulator_size()]));
        for (const auto& event : run.events)
            shares[k].pass_us.push_back(command_us(event));
    }
    return whole;
}

std::string device_name(const Share& share) {
    return share.device->device.getInfo<CL_DEVICE_NAME>() + " (-p " +
           std::to_string(share.device->platform_index) + " -d " +
           std::to_string(share.device->device_index) + ")";
}

void print_text(std::ostream& out, const Options& options, const std::vector<Share>& shares,
                const SegmentedResult& result, bool checked) {
    if (options.verbosity != Verbosity::quiet)
        for (const auto& share : shares) {
            out << "device " << device_name(share) << ", blocks " << share.first_block << " to "
                << share.first_block + share.blocks << "\n";
            if (options.verbosity == Verbosity::verbose)
                out << "plan:\n" << share.plan;
            for (std::size_t pass = 0; pass < share.pass_us.size(); ++pass)
                out << "pass " << pass + 1 << ": " << fixed(share.pass_us[pass]) << " us\n";
        }
    if (options.verbosity != Verbosity::quiet)
        out << "shape " << shape_text(result.shape.extents) << "\n";
    if (options.output.empty())
        out << values_text(options, result.values) << "\n";
    else
        out << "written to " << options.output << "\n";
    if (options.verbosity != Verbosity::quiet)
        out << (checked ? "every result matches the host reference\n" : "unchecked (--no-check)\n");
}

/// A JSON array of `values`, each written by `write`.
template <typename T, typename Write>
std::string json_array(const std::vector<T>& values, Write write) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i == 0 ? "" : ", ") + write(values[i]);
    return text + "]";
}

void print_json(std::ostream& out, const Options& options, const std::vector<Share>& shares,
                const SegmentedResult& result, bool checked) {
    const auto number = [](std::uint64_t x) { return std::to_string(x); };
    const auto microseconds = [](double x) { return fixed(x); };
    out << "{\"shape\": " << json_array(result.shape.extents, number)
        << ", \"output\": " << (options.output.empty() ? "null" : json_string(options.output))
        << ", \"check\": " << json_string(checked ? "passed" : "skipped") << ", \"shares\": "
        << json_array(shares,
                      [&](const Share& share) {
                          return "{\"device\": " + json_string(device_name(share)) +
                                 ", \"blocks\": [" + number(share.first_block) + ", " +
                                 number(share.first_block + share.blocks) +
                                 "], \"passes_us\": " + json_array(share.pass_us, microseconds) +
                                 "}";
                      })
        << "}\n";
}

} // namespace

ExitCode run_axes(const std::vector<SelectedDevice>& devices, const Options& options,
                  const std::optional<ValuesView>& file, const std::optional<Shape>& file_shape,
                  std::ostream& out) {
    const Shape shape =
        file_shape ? *file_shape
                   : Shape{options.shape.empty() ? std::vector<std::uint64_t>{options.length}
                                                 : options.shape,
                           Order::c};
    const auto layout = layout_of(shape, options, file_shape.has_value());
    // A map the host cannot evaluate is refused before any device runs.
    const auto map = options.user.map.empty() || !options.check
                         ? HostMap::none
                         : host_map_of(options, "along axes");
    refuse_past_host_memory(shape.values(), info(options.type).size);
    const auto drawn =
        file ? HostValues{} : random_values(options.type, options.op, shape.values(), options.seed);
    const ValuesView values = file ? *file : ValuesView(drawn);

    auto shares = shares_of(layout, devices);
    const auto result = reduce_shares(shares, options, layout, values);
    if (options.check) {
        const auto references =
            host_reduce_axes(options.op, values, layout, options.accumulate, map);
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
        print_json(out, options, shares, result, options.check);
    else
        print_text(out, options, shares, result, options.check);
    return ExitCode::success;
}

} // namespace clreduce
