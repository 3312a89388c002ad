/*
 * rt_test.h - the runtime tests' assertions and shared state.
 *
 * Each test is a void function; an ASSERT that fails prints the file, the
 * line and the expression (chibicc style: "expr => want expected but got
 * got"), marks the test failed and returns from it. test_main.c runs the
 * tables of tests that each test_*.c file exports and counts them.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fake_cuda.h"
#include "pykrt.h"

typedef struct t_case {
    const char *name;
    void (*fn)(void);
} t_case;

#define T(fn) {#fn, fn}

void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Set by rt_fail.c's t_fail; each program clears it before a test. */
extern int t_failed_now;

/* Runs each case, counting it passed unless it called t_fail; a failed
 * case is named after its messages. */
void t_run_cases(const t_case *cases, size_t n, int *passed, int *failed);

/* Prints "PROGRAM: N passed, M failed", writes "N M" to the file `counts`
 * for run.sh, and returns the program's exit status. */
int t_report(const char *program, const char *counts, int passed, int failed);

/* Set by the runner for every test. */
extern const char *t_fixtures;   /* tests/runtime/fixtures */
extern pykrt_context *t_ctx;     /* device 0, created once */
extern fake_hooks fake;          /* the driver double's controls */

/* fixtures/NAME, in a static buffer (one at a time per expression). */
const char *t_path(const char *name);

/* Reads a whole file; the caller frees it. NULL on failure. */
char *t_read(const char *path, size_t *len);

/* Scratch directories: t_mkdtemp makes a new one under /tmp (0 on
 * success), t_write writes DIR/NAME, t_rmdir removes DIR and its files.
 * t_join writes DIR/NAME into buf and returns it. */
int t_mkdtemp(char dir[64]);
int t_write(const char *dir, const char *name, const void *data, size_t len);
void t_rmdir(const char *dir);
const char *t_join(char *buf, size_t size, const char *dir, const char *name);

/* Opens the driver double named by $PYKRT_LIBCUDA and fills `hooks`;
 * 0 on success. */
int fake_open(fake_hooks *hooks);

#define ASSERT(cond)                                                                                             \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            t_fail(__FILE__, __LINE__, "ASSERT(%s) failed", #cond);                                              \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

#define ASSERT_EQ(want, got)                                                                                     \
    do {                                                                                                         \
        long long w_ = (long long)(want), g_ = (long long)(got);                                                 \
        if (w_ != g_) {                                                                                          \
            t_fail(__FILE__, __LINE__, "%s => %lld expected but got %lld", #got, w_, g_);                       \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

#define ASSERT_STR(want, got)                                                                                    \
    do {                                                                                                         \
        const char *w_ = (want), *g_ = (got);                                                                    \
        if (!g_ || strcmp(w_, g_) != 0) {                                                                        \
            t_fail(__FILE__, __LINE__, "%s => \"%s\" expected but got \"%s\"", #got, w_, g_ ? g_ : "(null)");  \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

#define ASSERT_CONTAINS(hay, needle)                                                                             \
    do {                                                                                                         \
        const char *h_ = (hay), *n_ = (needle);                                                                  \
        if (!h_ || !strstr(h_, n_)) {                                                                            \
            t_fail(__FILE__, __LINE__, "%s => text containing \"%s\" expected but got \"%s\"", #hay, n_,       \
                   h_ ? h_ : "(null)");                                                                          \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

#define ASSERT_OK(call)                                                                                          \
    do {                                                                                                         \
        pykrt_status s_ = (call);                                                                                \
        if (s_ != PYKRT_SUCCESS) {                                                                               \
            t_fail(__FILE__, __LINE__, "%s => PYKRT_SUCCESS expected but got %s: %s", #call,                    \
                   pykrt_status_name(s_), pykrt_last_error());                                                   \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

/* The call fails with `want`, and its message contains `text`. */
#define ASSERT_ERR(want, call, text)                                                                             \
    do {                                                                                                         \
        pykrt_status s_ = (call);                                                                                \
        if (s_ != (want) || !strstr(pykrt_last_error(), (text))) {                                               \
            t_fail(__FILE__, __LINE__, "%s => %s with \"%s\" expected but got %s: %s", #call,                   \
                   pykrt_status_name(want), (text), pykrt_status_name(s_), pykrt_last_error());                  \
            return;                                                                                              \
        }                                                                                                        \
    } while (0)

/* The test tables of each file. */
extern const t_case driver_tests[], manifest_tests[], module_tests[], link_tests[], memory_tests[], launch_tests[],
    graph_tests[];
extern const size_t driver_ntests, manifest_ntests, module_ntests, link_ntests, memory_ntests, launch_ntests,
    graph_ntests;

#endif /* RT_TEST_H */
