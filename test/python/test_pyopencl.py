"""pyopencl.array.Array input: reduced where it is, on its own queue, at its offset, after its
events; out= and Reducer.enqueue leave the result on the device."""

import threading

import numpy as np
import pytest

import clreduce
from conftest import assert_matches, random_values

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


@pytest.mark.parametrize("op", clreduce.OPS)
@pytest.mark.parametrize("dtype", clreduce.DTYPES, ids=str)
def test_every_dtype_and_op_matches_numpy(queue, dtype, op):
    values = random_values(dtype, 100_003, op=op)
    assert_matches(op, getattr(clreduce, op)(cl_array.to_device(queue, values)), values)


@pytest.mark.parametrize("first", [0, 1, 2, 3, 4, 5, 127, 1000])
@pytest.mark.parametrize("length", [1, 2, 3, 257, 4099])
def test_a_sub_array_is_reduced_at_its_offset(queue, first, length):
    values = random_values(np.int32, 6000)
    whole = cl_array.to_device(queue, values)
    part = whole[first : first + length]
    assert part.offset == first * 4
    assert clreduce.sum(part) == np.sum(values[first : first + length])
    assert clreduce.min(part) == np.min(values[first : first + length])
    assert clreduce.argmax(part) == np.argmax(values[first : first + length])  # from its start


@pytest.mark.parametrize("op", ["argmin", "argmax"])
@pytest.mark.parametrize("first, length", [(0, 1), (3, 4099), (1000, 100_003)])
def test_out_receives_argmins_and_argmaxs_index_as_numpys(queue, op, first, length):
    values = random_values(np.float32, first + length, op=op)
    out = cl_array.zeros(queue, (), np.int64)  # 0-d, as np.argmax(a, out=) takes
    part = cl_array.to_device(queue, values)[first:]
    assert getattr(clreduce, op)(part, out=out) is out
    expected = np.empty((), np.int64)
    getattr(np, op)(values[first:], out=expected)
    assert out.get() == expected


def test_argmax_enqueued_into_a_later_value_of_out(queue):
    values = random_values(np.int16, 5000, op="argmax")
    out = cl_array.to_device(queue, np.full(4, -1, np.int64))
    clreduce.Reducer(np.int16, "argmax").enqueue(cl_array.to_device(queue, values), out, 2).wait()
    assert out.get().tolist() == [-1, -1, np.argmax(values), -1]


def test_argmax_out_takes_int64_only(queue):
    array = cl_array.to_device(queue, np.arange(10, dtype=np.float32))
    with pytest.raises(TypeError, match="int64"):
        clreduce.argmax(array, out=cl_array.zeros(queue, 1, np.float32))


def test_a_blocking_reduction_drops_the_events_it_waited_for(queue):
    values = random_values(np.int32, 10_000)
    array, gate = written_after_a_user_event(queue, values)
    later = cl.enqueue_marker(queue)
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert clreduce.sum(array) == np.sum(values)  # waited for the write, then dropped it
    assert array.events == []
    array.add_event(later)
    assert clreduce.max(array) == np.max(values)
    assert array.events == []


def test_a_sub_array_of_a_sub_array(queue):
    values = random_values(np.float64, 3000, op="max")
    part = cl_array.to_device(queue, values)[100:2900][7:1001]
    assert clreduce.max(part) == np.max(values[107:1101])


def test_out_receives_the_result_on_the_device(queue):
    values = random_values(np.int64, 50_000)
    out = cl_array.zeros(queue, 4, np.int64)
    assert clreduce.sum(cl_array.to_device(queue, values), out=out[2:]) is not None
    assert out.get().tolist() == [0, 0, np.sum(values), 0]


def test_reductions_chain_on_the_device(queue):
    values = random_values(np.int64, 40_000)
    data = cl_array.to_device(queue, values)
    partials = cl_array.zeros(queue, 4, np.int64)
    reducer = clreduce.Reducer(np.int64, "sum")
    for k in range(4):
        reducer(data[k * 10_000 : (k + 1) * 10_000], out=partials[k : k + 1])
    total = cl_array.zeros(queue, 1, np.int64)
    event = reducer.enqueue(partials, total, wait_for=partials.events)
    assert isinstance(event, cl.Event)
    event.wait()
    assert total.get()[0] == np.sum(values)


def written_after_a_user_event(queue, values):
    """An array whose values arrive only once the returned user event is set: a reduction that
    did not wait for the array's events would read zeros."""
    array = cl_array.zeros(queue, len(values), values.dtype)
    gate = cl.UserEvent(queue.context)
    copy_queue = cl.CommandQueue(queue.context)
    # After the zeros too, which another queue writes.
    written = cl.enqueue_copy(
        copy_queue, array.data, values, wait_for=[gate, *array.events], is_blocking=False
    )
    array.add_event(written)
    return array, gate


def test_an_enqueued_reduction_waits_for_the_array_events(queue):
    values = random_values(np.int32, 10_000)
    array, gate = written_after_a_user_event(queue, values)
    out = cl_array.zeros(queue, 1, np.int64)
    try:
        event = clreduce.Reducer(np.int32).enqueue(array, out)
        assert event.command_execution_status != cl.command_execution_status.COMPLETE
    finally:  # else the copy, and the queues' release, would wait for ever
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert out.get()[0] == np.sum(values)


