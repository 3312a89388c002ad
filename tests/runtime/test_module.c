/*
 * test_module.c - loading modules: from a file and from memory, the choice
 * among several targets by the device's compute capability, kernels by
 * name and their properties, and constant memory.
 */
#include <stdlib.h>

#include "cuda_abi.h"
#include "rt_test.h"
#include "runtime.h"

/* Whether the double was last handed exactly the bytes of fixtures/name. */
static int loaded_image_is(const char *name)
{
    size_t len = 0;
    char *want = t_read(t_path(name), &len);
    const void *got = NULL;
    size_t n = fake.last_image(&got);
    int same = want && n == len && memcmp(want, got, n) == 0;
    free(want);
    return same;
}

static void test_load_vadd(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT(loaded_image_is("vadd.ptx"));
    pykrt_module_info mi;
    ASSERT_OK(pykrt_module_describe(m, &mi));
    ASSERT_STR("sm_75", mi.arch);
    ASSERT_STR("vadd.ptx", mi.file);
    ASSERT_STR("pykc 0.1.0", mi.compiler);
    ASSERT_CONTAINS(mi.manifest, "fixtures/vadd.yaml");
    ASSERT(!mi.cubin);
    ASSERT_EQ(1, mi.nkernels);
    ASSERT_EQ(0, mi.nconstants);

    pykrt_kernel *k, *k0;
    ASSERT_OK(pykrt_kernel_get(m, "vadd", &k));
    ASSERT_OK(pykrt_kernel_at(m, 0, &k0));
    ASSERT(k == k0);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_at(m, 1, &k0), "index 1, but there are 1 kernels");
    pykrt_kernel_info ki;
    ASSERT_OK(pykrt_kernel_describe(k, &ki));
    ASSERT_STR("vadd", ki.name);
    ASSERT_STR("vadd", ki.entry);
    ASSERT_EQ(3, ki.nparams);
    ASSERT_EQ(9, ki.nptx_params);
    ASSERT_EQ(1024, ki.max_threads);
    ASSERT_EQ(32, ki.registers);
    ASSERT(!ki.cooperative && !ki.shared_dynamic);
    pykrt_param_info pi;
    ASSERT_OK(pykrt_kernel_param(k, 2, &pi));
    ASSERT_STR("out", pi.name);
    ASSERT_EQ(PYKRT_KIND_ARRAY, pi.kind);
    ASSERT_EQ(PYKRT_FLOAT32, pi.dtype);
    ASSERT_EQ(1, pi.ndim);
    ASSERT_EQ(PYKRT_ACCESS_WRITE, pi.access);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_param(k, 3, &pi), "index 3, but it has 3 parameters");
    void *fn = NULL;
    ASSERT_OK(pykrt_kernel_handle(k, &fn));
    ASSERT(fn != NULL);
    ASSERT_OK(pykrt_module_unload(m));
}

/* Several entries of one name, a kernel's --sig specialisations (pykc
 * fixtures/specs.pyk): pykrt_kernel_get gives the first, and
 * pykrt_kernel_get_for_args the one whose parameters take the arguments,
 * a C-layout one before an A-layout one where both do. */
