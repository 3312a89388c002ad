/*
 * kinds_host.c - pykc's typed launchers (--emit header, --emit c) for
 * kinds.pyk, end to end.
 *
 *     kinds_host [KINDS_YAML [OTHER_YAML]]
 *
 * Built with kinds.h (pykc --emit header) and kinds.c (pykc --emit c)
 * linked in. It loads the embedded module and launches every kernel
 * through its launcher: against the driver double (PYKRT_LIBCUDA names
 * it, and its test hooks answer) it checks the bytes each launch passes,
 * parameter by parameter as the PTX lays them out; on a GPU it checks what
 * each kernel wrote. With KINDS_YAML it loads the module from that
 * manifest too and launches from it; with OTHER_YAML, the manifest of
 * other kernels, it checks that the header refuses it as stale. Exit
 * status 0 when all passed, 1 on a failure, 2 without a GPU.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "kinds.h"

static int failures;
static fake_hooks fake;
static bool on_fake; /* the double's hooks answer: check bytes, not results */

#define CHECK(cond, ...)                                                                                          \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            printf("  FAIL line %d: ", __LINE__);                                                                \
            printf(__VA_ARGS__);                                                                                 \
            printf("\n");                                                                                        \
            failures++;                                                                                          \
        }                                                                                                        \
    } while (0)

#define OK(call) CHECK((call) == PYKRT_SUCCESS, "%s: %s", #call, pykrt_last_error())

static void open_fake(void)
{
    const char *path = getenv("PYKRT_LIBCUDA");
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *last = lib ? dlsym(lib, "fake_cuda_last_launch") : NULL;
    if (last) {
        memcpy(&fake.last_launch, &last, sizeof last);
        on_fake = true;
    }
}

/* ---- the bytes of the last launch (driver double) ---- */

static fake_launch last;

/* PTX parameter i of the last launch holds the `size` bytes at `want`. */
static void param_is(int line, int i, const void *want, size_t size)
{
    if (i >= last.nparams || last.size[i] != size || memcmp(last.bytes + last.offset[i], want, size) != 0) {
        printf("  FAIL line %d: %s parameter %d is not the %zu bytes expected\n", line, last.entry, i, size);
        failures++;
    }
}

#define PARAM(i, type, value)                                                                                    \
    do {                                                                                                         \
        type v_ = (value);                                                                                       \
        param_is(__LINE__, (i), &v_, sizeof v_);                                                                 \
    } while (0)

/* An array's parameters from index i: data, shape[ndim], strides[ndim]. */
static void array_is(int line, int i, const pykrt_array *a)
{
    param_is(line, i, &a->data, 8);
    for (int d = 0; d < a->ndim; d++) {
        param_is(line, i + 1 + d, &a->shape[d], 8);
        param_is(line, i + 1 + a->ndim + d, &a->strides[d], 8);
    }
}

static void take_last(const char *entry, int nparams)
{
    fake.last_launch(&last);
    CHECK(!strcmp(last.entry, entry) && last.nparams == nparams, "last launch %s with %d parameters, not %s with %d",
          last.entry, last.nparams, entry, nparams);
}

/* ---- device arrays ---- */

static pykrt_context *ctx;
static const pykrt_launch_config one = {{1, 1, 1}, {1, 1, 1}, 0, NULL};

static pykrt_array array_of(pykrt_dtype dtype, int ndim, const int64_t *shape, const void *host, size_t bytes)
{
    pykrt_array a;
    memset(&a, 0, sizeof a);
    OK(pykrt_array_alloc(ctx, dtype, ndim, shape, &a));
    if (host)
        OK(pykrt_array_copy_from_host(ctx, &a, host, bytes));
    else
        OK(pykrt_memset_d8(ctx, a.data, 0, bytes));
    return a;
}

static void get(void *host, size_t bytes, const pykrt_array *a)
{
    OK(pykrt_array_copy_to_host(ctx, host, bytes, a));
}

/* ---- one check per kernel ---- */

