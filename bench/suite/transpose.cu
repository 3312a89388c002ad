// transpose.cu - transpose.pyk in CUDA C: a is rows x cols, out is
// cols x rows, through a padded TILE x TILE shared tile.
#define TILE 32
#define TILE_PAD 33

extern "C" __global__ void transpose(const float *a, float *out, long long rows, long long cols)
{
    __shared__ float tile[TILE][TILE_PAD];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    long long row = (long long)blockIdx.y * TILE + ty;
    long long col = (long long)blockIdx.x * TILE + tx;
    if (row < rows && col < cols)
        tile[ty][tx] = a[row * cols + col];
    __syncthreads();
    row = (long long)blockIdx.x * TILE + ty;
    col = (long long)blockIdx.y * TILE + tx;
    if (row < cols && col < rows)
        out[row * rows + col] = tile[tx][ty];
}
