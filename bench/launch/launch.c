/*
 * launch.c - what a pykrt launch costs on top of cuLaunchKernel.
 *
 *     bench_launch [MANIFEST [ROUNDS [BATCH]]]   (default bench/launch/empty.yaml 200 256)
 *
 * Launches the empty kernel of empty.yaml (three arrays and an int64, ten
 * PTX parameters) three ways in one program: cuLaunchKernel called
 * directly with prepared kernelParams (the floor), pykrt_launch_unchecked,
 * and pykrt_launch. It times the host side of each launch call: rounds of
 * BATCH launches, the three methods interleaved round by round so drift
 * hits all alike, the queue drained (untimed) after each round so the
 * driver never blocks on a full queue. Prints microseconds per launch: the
 * median round (the figure, as robust to the host's hiccups as the
 * kernels' medians are), the mean and the best round, and each pykrt
 * method's excess over the raw one, median against median.
 * Exit status 2 when there is no GPU or driver.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pykrt.h"

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shared, void *stream, void **params, void **extra);

enum { RAW, UNCHECKED, CHECKED, METHODS };
static const char *const names[METHODS] = {"raw cuLaunchKernel", "pykrt_launch_unchecked", "pykrt_launch (checked)"};

typedef struct bench {
    pykrt_kernel *kernel;
    void *function;
    launch_fn raw;
    pykrt_arg args[4];
    void *params[10];
    pykrt_launch_config cfg;
} bench;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One timed batch; returns microseconds or a negative value on error. */
static double batch(bench *b, int method, int n)
{
    int bad = 0;
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        if (method == RAW)
            bad |= b->raw(b->function, 1, 1, 1, 32, 1, 1, 0, NULL, b->params, NULL);
        else if (method == UNCHECKED)
            bad |= pykrt_launch_unchecked(b->kernel, &b->cfg, b->args, 4);
        else
            bad |= pykrt_launch(b->kernel, &b->cfg, b->args, 4);
    }
    double t1 = now_us();
    return bad ? -1.0 : t1 - t0;
}

/* The driver's own cuLaunchKernel, from the library pykrt opened. */
static launch_fn raw_launch(void)
{
    const char *path = getenv("PYKRT_LIBCUDA");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, "cuLaunchKernel") : NULL;
    launch_fn fn = NULL;
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

static int setup(bench *b, pykrt_context *ctx, const char *manifest, pykrt_module **m, pykrt_array arrays[3])
{
    if (pykrt_module_load(ctx, manifest, m) != PYKRT_SUCCESS || pykrt_kernel_get(*m, "empty", &b->kernel) ||
        pykrt_kernel_handle(b->kernel, &b->function))
        return 1;
    int64_t n = 1024;
    for (int i = 0; i < 3; i++) {
        if (pykrt_array_alloc(ctx, PYKRT_FLOAT32, 1, &n, &arrays[i]) != PYKRT_SUCCESS)
            return 1;
        b->args[i] = pykrt_arg_array(&arrays[i]);
        b->params[3 * i] = &arrays[i].data;
        b->params[3 * i + 1] = &arrays[i].shape[0];
        b->params[3 * i + 2] = &arrays[i].strides[0];
    }
    b->args[3] = pykrt_arg_int64(n);
    b->cfg = (pykrt_launch_config){{1, 1, 1}, {32, 1, 1}, 0, NULL};
    if (!(b->raw = raw_launch())) {
        fprintf(stderr, "bench_launch: cannot find cuLaunchKernel: %s\n", dlerror());
        return 1;
    }
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n round times, sorting them. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(double *per_round[METHODS], int rounds, int size)
{
    double med[METHODS], mean[METHODS], best[METHODS];
    for (int m = 0; m < METHODS; m++) {
        double total = 0;
        for (int r = 0; r < rounds; r++)
            total += per_round[m][r];
        mean[m] = total / rounds / size;
        med[m] = median(per_round[m], rounds) / size;
        best[m] = per_round[m][0] / size; /* sorted by median() */
    }
    printf("%d rounds of %d launches, methods interleaved; host time per launch call (median round):\n", rounds,
           size);
    for (int m = 0; m < METHODS; m++) {
        printf("  %-24s %7.3f us/launch  (mean %.3f, best round %.3f)", names[m], med[m], mean[m], best[m]);
        if (m != RAW)
            printf("  %+.3f us over raw", med[m] - med[RAW]);
        printf("\n");
    }
}

static int measure(bench *b, pykrt_context *ctx, int rounds, int size, int64_t n)
{
    double *per_round[METHODS];
    b->params[9] = &n; /* the raw launches' int64 argument */
    for (int m = 0; m < METHODS; m++)
        if (!(per_round[m] = malloc((size_t)rounds * sizeof(double)))) {
            fprintf(stderr, "bench_launch: out of memory\n");
            return 1;
        }
    int rc = 0;
    for (int r = -1; r < rounds && !rc; r++) { /* round -1 warms up */
        for (int m = 0; m < METHODS && !rc; m++) {
            double us = batch(b, m, size);
            if (us < 0 || pykrt_context_synchronize(ctx) != PYKRT_SUCCESS) {
                fprintf(stderr, "bench_launch: %s failed: %s\n", names[m], pykrt_last_error());
                rc = 1;
            } else if (r >= 0) {
                per_round[m][r] = us;
            }
        }
    }
    if (!rc)
        report(per_round, rounds, size);
    for (int m = 0; m < METHODS; m++)
        free(per_round[m]);
    return rc;
}

int main(int argc, char **argv)
{
    const char *manifest = argc > 1 ? argv[1] : "bench/launch/empty.yaml";
    int rounds = argc > 2 ? atoi(argv[2]) : 200, size = argc > 3 ? atoi(argv[3]) : 256;
    if (rounds <= 0 || size <= 0) {
        fprintf(stderr, "usage: bench_launch [MANIFEST [ROUNDS [BATCH]]]\n");
        return 1;
    }
    pykrt_context *ctx;
    pykrt_status st = pykrt_context_create(0, &ctx);
    if (st == PYKRT_ERROR_NO_DRIVER || st == PYKRT_ERROR_NO_DEVICE) {
        fprintf(stderr, "bench_launch: no GPU to run on: %s\n", pykrt_last_error());
        return 2;
    }
    if (st != PYKRT_SUCCESS) {
        fprintf(stderr, "bench_launch: %s\n", pykrt_last_error());
        return 1;
    }
    pykrt_device_info dev;
    int version = 0;
    pykrt_context_device(ctx, &dev);
    pykrt_driver_version(&version);
    printf("pykrt launch benchmark: kernel empty (10 PTX parameters), grid 1, block 32\n");
    printf("device 0: %s (sm_%d%d), CUDA driver %d.%d\n", dev.name, dev.cc_major, dev.cc_minor, version / 1000,
           version % 1000 / 10);
    bench b = {0};
    pykrt_module *m = NULL;
    pykrt_array arrays[3] = {{0}};
    int rc = setup(&b, ctx, manifest, &m, arrays);
    if (rc)
        fprintf(stderr, "bench_launch: %s\n", pykrt_last_error());
    else
        rc = measure(&b, ctx, rounds, size, 1024);
    for (int i = 0; i < 3; i++)
        pykrt_array_free(ctx, &arrays[i]);
    pykrt_module_unload(m);
    pykrt_context_destroy(ctx);
    return rc;
}
