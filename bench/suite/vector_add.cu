// vector_add.cu - vector_add.pyk in CUDA C: the same arithmetic on the
// same types (Numba's cuda.grid(1) and sizes are int64: long long here).
extern "C" __global__ void vadd(const float *x, const float *y, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
