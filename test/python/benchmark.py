"""Host-observed time of one reduction, clreduce beside PyOpenCL's own, on one device: the
figures for docs/python.md. Not a test (no timing is ever asserted); run it by hand:

    build/python/venv/bin/python test/python/benchmark.py [--device P D] [--repeat N]

Prints a Markdown table: per length, the median over N calls of clreduce.sum on a
pyopencl.array.Array, of pyopencl.array.sum(...).get() on the same array, and of clreduce.sum
on the NumPy array (its copy to the device included), with that copy's rate.
"""

import argparse
import statistics
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

import clreduce


def median_us(call, repeat):
    call()  # the build, the temporaries, the first upload
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", nargs=2, type=int, metavar=("P", "D"))
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--lengths", type=int, nargs="+", default=[2**20, 2**24, 2**28])
    arguments = parser.parse_args()
    device = clreduce.Reducer(np.int32, device=tuple(arguments.device or ()) or None).device
    queue = cl.CommandQueue(cl.Context([device.to_pyopencl()]))
    print(f"{device.name}, int32 sum, median of {arguments.repeat} calls, host microseconds\n")
    print("| length | clreduce, PyOpenCL array | pyopencl.array.sum | clreduce, NumPy array "
          "| its copy rate |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for length in arguments.lengths:
        values = np.ones(length, np.int32)
        on_device = cl_array.to_device(queue, values)
        ours = median_us(lambda: clreduce.sum(on_device), arguments.repeat)
        theirs = median_us(lambda: cl_array.sum(on_device).get(), arguments.repeat)
        host = median_us(lambda: clreduce.sum(values), max(arguments.repeat // 10, 3))
        rate = values.nbytes / host / 1e3  # GB/s
        print(f"| 2^{length.bit_length() - 1} | {ours:.1f} | {theirs:.1f} | {host:.1f} "
              f"| {rate:.1f} GB/s |")


if __name__ == "__main__":
    main()
