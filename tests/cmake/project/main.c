/* A program built with CMake from scale.pyk through pykc_add_module: its
 * module embedded, its launch typed by scale.h. Exit status 2 when there
 * is no GPU (or driver) to run on. */
#include <stdio.h>

#include "scale.h"

static int fail(pykrt_status st, const char *what)
{
    fprintf(stderr, "scale_app: %s: %s\n", what, pykrt_last_error());
    return st == PYKRT_ERROR_NO_DRIVER || st == PYKRT_ERROR_NO_DEVICE ? 2 : 1;
}

int main(void)
{
    enum { N = 1000 };
    pykrt_context *ctx;
    pykrt_status st = pykrt_context_create(0, &ctx);
    if (st != PYKRT_SUCCESS)
        return fail(st, "context");
    scale_module m;
    if ((st = scale_load_embedded(ctx, &m)) != PYKRT_SUCCESS)
        return fail(st, "load");
    pykrt_devptr x, out;
    if ((st = pykrt_mem_alloc(ctx, N * sizeof(float), &x)) != PYKRT_SUCCESS ||
        (st = pykrt_mem_alloc(ctx, N * sizeof(float), &out)) != PYKRT_SUCCESS)
        return fail(st, "alloc");
    pykrt_launch_config cfg = {.grid = {(N + 127) / 128, 1, 1}, .block = {128, 1, 1}};
    if ((st = scale_scale(&m, &cfg, pykc_float32_1d_c(out, N), pykc_float32_1d_c(x, N))) != PYKRT_SUCCESS)
        return fail(st, "launch");
    if ((st = pykrt_context_synchronize(ctx)) != PYKRT_SUCCESS)
        return fail(st, "synchronize");
    pykrt_mem_free(ctx, x);
    pykrt_mem_free(ctx, out);
    scale_unload(&m);
    pykrt_context_destroy(ctx);
    printf("scale_app: launched scale over %d elements from the embedded module\n", N);
    return 0;
}
