/*
 * rt_util.c - helpers shared by the runtime's test programs
 * (runtime_tests and gpu_check): fixture paths, whole-file reads, and
 * scratch directories for tests that make their own files.
 */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

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

int t_mkdtemp(char dir[64])
{
    snprintf(dir, 64, "/tmp/pykrt-test-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

const char *t_join(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

int t_write(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    FILE *f = fopen(t_join(path, sizeof path, dir, name), "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

void t_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(t_join(path, sizeof path, dir, e->d_name));
    if (d)
        closedir(d);
    rmdir(dir);
}
