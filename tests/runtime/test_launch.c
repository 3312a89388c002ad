/*
 * test_launch.c - argument checking and packing, launch shapes, dynamic
 * shared memory, cooperative and stream launches, driver errors, threads.
 *
 * The double lays out what a launch passes at the offsets and sizes the
 * PTX itself declares (not the manifest), so comparing those bytes with
 * the arguments checks the manifest-driven packing against the kernel.
 */
#include <pthread.h>
#include <stdlib.h>

#include "cuda_abi.h"
#include "rt_test.h"

static pykrt_module *load(const char *name)
{
    pykrt_module *m = NULL;
    if (pykrt_module_load(t_ctx, t_path(name), &m) != PYKRT_SUCCESS)
        printf("load %s: %s\n", name, pykrt_last_error());
    return m;
}

static pykrt_kernel *kernel(pykrt_module *m, const char *name)
{
    pykrt_kernel *k = NULL;
    if (m && pykrt_kernel_get(m, name, &k) != PYKRT_SUCCESS)
        printf("kernel %s: %s\n", name, pykrt_last_error());
    return k;
}

/* Parameter i of the last launch holds exactly `size` bytes equal to want. */
static int param_is(const fake_launch *l, int i, const void *want, size_t size)
{
    if (i >= l->nparams || l->size[i] != size || memcmp(l->bytes + l->offset[i], want, size) != 0) {
        printf("PTX parameter %d: %zu bytes expected, the launch passed %zu:", i, size, l->size[i]);
        for (size_t b = 0; b < l->size[i]; b++)
            printf(" %02x", l->bytes[l->offset[i] + b]);
        printf("\n");
        return 0;
    }
    return 1;
}

static int array_params_are(const fake_launch *l, int first, const pykrt_array *a)
{
    int ok = param_is(l, first, &a->data, 8);
    for (int d = 0; d < a->ndim; d++)
        ok &= param_is(l, first + 1 + d, &a->shape[d], 8) & param_is(l, first + 1 + a->ndim + d, &a->strides[d], 8);
    return ok;
}

static pykrt_array array1(pykrt_devptr data, pykrt_dtype dtype, int64_t n, int64_t stride)
{
    pykrt_array a = {.data = data, .dtype = dtype, .ndim = 1, .shape = {n}, .strides = {stride}};
    return a;
}

static const pykrt_launch_config one = {{1, 1, 1}, {32, 1, 1}, 0, NULL};

static void test_vadd_packing(void)
{
    pykrt_module *m = load("vadd.yaml");
    pykrt_kernel *k = kernel(m, "vadd");
    ASSERT(k != NULL);
    pykrt_array x = array1(0x10000, PYKRT_FLOAT32, 100, 4), y = array1(0x20000, PYKRT_FLOAT32, 50, 8),
                out = array1(0x30000, PYKRT_FLOAT32, 100, -4);
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&y), pykrt_arg_array(&out)};
    pykrt_launch_config cfg = {{4, 0, 0}, {256, 0, 0}, 0, NULL};
    long before = fake.launch_count();
    pykrt_status st = pykrt_launch(k, &cfg, args, 3);
    fake_launch l;
    fake.last_launch(&l);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    ASSERT_EQ(before + 1, fake.launch_count());
    ASSERT_STR("vadd", l.entry);
    ASSERT_EQ(4, l.grid[0]);
    ASSERT_EQ(1, l.grid[1]);
    ASSERT_EQ(1, l.grid[2]);
    ASSERT_EQ(256, l.block[0]);
    ASSERT_EQ(1, l.block[2]);
    ASSERT_EQ(0, l.shared);
    ASSERT(l.stream == NULL && !l.cooperative);
    ASSERT_EQ(9, l.nparams);
    ASSERT(array_params_are(&l, 0, &x));
    ASSERT(array_params_are(&l, 3, &y));
    ASSERT(array_params_are(&l, 6, &out));
}

/* vadd runs in the double, so a launch can be checked by its result. */
static void test_vadd_result(void)
{
    pykrt_module *m = load("vadd.yaml");
    pykrt_kernel *k = kernel(m, "vadd");
    ASSERT(k != NULL);
    enum { N = 1000 };
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.5f * (float)i;
    }
    int64_t n = N;
    pykrt_array dx, dy, dout;
    pykrt_status st = pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &dx);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &dy);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &dout);
    ASSERT_OK(st);
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &dx, x, sizeof x));
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &dy, y, sizeof y));
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dy), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{(N + 255) / 256, 1, 1}, {256, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch(k, &cfg, args, 3));
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout));
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dy);
    pykrt_array_free(t_ctx, &dout);
    pykrt_module_unload(m);
    for (int i = 0; i < N; i++)
        ASSERT(out[i] == x[i] + y[i]);
}

