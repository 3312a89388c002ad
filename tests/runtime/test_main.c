/*
 * test_main.c - runs the runtime tests against the driver double.
 *
 * Usage: runtime_tests FIXTURES COUNTS [TEST...], with $PYKRT_LIBCUDA
 * naming the double (fake_cuda.c). It creates one context on device 0 for
 * the tests, runs every table (or only the tests named, as the
 * ThreadSanitizer build does with the thread tests), checks after each
 * test that it freed all the device memory it took, prints failures and a
 * closing line, and writes "passed failed" to COUNTS for
 * tests/runtime/run.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "rt_test.h"

const char *t_fixtures;
pykrt_context *t_ctx;
fake_hooks fake;


int fake_open(fake_hooks *hooks)
{
    const char *path = getenv("PYKRT_LIBCUDA");
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!lib)
        return -1;
#define FAKE_HOOK(member, symbol)                                                                                \
    {                                                                                                            \
        void *sym = dlsym(lib, #symbol);                                                                         \
        if (!sym)                                                                                                \
            return -1;                                                                                           \
        memcpy(&hooks->member, &sym, sizeof sym);                                                                \
    }
    FAKE_HOOK_NAMES(FAKE_HOOK)
#undef FAKE_HOOK
    return 0;
}

static char **only; /* the tests named on the command line, or NULL: all */

static int chosen(const char *name)
{
    for (char **o = only; o && *o; o++)
        if (strcmp(*o, name) == 0)
            return 1;
    return !only;
}

static void run(const t_case *cases, size_t n, int *passed, int *failed)
{
    for (size_t i = 0; i < n; i++) {
        if (!chosen(cases[i].name))
            continue;
        long before = fake.live_allocations();
        t_failed_now = 0;
        cases[i].fn();
        long after = fake.live_allocations();
        if (!t_failed_now && after != before)
            t_fail(__FILE__, __LINE__, "%s left %ld allocations behind", cases[i].name, after - before);
        if (t_failed_now)
            printf("  in %s\n", cases[i].name);
        *passed += !t_failed_now;
        *failed += t_failed_now;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runtime_tests FIXTURES COUNTS [TEST...]\n");
        return 2;
    }
    t_fixtures = argv[1];
    only = argc > 3 ? argv + 3 : NULL;
    if (fake_open(&fake) != 0) {
        fprintf(stderr, "runtime_tests: $PYKRT_LIBCUDA must name the driver double: %s\n", dlerror());
        return 2;
    }
    if (pykrt_context_create(0, &t_ctx) != PYKRT_SUCCESS) {
        fprintf(stderr, "runtime_tests: %s\n", pykrt_last_error());
        return 2;
    }
    int passed = 0, failed = 0;
    run(driver_tests, driver_ntests, &passed, &failed);
    run(manifest_tests, manifest_ntests, &passed, &failed);
    run(module_tests, module_ntests, &passed, &failed);
    run(link_tests, link_ntests, &passed, &failed);
    run(memory_tests, memory_ntests, &passed, &failed);
    run(launch_tests, launch_ntests, &passed, &failed);
    run(graph_tests, graph_ntests, &passed, &failed);
    pykrt_context_destroy(t_ctx);
    printf("runtime_tests: %d passed, %d failed\n", passed, failed);
    FILE *f = fopen(argv[2], "w");
    if (!f)
        return 2;
    fprintf(f, "%d %d\n", passed, failed);
    fclose(f);
    return failed != 0;
}
