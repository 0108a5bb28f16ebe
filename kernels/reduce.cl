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
// definitions applied in index order, block by block of values in a row (reduce_runs_in_order:
// many short runs at once, a work-item each).
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
//                             -D REDUCE_INDEXED (argmin, argmax) a pair of it and its index,
//                             and -D REDUCE_INDEXING where the pass reads values (the first),
//                             which pairs each value with its index (fold_leads).
// It appends the definitions of load, loadn, map, map4, identity, splat4, op, op4 and, with
// REDUCE_INDEXING, wins_in_order, wins4_in_order and lead_op (and rank_of, for REDUCE_KEYS,
// where argmin's and argmax's values rank in 32 bits), for the types and the op chosen on the
// command line (sum, prod, min, max, ..., or the user's own), and, for the path the device
// supports, the relay to the matching built-in. Passes after the first read partials: they are
// built with the accumulator as the input and map as a conversion. It also passes one of
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

#define REDUCE_JOIN_(a, b) a##b
#define REDUCE_JOIN(a, b) REDUCE_JOIN_(a, b)
// A 4-vector of values or of 32-bit lanes converted to accumulators.
#define convert_accum4 REDUCE_JOIN(convert_, REDUCE_ACCUM4)
#if defined(REDUCE_COMBINE_VALUES)
// What read4 combines a load's quarters in: the values' own type, else -D REDUCE_COMBINED
// (int, for products).
#if !defined(REDUCE_COMBINED)
#define REDUCE_COMBINED REDUCE_VALUE
#endif
typedef REDUCE_JOIN(REDUCE_COMBINED, 4) combined4_t;
#define convert_combined4 REDUCE_JOIN(convert_, REDUCE_JOIN(REDUCE_COMBINED, 4))
#endif

// What the fold's four accumulators hold (fold4_t, combined with fold_op4): 4-vectors of
// accumulators, or with -D REDUCE_FOLD_COMBINED (min and max of 1-byte values) of read4's
// combined lanes, int or uint, converted to accumulators once a work-item has read all its
// loads. With a 64-bit comparison a lane and load, the uint8 max took 103 us at 2^28 on an
// H100; in 32-bit lanes 94 to 96, under CUB's 97 for an int32 max of the same bytes
// (docs/ops-and-types.md). The accumulator's identity saturates into the lanes (ULONG_MAX to
// UINT_MAX, LONG_MIN to INT_MIN), still above or below every 1-byte value.
#if defined(REDUCE_FOLD_COMBINED)
typedef combined4_t fold4_t;
#define fold_op4 op4_values
#define fold_identity4() REDUCE_JOIN(convert_combined4, _sat)(splat4(identity()))
#define accumulators_of(folded) convert_accum4(folded)
#else
typedef accum4_t fold4_t;
#define fold_op4 op4
#define fold_identity4() splat4(identity())
#define accumulators_of(folded) (folded)
#endif

value_t load(global const input_t* in, ulong i);   // value i
valuen_t loadn(global const input_t* in, ulong v); // values nv ... nv + n - 1, aligned
accum_t map(value_t x, ulong i);                   // value x, whose index is i, to reduce
accum4_t map4(value4_t x, ulong i);                // map on each lane; lane 0's index is i
accum_t identity(void);                            // op(identity(), x) == x for every x
accum4_t splat4(accum_t x);                        // x in every lane
accum_t op(accum_t a, accum_t b);                  // associative and commutative
accum4_t op4(accum4_t a, accum4_t b);              // op on each lane, as one vector instruction
#if defined(REDUCE_COMBINE_VALUES)
combined4_t op4_values(combined4_t a, combined4_t b); // op4 on a load's quarters (read4)
#endif
accum_t work_group_reduce_op(accum_t x); // defined only when REDUCE_PATH_WORK_GROUP is
accum_t sub_group_reduce_op(accum_t x);  // defined only when REDUCE_PATH_SUB_GROUP is

#if defined(REDUCE_FOLD_COMBINED) || defined(REDUCE_LEAD_WORDS)
// min and max of 1-byte values (REDUCE_FOLD_COMBINED), and argmin's and argmax's leads of
// 1-byte values (REDUCE_LEAD_WORDS), take them out of the load's four 32-bit words by shifts,
// a word's 4 bytes the 4 lanes of an int4 or uint4; -D REDUCE_SIGNED_BYTES extends int8's
// sign. Read as char16, a load compiled to four 4-byte loads on NVIDIA's compiler
// (ld.global.v4.u8) and each byte to a conversion of its own (docs/ops-and-types.md).
#if defined(REDUCE_SIGNED_BYTES)
typedef int4 bytes4_t;
#else
typedef uint4 bytes4_t;
#endif

bytes4_t bytes_of(uint word) {
#if defined(REDUCE_SIGNED_BYTES)
    return as_int4((uint4)(word << 24, word << 16, word << 8, word)) >> 24;
#else
    return (uint4)(word, word >> 8, word >> 16, word >> 24) & 0xffu;
#endif
}
#endif

