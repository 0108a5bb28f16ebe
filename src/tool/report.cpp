#include "tool/report.hpp"

#include "detail/finish.hpp"
#include "detail/reference.hpp"
#include "tool/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace clreduce {

std::string fixed(double value, int decimals) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(decimals) << value;
    return text.str();
}

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            quoted += escape;
        } else {
            quoted += c;
        }
    }
    return quoted + '"';
}

namespace {

/// How the first run's result compares with the host reference, and by which check.
std::string verdict(const Measurement& measurement) {
    if (measurement.check == Check::skipped)
        return " (not checked: --no-check)";
    const auto expected = to_string(measurement.expected.value);
    const auto bound = to_string(measurement.tolerance);
    if (measurement.check == Check::unchecked)
        return " (not checked: the host reference is " + expected +
               ", but the values' magnitudes add up past half of " + name_of(measurement.type) +
               "'s range, where an order of additions may overflow)";
    if (!measurement.valid())
        return " (WRONG: the host reference is " + expected +
               (measurement.check == Check::bound ? ", bound " + bound : ", checked exactly") + ")";
    if (measurement.check == Check::exact)
        return " (matches the host reference exactly)";
    // Not a match: a bound this wide also holds for a sum that lost values (docs/exact-sums.md).
    const auto reference =
        measurement.expected.in_order ? "the same op applied in index order, " : "the exact sum ";
    return " (within the worst-case bound " + bound + " of " + reference + expected + ": error " +
           to_string(measurement.largest_error()) +
           "; the bound does not show that every value was added, --exact does)";
}

/// An input in several buffers lists the first few launches of its first pass and the last.
constexpr std::size_t most_pieces_listed = 8;
constexpr std::size_t first_pieces_listed = 3;

/// Pass i's label: 1, 2, ...; an input in several buffers: 1.1, 1.2, ... for the first pass's
/// launch per buffer, then 2, 3, ...
std::string pass_label(std::size_t i, std::size_t pieces) {
    if (i < pieces)
        return "1." + std::to_string(i + 1);
    return std::to_string(pieces == 0 ? i + 1 : i - pieces + 2);
}

std::string percent(double part, double whole) {
    return fixed(100.0 * part / whole, 1) + "%";
}

std::string timing_note(const Options& options) {
    const auto runs =
        std::to_string(options.iterations) + " timed run" + (options.iterations == 1 ? "" : "s");
    return options.cold ? runs + ", cold: the first launch counts (--cold)"
                        : runs + " after one uncounted warm-up (--cold counts the first launch)";
}

} // namespace

std::string timing_text(const Statistic& us, std::uint64_t bytes, bool repeated) {
    return (repeated ? "min " + fixed(us.min) + " us, median " + fixed(us.median) + " us"
                     : fixed(us.min) + " us") +
           " (" + fixed(gigabytes_per_second(bytes, us.min)) + " GB/s)";
}

void print_result(std::ostream& out, const Measurement& measurement) {
    const auto& index = measurement.runs.front().index;
    out << "result          " << measurement.result_text()
        << (index ? " at index " + std::to_string(*index) : "") << verdict(measurement) << '\n';
}

void print_title(std::ostream& out, const Options& options) {
    out << "clreduce " << CLREDUCE_VERSION << ": " << name_of(options.op) << " of "
        << options.length << " " << name_of(options.type) << " values "
        << (options.input ? "from " + *options.input
                          : "(seed " + std::to_string(options.seed) + ")")
        << "\n";
}