static void test_scalar_packing(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "scalars");
    ASSERT(k != NULL);
    int8_t a = -5;
    int16_t b = -300;
    int32_t c = -70000;
    int64_t d = -5000000000000ll;
    uint8_t e = 250;
    uint16_t f = 65000;
    uint32_t g = 4000000000u;
    uint64_t h = (1ull << 63) + 5;
    uint16_t i = 0x3c00; /* 1.0 in binary16 */
    float j = 1.5f, mr = 1.5f, mi = -2.5f;
    double kk = -2.25, nr = 3.25, ni = -4.75;
    uint8_t l = 1;
    pykrt_array out = array1(0x40000, PYKRT_FLOAT64, 16, 8);
    pykrt_arg args[15] = {
        pykrt_arg_int8(a),     pykrt_arg_int16(b),           pykrt_arg_int32(c),       pykrt_arg_int64(d),
        pykrt_arg_uint8(e),    pykrt_arg_uint16(f),          pykrt_arg_uint32(g),      pykrt_arg_uint64(h),
        pykrt_arg_float16_bits(i), pykrt_arg_float32(j),     pykrt_arg_float64(kk),    pykrt_arg_bool(true),
        pykrt_arg_complex64(mr, mi), pykrt_arg_complex128(nr, ni), pykrt_arg_array(&out),
    };
    pykrt_status st = pykrt_launch(k, &one, args, 15);
    fake_launch fl;
    fake.last_launch(&fl);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    ASSERT_EQ(19, fl.nparams);
    ASSERT(param_is(&fl, 0, &a, 1) && param_is(&fl, 1, &b, 2) && param_is(&fl, 2, &c, 4));
    ASSERT(param_is(&fl, 3, &d, 8) && param_is(&fl, 4, &e, 1) && param_is(&fl, 5, &f, 2));
    ASSERT(param_is(&fl, 6, &g, 4) && param_is(&fl, 7, &h, 8) && param_is(&fl, 8, &i, 2));
    ASSERT(param_is(&fl, 9, &j, 4) && param_is(&fl, 10, &kk, 8) && param_is(&fl, 11, &l, 1));
    ASSERT(param_is(&fl, 12, &mr, 4) && param_is(&fl, 13, &mi, 4));
    ASSERT(param_is(&fl, 14, &nr, 8) && param_is(&fl, 15, &ni, 8));
    ASSERT(array_params_are(&fl, 16, &out));
}

/* A tuple's members go where its ptx_params say, complex ones in parts. */
static void test_tuple_packing(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "tuples");
    ASSERT(k != NULL);
    int32_t t0 = -7;
    double t1 = 1.25, t2 = -2.5;
    float re = 3.5f, im = -4.5f;
    int16_t sv = -300;
    pykrt_array out = array1(0x40000, PYKRT_FLOAT64, 6, 8);
    pykrt_arg members[4] = {pykrt_arg_int32(t0), pykrt_arg_float64(t1), pykrt_arg_float64(t2),
                            pykrt_arg_complex64(re, im)};
    pykrt_arg args[3] = {pykrt_arg_tuple(members, 4), pykrt_arg_int16(sv), pykrt_arg_array(&out)};
    pykrt_param_info info, member;
    ASSERT_OK(pykrt_kernel_param(k, 0, &info));
    ASSERT_OK(pykrt_kernel_param_member(k, 0, 3, &member));
    pykrt_status st = pykrt_launch(k, &one, args, 3);
    fake_launch fl;
    fake.last_launch(&fl);
    pykrt_status unchecked = pykrt_launch_unchecked(k, &one, args, 3);
    fake_launch fu;
    fake.last_launch(&fu);
    char member_name[32]; /* the module owns the name: kept before it goes */
    snprintf(member_name, sizeof member_name, "%s", member.name);
    pykrt_module_unload(m);
    ASSERT_EQ(PYKRT_KIND_TUPLE, info.kind);
    ASSERT_EQ(4, info.nmembers);
    ASSERT_EQ(PYKRT_COMPLEX64, member.dtype);
    ASSERT_STR("t[3]", member_name);
    ASSERT_OK(st);
    ASSERT_OK(unchecked);
    ASSERT_EQ(9, fl.nparams);
    ASSERT(param_is(&fl, 0, &t0, 4) && param_is(&fl, 1, &t1, 8) && param_is(&fl, 2, &t2, 8));
    ASSERT(param_is(&fl, 3, &re, 4) && param_is(&fl, 4, &im, 4) && param_is(&fl, 5, &sv, 2));
    ASSERT(array_params_are(&fl, 6, &out));
    ASSERT(param_is(&fu, 3, &re, 4) && param_is(&fu, 4, &im, 4));
}