// The fold's steps, named so that the mutation tests (test/test_mutants.cpp) can break one of
// them, as a -D would, and check that validation notices; every other build takes these. Each
// takes the op it combines with: argmin's and argmax's first pass combines leads (below).
// REDUCE_COMBINE_QUARTERS joins the quarters of a load of 8 or 16 values (4-vectors of
// accumulators, or of values, or for sums of bytes the byte sums in 16-bit fields: read4; on
// CPUs, halves of values in their own type: best_of_lanes()),
// REDUCE_COMBINE_ACCUMULATOR_PAIR the two accumulators of argmin's and argmax's first pass,
// REDUCE_TAIL_END is where the values after the last vector end.
#ifndef REDUCE_COMBINE_QUARTERS
#define REDUCE_COMBINE_QUARTERS(op4, a, b) op4(a, b)
#endif
#ifndef REDUCE_COMBINE_ACCUMULATORS
#define REDUCE_COMBINE_ACCUMULATORS(op4, a, b, c, d) op4(op4(a, b), op4(c, d))
#endif
#ifndef REDUCE_COMBINE_ACCUMULATOR_PAIR
#define REDUCE_COMBINE_ACCUMULATOR_PAIR(op4, a, b) op4(a, b)
#endif
#ifndef REDUCE_COMBINE_LANES
#define REDUCE_COMBINE_LANES(op, v) op(op((v).x, (v).y), op((v).z, (v).w))
#endif
#ifndef REDUCE_TAIL_END
#define REDUCE_TAIL_END(length) (length)
#endif

// A load of n = REDUCE_VALUES_PER_LOAD values and its quarters of 4. (The quarters are taken
// through a union, not as the swizzles .s0123 ... .scdef: Oclgrind 21.10's check for
// uninitialized values takes a swizzle's lanes past the fourth for undefined. read4 halves a
// load of 8 values by .lo and .hi, which it reads as defined.)
typedef union {
    valuen_t all;
    value4_t quarter[REDUCE_VALUES_PER_LOAD / 4];
} quarters_t;

// How many loads each of the fold's accumulators takes an iteration (-D
// REDUCE_LOADS_PER_ACCUMULATOR, else one): the host gives two where that measured faster
// (loads_per_accumulator() in source.cpp), eight loads of 16 bytes in flight for the four
// accumulators below, four for argmin's and argmax's two.
#ifndef REDUCE_LOADS_PER_ACCUMULATOR
#define REDUCE_LOADS_PER_ACCUMULATOR 1
#endif

#if defined(REDUCE_PREFETCH_BYTES)
// On PoCL's CPU devices (-D REDUCE_PREFETCH_BYTES) each iteration asks for the lines of its run
// that lie that many bytes ahead: with the hardware's prefetcher alone a core's run waited on
// memory, and the float sum of 2^28 values took 12.2 ms on the 16-core PoCL, 10.0 so
// (docs/design.md, "Prefetching a CPU's run"). `v` is the iteration's first vector; on CPUs
// its `vectors` vectors follow one another. A prefetch is a hint that never faults, so the
// lines past the run's end, or the buffer's, need no test.
void prefetch_ahead(global const input_t* in, ulong v, uint vectors) {
    global const char* ahead =
        (global const char*)(in + REDUCE_VALUES_PER_LOAD * v) + REDUCE_PREFETCH_BYTES;
    for (uint line = 0; line < vectors * sizeof(valuen_t); line += 64)
        __builtin_prefetch(ahead + line, 0, 3);
}
#else
#define prefetch_ahead(in, v, vectors)
#endif

#if defined(REDUCE_CONTIGUOUS) && defined(REDUCE_OWN_TYPE_OP)
// On CPUs, ops that pick one of the values (-D REDUCE_OWN_TYPE_OP, min or max: the min and max
// of 1-byte values, and argmin's and argmax's blocks, below) fold whole vectors in the
// values' own type, 16 or 32 values an instruction. The best of a vector's lanes: a load of 16
// is halved through a union, since Oclgrind 21.10 takes the lanes of its .lo for undefined
// (quarters_t, above); by quarters through quarters_t the int8 argmax of 2^26 took 1.2 times
// as long on the 16-core PoCL (docs/ops-and-types.md).
value_t best_of_lanes(valuen_t x) {
#if REDUCE_VALUES_PER_LOAD == 16
    const union {
        valuen_t all;
        REDUCE_JOIN(REDUCE_VALUE, 8) part[2];
    } halves = {x};
    const REDUCE_JOIN(REDUCE_VALUE, 8) eight =
        REDUCE_COMBINE_QUARTERS(REDUCE_OWN_TYPE_OP, halves.part[0], halves.part[1]);
#else
    const REDUCE_JOIN(REDUCE_VALUE, 8) eight = x;
#endif
    return REDUCE_COMBINE_LANES(REDUCE_OWN_TYPE_OP,
                                REDUCE_COMBINE_QUARTERS(REDUCE_OWN_TYPE_OP, eight.lo, eight.hi));
}
#endif

#if !defined(REDUCE_INDEXING)

#if defined(REDUCE_TEST_BYTES)

// any and all of 1-byte values (int8, uint8, bool; -D REDUCE_TEST_BYTES, and REDUCE_TEST_ALL
// for all), and the ops of bools that are one of them (the product and min are their all, max
// their any), test a load's 16 bytes as four 32-bit words, a word a lane, where a test of each
// byte widened to its own lane held them to 88% of the stream read on an H100
// (docs/ops-and-types.md). A lane is 1 where the op of its word's bytes' x != 0 is true, else
// 0: for any where the word is nonzero, for all where it has no zero byte. A word has one
// exactly where (w - 0x01010101) & ~w & 0x80808080 is nonzero: the lowest zero byte borrows
// into its own top bit, and no byte below it borrows. The words are read as they are, not
// through loadn: every nonzero byte of a bool is True, so it need not be made 1 first.
fold4_t read4(global const input_t* in, ulong v, ulong first, ulong start) {
    const uint4 words = ((global const uint4*)in)[v];
#if defined(REDUCE_TEST_ALL)
    const int4 tested = ((words - 0x01010101u) & ~words & 0x80808080u) == 0;
#else
    const int4 tested = words != 0;
#endif
    return convert_accum4(-tested); // a vector comparison gives -1 for true
}

