#pragma once
// Printing what was measured, for every flow of the tool: the text report, one JSON object,
// the several devices' report, or the sweep's table/CSV.

#include "clreduce/reducer.hpp"
#include "clreduce/split.hpp"
#include "detail/measure.hpp"
#include "tool/devices.hpp"
#include "tool/options.hpp"

#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace clreduce {

/// `value` with `decimals` digits after the point.
std::string fixed(double value, int decimals = 2);

/// `text` as a JSON string: quoted, with quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text);

/// One JSON object, its members in the order they are added.
class JsonObject {
public:
    JsonObject& member(const std::string& key, const std::string& json) {
        text_ += (text_.empty() ? "{" : ", ") + json_string(key) + ": " + json;
        return *this;
    }
    JsonObject& text(const std::string& key, const std::string& value) {
        return member(key, json_string(value));
    }
    JsonObject& count(const std::string& key, std::uint64_t value) {
        return member(key, std::to_string(value));
    }
    JsonObject& flag(const std::string& key, bool value) {
        return member(key, value ? "true" : "false");
    }
    /// A figure; JSON has no NaN or infinity, so a figure that is not finite is null.
    JsonObject& figure(const std::string& key, double value, int decimals = 3) {
        return member(key, std::isfinite(value) ? fixed(value, decimals) : "null");
    }
    /// A double as the shortest text that reads back as it, null when not finite.
    JsonObject& precise(const std::string& key, double value) {
        return member(key, std::isfinite(value) ? to_string(value) : "null");
    }
    /// "<key>_min" and "<key>_median" in microseconds, then "<key_gbps>" of the min.
    JsonObject& timing(const std::string& key, const std::optional<Statistic>& us,
                       std::uint64_t bytes, const std::string& gbps_key = {}) {
        figure(key + "_min", us ? us->min : std::nan(""));
        figure(key + "_median", us ? us->median : std::nan(""));
        if (!gbps_key.empty())
            figure(gbps_key, us ? gigabytes_per_second(bytes, us->min) : std::nan(""));
        return *this;
    }
    std::string str() const { return text_.empty() ? "{}" : text_ + "}"; }

private:
    std::string text_;
};

/// "min X us, median Y us (Z GB/s)" of several runs, or "X us (Z GB/s)" of one, over
/// `bytes` read.
std::string timing_text(const Statistic& us, std::uint64_t bytes, bool repeated);

/// The first run's result and how it compares with the host reference: its error and bound
/// for a floating-point sum.
void print_result(std::ostream& out, const Measurement& measurement);

/// What is reduced: the op, the length, the type and the seed.
void print_title(std::ostream& out, const Options& options);

/// The device, the path and how it was built (more with --verbose).
void print_setup(std::ostream& out, const SelectedDevice& selected, const Reducer& reducer,
                 const Options& options);

/// The host and device memory a reduction of `length` values in buffers of at most
/// `per_buffer` needs (--verbose).
void print_memory(std::ostream& out, const Reducer& reducer, std::uint64_t length,
                  std::uint64_t per_buffer);

/// The pass plan for `length`, before anything runs (--verbose).
void print_plan(std::ostream& out, const std::vector<Pass>& passes);

/// Per pass: elements in -> out, work-groups x size, device time and GB/s; then the span,
/// the host-observed time, the host reference and the verdict.
void print_measurement(std::ostream& out, const Measurement& measurement);

/// What --host-input adds to the report: how the input reached the device and, for copied
/// chunks, the uploads' own time, end to end, and the copy ceiling (docs/design.md, "Large
/// inputs and several devices").
struct HostInputFigures {
    bool in_place = false;
    bool from_file = false;  // the values are a mapped file's (--input), else pinned memory
    std::uint64_t chunk = 0; // values per chunk
    std::optional<Statistic> upload_us;
    std::optional<Statistic> end_to_end_us;
    std::optional<Statistic> copy_us;
};

/// One JSON object with the same content as the text report (docs/command-line.md, "JSON output"),
/// with `host_input`'s figures when the input was streamed.
void print_json(std::ostream& out, const Measurement& measurement, const SelectedDevice& selected,
                const Reducer& reducer, const Options& options,
                const HostInputFigures* host_input = nullptr);

/// The result as the options ask: one JSON object, the value alone (--quiet), or the passes,
/// timings and verdict, with `host_input`'s figures when the input was streamed (the title
/// and setup are printed before the run).
void print_outcome(std::ostream& out, const Measurement& measurement,
                   const SelectedDevice& selected, const Reducer& reducer, const Options& options,
                   const HostInputFigures* host_input = nullptr);

/// What a run split across devices measured.
struct SplitFigures {
    std::vector<SelectedDevice> devices; // those used, one per share
    std::size_t named = 0;               // those the command line named
    std::vector<double> speeds;          // each device's in the warm-up, values per microsecond
    std::vector<Measurement> shares;     // each share's runs against its host reference
    std::vector<double> overall_us;      // each run, the first start to the last end
    Measurement whole;                   // the combined results against the whole reference
};

/// The split as one JSON object: the input's keys, "devices" (each share's print_json
/// object), the overall time and the combined result's keys.
void print_split_json(std::ostream& out, const std::vector<DeviceShare>& shares,
                      const SplitFigures& figures, const Options& options);

/// The split's report: each share's device, passes and timings, then the overall time and
/// the combined result; only the result with --quiet; print_split_json with --json.
void print_split(std::ostream& out, const std::vector<DeviceShare>& shares,
                 const SplitFigures& figures, const Options& options);

/// One length of a sweep, measured with one op and finish.
struct SweepRow {
    Op op;
    Finish finish;
    Measurement measurement;
};

/// The sweep's header: the table's column names, or CSV's (--json prints none).
void print_sweep_header(std::ostream& out, Format format);

/// One length of the sweep as a row of the aligned table or as a CSV line, which ends with
/// the device's name, so that a CSV says where it was measured.
void print_sweep_row(std::ostream& out, const SweepRow& row, Format format,
                     const std::string& device);

/// An empty --input's sum, 0: the value alone (-q), the title and the result, or a JSON
/// object with print_json's keys for the input and the result.
void print_empty_sum(std::ostream& out, const Options& options);

} // namespace clreduce
