// clreduce's reduction, in two kernels built from one program:
//
//   reduce                one pass: each work-group writes one partial result, so a pass
//                         shrinks `length` values to get_num_groups(0); the host repeats
//                         passes until one value is left (--finish passes).
//   reduce_and_finish     the whole reduction in one launch: each work-group writes its
//                         partial and counts itself in; the work-group that arrives last
//                         reduces every partial to the result (--finish last-group).
//
// and reduce_in_order with combine_in_order, that check a user's op or map: the same
// definitions applied in index order, block by block of values in a row.
//
// The values and the reduction are only declared here. The host passes three types:
//   -D REDUCE_INPUT=<type>    how the input buffer stores a value (char ... double; half and
//                             ushort for float16 and bfloat16, uchar for bool)
//   -D REDUCE_VALUE=<type>    what a value is loaded into (float for half and bfloat16), and
//                             REDUCE_VALUE4 its 4-vector, and REDUCE_VALUEN its n-vector, for
//                             the n = REDUCE_VALUES_PER_LOAD values one load reads (4, and 8
//                             and 16 for 2- and 1-byte inputs: at least 16 bytes; fold_private)
//   -D REDUCE_ACCUM=<type>    what is reduced: each value is mapped to it (int8 sums
//                             accumulate in long), and REDUCE_ACCUM4 its 4-vector; with
//                             -D REDUCE_INDEXED (argmin, argmax) a pair of it and its index.
// It appends the definitions of load, loadn, map, map4, identity, splat4, op, op4 and
// op4_in_order for the types and the op chosen on the command line (sum, prod, min, max, ...,
// or the user's own), and, for the path the device supports, the relay to the matching
// built-in. Passes after the first read partials: they are built with the accumulator as the
// input and map as a conversion.
// It also passes one of
//   -D REDUCE_PATH_WORK_GROUP   work_group_reduce_<op> (OpenCL C 2.0, or 3.0 with the feature)
//   -D REDUCE_PATH_SUB_GROUP    sub_group_reduce_<op>  (cl_khr_subgroups or __opencl_c_subgroups)
// and, with neither, builds the textbook tree reduction in local memory. On CPU devices it
// adds -D REDUCE_CONTIGUOUS, which changes how work-items share the input (fold_private). For
// the last-group finish it adds -D REDUCE_ORDERED_ATOMICS where the device's memory model
// orders atomics across work-groups, or -D REDUCE_PTX_FENCES on NVIDIA's compiler (see
// "Finishing in the last work-group").
//
// The benchmark's stream read is a kernel of its own, stream_read.cl, built apart and only
// when benchmarking.

#if defined(REDUCE_PATH_SUB_GROUP) && defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if defined(cles_khr_int64)
#pragma OPENCL EXTENSION cles_khr_int64 : enable
#endif

#if defined(REDUCE_INDEXED)
// argmin and argmax reduce pairs: a value and its index in the whole input. Their 4-vector is
// four pairs, whose lanes read as a vector's do; four pairs in a row of partials are one.
typedef struct {
    REDUCE_ACCUM value;
    long index;
} accum_t;
typedef struct {
    accum_t x, y, z, w;
} accum4_t;
#else
typedef REDUCE_ACCUM accum_t;
typedef REDUCE_ACCUM4 accum4_t;
#endif
typedef REDUCE_INPUT input_t;
typedef REDUCE_VALUE value_t;
typedef REDUCE_VALUE4 value4_t;
typedef REDUCE_VALUEN valuen_t;

value_t load(global const input_t* in, ulong i);   // value i
valuen_t loadn(global const input_t* in, ulong v); // values nv ... nv + n - 1, aligned
accum_t map(value_t x, ulong i);                   // value x, whose index is i, to reduce
accum4_t map4(value4_t x, ulong i);                // map on each lane; lane 0's index is i
accum_t identity(void);                            // op(identity(), x) == x for every x
accum4_t splat4(accum_t x);                        // x in every lane
accum_t op(accum_t a, accum_t b);                  // associative and commutative
accum4_t op4(accum4_t a, accum4_t b);              // op on each lane, as one vector instruction
accum4_t op4_in_order(accum4_t a, accum4_t b);     // op4 where b's values come after a's in
                                                   // the input: argmin and argmax skip the
                                                   // index (ties keep a)