static void test_kernel_for_args(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("specs.yaml"), &m));
    pykrt_kernel *first, *k;
    pykrt_kernel_info ki;
    ASSERT_OK(pykrt_kernel_get(m, "scale", &first));
    ASSERT_OK(pykrt_kernel_describe(first, &ki));
    ASSERT_STR("scale", ki.entry);

    pykrt_array c32 = {.data = 0x1000, .dtype = PYKRT_FLOAT32, .ndim = 1, .shape = {8}, .strides = {4}};
    pykrt_array strided32 = {.data = 0x1000, .dtype = PYKRT_FLOAT32, .ndim = 1, .shape = {8}, .strides = {8}};
    pykrt_array c64 = {.data = 0x1000, .dtype = PYKRT_FLOAT64, .ndim = 1, .shape = {8}, .strides = {8}};
    pykrt_array i32 = {.data = 0x1000, .dtype = PYKRT_INT32, .ndim = 1, .shape = {8}, .strides = {4}};
    float f = 2;
    double d = 2;
    pykrt_arg args[2] = {pykrt_arg_array(&c32), pykrt_arg_float32(f)};
    ASSERT_OK(pykrt_kernel_get_for_args(m, "scale", args, 2, &k));
    ASSERT(k == first);
    args[0] = pykrt_arg_array(&strided32);
    ASSERT_OK(pykrt_kernel_get_for_args(m, "scale", args, 2, &k));
    ASSERT_OK(pykrt_kernel_describe(k, &ki));
    ASSERT_STR("scale", ki.name);
    ASSERT_CONTAINS(ki.entry, "scale__");
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch(k, &cfg, args, 2));
    pykrt_arg wide[2] = {pykrt_arg_array(&c64), pykrt_arg_float64(d)};
    pykrt_kernel *k64;
    ASSERT_OK(pykrt_kernel_get_for_args(m, "scale", wide, 2, &k64));
    ASSERT(k64 != k && k64 != first);
    ASSERT_OK(pykrt_launch(k64, &cfg, wide, 2));

    /* None fits: each entry says what it takes. */
    args[0] = pykrt_arg_array(&i32);
    k = (pykrt_kernel *)1;
    ASSERT_ERR(PYKRT_ERROR_NOT_FOUND, pykrt_kernel_get_for_args(m, "scale", args, 2, &k),
               "no kernel 'scale' takes these 2 arguments; it has scale(float32[::1], float32), scale(float64[:], "
               "float64), scale(float32[:], float32)");
    ASSERT(k == NULL);
    ASSERT_ERR(PYKRT_ERROR_NOT_FOUND, pykrt_kernel_get_for_args(m, "scale", args, 1, &k), "takes these 1 arguments");
    ASSERT_ERR(PYKRT_ERROR_NOT_FOUND, pykrt_kernel_get_for_args(m, "scal", args, 2, &k), "no kernel 'scal'");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_get_for_args(m, "scale", NULL, 2, &k), "args is NULL");
    ASSERT_OK(pykrt_module_unload(m));
}

/* A debug=True kernel (pykc fixtures/raises.pyk): a launch waits for it
 * and reports what a thread raised, as numba-cuda does; the record is
 * cleared for the next launch; a kernel without debug reports nothing. */
static void test_kernel_exception(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("raises.yaml"), &m));
    pykrt_kernel *checked, *unchecked;
    ASSERT_OK(pykrt_kernel_get(m, "checked", &checked));
    ASSERT_OK(pykrt_kernel_get(m, "unchecked", &unchecked));
    pykrt_array a = {.data = 0x1000, .dtype = PYKRT_INT64, .ndim = 1, .shape = {64}, .strides = {8}};
    pykrt_arg args[1] = {pykrt_arg_array(&a)};
    pykrt_launch_config cfg = {{2, 1, 1}, {32, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch(checked, &cfg, args, 1));
    const int thread[6] = {5, 0, 0, 1, 0, 0};
    fake.raise_next(2, thread, NULL);
    ASSERT_ERR(PYKRT_ERROR_KERNEL_EXCEPTION, pykrt_launch(checked, &cfg, args, 1),
               "pykrt_launch(checked): AssertionError: In function 'checked', file raises.pyk, line 11, "
               "tid=[0, 0, 5] ctaid=[0, 0, 1]: three");
    fake.raise_next(1, thread, NULL);
    ASSERT_ERR(PYKRT_ERROR_KERNEL_EXCEPTION, pykrt_launch_unchecked(checked, &cfg, args, 1),
               "ValueError: In function 'checked', file raises.pyk, line 10, tid=[0, 0, 5] ctaid=[0, 0, 1]: negative");
    ASSERT_OK(pykrt_launch(checked, &cfg, args, 1));
    fake.raise_next(2, thread, NULL);
    ASSERT_OK(pykrt_launch(unchecked, &cfg, args, 1));
    ASSERT_OK(pykrt_module_unload(m));
}

/* A checked kernel (fixtures/checks.pyk): a failed check reads as a
 * diagnostic, with the index, the axis, the extent and the thread. */