#elif defined(REDUCE_SUM_BYTES)

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

// Two words' 16-bit fields added field by field (none carries, above).
uint add_fields(uint a, uint b) {
    return a + b;
}

// Values nv ... nv + 15 of the buffer, summed into one 4-vector of accumulators: the fields of
// the first two quarters and of the last two, one field a lane. The index plays no part.
fold4_t read4(global const input_t* in, ulong v, ulong first, ulong start) {
    const union {
        valuen_t all;
        uint quarter[4];
    } x = {loadn(in, v)};
    const uint front = REDUCE_COMBINE_QUARTERS(add_fields, sum_bytes_in_fields(x.quarter[0]),
                                               sum_bytes_in_fields(x.quarter[1]));
    const uint back = REDUCE_COMBINE_QUARTERS(add_fields, sum_bytes_in_fields(x.quarter[2]),
                                              sum_bytes_in_fields(x.quarter[3]));
    const int4 sums = as_int4((uint4)(front & 0xffffu, front >> 16, back & 0xffffu, back >> 16)) -
                      (int)(4 * REDUCE_BYTE_OFFSET);
    return (accum4_t)((accum_t)sums.x, (accum_t)sums.y, (accum_t)sums.z, (accum_t)sums.w);
}

#else

// Values nv ... nv + n - 1 of the buffer, mapped into one 4-vector of accumulators (of
// combined lanes with REDUCE_FOLD_COMBINED); in[first] has the index `start` (its place in
// the whole input, which may be held in several buffers). The load is mapped a quarter (4
// lanes) at a time, and the quarters are combined lane by lane.
fold4_t read4(global const input_t* in, ulong v, ulong first, ulong start) {
#if defined(REDUCE_FOLD_COMBINED)
    const union {
        valuen_t all;
        uint quarter[4];
    } x = {loadn(in, v)};
    const combined4_t front =
        REDUCE_COMBINE_QUARTERS(op4_values, bytes_of(x.quarter[0]), bytes_of(x.quarter[1]));
    const combined4_t back =
        REDUCE_COMBINE_QUARTERS(op4_values, bytes_of(x.quarter[2]), bytes_of(x.quarter[3]));
    return REDUCE_COMBINE_QUARTERS(op4_values, front, back);
#elif defined(REDUCE_COMBINE_VALUES)
    const quarters_t x = {loadn(in, v)};
    // min and max of 2-byte integers, whose accumulator is wider (int16's is int64), pick
    // the load's extremes lane by lane in the values' own type, and products of int8
    // and int16 multiply in 32 bits (REDUCE_COMBINED int), then only the lanes' results are
    // converted: 4 conversions and 64-bit operations a load instead of 8 or 16. Both are
    // exact: a lane's 4 int8 or 2 int16 values multiply to at most 2^28 or 2^30 in
    // magnitude, and the integer accumulator's product of those wraps around as the values'
    // products one by one would. There is no map: a user's map turns this off, and min's and
    // max's is the conversion.
    combined4_t folded = convert_combined4(x.quarter[0]);
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(op4_values, folded, convert_combined4(x.quarter[q]));
    return convert_accum4(folded);
#elif REDUCE_VALUES_PER_LOAD == 8
    // Halves as .lo and .hi, not through the union: so the float16 sum, whose load converts
    // from a private copy (its row in types.cpp), took 180 us on an H100 at 2^28 where it
    // took 187 to 194, whatever the load (docs/ops-and-types.md).
    const valuen_t x = loadn(in, v);
    const ulong i = 8 * v - first + start;
    return REDUCE_COMBINE_QUARTERS(op4, map4(x.lo, i), map4(x.hi, i + 4));
#else
    const quarters_t x = {loadn(in, v)};
    const ulong i = REDUCE_VALUES_PER_LOAD * v - first + start;
    accum4_t folded = map4(x.quarter[0], i);
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(op4, folded, map4(x.quarter[q], i + 4 * q));
    return folded;
#endif
}

#endif

// One accumulator's loads of an iteration, vectors v, v + step, ..., combined lane by lane.
fold4_t read_run(global const input_t* in, ulong v, ulong step, ulong first, ulong start) {
    fold4_t run = read4(in, v, first, start);
    for (uint k = 1; k < REDUCE_LOADS_PER_ACCUMULATOR; ++k)
        run = fold_op4(run, read4(in, v + k * step, first, start));
    return run;
}

#if defined(REDUCE_CONTIGUOUS) && defined(REDUCE_OWN_TYPE_OP)
// A CPU's run of 1-byte values' min or max, vectors begin ... end - 1 (step is 1), folded in
// the values' own type by four accumulators. GPUs' fold (below) takes the bytes out of 32-bit
// words, which PoCL compiled to scalar code, some 40 instructions a load: the int8 max of 2^26
// values took 2215 us on the 16-core PoCL, six times its argmax, and 319 to 368 so
// (docs/ops-and-types.md). No map reads the index: values are only folded in their own type
// where none is given.
accum_t fold_vectors(global const input_t* in, ulong first, ulong start, ulong first_vector,
                     ulong begin, ulong end, ulong step) {
    if (begin >= end)
        return identity();
    valuen_t a = loadn(in, first_vector + begin);
    valuen_t b = a, c = a, d = a;
    ulong i = begin + 1;
    for (; i + 3 < end; i += 4) {
        prefetch_ahead(in, first_vector + i, 4);
        a = REDUCE_OWN_TYPE_OP(a, loadn(in, first_vector + i));
        b = REDUCE_OWN_TYPE_OP(b, loadn(in, first_vector + i + 1));
        c = REDUCE_OWN_TYPE_OP(c, loadn(in, first_vector + i + 2));
        d = REDUCE_OWN_TYPE_OP(d, loadn(in, first_vector + i + 3));
    }
    for (; i < end; ++i)
        a = REDUCE_OWN_TYPE_OP(a, loadn(in, first_vector + i));
    return map(best_of_lanes(REDUCE_COMBINE_ACCUMULATORS(REDUCE_OWN_TYPE_OP, a, b, c, d)), 0);
}

