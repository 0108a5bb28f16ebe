#include "clreduce/report.hpp"

#include "clreduce/reference.hpp"

#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace clreduce {
namespace {

std::string fixed(double value, int decimals = 2) {
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

/// "min / median us (GB/s)" of a statistic over `values` read.
std::string timing_text(const Statistic& us, std::uint64_t values, bool repeated) {
    return (repeated ? "min " + fixed(us.min) + " us, median " + fixed(us.median) + " us"
                     : fixed(us.min) + " us") +
           " (" + fixed(gigabytes_per_second(values, us.min)) + " GB/s)";
}

std::string percent(double part, double whole) {
    return fixed(100.0 * part / whole, 1) + "%";
}

} // namespace

void print_setup(std::ostream& out, const SelectedDevice& selected, const Reducer& reducer,
                 const Options& options) {
    const auto& report = reducer.report();
    out << "clreduce " << CLREDUCE_VERSION << ": " << name_of(reducer.op()) << " of "
        << options.length << " int32 values (seed " << options.seed << ")\n"
        << "device   " << report.name << " (-p " << selected.platform_index << " -d "
        << selected.device_index << "), " << report.platform_name << ", " << report.version_text
        << '\n'
        << "path     " << name_of(reducer.path()) << ", work-group size "
        << reducer.work_group_size() << ", " << name_of(reducer.factor()) << " factor\n";
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
    out << "\nbuild options: "
        << (reducer.build_options().empty() ? "(none)" : reducer.build_options()) << '\n'
        << "host reference: " << host_reduce_description() << '\n';
}

void print_plan(std::ostream& out, const std::vector<Pass>& passes) {
    out << "plan: " << passes.size() << (passes.size() == 1 ? " pass" : " passes");
    for (const auto& pass : passes)
        out << "; " << pass.in << " -> " << pass.out() << " (" << pass.work_groups << " x "
            << pass.work_group_size << ")";
    out << '\n';
}

void print_measurement(std::ostream& out, const Measurement& measurement) {
    const bool repeated = measurement.runs.size() > 1;
    const auto& passes = measurement.runs.front().passes;
    out << "pass           in ->          out   work-groups x size   "
        << (repeated ? "  min us  median us" : "device us") << "      GB/s\n";
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const auto& pass = passes[i].pass;
        const auto us = measurement.pass_us(i);
        out << std::setw(4) << i + 1 << std::setw(13) << pass.in << " -> " << std::setw(12)
            << pass.out() << std::setw(14) << pass.work_groups << " x " << std::setw(4)
            << pass.work_group_size << std::setw(12) << fixed(us.min);
        if (repeated)
            out << std::setw(11) << fixed(us.median);
        out << std::setw(10) << fixed(gigabytes_per_second(pass.in, us.min)) << '\n';
    }
    const auto span = measurement.span_us();
    out << "device span     " << timing_text(span, measurement.length, repeated) << '\n';
    if (!repeated)
        out << "host observed   " << fixed(measurement.runs.front().host_us)
            << " us, enqueue to result\n";
    if (measurement.ceiling_us)
        out << "stream ceiling  "
            << timing_text(*measurement.ceiling_us, measurement.length, repeated)
            << "; the reduction runs at " << percent(measurement.ceiling_us->min, span.min)
            << " of its speed\n";
    out << "host reference  "
        << timing_text(measurement.host_reference_us, measurement.length, repeated) << ", "
        << host_reduce_description() << '\n';
    out << "result          " << measurement.runs.front().value
        << (measurement.valid()
                ? " (matches the host reference)"
                : " (WRONG: the host reference is " + std::to_string(measurement.expected) + ")")
        << '\n';
}

void print_json(std::ostream& out, const Measurement& measurement, const Reducer& reducer,
                const Options& options) {
    const auto& report = reducer.report();
    const auto span = measurement.span_us();
    out << "{\"platform\": " << json_string(report.platform_name)
        << ", \"device\": " << json_string(report.name)
        << ", \"strategy\": " << json_string(name_of(reducer.path()))
        << ", \"factor\": " << json_string(name_of(reducer.factor()))
        << ", \"op\": " << json_string(name_of(reducer.op()))
        << ", \"length\": " << measurement.length << ", \"seed\": " << options.seed
        << ", \"iterations\": " << measurement.runs.size()
        << ", \"work_group_size\": " << reducer.work_group_size()
        << ", \"result\": " << measurement.runs.front().value
        << ", \"expected\": " << measurement.expected
        << ", \"valid\": " << (measurement.valid() ? "true" : "false") << ", \"passes\": [";
    const auto& passes = measurement.runs.front().passes;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const auto& pass = passes[i].pass;
        const auto us = measurement.pass_us(i);
        out << (i == 0 ? "" : ", ") << "{\"in\": " << pass.in << ", \"out\": " << pass.out()
            << ", \"work_groups\": " << pass.work_groups
            << ", \"work_group_size\": " << pass.work_group_size << ", \"us\": " << fixed(us.min, 3)
            << ", \"us_median\": " << fixed(us.median, 3) << "}";
    }
    out << "], \"span_us\": " << fixed(span.min, 3)
        << ", \"span_us_median\": " << fixed(span.median, 3)
        << ", \"host_us\": " << fixed(measurement.runs.front().host_us, 3)
        << ", \"host_reference_us\": " << fixed(measurement.host_reference_us.min, 3)
        << ", \"gbps\": " << fixed(gigabytes_per_second(measurement.length, span.min), 3);
    if (measurement.ceiling_us)
        out << ", \"ceiling_us\": " << fixed(measurement.ceiling_us->min, 3)
            << ", \"ceiling_gbps\": "
            << fixed(gigabytes_per_second(measurement.length, measurement.ceiling_us->min), 3);
    out << "}\n";
}

void print_sweep(std::ostream& out, const std::vector<Measurement>& rows, Format format) {
    const bool csv = format == Format::csv;
    const auto cell = [&](const std::string& text, int width) {
        if (csv)
            out << text << (width < 0 ? "\n" : ",");
        else
            out << std::setw(width < 0 ? -width : width) << text << (width < 0 ? "\n" : "");
    };
    cell("length", 12), cell("passes", 7), cell("span_us", 12), cell("span_us_median", 15);
    cell("gbps", 9), cell("ceiling_us", 12), cell("ceiling_gbps", 13), cell("of_ceiling", 11);
    cell("host_us", 12), cell("host_gbps", 10), cell("valid", -6);
    for (const auto& row : rows) {
        const auto span = row.span_us();
        const auto ceiling = row.ceiling_us.value_or(Statistic{});
        cell(std::to_string(row.length), 12);
        cell(std::to_string(row.runs.front().passes.size()), 7);
        cell(fixed(span.min), 12), cell(fixed(span.median), 15);
        cell(fixed(gigabytes_per_second(row.length, span.min)), 9);
        cell(fixed(ceiling.min), 12);
        cell(fixed(gigabytes_per_second(row.length, ceiling.min)), 13);
        cell(fixed(ceiling.min / span.min, 3), 11);
        cell(fixed(row.host_reference_us.min), 12);
        cell(fixed(gigabytes_per_second(row.length, row.host_reference_us.min)), 10);
        cell(row.valid() ? "yes" : "NO", -6);
    }
}

} // namespace clreduce
