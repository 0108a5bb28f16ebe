"""clreduce.reduce (an op of your own, as PyOpenCL's ReductionKernel) and map= on the built-in
ops: OpenCL C pasted into the engine's kernel, checked against NumPy."""

import numpy as np
import pytest

import clreduce
from conftest import random_values

cl_array = pytest.importorskip("pyopencl.array")


def small_integers(length, seed=5):
    return np.random.default_rng(seed).integers(-50, 50, length, endpoint=True).astype(np.int32)


@pytest.mark.parametrize("length", [1, 2, 257, 100_003])
def test_sum_of_squares(length):
    values = small_integers(length)
    got = clreduce.sum(values, map="x*x")
    assert type(got) is np.int64
    assert got == np.sum(values.astype(np.int64) ** 2)


def test_sum_of_squares_as_a_custom_op(queue):
    values = small_integers(4099)
    on_device = cl_array.to_device(queue, values)[1:]
    got = clreduce.reduce(on_device, "a+b", "0", map="x*x", dtype=np.int64)
    assert type(got) is np.int64
    assert got == np.sum(values[1:].astype(np.int64) ** 2)


def test_count_nonzero():
    values = small_integers(10_007)
    assert clreduce.reduce(values, map="x != 0 ? 1 : 0") == np.count_nonzero(values)


def test_l1_norm():
    values = random_values(np.float64, 30_001, op="sum")  # whole numbers: every order exact
    assert clreduce.sum(values, map="fabs(x)") == np.sum(np.abs(values))


def test_the_index_in_a_map():
    values = np.zeros(1000, np.float64)
    assert clreduce.sum(values, map="(double)i") == np.sum(np.arange(1000.0))


def test_a_custom_product():
    values = np.random.default_rng(2).choice([1, 2, 3, -1], 40).astype(np.int64)
    got = clreduce.reduce(values, reduce="a*b", identity="1")
    assert type(got) is np.int64
    assert got == np.prod(values)


def test_a_custom_max_of_absolute_values(queue):
    values = random_values(np.float32, 5003, op="max")
    got = clreduce.reduce(cl_array.to_device(queue, values), "fmax(a, b)", "0", map="fabs(x)")
    assert got == np.max(np.abs(values))


def test_a_map_on_min():
    values = random_values(np.int32, 5003, op="min")
    assert clreduce.min(values, map="x % 7") == np.min(np.fmod(values, 7))


def test_a_text_that_does_not_build_raises_with_the_build_log():
    with pytest.raises(clreduce.Error, match="kernel build failed") as raised:
        clreduce.reduce(np.ones(5, np.float32), reduce="a +* b")
    assert raised.value.cause == "kernel_build"
    assert "error" in raised.value.details


def test_a_custom_op_has_no_identity_for_nothing():
    with pytest.raises(ValueError, match="zero-size"):
        clreduce.reduce(np.ones(0, np.float32))


def test_any_and_all_take_no_map():
    with pytest.raises(TypeError):
        clreduce.any(np.ones(3), map="x")
