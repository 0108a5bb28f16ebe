"""NumPy arrays: every dtype and op the engine has, at the lengths where passes change, against
NumPy's answer."""

import numpy as np
import pytest

import clreduce
from conftest import assert_matches, random_values

# 1 and 2; around a work-group; primes; a tiny last pass; more than one streamed chunk of int32
# would be 16 Mi values, too slow here, so the largest is past a million.
LENGTHS = [1, 2, 255, 256, 257, 1009, 65537, 1_000_003]
# Every dtype and op at a few of them; every length for a few dtypes and ops.
SHORT_LENGTHS = [1, 257, 1009]
CASES = [
    (dtype, op, length) for dtype in clreduce.DTYPES for op in clreduce.OPS
    for length in SHORT_LENGTHS
] + [
    (np.dtype(dtype), op, length) for dtype in (np.int32, np.float32, np.float16)
    for op in ("sum", "max") for length in LENGTHS if length not in SHORT_LENGTHS
]


@pytest.mark.parametrize("dtype, op, length", CASES, ids=str)
def test_every_dtype_and_op_matches_numpy(device, dtype, op, length):
    values = random_values(dtype, length, seed=length, op=op)
    assert_matches(op, getattr(clreduce, op)(values), values)


def test_integer_sums_are_numpy_dtype_and_wrap_in_it(device):
    values = np.full(1000, np.iinfo(np.int32).max, dtype=np.int32)
    assert clreduce.sum(values) == np.sum(values) == 1000 * np.iinfo(np.int32).max
    assert clreduce.sum(values, dtype=np.int32) == np.sum(values, dtype=np.int32)
    assert type(clreduce.sum(values, dtype=np.int32)) is np.int32


@pytest.mark.parametrize(
    "dtype, accumulate",
    [(np.int8, np.int32), (np.uint16, np.uint32), (np.int32, np.float64),
     (np.float32, np.float64), (np.float16, np.float32), (np.bool_, np.int64)],
    ids=str,
)
def test_dtype_chooses_the_accumulator_as_numpy(device, dtype, accumulate):
    values = random_values(dtype, 1009)
    got = clreduce.sum(values, dtype=accumulate)
    expected = np.sum(values, dtype=accumulate)
    assert type(got) is type(expected)
    assert got == expected


@pytest.mark.parametrize("op", ["min", "max", "nanmin", "nanmax", "argmin", "argmax"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_nan_as_numpy(device, dtype, op):
    values = random_values(dtype, 1009, op=op)
    values[500] = np.nan
    values[700] = np.nan  # argmin and argmax give the first NaN's index
    got, expected = getattr(clreduce, op)(values), getattr(np, op)(values)
    assert type(got) is type(expected)
    assert got == expected or (np.isnan(got) and np.isnan(expected))


@pytest.mark.parametrize("op", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", clreduce.DTYPES, ids=str)
def test_argmin_and_argmax_give_the_first_index_as_numpy(device, dtype, op):
    values = (np.arange(3001) % 5).astype(dtype)  # each extreme repeats
    got, expected = getattr(clreduce, op)(values), getattr(np, op)(values)
    assert type(got) is np.int64
    assert got == expected


@pytest.mark.parametrize("op", clreduce.OPS)
def test_every_nonzero_byte_of_a_bool_is_true_as_numpy(device, op):
    # A uint8 mask viewed as bool holds 255s; bytes of 2 and up, without zeros, decide prod,
    # min, argmin and all.
    for least in (0, 2):
        values = ((np.arange(1009) * 37 + 11) % (256 - least) + least).astype(np.uint8).view(bool)
        assert_matches(op, getattr(clreduce, op)(values), values)
        for axis in (0, 1):
            rows = values[:1008].reshape(16, 63)
            np.testing.assert_array_equal(getattr(clreduce, op)(rows, axis=axis),
                                          getattr(np, op)(rows, axis=axis))


@pytest.mark.parametrize("dtype", clreduce.DTYPES, ids=str)
def test_any_and_all_as_numpy(device, dtype):
    zeros = np.zeros(300, dtype)
    one_set = zeros.copy()
    one_set[123] = 1
    ones = np.ones(300, dtype)
    for values in (zeros, one_set, ones):
        assert clreduce.any(values) is np.any(values)
        assert clreduce.all(values) is np.all(values)


@pytest.mark.parametrize(
    "make",
    [
        lambda v: v.reshape(100, -1),  # C order
        lambda v: np.asfortranarray(v.reshape(100, -1)),  # Fortran order, read as it is
        lambda v: v[::3],  # strided: copied
        lambda v: v.reshape(100, -1)[:, 7:40],  # a block of a matrix
        lambda v: v[::-1],  # backwards
    ],
    ids=["c-order", "fortran-order", "strided", "block", "reversed"],
)
def test_any_layout_is_reduced_whole(device, make):
    values = make(random_values(np.int64, 100 * 1001))
    assert clreduce.sum(values) == np.sum(values)
    assert clreduce.max(values) == np.max(values)


def test_a_list_is_reduced_as_numpy_reads_it(device):
    assert clreduce.sum([1, 2, 3]) == 6


def test_an_empty_array_gives_numpy_answer(device):
    assert clreduce.sum(np.zeros(0, np.float32)) == 0
    with pytest.raises(ValueError):
        clreduce.min(np.zeros(0, np.int32))


def test_axis_naming_every_axis_is_the_whole_array(device):
    values = random_values(np.int64, 600).reshape(20, 30)
    assert clreduce.sum(values, axis=(0, 1)) == np.sum(values)
    assert clreduce.sum(values[0], axis=0) == np.sum(values[0])


def test_a_reducer_takes_many_arrays(device):
    reducer = clreduce.Reducer("float64", "max", device=device)
    for length in (1, 1000, 100_000):
        values = random_values(np.float64, length, seed=length, op="max")
        assert reducer(values) == np.max(values)


def test_values_at_any_address_are_copied_through_the_staging_of_the_last_call(device):
    # Past an aligned start, a CPU device cannot read them in place either: every call copies
    # them through pinned staging, which a shorter input reuses and a longer one replaces.
    reducer = clreduce.Reducer(np.int32, device=device)
    memory = random_values(np.int32, 300_001, seed=4)
    for length in (300_000, 7, 150_000, 1, 300_000):
        assert reducer(memory[1 : 1 + length]) == np.sum(memory[1 : 1 + length])


def test_int32_longer_than_one_chunk_sums_in_int64(device):
    # 64 MiB chunks: two of them, each leaving int64 partials twice the values' size.
    values = random_values(np.int32, (64 << 20) // 4 + 5, seed=6)
    assert clreduce.sum(values, device=device) == np.sum(values)
    assert clreduce.sum(values[1:], device=device) == np.sum(values[1:])


def test_the_device_is_chosen_as_the_tool_chooses_it(device):
    values = random_values(np.uint32, 5000)
    expected = np.sum(values)
    for choice in (None, device, (device.platform, device.index),
                   (device.platform, device.index, device.type)):
        assert clreduce.sum(values, device=choice) == expected


def test_threads_share_a_reducer(device):
    from concurrent.futures import ThreadPoolExecutor

    reducer = clreduce.Reducer(np.int64, "sum", device=device)
    inputs = [random_values(np.int64, 10_000 + k, seed=k) for k in range(16)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(reducer, inputs))
    assert results == [np.sum(values) for values in inputs]
