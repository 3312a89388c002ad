/*
 * rt_fail.c - how the runtime's test programs against the driver double
 * and without a driver record a failed check: a message with its place,
 * and t_failed_now set for the test that runs.
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
