#include "engine.hpp"

#include "detail/policy.hpp"

#include <algorithm>
#include <type_traits>

namespace clreduce::python {
namespace {

/// The wrapper over a handle that PyOpenCL owns: retained, so both may release it.
template <typename Wrapper>
Wrapper retained(Handle handle) {
    return Wrapper(reinterpret_cast<typename Wrapper::cl_type>(handle), true);
}

/// A wrapper over a handle that PyOpenCL owns and holds for the whole call, neither retained
/// nor released by it: each is a call into the driver, and releasing a queue flushes it. The
/// copies the engine keeps (a reducer keeps its first queue) retain as copies do.
template <typename Wrapper>
class Borrowed {
public:
    explicit Borrowed(Handle handle)
        : wrapper_(reinterpret_cast<typename Wrapper::cl_type>(handle), false) {}
    ~Borrowed() { wrapper_() = nullptr; }
    Borrowed(const Borrowed&) = delete;
    Borrowed& operator=(const Borrowed&) = delete;
    const Wrapper& operator*() const { return wrapper_; }

private:
    Wrapper wrapper_;
};

/// `event`'s handle with one reference more, which the caller's pyopencl.Event takes over.
Handle handed_over(const cl::Event& event) {
    clRetainEvent(event());
    return reinterpret_cast<Handle>(event());
}

/// An event's info of type T, without the wrappers' retain of what it names.
template <typename T>
T event_info(Handle event, cl_event_info name) {
    T value{};
    const cl_int status =
        clGetEventInfo(reinterpret_cast<cl_event>(event), name, sizeof value, &value, nullptr);
    if (status != CL_SUCCESS)
        throw cl::Error(status, "clGetEventInfo");
    return value;
}

/// The events of `handles` that a command on `queue` (in order) must wait for: neither those
/// complete nor those still coming on `queue` itself, which runs its commands in order. An
/// array keeps its events in PyOpenCL until its queue finishes, so that most calls wait for
/// none and need no marker. A failed event is kept, for the wait to fail.
std::vector<cl::Event> pending_events(const std::vector<Handle>& handles, Handle queue) {
    std::vector<cl::Event> events;
    for (const auto handle : handles) {
        const auto status = event_info<cl_int>(handle, CL_EVENT_COMMAND_EXECUTION_STATUS);
        const bool ordered =
            status > CL_COMPLETE && reinterpret_cast<Handle>(event_info<cl_command_queue>(
                                        handle, CL_EVENT_COMMAND_QUEUE)) == queue;
        if (status != CL_COMPLETE && !ordered)
            events.push_back(retained<cl::Event>(handle));
    }
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
        if (name == op.name)
            return op.op;
    throw Error(Errc::invalid_argument, "no op '" + name + "' in the engine");
}

std::optional<DataType> type_named(const std::optional<std::string>& name) {
    if (!name)
        return std::nullopt;
    return type_named(*name);
}

/// The values per chunk a NumPy input of `length` values of `size` bytes is streamed in: a
/// quarter of it, from 16 to 64 MiB. The host's cores copy each chunk into pinned staging
/// while the chunk before is uploaded, which chunks of 64 MiB gave an array of 64 MiB no
/// chance to do (one chunk, copied, then uploaded); each upload and launch still takes far
/// longer than enqueueing it.
std::uint64_t chunk_values(std::uint64_t length, std::uint64_t size) {
    const std::uint64_t bytes = std::clamp<std::uint64_t>(
        length * size / 4, std::uint64_t{16} << 20, std::uint64_t{64} << 20);
    return std::max<std::uint64_t>(1, std::min(bytes / size, length));
}

/// chunk_values() for values of `size` bytes, no larger than the device's largest buffer.
std::uint64_t stream_chunk(const DeviceReport& report, std::uint64_t size, std::uint64_t length) {
    return std::min(chunk_values(length, size), report.largest_buffer / size);
}

/// The engine's defaults for the type and op: the best path the device reports, the finish
/// chosen for it (one launch where the device allows it), the device's work-group size, and
/// NumPy's accumulator unless `accumulate` names another.
Recipe recipe_for(DataType type, Op op, const std::optional<std::string>& accumulate,
                  const Expressions& user) {
    Recipe recipe;
    recipe.type = type;
    recipe.op = op;
    recipe.accumulate = type_named(accumulate);
    recipe.user = user;
    return recipe;
}

/// A value as NumPy gives it: an int or a float.
nb::object to_python(const Scalar& value) {
    return std::visit(
        [](auto number) -> nb::object {
            if constexpr (std::is_floating_point_v<decltype(number)>)
                return nb::float_(static_cast<double>(number));
            else
                return nb::int_(number);
        },
        value);
}

/// A reduction as NumPy gives it: argmin's and argmax's index, else the value.
nb::object to_python(const Reduction& result) {
    return result.index ? nb::int_(*result.index) : to_python(result.value);
}

/// An axis reduction's results as bytes, for numpy.frombuffer.
nb::object to_python(const std::vector<unsigned char>& bytes) {
    return nb::bytes(bytes.data(), bytes.size());
}

/// An axis reduction's results as NumPy reads them: the accumulators' bytes, or for argmin
/// and argmax (`indexed`) the indices as int64.
std::vector<unsigned char> result_bytes(const SegmentedResult& result, bool indexed) {
    std::vector<unsigned char> bytes;
    const auto append = [&](auto number) {
        const auto* first = reinterpret_cast<const unsigned char*>(&number);
        bytes.insert(bytes.end(), first, first + sizeof number);
    };
    if (indexed)
        for (const auto index : result.indices)
            append(static_cast<std::int64_t>(index));
    else
        for (const auto& value : result.values)
            std::visit(append, value);
    return bytes;
}

/// `values` as the engine views them, if they are `type` values.
ValuesView view_of(const HostArray& values, DataType type) {
    if (values.size() == 0) // a stream has at least one chunk
        throw Error(Errc::invalid_argument, "an empty array has no chunk to stream");
    if (values.itemsize() != info(type).size)
        throw Error(Errc::invalid_argument,
                    "the array's values are not " + name_of(type) + " values");
    return ValuesView(type, values.data(), values.size(), Origin::given);
}

/// `reduce(queue)`'s value, computed without the GIL and with `mutex` held, after the
/// events `wait` (on an in-order queue, a marker holds back the blocking calls, which take
/// no events).
template <typename Reduce>
nb::object blocking(std::mutex& mutex, Handle queue, const std::vector<Handle>& wait,
                    Reduce reduce) {
    const Borrowed<cl::CommandQueue> command_queue(queue);
    auto events = pending_events(wait, queue);
    decltype(reduce(*command_queue)) result;
    {
        nb::gil_scoped_release unlocked;
        const std::lock_guard<std::mutex> lock(mutex);
        if (!events.empty())
            (*command_queue).enqueueMarkerWithWaitList(&events);
        result = reduce(*command_queue);
    }
    return to_python(result);
}

/// The event of what `enqueue(queue, input, output, events)` enqueues, with `mutex` held and
/// without the GIL, the events those of `wait` it must wait for; handed over to the caller.
template <typename Enqueue>
Handle enqueued(std::mutex& mutex, Handle queue, Handle buffer, Handle result,
                const std::vector<Handle>& wait, Enqueue enqueue) {
    const Borrowed<cl::CommandQueue> command_queue(queue);
    const Borrowed<cl::Buffer> input(buffer);
    const Borrowed<cl::Buffer> output(result);
    const auto events = pending_events(wait, queue);
    nb::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> lock(mutex);
    return handed_over(enqueue(*command_queue, *input, *output, events));
}

/// argmin's and argmax's `count` indices into `result` from value `result_index` on, as NumPy's
/// int64 indices: `enqueue(pairs)` writes the engine's pairs of `pair` bytes (the value, then
/// the int64 index at byte 8) to a buffer of this call's own, whose indices a strided copy
/// then takes. Returns the copy's event; the buffer lives until the copy has run.
template <typename Enqueue>
cl::Event indices_into(const cl::CommandQueue& queue, const cl::Buffer& result,
                       std::uint64_t result_index, std::uint64_t count, std::size_t pair,
                       Enqueue enqueue) {
    constexpr std::size_t index = sizeof(std::int64_t);
    const cl::Buffer pairs(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, count * pair);
    const std::vector<cl::Event> reduced{enqueue(pairs)};
    cl::Event copied;
    queue.enqueueCopyBufferRect(pairs, result, {pair - index, 0, 0}, {result_index * index, 0, 0},
                                {index, count, 1}, pair, 0, index, 0, &reduced, &copied);
    return copied;
}

} // namespace

std::string accumulator_of(const std::string& type, const std::string& op,
                           const std::optional<std::string>& accumulate) {
    return name_of(accumulator_for(type_named(type), op_named(op), type_named(accumulate)));
}

std::optional<std::string> exact_sum_type(const std::string& type) {
    const auto values = type_named(type);
    if (!exact_sums(values))
        return std::nullopt;
    return name_of(ExactAccumulator(values).type());
}

std::vector<std::string> op_names() {
    std::vector<std::string> names;
    // Not custom: a user's op is clreduce.reduce(), which gives its OpenCL C.
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
               const std::optional<std::string>& accumulate, const Expressions& user)
    : reducer_(retained<cl::Context>(context), retained<cl::Device>(device),
               recipe_for(type_named(type), op_named(op), accumulate, user)) {}

std::string Engine::accumulator() const {
    return name_of(reducer_.accumulator());
}

nb::object Engine::reduce_host(Handle queue, const HostArray& values) {
    const auto view = view_of(values, reducer_.type());
    return blocking(mutex_, queue, {}, [&](const cl::CommandQueue& command_queue) {
        HostStream stream(reducer_, command_queue, view,
                          stream_chunk(reducer_.report(), reducer_.value_size(), view.length),
                          reads_in_place(reducer_.report()), staging_);
        staging_ = stream.staging();                 // allocated once, for the calls that follow
        return stream.reduce(view.length).reduction; // with argmin's and argmax's index
    });
}

nb::object Engine::reduce_buffer(Handle queue, Handle buffer, std::uint64_t first,
                                 std::uint64_t count, const std::vector<Handle>& wait) {
    const Borrowed<cl::Buffer> input(buffer);
    return blocking(mutex_, queue, wait, [&](const cl::CommandQueue& command_queue) {
        if (!info(reducer_.op()).indexed)
            return Reduction{reducer_.reduce(command_queue, *input, first, count)};
        return reducer_.reduce_timed(command_queue, {{*input, count, first}}); // the index too
    });
}

Handle Engine::enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                       Handle result, std::uint64_t result_index, const std::vector<Handle>& wait) {
    return enqueued(mutex_, queue, buffer, result, wait,
                    [&](const cl::CommandQueue& command_queue, const cl::Buffer& input,
                        const cl::Buffer& output, const std::vector<cl::Event>& events) {
                        if (!info(reducer_.op()).indexed)
                            return reducer_.enqueue_reduce(command_queue, input, first, count,
                                                           output, result_index, events);
                        return indices_into(
                            command_queue, output, result_index, 1, reducer_.accumulator_size(),
                            [&](const cl::Buffer& pairs) {
                                return reducer_.enqueue_reduce(command_queue, input, first, count,
                                                               pairs, 0, events);
                            });
                    });
}