/* A tuple argument must be one, of the members the manifest lists. */
static void test_tuple_checks(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "tuples");
    ASSERT(k != NULL);
    pykrt_array out = array1(0x40000, PYKRT_FLOAT64, 6, 8);
    pykrt_arg good[4] = {pykrt_arg_int32(1), pykrt_arg_float64(2), pykrt_arg_float64(3), pykrt_arg_complex64(4, 5)};
    pykrt_arg wrong[4] = {pykrt_arg_int32(1), pykrt_arg_float32(2), pykrt_arg_float64(3), pykrt_arg_complex64(4, 5)};
    pykrt_arg nested[4] = {pykrt_arg_int32(1), pykrt_arg_tuple(good, 1), pykrt_arg_float64(3),
                           pykrt_arg_complex64(4, 5)};
    struct {
        pykrt_arg t;
        const char *message;
    } cases[] = {
        {pykrt_arg_int32(1), "pykrt_launch(tuples): argument 0 (t): expected a tuple, got a scalar"},
        {pykrt_arg_tuple(good, 3), "argument 0 (t): expected a tuple of 4 members, got 3"},
        {pykrt_arg_tuple(NULL, 4), "argument 0 (t): expected a tuple of 4 members, got 0 (members is NULL)"},
        {pykrt_arg_tuple(wrong, 4), "argument 0 (t): member 1: expected float64, got float32"},
        {pykrt_arg_tuple(nested, 4), "argument 0 (t): member 1: expected float64, got a tuple"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_arg args[3] = {cases[i].t, pykrt_arg_int16(0), pykrt_arg_array(&out)};
        ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch(k, &one, args, 3), cases[i].message);
    }
    pykrt_arg short_args[3] = {pykrt_arg_tuple(good, 2), pykrt_arg_int16(0), pykrt_arg_array(&out)};
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch_unchecked(k, &one, short_args, 3),
               "pykrt_launch_unchecked(tuples): argument 0 (t): a tuple without its member 2");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_param_member(k, 1, 0, NULL), "out is NULL");
    pykrt_param_info info;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_param_member(k, 1, 0, &info), "parameter 1 is not a tuple");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_param_member(k, 0, 4, &info), "member 4, but t has 4");
    pykrt_module_unload(m);
}

static void test_array_packing(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "arrays");
    ASSERT(k != NULL);
    pykrt_array a, b, out;
    int64_t sa[2] = {3, 4}, sb[2] = {5, 6}, n = 17;
    pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 2, sa, PYKRT_LAYOUT_C);
    pykrt_array_init(&b, 0x2000, PYKRT_FLOAT32, 2, sb, PYKRT_LAYOUT_F);
    pykrt_array_init(&out, 0x4000, PYKRT_INT64, 1, &n, PYKRT_LAYOUT_C);
    pykrt_array c = {.data = 0x3000, .dtype = PYKRT_INT32, .ndim = 3, .shape = {2, 3, 4}, .strides = {100, -8, 4}};
    pykrt_arg args[4] = {pykrt_arg_array(&a), pykrt_arg_array(&b), pykrt_arg_array(&c), pykrt_arg_array(&out)};
    pykrt_status st = pykrt_launch(k, &one, args, 4);
    fake_launch l;
    fake.last_launch(&l);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    ASSERT_EQ(20, l.nparams);
    ASSERT(array_params_are(&l, 0, &a));
    ASSERT(array_params_are(&l, 5, &b));
    ASSERT(array_params_are(&l, 10, &c));
    ASSERT(array_params_are(&l, 17, &out));
}

static void test_unchecked_packs_the_same(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "arrays");
    ASSERT(k != NULL);
    pykrt_array a, b, out;
    int64_t sa[2] = {3, 4}, n = 17;
    pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 2, sa, PYKRT_LAYOUT_C);
    pykrt_array_init(&b, 0x2000, PYKRT_FLOAT32, 2, sa, PYKRT_LAYOUT_F);
    pykrt_array_init(&out, 0x4000, PYKRT_INT64, 1, &n, PYKRT_LAYOUT_C);
    pykrt_array c = {.data = 0x3000, .dtype = PYKRT_INT32, .ndim = 3, .shape = {2, 3, 4}, .strides = {48, 16, 4}};
    pykrt_arg args[4] = {pykrt_arg_array(&a), pykrt_arg_array(&b), pykrt_arg_array(&c), pykrt_arg_array(&out)};
    fake_launch checked, unchecked;
    pykrt_status s1 = pykrt_launch(k, &one, args, 4);
    fake.last_launch(&checked);
    pykrt_status s2 = pykrt_launch_unchecked(k, &one, args, 4);
    fake.last_launch(&unchecked);
    /* Unchecked means unchecked: a wrong dtype goes through. */
    b.dtype = PYKRT_INT8;
    pykrt_status s3 = pykrt_launch_unchecked(k, &one, args, 4);
    pykrt_status s4 = pykrt_launch_unchecked(k, &one, args, 3);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_module_unload(m);
    ASSERT_OK(s1);
    ASSERT_OK(s2);
    ASSERT_OK(s3);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, s4);
    ASSERT_CONTAINS(msg, "pykrt_launch_unchecked(arrays): 3 arguments given, the kernel takes 4");
    ASSERT(memcmp(checked.bytes, unchecked.bytes, sizeof checked.bytes) == 0);
}