void print_setup(std::ostream& out, const SelectedDevice& selected, const Reducer& reducer,
                 const Options& options) {
    const auto& report = reducer.report();
    const auto& policy = reducer.policy();
    out << "device   " << report.name << " (-p " << selected.platform_index << " -d "
        << selected.device_index << "), " << report.platform_name << ", " << report.version_text
        << '\n'
        << "path     " << name_of(policy.path) << ", work-group size "
        << policy.shape.work_group_size << ", " << name_of(policy.recipe.factor)
        << " factor, finish " << name_of(policy.finish) << '\n'
        << "timing   " << timing_note(options) << '\n';
    if (options.verbosity != Verbosity::verbose)
        return;
    out << "OpenCL C";
    for (const auto version : report.opencl_c)
        out << ' ' << to_string(version);
    out << "; compute units " << report.compute_units << "; work-group collectives "
        << (report.work_group_collectives ? "reported" : "not reported") << '\n';
    out << "features  ";
    for (const auto& feature : report.features)
        out << ' ' << feature;
    out << "\nextensions";
    for (const auto& extension : report.extensions)
        out << ' ' << extension;
    out << "\ntypes: " << describe_type_support(report) << "\nfinish: --finish auto takes "
        << describe_finish_support(report)
        << "\nbuild options: " << (policy.build_options.empty() ? "(none)" : policy.build_options)
        << '\n'
        << "host reference: " << reference_method(policy.recipe) << '\n';
}

void print_memory(std::ostream& out, const Reducer& reducer, std::uint64_t length,
                  std::uint64_t per_buffer) {
    const auto size = reducer.value_size();
    out << "memory: host " << bytes_text(length, size) << " (the values), device "
        << bytes_text(reducer.device_values(length, per_buffer), size)
        << " (the values, partials and temporaries)\n";
}

void print_plan(std::ostream& out, const std::vector<Pass>& passes) {
    out << "plan: " << passes.size() << (passes.size() == 1 ? " pass" : " passes");
    for (const auto& pass : passes)
        out << "; " << pass.in << " -> " << pass.out() << " (" << pass.work_groups << " x "
            << pass.work_group_size << (pass.finishes ? ", the last work-group finishes" : "")
            << ")";
    out << '\n';
}

void print_measurement(std::ostream& out, const Measurement& measurement) {
    const bool repeated = measurement.runs.size() > 1;
    const auto& passes = measurement.runs.front().passes;
    const auto pieces = measurement.runs.front().pieces;
    const int width = std::max<int>(4, static_cast<int>(pass_label(pieces - 1, pieces).size()));
    out << std::string(width - 4, ' ')
        << "pass           in ->          out   work-groups x size   "
        << (repeated ? "  min us  median us" : "device us") << "      GB/s\n";
    for (std::size_t i = 0; i < passes.size(); ++i) {
        if (pieces > most_pieces_listed && i >= first_pieces_listed && i + 1 < pieces) {
            if (i == first_pieces_listed)
                out << std::setw(width) << "..."
                    << "  " << pieces - first_pieces_listed - 1 << " launches more, "
                    << pass_label(i, pieces) << " to " << pass_label(pieces - 2, pieces) << '\n';
            continue;
        }
        const auto& pass = passes[i].pass;
        const auto us = measurement.pass_us(i);
        out << std::setw(width) << pass_label(i, pieces) << std::setw(13) << pass.in << " -> "
            << std::setw(12) << pass.out() << std::setw(14) << pass.work_groups << " x "
            << std::setw(4) << pass.work_group_size << std::setw(12) << fixed(us.min);
        if (repeated)
            out << std::setw(11) << fixed(us.median);
        out << std::setw(10)
            << fixed(gigabytes_per_second(pass.in * info(measurement.type).size, us.min))
            << (pass.finishes ? "  (the last work-group finishes)" : "") << '\n';
    }
    const auto span = measurement.span_us();
    const auto bytes = measurement.bytes();
    // The span and the host's wait come from different runs (docs/command-line.md,
    // "Output"), so either may be the
    // shorter: each line says which runs it measured.
    out << "device span     " << timing_text(span, bytes, repeated)
        << ", profiled runs: the first pass's start to the last one's end\n";
    out << "host observed   " << timing_text(measurement.observed_us(), bytes, repeated)
        << ", separate runs without profiling: enqueue to result\n";
    if (measurement.stream_read_us)
        out << "stream read     " << timing_text(*measurement.stream_read_us, bytes, repeated)
            << "; the reduction runs at " << percent(measurement.stream_read_us->min, span.min)
            << " of its speed\n";
    if (measurement.check == Check::skipped)
        out << "host reference  skipped (--no-check)\n";
    else
        out << "host reference  " << timing_text(measurement.host_reference_us, bytes, repeated)
            << ", " << measurement.expected.method << '\n';
    print_result(out, measurement);
}

