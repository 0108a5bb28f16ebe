// The benchmark's streaming-read ceiling (clreduce's --iterations and --sweep): the reads of a
// pass's first step, reduce.cl's fold_private, with nothing after them. Not part of the
// reduction's program: the benchmark alone builds it, appended to the text the reducer's
// program was built from (StreamRead in src/measure.cpp), so that it reads exactly as the
// reduction does.
//
// The store fires only if the fold happens to equal `unlikely`, but the compiler cannot know
// that, so it keeps every load.
kernel void stream_read(global const input_t* in, ulong length, accum_t unlikely,
                        global accum_t* sink) {
    const accum_t folded = fold_private(in, 0, length, 0);
#if defined(REDUCE_INDEXED) // argmin's and argmax's pairs compare by their fields
    if (folded.value == unlikely.value && folded.index == unlikely.index)
#else
    if (folded == unlikely)
#endif
        sink[0] = folded;
}