/* The message of pykrt_launch(k, cfg, args, n), or "" on success. */
static const char *launch_error(pykrt_kernel *k, const pykrt_launch_config *cfg, const pykrt_arg *args, size_t n,
                                pykrt_status *st)
{
    *st = pykrt_launch(k, cfg, args, n);
    return *st == PYKRT_SUCCESS ? "" : pykrt_last_error();
}

static void test_argument_checks(void)
{
    pykrt_module *m = load("abi.yaml"), *v = load("vadd.yaml");
    pykrt_kernel *sk = kernel(m, "scalars"), *vk = kernel(v, "vadd");
    ASSERT(sk && vk);
    pykrt_array x = array1(0x1000, PYKRT_FLOAT32, 8, 4), x64 = array1(0x1000, PYKRT_FLOAT64, 8, 8);
    pykrt_array x2 = {.data = 0x1000, .dtype = PYKRT_FLOAT32, .ndim = 2, .shape = {2, 4}, .strides = {16, 4}};
    pykrt_arg unset;
    memset(&unset, 0, sizeof unset);
    pykrt_arg ok[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    static const struct {
        int arg; /* which vadd argument to replace, -1: pass two arguments */
        int with;
        const char *message;
    } cases[] = {
        {-1, 0, "pykrt_launch(vadd): 2 arguments given, the kernel takes 3"},
        {1, 0, "pykrt_launch(vadd): argument 1 (y): expected an array, got a scalar"},
        {2, 1, "argument 2 (out): expected an array, got an unset pykrt_arg"},
        {0, 2, "argument 0 (x): expected a 1-d float32 array, got a 1-d float64 array"},
        {0, 3, "argument 0 (x): expected a 1-d float32 array, got a 2-d float32 array"},
        {1, 4, "argument 1 (y): the array descriptor is NULL"},
    };
    pykrt_arg with[5] = {pykrt_arg_int32(3), unset, pykrt_arg_array(&x64), pykrt_arg_array(&x2),
                         pykrt_arg_array(NULL)};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_arg args[3] = {ok[0], ok[1], ok[2]};
        if (cases[i].arg >= 0)
            args[cases[i].arg] = with[cases[i].with];
        pykrt_status st;
        const char *msg = launch_error(vk, &one, args, cases[i].arg < 0 ? 2 : 3, &st);
        if (st != PYKRT_ERROR_BAD_LAUNCH || !strstr(msg, cases[i].message)) {
            t_fail(__FILE__, __LINE__, "case %zu: \"%s\" expected, got %s: %s", i, cases[i].message,
                   pykrt_status_name(st), msg);
            break;
        }
    }
    pykrt_arg sargs[15];
    for (int i = 0; i < 15; i++)
        sargs[i] = pykrt_arg_int64(0);
    pykrt_status st;
    const char *msg = launch_error(sk, &one, sargs, 15, &st);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", msg);
    sargs[0] = pykrt_arg_array(&x);
    msg = launch_error(sk, &one, sargs, 15, &st);
    char copy2[512];
    snprintf(copy2, sizeof copy2, "%s", msg);
    pykrt_module_unload(m);
    pykrt_module_unload(v);
    ASSERT_CONTAINS(copy, "pykrt_launch(scalars): argument 0 (a): expected int8, got int64");
    ASSERT_CONTAINS(copy2, "argument 0 (a): expected a scalar, got an array");
}

/* pykrt_check_args (offline.c) says what pykrt_launch says, but for the
 * function's name: the same code checks both. */
