"""clreduce.Reducer: one dtype, one op, reduced again and again on NumPy and PyOpenCL arrays."""

import functools
import sys
import threading

import numpy as np

from . import _clreduce
from ._axes import (
    ONE_AXIS_OPS, engine_axes, kept_dims, kept_shape, memory_order, reduced_axes, result_shape,
)
from ._devices import device_queue, resolve_device

#: The ops the engine reduces by: any of them is a Reducer's op.
OPS = tuple(_clreduce.op_names())
#: The engine's name of each dtype it reduces: its value types.
_ENGINE_TYPES = {np.dtype(code): name for name, code in _clreduce.types()}
_NUMPY_CODES = dict(_clreduce.types())
#: The dtypes the engine reduces.
DTYPES = tuple(_ENGINE_TYPES)
#: The dtypes a sum or product accumulates in where dtype= names one.
ACCUMULATORS = tuple(
    np.dtype(name) for name in ("int32", "uint32", "int64", "uint64", "float32", "float64")
)


def engine_dtype(dtype):
    """`dtype` as a NumPy dtype the engine reduces; TypeError for any other."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"clreduce reduces no values of type {dtype!r}") from error
    if dtype not in _ENGINE_TYPES:
        raise TypeError(
            f"clreduce reduces {', '.join(d.name for d in DTYPES)} (native byte order); "
            f"not {dtype}"
        )
    return dtype


def engine_op(op):
    """`op` if the engine reduces by it (or "custom", a user's); NotImplementedError naming
    what it has otherwise."""
    if op not in OPS and op != "custom":
        raise NotImplementedError(
            f"clreduce's engine has no '{op}' reduction in this version; it has "
            f"{', '.join(OPS)}"
        )
    return op


@functools.lru_cache(maxsize=None)
def numpy_result_dtype(dtype, op, accumulate=None):
    """The dtype of NumPy's answer for `op` on `dtype` values (sum and prod: with dtype=
    `accumulate`): int64 for a sum of int32, float16 for a sum of float16, bool for any. A
    custom op's: its accumulator, the engine's (`accumulate`, else NumPy's for a sum)."""
    if op == "custom":
        return _numpy_dtype(
            _clreduce.accumulator_of(_ENGINE_TYPES[dtype], op, _engine_type(accumulate))
        )
    options = {} if accumulate is None else {"dtype": accumulate}
    return np.dtype(getattr(np, op)(np.ones(1, dtype), **options).dtype)


def _engine_type(dtype):
    """The engine's name of a dtype, or None for None."""
    return None if dtype is None else _ENGINE_TYPES[dtype]


def _numpy_dtype(engine_type):
    return np.dtype(_NUMPY_CODES[engine_type])


def engine_accumulator(dtype, op, accumulate):
    """The accumulator the engine is asked for, for NumPy's result with dtype= `accumulate`:
    that result's dtype (the engine's own defaults for int32 and uint32 are themselves), or
    None for the engine's default where NumPy's result is none of ACCUMULATORS (float16's
    float32; min, max, any and all); NotImplementedError where dtype= names no accumulator."""
    if op not in ("sum", "prod", "custom"):
        if accumulate is not None:
            raise TypeError(f"dtype= is for sum, prod and reduce, not {op}")
        return None
    if op == "custom":
        return None if accumulate is None else _accumulator(accumulate)
    result = numpy_result_dtype(dtype, op, accumulate)
    if result in ACCUMULATORS:
        return result
    if accumulate is None or result == numpy_result_dtype(dtype, op):
        return None
    return _accumulator(result)


def _accumulator(dtype):
    """`dtype` if the engine accumulates in it; NotImplementedError otherwise."""
    dtype = np.dtype(dtype)
    if dtype in ACCUMULATORS:
        return dtype
    raise NotImplementedError(
        f"dtype={dtype}: clreduce accumulates in {', '.join(d.name for d in ACCUMULATORS)}"
    )


def is_pyopencl_array(a):
    """Whether `a` is a pyopencl.array.Array (without importing PyOpenCL for NumPy input)."""
    pyopencl_array = sys.modules.get("pyopencl.array")
    return pyopencl_array is not None and isinstance(a, pyopencl_array.Array)


def _first_value(array):
    """The index in its buffer of a PyOpenCL array's first value."""
    if array.offset % array.dtype.itemsize:
        raise ValueError(
            f"the array starts {array.offset} bytes into its buffer, not at a whole "
            f"{array.dtype} value"
        )
    return array.offset // array.dtype.itemsize


def _drop_done_events(array, waited):
    """Drops the events `waited` (the first of the array's) from a PyOpenCL array's events
    once a blocking reduction after them has returned: they are complete, and PyOpenCL drops
    complete events itself (Array.finish(), add_event()). The next call then asks the driver
    about none of them, and issues the OpenCL calls of the C++ API's blocking reduce()."""
    del array.events[:len(waited)]


def _require_contiguous(array, what):
    if not array.flags.forc:
        raise ValueError(f"{what} is not contiguous: reduce a contiguous copy of it")


class Reducer:
    """Reduces arrays of one dtype by one op, as often as asked, without building again.

    NumPy arrays (anything np.asarray takes) are copied to `device` in chunks (or read where
    they are, on a CPU device) and reduced there. pyopencl.array.Array objects are reduced where
    they are, on their own queue's context and device, after their events. The engine keeps
    the compiled programs of every context for the process, so a Reducer for something already
    built costs no compile. A Reducer may be shared by threads; each call has it to itself.

    `axis` (a call's): NumPy's, an int or a tuple of axes (apart in memory too); the reduction
    along them is the engine's SegmentedReducer, built on the first such call and kept, as the
    whole-array engine is; NumPy arrays are streamed to it in chunks as whole arrays are.

    The result's dtype is `result_dtype`, NumPy's: int64 for a sum of int32, uint64 for one of
    uint32, the values' own for min and max, bool for any and all. `accumulate` (sum, prod and
    a custom op) is NumPy's dtype=: int32, uint32, int64, uint64, float32 or float64.

    `map`: OpenCL C over x (a value) and i (its ulong index) that each value becomes before it
    is reduced, as pyopencl.reduction.ReductionKernel's map_expr ("x*x", "fabs(x)"); not for
    any and all. `op` "custom" with `reduce` (OpenCL C over a and b, the accumulator's type
    accum_t) and `identity` is an op of your own, as ReductionKernel's reduce_expr and neutral.
    `exact` (a sum of float32 or float64; float16 as the engine has it): the sum rounded once,
    the same bits on every device; float16's is rounded to float32, as the engine rounds it.
    Along axes, each result's sum so, its values gathered on the host (not with out=).
    """

    def __init__(self, dtype, op="sum", device=None, accumulate=None, *, map=None,
                 reduce=None, identity=None, exact=False):
        self.dtype = engine_dtype(dtype)
        self.op = engine_op(op)
        self.accumulate = engine_accumulator(self.dtype, self.op, accumulate)
        self.result_dtype = numpy_result_dtype(self.dtype, self.op, self.accumulate)
        self.exact = exact
        in_own_dtype = accumulate is None or np.dtype(accumulate) == self.dtype
        if exact and (self.op != "sum" or map or not in_own_dtype):
            raise ValueError("exact=True is a sum of the values in their own dtype, unmapped")
        if exact:
            # Rounded once to the engine's type for it: float32 for float16, not NumPy's
            # float16, which would round a second time. Where the engine has no exact sum,
            # its error comes with the first call.
            rounded_to = _clreduce.exact_sum_type(_ENGINE_TYPES[self.dtype])
            if rounded_to is not None:
                self.result_dtype = _numpy_dtype(rounded_to)
        self._expressions = (reduce or "", identity or "", map or "")
        self._device_argument = device
        self._device = None  # resolved on the first NumPy input: PyOpenCL input has its own
        # (context, device handles, along axes) -> _clreduce.Engine, ExactEngine or AxisEngine
        self._engines = {}
        # By along axes: the last PyOpenCL queue and its engine, to need no lookup again.
        self._last = [(None, None), (None, None)]
        self._lock = threading.Lock()
        # The C++ paths of the most frequent call (a whole PyOpenCL array on its own queue),
        # which _reduce_pyopencl() teaches: the Reducer's own, and the package functions' for
        # their plain Reducers (clreduce._reducer()). The exact sum has none.
        self._array_paths = [] if exact else [_clreduce.ArrayPath()]

    def __repr__(self):
        return f"clreduce.Reducer({self.dtype.name!r}, {self.op!r})"

    @property
    def device(self):
        """The Device where NumPy input is reduced."""
        if self._device is None:
            self._device = resolve_device(self._device_argument)
        return self._device

    def __call__(self, a, out=None, queue=None, *, axis=None, keepdims=False):
        """The reduction of `a`'s values along `axis` (NumPy's: None, an int or a tuple of
        axes): a NumPy scalar of `result_dtype` for the whole array, else a NumPy
        array of the remaining axes (`keepdims`: with the reduced ones of length 1).

        With a pyopencl.array.Array `a`, `queue` (default: `a.queue`) runs it, and with `out`
        (a pyopencl.array.Array of the engine's accumulator, of the result's shape) nothing
        blocks: the result is enqueued into out, out waits for it (its events), and out is
        returned.
        """
        if queue is None and axis is None and out is None and not keepdims and self._array_paths:
            result = self._array_paths[0](a)  # None: not a PyOpenCL array it has reduced before
            if result is not None:
                return result
        pyopencl_input = is_pyopencl_array(a)
        if pyopencl_input and axis is None and out is None and not keepdims:
            return self._reduce_pyopencl(a, queue)  # the most frequent call, the shortest path
        if not pyopencl_input:
            if out is not None or queue is not None:
                raise TypeError("out= and queue= take PyOpenCL arrays and queues: a is not one")
            a = np.asarray(a)
        axes = reduced_axes(axis, a.ndim, self.op)
        if out is not None:
            self._check_out_shape(a, axes, out, keepdims)
            out.add_event(self.enqueue(a, out, queue=queue, axis=axis))
            return out
        if axes is not None:
            return self._reduce_along(a, axes, queue, keepdims)
        result = self._reduce_pyopencl(a, queue) if pyopencl_input else self._reduce_numpy(a)
        return kept_dims(result, a.ndim, None) if keepdims else result

    def enqueue(self, a, out, out_index=0, wait_for=(), queue=None, *, axis=None):
        """Enqueues the reduction of the pyopencl.array.Array `a` into value `out_index` of the
        pyopencl.array.Array `out`, after a's, out's and `wait_for`'s events, on `queue`
        (default: `a.queue`), and returns the pyopencl.Event of its last command. `out` has
        the engine's accumulator dtype, which is result_dtype but for sums
        of float16 (float32) and bool (uint64) and any and all (uint32); for argmin and argmax
        it is int64 and receives the indices, as np.argmax's out=. An exact sum is
        rounded on the device, into out of result_dtype. With `axis` (as for a call), the
        results fill out's values from `out_index` on, in a's order (C or Fortran)."""
        import pyopencl

        queue = self._check_pyopencl_input(a, queue)
        axes = reduced_axes(axis, a.ndim, self.op)
        if axes is not None and self.exact:
            raise NotImplementedError(
                "exact=True along an axis gathers each result's values on the host, so it "
                "blocks: reduce without out="
            )
        engine = self._engine_for(queue, along_axes=axes is not None)
        # argmin's and argmax's indices are NumPy's int64, not the accumulator.
        result = np.dtype(np.int64) if self.op in ONE_AXIS_OPS else _numpy_dtype(engine.accumulator)
        if not is_pyopencl_array(out) or out.dtype != result:
            raise TypeError(f"out= takes a pyopencl.array.Array of {result}")
        _require_contiguous(out, "out")
        results = 1 if axes is None else int(np.prod(kept_shape(a.shape, axes)))
        if out_index < 0 or out_index + results > out.size:
            raise ValueError(f"out has {out.size} values: not {results} from index {out_index}")
        if a.size == 0:
            raise ValueError("an empty array has nothing to enqueue: reduce it without out=")
        wait = [event.int_ptr for event in (*a.events, *out.events, *wait_for)]
        values = (queue.int_ptr, a.base_data.int_ptr, _first_value(a))
        extent = (a.size,) if axes is None else engine_axes(a, axes)  # length, or shape and axes
        handle = engine.enqueue(
            *values, *extent, out.base_data.int_ptr, _first_value(out) + out_index, wait
        )
        return pyopencl.Event.from_int_ptr(handle, retain=False)

    def _reduce_numpy(self, a):
        self._check_dtype(a)
        if a.size == 0:
            return self._empty_result()
        # Any contiguous layout as it is; anything else copied into one.
        values = np.ascontiguousarray(a.ravel(order="K"))
        device = self.device
        queue = device_queue(device)
        engine = self._engine(queue.context, device.handle)
        return self.result_dtype.type(engine.reduce_host(queue.queue, values))

    def _reduce_pyopencl(self, a, queue):
        """The whole array's reduction. The Python it runs is a measured part of each call's
        time (docs/python.md, "Speed"), so an array that passes every check takes one test
        and the engine of the last queue, and only other input goes through the checks that
        say what is wrong with it."""
        if queue is None:
            queue = a.queue
        itemsize = a.dtype.itemsize
        if (queue is None or a.dtype != self.dtype or not a.flags.forc or not a.size
                or a.offset % itemsize):
            return self._reduce_unusual_pyopencl(a, queue)
        last_queue, engine = self._last[False]
        if queue is not last_queue:
            engine = self._engine_for(queue)
        events = a.events
        wait = [event.int_ptr for event in events] if events else []
        value = engine.reduce_buffer(
            queue.int_ptr, a.base_data.int_ptr, a.offset // itemsize, a.size, wait
        )
        if wait:
            _drop_done_events(a, wait)
        self._teach_array_paths(a, queue, engine)
        return self.result_dtype.type(value)

    def _teach_array_paths(self, a, queue, engine):
        """Shows the C++ paths how to reduce arrays like `a`, which passed every check, when
        they are on their own queue: with `engine`, into result_dtype."""
        if queue is a.queue:
            for path in self._array_paths:
                path.learn(type(a), a.dtype, queue, engine, self.result_dtype.type)

    def _reduce_unusual_pyopencl(self, a, queue):
        """_reduce_pyopencl() of an array that fails one of its checks: the check's error, or
        the result for no values."""
        self._check_pyopencl_input(a, queue)
        if a.size:
            _first_value(a)  # the only check left that it can fail: it raises
        return self._empty_result()

    def _reduce_along(self, a, axes, queue, keepdims):
        """The reduction along `axes` (not every axis): a NumPy array of the remaining axes."""
        if is_pyopencl_array(a):
            queue = self._check_pyopencl_input(a, queue)
        else:
            self._check_dtype(a)
            a = a if a.flags.forc else np.ascontiguousarray(a)
        if a.size == 0:
            return self._empty_result(a.shape, axes, keepdims)
        engine, data = self._reduce_along_on_device(a, axes, queue)
        # The engine's accumulators, or the arg ops' int64 indices, in the input's order.
        read = np.int64 if self.op in ONE_AXIS_OPS else _numpy_dtype(engine.accumulator)
        results = np.frombuffer(data, read).astype(self.result_dtype)
        results = results.reshape(kept_shape(a.shape, axes), order=memory_order(a))
        return kept_dims(results, a.ndim, axes) if keepdims else results

    def _reduce_along_on_device(self, a, axes, queue):
        """The engine that reduces the contiguous array `a` along `axes`, and its results'
        bytes: on `queue` for a PyOpenCL array, else copied to the Reducer's device."""
        if is_pyopencl_array(a):
            engine = self._engine_for(queue, along_axes=True)
            wait = [event.int_ptr for event in a.events]
            data = engine.reduce_buffer(
                queue.int_ptr, a.base_data.int_ptr, _first_value(a), *engine_axes(a, axes), wait
            )
            _drop_done_events(a, wait)
            return engine, data
        device = self.device
        on_device = device_queue(device)
        engine = self._engine(on_device.context, device.handle, along_axes=True)
        values = a.reshape(-1, order=memory_order(a))
        return engine, engine.reduce_host(on_device.queue, values, *engine_axes(a, axes))


    def _check_dtype(self, a):
        if a.dtype != self.dtype:
            raise TypeError(f"{self!r} reduces {self.dtype} values, not {a.dtype}")

    def _check_out_shape(self, a, axes, out, keepdims):
        """out= of a reduction along axes has the results' shape and lies in a's order (out=
        of a whole-array reduction receives the result in its first value)."""
        if axes is None:
            return
        shape = result_shape(a.shape, axes, keepdims)
        if out.shape != shape:
            raise ValueError(f"out has the shape {out.shape}, not the result's {shape}")
        in_order = out.flags.f_contiguous if memory_order(a) == "F" else out.flags.c_contiguous
        if not in_order:
            raise ValueError("out does not lie in the array's order (C or Fortran)")

    def _check_pyopencl_input(self, a, queue):
        """The queue `a` is reduced on, once `a` is shown to be one this reducer takes."""
        self._check_dtype(a)
        _require_contiguous(a, "the array")
        queue = queue if queue is not None else a.queue
        if queue is None:
            raise ValueError("the array has no queue: pass queue=")
        return queue

    def _empty_result(self, shape=(0,), axes=None, keepdims=False):
        """NumPy's answer for no values (of `shape`, along `axes`): the op's identity, or
        NumPy's ValueError where the op has none (min, max; a custom op)."""
        if self.op == "custom":
            raise ValueError("zero-size array to a custom reduction: it has no NumPy identity")
        if axes is None:
            return self.result_dtype.type(getattr(np, self.op)(np.empty(0, self.dtype)))
        axis = axes[0] if self.op in ONE_AXIS_OPS else axes
        answer = getattr(np, self.op)(np.empty(shape, self.dtype), axis=axis, keepdims=keepdims)
        return answer.astype(self.result_dtype)

    def _engine_for(self, queue, along_axes=False):
        """The engine for a PyOpenCL queue's context and device (`along_axes`: the one that
        reduces along axes). The last queue's is kept with the queue (so that its handle names
        no other queue), since repeated calls mostly come from one."""
        last_queue, engine = self._last[along_axes]
        if queue is not last_queue:
            engine = self._engine(queue.context.int_ptr, queue.device.int_ptr, along_axes)
            self._last[along_axes] = (queue, engine)
        return engine

    def _engine(self, context, device, along_axes=False):
        """The engine's reducer for a context and device (`along_axes`: its SegmentedReducer),
        built on first use. It keeps the context alive, so its handle names no other context
        while it is kept."""
        with self._lock:
            key = (context, device, along_axes)
            if key not in self._engines:
                self._engines[key] = self._new_engine(context, device, along_axes)
            return self._engines[key]

    def _new_engine(self, context, device, along_axes):
        if self.exact:  # whole arrays and along axes alike
            return _clreduce.ExactEngine(context, device, _ENGINE_TYPES[self.dtype])
        kind = _clreduce.AxisEngine if along_axes else _clreduce.Engine
        return kind(
            context, device, _ENGINE_TYPES[self.dtype], self.op,
            _engine_type(self.accumulate), *self._expressions,
        )