namespace {

/// How --host-input reached the device, and for copied chunks the uploads' figures.
void print_host_input(std::ostream& out, const Measurement& measurement,
                      const HostInputFigures& host_input) {
    out << "host input      "
        << (host_input.in_place    ? "read in place"
            : host_input.from_file ? "copied from the mapped file"
                                   : "pinned")
        << ", chunks of " << host_input.chunk << " values"
        << (host_input.in_place ? " (a CPU device: CL_MEM_USE_HOST_PTR, no copy)"
                                : ", three device buffers in turn")
        << '\n';
    print_measurement(out, measurement);
    if (host_input.in_place)
        return;
    const auto timing = [&](const Statistic& us) {
        return timing_text(us, measurement.bytes(), measurement.runs.size() > 1);
    };
    out << "upload          " << timing(*host_input.upload_us) << ", the uploads' own time\n"
        << "end to end      " << timing(*host_input.end_to_end_us)
        << ", first upload's start to the result\n"
        << "copy ceiling    " << timing(*host_input.copy_us)
        << ", the same uploads alone, back to back\n";
}

} // namespace

void print_outcome(std::ostream& out, const Measurement& measurement,
                   const SelectedDevice& selected, const Reducer& reducer, const Options& options,
                   const HostInputFigures* host_input) {
    if (options.format == Format::json)
        print_json(out, measurement, selected, reducer, options, host_input);
    else if (options.verbosity == Verbosity::quiet)
        out << measurement.answer_text() << '\n';
    else if (host_input)
        print_host_input(out, measurement, *host_input);
    else
        print_measurement(out, measurement);
}

void print_split(std::ostream& out, const std::vector<DeviceShare>& shares,
                 const SplitFigures& figures, const Options& options) {
    if (options.format == Format::json) {
        print_split_json(out, shares, figures, options);
        return;
    }
    if (options.verbosity == Verbosity::quiet) {
        out << figures.whole.answer_text() << '\n';
        return;
    }
    print_title(out, options);
    out << "split    " << shares.size();
    if (shares.size() < figures.named)
        out << " of the " << figures.named << " devices named, as many as there are values";
    else
        out << " devices";
    out << ", shares in proportion to their speed in the warm-up"
        << (options.host_input ? ", each streaming its share from host memory" : "") << '\n';
    for (std::size_t i = 0; i < shares.size(); ++i) {
        const auto& share = shares[i];
        out << "\n== share " << i + 1 << ": " << share.length << " values ("
            << fixed(100.0 * static_cast<double>(share.length) /
                         static_cast<double>(options.length),
                     1)
            << "%), warm-up speed " << fixed(figures.speeds[i] / 1e3) << " G values/s\n";
        print_setup(out, figures.devices[i], *share.reducer, options);
        if (options.verbosity == Verbosity::verbose)
            print_plan(out, share.reducer->plan(share.length));
        print_measurement(out, figures.shares[i]);
    }
    const auto& whole = figures.whole;
    out << "\noverall         "
        << timing_text(summarize(figures.overall_us), whole.bytes(), figures.overall_us.size() > 1)
        << ", the first device's start to the last one's end, on the host's clock\n";
    print_result(out, whole);
}

namespace {

/// The passes of the first run, each with its device time over the timed runs.
std::string json_passes(const Measurement& measurement) {
    std::string list;
    const auto& passes = measurement.runs.front().passes;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const auto& pass = passes[i].pass;
        list += (i == 0 ? "" : ", ") + JsonObject()
                                           .count("in", pass.in)
                                           .count("out", pass.out())
                                           .count("work_groups", pass.work_groups)
                                           .count("work_group_size", pass.work_group_size)
                                           .timing("us", measurement.pass_us(i),
                                                   pass.in * info(measurement.type).size, "gbps")
                                           .str();
    }
    return "[" + list + "]";
}

std::string json_host_input(const HostInputFigures* host_input, std::uint64_t bytes) {
    if (!host_input)
        return "null";
    return JsonObject()
        .flag("in_place", host_input->in_place)
        .count("chunk", host_input->chunk)
        .timing("upload_us", host_input->upload_us, bytes, "upload_gbps")
        .timing("end_to_end_us", host_input->end_to_end_us, bytes, "end_to_end_gbps")
        .timing("copy_us", host_input->copy_us, bytes, "copy_gbps")
        .str();
}

