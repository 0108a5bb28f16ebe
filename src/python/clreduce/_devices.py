"""The devices clreduce finds: what `clreduce --list` lists, and how device= names one."""

import threading
from dataclasses import dataclass, field
from typing import Optional, Tuple

from . import _clreduce


@dataclass(frozen=True)
class Device:
    """One OpenCL device as `clreduce --list` shows it.

    `platform` and `index` are its place in that list (`-p` and `-d`); `path` is the
    reduction path a reducer takes there, `finish` and `types` what the device supports.
    """

    platform: Optional[int]
    index: Optional[int]
    type: str
    name: str
    platform_name: str
    version: str
    opencl_c: Tuple[str, ...]
    path: str
    finish: str
    types: str
    handle: int = field(repr=False, compare=False)  # its cl_device_id, as PyOpenCL's int_ptr

    def __str__(self):
        return (
            f"-p {self.platform} -d {self.index}  {self.type}  {self.name}\n"
            f"    {self.version}; OpenCL C {' '.join(self.opencl_c)}\n"
            f"    reduction path: {self.path}\n"
            f"    finish: {self.finish}\n"
            f"    types: {self.types}"
        )

    def to_pyopencl(self):
        """The same device as a pyopencl.Device."""
        import pyopencl

        return pyopencl.Device.from_int_ptr(self.handle)


def _device(described):
    return Device(**{**described, "opencl_c": tuple(described["opencl_c"])})


def devices():
    """Every OpenCL device of every platform, in the order `clreduce --list` lists them."""
    return [_device(described) for described in _clreduce.list_devices()]


def resolve_device(device=None):
    """The Device that device= names: None for the one the clreduce tool takes without -p, -d
    and -t; a Device; a pyopencl.Device; or a triplet (platform, device[, type]) as -p, -d and
    -t take them, type one of "cpu", "gpu", "acc", "cus", "def", "all"."""
    if device is None:
        return _device(_clreduce.select_device(None, 0, None))
    if isinstance(device, Device):
        return device
    if hasattr(device, "int_ptr"):  # a pyopencl.Device
        return _device(_clreduce.device_of_handle(device.int_ptr))
    if isinstance(device, tuple) and len(device) in (2, 3):
        return _device(_clreduce.select_device(*device, *((None,) * (3 - len(device)))))
    raise TypeError(
        "device= takes None, a clreduce.Device, a pyopencl.Device or a triplet "
        f"(platform, device[, type]), not {device!r}"
    )


_queues = {}
_queues_lock = threading.Lock()


def device_queue(device):
    """The context and in-order queue on `device` where NumPy input is reduced: one per device
    for the process, so that every reducer there shares the engine's compiled programs."""
    with _queues_lock:
        if device.handle not in _queues:
            _queues[device.handle] = _clreduce.DeviceQueue(device.handle)
        return _queues[device.handle]
