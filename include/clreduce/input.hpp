#pragma once
// An input on the device: in one buffer, or past CL_DEVICE_MAX_MEM_ALLOC_SIZE in several,
// which the reducer treats as one input (Reducer::reduce of pieces).

#include "clreduce/reducer.hpp"
#include "clreduce/types.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace clreduce {

/// The most values of `type` one buffer may hold on the device: its
/// CL_DEVICE_MAX_MEM_ALLOC_SIZE, or `limit` (--max-buffer; 0: none). Throws
/// Error(Errc::unsupported) for a limit past what the device allocates.
std::uint64_t buffer_values(const DeviceReport& report, DataType type, std::uint64_t limit);

/// The first `length` values of an input held in `parts` (each with a `length`): the parts
/// that hold them, the last one cut short.
template <typename Part>
std::vector<Part> first_values(const std::vector<Part>& parts, std::uint64_t length) {
    std::vector<Part> prefix;
    for (auto part : parts) {
        if (length == 0)
            break;
        part.length = std::min(part.length, length);
        length -= part.length;
        prefix.push_back(part);
    }
    return prefix;
}

/// Host values uploaded in buffers of `context` of at most `per_buffer` values each, on
/// `queue`, before the constructor returns. `start` is the values' place in the whole input
/// they are a share of (on several devices, MPI ranks): the pieces count argmin's and
/// argmax's indices and a map's index from there (Piece::start).
class DeviceInput {
public:
    DeviceInput(const cl::Context& context, const cl::CommandQueue& queue, const ValuesView& values,
                std::uint64_t per_buffer, std::uint64_t start = 0);

    /// The pieces that hold the first `length` values.
    std::vector<Piece> prefix(std::uint64_t length) const { return first_values(pieces_, length); }
    std::size_t buffers() const { return pieces_.size(); }

private:
    std::vector<Piece> pieces_;
};

} // namespace clreduce
