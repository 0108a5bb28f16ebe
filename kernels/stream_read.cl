// The streaming-read ceiling that clreduce's benchmark compares itself against: read every
// int4 of the input once, with the same grid-stride walk as reduce.cl's first step, and do as
// little else as possible. Folding with xor keeps the loads alive, and the compiler cannot
// drop them because of the conditional store, which fires only if the fold happens to equal
// `unlikely` (harmless when it does: the sink is never read).

kernel void stream_read(global const int4* in, ulong vectors, int unlikely, global int* sink) {
    const ulong stride = get_global_size(0);
    int4 folded = (int4)(0);
    ulong i = get_global_id(0);
    for (; i + stride < vectors; i += 2 * stride)
        folded ^= in[i] ^ in[i + stride];
    if (i < vectors)
        folded ^= in[i];

    const int value = folded.x ^ folded.y ^ folded.z ^ folded.w;
    if (value == unlikely)
        sink[0] = value;
}
