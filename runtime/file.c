/*
 * file.c - reads the files a module load names: the manifest, and the
 * image its chosen target names, found relative to the manifest.
 *
 * Both paths may come from an untrusted place (a manifest downloaded with
 * its PTX), so a read must end, and end soon, whatever the path names. The
 * file is opened with O_NONBLOCK, so a FIFO without a writer cannot block
 * the open, and fstat on the open descriptor (not the path, which may
 * change in between) must show a regular file whose size is within the
 * caller's limit before a byte is read: /dev/zero, a FIFO or a 2 GB file is
 * refused at once, and the buffer is allocated once, at the size fstat
 * gave. A file that grows meanwhile is read up to that size only.
 *
 * A manifest names its images, and a manifest from elsewhere must not make
 * the program read /etc/passwd or ../../secret: unless the caller opts in
 * (PYKRT_LOAD_ANY_PATH), a target's file (or a file it links) is a
 * relative path without ".." components, so it lies in the manifest's
 * directory or below. The rule is on the names; symbolic links in that
 * directory are the directory owner's and are followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

static pykrt_status io_fail(const char *what, const char *path, int err)
{
    char why[128] = "unknown error";
    strerror_r(err, why, sizeof why);
    return pk_fail(PYKRT_ERROR_IO, "%s: cannot read %s: %s", what, path, why);
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a file";
}

/* The open file must be regular and at most `limit` bytes. */
static pykrt_status check_file(int fd, const char *path, size_t limit, pykrt_status too_big, const char *what,
                               size_t *size)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return io_fail(what, path, errno);
    if (!S_ISREG(sb.st_mode))
        return pk_fail(PYKRT_ERROR_IO, "%s: cannot read %s: not a regular file but %s", what, path,
                       file_kind(sb.st_mode));
    if (sb.st_size < 0 || (uintmax_t)sb.st_size > limit)
        return pk_fail(too_big, "%s: %s is %lld bytes, larger than the limit of %zu bytes", what, path,
                       (long long)sb.st_size, limit);
    *size = (size_t)sb.st_size;
    return PYKRT_SUCCESS;
}

/* Reads up to `size` bytes; fewer if the file shrank meanwhile. */
static pykrt_status read_all(int fd, const char *path, const char *what, char *buf, size_t size, size_t *len)
{
    size_t n = 0;
    while (n < size) {
        ssize_t got = read(fd, buf + n, size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return io_fail(what, path, errno);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *len = n;
    return PYKRT_SUCCESS;
}

pykrt_status pk_read_file(const char *path, size_t limit, pykrt_status too_big, const char *what, char **out,
                          size_t *len)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return io_fail(what, path, errno);
    size_t size = 0;
    char *buf = NULL;
    pykrt_status st = check_file(fd, path, limit, too_big, what, &size);
    if (st == PYKRT_SUCCESS && !(buf = malloc(size + 1))) /* size <= limit: no overflow */
        st = pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory reading %s", what, path);
    if (st == PYKRT_SUCCESS)
        st = read_all(fd, path, what, buf, size, len);
    close(fd);
    if (st != PYKRT_SUCCESS) {
        free(buf);
        return st;
    }
    buf[*len] = '\0';
    *out = buf;
    return PYKRT_SUCCESS;
}

/* Why `file` may name something outside the manifest's directory, or NULL. */
static const char *outside(const char *file)
{
    if (file[0] == '/')
        return "is an absolute path";
    for (const char *c = file; c; c = strchr(c, '/')) {
        c += *c == '/';
        if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
            return "has a '..' component";
    }
    return NULL;
}

pykrt_status pk_image_path(const char *manifest_path, const char *file, bool any_path, const char *what, char **out)
{
    *out = NULL;
    const char *problem = outside(file);
    if (problem && !any_path)
        return pk_fail(PYKRT_ERROR_MANIFEST,
                       "%s: the file '%s' %s; without PYKRT_LOAD_ANY_PATH, libpykrt reads only files in "
                       "the manifest's directory or below",
                       what, file, problem);
    const char *slash = strrchr(manifest_path, '/');
    size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - manifest_path) + 1;
    size_t len = strlen(file); /* both lengths are of existing strings: the sum cannot overflow */
    char *path = malloc(dir + len + 1);
    if (!path)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    memcpy(path, manifest_path, dir);
    memcpy(path + dir, file, len + 1);
    *out = path;
    return PYKRT_SUCCESS;
}