static void check_scalars(const kinds_module *m)
{
    int64_t n = 2;
    double out[2] = {0, 0};
    pykrt_array dout = array_of(PYKRT_FLOAT64, 1, &n, out, sizeof out);
    pykc_float64_1d vout = pykc_float64_1d_c(0, 0);
    CHECK(pykc_float64_1d_of(&dout, &vout), "a 1-d float64 array is a pykc_float64_1d");
    pykc_complex64 c64 = {1.5f, -2.0f};
    pykc_complex128 c128 = {3.0, 4.5};
    OK(kinds_scalars(m, &one, vout, true, -3, 300, -70000, (int64_t)1 << 40, 200, 60000, 4000000000u,
                     (uint64_t)1 << 41, 0.5f, 0.25, c64, c128, 0x4000 /* 2.0 */));
    if (on_fake) {
        take_last("scalars", 19);
        array_is(__LINE__, 0, &dout);
        PARAM(3, uint8_t, 1);
        PARAM(4, int8_t, -3);
        PARAM(5, int16_t, 300);
        PARAM(6, int32_t, -70000);
        PARAM(7, int64_t, (int64_t)1 << 40);
        PARAM(8, uint8_t, 200);
        PARAM(9, uint16_t, 60000);
        PARAM(10, uint32_t, 4000000000u);
        PARAM(11, uint64_t, (uint64_t)1 << 41);
        PARAM(12, float, 0.5f);
        PARAM(13, double, 0.25);
        PARAM(14, float, 1.5f);
        PARAM(15, float, -2.0f);
        PARAM(16, double, 3.0);
        PARAM(17, double, 4.5);
        PARAM(18, uint16_t, 0x4000);
    } else {
        get(out, sizeof out, &dout);
        double ints = (double)(-3 + 300 - 70000 + ((int64_t)1 << 40) + 200 + 60000 + 4000000000) + (double)((uint64_t)1 << 41);
        CHECK(out[0] == ints, "scalars: out[0] = %.17g, expected %.17g", out[0], ints);
        CHECK(out[1] == 32.25, "scalars: out[1] = %.17g, expected 32.25", out[1]);
    }
    pykrt_array_free(ctx, &dout);
}

/* The entry of kernel `name`'s copy for contiguous arrays. */
static const char *copy_entry(const kinds_module *m, const char *name)
{
    for (size_t i = 0; i < sizeof m->kernels / sizeof m->kernels[0]; i++) {
        pykrt_kernel_info ki;
        OK(pykrt_kernel_describe(m->kernels[i], &ki));
        if (ki.contiguous_copy && !strcmp(ki.name, name))
            return ki.entry;
    }
    return "(none)";
}

