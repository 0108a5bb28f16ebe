#pragma once
// The package's most frequent call in C++: the whole-array reduction of a pyopencl.array.Array
// on its own queue. Each Python line of that call costs more than its bytecode, since it
// evicts the driver from the host's caches (docs/python.md, "Speed"), so the common case reads
// the array's attributes here, and only other input takes the Python path, with its checks
// and their errors.

#include "engine.hpp"

#include <cstdint>
#include <nanobind/nanobind.h>
#include <vector>

namespace clreduce::python {

/// Whole-array reductions of the arrays the Python path has shown it how to reduce: the ones
/// of a type and dtype on one queue, by one Engine.
class ArrayPath {
public:
    /// Arrays of `array_type` and `dtype` on `queue` are reduced by `engine` from now on, their
    /// results `result_type` scalars; the Python path calls it once it has reduced one.
    void learn(nb::handle array_type, nb::handle dtype, nb::handle queue, nb::handle engine,
               nb::handle result_type);
    /// The reduction of `array`, as the Python path returns it; None where the array is none
    /// that was learned, or is unusual (another queue, not C-contiguous, no values, an offset
    /// inside a value): the Python path then reduces it or says what is wrong with it.
    nb::object reduce(nb::handle array) const;

private:
    struct Learned {
        nb::object array_type, dtype, queue, engine, result_type; // kept alive: they are used
        Handle queue_handle;
        Engine* engine_of;
        std::uint64_t itemsize;
    };

    /// What was learned for the type and dtype of `array` (its dtype read only where its
    /// type was learned: NumPy input has one too); none if nothing was.
    const Learned* learned_for(nb::handle array) const;

    std::vector<Learned> learned_; // one a dtype: few
};

} // namespace clreduce::python