#elif defined(REDUCE_CONTIGUOUS) && defined(REDUCE_WIDENING_SUM)
// A CPU's run of 1-byte values' sum into a 64-bit accumulator, vectors begin ... end - 1 (step
// is 1): four accumulators of 16-bit lanes (-D REDUCE_WIDENING_SUM, short for int8, ushort
// for uint8 and bool) add the loads of 16 bytes, each up to REDUCE_WIDENING_LOADS loads, which
// 256 values of -128, 127 or 255 still fit, and are then added into 64-bit lanes. GPUs' fold
// (below) sums the bytes in 16-bit fields of 32-bit words, which PoCL compiled to scalar code:
// the int8 sum of 2^26 values took 2521 us on the 16-core PoCL, 375 so, its any 338
// (docs/ops-and-types.md). No map reads the index, as for min and max above.
typedef REDUCE_JOIN(REDUCE_WIDENING_SUM, 16) widened_t;
#define widen REDUCE_JOIN(REDUCE_JOIN(convert_, REDUCE_WIDENING_SUM), 16)
#define REDUCE_WIDENING_LOADS 256
#define add_lanes(a, b) ((a) + (b))

accum_t fold_vectors(global const input_t* in, ulong first, ulong start, ulong first_vector,
                     ulong begin, ulong end, ulong step) {
    long16 total = 0;
    for (ulong i = begin; i < end;) {
        const ulong stop = min(end, i + 4 * REDUCE_WIDENING_LOADS);
        widened_t a = 0, b = 0, c = 0, d = 0;
        for (; i + 3 < stop; i += 4) {
            prefetch_ahead(in, first_vector + i, 4);
            a += widen(loadn(in, first_vector + i));
            b += widen(loadn(in, first_vector + i + 1));
            c += widen(loadn(in, first_vector + i + 2));
            d += widen(loadn(in, first_vector + i + 3));
        }
        // At most three loads are left, one for each of a, b and c.
        if (i < stop)
            a += widen(loadn(in, first_vector + i++));
        if (i < stop)
            b += widen(loadn(in, first_vector + i++));
        if (i < stop)
            c += widen(loadn(in, first_vector + i++));
        total += REDUCE_COMBINE_ACCUMULATORS(add_lanes, convert_long16(a), convert_long16(b),
                                             convert_long16(c), convert_long16(d));
    }
    // The lanes halved through a union, as in best_of_lanes().
    const union {
        long16 all;
        long8 part[2];
    } halves = {total};
    const long8 eight = REDUCE_COMBINE_QUARTERS(add_lanes, halves.part[0], halves.part[1]);
    return (accum_t)REDUCE_COMBINE_LANES(add_lanes,
                                         REDUCE_COMBINE_QUARTERS(add_lanes, eight.lo, eight.hi));
}

#else

// A work-item's vectors begin, begin + step, ... (before `end`, counted from first_vector),
// folded. Four accumulators keep four independent runs of loads in flight; each takes the
// next `run` vectors of the work-item's in turn.
accum_t fold_vectors(global const input_t* in, ulong first, ulong start, ulong first_vector,
                     ulong begin, ulong end, ulong step) {
    fold4_t a = fold_identity4();
    fold4_t b = a, c = a, d = a;
    const ulong run = REDUCE_LOADS_PER_ACCUMULATOR * step;
    ulong i = begin;
    for (; i + 4 * run - step < end; i += 4 * run) {
        prefetch_ahead(in, first_vector + i, 4 * REDUCE_LOADS_PER_ACCUMULATOR);
        a = fold_op4(a, read_run(in, first_vector + i, step, first, start));
        b = fold_op4(b, read_run(in, first_vector + i + run, step, first, start));
        c = fold_op4(c, read_run(in, first_vector + i + 2 * run, step, first, start));
        d = fold_op4(d, read_run(in, first_vector + i + 3 * run, step, first, start));
    }
    for (; i < end; i += step)
        a = fold_op4(a, read4(in, first_vector + i, first, start));
    return REDUCE_COMBINE_LANES(op,
                                accumulators_of(REDUCE_COMBINE_ACCUMULATORS(fold_op4, a, b, c, d)));
}
#endif

#else

