#include "clreduce/input.hpp"

#include "clreduce/errors.hpp"
#include "detail/capabilities.hpp"

#include <algorithm>

namespace clreduce {

std::uint64_t buffer_values(const DeviceReport& report, DataType type, std::uint64_t limit) {
    const std::uint64_t largest = report.largest_buffer / info(type).size;
    if (limit > largest)
        throw Error(Errc::unsupported,
                    "the buffer limit " + std::to_string(limit) + " is more than device '" +
                        report.name + "' allocates in one buffer: " + std::to_string(largest) +
                        " values of " + name_of(type) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    return limit == 0 ? largest : limit;
}

DeviceInput::DeviceInput(const cl::Context& context, const cl::CommandQueue& queue,
                         const ValuesView& values, std::uint64_t per_buffer,
                         std::uint64_t start) try {
    const auto size = info(values.type).size;
    const auto length = values.length;
    const auto* bytes = static_cast<const unsigned char*>(values.data);
    for (std::uint64_t first = 0; first < length; first += per_buffer) {
        const auto count = std::min(per_buffer, length - first);
        cl::Buffer buffer(context, CL_MEM_READ_ONLY, count * size);
        queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, count * size, bytes + first * size);
        pieces_.push_back({buffer, count, 0, start + first});
    }
} catch (const cl::Error& error) {
    throw Error(error);
}

} // namespace clreduce