AxisEngine::AxisEngine(Handle context, Handle device, const std::string& type,
                       const std::string& op, const std::optional<std::string>& accumulate,
                       const Expressions& user)
    : context_(retained<cl::Context>(context))
    , reducer_(context_, retained<cl::Device>(device),
               recipe_for(type_named(type), op_named(op), accumulate, user)) {}

std::string AxisEngine::accumulator() const {
    return name_of(reducer_.accumulator());
}

nb::object AxisEngine::reduce_host(Handle queue, const HostArray& values, const Shape& shape,
                                   const std::vector<int>& axes) {
    const auto view = view_of(values, reducer_.policy().recipe.type);
    return blocking(mutex_, queue, {}, [&](const cl::CommandQueue& command_queue) {
        AxisStream stream(reducer_, command_queue, view,
                          stream_chunk(reducer_.report(), values.itemsize(), view.length),
                          reads_in_place(reducer_.report()), staging_);
        const auto reduced = stream.reduce_axes(shape, axes);
        staging_ = stream.staging(); // allocated once, for the calls that follow
        return result_bytes(reduced, info(reducer_.policy().recipe.op).indexed);
    });
}

nb::object AxisEngine::reduce_buffer(Handle queue, Handle buffer, std::uint64_t first,
                                     const Shape& shape, const std::vector<int>& axes,
                                     const std::vector<Handle>& wait) {
    const Borrowed<cl::Buffer> input(buffer);
    return blocking(mutex_, queue, wait, [&](const cl::CommandQueue& command_queue) {
        return result_bytes(reducer_.reduce_axes(command_queue, *input, first, shape, axes),
                            info(reducer_.policy().recipe.op).indexed);
    });
}

