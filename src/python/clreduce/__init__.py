"""clreduce: reductions of NumPy and PyOpenCL arrays on any OpenCL device.

The functions take NumPy's names and arguments (axis= and keepdims= too); those the engine
cannot answer yet raise NotImplementedError rather than answer on the host. See docs/python.md.
"""

import builtins
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from . import _clreduce
from ._clreduce import Error
from ._devices import Device, devices
from ._reducer import DTYPES, OPS, Reducer, engine_dtype, is_pyopencl_array

try:
    __version__ = version("clreduce")
except PackageNotFoundError:  # imported from the source tree
    __version__ = "unknown"

__all__ = [
    "DTYPES", "OPS", "Device", "Error", "Reducer", "devices", "sum", "prod", "min", "max",
    "nanmin", "nanmax", "argmin", "argmax", "any", "all", "reduce",
]

_reducers = {}
#: By op, the C++ path of calls with every argument but `a` left out: the op's plain Reducers
#: teach it the PyOpenCL arrays they reduce (Reducer._teach_array_paths()).
_array_paths = {op: _clreduce.ArrayPath() for op in OPS}


def _reducer(dtype, op, accumulate, device, options):
    """The functions' Reducer for a dtype, op, dtype=, device= and the Reducer's options (map,
    exact, a custom op's text), kept for the next call: one lookup, which each call pays. Each
    function passes its options in one order, so their values name them."""
    device_key = ("pyopencl", device.int_ptr) if hasattr(device, "int_ptr") else device
    key = (dtype, op, accumulate, device_key, *options.values())
    reducer = _reducers.get(key)
    if reducer is None:
        reducer = _reducers[key] = Reducer(engine_dtype(dtype), op, device, accumulate, **options)
        if _plain(accumulate, device, options):
            reducer._array_paths.append(_array_paths[op])
    return reducer


def _plain(accumulate, device, options):
    """Whether a function's call leaves out dtype=, device= and the Reducer's options (map=,
    exact=; a custom op always has its text). builtins.any: this module's any is a reduction."""
    return accumulate is None and device is None and not builtins.any(options.values())


def _reduce(op, a, axis=None, dtype=None, out=None, keepdims=False, device=None, queue=None,
            **options):
    if axis is None and out is None and not keepdims and queue is None and _plain(
            dtype, device, options):
        result = _array_paths[op](a)  # None: not a PyOpenCL array reduced so before
        if result is not None:
            return result
    pyopencl_input = is_pyopencl_array(a)
    if not pyopencl_input:
        a = np.asarray(a)
    elif device is not None:
        raise ValueError("device= is for NumPy input: a PyOpenCL array is reduced on its queue")
    accumulate = None if dtype is None else np.dtype(dtype)
    reducer = _reducer(a.dtype, op, accumulate, device, options)
    if pyopencl_input and axis is None and out is None and not keepdims:
        return reducer._reduce_pyopencl(a, queue)  # the most frequent call, the shortest path
    return reducer(a, out=out, queue=queue, axis=axis, keepdims=keepdims)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, *, exact=False, map=None,
        device=None, queue=None):
    """The sum of `a`'s values, as np.sum: of NumPy's dtype (int64 for int32 values), integers
    wrapping around; `dtype` the accumulator (int32, uint32, int64, uint64, float32, float64).

    `a`: a NumPy array (or anything np.asarray takes), copied to `device`; or a
    pyopencl.array.Array, reduced on `queue` (default: its own) where it is. `axis`: None (the
    whole array: a NumPy scalar), an int or a tuple of axes (apart in memory too; a NumPy
    array of the remaining axes; `keepdims`: with the reduced ones of length 1). `out`: a
    pyopencl.array.Array whose first value receives the sum (with axis: of the result's
    shape), enqueued, for PyOpenCL input; then `out` is returned. `device`: None (the device
    `clreduce` takes without -p, -d, -t), a clreduce.Device, a pyopencl.Device or a triplet
    (platform, device[, type]).

    `exact`: float32 and float64 values (float16 too, rounded to float32 as the engine
    rounds it): the exact sum rounded once, as math.fsum's rounded, the same bits on every
    device; with out=, rounded on the device (not along axes). `map`: OpenCL C over x, each
    value (and i, its index), summed instead of the value: "x*x" for the sum of squares,
    "fabs(x)" for the L1 norm.
    """
    return _reduce("sum", a, axis, dtype, out, keepdims, device, queue, exact=exact, map=map)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, *, map=None, device=None,
         queue=None):
    """The product of `a`'s values, as np.prod; arguments as for sum."""
    return _reduce("prod", a, axis, dtype, out, keepdims, device, queue, map=map)