/* a[1, 2] = f[1, 0] + f[0, 1] * 10 + any3[1, 0, 1] + pts[1].x + pts[1].y * 10 + args[1].real + args[1].imag * 10 */
static void check_arrays(const kinds_module *m)
{
    int64_t s23[2] = {2, 3}, s22[2] = {2, 2}, s222[3] = {2, 2, 2}, two = 2;
    float a[6] = {0};
    int16_t f[4] = {0, 7, 5, 0}; /* F order: f[1, 0] = 7, f[0, 1] = 5 */
    uint8_t any3[8] = {0, 0, 0, 0, 0, 9, 0, 0}; /* any3[1, 0, 1] */
    double z[4] = {0, 0, 0.25, 0.5};
    pykrt_array da = array_of(PYKRT_FLOAT32, 2, s23, a, sizeof a);
    pykrt_array df = array_of(PYKRT_INT16, 2, s22, f, sizeof f);
    pykrt_array d3 = array_of(PYKRT_UINT8, 3, s222, any3, sizeof any3);
    pykrt_array dz = array_of(PYKRT_COMPLEX128, 1, &two, z, sizeof z);
    pykrt_param_info info;
    OK(pykrt_kernel_param(m->kernels[1], 3, &info));
    pykrt_array pts;
    memset(&pts, 0, sizeof pts);
    OK(pykrt_array_alloc_record(ctx, info.record, 1, &two, &pts));
    unsigned char rec[16] = {0};
    float x = 2.5f;
    int32_t y = 3;
    memcpy(rec + 8, &x, 4);
    memcpy(rec + 12, &y, 4);
    OK(pykrt_array_copy_from_host(ctx, &pts, rec, sizeof rec));
    /* the F-ordered view from its own constructor, the others from their descriptors */
    pykc_int16_2d vf = pykc_int16_2d_f(df.data, 2, 2);
    pykc_float32_2d va = pykc_float32_2d_c(0, 0, 0);
    pykc_uint8_3d v3 = pykc_uint8_3d_c(0, 0, 0, 0);
    CHECK(pykc_float32_2d_of(&da, &va) && pykc_uint8_3d_of(&d3, &v3), "views of the descriptors");
    CHECK(!pykc_float32_2d_of(&df, &va), "an int16 array is no pykc_float32_2d");
    OK(kinds_arrays(m, &one, va, vf, v3, &pts, pykc_complex128_1d_c(dz.data, 2)));
    if (on_fake) {
        /* its T[:] arrays all contiguous: the kernel's copy for them */
        take_last(copy_entry(m, "arrays"), 23);
        array_is(__LINE__, 0, &da);
        pykrt_array fa;
        OK(pykrt_array_init(&fa, df.data, PYKRT_INT16, 2, s22, PYKRT_LAYOUT_F));
        array_is(__LINE__, 5, &fa);
        array_is(__LINE__, 10, &d3);
        array_is(__LINE__, 17, &pts);
        array_is(__LINE__, 20, &dz);
        /* one of them strided, shape (2, 2, 1) with strides (4, 2, 2): the kernel itself */
        pykc_uint8_3d strided = v3;
        strided.shape[2] = 1;
        strided.strides[2] = 2;
        OK(kinds_arrays(m, &one, va, vf, strided, &pts, pykc_complex128_1d_c(dz.data, 2)));
        take_last("arrays", 23);
        param_is(__LINE__, 15, &strided.strides[1], 8);
        param_is(__LINE__, 16, &strided.strides[2], 8);
    } else {
        get(a, sizeof a, &da);
        CHECK(a[5] == 103.75f, "arrays: a[1, 2] = %g, expected 103.75", a[5]);
    }
    pykrt_array_free(ctx, &da);
    pykrt_array_free(ctx, &df);
    pykrt_array_free(ctx, &d3);
    pykrt_array_free(ctx, &dz);
    pykrt_array_free(ctx, &pts);
}

/* o[0] = n + x * y + z.real + z.imag * 10; o[1] = u[0] - u[1] + u[2] * 100 */
static void check_tuples(const kinds_module *m)
{
    int64_t n = 2;
    double o[2] = {0, 0};
    pykrt_array d = array_of(PYKRT_FLOAT64, 1, &n, o, sizeof o);
    pykc_complex64 z = {0.5f, 2.0f};
    OK(kinds_tuples(m, &one, -4, 1.5f, 4.0f, z, 10, 3, 7, pykc_float64_1d_c(d.data, 2)));
    if (on_fake) {
        take_last("tuples", 11);
        PARAM(0, int16_t, -4);
        PARAM(1, float, 1.5f);
        PARAM(2, float, 4.0f);
        PARAM(3, float, 0.5f);
        PARAM(4, float, 2.0f);
        PARAM(5, int64_t, 10);
        PARAM(6, int64_t, 3);
        PARAM(7, int64_t, 7);
        array_is(__LINE__, 8, &d);
    } else {
        get(o, sizeof o, &d);
        CHECK(o[0] == 22.5 && o[1] == 707, "tuples: o = [%g, %g], expected [22.5, 707]", o[0], o[1]);
    }
    pykrt_array_free(ctx, &d);
}

/* The two specialisations of scale, each its own launcher; a view that
 * C accepts but the layout does not is still libpykrt's error. */
