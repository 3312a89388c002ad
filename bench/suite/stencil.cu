// stencil.cu - stencil.pyk in CUDA C: the 5-point mean on a rows x cols
// row-major grid, x along the rows (stencil_ij) or along the columns
// (stencil_ji). The float sum times the double 0.2, as Numba types it.
__device__ static void point(const float *u, float *out, long long rows, long long cols, long long i, long long j)
{
    if (0 < i && i < rows - 1 && 0 < j && j < cols - 1)
        out[i * cols + j] = (float)(0.2 * (u[i * cols + j] + u[(i - 1) * cols + j] + u[(i + 1) * cols + j] +
                                           u[i * cols + j - 1] + u[i * cols + j + 1]));
}

extern "C" __global__ void stencil_ij(const float *u, float *out, long long rows, long long cols)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    point(u, out, rows, cols, i, j);
}

extern "C" __global__ void stencil_ji(const float *u, float *out, long long rows, long long cols)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    point(u, out, rows, cols, i, j);
}