value4_t op4_values(value4_t a, value4_t b);       // op4 on values: defined only with
                                                   // REDUCE_COMBINE_VALUES (read4)
accum_t work_group_reduce_op(accum_t x);           // defined only when REDUCE_PATH_WORK_GROUP is
accum_t sub_group_reduce_op(accum_t x);            // defined only when REDUCE_PATH_SUB_GROUP is

// How read4 joins the quarters of a load of 8 or 16 values, named for the mutation tests as
// the fold's last steps below are: 4-vectors of accumulators, or of values, or for sums of
// bytes the byte sums in 16-bit fields (read4 below).
#ifndef REDUCE_COMBINE_QUARTERS
#if defined(REDUCE_SUM_BYTES)
#define REDUCE_COMBINE_QUARTERS(a, b) ((a) + (b))
#elif defined(REDUCE_COMBINE_VALUES)
#define REDUCE_COMBINE_QUARTERS(a, b) op4_values(a, b)
#else
#define REDUCE_COMBINE_QUARTERS(a, b) op4(a, b)
#endif
#endif

#if defined(REDUCE_SUM_BYTES)

// Sums of 1-byte integers (int8, uint8, bool; -D REDUCE_SUM_BYTES, and REDUCE_SIGNED_BYTES for
// int8) add a load's 16 bytes within 32-bit words before anything widens to the accumulator:
// widening each byte to a 64-bit lane and adding it there held the int8 sum to 88% of the
// stream read on an H100, this reaches it (docs/ops-and-types.md). A quarter is one word, 4
// bytes: its even and its odd bytes add into two 16-bit fields, at most 2 * 255 each, and two
// quarters' fields at most 4 * 255 < 2^16, so no field carries into the next and every sum is
// exact. int8 bytes are first offset into 0 ... 255 (x ^ 0x80 is x + 128 for a signed byte),
// and the offset, 128 for each of a field's 4 bytes, is taken back in 32 bits. Each lane is
// then the exact sum of its 4 values, whose conversion to the accumulator and additions there
// wrap around as the values' own would, one by one.
#if defined(REDUCE_SIGNED_BYTES)
#define REDUCE_BYTE_OFFSET 128u
#else
#define REDUCE_BYTE_OFFSET 0u
#endif

// The sums of a word's even and of its odd bytes, each offset as above, in 16-bit fields.
uint sum_bytes_in_fields(uint word) {
    const uint offset = word ^ (REDUCE_BYTE_OFFSET * 0x01010101u);
    return (offset & 0x00ff00ffu) + ((offset >> 8) & 0x00ff00ffu);
}

// Values nv ... nv + 15 of the buffer, summed into one 4-vector of accumulators: the fields of
// the first two quarters and of the last two, one field a lane. The index plays no part.
accum4_t read4(global const input_t* in, ulong v, ulong first, ulong start) {
    const union {
        valuen_t all;
        uint quarter[4];
    } x = {loadn(in, v)};
    const uint front = REDUCE_COMBINE_QUARTERS(sum_bytes_in_fields(x.quarter[0]),
                                               sum_bytes_in_fields(x.quarter[1]));
    const uint back = REDUCE_COMBINE_QUARTERS(sum_bytes_in_fields(x.quarter[2]),
                                              sum_bytes_in_fields(x.quarter[3]));
    const int4 sums = as_int4((uint4)(front & 0xffffu, front >> 16, back & 0xffffu, back >> 16)) -
                      (int)(4 * REDUCE_BYTE_OFFSET);
    return (accum4_t)((accum_t)sums.x, (accum_t)sums.y, (accum_t)sums.z, (accum_t)sums.w);
}

#else

// Values nv ... nv + n - 1 of the buffer (n = REDUCE_VALUES_PER_LOAD), mapped into one
// 4-vector of accumulators; in[first] has the index `start` (its place in the whole input,
// which may be held in several buffers). The load is mapped a quarter (4 lanes) at a time,
// and the quarters are combined lane by lane. (The quarters are taken through a union, not as
// the swizzles .s0123 ... .scdef: Oclgrind 21.10's check for uninitialized values takes a
// swizzle's lanes past the fourth for undefined.)
accum4_t read4(global const input_t* in, ulong v, ulong first, ulong start) {
    const union {
        valuen_t all;
        value4_t quarter[REDUCE_VALUES_PER_LOAD / 4];
    } x = {loadn(in, v)};
    const ulong i = REDUCE_VALUES_PER_LOAD * v - first + start;
#if defined(REDUCE_COMBINE_VALUES)
    // min and max of 1- and 2-byte integers, whose accumulator is wider (int8's is int64),
    // pick the load's extremes lane by lane in the values' own type, which is exact, and map
    // only those: 4 conversions and 64-bit comparisons a load instead of 8 or 16.
    value4_t folded = x.quarter[0];
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(folded, x.quarter[q]);
    return map4(folded, i);
#else
    accum4_t folded = map4(x.quarter[0], i);
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(folded, map4(x.quarter[q], i + 4 * q));
    return folded;
#endif
}

