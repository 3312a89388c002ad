/*
 * diag.c - source files and diagnostics.
 *
 * Holds every source file of a compilation and prints messages in clang's
 * form: `file:line:col: error: message`, the source line, and a caret with
 * `~` under the rest of the range. Columns count UTF-8 characters, not bytes.
 * After error_limit errors it says so once and sets `stop`, which the passes
 * read to end early. ice() is for pykc's own bugs, never for bad input.
 */
#include "pykc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Offsets are 32-bit; a larger file is refused rather than misreported. */
#define MAX_SOURCE_SIZE ((size_t)1 << 30)

void diag_init(Diag *d, FILE *out) {
    memset(d, 0, sizeof *d);
    d->out = out;
    d->error_limit = 20;
}

void diag_free(Diag *d) {
    for (int i = 0; i < d->file_count; i++) {
        free((void *)d->files[i]->text);
        free(d->files[i]->line_starts);
        free((void *)d->files[i]->path);
        free(d->files[i]);
    }
    free(d->files);
    d->files = NULL;
    d->file_count = d->file_cap = 0;
}

static void index_lines(SourceFile *f) {
    int cap = 64, n = 0;
    int *starts = malloc(sizeof(int) * (size_t)cap);
    if (!starts) ice("out of memory indexing %s", f->path);
    starts[n++] = 0;
    for (size_t i = 0; i < f->size; i++) {
        bool cr_alone = f->text[i] == '\r' && (i + 1 >= f->size || f->text[i + 1] != '\n');
        if (f->text[i] != '\n' && !cr_alone) continue;
        if (n == cap) {
            cap *= 2;
            int *grown = realloc(starts, sizeof(int) * (size_t)cap);
            if (!grown) ice("out of memory indexing %s", f->path);
            starts = grown;
        }
        starts[n++] = (int)(i + 1);
    }
    f->line_starts = starts;
    f->line_count = n;
}

/* Takes ownership of text, which must be malloc'd and NUL-terminated. */
static int add_file(Diag *d, const char *path, char *text, size_t size) {
    if (d->file_count == d->file_cap) {
        int cap = d->file_cap ? d->file_cap * 2 : 4;
        SourceFile **files = realloc(d->files, sizeof(*files) * (size_t)cap);
        if (!files) ice("out of memory adding %s", path);
        d->files = files;
        d->file_cap = cap;
    }
    SourceFile *f = calloc(1, sizeof *f);
    char *owned_path = strdup(path);
    if (!f || !owned_path) ice("out of memory adding %s", path);
    f->path = owned_path;
    f->text = text;
    f->size = size;
    index_lines(f);
    d->files[d->file_count] = f;
    return d->file_count++;
}

int diag_add_source(Diag *d, const char *path, const char *text, size_t size) {
    char *copy = malloc(size + 1);
    if (!copy) ice("out of memory copying %s", path);
    memcpy(copy, text, size);
    copy[size] = '\0';
    return add_file(d, path, copy, size);
}

int diag_load_file(Diag *d, const char *path, const char **err) {
    struct stat st;
    if (stat(path, &st) != 0) {
        *err = strerror(errno);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        *err = "is a directory";
        return -1;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *err = strerror(errno);
        return -1;
    }
    size_t cap = 4096, size = 0;
    char *buf = malloc(cap);
    if (!buf) ice("out of memory reading %s", path);
    for (;;) {
        if (size + 1 >= cap) {
            if (cap >= MAX_SOURCE_SIZE) {
                fclose(fp);
                free(buf);
                *err = "file too large (over 1 GiB)";
                return -1;
            }
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (!grown) ice("out of memory reading %s", path);
            buf = grown;
        }
        size_t got = fread(buf + size, 1, cap - size - 1, fp);
        size += got;
        if (got == 0) break;
    }
    bool failed = ferror(fp);
    int saved = errno;
    fclose(fp);
    if (failed) {
        free(buf);
        *err = strerror(saved ? saved : EIO);
        return -1;
    }
    buf[size] = '\0';
    return add_file(d, path, buf, size);
}

const SourceFile *diag_file(const Diag *d, int file) {
    return file >= 0 && file < d->file_count ? d->files[file] : NULL;
}