static void test_kernel_failed_check(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("checks.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "scaled", &k));
    pykrt_array a = {.data = 0x1000, .dtype = PYKRT_INT64, .ndim = 1, .shape = {64}, .strides = {8}};
    pykrt_arg args[3] = {pykrt_arg_array(&a), pykrt_arg_array(&a), pykrt_arg_int64(2)};
    pykrt_launch_config cfg = {{2, 1, 1}, {33, 1, 1}, 0, NULL};
    const int thread[6] = {31, 0, 0, 1, 0, 0}, thread3d[6] = {1, 2, 0, 0, 1, 0};
    const long long detail[3] = {64, 0, 64};
    fake.raise_next(1, thread, detail);
    ASSERT_ERR(PYKRT_ERROR_KERNEL_EXCEPTION, pykrt_launch(k, &cfg, args, 3),
               "pykrt_launch(scaled): checks.pyk:10:14: error: index 64 out of bounds for axis 0 with size 64 "
               "(thread 31 of block 1)");
    fake.raise_next(2, thread3d, (const long long[3]){0, 0, 0});
    ASSERT_ERR(PYKRT_ERROR_KERNEL_EXCEPTION, pykrt_launch(k, &cfg, args, 3),
               "pykrt_launch(scaled): checks.pyk:10:14: error: integer division or modulo by zero "
               "(thread (1, 2, 0) of block (0, 1, 0))");
    ASSERT_OK(pykrt_launch(k, &cfg, args, 3));
    ASSERT_OK(pykrt_module_unload(m));
}

static void test_kernel_not_found(void)
{
    pykrt_module *m;
    pykrt_kernel *k = (pykrt_kernel *)1;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("abi.yaml"), &m));
    pykrt_status st = pykrt_kernel_get(m, "vad", &k);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_module_unload(m);
    ASSERT_EQ(PYKRT_ERROR_NOT_FOUND, st);
    ASSERT(k == NULL);
    ASSERT_CONTAINS(msg, "no kernel 'vad'; the manifest has scalars, arrays, coop, dynshared, use_const, rng, tuples, noargs");
}

/* Loads multi.yaml on a device of compute capability major.minor (the
 * double's JIT also checks the PTX's .target against it). */
static pykrt_status load_multi_on(int major, int minor, pykrt_module_info *mi)
{
    pykrt_context *ctx;
    pykrt_module *m = NULL;
    fake.set_cc(major, minor);
    pykrt_status st = pykrt_context_create(0, &ctx);
    if (st == PYKRT_SUCCESS) {
        st = pykrt_module_load(ctx, t_path("multi.yaml"), &m);
        if (st == PYKRT_SUCCESS)
            pykrt_module_describe(m, mi);
        mi->manifest = mi->compiler = mi->arch = mi->file = NULL; /* the strings die with the module */
        pykrt_module_unload(m);
        pykrt_context_destroy(ctx);
    }
    fake.set_cc(8, 6);
    return st;
}

