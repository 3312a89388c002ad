/*
 * random.c - xoroshiro128+ generator states, bit-exact with Numba's
 * numba.cuda.random.create_xoroshiro128p_states(n, seed, subsequence_start).
 *
 * Numba makes the states on the host and copies them to the device; so does
 * this file. State 0 is SplitMix64 of the seed, stored in both s0 and s1,
 * then jumped 2**64 steps subsequence_start times; state i is state i-1
 * jumped once more, so the generators' sequences never overlap in practice.
 * The layout is Numba's record dtype: {uint64 s0; uint64 s1}, 16 bytes.
 * Making n states costs n jumps of 128 steps each, as in Numba.
 */
#include <stdlib.h>

#include "runtime.h"

static uint64_t rotl(uint64_t x, unsigned k)
{
    return (x << k) | (x >> (64 - k));
}

static void next(pykrt_xoroshiro128p *s)
{
    uint64_t s0 = s->s0, s1 = s->s1 ^ s->s0;
    s->s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14);
    s->s1 = rotl(s1, 36);
}

/* Advances the state by 2**64 steps (the xoroshiro128+ jump polynomial). */
static void jump(pykrt_xoroshiro128p *s)
{
    static const uint64_t poly[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
    uint64_t s0 = 0, s1 = 0;
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 64; b++) {
            if (poly[i] & (1ull << b)) {
                s0 ^= s->s0;
                s1 ^= s->s1;
            }
            next(s);
        }
    s->s0 = s0;
    s->s1 = s1;
}

static uint64_t splitmix64(uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

pykrt_status pykrt_random_states_host(pykrt_xoroshiro128p *states, size_t n, uint64_t seed,
                                      uint64_t subsequence_start)
{
    if (!states && n)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_random_states_host: states is NULL");
    if (n == 0)
        return PYKRT_SUCCESS;
    states[0].s0 = states[0].s1 = splitmix64(seed);
    for (uint64_t i = 0; i < subsequence_start; i++)
        jump(&states[0]);
    for (size_t i = 1; i < n; i++) {
        states[i] = states[i - 1];
        jump(&states[i]);
    }
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_random_states_create(pykrt_context *ctx, size_t n, uint64_t seed, uint64_t subsequence_start,
                                        pykrt_stream *stream, pykrt_array *out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_random_states_create: out is NULL");
    if (n > (size_t)INT64_MAX / sizeof(pykrt_xoroshiro128p))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_random_states_create: %zu states are too many", n);
    pykrt_xoroshiro128p *host = malloc(n ? n * sizeof *host : 1);
    if (!host)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_random_states_create: out of host memory for %zu states", n);
    pykrt_random_states_host(host, n, seed, subsequence_start);

    int64_t shape = (int64_t)n;
    pykrt_array a = {0};
    pykrt_status st = pykrt_array_alloc(ctx, PYKRT_XOROSHIRO128P, 1, &shape, &a);
    if (st == PYKRT_SUCCESS)
        st = pykrt_memcpy_htod_async(ctx, a.data, host, n * sizeof *host, stream);
    /* The host buffer is freed below, so the copy must be done first. */
    if (st == PYKRT_SUCCESS)
        st = stream ? pykrt_stream_synchronize(stream) : pykrt_context_synchronize(ctx);
    free(host);
    if (st != PYKRT_SUCCESS) {
        if (a.data)
            pykrt_mem_free(ctx, a.data);
        return st;
    }
    *out = a;
    return PYKRT_SUCCESS;
}
