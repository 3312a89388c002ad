// monte_carlo_pi.cu - monte_carlo_pi.pyk in CUDA C, with a port of
// numba.cuda.random's xoroshiro128+ (the same state record, the same
// steps, the same conversion to float), so that the states that Numba's
// create_xoroshiro128p_states makes give the same draws here.
struct xoroshiro128p_state {
    unsigned long long s0, s1;
};

__device__ static unsigned long long rotl(unsigned long long x, unsigned k) { return (x << k) | (x >> (64 - k)); }

__device__ static unsigned long long xoroshiro128p_next(xoroshiro128p_state *states, long long index)
{
    unsigned long long s0 = states[index].s0;
    unsigned long long s1 = states[index].s1;
    unsigned long long result = s0 + s1;
    s1 ^= s0;
    states[index].s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14);
    states[index].s1 = rotl(s1, 36);
    return result;
}

// Numba: float32(uint64_to_unit_float64(x)), (x >> 11) * 2**-53 in double.
__device__ static float xoroshiro128p_uniform_float32(xoroshiro128p_state *states, long long index)
{
    unsigned long long x = xoroshiro128p_next(states, index);
    return (float)((double)(x >> 11) * (1.0 / 9007199254740992.0));
}

extern "C" __global__ void monte_carlo_pi(xoroshiro128p_state *rng_states, long long iterations, float *out,
                                          long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long inside = 0;
        for (long long it = 0; it < iterations; it++) {
            float x = xoroshiro128p_uniform_float32(rng_states, i);
            float y = xoroshiro128p_uniform_float32(rng_states, i);
            if (x * x + y * y <= 1.0)
                inside += 1;
        }
        out[i] = (float)(4.0 * inside / iterations);
    }
}
