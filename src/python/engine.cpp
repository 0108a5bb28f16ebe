#include "engine.hpp"

#include "clreduce/stream.hpp"

#include <algorithm>
#include <type_traits>

namespace clreduce::python {
namespace {

/// The wrapper over a handle that PyOpenCL owns: retained, so both may release it.
template <typename Wrapper>
Wrapper retained(Handle handle) {
    return Wrapper(reinterpret_cast<typename Wrapper::cl_type>(handle), true);
}

std::vector<cl::Event> retained_events(const std::vector<Handle>& handles) {
    std::vector<cl::Event> events;
    for (const auto handle : handles)
        events.push_back(retained<cl::Event>(handle));
    return events;
}

DataType type_named(const std::string& name) {
    for (const auto& type : all_types())
        if (name == type.name)
            return type.type;
    throw Error(Errc::invalid_argument, "no value type '" + name + "' in the engine");
}

Op op_named(const std::string& name) {
    for (const auto& op : all_ops())
        if (op.op != Op::custom && name == op.name)
            return op.op;
    throw Error(Errc::invalid_argument, "no op '" + name + "' in the engine");
}

/// A NumPy input streamed in chunks of 64 MiB, as the tool streams --host-input: each upload
/// and launch then takes far longer than enqueueing it.
std::uint64_t stream_chunk(const Reducer& reducer, std::uint64_t length) {
    const std::uint64_t chunk_bytes = std::uint64_t{64} << 20;
    const std::uint64_t largest = reducer.report().largest_buffer / reducer.value_size();
    return std::max<std::uint64_t>(1,
                                   std::min({chunk_bytes / reducer.value_size(), largest, length}));
}

/// The engine's defaults for the type and op: the best path the device reports, the finish
/// chosen for it (one launch where the device allows it), the device's work-group size, and
/// NumPy's accumulator unless `accumulate` names another.
Recipe recipe_for(DataType type, Op op, const std::optional<std::string>& accumulate) {
    Recipe recipe;
    recipe.type = type;
    recipe.op = op;
    if (accumulate)
        recipe.accumulate = type_named(*accumulate);
    return recipe;
}

/// The result as NumPy gives it: argmin's and argmax's index, else the value.
nb::object to_python(const Reduction& result) {
    if (result.index)
        return nb::int_(*result.index);
    return std::visit(
        [](auto number) -> nb::object {
            if constexpr (std::is_floating_point_v<decltype(number)>)
                return nb::float_(static_cast<double>(number));
            else
                return nb::int_(number);
        },
        result.value);
}

} // namespace

std::vector<std::string> op_names() {
    std::vector<std::string> names;
    // Not custom: a user's op needs its OpenCL C, which the package has no way to give yet.
    for (const auto& op : all_ops())
        if (op.op != Op::custom)
            names.push_back(op.name);
    return names;
}

std::vector<std::pair<std::string, std::string>> types() {
    std::vector<std::pair<std::string, std::string>> named;
    // Every type NumPy has (not bfloat16). The code is the .npy dtype without its byte order,
    // "i4".
    for (const auto& type : all_types())
        if (type.npy != nullptr)
            named.emplace_back(type.name, std::string(type.npy).substr(1));
    return named;
}

DeviceQueue::DeviceQueue(Handle device)
    : context(retained<cl::Device>(device))
    , queue(context, retained<cl::Device>(device)) {}

Engine::Engine(Handle context, Handle device, const std::string& type, const std::string& op,
               const std::optional<std::string>& accumulate)
    : reducer_(retained<cl::Context>(context), retained<cl::Device>(device),
               recipe_for(type_named(type), op_named(op), accumulate)) {}

std::string Engine::accumulator() const {
    return name_of(reducer_.accumulator());
}

nb::object Engine::reduce_host(Handle queue, const HostArray& values) {
    if (values.size() == 0) // a stream has at least one chunk
        throw Error(Errc::invalid_argument, "an empty array has no chunk to stream");
    if (values.itemsize() != reducer_.value_size())
        throw Error(Errc::invalid_argument,
                    "the array's values are not " + name_of(reducer_.type()) + " values");
    const ValuesView view(reducer_.type(), values.data(), values.size(), Origin::given);
    const auto command_queue = retained<cl::CommandQueue>(queue);
    Reduction result;
    {
        nb::gil_scoped_release unlocked;
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto stream = make_host_stream(reducer_, command_queue, view, 0, view.length,
                                             stream_chunk(reducer_, view.length), 0);
        result = stream->reduce(view.length).reduction;
    }
    return to_python(result);
}

nb::object Engine::reduce_buffer(Handle queue, Handle buffer, std::uint64_t first,
                                 std::uint64_t count, const std::vector<Handle>& wait) {
    const auto command_queue = retained<cl::CommandQueue>(queue);
    const auto input = retained<cl::Buffer>(buffer);
    auto events = retained_events(wait);
    Reduction result;
    {
        nb::gil_scoped_release unlocked;
        const std::lock_guard<std::mutex> lock(mutex_);
        // The blocking call takes no events: on an in-order queue, a marker holds it back.
        if (!events.empty())
            command_queue.enqueueMarkerWithWaitList(&events);
        result = reducer_.reduce_timed(command_queue, {{input, count, first}}); // with the index
    }
    return to_python(result);
}

Handle Engine::enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                       Handle result, std::uint64_t result_index, const std::vector<Handle>& wait) {
    const auto command_queue = retained<cl::CommandQueue>(queue);
    const auto input = retained<cl::Buffer>(buffer);
    const auto output = retained<cl::Buffer>(result);
    const auto events = retained_events(wait);
    nb::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto done =
        reducer_.enqueue_reduce(command_queue, input, first, count, output, result_index, events);
    // One reference more, which the caller's pyopencl.Event takes over.
    clRetainEvent(done());
    return reinterpret_cast<Handle>(done());
}

} // namespace clreduce::python
