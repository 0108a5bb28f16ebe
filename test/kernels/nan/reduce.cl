// A float kernel whose result is NaN, as an overflowing or broken reduction might give:
// clreduce must report it as wrong (exit 1), and its --json must stay valid JSON.
float identity(void);
float op(float a, float b);
float4 op4(float4 a, float4 b);

kernel void reduce(global const float* in, ulong first, ulong length, global float* out,
                   ulong first_out, local float* scratch) {
    if (get_local_id(0) == 0)
        out[first_out + get_group_id(0)] = op(identity(), NAN);
}

kernel void reduce_and_finish(global const float* in, ulong first, ulong length,
                              global float* partials, global float* result, ulong result_index,
                              local float* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    if (get_global_id(0) == 0)
        result[result_index] = op(identity(), NAN);
}
