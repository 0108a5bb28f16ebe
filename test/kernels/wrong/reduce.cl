// A kernel that builds and runs but computes nonsense, as a driver with a broken barrier
// might: clreduce must say the result is wrong and exit 1, never print it as a success.
int identity(void);
int op(int a, int b);

kernel void reduce(global const int* in, global int* out, ulong length, local int* scratch,
                   ulong first_out) {
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = op(identity(), 12345);
}

kernel void reduce_and_finish(global const int* in, global int* partials, global int* result,
                              ulong length, local int* scratch, global uint* arrivals,
                              global uint* next_arrivals) {
    if (get_global_id(0) == 0)
        result[0] = op(identity(), 12345);
}