static void test_arch_choice(void)
{
    static const struct {
        int major, minor;
        const char *file;
    } cases[] = {
        {7, 5, "multi_sm75.ptx"},   {8, 0, "multi_sm80.cubin"}, {8, 6, "multi_sm80.cubin"},
        {8, 9, "multi_sm80.cubin"}, {9, 0, "multi_sm90.ptx"},   {12, 0, "multi_sm90.ptx"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_module_info mi;
        ASSERT_OK(load_multi_on(cases[i].major, cases[i].minor, &mi));
        ASSERT(loaded_image_is(cases[i].file));
        ASSERT_EQ(strstr(cases[i].file, "cubin") != NULL, mi.cubin);
    }
    pykrt_module_info mi;
    ASSERT_ERR(PYKRT_ERROR_NO_TARGET, load_multi_on(7, 0, &mi),
               "no target runs on Fake CUDA Device 0 (sm_70); the manifest has sm_75 (ptx), sm_80 (cubin), "
               "sm_90 (ptx)");
}

/* vadd's manifest with other targets and entry name. */
static void manifest_with(char *buf, size_t size, const char *targets, const char *entry)
{
    size_t len = 0;
    char *vadd = t_read(t_path("vadd.yaml"), &len), *kernels = vadd ? strstr(vadd, "kernels:\n") : NULL;
    char *name = kernels ? strstr(kernels, "entry: vadd") : NULL;
    snprintf(buf, size, "format: 1\ntargets:\n%s%.*sentry: %s%s", targets, name ? (int)(name - kernels) : 0,
             kernels ? kernels : "", entry, name ? name + strlen("entry: vadd") : "");
    free(vadd);
}

/* The fixture's vadd.ptx (malloc'd) and its digest. */
static char *vadd_ptx(size_t *len, unsigned long long *digest)
{
    char *ptx = t_read(t_path("vadd.ptx"), len);
    *digest = ptx ? (unsigned long long)pk_fnv1a64(ptx, *len) : 0;
    return ptx;
}

static void test_arch_variants(void)
{
    size_t len = 0;
    unsigned long long d;
    char *ptx = vadd_ptx(&len, &d);
    ASSERT(ptx != NULL);
    char targets[512], text[2048];
    snprintf(targets, sizeof targets,
             "  - {arch: sm_75, kind: ptx, file: a.ptx, digest: \"fnv1a64:%016llx\"}\n"
             "  - {arch: sm_90a, kind: ptx, file: b.ptx, digest: \"fnv1a64:%016llx\"}\n",
             d, d);
    manifest_with(text, sizeof text, targets, "vadd");
    pykrt_image images[] = {{"a.ptx", ptx, len}, {"b.ptx", ptx, len}};
    const char *want[] = {"sm_90a", "sm_75"};
    int cc[] = {90, 100};
    for (int i = 0; i < 2; i++) {
        pykrt_context *ctx;
        pykrt_module *m;
        pykrt_module_info mi;
        fake.set_cc(cc[i] / 10, cc[i] % 10);
        pykrt_status st = pykrt_context_create(0, &ctx);
        fake.set_cc(8, 6);
        ASSERT_OK(st);
        st = pykrt_module_load_memory(ctx, text, strlen(text), images, 2, &m);
        if (st == PYKRT_SUCCESS) {
            pykrt_module_describe(m, &mi);
            st = strcmp(mi.arch, want[i]) == 0 ? PYKRT_SUCCESS : PYKRT_ERROR_NO_TARGET;
            pykrt_module_unload(m);
        }
        pykrt_context_destroy(ctx);
        ASSERT_OK(st);
    }
    free(ptx);
}

/* A GPU takes its own target from a manifest that has host targets too,
 * and none from one that has only host targets. */
static void test_host_targets_on_gpu(void)
{
    size_t len = 0;
    unsigned long long d;
    char *ptx = vadd_ptx(&len, &d);
    ASSERT(ptx != NULL);
    char targets[512], text[2048];
    snprintf(targets, sizeof targets,
             "  - {arch: x86-64-v2, kind: host, file: k.so, digest: \"fnv1a64:%016llx\"}\n"
             "  - {arch: sm_75, kind: ptx, file: a.ptx, digest: \"fnv1a64:%016llx\"}\n", d, d);
    manifest_with(text, sizeof text, targets, "vadd");
    pykrt_image images[] = {{"k.so", ptx, len}, {"a.ptx", ptx, len}};
    pykrt_module *m = NULL;
    pykrt_module_info mi = {0};
    pykrt_status st = pykrt_module_load_memory(t_ctx, text, strlen(text), images, 2, &m);
    if (st == PYKRT_SUCCESS)
        pykrt_module_describe(m, &mi);
    int sm75 = mi.arch && strcmp(mi.arch, "sm_75") == 0;
    pykrt_module_unload(m);
    snprintf(targets, sizeof targets,
             "  - {arch: x86-64-v2, kind: host, file: k.so, digest: \"fnv1a64:%016llx\"}\n", d);
    manifest_with(text, sizeof text, targets, "vadd");
    pykrt_status none = pykrt_module_load_memory(t_ctx, text, strlen(text), images, 2, &m);
    free(ptx);
    ASSERT_OK(st);
    ASSERT(sm75);
    ASSERT_ERR(PYKRT_ERROR_NO_TARGET, none, "runs on Fake CUDA Device 0 (sm_86); the manifest has x86-64-v2 (host)");
}

static void test_load_memory(void)
{
    size_t mlen = 0, plen = 0;
    char *manifest = t_read(t_path("vadd.yaml"), &mlen), *ptx = t_read(t_path("vadd.ptx"), &plen);
    ASSERT(manifest && ptx);
    pykrt_image good = {"vadd.ptx", ptx, plen}, other = {"other.ptx", ptx, plen};
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load_memory(t_ctx, manifest, mlen, &good, 1, &m);
    pykrt_module_info mi = {0};
    if (st == PYKRT_SUCCESS)
        pykrt_module_describe(m, &mi);
    int embedded = mi.manifest && strcmp(mi.manifest, "(embedded manifest)") == 0;
    pykrt_module_unload(m);
    pykrt_status none = pykrt_module_load_memory(t_ctx, manifest, mlen, &other, 1, &m);
    char none_msg[1024];
    snprintf(none_msg, sizeof none_msg, "%s", pykrt_last_error());
    ptx[100] ^= 1;
    pykrt_status stale = pykrt_module_load_memory(t_ctx, manifest, mlen, &good, 1, &m);
    free(manifest);
    free(ptx);
    ASSERT_OK(st);
    ASSERT(embedded);
    ASSERT_EQ(PYKRT_ERROR_NO_TARGET, none);
    ASSERT_CONTAINS(none_msg, "no target among the images given runs on");
    ASSERT_EQ(PYKRT_ERROR_STALE, stale);
    ASSERT_CONTAINS(pykrt_last_error(), "vadd.ptx does not match (embedded manifest): recompile");
}

/* A size no image can have is refused before any arithmetic on it (the
 * copy adds a NUL); the data pointer is never read. */
static void test_load_memory_sizes(void)
{
    size_t mlen = 0;
    char *manifest = t_read(t_path("vadd.yaml"), &mlen);
    ASSERT(manifest != NULL);
    static const char byte = 0;
    pykrt_image huge = {"vadd.ptx", &byte, SIZE_MAX}, big = {"vadd.ptx", &byte, ((size_t)1 << 30) + 1};
    pykrt_module *m = NULL;
    pykrt_status s1 = pykrt_module_load_memory(t_ctx, manifest, mlen, &huge, 1, &m);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", pykrt_last_error());
    pykrt_status s2 = pykrt_module_load_memory(t_ctx, manifest, mlen, &big, 1, &m);
    pykrt_status s3 = pykrt_module_load_memory(t_ctx, manifest, SIZE_MAX, &big, 1, &m);
    free(manifest);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, s1);
    ASSERT_CONTAINS(m1, "pykrt_module_load_memory: image vadd.ptx is 18446744073709551615 bytes, larger than the "
                        "limit of 1073741824 bytes");
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, s2);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, s3);
    ASSERT_CONTAINS(pykrt_last_error(), "manifest is 18446744073709551615 bytes, more than the limit of 1048576");
    ASSERT(m == NULL);
}

