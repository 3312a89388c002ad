/*
 * diag.c - source files and diagnostics.
 *
 * Holds every source file of a compilation and prints messages in clang's form: `file:line:col: error: message`, the
 * source line, and a caret with `~` under the rest of the range. Columns
 * count UTF-8 characters, not bytes. After error_limit errors it says so
 * once and sets `stop`, which the passes read to end early. ice() is for
 * pykc's own bugs, never for bad input.
 */
#include "pykc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Offsets are 32-bit; a larger file is refused rather than misreported. */
#define MAX_SOURCE_SIZE ((size_t)1 << 30)

void diag_init(Diag *d, FILE *out) {
    memset(d, 0, sizeof *d);
    d->out = out;
    d->last_excerpt.file = -1;
    d->error_limit = 20;
}

static void print_all_held(Diag *d);

void diag_free(Diag *d) {
    print_all_held(d);
    if (d->format != DIAG_FORMAT_TEXT) diag_write_document(d);
    for (int i = 0; i < d->record_count; i++) free(d->records[i].message);
    free(d->records);
    d->records = NULL;
    d->record_count = d->record_cap = 0;
    d->hold_depth = 0;
    free(d->held);
    d->held = NULL;
    d->held_cap = 0;
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
    /* A UTF-8 BOM is no part of the first line: columns start after it. */
    starts[n++] = f->size >= 3 && memcmp(f->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
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
    f->parent = -1;
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

int diag_add_embedded(Diag *d, const char *text, size_t size, Span within, bool exact) {
    const SourceFile *parent = diag_file(d, within.file);
    int file = diag_add_source(d, parent ? parent->path : "<embedded>", text, size);
    SourceFile *f = d->files[file];
    f->parent = within.file;
    f->within_begin = within.begin;
    f->within_end = within.end;
    f->exact = exact;
    return file;
}

/* Where a diagnostic in an embedded source shows: in its parent file. */
static Span place_in_parent(const Diag *d, Span where) {
    const SourceFile *f = diag_file(d, where.file);
    if (!f || f->parent < 0) return where;
    Span in = {f->parent, f->within_begin, f->within_end};
    if (!f->exact) return in;
    in.begin = f->within_begin + where.begin;
    in.end = f->within_begin + where.end;
    if (in.begin > f->within_end) in.begin = f->within_end;
    if (in.end < in.begin) in.end = in.begin;
    return in;
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

int utf8_decode(const char *s, size_t avail, uint32_t *cp) {
    unsigned char c = (unsigned char)s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (size_t)n > avail) return 0;
    uint32_t v = n == 1 ? c : n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (int i = 1; i < n; i++) {
        unsigned char cc = (unsigned char)s[i];
        if ((cc & 0xC0) != 0x80) return 0;
        v = v << 6 | (cc & 0x3Fu);
    }
    static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min_cp[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    if (cp) *cp = v;
    return n;
}

static int line_of(const SourceFile *f, uint32_t off) {
    int lo = 0, hi = f->line_count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((uint32_t)f->line_starts[mid] <= off) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* Steps character by character from `from` (a character boundary) towards
 * off; returns where it stopped, which is off unless off is inside a
 * character, and adds the characters passed to *col. */
static uint32_t count_chars(const SourceFile *f, uint32_t from, uint32_t off, int *col) {
    uint32_t i = from;
    while (i < off) {
        i += (uint32_t)utf8_char_bytes(f->text + i, f->size - i);
        ++*col;
    }
    return i;
}

void diag_line_col_at(const Diag *d, LineColCursor *cur, int file, uint32_t off, int *line, int *col) {
    const SourceFile *f = diag_file(d, file);
    if (!f) {
        *line = *col = 0;
        return;
    }
    if (off > f->size) off = (uint32_t)f->size;
    bool same_line = cur && cur->valid && cur->file == file && cur->off <= off &&
                     (cur->line >= f->line_count || off < (uint32_t)f->line_starts[cur->line]);
    int l, c;
    uint32_t stop;
    if (same_line) {
        l = cur->line - 1;
        c = cur->col;
        stop = count_chars(f, cur->off, off, &c);
    } else {
        l = line_of(f, off);
        c = 1;
        stop = count_chars(f, (uint32_t)f->line_starts[l], off, &c);
    }
    *line = l + 1;
    *col = c;
    if (cur) *cur = (LineColCursor){file, l + 1, c, stop, true};
}

void diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col) {
    diag_line_col_at(d, NULL, file, off, line, col);
}

/* Where line_index ends, before its line break. */
static uint32_t line_end(const SourceFile *f, int line_index) {
    uint32_t start = (uint32_t)f->line_starts[line_index];
    if (line_index + 1 >= f->line_count) return (uint32_t)f->size;
    uint32_t e = (uint32_t)f->line_starts[line_index + 1];
    if (e > start && f->text[e - 1] == '\n') e--;
    if (e > start && f->text[e - 1] == '\r') e--;
    return e;
}

/* A long line is shown as a window around the caret, as clang does; the
 * work is that of the window, not of the line, so that many errors on a
 * megabyte line cost no more than on a short one. */
enum { EXCERPT_WIDTH = 120, EXCERPT_BEFORE = 40 };

/* Writes the character at i as the excerpt shows it: valid UTF-8 as it is,
 * a tab as a tab, another control character as a space and a byte that is
 * not UTF-8 as '?', so that the terminal gets one column a character. */
static void put_char(FILE *out, const SourceFile *f, uint32_t i, int n) {
    unsigned char c = (unsigned char)f->text[i];
    if (n == 1 && c >= 0x80) fputc('?', out);
    else if (c == '\t') fputc('\t', out);
    else if (c < 0x20 || c == 0x7F) fputc(' ', out);
    else fwrite(f->text + i, 1, (size_t)n, out);
}

/* Steps forward over at most n characters from i, not past end. */
static uint32_t skip_chars(const SourceFile *f, uint32_t i, uint32_t end, int n) {
    for (int k = 0; k < n && i < end; k++) i += (uint32_t)utf8_char_bytes(f->text + i, f->size - i);
    return i < end ? i : end;
}

/* The start of the character before i (lo < i), as the forward walk reads
 * characters: a valid UTF-8 sequence, or else one byte. */
static uint32_t char_before(const SourceFile *f, uint32_t lo, uint32_t i) {
    uint32_t j = i - 1;
    while (j > lo && i - j < 4 && ((unsigned char)f->text[j] & 0xC0) == 0x80) j--;
    return utf8_decode(f->text + j, f->size - j, NULL) == (int)(i - j) ? j : i - 1;
}

/* The window of the line that holds where.begin that an excerpt shows:
 * [*from, *to) of the line [*start, *end), the whole line when it is
 * short, else EXCERPT_WIDTH characters from EXCERPT_BEFORE before the caret. */
static void excerpt_window(const SourceFile *f, Span where, uint32_t *start, uint32_t *end, uint32_t *from,
                           uint32_t *to) {
    int li = line_of(f, where.begin);
    *start = (uint32_t)f->line_starts[li];
    *end = line_end(f, li);
    uint32_t begin = where.begin < *end ? where.begin : *end;
    *from = *start;
    if (skip_chars(f, *start, *end, EXCERPT_WIDTH) < *end) {
        *from = begin;
        for (int k = 0; k < EXCERPT_BEFORE && *from > *start; k++) *from = char_before(f, *start, *from);
    }
    *to = skip_chars(f, *from, *end, EXCERPT_WIDTH);
}

/* Blanks from the window's start to column of `at`: a tab where the
 * source has one so that what follows stays aligned, one space a character. */
static uint32_t pad_to(FILE *out, const SourceFile *f, uint32_t start, uint32_t from, uint32_t at) {
    if (from > start) fputs("   ", out);
    uint32_t i = from;
    while (i < at) {
        fputc(f->text[i] == '\t' ? '\t' : ' ', out);
        i += (uint32_t)utf8_char_bytes(f->text + i, f->size - i);
    }
    return i;
}

/* Prints the line that holds where.begin, then the caret line. */
static void print_excerpt(FILE *out, const SourceFile *f, Span where) {
    uint32_t start, end, from, to;
    excerpt_window(f, where, &start, &end, &from, &to);
    uint32_t begin = where.begin < end ? where.begin : end;
    uint32_t stop = where.end > end ? end : where.end;
    if (from > start) fputs("...", out);
    for (uint32_t i = from; i < to;) {
        int n = utf8_char_bytes(f->text + i, f->size - i);
        put_char(out, f, i, n);
        i += (uint32_t)n;
    }
    if (to < end) fputs("...", out);
    fputc('\n', out);
    uint32_t i = pad_to(out, f, start, from, begin);
    fputc('^', out);
    if (i < stop) i += (uint32_t)utf8_char_bytes(f->text + i, f->size - i);
    while (i < stop && i < to) {
        fputc('~', out);
        i += (uint32_t)utf8_char_bytes(f->text + i, f->size - i);
    }
    fputc('\n', out);
}

/* A fix-it's text under the excerpt that shows its place, as clang puts
 * it: below the caret line of the diagnostic it mends when that shows the
 * same line, else under an excerpt of its own. */
static void print_fixit(FILE *out, const Diag *d, const SourceFile *f, Span where, const char *text) {
    Span shown = d->last_excerpt;
    if (shown.file != where.file || line_of(f, shown.begin) != line_of(f, where.begin)) {
        print_excerpt(out, f, where);
        shown = where;
    }
    uint32_t start, end, from, to;
    excerpt_window(f, shown, &start, &end, &from, &to);
    pad_to(out, f, start, from, where.begin < end ? where.begin : end);
    fprintf(out, "%s\n", text);
}

static const char *level_name(DiagLevel level) {
    switch (level) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    case DIAG_FIXIT: return "fix-it";
    }
    return "error";
}

static const char too_many_errors[] = "fatal error: too many errors emitted, stopping now [-ferror-limit=]\n";

/* ---- holding -------------------------------------------------------------- */

/* A diagnostic held back: where it sorts (its own place, or for a note its
 * error's), in which order it came, and its text. */
typedef struct HeldDiag {
    int file;
    uint32_t key;
    int seq;
    DiagLevel level;
    bool promoted, fatal;
    Span where;
    char *message;
} HeldDiag;

void diag_hold(Diag *d) { d->hold_depth++; }

static bool held_before(const HeldDiag *a, const HeldDiag *b) {
    if (a->file != b->file) return a->file < b->file;
    if (a->key != b->key) return a->key < b->key;
    return a->seq < b->seq;
}

/* The held diagnostics are a binary heap ordered by held_before, so that
 * holding and releasing cost a logarithm each, however many there are and
 * in whatever order they come. */
static void heap_swap(HeldDiag *h, int i, int j) {
    HeldDiag t = h[i];
    h[i] = h[j];
    h[j] = t;
}

static void hold(Diag *d, HeldDiag h) {
    if (d->held_count == d->held_cap) {
        int cap = d->held_cap ? d->held_cap * 2 : 16;
        HeldDiag *grown = realloc(d->held, sizeof(HeldDiag) * (size_t)cap);
        if (!grown) ice("out of memory holding a diagnostic");
        d->held = grown;
        d->held_cap = cap;
    }
    h.seq = d->held_seq++;
    int i = d->held_count++;
    d->held[i] = h;
    while (i > 0 && held_before(&d->held[i], &d->held[(i - 1) / 2])) {
        heap_swap(d->held, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

/* Removes the first held diagnostic into *out. */
static void unhold_first(Diag *d, HeldDiag *out) {
    HeldDiag *h = d->held;
    *out = h[0];
    h[0] = h[--d->held_count];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < d->held_count && held_before(&h[l], &h[m])) m = l;
        if (r < d->held_count && held_before(&h[r], &h[m])) m = r;
        if (m == i) break;
        heap_swap(h, i, m);
        i = m;
    }
}

/* Keeps a diagnostic for the document diag_free writes. */
static void record(Diag *d, DiagLevel level, bool promoted, Span where, const char *message) {
    if (d->record_count == d->record_cap) {
        int cap = d->record_cap ? d->record_cap * 2 : 16;
        DiagRecord *grown = realloc(d->records, sizeof(DiagRecord) * (size_t)cap);
        if (!grown) ice("out of memory keeping a diagnostic");
        d->records = grown;
        d->record_cap = cap;
    }
    char *copy = strdup(message);
    if (!copy) ice("out of memory keeping a diagnostic");
    d->records[d->record_count++] = (DiagRecord){level, promoted, where, copy};
}

/* Formats the whole diagnostic in memory and writes it at once: stderr is
 * unbuffered, and a write a character would make 100,000 messages slow. */
static void print_diag(Diag *d, DiagLevel level, bool promoted, Span where, const char *message) {
    if (d->format != DIAG_FORMAT_TEXT) {
        record(d, level, promoted, where, message);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) out = d->out;
    const SourceFile *f = diag_file(d, where.file);
    if (f && level == DIAG_FIXIT) {
        print_fixit(out, d, f, where, message);
    } else if (f) {
        int line, col;
        diag_line_col_at(d, &d->cursor, where.file, where.begin, &line, &col);
        fprintf(out, "%s:%d:%d: %s: ", f->path, line, col, level_name(level));
    } else {
        fprintf(out, "pykc: %s: ", level_name(level));
    }
    if (level != DIAG_FIXIT) {
        fputs(message, out);
        fputs(promoted ? " [-Werror]\n" : "\n", out);
        if (f) print_excerpt(out, f, where);
        d->last_excerpt = f ? where : (Span){-1, 0, 0};
    }
    if (out != d->out) {
        fclose(out);
        fwrite(text, 1, len, d->out);
        free(text);
    }
}

static void print_too_many(Diag *d) {
    if (d->format == DIAG_FORMAT_TEXT) fputs(too_many_errors, d->out);
    else record(d, DIAG_ERROR, false, (Span){-1, 0, 0}, "too many errors emitted, stopping now [-ferror-limit=]");
}

static void print_held(Diag *d, HeldDiag *h) {
    if (h->fatal) print_too_many(d);
    else print_diag(d, h->level, h->promoted, h->where, h->message);
    free(h->message);
}

void diag_release(Diag *d, int file, uint32_t before) {
    if (d->hold_depth > 1) return; /* the outer holder prints all, in order */
    while (d->held_count > 0) {
        const HeldDiag *first = &d->held[0];
        if (first->fatal || (first->file == file && first->key >= before)) break;
        HeldDiag h;
        unhold_first(d, &h);
        print_held(d, &h);
    }
}

static void print_all_held(Diag *d) {
    while (d->held_count > 0) {
        HeldDiag h;
        unhold_first(d, &h);
        print_held(d, &h);
    }
}

void diag_release_all(Diag *d) {
    if (d->hold_depth > 0 && --d->hold_depth > 0) return;
    print_all_held(d);
}

/* ---- reporting ------------------------------------------------------------- */

static void fatal_limit(Diag *d) {
    d->stop = true;
    if (d->hold_depth) hold(d, (HeldDiag){.file = INT32_MAX, .key = UINT32_MAX, .fatal = true});
    else print_too_many(d);
}

/* Counts the diagnostic and says whether to print it: nothing after the
 * error limit, and notes only when the message they explain was printed. */
static bool admit(Diag *d, DiagLevel *level, bool *promoted) {
    *promoted = false;
    if (*level == DIAG_NOTE || *level == DIAG_FIXIT) return !d->dropped && !d->stop;
    d->dropped = true;
    if (d->stop) return false;
    if (*level == DIAG_WARNING && d->werror) {
        *level = DIAG_ERROR;
        *promoted = true;
    }
    if (*level == DIAG_ERROR && d->error_limit && d->error_count >= d->error_limit) {
        fatal_limit(d);
        return false;
    }
    if (*level == DIAG_ERROR) d->error_count++; else d->warning_count++;
    d->dropped = false;
    return true;
}

void diag_report(Diag *d, DiagLevel level, Span where, const char *fmt, va_list ap) {
    bool promoted;
    if (!admit(d, &level, &promoted)) return;
    where = place_in_parent(d, where);
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    char *message = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (!message) ice("out of memory formatting a diagnostic");
    vsnprintf(message, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    if (d->hold_depth) {
        /* A note or fix-it sorts with the error it explains. */
        HeldDiag h = {.file = where.file, .key = where.begin, .level = level, .promoted = promoted,
                      .where = where, .message = message};
        if ((level == DIAG_NOTE || level == DIAG_FIXIT) && d->held_count > 0) {
            h.file = d->last_held_file;
            h.key = d->last_held_key;
        }
        hold(d, h);
        d->last_held_file = h.file;
        d->last_held_key = h.key;
        return;
    }
    print_diag(d, level, promoted, where, message);
    free(message);
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

static void PYKC_PRINTF(4, 5) report(Diag *d, DiagLevel level, Span where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, level, where, fmt, ap);
    va_end(ap);
}

void diag_fixit(Diag *d, Span where, const char *text) { report(d, DIAG_FIXIT, where, "%s", text); }

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
    /* -DPYKC_ICE_ABORTS (the fuzz build, tests/fuzz/fuzz.mk): abort, so that
     * libFuzzer takes an internal error for a crash and shows its stack;
     * pykc itself exits with status 3. */
#ifdef PYKC_ICE_ABORTS
    abort();
#else
    exit(3);
#endif
}

/* ---- digests ---------------------------------------------------------- */

void digest_fnv1a64(const void *data, size_t len, char out[25]) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3u;
    }
    snprintf(out, 25, "fnv1a64:%016" PRIx64, h);
}