// argmin's and argmax's first pass. Pairing every value with its 64-bit index and keeping the
// pair that wins made the fold compute-bound (1.6 to 2.2 times min's time on an H100,
// docs/ops-and-types.md). A work-item keeps less: leads, a value and its place in 32 bits,
// counted from the first value of the segment's first vector (below). Each lane of each
// accumulator sees its values in index order, so its lead is the first of the best values it
// has read, which one comparison (wins_in_order, the op's condition without indices: ties
// keep the lead) and two selects per value keep; the lanes of a load share its place, the
// lane (x +0, y +1, z +2, w +3) added once they are combined. Leads combine with lead_op,
// the op's own condition, and one pair is made per segment.
// A lead's value is an accumulator, or with -D REDUCE_LEAD (int or uint: 1- and 2-byte integers
// that no map changes) the 32-bit type that holds each value exactly. With 64-bit leads the
// int8 argmax of 2^28 values took 2116 us on an H100, 100 with these (docs/ops-and-types.md).
// The identity saturates into it (LONG_MIN to INT_MIN), still below or above every value.
#if defined(REDUCE_LEAD)
typedef REDUCE_LEAD lead_value_t;
typedef REDUCE_JOIN(REDUCE_LEAD, 4) lead_value4_t;
#define convert_lead_value REDUCE_JOIN(REDUCE_JOIN(convert_, REDUCE_LEAD), _sat)
#else
typedef REDUCE_ACCUM lead_value_t;
typedef REDUCE_ACCUM4 lead_value4_t;
#define convert_lead_value(x) (x)
#endif
typedef struct {
    lead_value_t value;
    uint index;
} lead_t;
typedef struct {
    lead_t x, y, z, w;
} lead4_t;
// The same four leads as two vectors (on CPUs, below).
typedef struct {
    lead_value4_t value;
    uint4 index;
} lead_lanes_t;

bool wins_in_order(lead_t a, lead_t b); // whether b, read after a, takes the lead
lead_t lead_op(lead_t a, lead_t b);     // op on leads
// wins_in_order lane by lane: -1 where b's lane takes the lead, else 0; -D REDUCE_LEAD_MASK4
// is the signed integer vector as wide as lead_value4_t, which its comparisons give.
REDUCE_LEAD_MASK4 wins4_in_order(lead_lanes_t a, lead_lanes_t b);

// The place of an accumulator that reads no vector: it stands for the identity, and loses
// every tie, also with its lane added.
#define REDUCE_NO_LEAD (UINT_MAX - 3)

// A segment of the vectors holds at most 2^31 values, so that places fit in 32 bits whatever
// the input's length (the tests take a few vectors to fold many segments).
#ifndef REDUCE_SEGMENT_VECTORS
#define REDUCE_SEGMENT_VECTORS (0x80000000ul / REDUCE_VALUES_PER_LOAD)
#endif

// Field by field: ?: on the whole struct made NVIDIA's compiler branch and copy a 64-bit lead
// through local memory for each value: the int64 argmax of 2^28 values took 1445 us on an
// H100, twice its max, and 698 so (docs/ops-and-types.md).
lead_t take_in_order(lead_t a, lead_t b) {
    const bool won = wins_in_order(a, b);
    const lead_t taken = {won ? b.value : a.value, won ? b.index : a.index};
    return taken;
}

lead4_t take4_in_order(lead4_t a, lead4_t b) {
    const lead4_t taken = {take_in_order(a.x, b.x), take_in_order(a.y, b.y),
                           take_in_order(a.z, b.z), take_in_order(a.w, b.w)};
    return taken;
}

lead4_t lead_op4(lead4_t a, lead4_t b) {
    const lead4_t won = {lead_op(a.x, b.x), lead_op(a.y, b.y), lead_op(a.z, b.z),
                         lead_op(a.w, b.w)};
    return won;
}

// Four mapped values, leads at `index`.
lead4_t leads_at(accum4_t mapped, uint index) {
    const lead4_t leads = {{convert_lead_value(mapped.x.value), index},
                           {convert_lead_value(mapped.y.value), index},
                           {convert_lead_value(mapped.z.value), index},
                           {convert_lead_value(mapped.w.value), index}};
    return leads;
}

#if defined(REDUCE_LEAD_WORDS)
// 1-byte values (-D REDUCE_LEAD_WORDS) give a lead a 32-bit word, a load's four words the
// leads' four lanes (lanes_apart adds nothing). A lead a byte took one comparison and two
// selects a byte; on an H100 at 2^28 the int8 argmax took 100 us so, 97.7 a word.
#if defined(REDUCE_BOOL_LEADS)
// bool's loads make each byte 0 or 1, and a byte beats the identity (argmax's 0, argmin's 1)
// only where it differs from it, so a word's lead is the first byte that differs or, where
// none does, its first, which holds the identity's value (118 us a byte, 97 so).
lead_t lead_of_word(uint word, uint index) {
    const uint loser = identity().value != 0; // argmax's 0, argmin's the accumulator's highest
    const uint differs = word ^ (loser * 0x01010101u);
    // The bits below the lowest set one, 32 where none is (ctz is OpenCL C 2.0's).
    const uint below = popcount((differs - 1) & ~differs);
    const lead_t lead = {(differs != 0) ^ loser, index + ((below >> 3) & 3)};
    return lead;
}

// A bool's lead has its byte's place already.
lead_t first_in_word(global const input_t* in, ulong base, lead_t lead) {
    return lead;
}
#else
// int8's and uint8's lead is a word's best byte at the word's place (`index`): the four
// compared without places. The segment's lead finds its byte at the end (first_in_word):
// leads from different words rank by the words' places as by their bytes'.
lead_t lead_of_word(uint word, uint index) {
    const bytes4_t values = bytes_of(word);
    const lead_t x = {values.x, index}, y = {values.y, index}, z = {values.z, index},
                 w = {values.w, index};
    return take_in_order(take_in_order(x, y), take_in_order(z, w));
}

// The lead moved from its word's place to the word's first byte of its value, read again;
// `base` is the buffer's index of the segment's first value.
lead_t first_in_word(global const input_t* in, ulong base, lead_t lead) {
    if (lead.index >= REDUCE_NO_LEAD)
        return lead;
    const bytes4_t values = bytes_of(((global const uint*)in)[(base + lead.index) / 4]);
    lead.index += values.x == lead.value   ? 0
                  : values.y == lead.value ? 1
                  : values.z == lead.value ? 2
                                           : 3;
    return lead;
}
#endif
#endif