static void test_entry_missing(void)
{
    size_t len = 0;
    char *ptx = t_read(t_path("vadd.ptx"), &len);
    ASSERT(ptx != NULL);
    char targets[256], text[2048];
    snprintf(targets, sizeof targets, "  - {arch: sm_75, kind: ptx, file: v.ptx, digest: \"fnv1a64:%016llx\"}\n",
             (unsigned long long)pk_fnv1a64(ptx, len));
    manifest_with(text, sizeof text, targets, "nope");
    pykrt_image image = {"v.ptx", ptx, len};
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load_memory(t_ctx, text, strlen(text), &image, 1, &m);
    free(ptx);
    ASSERT_EQ(PYKRT_ERROR_CUDA, st);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_module_load((embedded manifest)): kernel vadd, entry nope: "
                                        "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND: named symbol not found");
}

/* ---- ptx_params against the entry's own parameters ---- */

#define VADD_HEAD "format: 1\ntargets:\n  - {arch: sm_75, kind: ptx, file: v.ptx, digest: \"fnv1a64:%016llx\"}\n" \
                  "kernels:\n  - name: vadd\n    entry: vadd\n    params:\n"
#define ARRAY(name) "      - {name: " name ", kind: array, dtype: float32, ndim: 1, layout: A}\n"
#define SCALAR(name, dtype) "      - {name: " name ", kind: scalar, dtype: " dtype "}\n"
#define PARTS(i) "      - {type: u64, size: 8, align: 8, param: " #i ", part: data}\n" \
                 "      - {type: u64, size: 8, align: 8, param: " #i ", part: \"shape[0]\"}\n" \
                 "      - {type: u64, size: 8, align: 8, param: " #i ", part: \"strides[0]\"}\n"