static void test_offline_checks_match(void)
{
    pykrt_module *v = load("vadd.yaml");
    pykrt_kernel *vk = kernel(v, "vadd");
    pykrt_manifest *mf = NULL;
    const pykrt_kernel_spec *spec = NULL;
    ASSERT(vk);
    ASSERT_OK(pykrt_manifest_open(t_path("vadd.yaml"), &mf));
    ASSERT_OK(pykrt_manifest_kernel(mf, "vadd", &spec));
    pykrt_array x = array1(0x1000, PYKRT_FLOAT32, 8, 4), bad[] = {
        array1(0x1000, PYKRT_FLOAT64, 8, 8), array1(0, PYKRT_FLOAT32, 8, 4), array1(0x1000, PYKRT_FLOAT32, -1, 4),
        array1(0x1000, PYKRT_FLOAT32, INT64_MAX, 4)};
    pykrt_launch_config zero = {{0, 1, 1}, {32, 1, 1}, 0, NULL};
    int same = 0, cases = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&bad[i]), pykrt_arg_array(&x)};
        for (int shape = 0; shape < 2; shape++, cases++) {
            const pykrt_launch_config *cfg = shape ? &zero : &one;
            pykrt_status st = pykrt_launch(vk, cfg, args, shape ? 3 : 3 - i % 2);
            char launched[512];
            snprintf(launched, sizeof launched, "%s", pykrt_last_error());
            pykrt_status checked = pykrt_check_args(spec, cfg, args, shape ? 3 : 3 - i % 2);
            const char *a = strchr(launched, '('), *b = strchr(pykrt_last_error(), '(');
            same += st == PYKRT_ERROR_BAD_LAUNCH && checked == st && a && b && strcmp(a, b) == 0 &&
                    strncmp(pykrt_last_error(), "pykrt_check_args(", 17) == 0;
            if (!(st == checked && a && b && strcmp(a, b) == 0))
                printf("launch: %s\ncheck:  %s\n", launched, pykrt_last_error());
        }
    }
    pykrt_manifest_close(mf);
    pykrt_module_unload(v);
    ASSERT_EQ(cases, same);
}

/* Descriptors that would make the kernel address memory the array cannot
 * own: a null data pointer with elements, an extent that overflows or
 * leaves the address space. Empty arrays reach nothing. */
static void test_array_extent_checks(void)
{
    pykrt_module *v = load("vadd.yaml");
    pykrt_kernel *k = kernel(v, "vadd");
    ASSERT(k != NULL);
    static const struct {
        pykrt_devptr data;
        int64_t shape, stride;
        const char *message; /* NULL: accepted */
    } cases[] = {
        {0, 10, 4, "argument 0 (x): the data pointer is 0, and the array has elements"},
        {0, 0, 4, NULL},
        {0x1000, INT64_MAX, INT64_MAX, "argument 0 (x): shape (9223372036854775807,) with strides "
                                       "(9223372036854775807,) spans more than 2^63 bytes"},
        {0x1000, 10, INT64_MAX, "spans more than 2^63 bytes"},
        {0x1000, 2, INT64_MAX - 3, "spans more than 2^63 bytes"},
        {0x1000, 2, INT64_MIN, "reaches below address 0"},
        {0x1000, 3, INT64_MIN, "spans more than 2^63 bytes"},
        {UINT64_MAX - 100, 100, 4, "shape (100,) with strides (4,) reaches past the end of the address space"},
        {UINT64_MAX - 399, 100, 4, NULL},
        {0x1000, 10000, -4, "reaches below address 0"},
        {0x1000 + 36, 10, -4, NULL},
        {0x1000, 10, 0, NULL},
        {0x1000, INT64_MAX, 0, NULL},
        {0x1000, -1, 4, "argument 0 (x): shape[0] is negative"},
    };
    pykrt_array ok = array1(0x1000, PYKRT_FLOAT32, 8, 4);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_array x = array1(cases[i].data, PYKRT_FLOAT32, cases[i].shape, cases[i].stride);
        pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&ok), pykrt_arg_array(&ok)};
        pykrt_status st;
        const char *msg = launch_error(k, &one, args, 3, &st);
        int good = cases[i].message ? st == PYKRT_ERROR_BAD_LAUNCH && strstr(msg, cases[i].message)
                                    : st == PYKRT_SUCCESS;
        if (!good) {
            t_fail(__FILE__, __LINE__, "case %zu: \"%s\" expected, got %s: %s", i,
                   cases[i].message ? cases[i].message : "success", pykrt_status_name(st), msg);
            break;
        }
    }
    pykrt_module_unload(v);
}

/* args NULL with a count is a NULL argument, not a count mismatch. */
static void test_null_args(void)
{
    pykrt_module *v = load("vadd.yaml");
    pykrt_kernel *k = kernel(v, "vadd");
    ASSERT(k != NULL);
    pykrt_status checked = pykrt_launch(k, &one, NULL, 3);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_status unchecked = pykrt_launch_unchecked(k, &one, NULL, 3);
    pykrt_module_unload(v);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, checked);
    ASSERT_STR("pykrt_launch(vadd): args is NULL, but nargs is 3", msg);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, unchecked);
    ASSERT_STR("pykrt_launch_unchecked(vadd): args is NULL, but nargs is 3", pykrt_last_error());
}

