#pragma once
// The devices the Python package offers: what `clreduce --list` lists, and device= chosen as
// the tool's -p, -d and -t choose. Each device is described by a dict (see describe()).

#include <cstddef>
#include <cstdint>
#include <nanobind/nanobind.h>
#include <optional>
#include <string>

namespace clreduce::python {

namespace nb = nanobind;

/// Every device of every platform, in --list's order.
nb::list list_devices();

/// The device that `-p platform -d device -t type` selects; all unset: the tool's default.
nb::dict select_device(std::optional<std::size_t> platform, std::size_t device,
                       std::optional<std::string> type);

/// The device of a handle (a pyopencl.Device's int_ptr).
nb::dict device_of_handle(std::uintptr_t handle);

} // namespace clreduce::python