static int line_of(const SourceFile *f, uint32_t off) {
    int lo = 0, hi = f->line_count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((uint32_t)f->line_starts[mid] <= off) lo = mid; else hi = mid - 1;
    }
    return lo;
}

static bool is_utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

void diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col) {
    const SourceFile *f = diag_file(d, file);
    if (!f) {
        *line = *col = 0;
        return;
    }
    if (off > f->size) off = (uint32_t)f->size;
    int l = line_of(f, off);
    int c = 1;
    for (uint32_t i = (uint32_t)f->line_starts[l]; i < off; i++)
        if (!is_utf8_continuation((unsigned char)f->text[i])) c++;
    *line = l + 1;
    *col = c;
}

static uint32_t line_end(const SourceFile *f, int line_index) {
    uint32_t e = (uint32_t)f->line_starts[line_index];
    while (e < f->size && f->text[e] != '\n' && f->text[e] != '\r') e++;
    return e;
}

/* Prints the line that holds where.begin, then the caret line: a tab where
 * the source has one so the caret stays aligned, one space a character. */
static void print_excerpt(const Diag *d, const SourceFile *f, Span where) {
    int li = line_of(f, where.begin);
    uint32_t start = (uint32_t)f->line_starts[li], end = line_end(f, li);
    for (uint32_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)f->text[i];
        fputc(c == '\0' ? ' ' : c, d->out);
    }
    fputc('\n', d->out);
    uint32_t stop = where.end > end ? end : where.end;
    for (uint32_t i = start; i < where.begin && i < end; i++) {
        unsigned char c = (unsigned char)f->text[i];
        if (!is_utf8_continuation(c)) fputc(c == '\t' ? '\t' : ' ', d->out);
    }
    fputc('^', d->out);
    for (uint32_t i = where.begin + 1; i < stop; i++)
        if (!is_utf8_continuation((unsigned char)f->text[i])) fputc('~', d->out);
    fputc('\n', d->out);
}

static const char *level_name(DiagLevel level) {
    switch (level) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    }
    return "error";
}

/* Counts the diagnostic and says whether to print it: nothing after the
 * error limit, and notes only when the message they explain was printed. */
static bool admit(Diag *d, DiagLevel *level, bool *promoted) {
    *promoted = false;
    if (*level == DIAG_NOTE) return !d->dropped && !d->stop;
    d->dropped = true;
    if (d->stop) return false;
    if (*level == DIAG_WARNING && d->werror) {
        *level = DIAG_ERROR;
        *promoted = true;
    }
    if (*level == DIAG_ERROR && d->error_limit && d->error_count >= d->error_limit) {
        fprintf(d->out, "fatal error: too many errors emitted, stopping now [-ferror-limit=]\n");
        d->stop = true;
        return false;
    }
    if (*level == DIAG_ERROR) d->error_count++; else d->warning_count++;
    d->dropped = false;
    return true;
}

void diag_report(Diag *d, DiagLevel level, Span where, const char *fmt, va_list ap) {
    bool promoted;
    if (!admit(d, &level, &promoted)) return;
    const SourceFile *f = diag_file(d, where.file);
    if (f) {
        int line, col;
        diag_line_col(d, where.file, where.begin, &line, &col);
        fprintf(d->out, "%s:%d:%d: %s: ", f->path, line, col, level_name(level));
    } else {
        fprintf(d->out, "pykc: %s: ", level_name(level));
    }
    vfprintf(d->out, fmt, ap);
    fputs(promoted ? " [-Werror]\n" : "\n", d->out);
    if (f) print_excerpt(d, f, where);
}

#define DEFINE_REPORTER(fn, level)                                             \
    void fn(Diag *d, Span where, const char *fmt, ...) {                       \
        va_list ap;                                                            \
        va_start(ap, fmt);                                                     \
        diag_report(d, level, where, fmt, ap);                                 \
        va_end(ap);                                                            \
    }
DEFINE_REPORTER(diag_error, DIAG_ERROR)
DEFINE_REPORTER(diag_warning, DIAG_WARNING)
DEFINE_REPORTER(diag_note, DIAG_NOTE)

void diag_plain(Diag *d, DiagLevel level, const char *fmt, ...) {
    Span nowhere = {-1, 0, 0};
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, level, nowhere, fmt, ap);
    va_end(ap);
}

void ice(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("pykc: internal compiler error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    fflush(stdout);
    exit(3);
}
