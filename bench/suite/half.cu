// half.cu - half.pyk in CUDA C: out = a * x + y with __half arithmetic.
#include <cuda_fp16.h>

extern "C" __global__ void axpy_f16(__half a, const __half *x, const __half *y, __half *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i];
}
