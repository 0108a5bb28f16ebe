#include "array_path.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace clreduce::python {
namespace {

/// Whether an array of `itemsize` values lies in C order without gaps: its strides are
/// PyOpenCL's own for its shape (c_contiguous_strides()), so that its flags.forc holds too.
bool c_contiguous(nb::handle array, std::uint64_t itemsize) {
    const nb::tuple shape = nb::borrow<nb::tuple>(array.attr("shape"));
    const nb::tuple strides = nb::borrow<nb::tuple>(array.attr("strides"));
    if (shape.size() != strides.size())
        return false;
    std::uint64_t stride = itemsize;
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        if (nb::cast<std::uint64_t>(strides[axis]) != stride)
            return false;
        stride *= std::max<std::uint64_t>(1, nb::cast<std::uint64_t>(shape[axis]));
    }
    return true;
}

/// The handles of the array's events, for the engine to wait for.
std::vector<Handle> event_handles(nb::handle events) {
    std::vector<Handle> handles;
    for (nb::handle event : events)
        handles.push_back(nb::cast<Handle>(event.attr("int_ptr")));
    return handles;
}

} // namespace

void ArrayPath::learn(nb::handle array_type, nb::handle dtype, nb::handle queue, nb::handle engine,
                      nb::handle result_type) {
    Learned learned{nb::borrow(array_type),
                    nb::borrow(dtype),
                    nb::borrow(queue),
                    nb::borrow(engine),
                    nb::borrow(result_type),
                    nb::cast<Handle>(queue.attr("int_ptr")),
                    nb::cast<Engine*>(engine), // a TypeError now, not at a reduction
                    nb::cast<std::uint64_t>(dtype.attr("itemsize"))};
    for (Learned& known : learned_)
        if (known.array_type.is(array_type) && known.dtype.is(dtype)) {
            known = std::move(learned); // the last queue's, as Reducer._engine_for() keeps
            return;
        }
    learned_.push_back(std::move(learned));
}

const ArrayPath::Learned* ArrayPath::learned_for(nb::handle array) const {
    const nb::handle array_type = array.type();
    const auto same_type = [&](const Learned& learned) {
        return learned.array_type.is(array_type);
    };
    if (std::none_of(learned_.begin(), learned_.end(), same_type))
        return nullptr;
    const nb::object dtype = array.attr("dtype");
    for (const Learned& learned : learned_)
        if (same_type(learned) && learned.dtype.is(dtype))
            return &learned;
    return nullptr;
}

nb::object ArrayPath::reduce(nb::handle array) const {
    const Learned* found = learned_for(array);
    if (found == nullptr)
        return nb::none();
    // A copy: another thread may learn while this one waits for the device.
    const Learned learned = *found;
    if (!array.attr("queue").is(learned.queue) || !c_contiguous(array, learned.itemsize))
        return nb::none();
    const auto size = nb::cast<std::uint64_t>(array.attr("size"));
    const auto offset = nb::cast<std::uint64_t>(array.attr("offset"));
    if (size == 0 || offset % learned.itemsize != 0)
        return nb::none();
    const nb::object events = array.attr("events");
    const std::vector<Handle> wait = event_handles(events);
    const nb::object value = learned.engine_of->reduce_buffer(
        learned.queue_handle, nb::cast<Handle>(array.attr("base_data").attr("int_ptr")),
        offset / learned.itemsize, size, wait);
    // The events waited for are complete: dropped as the Python path drops them
    // (_drop_done_events()), so that the next call asks the driver about none of them.
    if (!wait.empty() && PySequence_DelSlice(events.ptr(), 0, Py_ssize_t(wait.size())) != 0)
        throw nb::python_error();
    return learned.result_type(value);
}

} // namespace clreduce::python