def test_a_blocking_reduction_waits_for_the_array_events(queue):
    # The timer's thread opens the gate while this one waits in clreduce.sum: it can only
    # because the wait lets go of the GIL.
    values = random_values(np.int32, 10_000)
    array, gate = written_after_a_user_event(queue, values)
    opener = threading.Timer(0.2, gate.set_status, [cl.command_execution_status.COMPLETE])
    opener.start()
    try:
        assert clreduce.sum(array) == np.sum(values)
    finally:
        opener.join()


def test_a_pending_event_of_the_same_queue_keeps_its_order(context):
    # The engine waits by marker only for events of other queues: the in-order queue itself
    # holds the reduction back behind a write it has not run yet.
    queue = cl.CommandQueue(context)
    values = random_values(np.int32, 10_000)
    array = cl_array.zeros(queue, len(values), np.int32)
    gate = cl.UserEvent(context)
    array.add_event(
        cl.enqueue_copy(queue, array.data, values, wait_for=[gate], is_blocking=False)
    )
    out = cl_array.zeros(queue, 1, np.int64)
    try:
        clreduce.sum(array, out=out)
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert out.get()[0] == np.sum(values)


def test_another_queue_may_run_it(context, queue):
    values = random_values(np.uint64, 9999)
    array = cl_array.to_device(queue, values)
    queue.finish()
    other = cl.CommandQueue(context)
    assert clreduce.sum(array, queue=other) == np.sum(values, dtype=np.uint64)


def test_an_empty_array_gives_numpy_answer(queue):
    empty = cl_array.zeros(queue, 0, np.float32)
    assert clreduce.sum(empty) == 0
    with pytest.raises(ValueError):
        clreduce.max(empty)


def test_a_strided_array_is_refused(queue):
    strided = cl_array.to_device(queue, np.arange(100, dtype=np.int32))[::2]
    with pytest.raises(ValueError, match="not contiguous"):
        clreduce.sum(strided)


def test_an_array_between_values_is_refused(queue):
    buffer = cl_array.to_device(queue, np.arange(100, dtype=np.int32)).base_data
    between = cl_array.Array(queue, (10,), np.int32, data=buffer, offset=2)
    with pytest.raises(ValueError, match="2 bytes into its buffer"):
        clreduce.sum(between)


def test_an_array_without_a_queue_needs_one(queue):
    array = cl_array.to_device(queue, np.arange(100, dtype=np.int32))
    queue.finish()
    with pytest.raises(ValueError, match="no queue"):
        clreduce.sum(array.with_queue(None))
    assert clreduce.sum(array.with_queue(None), queue=queue) == 4950


def test_a_reducer_refuses_an_array_of_another_dtype(queue):
    array = cl_array.to_device(queue, np.arange(100, dtype=np.int32))
    with pytest.raises(TypeError, match="not int32"):
        clreduce.Reducer(np.int64)(array)


def test_out_of_another_dtype_is_refused(queue):
    array = cl_array.to_device(queue, np.arange(100, dtype=np.int32))
    with pytest.raises(TypeError, match="out="):
        clreduce.sum(array, out=cl_array.zeros(queue, 1, np.int32))


def test_an_out_of_order_queue_is_the_engine_error(context, queue):
    array = cl_array.to_device(queue, np.arange(100, dtype=np.int32))
    queue.finish()
    properties = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    try:
        out_of_order = cl.CommandQueue(context, properties=properties)
    except cl.Error:
        pytest.skip("the device has no out-of-order queues")
    with pytest.raises(clreduce.Error) as raised:
        clreduce.sum(array, queue=out_of_order)
    assert raised.value.cause == "invalid_argument"
    assert "order" in str(raised.value)


def test_arrays_after_a_first_take_the_same_checks(queue):
    # From the second call on, a whole array on its own queue is reduced by the extension
    # alone (clreduce's ArrayPath); anything unusual still goes through the Python checks.
    values = np.arange(100, dtype=np.int32)
    array = cl_array.to_device(queue, values)
    reducer = clreduce.Reducer(np.int32)
    for reduce in (clreduce.sum, reducer):
        assert reduce(array) == reduce(array) == 4950
        array.add_event(cl.enqueue_marker(queue))
        assert reduce(array) == 4950 and array.events == []
        assert reduce(array[10:20]) == np.sum(values[10:20])
        fortran = cl_array.to_device(queue, np.asfortranarray(values.reshape(10, 10)))
        assert reduce(fortran) == 4950
        with pytest.raises(ValueError, match="not contiguous"):
            reduce(array[::2])
        with pytest.raises(ValueError, match="2 bytes into its buffer"):
            reduce(cl_array.Array(queue, (10,), np.int32, data=array.base_data, offset=2))
        with pytest.raises(ValueError, match="no queue"):
            reduce(array.with_queue(None))
        assert reduce(array[:0]) == 0
    with pytest.raises(TypeError, match="not int64"):
        reducer(cl_array.to_device(queue, np.arange(100, dtype=np.int64)))
    assert clreduce.sum(np.arange(100, dtype=np.int32)) == 4950
