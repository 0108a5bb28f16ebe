"""clreduce.devices() lists what `clreduce --list` lists; device= names one as -p -d -t do."""

import numpy as np
import pytest

import clreduce


def test_devices_are_listed_with_their_place_and_support(device):
    listed = clreduce.devices()
    assert device == listed[0]
    assert (device.platform, device.index) == (0, 0)
    assert device.name and device.version.startswith("OpenCL ")
    assert device.path in ("work-group", "sub-group", "tree")
    assert "int32" in device.types
    assert f"-p {device.platform} -d {device.index}" in str(device)


def test_a_triplet_names_the_listed_device(device):
    assert clreduce.Reducer(np.int32, device=(0, 0)).device == device
    assert clreduce.Reducer(np.int32, device=(0, 0, device.type)).device == device


def test_a_pyopencl_device_is_the_listed_device(device):
    pytest.importorskip("pyopencl")
    as_pyopencl = device.to_pyopencl()
    assert as_pyopencl.name == device.name
    assert clreduce.Reducer(np.int32, device=as_pyopencl).device == device
