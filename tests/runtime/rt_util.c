/*
 * rt_util.c - helpers shared by the runtime's test programs
 * (runtime_tests and gpu_check): fixture paths and whole-file reads.
 */
#include <stdlib.h>

#include "rt_test.h"

const char *t_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", t_fixtures, name);
    return buf;
}

char *t_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}