def min(a, axis=None, out=None, keepdims=False, *, map=None, device=None, queue=None):
    """The least of `a`'s values, as np.min (a NaN gives NaN); arguments as for sum."""
    return _reduce("min", a, axis, None, out, keepdims, device, queue, map=map)


def max(a, axis=None, out=None, keepdims=False, *, map=None, device=None, queue=None):
    """The largest of `a`'s values, as np.max (a NaN gives NaN); arguments as for sum."""
    return _reduce("max", a, axis, None, out, keepdims, device, queue, map=map)


def nanmin(a, axis=None, out=None, keepdims=False, *, map=None, device=None, queue=None):
    """The least of `a`'s values but NaN, as np.nanmin; arguments as for sum."""
    return _reduce("nanmin", a, axis, None, out, keepdims, device, queue, map=map)


def nanmax(a, axis=None, out=None, keepdims=False, *, map=None, device=None, queue=None):
    """The largest of `a`'s values but NaN, as np.nanmax; arguments as for sum."""
    return _reduce("nanmax", a, axis, None, out, keepdims, device, queue, map=map)


def argmin(a, axis=None, out=None, *, keepdims=False, map=None, device=None, queue=None):
    """The index of the first least of `a`'s values, as np.argmin (the first NaN's where there
    is one): an int64; arguments as for sum, but `out`: an int64 pyopencl.array.Array that
    receives the index (along an axis: the indices), as np.argmin's out=."""
    return _reduce("argmin", a, axis, None, out, keepdims, device, queue, map=map)


def argmax(a, axis=None, out=None, *, keepdims=False, map=None, device=None, queue=None):
    """The index of the first largest of `a`'s values, as np.argmax; arguments as for argmin."""
    return _reduce("argmax", a, axis, None, out, keepdims, device, queue, map=map)


def any(a, axis=None, out=None, keepdims=False, *, device=None, queue=None):
    """Whether any of `a`'s values is not zero, as np.any (a np.bool_); arguments as for sum."""
    return _reduce("any", a, axis, None, out, keepdims, device, queue)


def all(a, axis=None, out=None, keepdims=False, *, device=None, queue=None):
    """Whether all of `a`'s values are not zero, as np.all (a np.bool_); arguments as for sum."""
    return _reduce("all", a, axis, None, out, keepdims, device, queue)


def reduce(a, reduce="a+b", identity="0", map=None, dtype=None, out=None, *, axis=None,
           keepdims=False, device=None, queue=None):
    """An op of your own, as pyopencl.reduction.ReductionKernel(ctx, dtype, neutral=identity,
    reduce_expr=reduce, map_expr=map): `reduce` is OpenCL C over a and b of the accumulator's
    type (accum_t), `identity` its neutral value, `map` OpenCL C over x (a value) and i (its
    ulong index) that each value becomes first. `dtype`: the accumulator and the result's
    dtype (int32, uint32, int64, uint64, float32, float64); default NumPy's for a sum (int64
    for int32 values). A text that does not build raises clreduce.Error, cause
    "kernel_build", the compiler's log in its details. Other arguments as for sum."""
    return _reduce(
        "custom", a, axis, dtype, out, keepdims, device, queue, reduce=reduce,
        identity=identity, map=map,
    )