// read4 as leads: values nv ... nv + n - 1, the first of which is at `index` in the segment.
// Their indices in the whole input go to the map, which may use them; where it does not, the
// compiler drops them.
lead4_t read_leads(global const input_t* in, ulong v, ulong first, ulong start, uint index) {
#if defined(REDUCE_LEAD_WORDS)
    const union {
        valuen_t all;
        uint word[4];
    } words = {loadn(in, v)};
    const lead4_t leads = {
        lead_of_word(words.word[0], index), lead_of_word(words.word[1], index + 4),
        lead_of_word(words.word[2], index + 8), lead_of_word(words.word[3], index + 12)};
    return leads;
#else
    const quarters_t x = {loadn(in, v)};
    const ulong i = REDUCE_VALUES_PER_LOAD * v - first + start;
    lead4_t folded = leads_at(map4(x.quarter[0], i), index);
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(take4_in_order, folded,
                                         leads_at(map4(x.quarter[q], i + 4 * q), index + 4 * q));
    return folded;
#endif
}

// The leads of one place with their lanes' places; a word's lead has its own already.
lead4_t lanes_apart(lead4_t leads) {
#if !defined(REDUCE_LEAD_WORDS)
    leads.y.index += 1;
    leads.z.index += 2;
    leads.w.index += 3;
#endif
    return leads;
}

#if defined(REDUCE_CONTIGUOUS)
// On CPUs the fold keeps its leads as lanes, a vector of values and one of places, so that
// one vector comparison and two selects take a load's four values: as four structs PoCL's
// compiler kept them in scalar registers, a comparison and two conditional moves a value. On
// the 16-core PoCL the int32 argmax of 2^26 values took 3366 us so against 5927, the float16
// argmax 2353 against 9066 (docs/ops-and-types.md). GPUs keep the structs, their fold as
// tuned on the H100, and an unused wins4_in_order().
lead_lanes_t lanes_of(lead4_t leads) {
    const lead_lanes_t lanes = {
        (lead_value4_t)(leads.x.value, leads.y.value, leads.z.value, leads.w.value),
        (uint4)(leads.x.index, leads.y.index, leads.z.index, leads.w.index)};
    return lanes;
}

lead4_t leads_of(lead_lanes_t lanes) {
    const lead4_t leads = {{lanes.value.x, lanes.index.x},
                           {lanes.value.y, lanes.index.y},
                           {lanes.value.z, lanes.index.z},
                           {lanes.value.w, lanes.index.w}};
    return leads;
}

// take4_in_order on lanes.
lead_lanes_t take_lanes_in_order(lead_lanes_t a, lead_lanes_t b) {
    const REDUCE_LEAD_MASK4 won = wins4_in_order(a, b);
    const lead_lanes_t taken = {select(a.value, b.value, won),
                                select(a.index, b.index, as_uint4(convert_int4(won)))};
    return taken;
}

// Four mapped values as lanes, at `index`.
lead_lanes_t lanes_at(value4_t x, ulong i, uint index) {
    const lead_lanes_t lanes = {(lead_value4_t)(convert_lead_value(map(x.x, i).value),
                                                convert_lead_value(map(x.y, i + 1).value),
                                                convert_lead_value(map(x.z, i + 2).value),
                                                convert_lead_value(map(x.w, i + 3).value)),
                                (uint4)(index)};
    return lanes;
}

// read_leads as lanes, made from the load's values rather than from its leads: PoCL 5.0 built
// the leads' structs in memory and read them back as vectors, which took twice the structs'
// time (docs/ops-and-types.md). A word's lead is found in the word first.
lead_lanes_t read_lanes(global const input_t* in, ulong v, ulong first, ulong start, uint index) {
#if defined(REDUCE_LEAD_WORDS)
    return lanes_of(read_leads(in, v, first, start, index));
#else
    const quarters_t x = {loadn(in, v)};
    const ulong i = REDUCE_VALUES_PER_LOAD * v - first + start;
    lead_lanes_t folded = lanes_at(x.quarter[0], i, index);
    for (uint q = 1; q < REDUCE_VALUES_PER_LOAD / 4; ++q)
        folded = REDUCE_COMBINE_QUARTERS(take_lanes_in_order, folded,
                                         lanes_at(x.quarter[q], i + 4 * q, index + 4 * q));
    return folded;
#endif
}

typedef lead_lanes_t fold_leads_t;
#define read_fold_leads read_lanes
#define fold_leads_of lanes_of
#define leads_of_fold leads_of
#define take_in_fold take_lanes_in_order
#else
typedef lead4_t fold_leads_t;
#define read_fold_leads read_leads
#define fold_leads_of(leads) (leads)
#define leads_of_fold(leads) (leads)
#define take_in_fold take4_in_order
#endif

#if defined(REDUCE_CONTIGUOUS) && defined(REDUCE_OWN_TYPE_OP)
// On CPUs the leads of 1- and 2-byte integers and bools (-D REDUCE_OWN_TYPE_OP: max for argmax,
// min for argmin) compare four 32-bit lanes a load, where their max compares 16 or 32 values an
// instruction in their own type: the int16 argmax of 2^26 values took 3.7 times the max's time
// on the 16-core PoCL, int8's 2.5. So a run's whole blocks of REDUCE_BLOCK_VECTORS vectors are
// first taken by their best value alone, in the values' own type; the first block whose best
// no later block's beats holds the run's first best value, which is then found in it. The
// int16 argmax of 2^26 took 897 us so against 3547, int8's 373 against 6109
// (docs/ops-and-types.md). bool's loads make its bytes 0 or 1, as its leads' values are.
#define REDUCE_BLOCK_VECTORS 16

