// saxpy.cu - saxpy.pyk in CUDA C: out = a * x + y over a grid-stride loop.
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, long long n)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a * x[i] + y[i];
}