#endif

// The fold's last steps, named so that the mutation tests (test/test_mutants.cpp) can break
// one of them, as a -D would, and check that validation notices; every other build takes
// these. REDUCE_TAIL_END is where the values after the last vector end.
#ifndef REDUCE_COMBINE_ACCUMULATORS
#define REDUCE_COMBINE_ACCUMULATORS(a, b, c, d) op4(op4(a, b), op4(c, d))
#endif
#ifndef REDUCE_COMBINE_LANES
#define REDUCE_COMBINE_LANES(v) op(op((v).x, (v).y), op((v).z, (v).w))
#endif
#ifndef REDUCE_TAIL_END
#define REDUCE_TAIL_END(length) (length)
#endif

// Each work-item first folds its share of the input in private memory, reading vectors of
// n = REDUCE_VALUES_PER_LOAD values: at least 16 bytes, which a GPU's work-item must read per
// load to reach the stream read (docs/design.md, "Measurements behind the kernel's choices").
// On GPUs (the default) the shares interleave: neighbouring work-items read neighbouring
// vectors, which the hardware coalesces into whole memory transactions. On CPUs
// (REDUCE_CONTIGUOUS) each work-item takes one contiguous run, which its core's prefetcher
// streams: a CPU driver runs a work-group's work-items one after the other, so interleaved
// shares would make each of them stride through memory (docs/design.md, "Measurements behind
// the kernel's choices").
// The values are in[first] ... in[first + length - 1]. Every buffer starts at
// CL_DEVICE_MEM_BASE_ADDR_ALIGN, which is at least the size of the largest vector type, so
// the vectors are read from the first index that is a multiple of n on, aligned; the up to
// n - 1 values before it (the head) and the (length - head) % n after the last vector (the
// tail) go to the first work-items, one value each. Lengths and indices are 64-bit throughout.
// Each value is loaded, mapped to the accumulator, and reduced; in[first]'s index is `start`.
accum_t fold_private(global const input_t* in, ulong first, ulong length, ulong start) {
    const ulong per_load = REDUCE_VALUES_PER_LOAD;
    const ulong head = min((per_load - first % per_load) % per_load, length);
    // Indexed as vectors from the buffer's start: a vector pointer cast from
    // `in + first + head` made slower loads on NVIDIA's compiler (docs/design.md,
    // "Measurements behind the kernel's choices").
    const ulong first_vector = (first + head) / per_load;
    const ulong vectors = (length - head) / per_load;
    const ulong items = get_global_size(0);
    const ulong item = get_global_id(0);
#if defined(REDUCE_CONTIGUOUS)
    const ulong run = vectors / items + (vectors % items != 0);
    const ulong begin = min(item * run, vectors);
    const ulong end = min(begin + run, vectors);
    const ulong step = 1;
#else
    const ulong begin = item;
    const ulong end = vectors;
    const ulong step = items;
#endif

    // Four accumulators keep four independent loads in flight. A map that does not use a
    // value's index costs nothing. Each accumulator's lanes see their values in index order,
    // so the loop may use op4_in_order. For argmin and argmax it starts from the first four
    // vectors, not from the identity, whose tie with a value op4_in_order would keep; the
    // other ops skip that step, which made their loop 8% slower on an H100 (docs/ops-and-types.md).
    accum4_t a = splat4(identity());
    accum4_t b = a, c = a, d = a;
    ulong i = begin;
#define REDUCE_READ(k) read4(in, first_vector + i + (k)*step, first, start)
#if defined(REDUCE_INDEXED)
    if (i + 3 * step < end) {
        a = REDUCE_READ(0);
        b = REDUCE_READ(1);
        c = REDUCE_READ(2);
        d = REDUCE_READ(3);
        i += 4 * step;
    }
#endif
    for (; i + 3 * step < end; i += 4 * step) {
        a = op4_in_order(a, REDUCE_READ(0));
        b = op4_in_order(b, REDUCE_READ(1));
        c = op4_in_order(c, REDUCE_READ(2));
        d = op4_in_order(d, REDUCE_READ(3));
    }
#undef REDUCE_READ
    for (; i < end; i += step)
        a = op4(a, read4(in, first_vector + i, first, start));
    const accum4_t folded = REDUCE_COMBINE_ACCUMULATORS(a, b, c, d);
    accum_t value = REDUCE_COMBINE_LANES(folded);
    for (ulong at = item; at < head; at += items)
        value = op(value, map(load(in, first + at), start + at));
    for (ulong tail = head + vectors * per_load + item; tail < REDUCE_TAIL_END(length);
         tail += items)
        value = op(value, map(load(in, first + tail), start + tail));
    return value;
}

