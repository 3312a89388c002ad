/*
 * nodriver.c - a program linked with libpykrt.a where the driver is
 * missing or unusable. Usage: nodriver MODE COUNTS, MODE being
 *   nodriver  no libcuda.so.1 can be opened       -> PYKRT_ERROR_NO_DRIVER
 *   nodevice  the driver finds no device (cuInit) -> PYKRT_ERROR_NO_DEVICE
 *   nolaunch  the driver lacks cuLaunchKernel      -> PYKRT_ERROR_NO_DRIVER
 * Every call that needs the driver must return the status with a plain
 * message, from every thread, without crashing; calls that need no driver
 * still work. Writes "passed failed" to COUNTS.
 */
#include <pthread.h>
#include <stdlib.h>

#include "rt_test.h"

static pykrt_status want;
static const char *want_text;

static void test_every_entry_reports(void)
{
    int n = -1;
    pykrt_device_info info;
    pykrt_context *ctx = (pykrt_context *)1;
    ASSERT_ERR(want, pykrt_init(), want_text);
    ASSERT_ERR(want, pykrt_init(), want_text);
    ASSERT_ERR(want, pykrt_driver_version(&n), want_text);
    ASSERT_ERR(want, pykrt_device_count(&n), want_text);
    ASSERT_ERR(want, pykrt_device_query(0, &info), want_text);
    ASSERT_ERR(want, pykrt_context_create(0, &ctx), want_text);
    ASSERT(ctx == NULL);
}

static void test_host_side_still_works(void)
{
    pykrt_xoroshiro128p s[2];
    pykrt_array a;
    ASSERT_OK(pykrt_random_states_host(s, 2, 1, 0));
    ASSERT_OK(pykrt_array_1d(&a, 0, PYKRT_FLOAT32, 4));
    ASSERT_STR("float32", pykrt_dtype_name(PYKRT_FLOAT32));
}

static void *from_thread(void *arg)
{
    pykrt_context *ctx = NULL;
    int *ok = arg;
    *ok = pykrt_context_create(0, &ctx) == want && strstr(pykrt_last_error(), want_text) != NULL && !ctx;
    return NULL;
}

static void test_threads_see_it_too(void)
{
    enum { N = 8 };
    pthread_t t[N];
    int ok[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, from_thread, &ok[i]);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++)
        ASSERT(ok[i]);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *mode = argv[1];
    static char text[600];
    const char *lib = getenv("PYKRT_LIBCUDA");
    if (strcmp(mode, "nodriver") == 0) {
        want = PYKRT_ERROR_NO_DRIVER;
        snprintf(text, sizeof text, "no CUDA driver: %s: cannot open shared object file",
                 lib && *lib ? lib : "libcuda.so.1");
    } else if (strcmp(mode, "nodevice") == 0) {
        want = PYKRT_ERROR_NO_DEVICE;
        snprintf(text, sizeof text, "no CUDA device: cuInit failed: CUDA_ERROR_NO_DEVICE: "
                                    "no CUDA-capable device is detected");
    } else if (strcmp(mode, "nolaunch") == 0) {
        want = PYKRT_ERROR_NO_DRIVER;
        snprintf(text, sizeof text, "no CUDA driver: %s lacks cuLaunchKernel", lib ? lib : "");
    } else {
        return 2;
    }
    want_text = text;
    static const t_case tests[] = {T(test_every_entry_reports), T(test_host_side_still_works),
                                   T(test_threads_see_it_too)};
    int passed = 0, failed = 0;
    t_run_cases(tests, sizeof tests / sizeof tests[0], &passed, &failed);
    char program[64];
    snprintf(program, sizeof program, "nodriver %s", mode);
    return t_report(program, argv[2], passed, failed);
}