// The best of each lane of vectors v ... v + REDUCE_BLOCK_VECTORS - 1.
valuen_t best_of_block(global const input_t* in, ulong v) {
    valuen_t best = loadn(in, v);
    for (uint k = 1; k < REDUCE_BLOCK_VECTORS; ++k)
        best = REDUCE_OWN_TYPE_OP(best, loadn(in, v + k));
    return best;
}

// The lead of the whole blocks from vector *i on, before `end`, with its place in the segment
// (whose first vector is `segment`), or `no_lead` where there is none; *i moves past them.
lead_t lead_of_blocks(global const input_t* in, ulong first_vector, ulong segment, ulong* i,
                      ulong end, lead_t no_lead) {
    const ulong blocks = *i < end ? (end - *i) / REDUCE_BLOCK_VECTORS : 0;
    if (blocks == 0)
        return no_lead;
    const ulong from = first_vector + *i;
    value_t best = best_of_lanes(best_of_block(in, from));
    ulong best_block = 0;
    for (ulong block = 1; block < blocks; ++block) {
        const ulong v = from + block * REDUCE_BLOCK_VECTORS;
        prefetch_ahead(in, v, REDUCE_BLOCK_VECTORS);
        const value_t block_best = best_of_lanes(best_of_block(in, v));
        if (REDUCE_OWN_TYPE_OP(best, block_best) != best) { // strictly better: ties keep the first
            best = block_best;
            best_block = block;
        }
    }
    *i += blocks * REDUCE_BLOCK_VECTORS;
    ulong at = (from + best_block * REDUCE_BLOCK_VECTORS) * REDUCE_VALUES_PER_LOAD;
    while (load(in, at) != best)
        ++at;
    const lead_t lead = {best, (uint)(at - (first_vector + segment) * REDUCE_VALUES_PER_LOAD)};
    return lead;
}
#endif

// fold_vectors's loop over the work-item's vectors in the segment of REDUCE_SEGMENT_VECTORS
// vectors from `segment` on, as leads, then the pair that wins. Two accumulators, not four:
// with four, the kernel took 72 to 78 registers on an H100, past the 64 that four work-groups
// of 256 per compute unit leave a work-item, and 2^28 values took 4% longer
// (docs/ops-and-types.md). Each takes two loads a turn where its leads are 32 bits, both
// loaded before either is compared: with four loads in flight the argmax of 2^28 int32, float,
// uint16, int8 or bool values took 3 to 10% less time on an H200, and the int32 argmax of
// 2^24 on a 16-core CPU 29% less; 64-bit leads take one, with which the double argmax was 1%
// faster. On CPUs each iteration prefetches as fold_vectors()'s does: the int32 argmax of 2^26
// values took 2065 us so on the 16-core PoCL, 3089 without (docs/ops-and-types.md). Each
// accumulator reads its vectors in index order. Ties keep the lead, so each starts from its
// first vector, not from the identity (whose tie with a value would keep the identity); one
// that reads none holds no lead.
accum_t fold_segment(global const input_t* in, ulong first, ulong start, ulong first_vector,
                     ulong segment, ulong begin, ulong end, ulong step) {
    ulong i = begin >= segment ? begin : begin + (segment - begin + step - 1) / step * step;
    end = min(end, segment + REDUCE_SEGMENT_VECTORS);
    const lead_t no_lead = {convert_lead_value(identity().value), REDUCE_NO_LEAD};
    const lead4_t none = {no_lead, no_lead, no_lead, no_lead};
#if defined(REDUCE_CONTIGUOUS) && defined(REDUCE_OWN_TYPE_OP)
    const lead_t blocks_lead = lead_of_blocks(in, first_vector, segment, &i, end, no_lead);
#endif
    // Only where an accumulator's vector is in the segment is `apart` less than 2^31.
    const uint apart = (uint)step * REDUCE_VALUES_PER_LOAD;
    uint index = (uint)(i - segment) * REDUCE_VALUES_PER_LOAD;
#define REDUCE_READ(k)                                                                             \
    read_fold_leads(in, first_vector + i + (k)*step, first, start, index + (k)*apart)
    fold_leads_t a = i < end ? REDUCE_READ(0) : fold_leads_of(none);
    fold_leads_t b = i + step < end ? REDUCE_READ(1) : fold_leads_of(none);
    i += 2 * step;
    index += 2 * apart;
#if REDUCE_LOADS_PER_ACCUMULATOR == 2
    for (; i + 3 * step < end; i += 4 * step, index += 4 * apart) {
        prefetch_ahead(in, first_vector + i, 4);
        const fold_leads_t a0 = REDUCE_READ(0), b0 = REDUCE_READ(1), a1 = REDUCE_READ(2),
                           b1 = REDUCE_READ(3);
        a = take_in_fold(take_in_fold(a, a0), a1);
        b = take_in_fold(take_in_fold(b, b0), b1);
    }
#endif
    for (; i + step < end; i += 2 * step, index += 2 * apart) {
        prefetch_ahead(in, first_vector + i, 2);
        a = take_in_fold(a, REDUCE_READ(0));
        b = take_in_fold(b, REDUCE_READ(1));
    }
    if (i < end)
        a = take_in_fold(a, REDUCE_READ(0));
#undef REDUCE_READ
    lead_t lead = REDUCE_COMBINE_LANES(lead_op, lanes_apart(REDUCE_COMBINE_ACCUMULATOR_PAIR(
                                                    lead_op4, leads_of_fold(a), leads_of_fold(b))));
#if defined(REDUCE_LEAD_WORDS)
    lead = first_in_word(in, REDUCE_VALUES_PER_LOAD * (first_vector + segment), lead);
#endif
#if defined(REDUCE_CONTIGUOUS) && defined(REDUCE_OWN_TYPE_OP)
    lead = lead_op(blocks_lead, lead);
#endif
    const accum_t pair = {lead.value, REDUCE_VALUES_PER_LOAD * (first_vector + segment) - first +
                                          start + lead.index};
    return lead.index >= REDUCE_NO_LEAD ? identity() : pair;
}

