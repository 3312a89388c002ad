/*
 * output.c - the files a compilation writes, written so that none is lost
 * or torn.
 *
 * Each output is written whole to a temporary file beside it as soon as it
 * is made, and renamed into place only when every output of the run is
 * complete (outputs_commit), in the order they were added: main adds the
 * manifest last, so it is the last to change, and its digests name the
 * code beside it. Until then the user's files are untouched; on an error,
 * or a SIGINT, SIGTERM or SIGHUP, the temporaries are removed. A file
 * replaced keeps its mode, a new one gets 0666 less the umask, as fopen's
 * would; a symlink is written through. "-" is standard output, and a path
 * that is not a regular file (/dev/null, a FIFO) is written in place.
 *
 * A path that is one of the compilation's inputs (the same file, by any
 * name or link) is refused before anything is written.
 */
#include "pykc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct Output {
    char *path;          /* where it goes, links resolved */
    char *temp;          /* the complete file, or NULL: written at commit */
    char *data;          /* a copy of what is written at commit where temp
                            is NULL */
    size_t len;
};

/* The temporaries of the run, for the signal handler: at most one run a
 * process, and the handler only reads what is fully set. */
static char **pending_temps;
static volatile sig_atomic_t pending_count;

static void remove_pending(int sig) {
    for (sig_atomic_t i = 0; i < pending_count; i++)
        if (pending_temps[i]) unlink(pending_temps[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

void outputs_init(Outputs *o, Diag *d) {
    memset(o, 0, sizeof *o);
    o->diag = d;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        signal(cleanup_signals[i], remove_pending);
}

/* Holds the signals above back (block true) or lets them in, so that a
 * temporary file is never made without being listed for the handler. */
static void hold_signals(bool block) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) sigaddset(&set, cleanup_signals[i]);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static bool fail(Outputs *o, const char *path, int err) {
    diag_plain(o->diag, DIAG_ERROR, "cannot write '%s': %s", path, strerror(err));
    return false;
}

/* Whether path is one of the files the compilation read. */
static bool is_input(const Outputs *o, const struct stat *st) {
    for (int i = 0; i < o->diag->file_count; i++) {
        const SourceFile *f = o->diag->files[i];
        struct stat in;
        if (f->parent < 0 && stat(f->path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino)
            return true;
    }
    return false;
}

/* The file a path names: a symlink's target, made absolute. */
static char *resolve(const char *path) {
    struct stat st;
    char *real = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    char *out = real ? real : strdup(path);
    if (!out) ice("out of memory naming an output");
    return out;
}

static bool write_all(int fd, const void *data, size_t len) {
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

/* The mode a new file gets from open(..., 0666). */
static mode_t default_mode(void) {
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Writes data to a fresh temporary file in path's directory; its name, or
 * NULL with errno set. */
static char *write_temp(const char *path, const void *data, size_t len, const struct stat *old) {
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char *temp = malloc(strlen(path) + 10);
    if (!temp) ice("out of memory naming an output");
    sprintf(temp, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    int fd = mkstemp(temp);
    if (fd < 0) {
        free(temp);
        return NULL;
    }
    bool ok = fchmod(fd, old ? old->st_mode & 07777 : default_mode()) == 0 && write_all(fd, data, len);
    int err = errno;
    if (close(fd) != 0 && ok) ok = false, err = errno;
    if (!ok) {
        unlink(temp);
        free(temp);
        errno = err;
        return NULL;
    }
    return temp;
}

static void push(Outputs *o, Output *out) {
    if (o->count == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        Output **items = realloc(o->items, sizeof *items * (size_t)cap);
        char **temps = realloc(pending_temps, sizeof *temps * (size_t)cap);
        if (!items || !temps) ice("out of memory listing outputs");
        o->items = items;
        pending_temps = temps;
        o->cap = cap;
    }
    o->items[o->count] = out;
    pending_temps[o->count] = out->temp;
    pending_count = ++o->count;
}

static bool add_output(Outputs *o, const char *path, const void *data, size_t len) {
    Output *out = calloc(1, sizeof *out);
    if (!out) ice("out of memory listing outputs");
    out->path = strcmp(path, "-") == 0 ? strdup("-") : resolve(path);
    if (!out->path) ice("out of memory naming an output");
    struct stat st;
    bool exists = strcmp(out->path, "-") != 0 && stat(out->path, &st) == 0;
    if (exists && is_input(o, &st)) {
        diag_plain(o->diag, DIAG_ERROR, "output '%s' would overwrite an input file", path);
        free(out->path);
        free(out);
        return false;
    }
    if (strcmp(out->path, "-") == 0 || (exists && !S_ISREG(st.st_mode))) {
        out->data = malloc(len ? len : 1); /* stdout or a device: written at commit */
        if (!out->data) ice("out of memory keeping an output");
        memcpy(out->data, data, len);
        out->len = len;
    } else if (!(out->temp = write_temp(out->path, data, len, exists ? &st : NULL))) {
        int err = errno;
        free(out->path);
        free(out);
        return fail(o, path, err);
    }
    push(o, out);
    return true;
}

bool output_add(Outputs *o, const char *path, const void *data, size_t len) {
    hold_signals(true);
    bool ok = add_output(o, path, data, len);
    hold_signals(false);
    return ok;
}

/* Writes an output that is not a regular file, in place. */
static bool write_in_place(Outputs *o, const Output *out) {
    if (strcmp(out->path, "-") == 0) {
        bool ok = fwrite(out->data, 1, out->len, stdout) == out->len && fflush(stdout) == 0;
        return ok || fail(o, "<stdout>", errno);
    }
    int fd = open(out->path, O_WRONLY | O_TRUNC);
    bool ok = fd >= 0 && write_all(fd, out->data, out->len);
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) ok = false, err = errno;
    return ok || fail(o, out->path, err);
}

bool outputs_commit(Outputs *o) {
    hold_signals(true); /* a SIGTERM now would leave half of them renamed */
    bool ok = true;
    for (int i = 0; i < o->count && ok; i++) {
        Output *out = o->items[i];
        if (!out->temp) ok = write_in_place(o, out);
        else if (rename(out->temp, out->path) != 0) ok = fail(o, out->path, errno);
        else {
            pending_temps[i] = NULL;
            free(out->temp);
            out->temp = NULL;
        }
    }
    outputs_discard(o);
    hold_signals(false);
    return ok;
}

void outputs_discard(Outputs *o) {
    pending_count = 0;
    for (int i = 0; i < o->count; i++) {
        if (o->items[i]->temp) unlink(o->items[i]->temp);
        free(o->items[i]->temp);
        free(o->items[i]->data);
        free(o->items[i]->path);
        free(o->items[i]);
    }
    free(o->items);
    free(pending_temps);
    pending_temps = NULL;
    o->items = NULL;
    o->count = o->cap = 0;
}