static void test_layout_checks(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "arrays");
    ASSERT(k != NULL);
    pykrt_array a, b, c, out;
    int64_t s2[2] = {3, 4}, s3[3] = {2, 3, 4}, n = 17;
    pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 2, s2, PYKRT_LAYOUT_F); /* a wants C */
    pykrt_array_init(&b, 0x2000, PYKRT_FLOAT32, 2, s2, PYKRT_LAYOUT_F);
    pykrt_array_init(&c, 0x3000, PYKRT_INT32, 3, s3, PYKRT_LAYOUT_F); /* A takes any */
    pykrt_array_init(&out, 0x4000, PYKRT_INT64, 1, &n, PYKRT_LAYOUT_C);
    pykrt_arg args[4] = {pykrt_arg_array(&a), pykrt_arg_array(&b), pykrt_arg_array(&c), pykrt_arg_array(&out)};
    pykrt_status st;
    char m1[512], m2[512], m3[512];
    snprintf(m1, sizeof m1, "%s", launch_error(k, &one, args, 4, &st));
    pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 2, s2, PYKRT_LAYOUT_C);
    pykrt_array_init(&b, 0x2000, PYKRT_FLOAT32, 2, s2, PYKRT_LAYOUT_C); /* b wants F */
    snprintf(m2, sizeof m2, "%s", launch_error(k, &one, args, 4, &st));
    pykrt_array_init(&b, 0x2000, PYKRT_FLOAT32, 2, s2, PYKRT_LAYOUT_F);
    out.strides[0] = 16; /* every other element: not C-contiguous */
    snprintf(m3, sizeof m3, "%s", launch_error(k, &one, args, 4, &st));
    out.strides[0] = 8;
    pykrt_status good = pykrt_launch(k, &one, args, 4);
    pykrt_module_unload(m);
    ASSERT_CONTAINS(m1, "argument 0 (a): expected a C-contiguous array, got shape (3, 4) with strides (8, 24)");
    ASSERT_CONTAINS(m2, "argument 1 (b): expected a F-contiguous array, got shape (3, 4) with strides (16, 4)");
    ASSERT_CONTAINS(m3, "argument 3 (out): expected a C-contiguous array, got shape (17,) with strides (16,)");
    ASSERT_OK(good);
}

static void test_launch_shape_checks(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "noargs"), *c = kernel(m, "use_const");
    ASSERT(k && c);
    static const struct {
        pykrt_launch_config cfg;
        const char *message;
    } cases[] = {
        {{{1, 1, 1}, {1024, 2, 1}, 0, NULL}, "a block of 2048 threads (1024x2x1), more than the kernel's limit of 1024"},
        {{{1, 1, 1}, {1, 1, 65}, 0, NULL}, "block.z is 65, more than the device's 64"},
        {{{1, 70000, 1}, {1, 1, 1}, 0, NULL}, "grid.y is 70000, more than the device's 65535"},
        {{{0, 1, 1}, {1, 1, 1}, 0, NULL}, "pykrt_launch(noargs): grid.x is 0"},
        {{{1, 1, 1}, {0, 1, 1}, 0, NULL}, "block.x is 0"},
        {{{1, 1, 1}, {1, 1, 1}, 200000, NULL},
         "200000 bytes of dynamic shared memory and 0 static exceed the device's limit of 101376"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_status st;
        const char *msg = launch_error(k, &cases[i].cfg, NULL, 0, &st);
        if (st != PYKRT_ERROR_BAD_LAUNCH || !strstr(msg, cases[i].message)) {
            t_fail(__FILE__, __LINE__, "case %zu: \"%s\" expected, got %s: %s", i, cases[i].message,
                   pykrt_status_name(st), msg);
            break;
        }
    }
    pykrt_array out = array1(0x1000, PYKRT_FLOAT32, 16, 4);
    pykrt_arg arg = pykrt_arg_array(&out);
    pykrt_launch_config wide = {{1, 1, 1}, {128, 1, 1}, 0, NULL}, fits = {{1, 1, 1}, {64, 1, 1}, 0, NULL};
    pykrt_status st;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", launch_error(c, &wide, &arg, 1, &st));
    pykrt_status good = pykrt_launch(c, &fits, &arg, 1);
    pykrt_status noargs = pykrt_launch(k, &one, NULL, 0);
    fake_launch l;
    fake.last_launch(&l);
    pykrt_module_unload(m);
    ASSERT_CONTAINS(msg, "pykrt_launch(use_const): a block of 128 threads (128x1x1), more than the kernel's limit of 64");
    ASSERT_OK(good);
    ASSERT_OK(noargs);
    ASSERT_STR("noargs", l.entry);
    ASSERT_EQ(0, l.nparams);
}