#define VALUE(i, type, size)                                                                                     \
    "      - {type: " #type ", size: " #size ", align: " #size ", param: " #i ", part: value}\n"

/* Loads vadd.ptx under a manifest of the given kernel (params, then
 * ptx_params after "    ptx_params:\n"). */
static pykrt_status load_vadd_as(const char *params, const char *ptx_params, pykrt_module **m)
{
    size_t len = 0;
    char *ptx = t_read(t_path("vadd.ptx"), &len), text[4096];
    int n = snprintf(text, sizeof text, VADD_HEAD "%s    ptx_params:\n%s",
                     (unsigned long long)(ptx ? pk_fnv1a64(ptx, len) : 0), params, ptx_params);
    pykrt_image image = {"v.ptx", ptx, len};
    *m = NULL;
    pykrt_status st = ptx && n < (int)sizeof text ? pykrt_module_load_memory(t_ctx, text, strlen(text), &image, 1, m)
                                                  : PYKRT_ERROR_IO;
    free(ptx);
    return st;
}

/* A manifest, complete in itself, that describes vadd.ptx's entry with too
 * few, too many or too narrow parameters is refused, by the driver's
 * account and, where the driver cannot tell, by the PTX text's. */
static void test_entry_parameters(void)
{
    static const struct {
        const char *params, *ptx_params, *message;
    } cases[] = {
        {ARRAY("x") ARRAY("y"), PARTS(0) PARTS(1), "kernel vadd: ptx_params list 6 parameters, but %s has 9"},
        {ARRAY("x") ARRAY("y") ARRAY("out") SCALAR("n", "int64"), PARTS(0) PARTS(1) PARTS(2) VALUE(3, u64, 8),
         "kernel vadd: ptx_params list 10 parameters, but %s has 9"},
        {ARRAY("x") ARRAY("y") SCALAR("a", "int32") SCALAR("b", "int32") SCALAR("c", "int32"),
         PARTS(0) PARTS(1) VALUE(2, u32, 4) VALUE(3, u32, 4) VALUE(4, u32, 4),
         "kernel vadd: ptx_params[6] is 4 bytes, but parameter 6 of %s is 8"},
    };
    const char *by[2] = {"the driver (cuFuncGetParamInfo) for entry vadd", "entry vadd in v.ptx"};
    for (int driver = 1; driver >= 0; driver--) {
        fake.set_param_info(driver);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            pykrt_module *m;
            char want[512];
            snprintf(want, sizeof want, cases[i].message, by[1 - driver]);
            pykrt_status st = load_vadd_as(cases[i].params, cases[i].ptx_params, &m);
            if (st != PYKRT_ERROR_MANIFEST || !strstr(pykrt_last_error(), want) || m) {
                fake.set_param_info(1);
                t_fail(__FILE__, __LINE__, "case %zu, driver %d: \"%s\" expected, got %s: %s", i, driver, want,
                       pykrt_status_name(st), pykrt_last_error());
                pykrt_module_unload(m);
                return;
            }
        }
    }
    fake.set_param_info(1);
    pykrt_module *m;
    ASSERT_OK(load_vadd_as(ARRAY("x") ARRAY("y") ARRAY("out"), PARTS(0) PARTS(1) PARTS(2), &m));
    pykrt_kernel *k = NULL;
    pykrt_kernel_get(m, "vadd", &k);
    bool unverified = k && k->unverified;
    pykrt_module_unload(m);
    ASSERT(k && !unverified);
}

