/*
 * vadd_host.c - the host program of the vector-add sample.
 *
 *     pykc samples/vadd.pyk --arch sm_75 --arch x86-64-v2 -o vadd.ptx
 *         # writes vadd.sm_75.ptx, vadd.x86-64-v2.so and vadd.yaml
 *     cc vadd_host.c $(pkg-config --cflags --libs pykrt) -o vadd_host
 *     ./vadd_host vadd.yaml [N]
 *
 * It loads the module the manifest names, copies two vectors to the GPU,
 * launches vadd(x: float32[:], y: float32[:], out: float32[:]), copies the
 * result back and checks every element against the sum computed on the
 * CPU. Where there is no GPU or no CUDA driver it says so and runs on the
 * CPU instead, libpykrt's host device, with the module's code for it.
 * Exit status: 0 when the result checks, 1 on an error or a wrong result,
 * 2 when there is no GPU and the module has no code for the CPU (said
 * plainly).
 */
#include <stdio.h>
#include <stdlib.h>

#include "pykrt.h"

typedef struct vadd_state {
    pykrt_context *ctx;
    pykrt_module *module;
    pykrt_array x, y, out;
    float *hx, *hy, *hout;
} vadd_state;

static int fail(const char *what)
{
    fprintf(stderr, "vadd_host: %s: %s\n", what, pykrt_last_error());
    return 1;
}

static void cleanup(vadd_state *s)
{
    pykrt_array_free(s->ctx, &s->x);
    pykrt_array_free(s->ctx, &s->y);
    pykrt_array_free(s->ctx, &s->out);
    pykrt_module_unload(s->module);
    pykrt_context_destroy(s->ctx);
    free(s->hx);
    free(s->hy);
    free(s->hout);
}

static int run(vadd_state *s, const char *manifest, int64_t n, bool on_host)
{
    pykrt_kernel *vadd;
    pykrt_status st = pykrt_module_load(s->ctx, manifest, &s->module);
    if (st == PYKRT_ERROR_NO_TARGET && on_host) {
        fprintf(stderr, "vadd_host: no GPU, and nothing the CPU runs: %s\n", pykrt_last_error());
        return 2;
    }
    if (st != PYKRT_SUCCESS)
        return fail("loading the module");
    if (pykrt_kernel_get(s->module, "vadd", &vadd) != PYKRT_SUCCESS)
        return fail("finding the kernel");

    size_t bytes = (size_t)n * sizeof(float);
    s->hx = malloc(bytes);
    s->hy = malloc(bytes);
    s->hout = malloc(bytes);
    if (!s->hx || !s->hy || !s->hout) {
        fprintf(stderr, "vadd_host: out of host memory\n");
        return 1;
    }
    for (int64_t i = 0; i < n; i++) {
        s->hx[i] = (float)i * 0.5f;
        s->hy[i] = (float)(n - i) * 0.25f;
    }
    if (pykrt_array_alloc(s->ctx, PYKRT_FLOAT32, 1, &n, &s->x) != PYKRT_SUCCESS ||
        pykrt_array_alloc(s->ctx, PYKRT_FLOAT32, 1, &n, &s->y) != PYKRT_SUCCESS ||
        pykrt_array_alloc(s->ctx, PYKRT_FLOAT32, 1, &n, &s->out) != PYKRT_SUCCESS)
        return fail("allocating device memory");
    if (pykrt_array_copy_from_host(s->ctx, &s->x, s->hx, bytes) != PYKRT_SUCCESS ||
        pykrt_array_copy_from_host(s->ctx, &s->y, s->hy, bytes) != PYKRT_SUCCESS)
        return fail("copying to the device");

    pykrt_arg args[3] = {pykrt_arg_array(&s->x), pykrt_arg_array(&s->y), pykrt_arg_array(&s->out)};
    pykrt_launch_config cfg = {{(uint32_t)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, NULL};
    if (pykrt_launch(vadd, &cfg, args, 3) != PYKRT_SUCCESS)
        return fail("launching vadd");
    if (pykrt_array_copy_to_host(s->ctx, s->hout, bytes, &s->out) != PYKRT_SUCCESS)
        return fail("copying the result back");

    for (int64_t i = 0; i < n; i++)
        if (s->hout[i] != s->hx[i] + s->hy[i]) {
            fprintf(stderr, "vadd_host: out[%lld] is %g, expected %g\n", (long long)i, (double)s->hout[i],
                    (double)(s->hx[i] + s->hy[i]));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: vadd_host MANIFEST.yaml [N]\n");
        return 1;
    }
    int64_t n = argc == 3 ? atoll(argv[2]) : 1 << 20;
    if (n <= 0 || n > (1ll << 31)) {
        fprintf(stderr, "vadd_host: N must be in 1..2^31\n");
        return 1;
    }
    vadd_state s = {0};
    pykrt_status st = pykrt_context_create(0, &s.ctx);
    if (st == PYKRT_ERROR_NO_DRIVER || st == PYKRT_ERROR_NO_DEVICE) {
        fprintf(stderr, "vadd_host: no GPU to run on: %s; running on the CPU (libpykrt's host device)\n",
                pykrt_last_error());
        st = pykrt_context_create(PYKRT_DEVICE_HOST, &s.ctx);
    }
    if (st != PYKRT_SUCCESS)
        return fail("opening the device");
    pykrt_device_info dev;
    pykrt_context_device(s.ctx, &dev);
    int rc = run(&s, argv[1], n, dev.host);
    if (rc == 0 && dev.host)
        printf("vadd: out = x + y for %lld float32 elements on the CPU, %s: result checked, all equal\n",
               (long long)n, dev.name);
    else if (rc == 0)
        printf("vadd: out = x + y for %lld float32 elements on %s (sm_%d%d): result checked on the CPU, all equal\n",
               (long long)n, dev.name, dev.cc_major, dev.cc_minor);
    cleanup(&s);
    return rc;
}
