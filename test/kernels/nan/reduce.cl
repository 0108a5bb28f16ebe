// A float kernel whose result is NaN, as an overflowing or broken reduction might give:
// clreduce must report it as wrong (exit 1), and its --json must stay valid JSON.
// The names the appended definitions use, as reduce.cl declares them.
typedef REDUCE_INPUT input_t;
typedef REDUCE_VALUE value_t;
typedef REDUCE_VALUE4 value4_t;
typedef REDUCE_VALUEN valuen_t;
typedef REDUCE_ACCUM accum_t;
typedef REDUCE_ACCUM4 accum4_t;
float identity(void);
float op(float a, float b);
float4 op4(float4 a, float4 b);

kernel void reduce(global const float* in, ulong first, ulong length, ulong start,
                   global float* out, ulong first_out, local float* scratch) {
    if (get_local_id(0) == 0)
        out[first_out + get_group_id(0)] = op(identity(), NAN);
}

kernel void reduce_and_finish(global const float* in, ulong first, ulong length, ulong start,
                              global float* partials, global float* result, ulong result_index,
                              local float* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    if (get_global_id(0) == 0)
        result[result_index] = op(identity(), NAN);
}
