// clreduce: reduce a random array (or a file's values) on an OpenCL device with the best
// kernel the device supports, report every pass's device time, and check the result against
// the host.
//
// The flow, as docs/design.md tells it: parse the command line, select the device by its
// triplet, read its capabilities, choose the reduction path, complete and build the kernel
// (settling the finish: more passes, or the last work-group), then run the reduction on a
// profiling queue and validate it. The input lives on the device (in one buffer or several)
// or streams from host memory (--host-input); a device list (-d 0,1) splits it across
// devices. A file (--input) is mapped and checked before any OpenCL call. --axis reduces
// along axes instead, to an array of results (run_axes).
//
// The steps with a clreduce/ header are the engine's facade (what any program may call), those
// with a detail/ header the engine's own (its report, kernel text and measuring, which the tool,
// built with it, uses too), and those with a tool/ header this command-line tool's own.

#include "clreduce/reducer.hpp"
#include "detail/capabilities.hpp"
#include "detail/measure.hpp"
#include "detail/source.hpp"
#include "tool/devices.hpp"
#include "tool/failure.hpp"
#include "tool/file_input.hpp"
#include "tool/options.hpp"
#include "tool/run.hpp"

#include <iostream>
#include <optional>

using namespace clreduce;

namespace {

/// The story, from the command line to the validated report on `out`.
ExitCode reduce_as_asked(int argc, char* argv[], std::ostream& out) {
    auto options = parse_options(argc, argv);
    if (!options) // --help or --version
        return ExitCode::success;
    if (options->mode == Mode::list) {
        list_devices(out);
        return ExitCode::success;
    }
    const auto file = open_input(*options); // its type and length become the options'
    if (!options->axes.empty())             // along axes: an array of results (docs/axes.md)
        return run_axes(select_devices(options->triplet), *options,
                        file ? std::optional(file->values()) : std::nullopt,
                        file ? std::optional(file->shape()) : std::nullopt, out);
    if (options->length == 0) // a file without values: their sum is 0, no device needed
        return answer_empty_sum(*options, out);
    const auto values = file ? std::optional(file->values()) : std::nullopt;

    const auto devices = select_devices(options->triplet);
    if (options->exact)
        return run_exact(devices, *options, values, out);
    const auto kernel = reduce_kernel_source(options->kernel_dir);
    if (devices.size() > 1)
        return run_split(devices, *options, values, kernel, out);

    const auto& selected = devices.front();
    const auto report = query_report(selected.device);
    const DeviceQueue device_queue(selected.device);
    const auto reducers = build_reducers(device_queue, report, kernel, *options);

    std::optional<StreamRead> stream_read;
    if (options->benchmark)
        stream_read.emplace(*reducers.front(), device_queue.queue);
    if (options->host_input)
        return run_streamed(*reducers.front(), device_queue.queue, selected, *options, values, out);
    if (options->mode == Mode::sweep)
        return run_sweep(reducers, device_queue, selected, *options, values, *stream_read, out);
    return run_reduction(*reducers.front(), device_queue, selected, *options, values,
                         stream_read ? &*stream_read : nullptr, out);
}

} // namespace

int main(int argc, char* argv[]) {
    return exit_code_of(
        [&] {
            const auto code = reduce_as_asked(argc, argv, std::cout);
            require_written(std::cout);
            return code;
        },
        std::cerr);
}
