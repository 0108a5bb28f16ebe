"""axis= and keepdims=: reductions along axes of NumPy and PyOpenCL arrays of any rank, in C or
Fortran order, against NumPy's answer (the engine's SegmentedReducer)."""

import numpy as np
import pytest

import clreduce
from conftest import random_values

DTYPES = [np.dtype(name) for name in
          ("int8", "int32", "int64", "uint16", "float16", "float32", "float64", "bool")]
ARG_OPS = ("argmin", "argmax")
# (shape, axis, order): a matrix along each axis, a 3-D array's middle axis and two adjacent
# axes, Fortran order, one row and one column, a strided view (copied first), axes apart.
CASES = [
    ((7, 13), 0, "C"), ((7, 13), 1, "C"), ((7, 13), -1, "C"), ((3, 5, 4), 1, "C"),
    ((3, 5, 4), (0, 1), "C"), ((3, 5, 4), (1, 2), "C"), ((6, 5), 0, "F"), ((3, 5, 4), 1, "F"),
    ((3, 5, 4), (1, 2), "F"), ((1, 9), 0, "C"), ((1, 9), 1, "C"), ((9, 1), 0, "C"),
    ((9, 1), 1, "C"), ((6, 10), 1, "strided"), ((3, 5, 4), (0, 2), "C"),
    ((3, 5, 4), (0, 2), "F"), ((2, 3, 4, 5), (0, 2, 3), "C"), ((2, 3, 4, 5), (1, 3), "F"),
]


def values_of(dtype, shape, order, op, seed=1):
    """Random values of `shape` in `order`; "strided": every second column of a wider array."""
    columns = shape[-1] * (2 if order == "strided" else 1)
    values = random_values(dtype, int(np.prod(shape[:-1])) * columns, seed=seed, op=op)
    values = values.reshape(*shape[:-1], columns)
    if order == "strided":
        return values[..., ::2]
    return np.asfortranarray(values) if order == "F" else values


