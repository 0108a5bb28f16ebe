"""exact=True: the sum rounded once to the values' dtype, the same bits in any order, on any
device, from NumPy and PyOpenCL arrays alike."""

import math

import numpy as np
import pytest

import clreduce


def fsum_rounded(values):
    """The exact sum rounded to the values' dtype: math.fsum's correctly rounded double, then
    the dtype. For float32, values whose exact sum a double holds, so that the two roundings
    are one."""
    return values.dtype.type(math.fsum(values.astype(np.float64)))


def cancelling(dtype, length, seed=3):
    """Values of many magnitudes, each with its negation somewhere, and a few small ones left
    over: a naive float sum loses the small ones."""
    rng = np.random.default_rng(seed)
    big = (rng.standard_normal(length) * 10.0 ** rng.integers(-3, 8, length)).astype(dtype)
    small = rng.integers(-8, 8, length, endpoint=True).astype(dtype)
    return rng.permutation(np.concatenate([big, -big, small]))


def test_cancellation_that_a_plain_float32_sum_loses():
    values = np.array([1e8, 1, -1e8] * 1000, np.float32)
    got = clreduce.sum(values, exact=True)
    assert type(got) is np.float32
    assert got == fsum_rounded(values) == 1000
    assert clreduce.sum(values) != 1000  # why exact=True is there


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("length", [1, 2, 255, 257, 100_003])
def test_equals_math_fsum_rounded(dtype, length):
    values = cancelling(dtype, length)
    got = clreduce.sum(values, exact=True)
    assert type(got) is np.dtype(dtype).type
    assert got == fsum_rounded(values)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_the_same_bits_in_any_order(dtype):
    values = cancelling(dtype, 50_000)
    shuffled = np.random.default_rng(9).permutation(values)
    assert clreduce.sum(values, exact=True).tobytes() == clreduce.sum(
        shuffled, exact=True
    ).tobytes()


def test_the_same_bits_on_every_device():
    values = cancelling(np.float32, 20_000)
    sums = {clreduce.sum(values, exact=True, device=d).tobytes() for d in clreduce.devices()}
    assert sums == {fsum_rounded(values).tobytes()}


def test_an_input_longer_than_one_upload_chunk():
    values = np.full((64 << 20) // 4 + 5, 0.1, np.float32)  # 64 MiB chunks, and 5 values
    values[::2] = -0.1
    values[-1] = 3.0
    assert clreduce.sum(values, exact=True) == fsum_rounded(values)


def test_infinities_and_nans():
    assert clreduce.sum(np.array([np.inf, 1.0, 2.0]), exact=True) == np.inf
    assert np.isnan(clreduce.sum(np.array([np.inf, -np.inf]), exact=True))
    assert np.isnan(clreduce.sum(np.array([np.nan, 1.0], np.float32), exact=True))


def test_a_pyopencl_array_at_its_offset(queue):
    cl_array = pytest.importorskip("pyopencl.array")
    values = cancelling(np.float64, 10_000)
    part = cl_array.to_device(queue, values)[3:-5]
    assert clreduce.sum(part, exact=True) == fsum_rounded(values[3:-5])


def test_float16_as_the_engine_has_it():
    # A float16 sum loses each 1 beside 2048; the engine's exact sum is rounded to float32.
    values = np.array([2048, 1, 1, -2048, 0.5] * 100, np.float16)
    try:
        got = clreduce.sum(values, exact=True)
    except clreduce.Error as error:
        assert error.cause == "unsupported"
    else:
        assert type(got) is np.float32
        assert got == fsum_rounded(values.astype(np.float32)) == 250


def test_integers_are_the_engines_error():
    with pytest.raises(clreduce.Error) as raised:
        clreduce.sum(np.ones(3, np.int32), exact=True)
    assert raised.value.cause == "unsupported"


def test_exact_is_a_plain_unmapped_sum():
    with pytest.raises(ValueError, match="exact=True"):
        clreduce.sum(np.ones(3), exact=True, map="x*x")
    with pytest.raises(ValueError, match="exact=True"):
        clreduce.sum(np.ones(3, np.float32), exact=True, dtype=np.float64)


def test_out_receives_the_exact_sum_rounded_on_the_device(queue):
    cl_array = pytest.importorskip("pyopencl.array")
    values = cancelling(np.float32, 10_000)
    out = cl_array.zeros(queue, 3, np.float32)
    on_device = cl_array.to_device(queue, values)
    assert clreduce.sum(on_device[2:], exact=True, out=out[1:2]) is not None
    assert out.get().tolist() == [0, fsum_rounded(values[2:]), 0]
    with pytest.raises(TypeError, match="float32"):
        clreduce.sum(on_device, exact=True, out=cl_array.zeros(queue, 1, np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("shape, axis, order", [
    ((50, 301), 1, "C"), ((50, 301), 0, "C"), ((30, 7, 40), (0, 2), "C"),
    ((30, 7, 40), 1, "F"), ((30, 7, 40), (0, 1), "F"), ((1, 5), 0, "C"),
])
def test_along_axes_each_result_is_its_fsum_rounded(device, dtype, shape, axis, order):
    values = cancelling(dtype, int(np.prod(shape)) // 3 + 1)[: int(np.prod(shape))]
    values = values.reshape(shape, order="F" if order == "F" else "C")
    got = clreduce.sum(values, axis=axis, exact=True, device=device)
    axes = axis if isinstance(axis, tuple) else (axis,)
    # Each result's values (the reduced axes moved last), summed by math.fsum, rounded once.
    rows = np.moveaxis(values, axes, range(-len(axes), 0))
    rows = rows.reshape(*rows.shape[: values.ndim - len(axes)], -1)
    expected = np.array([fsum_rounded(row) for row in rows.reshape(-1, rows.shape[-1])], dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected.reshape(rows.shape[:-1]))


def test_along_an_axis_of_a_pyopencl_array_and_refused_into_out(queue):
    cl_array = pytest.importorskip("pyopencl.array")
    values = cancelling(np.float32, 3000)[:9000].reshape(90, 100)
    on_device = cl_array.to_device(queue, values)
    got = clreduce.sum(on_device[10:], axis=1, exact=True)
    np.testing.assert_array_equal(got, [fsum_rounded(row) for row in values[10:]])
    with pytest.raises(NotImplementedError, match="without out="):
        clreduce.sum(on_device, axis=1, exact=True, out=cl_array.zeros(queue, 90, np.float32))