static void check_scale(const kinds_module *m)
{
    int64_t four = 4, eight = 8;
    float a[4] = {1, 2, 3, 4};
    double b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    pykrt_array da = array_of(PYKRT_FLOAT32, 1, &four, a, sizeof a);
    pykrt_array db = array_of(PYKRT_FLOAT64, 1, &eight, b, sizeof b);
    pykrt_launch_config cfg = {{1, 1, 1}, {4, 1, 1}, 0, NULL};
    OK(kinds_scale(m, &cfg, pykc_float32_1d_c(da.data, 4), 3.0f));
    pykc_float64_1d every_other = pykc_float64_1d_c(db.data, 4);
    every_other.strides[0] = 16;
    OK(kinds_scale__95569457(m, &cfg, every_other, 0.5));
    if (on_fake) {
        take_last("scale__95569457", 4);
        PARAM(1, int64_t, 4);
        PARAM(2, int64_t, 16);
        PARAM(3, double, 0.5);
    } else {
        get(a, sizeof a, &da);
        get(b, sizeof b, &db);
        CHECK(a[0] == 3 && a[3] == 12, "scale: a = [%g, .., %g], expected [3, .., 12]", a[0], a[3]);
        CHECK(b[0] == 0.5 && b[1] == 2 && b[6] == 3.5 && b[7] == 8, "scale__95569457: every other element halved");
    }
    pykc_float32_1d strided = pykc_float32_1d_c(da.data, 2);
    strided.strides[0] = 8;
    CHECK(kinds_scale(m, &cfg, strided, 2.0f) == PYKRT_ERROR_BAD_LAUNCH &&
              strstr(pykrt_last_error(), "argument 0 (a)"),
          "a strided view for float32[::1]: %s", pykrt_last_error());
    OK(kinds_load_(m, &one));
    pykrt_array_free(ctx, &da);
    pykrt_array_free(ctx, &db);
}

static void describe(const char *what, const kinds_module *m)
{
    pykrt_module_info info;
    OK(pykrt_module_describe(m->module, &info));
    printf("%s: %s (%s), %zu kernels\n", what, info.arch, info.file, info.nkernels);
}

static void launch_all(const char *what, const kinds_module *m)
{
    describe(what, m);
    check_scalars(m);
    check_arrays(m);
    check_tuples(m);
    check_scale(m);
}

/* The header refuses a module of other kernels, and a NULL module. */
static void check_stale(const char *other)
{
    kinds_module m;
    pykrt_status st = kinds_load(ctx, other, &m);
    CHECK(st == PYKRT_ERROR_STALE && strstr(pykrt_last_error(), "not the ones the header was generated for"),
          "kinds_load(%s): %s: %s", other, pykrt_status_name(st), pykrt_last_error());
    pykrt_module *mod = NULL;
    OK(pykrt_module_load(ctx, other, &mod));
    CHECK(kinds_bind(mod, &m) == PYKRT_ERROR_STALE, "kinds_bind of another module");
    CHECK(pykrt_module_bind(mod, "fnv1a64:xyz", NULL, 0) == PYKRT_ERROR_INVALID_ARGUMENT, "a malformed digest");
    OK(pykrt_module_unload(mod));
    CHECK(kinds_bind(NULL, &m) == PYKRT_ERROR_INVALID_ARGUMENT, "kinds_bind(NULL)");
}

int main(int argc, char **argv)
{
    open_fake();
    pykrt_status st = pykrt_context_create(0, &ctx);
    if (st == PYKRT_ERROR_NO_DRIVER || st == PYKRT_ERROR_NO_DEVICE) {
        printf("kinds_host: no GPU to run on: %s\n", pykrt_last_error());
        return 2;
    }
    if (st != PYKRT_SUCCESS) {
        printf("kinds_host: %s\n", pykrt_last_error());
        return 1;
    }
    kinds_module m;
    OK(kinds_load_embedded(ctx, &m));
    if (!failures)
        launch_all("embedded module", &m);
    OK(kinds_unload(&m));
    CHECK(m.module == NULL, "kinds_unload clears the module");
    if (argc > 1) {
        OK(kinds_load(ctx, argv[1], &m));
        if (!failures)
            launch_all(argv[1], &m);
        OK(kinds_unload(&m));
    }
    if (argc > 2)
        check_stale(argv[2]);
    OK(pykrt_context_destroy(ctx));
    printf("kinds_host: %s, %s\n", failures ? "FAILED" : "all passed",
           on_fake ? "the bytes of each launch checked against the driver double" : "the results checked on the GPU");
    return failures ? 1 : 0;
}