static void test_dynamic_shared(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "dynshared");
    ASSERT(k != NULL);
    pykrt_array x = array1(0x1000, PYKRT_FLOAT32, 256, 4);
    pykrt_arg arg = pykrt_arg_array(&x);
    pykrt_launch_config small = {{1, 1, 1}, {256, 1, 1}, 4096, NULL}, big = small;
    big.shared_bytes = 65536;
    pykrt_status s1 = pykrt_launch(k, &small, &arg, 1);
    int limit1 = fake.dyn_shared_limit("dynshared");
    pykrt_status s2 = pykrt_launch(k, &big, &arg, 1);
    int limit2 = fake.dyn_shared_limit("dynshared");
    fake_launch l;
    fake.last_launch(&l);
    pykrt_status s3 = pykrt_launch_unchecked(k, &small, &arg, 1);
    int limit3 = fake.dyn_shared_limit("dynshared");
    pykrt_module_unload(m);
    ASSERT_OK(s1);
    ASSERT_EQ(-1, limit1); /* under the default: no attribute set */
    ASSERT_OK(s2);
    ASSERT_EQ(65536, limit2);
    ASSERT_EQ(65536, l.shared);
    ASSERT_OK(s3);
    ASSERT_EQ(65536, limit3); /* never lowered */
}

static void test_cooperative_and_streams(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "coop");
    ASSERT(k != NULL);
    pykrt_array x = array1(0x1000, PYKRT_INT32, 2, 4);
    pykrt_arg arg = pykrt_arg_array(&x);
    pykrt_stream *s;
    void *handle;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_OK(pykrt_stream_handle(s, &handle));
    pykrt_launch_config cfg = {{8, 1, 1}, {64, 1, 1}, 0, s};
    pykrt_status st = pykrt_launch(k, &cfg, &arg, 1);
    fake_launch l;
    fake.last_launch(&l);
    fake.fail_next("cuLaunchCooperativeKernel", CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    pykrt_status big = pykrt_launch(k, &cfg, &arg, 1);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_stream_destroy(s);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    ASSERT_EQ(1, l.cooperative);
    ASSERT(l.stream == handle);
    ASSERT_EQ(PYKRT_ERROR_CUDA, big);
    ASSERT_STR("pykrt_launch(coop): cuLaunchCooperativeKernel failed: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: "
               "too many blocks in cooperative launch",
               msg);
}

static void test_stream_of_other_context(void)
{
    pykrt_module *m = load("vadd.yaml");
    pykrt_kernel *k = kernel(m, "vadd");
    pykrt_context *other;
    pykrt_stream *s;
    ASSERT(k != NULL);
    ASSERT_OK(pykrt_context_create(1, &other));
    ASSERT_OK(pykrt_stream_create(other, 0, &s));
    pykrt_array x = array1(0x1000, PYKRT_FLOAT32, 8, 4);
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_launch_config cfg = {{1, 1, 1}, {8, 1, 1}, 0, s};
    pykrt_status st = pykrt_launch(k, &cfg, args, 3);
    pykrt_stream_destroy(s);
    pykrt_context_destroy(other);
    pykrt_module_unload(m);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, st);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_launch(vadd): the stream belongs to another context");
}

static void test_launch_driver_error(void)
{
    pykrt_module *m = load("vadd.yaml");
    pykrt_kernel *k = kernel(m, "vadd");
    ASSERT(k != NULL);
    pykrt_array x = array1(0x1000, PYKRT_FLOAT32, 8, 4);
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    fake.fail_next("cuLaunchKernel", CUDA_ERROR_INVALID_VALUE);
    pykrt_status st = pykrt_launch(k, &one, args, 3);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    fake.fail_next("cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    pykrt_status st2 = pykrt_launch_unchecked(k, &one, args, 3);
    pykrt_module_unload(m);
    ASSERT_EQ(PYKRT_ERROR_CUDA, st);
    ASSERT_STR("pykrt_launch(vadd): cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: invalid argument", msg);
    ASSERT_EQ(PYKRT_ERROR_CUDA, st2);
    ASSERT_STR("pykrt_launch_unchecked(vadd): cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: "
               "too many resources requested for launch",
               pykrt_last_error());
}

/* Threads launching the same kernel at once, each on its own stream and
 * with no context of its own current to start with. */
typedef struct worker {
    pykrt_kernel *k;
    int failures;
    char first_error[256];
} worker;

static void *launcher(void *arg)
{
    worker *w = arg;
    pykrt_stream *s = NULL;
    if (pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s) != PYKRT_SUCCESS) {
        w->failures++;
        return NULL;
    }
    pykrt_array x = array1(0x1000 + (pykrt_devptr)(uintptr_t)w, PYKRT_FLOAT32, 64, 4);
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_launch_config cfg = {{1, 1, 1}, {64, 1, 1}, 0, s};
    for (int i = 0; i < 2000; i++) {
        pykrt_status st = i % 2 ? pykrt_launch(w->k, &cfg, args, 3) : pykrt_launch_unchecked(w->k, &cfg, args, 3);
        if (st != PYKRT_SUCCESS && w->failures++ == 0)
            snprintf(w->first_error, sizeof w->first_error, "%s", pykrt_last_error());
    }
    pykrt_stream_destroy(s);
    return NULL;
}

