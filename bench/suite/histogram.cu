// histogram.cu - histogram.pyk in CUDA C: per-block counters in shared
// memory over a grid-stride loop, then added to the global bins.
// Launched with NBINS threads a block.
#define NBINS 256

extern "C" __global__ void histogram(const unsigned char *data, int *bins, long long n)
{
    __shared__ int h[NBINS];
    int tid = threadIdx.x;
    if (tid < NBINS)
        h[tid] = 0;
    __syncthreads();
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&h[data[i]], 1);
    __syncthreads();
    if (tid < NBINS)
        atomicAdd(&bins[tid], h[tid]);
}
