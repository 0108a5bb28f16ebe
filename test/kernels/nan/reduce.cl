// A float kernel whose result is NaN, as an overflowing or broken reduction might give:
// clreduce must report it as wrong (exit 1), and its --json must stay valid JSON.
float identity(void);
float op(float a, float b);
float4 op4(float4 a, float4 b);

kernel void reduce(global const float* in, global float* out, ulong length, local float* scratch,
                   ulong first_out) {
    if (get_local_id(0) == 0)
        out[first_out + get_group_id(0)] = op(identity(), NAN);
}

kernel void reduce_and_finish(global const float* in, global float* partials, global float* result,
                              ulong length, local float* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    if (get_global_id(0) == 0)
        result[0] = op(identity(), NAN);
}
