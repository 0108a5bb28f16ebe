// A kernel that builds and runs but computes nonsense, as a driver with a broken barrier
// might: clreduce must say the result is wrong and exit 1, never print it as a success.
// The names the appended definitions use, as reduce.cl declares them.
typedef REDUCE_INPUT input_t;
typedef REDUCE_VALUE value_t;
typedef REDUCE_VALUE4 value4_t;
typedef REDUCE_VALUEN valuen_t;
typedef REDUCE_ACCUM accum_t;
typedef REDUCE_ACCUM4 accum4_t;
int identity(void);
int op(int a, int b);

kernel void reduce(global const int* in, ulong first, ulong length, ulong start, global int* out,
                   ulong first_out, local int* scratch) {
    if (get_local_id(0) == 0)
        out[first_out + get_group_id(0)] = op(identity(), 12345);
}

kernel void reduce_and_finish(global const int* in, ulong first, ulong length, ulong start,
                              global int* partials, global int* result, ulong result_index,
                              local int* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    if (get_global_id(0) == 0)
        result[result_index] = op(identity(), 12345);
}