/* The PTX reader follows the declarations, not the text around them. */
static void test_ptx_reader(void)
{
    static const struct {
        const char *ptx;
        int found;
        size_t count;
        uint32_t sizes[4];
    } cases[] = {
        {".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n}\n", 1, 2, {8, 4}},
        {"// .entry k(.param .u8 a)\n/* .entry k(.param .u8 a, .param .u8 b) */\n.entry k(.param .f64 x) {}", 1, 1,
         {8}},
        {".file 1 \".entry k(,,,)\"\n.entry k (.param .align 8 .b8 z[16], .param .u64 .ptr.global.align 4 p) {}", 1,
         2, {16, 8}},
        {".entry k .maxntid 64, 1, 1\n{\n ret;\n}", 1, 0, {0}},
        {".entry kk(.param .u8 a) {} .entry k(.param .u16 b, .param .u16 c, .param .u16 d) {}", 1, 3, {2, 2, 2}},
        {".entry k(.param .texref t, .param .b32 x[2]) {}", 1, 2, {0, 8}},
        {".entry other(.param .u8 a) {}", 0, 0, {0}},
        {".entry k(.param .u8 a, .param .u8 b", 0, 0, {0}},
        {"", 0, 0, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_ptx_entry e;
        bool found = pk_ptx_read_entry(cases[i].ptx, strlen(cases[i].ptx), "k", &e);
        int ok = found == (bool)cases[i].found && (!found || e.count == cases[i].count);
        for (size_t j = 0; ok && found && j < e.count && j < 4; j++)
            ok = e.size[j] == cases[i].sizes[j];
        if (!ok) {
            t_fail(__FILE__, __LINE__, "case %zu: found %d, %zu parameters (%u %u)", i, found, e.count, e.size[0],
                   e.size[1]);
            return;
        }
    }
}

/* A cubin's parameters are known to neither check here (the double does
 * not read cubins), so its kernel is marked unverified; PTX never is. */
static void test_unverified_cubin(void)
{
    pykrt_context *ctx;
    pykrt_module *m = NULL;
    pykrt_kernel *k = NULL;
    fake.set_cc(8, 0);
    pykrt_status st = pykrt_context_create(0, &ctx);
    fake.set_cc(8, 6);
    ASSERT_OK(st);
    st = pykrt_module_load(ctx, t_path("multi.yaml"), &m);
    if (st == PYKRT_SUCCESS)
        st = pykrt_kernel_get(m, "vadd", &k);
    bool unverified = k && k->unverified;
    pykrt_module_info mi = {0};
    pykrt_module_describe(m, &mi);
    bool cubin = mi.cubin;
    pykrt_module_unload(m);
    pykrt_context_destroy(ctx);
    ASSERT_OK(st);
    ASSERT(cubin && unverified);
}

static void test_kernel_limits_from_manifest(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    pykrt_kernel_info ki;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("abi.yaml"), &m));
    pykrt_status st = pykrt_kernel_get(m, "use_const", &k);
    if (st == PYKRT_SUCCESS)
        st = pykrt_kernel_describe(k, &ki);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    ASSERT_EQ(64, ki.max_threads);
}

static void test_constants(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("abi.yaml"), &m));
    float in[16], out[16];
    for (int i = 0; i < 16; i++)
        in[i] = (float)i * 0.25f;
    pykrt_status set = pykrt_constant_set(m, "coeffs", in, sizeof in);
    pykrt_status get = pykrt_constant_get(m, "coeffs", out, sizeof out);
    pykrt_status size = pykrt_constant_set(m, "coeffs", in, 60);
    char size_msg[512];
    snprintf(size_msg, sizeof size_msg, "%s", pykrt_last_error());
    pykrt_status missing = pykrt_constant_get(m, "nope", out, sizeof out);
    pykrt_module_unload(m);
    ASSERT_OK(set);
    ASSERT_OK(get);
    ASSERT(memcmp(in, out, sizeof in) == 0);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, size);
    ASSERT_CONTAINS(size_msg, "pykrt_constant_set(coeffs): 60 bytes given, the symbol has 64");
    ASSERT_EQ(PYKRT_ERROR_NOT_FOUND, missing);
    ASSERT_CONTAINS(pykrt_last_error(), "no constant 'nope' in the manifest");
}

static void test_module_unload_driver_error(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    fake.fail_next("cuModuleUnload", CUDA_ERROR_INVALID_CONTEXT);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_module_unload(m),
               "vadd.yaml): cuModuleUnload failed: CUDA_ERROR_INVALID_CONTEXT: invalid device context");
}

