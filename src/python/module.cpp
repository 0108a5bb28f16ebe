// clreduce._clreduce: the engine as the Python package (src/python/clreduce/) calls it. The
// package turns NumPy and PyOpenCL arrays into the calls below; this file only names them and
// turns the engine's failures into clreduce.Error.

#include "array_path.hpp"
#include "clreduce/errors.hpp"
#include "devices.hpp"
#include "engine.hpp"
#include "tool/failure.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using namespace clreduce::python;

namespace {

/// Errc's name, as clreduce.Error.cause gives it.
const char* cause_name(clreduce::Errc cause) {
    switch (cause) {
    case clreduce::Errc::unsupported:
        return "unsupported";
    case clreduce::Errc::kernel_source:
        return "kernel_source";
    case clreduce::Errc::kernel_build:
        return "kernel_build";
    case clreduce::Errc::opencl:
        return "opencl";
    case clreduce::Errc::invalid_argument:
        break;
    }
    return "invalid_argument";
}

void raise_error(PyObject* type, const std::string& message, const char* cause,
                 const std::string& details = {}, cl_int status = CL_SUCCESS) {
    nb::object error = nb::borrow(type)(message);
    error.attr("cause") = cause;
    error.attr("details") = details;
    error.attr("status") = status;
    PyErr_SetObject(type, error.ptr());
}

/// The engine's errors, the OpenCL calls' of this module and the device selection's, as
/// clreduce.Error with the cause, the build log (details) and the OpenCL status.
void translate(const std::exception_ptr& thrown, void* error_type) {
    auto* type = static_cast<PyObject*>(error_type);
    try {
        std::rethrow_exception(thrown);
    } catch (const clreduce::Error& error) {
        raise_error(type, error.what(), cause_name(error.cause()), error.details(), error.status());
    } catch (const cl::Error& error) {
        const clreduce::Error engine_error(error);
        raise_error(type, engine_error.what(), "opencl", {}, engine_error.status());
    } catch (const clreduce::Failure& failure) {
        const bool no_device = failure.code() == clreduce::ExitCode::no_device;
        raise_error(type, failure.what(), no_device ? "no_device" : "invalid_argument");
    }
}

/// An engine of one context, device, type and op (Engine, AxisEngine), built without the GIL,
/// with its accumulator's name; the caller adds its calls.
template <typename Reduces>
nb::class_<Reduces> bind_engine(nb::module_& m, const char* name, const char* doc) {
    return nb::class_<Reduces>(m, name, doc)
        .def(
            "__init__",
            [](Reduces* engine, Handle context, Handle device, const std::string& type,
               const std::string& op, const std::optional<std::string>& accumulate,
               const std::string& reduce, const std::string& identity, const std::string& map) {
                new (engine)
                    Reduces(context, device, type, op, accumulate, {reduce, identity, map});
            },
            "context"_a, "device"_a, "type"_a, "op"_a, "accumulate"_a.none(), "reduce"_a = "",
            "identity"_a = "", "map"_a = "", nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("accumulator", &Reduces::accumulator);
}

} // namespace

NB_MODULE(_clreduce, m) {
    m.doc() = "clreduce's engine for the clreduce package: use the package's functions";

    PyObject* error = PyErr_NewExceptionWithDoc(
        "clreduce.Error",
        "A failure of clreduce's engine or of an OpenCL call. cause: 'unsupported', "
        "'kernel_source', 'kernel_build', 'opencl', 'invalid_argument' or 'no_device'; "
        "details: the compiler's log for 'kernel_build'; status: the OpenCL status for "
        "'opencl'.",
        PyExc_RuntimeError, nullptr);
    m.attr("Error") = nb::steal(error);
    nb::register_exception_translator(translate, error);

    m.def("op_names", &op_names, "The ops the engine reduces by.");
    m.def("accumulator_of", &accumulator_of, "type"_a, "op"_a, "accumulate"_a.none(),
          "The accumulator's type name for `op` on `type` values, `accumulate` requested.");
    m.def("exact_sum_type", &exact_sum_type, "type"_a,
          "The type an exact sum of `type` values is rounded to, or None.");
    m.def("types", &types, "The engine's value types: (name, NumPy's type code) each.");
    m.def("list_devices", &list_devices, "Every device, as `clreduce --list` lists them.");
    m.def("select_device", &select_device, "platform"_a.none(), "device"_a, "type"_a.none(),
          "The device that `clreduce -p platform -d device -t type` takes.");
    m.def("device_of_handle", &device_of_handle, "handle"_a,
          "The device of a cl_device_id (a pyopencl.Device's int_ptr).");

    nb::class_<DeviceQueue>(m, "DeviceQueue",
                            "A context and an in-order queue on one device, for NumPy input.")
        .def(nb::init<Handle>(), "device"_a)
        .def_prop_ro("context", &DeviceQueue::context_handle)
        .def_prop_ro("queue", &DeviceQueue::queue_handle);

    bind_engine<Engine>(m, "Engine", "A reducer for one context, device, type and op.")
        .def("reduce_host", &Engine::reduce_host, "queue"_a, "values"_a)
        .def("reduce_buffer", &Engine::reduce_buffer, "queue"_a, "buffer"_a, "first"_a, "count"_a,
             "wait"_a)
        .def("enqueue", &Engine::enqueue, "queue"_a, "buffer"_a, "first"_a, "count"_a, "result"_a,
             "result_index"_a, "wait"_a);

    nb::class_<ArrayPath>(m, "ArrayPath",
                          "Whole-array reductions of pyopencl.array.Array objects in C++, for "
                          "the arrays the Python path has reduced before (learn()).")
        .def(nb::init<>())
        .def("learn", &ArrayPath::learn, "array_type"_a, "dtype"_a, "queue"_a, "engine"_a,
             "result_type"_a)
        .def("__call__", &ArrayPath::reduce, "array"_a);

    nb::class_<clreduce::Shape>(m, "Shape", "An array's extents, in C or Fortran order.")
        .def(
            "__init__",
            [](clreduce::Shape* shape, const std::vector<std::uint64_t>& extents, bool fortran) {
                new (shape) clreduce::Shape{extents, fortran ? clreduce::Order::fortran
                                                             : clreduce::Order::c};
            },
            "extents"_a, "fortran"_a);

    bind_engine<AxisEngine>(m, "AxisEngine",
                            "Reductions along axes for one context, device, type and op.")
        .def("reduce_host", &AxisEngine::reduce_host, "queue"_a, "values"_a, "shape"_a, "axes"_a)
        .def("reduce_buffer", &AxisEngine::reduce_buffer, "queue"_a, "buffer"_a, "first"_a,
             "shape"_a, "axes"_a, "wait"_a)
        .def("enqueue", &AxisEngine::enqueue, "queue"_a, "buffer"_a, "first"_a, "shape"_a, "axes"_a,
             "result"_a, "result_index"_a, "wait"_a);

    nb::class_<ExactEngine>(m, "ExactEngine",
                            "The exact sum, correctly rounded, for one context, device and type.")
        .def(nb::init<Handle, Handle, const std::string&>(), "context"_a, "device"_a, "type"_a,
             nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("accumulator", &ExactEngine::accumulator)
        .def("reduce_host", nb::overload_cast<Handle, const HostArray&>(&ExactEngine::reduce_host),
             "queue"_a, "values"_a)
        .def("reduce_host",
             nb::overload_cast<Handle, const HostArray&, const clreduce::Shape&,
                               const std::vector<int>&>(&ExactEngine::reduce_host),
             "queue"_a, "values"_a, "shape"_a, "axes"_a)
        .def("reduce_buffer",
             nb::overload_cast<Handle, Handle, std::uint64_t, std::uint64_t,
                               const std::vector<Handle>&>(&ExactEngine::reduce_buffer),
             "queue"_a, "buffer"_a, "first"_a, "count"_a, "wait"_a)
        .def("reduce_buffer",
             nb::overload_cast<Handle, Handle, std::uint64_t, const clreduce::Shape&,
                               const std::vector<int>&, const std::vector<Handle>&>(
                 &ExactEngine::reduce_buffer),
             "queue"_a, "buffer"_a, "first"_a, "shape"_a, "axes"_a, "wait"_a)
        .def("enqueue", &ExactEngine::enqueue, "queue"_a, "buffer"_a, "first"_a, "count"_a,
             "result"_a, "result_index"_a, "wait"_a);
}