Handle AxisEngine::enqueue(Handle queue, Handle buffer, std::uint64_t first, const Shape& shape,
                           const std::vector<int>& axes, Handle result, std::uint64_t result_index,
                           const std::vector<Handle>& wait) {
    return enqueued(mutex_, queue, buffer, result, wait,
                    [&](const cl::CommandQueue& command_queue, const cl::Buffer& input,
                        const cl::Buffer& output, const std::vector<cl::Event>& events) {
                        if (!info(reducer_.policy().recipe.op).indexed)
                            return reducer_.enqueue_reduce_axes(command_queue, input, first, shape,
                                                                axes, output, result_index, events);
                        return indices_into(
                            command_queue, output, result_index, axis_layout(shape, axes).results(),
                            reducer_.accumulator_size(), [&](const cl::Buffer& pairs) {
                                return reducer_.enqueue_reduce_axes(command_queue, input, first,
                                                                    shape, axes, pairs, 0, events);
                            });
                    });
}

ExactEngine::ExactEngine(Handle context, Handle device, const std::string& type)
    : context_(retained<cl::Context>(context))
    , copy_queue_(context_, retained<cl::Device>(device))
    , exact_sum_(context_, retained<cl::Device>(device), type_named(type)) {}

nb::object ExactEngine::reduce_host(Handle queue, const HostArray& values) {
    const auto view = view_of(values, exact_sum_.type());
    return blocking(mutex_, queue, {}, [&](const cl::CommandQueue& command_queue) {
        // Chunks as a reduction streams them, each copied into pinned staging and uploaded on
        // a queue of its own while the chunk before is summed: each chunk's accumulator is
        // exact, and they add up to the same integer as one pass over all of them.
        const std::uint64_t size = info(view.type).size;
        const std::uint64_t chunk = chunk_values(view.length, size);
        if (!staging_ || staging_->bytes() < chunk * size)
            staging_ = std::make_shared<StreamStaging>(context_, command_queue, chunk * size, true);
        const auto chunks = (view.length + chunk - 1) / chunk;
        const auto part = [&](std::uint64_t k) {
            return view.part(k * chunk, std::min(chunk, view.length - k * chunk));
        };
        ExactAccumulator sum(view.type);
        std::vector<cl::Event> uploads(chunks);
        const auto add = [&](std::uint64_t k) {
            const std::vector<cl::Event> uploaded{uploads[k]};
            command_queue.enqueueMarkerWithWaitList(&uploaded);
            const auto slot = k % StreamStaging::count;
            sum.add(exact_sum_.accumulate(command_queue,
                                          {{staging_->device(slot), part(k).length, 0}}));
        };
        for (std::uint64_t k = 0; k < chunks; ++k) {
            // The slot's last upload and sum (chunk k - 3) are done: add() blocks for them.
            const auto slot = k % StreamStaging::count;
            copy_in_parallel(staging_->host(slot), part(k).data, part(k).length * size);
            copy_queue_.enqueueWriteBuffer(staging_->device(slot), CL_FALSE, 0,
                                           part(k).length * size, staging_->host(slot), nullptr,
                                           &uploads[k]);
            copy_queue_.flush();
            if (k > 0)
                add(k - 1);
        }
        add(chunks - 1);
        return sum.rounded();
    });
}

