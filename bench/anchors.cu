// anchors.cu - the anchor kernels of samples/anchors/anchors.pyk written as
// CUDA C would write them (raw pointers, sizes as arguments, C-contiguous
// 2-D arrays), so that bench/compile_time.sh can time nvcc on the same
// work as pykc. Keep the two files in step: same kernels, same constants.
//
//   nvcc -ptx -O3 -arch=sm_75 bench/anchors.cu -o anchors.ptx

#define BLOCK 256       // threads per block of the 1-D kernels
#define TPB 16          // tile side of the tiled matmul (TPB x TPB threads)
#define TILE 32         // tile side of the transpose
#define TILE_STRIDE 33  // TILE + 1: a padded tile row avoids bank conflicts
#define RADIUS 3        // half-width of the 1-D stencil

__device__ static long long grid1() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }

extern "C" __global__ void empty() {}

extern "C" __global__ void vadd(const float *x, const float *y, float *out, long long n) {
    long long i = grid1();
    if (i < n) out[i] = x[i] + y[i];
}

extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, long long n) {
    long long i = grid1();
    if (i < n) out[i] = a * x[i] + y[i];
}

// c[m x n] = a[m x k] b[k x n]
extern "C" __global__ void matmul_naive(const float *a, const float *b, float *c, long long m, long long n,
                                        long long k) {
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (long long j = 0; j < k; j++) acc += a[row * k + j] * b[j * n + col];
        c[row * n + col] = acc;
    }
}

extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c, long long m, long long n,
                                        long long k) {
    __shared__ float sa[TPB][TPB];
    __shared__ float sb[TPB][TPB];
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (long long t = 0; t < (k + TPB - 1) / TPB; t++) {
        long long base = t * TPB;
        sa[ty][tx] = 0.0f;
        sb[ty][tx] = 0.0f;
        if (row < m && base + tx < k) sa[ty][tx] = a[row * k + base + tx];
        if (col < n && base + ty < k) sb[ty][tx] = b[(base + ty) * n + col];
        __syncthreads();
        for (int j = 0; j < TPB; j++) acc += sa[ty][j] * sb[j][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
}

extern "C" __global__ void reduce_tree(const float *x, float *partial, long long n) {
    __shared__ float buf[BLOCK];
    int tid = threadIdx.x;
    long long i = grid1();
    buf[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = buf[0];
}

extern "C" __global__ void reduce_atomic(const float *x, float *total, long long n) {
    float acc = 0.0f;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = grid1(); i < n; i += stride) acc += x[i];
    atomicAdd(total, acc);
}

extern "C" __global__ void histogram(const float *x, long long n, float lo, float hi, int *bins, long long nbins) {
    long long i = grid1();
    if (i < n) {
        long long b = (long long)((double)((x[i] - lo) / (hi - lo)) * (double)nbins);
        if (b >= 0 && b < nbins) atomicAdd(&bins[b], 1);
    }
}

extern "C" __global__ void stencil_1d(const float *x, float *out, long long n) {
    long long i = grid1();
    if (i >= RADIUS && i < n - RADIUS) {
        float acc = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; k++) acc += x[i + k];
        out[i] = acc / (float)(2 * RADIUS + 1);
    }
}

extern "C" __global__ void stencil_2d(const float *u, float *out, long long rows, long long cols) {
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= 1 && col >= 1 && row < rows - 1 && col < cols - 1)
        out[row * cols + col] = 0.25f * (u[(row - 1) * cols + col] + u[(row + 1) * cols + col] +
                                         u[row * cols + col - 1] + u[row * cols + col + 1]);
}

// a is rows x cols, out is cols x rows.
extern "C" __global__ void transpose(const float *a, float *out, long long rows, long long cols) {
    __shared__ float tile[TILE][TILE_STRIDE];
    int tx = threadIdx.x, ty = threadIdx.y;
    long long row = (long long)blockIdx.y * TILE + ty;
    long long col = (long long)blockIdx.x * TILE + tx;
    if (row < rows && col < cols) tile[ty][tx] = a[row * cols + col];
    __syncthreads();
    row = (long long)blockIdx.x * TILE + ty;
    col = (long long)blockIdx.y * TILE + tx;
    if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty];
}
