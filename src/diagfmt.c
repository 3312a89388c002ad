/*
 * diagfmt.c - diagnostics as a document for editors and CI.
 *
 * With --diagnostics-format=json or sarif, diag.c keeps every diagnostic
 * (in the order the text would have printed them) and diag_free writes
 * them here at once: a JSON array in the shape of GCC's
 * -fdiagnostics-format=json, or a SARIF 2.1.0 log as CI systems read it.
 * Notes and fix-its belong to the error or warning before them: GCC's
 * `children` and `fixits`, SARIF's `relatedLocations` and `fixes`.
 * Lines and columns count from 1, columns in characters as the text
 * output does; a range's end is its last character in JSON (GCC's
 * `finish`) and the column after it in SARIF.
 */
#include "pykc.h"

#include <string.h>

static void put_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* The line and column of offset off of file, or of the character before
 * it (the last of a range) when last is set and the range is not empty. */
static void place(const Diag *d, Span where, bool at_end, bool last, int *line, int *col) {
    uint32_t off = at_end ? where.end : where.begin;
    if (last && where.end > where.begin) off--;
    diag_line_col(d, where.file, off, line, col);
}

static bool is_child(const DiagRecord *r) { return r->level == DIAG_NOTE || r->level == DIAG_FIXIT; }

/* ---- GCC's JSON ---------------------------------------------------------- */

static void json_position(FILE *out, const Diag *d, Span where, bool at_end, bool last) {
    int line, col;
    place(d, where, at_end, last, &line, &col);
    fputs("{\"file\": ", out);
    put_string(out, diag_file(d, where.file)->path);
    fprintf(out, ", \"line\": %d, \"column\": %d}", line, col);
}

static void json_fixits(FILE *out, const Diag *d, const DiagRecord *r, int n) {
    fputs(", \"fixits\": [", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", {\"start\": " : "{\"start\": ", out);
        json_position(out, d, r[i].where, false, false);
        fputs(", \"next\": ", out);
        json_position(out, d, r[i].where, true, false);
        fputs(", \"string\": ", out);
        put_string(out, r[i].message);
        fputc('}', out);
    }
    fputc(']', out);
}

/* The record r with the fix-its that follow it; returns how many records it took. */
static int json_diagnostic(FILE *out, const Diag *d, const DiagRecord *r, int left, bool top) {
    static const char *const kinds[] = {"error", "warning", "note", "note"};
    fprintf(out, "{\"kind\": \"%s\", \"message\": ", kinds[r->level]);
    put_string(out, r->message);
    if (r->promoted) fputs(", \"option\": \"-Werror\"", out);
    fputs(", \"locations\": [", out);
    if (diag_file(d, r->where.file)) {
        fputs("{\"caret\": ", out);
        json_position(out, d, r->where, false, false);
        if (r->where.end > r->where.begin) {
            fputs(", \"finish\": ", out);
            json_position(out, d, r->where, true, true);
        }
        fputc('}', out);
    }
    fputc(']', out);
    int used = 1, fixits = 0;
    while (used + fixits < left && r[used + fixits].level == DIAG_FIXIT) fixits++;
    if (fixits) json_fixits(out, d, r + used, fixits);
    used += fixits;
    if (top) {
        fputs(", \"children\": [", out);
        for (int first = 1; used < left && is_child(&r[used]); first = 0) {
            if (!first) fputs(", ", out);
            used += json_diagnostic(out, d, r + used, left - used, false);
        }
        fputc(']', out);
    }
    fputc('}', out);
    return used;
}

static void write_json(Diag *d) {
    fputc('[', d->out);
    for (int i = 0; i < d->record_count;) {
        fputs(i ? ",\n " : "", d->out);
        i += json_diagnostic(d->out, d, d->records + i, d->record_count - i, true);
    }
    fputs("]\n", d->out);
}

/* ---- SARIF 2.1.0 ------------------------------------------------------- */

static void sarif_location(FILE *out, const Diag *d, Span where) {
    int line, col, end_line, end_col;
    place(d, where, false, false, &line, &col);
    place(d, where, true, false, &end_line, &end_col);
    fputs("{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
    put_string(out, diag_file(d, where.file)->path);
    fprintf(out, "}, \"region\": {\"startLine\": %d, \"startColumn\": %d, \"endLine\": %d, \"endColumn\": %d}}",
            line, col, end_line, end_col);
}

static void sarif_fix(FILE *out, const Diag *d, const DiagRecord *r) {
    fputs("{\"artifactChanges\": [{\"artifactLocation\": {\"uri\": ", out);
    put_string(out, diag_file(d, r->where.file)->path);
    fputs("}, \"replacements\": [{\"deletedRegion\": ", out);
    int line, col, end_line, end_col;
    place(d, r->where, false, false, &line, &col);
    place(d, r->where, true, false, &end_line, &end_col);
    fprintf(out, "{\"startLine\": %d, \"startColumn\": %d, \"endLine\": %d, \"endColumn\": %d}", line, col, end_line,
            end_col);
    fputs(", \"insertedContent\": {\"text\": ", out);
    put_string(out, r->message);
    fputs("}}]}]}", out);
}

/* The notes and fix-its after a result: its related locations, its fixes. */
static void sarif_children(FILE *out, const Diag *d, const DiagRecord *r, int n) {
    for (int pass = 0; pass < 2; pass++) {
        DiagLevel want = pass ? DIAG_FIXIT : DIAG_NOTE;
        fputs(pass ? ", \"fixes\": [" : ", \"relatedLocations\": [", out);
        bool first = true;
        for (int i = 0; i < n; i++) {
            if (r[i].level != want || (want == DIAG_NOTE && !diag_file(d, r[i].where.file))) continue;
            fputs(first ? "" : ", ", out);
            first = false;
            if (want == DIAG_FIXIT) {
                sarif_fix(out, d, &r[i]);
                continue;
            }
            sarif_location(out, d, r[i].where);
            fputs(", \"message\": {\"text\": ", out);
            put_string(out, r[i].message);
            fputs("}}", out);
        }
        fputc(']', out);
    }
}

static int sarif_result(FILE *out, const Diag *d, const DiagRecord *r, int left) {
    static const char *const levels[] = {"error", "warning", "note", "note"};
    fprintf(out, "{\"level\": \"%s\", \"message\": {\"text\": ", levels[r->level]);
    put_string(out, r->message);
    fputs("}, \"locations\": [", out);
    if (diag_file(d, r->where.file)) {
        sarif_location(out, d, r->where);
        fputc('}', out);
    }
    fputc(']', out);
    int n = 1;
    while (n < left && is_child(&r[n])) n++;
    sarif_children(out, d, r + 1, n - 1);
    fputc('}', out);
    return n;
}

static void write_sarif(Diag *d) {
    fputs("{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\", \"runs\": "
          "[{\"tool\": {\"driver\": {\"name\": \"pykc\", \"version\": \"" PYKC_VERSION "\"}}, "
          "\"columnKind\": \"unicodeCodePoints\", \"results\": [",
          d->out);
    for (int i = 0; i < d->record_count;) {
        fputs(i ? ",\n " : "\n ", d->out);
        i += sarif_result(d->out, d, d->records + i, d->record_count - i);
    }
    fputs("]}]}\n", d->out);
}

void diag_write_document(Diag *d) {
    if (d->format == DIAG_FORMAT_JSON) write_json(d);
    else write_sarif(d);
}