nb::object ExactEngine::reduce_buffer(Handle queue, Handle buffer, std::uint64_t first,
                                      std::uint64_t count, const std::vector<Handle>& wait) {
    const Borrowed<cl::Buffer> input(buffer);
    return blocking(mutex_, queue, wait, [&](const cl::CommandQueue& command_queue) {
        return exact_sum_.reduce(command_queue, *input, first, count);
    });
}

std::vector<unsigned char> ExactEngine::sums_along(const cl::CommandQueue& queue,
                                                   const ValuesView& values, const Shape& shape,
                                                   const std::vector<int>& axes) {
    const auto runs = gather_along_axes(values, shape, axes);
    const auto size = info(ExactAccumulator(values.type).type()).size;
    std::vector<unsigned char> sums(runs.results * size);
    if (sums.empty())
        return sums;
    const cl::Buffer rounded(context_, CL_MEM_WRITE_ONLY, sums.size());
    exact_sum_.enqueue_runs(queue, runs, rounded);
    queue.enqueueReadBuffer(rounded, CL_TRUE, 0, sums.size(), sums.data());
    return sums;
}

nb::object ExactEngine::reduce_host(Handle queue, const HostArray& values, const Shape& shape,
                                    const std::vector<int>& axes) {
    const auto view = view_of(values, exact_sum_.type());
    return blocking(mutex_, queue, {}, [&](const cl::CommandQueue& command_queue) {
        return sums_along(command_queue, view, shape, axes);
    });
}

