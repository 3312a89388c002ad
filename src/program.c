/*
 * program.c - the programs a target runs: ptxas for a cubin, the system's
 * C compiler driver to link a host module. Temporary files in $TMPDIR (or
 * /tmp), a program run without a shell with its output captured.
 */
#include "pykc.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int program_temp(const char *pattern, int suffix_len, char *path, size_t size, Diag *d) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/%s", dir && *dir ? dir : "/tmp", pattern);
    int fd = mkstemps(path, suffix_len);
    if (fd < 0) diag_plain(d, DIAG_ERROR, "cannot create a temporary file: %s", strerror(errno));
    return fd;
}

bool program_write_temp(const char *pattern, int suffix_len, const char *bytes, size_t len, char *path, size_t size,
                        Diag *d) {
    int fd = program_temp(pattern, suffix_len, path, size, d);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, bytes + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    bool ok = done == len && close(fd) == 0;
    if (done != len) close(fd);
    if (!ok) {
        diag_plain(d, DIAG_ERROR, "cannot write '%s': %s", path, strerror(errno));
        unlink(path);
    }
    return ok;
}

char *program_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *bytes = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n + 1)) &&
        fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return bytes;
}

/* Reads what fd gives until end of file into a malloc'd string. */
static char *read_all(int fd) {
    size_t len = 0, cap = 4096;
    char *s = malloc(cap);
    if (!s) ice("out of memory reading a program's output");
    for (;;) {
        if (len + 1 == cap && !(s = realloc(s, cap *= 2))) ice("out of memory reading a program's output");
        ssize_t r = read(fd, s + len, cap - len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    s[len] = '\0';
    return s;
}

int program_run(char *const argv[], char **output, int *why) {
    int fds[2];
    *output = NULL;
    if (pipe(fds) != 0) return *why = errno, -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc == 0) *output = read_all(fds[0]);
    close(fds[0]);
    if (rc != 0) return *why = rc, -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return *why = errno, -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
