#include "clreduce/stream.hpp"
#include "tool/progress.hpp"
#include "tool/recipe.hpp"
#include "tool/report.hpp"
#include "tool/run.hpp"

#include <algorithm>
#include <ostream>

namespace clreduce {

std::uint64_t stream_chunk(const Reducer& reducer, std::uint64_t length, std::uint64_t requested) {
    const std::uint64_t largest = reducer.report().largest_buffer / reducer.value_size();
    if (requested > largest)
        throw Failure(ExitCode::unsupported,
                      "--chunk " + std::to_string(requested) + " is more than device '" +
                          reducer.report().name +
                          "' allocates in one buffer: " + std::to_string(largest) + " values of " +
                          name_of(reducer.type()) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    if (requested != 0)
        return requested;
    return std::max<std::uint64_t>(
        1, std::min({default_chunk_bytes / reducer.value_size(), largest, length}));
}

ExitCode run_streamed(Reducer& reducer, const cl::CommandQueue& queue,
                      const SelectedDevice& selected, const Options& options,
                      const std::optional<ValuesView>& file, std::ostream& out) {
    const auto chunk = stream_chunk(reducer, options.length, options.chunk);
    if (!file) // a mapped file pages in and out instead
        refuse_past_host_memory(options.length, reducer.value_size());
    const bool text = options.format == Format::text && options.verbosity != Verbosity::quiet;
    if (text) {
        print_title(out, options);
        print_setup(out, selected, reducer, options);
    }
    Progress preparing(file ? "mapping the file's values for the stream"
                            : "generating " + std::to_string(options.length) + " random " +
                                  name_of(reducer.type()) + " values in host memory");
    const auto streamed =
        make_host_stream(reducer, queue, file, 0, options.length, chunk, options.seed);
    auto& stream = *streamed;
    preparing.end();

    auto measurement = Measurement::of(reducer, options.length);
    std::vector<double> upload, end_to_end, copy;
    Progress streaming("streaming " + std::to_string(options.length) +
                       " values to the device, and the host reference");
    repeat({options.iterations, !options.cold}, [&](bool counted) {
        auto run = stream.reduce(options.length);
        const auto copy_us = stream.copy_us(options.length);
        if (!counted)
            return;
        measurement.runs.push_back(std::move(run.reduction));
        upload.push_back(run.upload_us);
        end_to_end.push_back(run.end_to_end_us);
        if (copy_us)
            copy.push_back(*copy_us);
    });
    check_against(
        measurement, reducer, {options.iterations, !options.cold},
        reference_unless_skipped(
            options, [&] { return reference_for(reducer, queue, stream.spans(options.length)); }),
        file ? file->origin : Origin::drawn);
    streaming.end();

    HostInputFigures figures{stream.in_place(), file.has_value(), stream.chunk(), {}, {}, {}};
    if (!stream.in_place())
        figures = {false,
                   file.has_value(),
                   stream.chunk(),
                   summarize(upload),
                   summarize(end_to_end),
                   summarize(copy)};
    print_outcome(out, measurement, selected, reducer, options, &figures);
    out.flush();
    refuse_wrong_result(measurement);
    return ExitCode::success;
}

} // namespace clreduce