/// What was reduced: the type, the op, the length and where the values came from (the
/// --input file, or the seed of the random draw; the other is null), and how often.
JsonObject& json_input(JsonObject& object, const Options& options, std::uint64_t length,
                       std::size_t iterations) {
    return object.text("type", name_of(options.type))
        .text("op", name_of(options.op))
        .count("length", length)
        .member("input", options.input ? json_string(*options.input) : "null")
        .member("seed", options.input ? "null" : std::to_string(options.seed))
        .count("iterations", iterations)
        .flag("warm_up", !options.cold)
        .text("accumulator", name_of(accumulator_of(options)));
}

/// The result against the host reference; with --no-check, the reference, the error and
/// the verdict are null.
JsonObject& json_result(JsonObject& object, const Measurement& measurement) {
    const bool checked = measurement.check != Check::skipped;
    const auto unless_skipped = [&](const std::string& json) { return checked ? json : "null"; };
    object.text("reference_method", checked ? measurement.expected.method : "")
        .text("result", measurement.result_text())
        .member("reference", unless_skipped(json_string(
                                 result_text(measurement.op, measurement.expected.value))));
    if (info(measurement.op).indexed) { // argmin and argmax: the value's index beside it
        const auto index_json = [](std::optional<std::int64_t> index) {
            return index ? std::to_string(*index) : std::string("null");
        };
        object.member("index", index_json(measurement.runs.front().index))
            .member("reference_index", unless_skipped(index_json(measurement.expected.index)));
    }
    if (checked)
        object.precise("error", measurement.largest_error());
    else
        object.member("error", "null");
    return object.text("check", name_of(measurement.check))
        .precise("bound", measurement.tolerance)
        .member("valid", unless_skipped(measurement.valid() ? "true" : "false"));
}

/// The single-device object: where it ran and how, the passes, the timings, the result.
std::string json_run(const Measurement& measurement, const SelectedDevice& selected,
                     const Reducer& reducer, const Options& options,
                     const HostInputFigures* host_input) {
    const auto& report = reducer.report();
    const auto bytes = measurement.bytes();
    JsonObject object;
    object.text("clreduce_version", CLREDUCE_VERSION)
        .text("platform", report.platform_name)
        .count("platform_index", selected.platform_index)
        .text("device", report.name)
        .count("device_index", selected.device_index)
        .text("device_version", report.version_text)
        .text("strategy", name_of(reducer.path()))
        .text("factor", name_of(reducer.factor()))
        .text("finish", name_of(reducer.finish()));
    json_input(object, options, measurement.length, measurement.runs.size())
        .count("work_group_size", reducer.work_group_size())
        .count("buffers", std::max<std::size_t>(measurement.runs.front().pieces, 1))
        .member("host_input", json_host_input(host_input, bytes))
        .member("passes", json_passes(measurement))
        .timing("span_us", measurement.span_us(), bytes, "span_gbps")
        .timing("host_observed_us", measurement.observed_us(), bytes)
        .timing("stream_read_us", measurement.stream_read_us, bytes, "stream_read_gbps")
        .timing("host_reference_us",
                measurement.check == Check::skipped ? std::nullopt
                                                    : std::optional(measurement.host_reference_us),
                bytes, "host_reference_gbps");
    return json_result(object, measurement).str();
}

} // namespace

void print_json(std::ostream& out, const Measurement& measurement, const SelectedDevice& selected,
                const Reducer& reducer, const Options& options,
                const HostInputFigures* host_input) {
    out << json_run(measurement, selected, reducer, options, host_input) << '\n';
}

