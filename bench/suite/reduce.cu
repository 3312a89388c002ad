// reduce.cu - reduce.pyk in CUDA C: grid-stride sums of a float array,
// then an atomic add a thread, a shared-memory tree (float or double) or a
// warp-shuffle tree. Launched with BLOCK threads a block.
#define BLOCK 256

extern "C" __global__ void reduce_atomic(const float *a, float *total, long long n)
{
    float s = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    atomicAdd(&total[0], s);
}

extern "C" __global__ void reduce_tree_f32(const float *a, float *partial, long long n)
{
    __shared__ float buf[BLOCK];
    int tid = threadIdx.x;
    float s = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    buf[tid] = s;
    __syncthreads();
    for (long long step = (long long)blockDim.x / 2; step > 0; step /= 2) {
        if (tid < step)
            buf[tid] += buf[tid + step];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = buf[0];
}

extern "C" __global__ void reduce_tree_f64(const float *a, double *partial, long long n)
{
    __shared__ double buf[BLOCK];
    int tid = threadIdx.x;
    double s = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    buf[tid] = s;
    __syncthreads();
    for (long long step = (long long)blockDim.x / 2; step > 0; step /= 2) {
        if (tid < step)
            buf[tid] += buf[tid + step];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = buf[0];
}

extern "C" __global__ void reduce_warp(const float *a, float *total, long long n)
{
    float s = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    for (long long offset = 16; offset > 0; offset /= 2)
        s += __shfl_down_sync(0xffffffffu, s, (int)offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(&total[0], s);
}
