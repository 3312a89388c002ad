// matmul.cu - matmul.pyk in CUDA C: C[m x n] = A[m x k] B[k x n], all
// row-major. The naive kernel maps x to the row and accumulates in double,
// as the .pyk's `i, j = cuda.grid(2)` and `tmp = 0.` do.
#define TPB 16

extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, long long m, long long n,
                                        long long k)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        double tmp = 0.;
        for (long long l = 0; l < k; l++)
            tmp += A[i * k + l] * B[l * n + j];
        C[i * n + j] = (float)tmp;
    }
}

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, long long m, long long n,
                                        long long k)
{
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bpg = gridDim.x;
    float tmp = 0.f;
    for (int i = 0; i < bpg; i++) {
        sA[ty][tx] = 0;
        sB[ty][tx] = 0;
        if (y < m && (tx + (long long)i * TPB) < k)
            sA[ty][tx] = A[y * k + tx + (long long)i * TPB];
        if (x < n && (ty + (long long)i * TPB) < k)
            sB[ty][tx] = B[(ty + (long long)i * TPB) * n + x];
        __syncthreads();
        for (int j = 0; j < TPB; j++)
            tmp += sA[ty][j] * sB[j][tx];
        __syncthreads();
    }
    if (y < m && x < n)
        C[y * n + x] = tmp;
}
