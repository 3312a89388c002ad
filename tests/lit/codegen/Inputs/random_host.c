/*
 * random_host.c - runs random-host-exact.pyk's kernels, compiled by pykc
 * for the host, and compares every bit with numba-cuda's results
 * (random_expected.h). The kernels take their arguments as pykc's ABI
 * passes them (docs/manifest.md): an array as its data, shape[0] and
 * strides[0]; a scalar as its value.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "random_expected.h"

void make_states(void *states, int64_t n, int64_t stride, uint64_t seed, uint64_t subsequence_start);
void draws(void *states, int64_t n, int64_t stride, float *u32, int64_t n32, int64_t s32, double *u64, int64_t n64,
           int64_t s64, uint64_t *raw, int64_t nraw, int64_t sraw);

enum { MAX_STATES = 8 };

static int failures;

/* Compares n 64-bit words; says where the first difference is. */
static int same64(const char *what, int set, const uint64_t *got, const unsigned long long *want, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("%s, set %d, word %u: got 0x%016llx, numba-cuda 0x%016llx\n", what, set, i,
                   (unsigned long long)got[i], want[i]);
            failures++;
            return 0;
        }
    return (int)n;
}

static int same32(const char *what, int set, const uint32_t *got, const unsigned *want, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("%s, set %d, word %u: got 0x%08x, numba-cuda 0x%08x\n", what, set, i, got[i], want[i]);
            failures++;
            return 0;
        }
    return (int)n;
}

int main(void)
{
    int states_checked = 0, draws_checked = 0, jumped_checked = 0;
    for (int j = 0; j < N_SETS; j++) {
        unsigned n = sets[j].n;
        uint64_t states[2 * MAX_STATES], raw[4 * MAX_STATES], u64bits[4 * MAX_STATES];
        uint32_t u32bits[4 * MAX_STATES];
        float u32[4 * MAX_STATES];
        double u64[4 * MAX_STATES];
        make_states(states, n, 16, sets[j].seed, sets[j].sub);
        states_checked += same64("states", j, states, expected_states[j], 2 * n) / 2;
        memcpy(states, expected_states[j], 16 * n);
        draws(states, n, 16, u32, 4 * n, 4, u64, 4 * n, 8, raw, 4 * n, 8);
        memcpy(u32bits, u32, sizeof u32);
        memcpy(u64bits, u64, sizeof u64);
        draws_checked += same32("float32 draw", j, u32bits, expected_u32[j], 4 * n);
        draws_checked += same64("float64 draw", j, u64bits, expected_u64[j], 4 * n);
        draws_checked += same64("uint64 draw", j, raw, expected_raw[j], 4 * n);
        jumped_checked += same64("jumped state", j, states, expected_jumped[j], 2 * n) / 2;
    }
    printf("states: %d checked\n", states_checked);
    printf("draws: %d checked\n", draws_checked);
    printf("jumped: %d checked\n", jumped_checked);
    return failures != 0;
}
