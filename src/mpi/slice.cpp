#include "slice.hpp"

#include "clreduce/input.hpp"
#include "clreduce/reducer.hpp"
#include "detail/capabilities.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"
#include "tool/recipe.hpp"

#include <variant>

namespace clreduce::mpi {
namespace {

/// The slice on the device, once the reducer has said that it and the temporaries fit; its
/// pieces count indices from its place in the whole input.
DeviceInput checked_upload(const Reducer& reducer, const cl::CommandQueue& queue,
                           const ValuesView& values, std::uint64_t per_buffer, RankSlice slice) {
    reducer.check_fits(values.length, per_buffer);
    return DeviceInput(reducer.context(), queue, values, per_buffer, slice.first);
}

} // namespace

HostValues random_slice(const Options& options, RankSlice slice) {
    auto values = visit_type(options.type, [&](auto value) {
        return HostValues(std::vector<decltype(value)>(slice.length));
    });
    auto* data = std::visit([](auto& vector) -> void* { return vector.data(); }, values);
    fill_random(options.type, options.op, data, slice.first, slice.length, options.seed);
    return values;
}

SelectedDevice device_of_rank(const DeviceTriplet& triplet, int node_rank) {
    const auto devices = select_devices(triplet);
    return devices[static_cast<std::size_t>(node_rank) % devices.size()];
}

struct SliceReducer::Engine {
    Engine(const SelectedDevice& device, const Options& options,
           const std::optional<ValuesView>& file, RankSlice slice)
        : device_queue(device.device)
        , report(query_report(device.device))
        , reducer(device_queue.context, device_queue.device,
                  recipe_for(options, report, options.finish),
                  reduce_kernel_source(options.kernel_dir))
        , per_buffer(buffer_values(report, options.type, 0))
        , drawn(file ? HostValues{} : random_slice(options, slice))
        , values(file ? file->part(slice.first, slice.length) : ValuesView(drawn))
        , input(checked_upload(reducer, device_queue.queue, values, per_buffer, slice)) {}

    DeviceQueue device_queue;
    DeviceReport report;
    Reducer reducer;
    std::uint64_t per_buffer;
    HostValues drawn; // the random slice; empty with --input
    ValuesView values;
    DeviceInput input;
    std::vector<Reduction> runs;
};

SliceReducer::SliceReducer(const SelectedDevice& device, const Options& options,
                           const std::optional<ValuesView>& file, RankSlice slice) {
    visit_accumulator(accumulator_of(options), [&](auto value) {
        identity_.value = identity_of<decltype(value)>(options.op);
        if (info(options.op).indexed)
            identity_.index = indexed_identity<decltype(value)>(options.op).index;
    });
    if (slice.length > 0)
        engine_ = std::make_unique<Engine>(device, options, file, slice);
}

SliceReducer::~SliceReducer() = default;

Reduction SliceReducer::reduce() {
    if (!engine_) {
        spans_.push_back(0);
        return identity_;
    }
    auto& engine = *engine_;
    engine.runs.push_back(engine.reducer.reduce_timed(engine.device_queue.queue,
                                                      engine.input.prefix(engine.values.length)));
    spans_.push_back(engine.runs.back().span_us);
    return engine.runs.back();
}

std::vector<double> SliceReducer::span_us(std::size_t uncounted) const {
    return {spans_.begin() + static_cast<std::ptrdiff_t>(uncounted), spans_.end()};
}

SliceCheck SliceReducer::check(std::size_t uncounted) const {
    if (!engine_)
        return {identity_.value,
                identity_.value,
                identity_.index,
                identity_.index,
                Check::exact,
                0,
                true};
    auto& engine = *engine_; // the reference may run on its device
    auto measurement = Measurement::of(engine.reducer, engine.values.length);
    measurement.runs.assign(engine.runs.begin() + static_cast<std::ptrdiff_t>(uncounted),
                            engine.runs.end());
    check_against(
        measurement, engine.reducer, Repeats{1, false},
        [&] {
            return reference_for(engine.reducer, engine.device_queue.queue,
                                 engine.input.prefix(engine.values.length), engine.values);
        },
        engine.values.origin);
    return {measurement.runs.front().value,
            measurement.expected.value,
            measurement.runs.front().index,
            measurement.expected.index,
            measurement.check,
            measurement.tolerance,
            measurement.valid()};
}

Reduction SliceReducer::combine(const std::vector<Reduction>& results) {
    if (!engine_)
        return identity_;
    return engine_->reducer.reduce_results(engine_->device_queue.queue, results);
}

Scalar SliceReducer::whole_reference(const Options& options,
                                     const std::optional<ValuesView>& file) {
    if (!engine_)
        return identity_.value;
    const auto drawn = file ? HostValues{} : random_slice(options, {0, options.length});
    const auto whole = file ? file->part(0, options.length) : ValuesView(drawn);
    return reference_for(engine_->reducer, engine_->device_queue.queue,
                         std::vector<ValuesView>{whole})
        .value;
}

std::string SliceReducer::setup() const {
    if (!engine_)
        return "";
    const auto& reducer = engine_->reducer;
    return "path " + name_of(reducer.path()) + ", work-group size " +
           std::to_string(reducer.work_group_size()) + ", finish " + name_of(reducer.finish());
}

} // namespace clreduce::mpi
