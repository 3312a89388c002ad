/*
 * rt_fail.c - how the runtime's test programs against the driver double
 * and without a driver record a failed check: a message with its place,
 * and t_failed_now set for the test that runs; and how those programs
 * run their tests and report the counts.
 */
#include <stdarg.h>

#include "rt_test.h"

int t_failed_now;

void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    t_failed_now = 1;
}

void t_run_cases(const t_case *cases, size_t n, int *passed, int *failed)
{
    for (size_t i = 0; i < n; i++) {
        t_failed_now = 0;
        cases[i].fn();
        if (t_failed_now)
            printf("  in %s\n", cases[i].name);
        *passed += !t_failed_now;
        *failed += t_failed_now;
    }
}

int t_report(const char *program, const char *counts, int passed, int failed)
{
    printf("%s: %d passed, %d failed\n", program, passed, failed);
    FILE *f = fopen(counts, "w");
    if (!f)
        return 2;
    fprintf(f, "%d %d\n", passed, failed);
    fclose(f);
    return failed != 0;
}