// fold_vectors for argmin's and argmax's first pass, segment by segment.
accum_t fold_vectors(global const input_t* in, ulong first, ulong start, ulong first_vector,
                     ulong begin, ulong end, ulong step) {
    ulong segment = begin - begin % REDUCE_SEGMENT_VECTORS;
    accum_t folded = fold_segment(in, first, start, first_vector, segment, begin, end, step);
    for (segment += REDUCE_SEGMENT_VECTORS; segment < end; segment += REDUCE_SEGMENT_VECTORS)
        folded =
            op(folded, fold_segment(in, first, start, first_vector, segment, begin, end, step));
    return folded;
}

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
    accum_t value = fold_vectors(in, first, start, first_vector, begin, end, step);
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

#elif defined(REDUCE_INDEXED)

// argmin's and argmax's pairs: a tree that quarters the active work-items each step, half
// the steps and barriers of the textbook tree below, whose steps cost a pair's full op (two
// comparisons and the index's) on 16 bytes of local memory: with it, int32 argmax on an H100
// took 12.7 us on average from 2^20 to 2^23 values, with this one 11.0 (docs/ops-and-types.md,
// "The pairs' tree"). Each active work-item keeps its pair, which is slots[lid], in `value`.
// A work-group size that is not a power of 4 ends with one halving step. A macro, since the
// pairs' keys (REDUCE_KEYS, below) take the same tree with another type and op.
#define REDUCE_QUARTERING_TREE(slots, value, op)                                                   \
    do {                                                                                           \
        const size_t lid = get_local_id(0);                                                        \
        slots[lid] = value;                                                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        size_t active = get_local_size(0);                                                         \
        for (; active >= 4; active /= 4) {                                                         \
            const size_t quarter = active / 4;                                                     \
            if (lid < quarter)                                                                     \
                slots[lid] = value = op(op(value, slots[lid + quarter]),                           \
                                        op(slots[lid + 2 * quarter], slots[lid + 3 * quarter]));   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (active == 2) {                                                                         \
            if (lid == 0)                                                                          \
                slots[0] = op(value, slots[1]);                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
    } while (0)

#if defined(REDUCE_KEYS)

// Where the values rank in 32 bits (an int, uint or float accumulator's, or 1- and 2-byte
// integers', as their 32-bit leads hold them) and every index of the program's launches is
// below UINT_MAX, the host builds the first pass with -D REDUCE_KEYS:
// there a pair is one 64-bit key, rank_of(value) above, UINT_MAX - index below. The pair that
// wins has the largest key (rank_of ranks the first NaN's and the extreme's value highest and
// equal values, -0 and +0, equal; of equal values the smaller index has the larger key), and
// the identity, its index LONG_MAX clamped to UINT_MAX, is below every value of its rank. So
// the tree takes max() on 8 bytes where the pairs' takes op() on 16: float argmax on two H100s
// took 12.1 and 12.6 us at 2^22 instead of 13.4 and 13.2 (medians; docs/ops-and-types.md). The
// winner's owner then hands its pair over as it is, every bit kept. (Both trees in one kernel,
// chosen at run time, took PoCL 3.1 twice as long to compile.)
uint rank_of(REDUCE_ACCUM value); // appended by the host, for argmin or argmax

ulong key_of(accum_t pair) {
    const ulong index = min((ulong)pair.index, (ulong)UINT_MAX);
    return (ulong)rank_of(pair.value) << 32 | (UINT_MAX - index);
}

// The keys take the first half of `scratch`, so its last pair is free where there are 2
// work-items or more (one reads its key before it writes). Where every pair is the identity,
// every work-item owns the best key, and none writes.
accum_t reduce_work_group(accum_t pair, local accum_t* scratch) {
    local ulong* keys = (local ulong*)scratch;
    const ulong own = key_of(pair);
    ulong key = own;
    REDUCE_QUARTERING_TREE(keys, key, max);
    const ulong best = keys[0];
    const bool identity_only = (uint)best == 0;
    if (own == best && !identity_only)
        scratch[get_local_size(0) - 1] = pair;
    barrier(CLK_LOCAL_MEM_FENCE);
    return identity_only ? identity() : scratch[get_local_size(0) - 1];
}

#else

accum_t reduce_work_group(accum_t value, local accum_t* scratch) {
    REDUCE_QUARTERING_TREE(scratch, value, op);
    return scratch[0];
}

#endif

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

// The check of many short runs at once (an axis reduction's results): work-item k folds run k,
// values k * run ... k * run + run - 1, in index order, counting the index from the run's
// first value, as reduce_in_order folds a block of one run alone; the identity then takes the
// result as combine_in_order takes a block's.
kernel void reduce_runs_in_order(global const input_t* in, ulong run, ulong count,
                                 global accum_t* results) {
    const ulong k = get_global_id(0);
    if (k >= count)
        return;
    accum_t value = identity();
    for (ulong i = 0; i < run; ++i)
        value = op(value, map(load(in, k * run + i), i));
    results[k] = op(identity(), value);
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
