"""axis= and keepdims= as NumPy takes them, turned into what the engine's reductions along axes
read: the axes reduced, the array's extents and order, the results' shape."""

import operator

import numpy as np

from . import _clreduce

try:
    from numpy.lib.array_utils import normalize_axis_tuple  # NumPy 2
except ImportError:  # NumPy 1
    from numpy.core.numeric import normalize_axis_tuple

#: NumPy's argmin and argmax take one axis, not a tuple.
ONE_AXIS_OPS = ("argmin", "argmax")


def reduced_axes(axis, ndim, op):
    """The axes `axis` names, sorted and counted from 0, or None where that is the whole array
    (axis=None, or every axis). NumPy's errors: AxisError for an axis past the array's, a
    ValueError for one given twice, a TypeError for a tuple to argmin and argmax."""
    if axis is None:
        return None
    if op in ONE_AXIS_OPS:
        axis = operator.index(axis)
    axes = tuple(sorted(normalize_axis_tuple(axis, ndim)))
    return None if len(axes) == ndim else axes


def kept_shape(shape, axes):
    """The results' shape: `shape` without the reduced axes."""
    return tuple(extent for i, extent in enumerate(shape) if i not in axes)


def result_shape(shape, axes, keepdims):
    """The results' shape: `shape` without the reduced axes, or with them of length 1."""
    if keepdims:
        return tuple(1 if i in axes else extent for i, extent in enumerate(shape))
    return kept_shape(shape, axes)


def engine_axes(a, axes):
    """The engine's Shape of the contiguous array `a` and the axes it reduces: `axes`, but
    axis=() (NumPy's reduction of each value on its own) as a reduction along a last axis of
    length 1, which changes nothing in memory, in C or Fortran order alike."""
    extents, axes = ((*a.shape, 1), [a.ndim]) if not axes else (a.shape, list(axes))
    return _clreduce.Shape(extents, memory_order(a) == "F"), axes


def memory_order(a):
    """"C" or "F": the order in which a contiguous array's values lie (C for a 1-D array, which
    is both)."""
    return "C" if a.flags.c_contiguous else "F"


def kept_dims(result, ndim, axes):
    """NumPy's keepdims=True: the reduced axes back, of length 1; axes None: all of them."""
    return np.reshape(result, (1,) * ndim) if axes is None else np.expand_dims(result, axes)