// Every work-group step below returns the work-group's result to every work-item, and
// begins by writing `scratch`: callers separate two calls with a barrier.

#if defined(REDUCE_PATH_WORK_GROUP)

accum_t reduce_work_group(accum_t value, local accum_t* scratch) {
    return work_group_reduce_op(value);
}

#elif defined(REDUCE_PATH_SUB_GROUP)

// Sub-groups reduce in registers; their partials meet in local memory and the first
// sub-group reduces those. The loop allows for a last sub-group smaller than the others and
// for more sub-groups than a sub-group has work-items. Which work-items form sub-group 0 is
// the implementation's choice, so its result goes through local memory to everyone.
accum_t reduce_work_group(accum_t value, local accum_t* scratch) {
    const accum_t partial = sub_group_reduce_op(value);
    if (get_sub_group_local_id() == 0)
        scratch[get_sub_group_id()] = partial;
    barrier(CLK_LOCAL_MEM_FENCE);

    accum_t result = identity();
    if (get_sub_group_id() == 0) {
        for (uint i = get_sub_group_local_id(); i < get_num_sub_groups(); i += get_sub_group_size())
            result = op(result, scratch[i]);
        result = sub_group_reduce_op(result);
    }
    barrier(CLK_LOCAL_MEM_FENCE); // everyone has read the partials before one is overwritten
    if (get_sub_group_id() == 0 && get_sub_group_local_id() == 0)
        scratch[0] = result;
    barrier(CLK_LOCAL_MEM_FENCE);
    return scratch[0];
}

#else

