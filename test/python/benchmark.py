"""Host-observed time of one reduction, clreduce beside PyOpenCL's own, on one device: the
figures for docs/python.md. Not a test (no timing is ever asserted); run it by hand:

    build/python/venv/bin/python test/python/benchmark.py [--device P D] [--repeat N]

Prints four Markdown tables of medians over N calls (fewer for the copies), timed after 0.2 s
of the same calls: clreduce.sum on a pyopencl.array.Array (its least time too) beside
pyopencl.array.sum(...).get() on the same array; the same call layer by layer (the function,
a Reducer, the extension's engine alone; int64 accumulators as NumPy's sum of int32 asks, and
int32 ones as build/test/api_benchmark's default), to set beside `api_benchmark gpu 28 N
int32` and `... int64`; clreduce.sum on a NumPy array, its copy to the device included, with
that copy's rate; and exact=True on float32 values, on a PyOpenCL and on a NumPy array.
"""

import argparse
import statistics
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

import clreduce


#: How long a call is repeated before any is timed: the build, the temporaries, the first
#: upload, and the first milliseconds after them, in which the same call took 3 to 4 µs longer
#: on the H100 than later in the process (docs/python.md, "Speed").
WARM_UP_SECONDS = 0.2


def samples_us(call, repeat):
    """`repeat` host times of `call` in µs, sorted, after WARM_UP_SECONDS of calls (one at
    least)."""
    warm_until = time.perf_counter() + WARM_UP_SECONDS
    call()
    while time.perf_counter() < warm_until:
        call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)
    return sorted(times)


def median_us(call, repeat):
    return statistics.median(samples_us(call, repeat))


def power(length):
    return f"2^{length.bit_length() - 1}"


def table_head(title, *columns):
    """A Markdown table's title, column names and alignment (right); its rows follow."""
    print(f"\n{title}\n")
    print(f"| {' | '.join(columns)} |")
    print(f"|{'|'.join(' ---: ' for _ in columns)}|")


def ones_on_device(queue, length):
    """int32 ones in a PyOpenCL array, uploaded before anything is timed."""
    on_device = cl_array.to_device(queue, np.ones(length, np.int32))
    on_device.finish()
    return on_device


def pyopencl_table(queue, lengths, repeat):
    table_head("A pyopencl.array.Array of int32, summed: host µs", "length",
               "`clreduce.sum(a)` min / median", "`pyopencl.array.sum(a).get()`", "ratio")
    for length in lengths:
        on_device = ones_on_device(queue, length)
        ours = samples_us(lambda: clreduce.sum(on_device), repeat)
        median = statistics.median(ours)
        theirs = median_us(lambda: cl_array.sum(on_device).get(), repeat)
        print(f"| {power(length)} | {ours[0]:.1f} / {median:.1f} | {theirs:.1f} | "
              f"{median / theirs:.2f} |")


def layers_table(queue, lengths, repeat):
    table_head("The same sum, layer by layer: host µs", "length", "accumulator",
               "`clreduce.sum`", "`Reducer`", "engine alone")
    for length in lengths:
        on_device = ones_on_device(queue, length)
        for accumulate in (np.int64, np.int32):
            reducer = clreduce.Reducer(np.int32, accumulate=accumulate)
            engine = reducer._engine_for(queue)  # the extension's call, without the package
            handles = (queue.int_ptr, on_device.base_data.int_ptr, 0, length, [])
            calls = (
                lambda: clreduce.sum(on_device, dtype=accumulate),
                lambda: reducer(on_device),
                lambda: engine.reduce_buffer(*handles),
            )
            times = " | ".join(f"{median_us(call, repeat):.1f}" for call in calls)
            print(f"| {power(length)} | {np.dtype(accumulate).name} | {times} |")


def numpy_table(device, lengths, repeat):
    table_head("A NumPy array, copied to the device and summed: host µs and copy rate", "dtype",
               "length", "`clreduce.sum(a)`", "GB/s")
    for dtype in (np.int32, np.float32):
        for length in lengths:
            values = np.ones(length, dtype)
            host = median_us(lambda: clreduce.sum(values, device=device), repeat)
            rate = values.nbytes / host / 1e3
            print(f"| {np.dtype(dtype).name} | {power(length)} | {host:.1f} | {rate:.1f} |")


def exact_table(device, queue, lengths, repeat):
    table_head("exact=True on float32: host µs", "length", "PyOpenCL array", "NumPy array",
               "NumPy GB/s")
    for length in lengths:
        values = np.random.default_rng(1).standard_normal(length).astype(np.float32)
        on_device = cl_array.to_device(queue, values)
        ours = median_us(lambda: clreduce.sum(on_device, exact=True), repeat)
        host = median_us(lambda: clreduce.sum(values, exact=True, device=device), repeat)
        rate = values.nbytes / host / 1e3
        print(f"| {power(length)} | {ours:.1f} | {host:.1f} | {rate:.1f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", nargs=2, type=int, metavar=("P", "D"))
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--lengths", type=int, nargs="+", default=[2**20, 2**24, 2**28])
    parser.add_argument("--copy-lengths", type=int, nargs="+", default=[2**24, 2**28])
    parser.add_argument("--exact-lengths", type=int, nargs="+", default=[2**20, 2**28])
    arguments = parser.parse_args()
    device = clreduce.Reducer(np.int32, device=tuple(arguments.device or ()) or None).device
    queue = cl.CommandQueue(cl.Context([device.to_pyopencl()]))
    copies = max(arguments.repeat // 5, 3)
    print(f"{device.name}; medians of {arguments.repeat} calls, {copies} with a copy")
    pyopencl_table(queue, arguments.lengths, arguments.repeat)
    layers_table(queue, arguments.lengths, arguments.repeat)
    numpy_table(device, arguments.copy_lengths, copies)
    exact_table(device, queue, arguments.exact_lengths, copies)


if __name__ == "__main__":
    main()
