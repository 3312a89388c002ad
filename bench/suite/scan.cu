// scan.cu - scan.pyk in CUDA C: each block's inclusive prefix sum
// (Hillis-Steele in shared memory) and its total. BLOCK threads a block.
#define BLOCK 256

extern "C" __global__ void scan_block(const float *a, float *out, float *sums, long long n)
{
    __shared__ float buf[BLOCK];
    int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    buf[tid] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (long long offset = 1; offset < BLOCK; offset *= 2) {
        float v = 0;
        if (tid >= offset)
            v = buf[tid - offset];
        __syncthreads();
        buf[tid] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[tid];
    if (tid == BLOCK - 1)
        sums[blockIdx.x] = buf[tid];
}
