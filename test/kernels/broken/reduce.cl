// A kernel that cannot build: clreduce must print the build log and exit 6.
kernel void reduce(global const int* in) {
    this is not OpenCL C;
}
