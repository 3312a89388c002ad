/*
 * offline.c - pykrt_manifest_open and pykrt_check_args with no driver at
 * all: run.sh runs it with libcuda.so.1 absent. Usage: offline FIXTURES
 * COUNTS; writes "passed failed" to COUNTS. The last test shows the
 * driver really was absent, so the checks above it needed none.
 */
#include <stdlib.h>

#include "rt_test.h"

static const char *fixtures;

static const char *fixture(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", fixtures, name);
    return buf;
}

static const pykrt_launch_config one = {{1, 1, 1}, {32, 1, 1}, 0, NULL};

/* vadd's arguments, each case one of them replaced. */
static void test_arguments(void)
{
    pykrt_manifest *m = NULL;
    const pykrt_kernel_spec *k = NULL;
    ASSERT_OK(pykrt_manifest_open(fixture("vadd.yaml"), &m));
    ASSERT_OK(pykrt_manifest_kernel(m, "vadd", &k));
    pykrt_array x, x64, null_data;
    ASSERT_OK(pykrt_array_1d(&x, 0x1000, PYKRT_FLOAT32, 8));
    ASSERT_OK(pykrt_array_1d(&x64, 0x1000, PYKRT_FLOAT64, 8));
    ASSERT_OK(pykrt_array_1d(&null_data, 0, PYKRT_FLOAT32, 8));
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_status good = pykrt_check_args(k, &one, args, 3);
    pykrt_status two = pykrt_check_args(k, &one, args, 2);
    char msg_two[512];
    snprintf(msg_two, sizeof msg_two, "%s", pykrt_last_error());
    args[0] = pykrt_arg_array(&x64);
    pykrt_status wrong = pykrt_check_args(k, NULL, args, 3);
    char msg_wrong[512];
    snprintf(msg_wrong, sizeof msg_wrong, "%s", pykrt_last_error());
    args[0] = pykrt_arg_array(&x);
    args[2] = pykrt_arg_array(&null_data);
    pykrt_status null = pykrt_check_args(k, &one, args, 3);
    char msg_null[512];
    snprintf(msg_null, sizeof msg_null, "%s", pykrt_last_error());
    args[2] = pykrt_arg_int32(1);
    pykrt_status scalar = pykrt_check_args(k, &one, args, 3);
    ASSERT_OK(pykrt_manifest_close(m));
    ASSERT_OK(good);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, two);
    ASSERT_STR("pykrt_check_args(vadd): 2 arguments given, the kernel takes 3", msg_two);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, wrong);
    ASSERT_STR("pykrt_check_args(vadd): argument 0 (x): expected a 1-d float32 array, got a 1-d float64 array",
               msg_wrong);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, null);
    ASSERT_CONTAINS(msg_null, "argument 2 (out): the data pointer is 0, and the array has elements");
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, scalar);
    ASSERT_CONTAINS(pykrt_last_error(), "argument 2 (out): expected an array, got a scalar");
}

/* Launch shapes against every device's limits and the kernel's own. */
static void test_shapes(void)
{
    pykrt_manifest *m = NULL;
    const pykrt_kernel_spec *k = NULL, *c = NULL;
    ASSERT_OK(pykrt_manifest_open(fixture("abi.yaml"), &m));
    ASSERT_OK(pykrt_manifest_kernel(m, "noargs", &k));
    ASSERT_OK(pykrt_manifest_kernel(m, "use_const", &c));
    static const struct {
        pykrt_launch_config cfg;
        const char *message;
    } cases[] = {
        {{{1, 1, 1}, {1024, 2, 1}, 0, NULL},
         "pykrt_check_args(noargs): a block of 2048 threads (1024x2x1), more than the kernel's limit of 1024"},
        {{{1, 1, 1}, {1, 1, 65}, 0, NULL}, "block.z is 65, more than every device's 64"},
        {{{1, 70000, 1}, {1, 1, 1}, 0, NULL}, "grid.y is 70000, more than every device's 65535"},
        {{{0, 1, 1}, {1, 1, 1}, 0, NULL}, "pykrt_check_args(noargs): grid.x is 0"},
        {{{1, 1, 1}, {1, 1, 1}, 300000, NULL},
         "300000 bytes of dynamic shared memory and 0 static exceed every device's limit of 232448"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pykrt_status st = pykrt_check_args(k, &cases[i].cfg, NULL, 0);
        if (st != PYKRT_ERROR_BAD_LAUNCH || !strstr(pykrt_last_error(), cases[i].message)) {
            t_fail(__FILE__, __LINE__, "case %zu: \"%s\" expected, got %s: %s", i, cases[i].message,
                   pykrt_status_name(st), pykrt_last_error());
            break;
        }
    }
    pykrt_array out;
    ASSERT_OK(pykrt_array_1d(&out, 0x1000, PYKRT_FLOAT32, 16));
    pykrt_arg arg = pykrt_arg_array(&out);
    pykrt_launch_config wide = {{1, 1, 1}, {128, 1, 1}, 0, NULL}, fits = {{1, 1, 1}, {64, 1, 1}, 0, NULL};
    pykrt_status too_wide = pykrt_check_args(c, &wide, &arg, 1);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_status good = pykrt_check_args(c, &fits, &arg, 1);
    pykrt_manifest_close(m);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, too_wide);
    ASSERT_CONTAINS(msg, "pykrt_check_args(use_const): a block of 128 threads (128x1x1), more than the kernel's limit of 64");
    ASSERT_OK(good);
}

static void test_lookup_and_errors(void)
{
    pykrt_manifest *m = NULL;
    const pykrt_kernel_spec *k = NULL;
    ASSERT_ERR(PYKRT_ERROR_IO, pykrt_manifest_open(fixture("no-such.yaml"), &m), "pykrt_manifest_open(");
    ASSERT(m == NULL);
    ASSERT_ERR(PYKRT_ERROR_MANIFEST, pykrt_manifest_open(fixture("vadd.ptx"), &m), "vadd.ptx");
    ASSERT(m == NULL);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_check_args(NULL, &one, NULL, 0), "kernel is NULL");
    ASSERT_OK(pykrt_manifest_open(fixture("vadd.yaml"), &m));
    pykrt_status st = pykrt_manifest_kernel(m, "vsub", &k);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_status at = pykrt_manifest_kernel_at(m, 0, &k);
    pykrt_status past = pykrt_manifest_kernel_at(m, 1, &k);
    pykrt_manifest_close(m);
    ASSERT_EQ(PYKRT_ERROR_NOT_FOUND, st);
    ASSERT_CONTAINS(msg, "no kernel 'vsub'; the manifest has vadd");
    ASSERT_OK(at);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, past);
    ASSERT_OK(pykrt_manifest_close(NULL));
}

/* Last: the driver is absent, so nothing above used it. */
static void test_there_was_no_driver(void)
{
    ASSERT_ERR(PYKRT_ERROR_NO_DRIVER, pykrt_init(), "no CUDA driver");
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    fixtures = argv[1];
    static const t_case tests[] = {T(test_arguments), T(test_shapes), T(test_lookup_and_errors),
                                   T(test_there_was_no_driver)};
    int passed = 0, failed = 0;
    t_run_cases(tests, sizeof tests / sizeof tests[0], &passed, &failed);
    return t_report("offline", argv[2], passed, failed);
}
