"""What clreduce refuses, and how: TypeError for values it has no type for, NotImplementedError
for what the engine cannot do yet, clreduce.Error with the engine's cause for the rest."""

import numpy as np
import pytest

import clreduce


@pytest.mark.parametrize(
    "values",
    [
        np.zeros(4, np.complex64),
        np.zeros(4, np.complex128),
        np.array([1, "a", None], dtype=object),
        np.array(["one", "two"]),
        np.zeros(4, ">i4"),  # not the device's byte order
    ],
    ids=["complex64", "complex128", "object", "strings", "big-endian"],
)
def test_values_of_no_engine_type_are_a_type_error(values):
    with pytest.raises(TypeError, match="clreduce reduces"):
        clreduce.sum(values)


def test_a_reducer_of_no_engine_type_is_a_type_error():
    with pytest.raises(TypeError):
        clreduce.Reducer(np.complex64)


def test_a_reducer_refuses_values_of_another_dtype(device):
    with pytest.raises(TypeError, match="not int64"):
        clreduce.Reducer(np.int32, device=device)(np.zeros(3, np.int64))


def test_an_op_the_engine_lacks_is_not_implemented():
    with pytest.raises(NotImplementedError, match="median"):
        clreduce.Reducer(np.float32, op="median")


@pytest.mark.parametrize(
    "arguments", [dict(dtype=np.int8), dict(dtype=np.float16)], ids=["dtype=int8", "dtype=float16"]
)
def test_what_needs_more_of_the_engine_is_not_implemented(arguments):
    with pytest.raises(NotImplementedError):
        clreduce.sum(np.ones((3, 4), np.int32), **arguments)


def test_bfloat16_and_other_types_numpy_lacks_are_not_dtypes():
    assert len(clreduce.DTYPES) == 12
    assert np.dtype(np.bool_) in clreduce.DTYPES


def test_dtype_is_for_sum_prod_and_reduce():
    with pytest.raises(TypeError, match="dtype= is for sum, prod and reduce"):
        clreduce.Reducer(np.int32, "max", accumulate=np.int64)


def test_error_is_a_runtime_error_with_the_engine_cause(device):
    assert issubclass(clreduce.Error, RuntimeError)
    with pytest.raises(clreduce.Error, match="platform index 99") as raised:
        clreduce.sum(np.ones(3, np.int32), device=(99, 0))
    assert raised.value.cause == "no_device"


def test_a_device_index_past_the_end_is_an_error(device):
    with pytest.raises(clreduce.Error, match="past the end"):
        clreduce.Reducer(np.int32, device=(device.platform, 999)).device


def test_a_device_argument_of_no_known_kind_is_a_type_error():
    with pytest.raises(TypeError, match="device="):
        clreduce.sum(np.ones(3, np.int32), device="the fast one")
