"""What the Python tests share: the device they run on (PoCL in CI) and a PyOpenCL queue there.

Without any OpenCL device the tests that need one skip, saying so, unless
CLREDUCE_REQUIRE_DEVICE=1 (as the README's test command sets), when they fail.
"""

import os
from pathlib import Path

import numpy as np
import pytest

import clreduce


def pytest_addoption(parser):
    parser.addoption(
        "--example-doc",
        action="append",
        help="a Markdown file whose first ```python block test_example.py runs "
        "(default: README.md and docs/python.md)",
    )


def pytest_generate_tests(metafunc):
    if "example_doc" in metafunc.fixturenames:
        root = Path(__file__).resolve().parents[2]
        docs = metafunc.config.getoption("--example-doc") or [root / "README.md",
                                                              root / "docs" / "python.md"]
        metafunc.parametrize("example_doc", [Path(doc) for doc in docs],
                             ids=[Path(doc).name for doc in docs])


@pytest.fixture(scope="session")
def device():
    found = clreduce.devices()
    if not found:
        message = "no OpenCL device: the device tests cannot run"
        if os.environ.get("CLREDUCE_REQUIRE_DEVICE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found[0]


@pytest.fixture(scope="session")
def context(device):
    cl = pytest.importorskip("pyopencl")
    return cl.Context([device.to_pyopencl()])


@pytest.fixture(scope="session")
def queue(context):
    import pyopencl

    return pyopencl.CommandQueue(context)


def random_values(dtype, length, seed=1, op="sum"):
    """Values of every sign and size that an integer type holds, so that its sums and products
    wrap. Floating point: for a sum, whole numbers in [-8, 8], so that every partial sum in any
    order is exact (below 2^24) and the sum must equal NumPy's; for a product, -1 and 1, exact
    likewise; for the others, any values. bool: False and True."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 1, size=length, endpoint=True).astype(dtype)
    if dtype.kind == "f":
        if op == "sum":
            return rng.integers(-8, 8, size=length, endpoint=True).astype(dtype)
        if op == "prod":
            return rng.choice([-1.0, 1.0], size=length).astype(dtype)
        return (rng.standard_normal(length) * 1000).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=length, dtype=dtype, endpoint=True)


def assert_matches(op, got, values):
    """Of NumPy's dtype (np.sum of int32 is int64) and equal to NumPy's answer."""
    expected = getattr(np, op)(values)
    assert type(got) is type(expected)
    assert got == expected