def assert_equal_to_numpy(got, expected):
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("op", clreduce.OPS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_op_and_dtype_along_axes_matches_numpy(device, dtype, op):
    reducer = clreduce.Reducer(dtype, op, device=device)  # one SegmentedReducer for all
    for shape, axis, order in CASES:
        if op in ARG_OPS and isinstance(axis, tuple):
            continue  # NumPy's argmin and argmax take one axis
        values = values_of(dtype, shape, order, op)
        got = reducer(values, axis=axis)
        assert_equal_to_numpy(got, getattr(np, op)(values, axis=axis))


@pytest.mark.parametrize("op", ["sum", "prod", "any", "all", "min", "argmax"])
@pytest.mark.parametrize("shape, axis", [((0, 4), 0), ((0, 4), 1), ((4, 0), 1), ((2, 0, 3), 1)])
def test_an_empty_array_gives_numpys_answer(device, op, shape, axis):
    values = np.empty(shape, np.float32)
    try:
        expected = getattr(np, op)(values, axis=axis)
    except ValueError:  # min and argmax of no values along the axis
        with pytest.raises(ValueError):
            getattr(clreduce, op)(values, axis=axis, device=device)
        return
    assert_equal_to_numpy(getattr(clreduce, op)(values, axis=axis, device=device), expected)


def test_keepdims_keeps_the_reduced_axes_of_length_one(device):
    values = values_of(np.int32, (3, 5, 4), "C", "sum")
    for axis in (None, 1, (1, 2), -1):
        expected = np.sum(values, axis=axis, keepdims=True)
        assert_equal_to_numpy(clreduce.sum(values, axis=axis, keepdims=True), expected)
    got = clreduce.argmin(values, axis=0, keepdims=True)
    assert_equal_to_numpy(got, np.argmin(values, axis=0, keepdims=True))


def test_axis_empty_tuple_reduces_each_value_on_its_own(device):
    values = values_of(np.int8, (3, 4), "C", "sum")
    assert_equal_to_numpy(clreduce.sum(values, axis=()), np.sum(values, axis=()))
    assert_equal_to_numpy(clreduce.max(values, axis=()), np.max(values, axis=()))
    assert_equal_to_numpy(clreduce.sum(values, axis=(), map="x*x"),
                          np.sum(values.astype(np.int64) ** 2, axis=()))


def test_a_map_and_an_op_of_your_own_along_an_axis(device):
    values = values_of(np.int32, (5, 6), "C", "max")
    # i is a value's index along the reduced axis, as the arg ops count it.
    assert_equal_to_numpy(clreduce.sum(values, axis=1, map="i"), np.full(5, 15, np.int64))
    assert_equal_to_numpy(clreduce.reduce(values, "max(a, b)", "INT_MIN", axis=0),
                          np.max(values, axis=0))  # int32 values: an int32 accumulator


def test_a_reducer_keeps_its_axis_engine_for_the_next_call(device):
    reducer = clreduce.Reducer(np.float32, "max", device=device)
    for seed in range(3):
        values = values_of(np.float32, (4, 7), "C", "max", seed=seed)
        assert_equal_to_numpy(reducer(values, axis=1), np.max(values, axis=1))
    along_axes = [engine for engine in reducer._engines.values()
                  if isinstance(engine, clreduce._clreduce.AxisEngine)]
    assert len(along_axes) == 1


def test_an_axis_out_of_range_is_numpys_axis_error(device):
    values = np.ones((3, 4), np.int32)
    with pytest.raises(np.exceptions.AxisError):
        clreduce.sum(values, axis=2, device=device)
    with pytest.raises(IndexError):  # AxisError is an IndexError and a ValueError, as NumPy's
        clreduce.max(values, axis=-3, device=device)


def test_a_repeated_axis_is_a_value_error(device):
    with pytest.raises(ValueError, match="repeated axis"):
        clreduce.sum(np.ones((3, 4), np.int32), axis=(1, 1), device=device)


def test_argmin_takes_one_axis_as_numpys(device):
    with pytest.raises(TypeError):
        clreduce.argmin(np.ones((3, 4), np.int32), axis=(0,), device=device)


def test_an_op_of_your_own_along_axes_apart(device):
    values = values_of(np.int32, (4, 5, 6), "F", "sum")
    assert_equal_to_numpy(clreduce.reduce(values, axis=(0, 2), device=device),
                          np.sum(values, axis=(0, 2), dtype=np.int32))  # int32 accumulates


def test_a_float_sum_along_axes_apart_is_within_the_bound_of_any_order(device):
    # Values clreduce did not draw: each result within n u sum|x| of the exact sum, the bound
    # of summing its n values in any order, composed axes too.
    values = np.random.default_rng(3).standard_normal((40, 30, 50)).astype(np.float32)
    got = clreduce.sum(values, axis=(0, 2), device=device)
    exact = np.sum(values.astype(np.float64), axis=(0, 2))
    bound = 40 * 50 * np.finfo(np.float32).eps / 2 * np.sum(np.abs(values), axis=(0, 2))
    assert got.dtype == np.float32
    assert np.all(np.abs(got - exact) <= bound)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_map_along_axes_apart_counts_i_over_each_results_values(device, order):
    # i: a value's index among its result's values in memory order (C order: a * 4 + c).
    values = values_of(np.int64, (3, 5, 4), order, "sum")
    a, _, c = np.indices(values.shape)
    i = a * 4 + c if order == "C" else c * 3 + a
    assert_equal_to_numpy(clreduce.sum(values, axis=(0, 2), map="x * x", device=device),
                          np.sum(values * values, axis=(0, 2)))
    assert_equal_to_numpy(clreduce.sum(values, axis=(2, 0), map="x * (long)i", device=device),
                          np.sum(values * i, axis=(0, 2)))


def test_a_numpy_array_streams_in_chunks_along_axes(device):
    # Past one chunk (16 MiB, at least a quarter of the array): chunks of whole rows, of rows of
    # a reduced leading axis (their partial arrays combined, argmax's first index along the
    # whole axis), and of the first step along axes apart.
    values = values_of(np.int8, (4096, 8200), "C", "argmax")
    for axis in (0, 1):
        assert_equal_to_numpy(clreduce.argmax(values, axis=axis, device=device),
                              np.argmax(values, axis=axis))
    cube = values.reshape(64, 64, 8200)
    assert_equal_to_numpy(clreduce.max(cube, axis=(0, 2), device=device),
                          np.max(cube, axis=(0, 2)))


@pytest.fixture
def cl_array(queue):
    """pyopencl.array, once the queue fixture has found PyOpenCL (or skipped)."""
    import pyopencl.array

    return pyopencl.array


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_a_sub_array_at_an_offset(queue, cl_array, order, axis):
    values = values_of(np.int32, (9, 13), order, "sum")
    whole = cl_array.to_device(queue, values)
    part = whole[2:] if order == "C" else whole[:, 2:]
    expected = values[2:] if order == "C" else values[:, 2:]
    assert part.offset > 0
    assert_equal_to_numpy(clreduce.sum(part, axis=axis), np.sum(expected, axis=axis))
    assert_equal_to_numpy(clreduce.min(part, axis=axis), np.min(expected, axis=axis))
    got = clreduce.argmax(part, axis=axis)
    assert_equal_to_numpy(got, np.argmax(expected, axis=axis))


def test_out_receives_the_results_on_the_device(queue, cl_array):
    values = values_of(np.float32, (3, 5, 4), "C", "sum")
    array = cl_array.to_device(queue, values)[1:]
    out = cl_array.zeros(queue, (2, 4), np.float32)
    assert clreduce.sum(array, axis=1, out=out) is out
    np.testing.assert_array_equal(out.get(), np.sum(values[1:], axis=1))
    kept = cl_array.zeros(queue, (2, 1, 4), np.float32)
    clreduce.max(array, axis=1, out=kept, keepdims=True)
    np.testing.assert_array_equal(kept.get(), np.max(values[1:], axis=1, keepdims=True))


@pytest.mark.parametrize("op", ARG_OPS)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_out_receives_argmins_and_argmaxs_indices_as_numpys(queue, cl_array, op, order, axis):
    values = values_of(np.float64, (4, 7, 5), order, op)
    expected = getattr(np, op)(values, axis=axis)
    out = cl_array.to_device(queue, np.asarray(np.full_like(expected, -1), order=order))
    assert getattr(clreduce, op)(cl_array.to_device(queue, values), axis=axis, out=out) is out
    np.testing.assert_array_equal(out.get(), expected)


def test_enqueue_fills_out_from_an_index(queue, cl_array):
    values = values_of(np.int64, (4, 6), "C", "sum")
    out = cl_array.zeros(queue, 10, np.int64)
    event = clreduce.Reducer(np.int64).enqueue(
        cl_array.to_device(queue, values), out, out_index=3, axis=0
    )
    event.wait()
    np.testing.assert_array_equal(out.get()[3:9], np.sum(values, axis=0))
    assert not out.get()[:3].any() and not out.get()[9:].any()


def test_out_of_another_shape_or_order_is_refused(queue, cl_array):
    array = cl_array.to_device(queue, np.ones((3, 4, 5), np.int64))
    with pytest.raises(ValueError, match="shape"):
        clreduce.sum(array, axis=1, out=cl_array.zeros(queue, 15, np.int64))
    fortran = cl_array.to_device(queue, np.asfortranarray(np.zeros((3, 4), np.int64)))
    with pytest.raises(ValueError, match="order"):
        clreduce.sum(array, axis=2, out=fortran)