nb::object ExactEngine::reduce_buffer(Handle queue, Handle buffer, std::uint64_t first,
                                      const Shape& shape, const std::vector<int>& axes,
                                      const std::vector<Handle>& wait) {
    const Borrowed<cl::Buffer> input(buffer);
    return blocking(mutex_, queue, wait, [&](const cl::CommandQueue& command_queue) {
        const auto size = info(exact_sum_.type()).size;
        std::vector<unsigned char> values(shape.values() * size);
        command_queue.enqueueReadBuffer(*input, CL_TRUE, first * size, values.size(),
                                        values.data());
        return sums_along(
            command_queue,
            ValuesView(exact_sum_.type(), values.data(), shape.values(), Origin::given), shape,
            axes);
    });
}

Handle ExactEngine::enqueue(Handle queue, Handle buffer, std::uint64_t first, std::uint64_t count,
                            Handle result, std::uint64_t result_index,
                            const std::vector<Handle>& wait) {
    return enqueued(mutex_, queue, buffer, result, wait,
                    [&](const cl::CommandQueue& command_queue, const cl::Buffer& input,
                        const cl::Buffer& output, const std::vector<cl::Event>& events) {
                        return exact_sum_.enqueue(command_queue, {{input, count, first}}, output,
                                                  result_index, events.empty() ? nullptr : &events);
                    });
}

std::string ExactEngine::accumulator() const {
    return *exact_sum_type(name_of(exact_sum_.type()));
}

} // namespace clreduce::python