static void test_module_load_driver_error(void)
{
    pykrt_module *m = NULL;
    fake.fail_next("cuModuleLoadDataEx", CUDA_ERROR_OUT_OF_MEMORY);
    ASSERT_ERR(PYKRT_ERROR_OUT_OF_MEMORY, pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m),
               "vadd.ptx (sm_75): cuModuleLoadDataEx failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory");
    ASSERT(m == NULL);
}

/* "fnv1a64:" and the 16 hex digits of FNV-1a over text. */
static const char *digest_of(const char *text, char out[25])
{
    snprintf(out, 25, "fnv1a64:%016llx", (unsigned long long)pk_fnv1a64(text, strlen(text)));
    return out;
}

/* pykrt_module_bind: the interface digest is FNV-1a of each kernel's
 * `entry(type,...)` line, as docs/manifest.md spells it; a match gives the
 * kernels in manifest order, anything else is refused. */
static void test_module_bind(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("specs.yaml"), &m));
    char want[25], other[25];
    digest_of("scale(float32[1],float32)\nscale__95569457(float64[1],float64)\n"
              "scale__12a548ca(float32[1],float32)\n", want);
    pykrt_kernel *k[3] = {NULL, NULL, NULL}, *third;
    ASSERT_OK(pykrt_module_bind(m, want, k, 3));
    ASSERT_OK(pykrt_kernel_at(m, 2, &third));
    ASSERT(k[2] == third && k[0] != k[1]);
    ASSERT_OK(pykrt_module_bind(m, want, NULL, 0));
    /* a kernel's parameter of another dtype, or one kernel fewer */
    digest_of("scale(float32[1],float64)\nscale__95569457(float64[1],float64)\n"
              "scale__12a548ca(float32[1],float32)\n", other);
    ASSERT_ERR(PYKRT_ERROR_STALE, pykrt_module_bind(m, other, k, 3), "are not the ones the header was generated for");
    ASSERT_CONTAINS(pykrt_last_error(), other);
    ASSERT_ERR(PYKRT_ERROR_STALE, pykrt_module_bind(m, digest_of("scale(float32[1],float32)\n", other), NULL, 0),
               "specs.yaml");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_bind(m, want, k, 2), "room for 2 kernels, the module has 3");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_bind(m, "fnv1a64:123", k, 3), "is not fnv1a64:");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_bind(m, want, NULL, 3), "kernels is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_bind(m, NULL, k, 3), "digest is NULL");
    ASSERT_OK(pykrt_module_unload(m));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_module_bind(m, want, k, 3), "pykrt_module_bind");

    /* every dtype; records; a tuple, its member dtypes in parentheses */
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("abi.yaml"), &m));
    digest_of("scalars(int8,int16,int32,int64,uint8,uint16,uint32,uint64,float16,float32,float64,bool,complex64,"
              "complex128,float64[1])\n"
              "arrays(float64[2],float32[2],int32[3],int64[1])\n"
              "coop(int32[1])\ndynshared(float32[1])\nuse_const(float32[1])\nrng(record[1],uint64[1])\n"
              "tuples((int32,float64,float64,complex64),int16,float64[1])\nnoargs()\n", want);
    ASSERT_OK(pykrt_module_bind(m, want, NULL, 0));
    ASSERT_OK(pykrt_module_unload(m));
}

const t_case module_tests[] = {
    T(test_load_vadd),
    T(test_kernel_not_found),
    T(test_kernel_for_args),
    T(test_kernel_exception),
    T(test_kernel_failed_check),
    T(test_arch_choice),
    T(test_arch_variants),
    T(test_host_targets_on_gpu),
    T(test_load_memory),
    T(test_load_memory_sizes),
    T(test_module_bind),
    T(test_entry_missing),
    T(test_entry_parameters),
    T(test_ptx_reader),
    T(test_unverified_cubin),
    T(test_kernel_limits_from_manifest),
    T(test_constants),
    T(test_module_load_driver_error),
    T(test_module_unload_driver_error),
};
const size_t module_ntests = sizeof module_tests / sizeof module_tests[0];