// The textbook tree: halve the active work-items each step. The host makes the work-group
// size a power of two, and every work-item reaches every barrier (none returns early), which
// also sidesteps drivers that mishandle barriers in partially active work-groups.
accum_t reduce_work_group(accum_t value, local accum_t* scratch) {
    const size_t lid = get_local_id(0);
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t active = get_local_size(0) / 2; active > 0; active /= 2) {
        if (lid < active)
            scratch[lid] = op(scratch[lid], scratch[lid + active]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}

#endif

// Work-group g writes out[first_out + g]: an input held in several buffers gathers the
// partials of all its pieces in one array, and a last pass of one work-group writes the
// result where the caller asked for it.
kernel void reduce(global const input_t* in, ulong first, ulong length, ulong start,
                   global accum_t* out, ulong first_out, local accum_t* scratch) {
    const accum_t partial = reduce_work_group(fold_private(in, first, length, start), scratch);
    if (get_local_id(0) == 0)
        out[first_out + get_group_id(0)] = partial;
}

// Finishing in the last work-group.
//
// Each work-group stores its partial, then adds one to `arrivals`; the one that draws
// get_num_groups(0) - 1 knows every other partial is stored, provided the store is ordered
// before the increment (release) and the increment before its reads of the partials
// (acquire). OpenCL C 2.0 and 3.0 (with __opencl_c_atomic_order_acq_rel and
// __opencl_c_atomic_scope_device) say exactly that with atomic_fetch_add_explicit. OpenCL C
// 1.x has only fences and atomic_inc, whose ordering across work-groups the spec leaves
// open; the host runs that idiom only where the compiled kernel shows device-wide fences
// around the atomic (NVIDIA's PTX), and the multi-pass finish elsewhere.
#if defined(REDUCE_ORDERED_ATOMICS)

uint arrive(global uint* arrivals) {
    return atomic_fetch_add_explicit((volatile global atomic_uint*)arrivals, 1u,
                                     memory_order_acq_rel, memory_scope_device);
}

void rearm(global uint* arrivals) {
    atomic_store_explicit((volatile global atomic_uint*)arrivals, 0u, memory_order_relaxed,
                          memory_scope_device);
}

#else

// NVIDIA's compiler makes mem_fence(CLK_GLOBAL_MEM_FENCE) a fence within the work-group
// (membar.cta), which orders nothing for other work-groups. On its devices the host passes
// -D REDUCE_PTX_FENCES, and the fence is PTX's membar.gl, which orders for the whole GPU.
void fence_global_memory(void) {
#if defined(REDUCE_PTX_FENCES)
    __asm__ volatile("membar.gl;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

uint arrive(global uint* arrivals) {
    fence_global_memory(); // the partial's store before the increment
    const uint arrived = atomic_inc((volatile global uint*)arrivals);
    fence_global_memory(); // the increment before the partials' loads
    return arrived;
}

void rearm(global uint* arrivals) {
    atomic_xchg((volatile global uint*)arrivals, 0u);
}

#endif

// How a work-group counts itself in, named so that a device test (test/test_device.cpp) can
// make one work-group skip it, as a launch that did not complete would; every other build
// takes this.
#ifndef REDUCE_ARRIVE
#define REDUCE_ARRIVE(arrivals) arrive(arrivals)
#endif

// `partials` holds get_num_groups(0) values; the result goes to result[result_index]. `arrivals` is
// 0 before the launch, and the last work-group sets it back to 0. The host alternates two counts
// from launch to launch, and work-group 0 zeroes the one the next launch takes
// (`next_arrivals`, idle during this launch): a launch that did not complete, whose count
// stays where it stopped, thus leaves no count behind for the launch after it, and no
// command is spent on resetting it.
kernel void reduce_and_finish(global const input_t* in, ulong first, ulong length, ulong start,
                              global accum_t* partials, global accum_t* result, ulong result_index,
                              local accum_t* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    local uint arrived_last;
    // A plain store: one work-item writes it, and no launch reads it before this one ends.
    if (get_group_id(0) == 0 && get_local_id(0) == 0)
        next_arrivals[0] = 0;
    const accum_t partial = reduce_work_group(fold_private(in, first, length, start), scratch);
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = partial;
        arrived_last = REDUCE_ARRIVE(arrivals) == get_num_groups(0) - 1;
    }
    // With the global fence, what work-item 0 acquired is visible to its whole work-group.
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!arrived_last) // the same for the whole work-group
        return;

    // volatile: the loads go to memory, past any cache that holds an earlier launch's values.
    const volatile global accum_t* arrived_partials = partials;
    accum_t value = identity();
    for (size_t i = get_local_id(0); i < get_num_groups(0); i += get_local_size(0))
        value = op(value, arrived_partials[i]);
    const accum_t total = reduce_work_group(value, scratch);
    if (get_local_id(0) == 0) {
        result[result_index] = total;
        rearm(arrivals);
    }
}

// The check of a user's op or map, which the host cannot compute: the same definitions applied
// in index order, in two launches whose structure is not the passes'. First each work-item folds
// one block of `block` values in a row (the last block may be shorter), in index order, into
// results[its global id], with the map's index counted as the passes count it (in[first] is
// value `start` of the input); then combine_in_order folds those results, in order, on one
// work-item. Contiguous blocks, where the passes interleave their work-items' values.
kernel void reduce_in_order(global const input_t* in, ulong first, ulong length, ulong start,
                            ulong block, global accum_t* results) {
    const ulong begin = get_global_id(0) * block;
    const ulong end = min(begin + block, length);
    accum_t value = identity();
    for (ulong i = begin; i < end; ++i)
        value = op(value, map(load(in, first + i), start + i));
    results[get_global_id(0)] = value;
}

// The second launch: the `count` block results in order, on one work-item; with `go_on`, the
// fold continues from result[0], for an input held in several buffers.
kernel void combine_in_order(global const accum_t* results, ulong count, uint go_on,
                             global accum_t* result) {
    accum_t value = go_on ? result[0] : identity();
    for (ulong i = 0; i < count; ++i)
        value = op(value, results[i]);
    result[0] = value;
}
