// black_scholes.cu - black_scholes.pyk in CUDA C, double throughout.
#define RSQRT2 0.7071067811865476

__device__ static double cnd(double d) { return 0.5 * (1.0 + erf(d * RSQRT2)); }

extern "C" __global__ void black_scholes(double *call, double *put, const double *S, const double *K, const double *T,
                                         double r, double v, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double sqrt_t = sqrt(T[i]);
        double d1 = (log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sqrt_t);
        double d2 = d1 - v * sqrt_t;
        double discount = exp(-r * T[i]);
        call[i] = S[i] * cnd(d1) - K[i] * discount * cnd(d2);
        put[i] = K[i] * discount * cnd(-d2) - S[i] * cnd(-d1);
    }
}
