/*
 * iterators_host.c - runs iterators-host.pyk's kernels, compiled by pykc for
 * the host, and prints what they stored, for FileCheck to compare with what
 * numba-cuda's simulator stores (Python's semantics). The kernels take
 * their arguments as pykc's ABI passes them (docs/manifest.md): an array as
 * its data, its shape and its strides; a scalar as its value.
 */
#include <stdint.h>
#include <stdio.h>

void ranges(int64_t *o, int64_t n, int64_t s, int64_t m);
void nested(int64_t *o, int64_t n, int64_t s, int64_t *a, int64_t na, int64_t sa, double *b, int64_t nb, int64_t sb);
void rows(int64_t *o, int64_t n, int64_t s, int64_t *a, int64_t n0, int64_t n1, int64_t s0, int64_t s1);
void shared(int64_t *o, int64_t n, int64_t s, int64_t *a, int64_t na, int64_t sa);
void stop(int64_t *o, int64_t n, int64_t s, int64_t *a, int64_t na, int64_t sa);

static void print(const char *what, const int64_t *o, int n)
{
    printf("%s", what);
    for (int i = 0; i < n; i++) printf(" %lld", (long long)o[i]);
    printf("\n");
}

int main(void)
{
    int64_t o[16] = {0}, a[] = {3, 1, 4, 1, 5}, a6[] = {3, 1, 4, 1, 5, 9}, a2[12];
    double b[] = {2.0, 7.0, 1.0, 8.0};
    ranges(o, 15, 8, 11);
    print("ranges", o, 15);
    nested(o, 7, 8, a, 5, 8, b, 4, 8);
    print("nested", o, 7);
    for (int i = 0; i < 12; i++) a2[i] = i;
    rows(o, 4, 8, a2, 3, 4, 32, 8);
    print("rows", o, 4);
    shared(o, 5, 8, a6, 6, 8);
    print("shared", o, 5);
    o[0] = o[1] = 0;
    stop(o, 2, 8, a, 1, 8);
    print("stop", o, 2);
    return 0;
}