static void test_threads(void)
{
    pykrt_module *m = load("vadd.yaml");
    pykrt_kernel *k = kernel(m, "vadd");
    ASSERT(k != NULL);
    enum { THREADS = 4 };
    worker w[THREADS];
    pthread_t t[THREADS];
    long before = fake.launch_count();
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].k = k;
        pthread_create(&t[i], NULL, launcher, &w[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    long launched = fake.launch_count() - before;
    pykrt_module_unload(m);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].failures)
            printf("thread %d: %s\n", i, w[i].first_error);
        ASSERT_EQ(0, w[i].failures);
    }
    ASSERT_EQ(THREADS * 2000, launched);
}

/* The rng kernel takes numba.cuda.random's states: pykrt's states, and any
 * PYKRT_RECORD array of that layout, pass; another layout, a record array
 * without its layout, or plain uint64 do not, each said plainly. */
static void test_record_arrays(void)
{
    pykrt_module *m = load("abi.yaml");
    pykrt_kernel *k = kernel(m, "rng");
    ASSERT(k != NULL);
    pykrt_param_info info;
    ASSERT_OK(pykrt_kernel_param(k, 0, &info));
    ASSERT_EQ(PYKRT_RECORD, info.dtype);
    const pykrt_field *s1;
    ASSERT(info.record != NULL && info.record->size == 16);
    ASSERT_OK(pykrt_record_field(info.record, "s1", &s1));
    ASSERT_EQ(8, s1->offset);
    pykrt_array out = array1(0x9000, PYKRT_UINT64, 4, 8), states = array1(0x1000, PYKRT_XOROSHIRO128P, 4, 16);
    pykrt_array as_record, other, bare = array1(0x1000, PYKRT_RECORD, 4, 16), words = array1(0x1000, PYKRT_UINT64, 8, 8);
    ASSERT_OK(pykrt_array_init_record(&as_record, 0x1000, info.record, 1, (int64_t[]){4}, PYKRT_LAYOUT_C));
    ASSERT_EQ(16, as_record.strides[0]);
    static const pykrt_field swapped_fields[] = {{.name = "s1", .dtype = PYKRT_UINT64, .offset = 0},
                                                 {.name = "s0", .dtype = PYKRT_UINT64, .offset = 8}};
    static const pykrt_record swapped = {16, 8, 2, swapped_fields};
    ASSERT_OK(pykrt_array_init_record(&other, 0x1000, &swapped, 1, (int64_t[]){4}, PYKRT_LAYOUT_C));
    pykrt_arg args[2] = {pykrt_arg_array(&states), pykrt_arg_array(&out)};
    ASSERT_OK(pykrt_launch(k, &one, args, 2));
    fake_launch l;
    fake.last_launch(&l);
    ASSERT(array_params_are(&l, 0, &states));
    args[0] = pykrt_arg_array(&as_record);
    ASSERT_OK(pykrt_launch(k, &one, args, 2));
    pykrt_status st;
    args[0] = pykrt_arg_array(&other);
    ASSERT_CONTAINS(launch_error(k, &one, args, 2, &st), "argument 0 (states): expected records {s0: uint64 at 0, "
                                                          "s1: uint64 at 8; 16 bytes}, got {s1: uint64 at 0, s0: uint64 at 8; 16 bytes}");
    args[0] = pykrt_arg_array(&bare);
    ASSERT_CONTAINS(launch_error(k, &one, args, 2, &st), "got records without a layout (record is NULL)");
    args[0] = pykrt_arg_array(&words);
    ASSERT_CONTAINS(launch_error(k, &one, args, 2, &st), "16 bytes}, got uint64");
    pykrt_module_unload(m);
}

const t_case launch_tests[] = {
    T(test_record_arrays),
    T(test_vadd_packing),
    T(test_vadd_result),
    T(test_scalar_packing),
    T(test_tuple_packing),
    T(test_tuple_checks),
    T(test_array_packing),
    T(test_unchecked_packs_the_same),
    T(test_argument_checks),
    T(test_offline_checks_match),
    T(test_array_extent_checks),
    T(test_null_args),
    T(test_layout_checks),
    T(test_launch_shape_checks),
    T(test_dynamic_shared),
    T(test_cooperative_and_streams),
    T(test_stream_of_other_context),
    T(test_launch_driver_error),
    T(test_threads),
};
const size_t launch_ntests = sizeof launch_tests / sizeof launch_tests[0];