void print_split_json(std::ostream& out, const std::vector<DeviceShare>& shares,
                      const SplitFigures& figures, const Options& options) {
    std::string devices;
    for (std::size_t i = 0; i < shares.size(); ++i) {
        // A share streamed from host memory says how; its uploads are not timed apart.
        const auto& stream = shares[i].stream;
        const auto streamed =
            stream
                ? std::optional(HostInputFigures{
                      stream->in_place(), options.input.has_value(), stream->chunk(), {}, {}, {}})
                : std::nullopt;
        devices += (i == 0 ? "" : ", ") + json_run(figures.shares[i], figures.devices[i],
                                                   *shares[i].reducer, options,
                                                   streamed ? &*streamed : nullptr);
    }
    const auto& whole = figures.whole;
    JsonObject object;
    object.text("clreduce_version", CLREDUCE_VERSION);
    json_input(object, options, whole.length, whole.runs.size())
        .member("devices", "[" + devices + "]")
        .timing("overall_us", summarize(figures.overall_us), whole.bytes(), "overall_gbps");
    out << json_result(object, whole).str() << '\n';
}

void print_empty_sum(std::ostream& out, const Options& options) {
    const auto zero = result_text(
        options.op, visit_accumulator(accumulator_of(options), [&](auto zero) -> Scalar {
            return identity_of<decltype(zero)>(options.op);
        }));
    if (options.verbosity == Verbosity::quiet) {
        out << zero << '\n';
        return;
    }
    if (options.format == Format::text) {
        print_title(out, options);
        out << "result          " << zero << " (the " << name_of(options.op)
            << " of no values, as NumPy's; no device ran)\n";
        return;
    }
    JsonObject object;
    object.text("clreduce_version", CLREDUCE_VERSION);
    json_input(object, options, 0, 0)
        .text("reference_method", "the " + name_of(options.op) + " of no values")
        .text("result", zero)
        .text("reference", zero)
        .precise("error", 0)
        .text("check", name_of(Check::exact))
        .precise("bound", 0)
        .flag("valid", true);
    out << object.str() << '\n';
}

namespace {

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + '"';
}

/// One line of the sweep's table or CSV: cells aligned to their width, or fields each
/// followed by a comma and, last, the device (which the table's header names instead).
class SweepLine {
public:
    SweepLine(std::ostream& out, Format format)
        : out_(out)
        , csv_(format == Format::csv) {}
    SweepLine& cell(const std::string& text, int width) {
        if (csv_)
            out_ << text << ',';
        else
            out_ << std::setw(width) << text;
        return *this;
    }
    void end(const std::string& device_field) { out_ << (csv_ ? device_field : "") << '\n'; }

private:
    std::ostream& out_;
    bool csv_;
};

} // namespace

void print_sweep_header(std::ostream& out, Format format) {
    SweepLine(out, format)
        .cell("length", 12)
        .cell("type", 7)
        .cell("op", 4)
        .cell("finish", 11)
        .cell("passes", 7)
        .cell("span_us", 11)
        .cell("span_us_median", 15)
        .cell("gbps", 9)
        .cell("read_us", 11)
        .cell("read_gbps", 13)
        .cell("of_read", 11)
        .cell("observed_us", 12)
        .cell("observed_us_median", 19)
        .cell("reference_us", 13)
        .cell("reference_gbps", 15)
        .cell("valid", 6)
        .end("device");
}

void print_sweep_row(std::ostream& out, const SweepRow& sweep_row, Format format,
                     const std::string& device) {
    const auto& row = sweep_row.measurement;
    const auto span = row.span_us();
    const auto observed = row.observed_us();
    const auto read = row.stream_read_us.value_or(Statistic{});
    const auto bytes = row.bytes();
    SweepLine(out, format)
        .cell(std::to_string(row.length), 12)
        .cell(name_of(row.type), 7)
        .cell(name_of(sweep_row.op), 4)
        .cell(name_of(sweep_row.finish), 11)
        .cell(std::to_string(row.runs.front().passes.size()), 7)
        .cell(fixed(span.min), 11)
        .cell(fixed(span.median), 15)
        .cell(fixed(gigabytes_per_second(bytes, span.min)), 9)
        .cell(fixed(read.min), 11)
        .cell(fixed(gigabytes_per_second(bytes, read.min)), 13)
        .cell(fixed(read.min / span.min, 3), 11)
        .cell(fixed(observed.min), 12)
        .cell(fixed(observed.median), 19)
        .cell(fixed(row.host_reference_us.min), 13)
        .cell(fixed(gigabytes_per_second(bytes, row.host_reference_us.min)), 15)
        .cell(row.valid() ? "yes" : "NO", 6)
        .end(csv_field(device));
}

} // namespace clreduce
