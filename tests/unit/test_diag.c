/* test_diag.c - line and column arithmetic, the clang format, the limit;
 * opening output files. */
#include "pykc.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *render(Diag *d, void (*emit)(Diag *)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    d->out = out;
    emit(d);
    fclose(out);
    return buf;
}

static void one_error(Diag *d) { diag_error(d, (Span){0, 11, 14}, "bad %s", "thing"); }

static void many_errors(Diag *d) {
    for (int i = 0; i < 5; i++) diag_error(d, (Span){0, 0, 1}, "e%d", i);
    diag_note(d, (Span){0, 0, 1}, "dropped with its error");
}

/* An outer hold (sema's) keeps what an inner one (a signature's lexer and
 * parser) releases, and prints all in source order at its own release; an
 * embedded source reports in its parent, exactly or over the whole place. */
static void held_and_embedded(Diag *d) {
    diag_hold(d);
    diag_error(d, (Span){0, 11, 14}, "second");
    int exact = diag_add_embedded(d, "abc", 3, (Span){0, 11, 14}, true);
    int whole = diag_add_embedded(d, "x = ", 4, (Span){0, 0, 4}, false);
    diag_hold(d);
    diag_error(d, (Span){exact, 1, 2}, "in b");
    diag_error(d, (Span){whole, 2, 3}, "first");
    diag_release_all(d);
    diag_release(d, 0, 100);
    diag_release_all(d);
}

void test_diag(void) {
    Diag d;
    diag_init(&d, stderr);
    const char src[] = "x = 1\n\xc3\xa9 = abc + 1\n";
    int f = diag_add_source(&d, "t.pyk", src, sizeof src - 1);
    int line, col;
    diag_line_col(&d, f, 0, &line, &col);
    ASSERT(line == 1 && col == 1);
    diag_line_col(&d, f, 11, &line, &col); /* the a of abc, after a 2-byte é */
    ASSERT(line == 2 && col == 5);
    char *text = render(&d, one_error);
    ASSERT_STR("t.pyk:2:5: error: bad thing\n\xc3\xa9 = abc + 1\n    ^~~\n", text);
    free(text);
    ASSERT(d.error_count == 1);

    d.error_limit = 3;
    text = render(&d, many_errors);
    ASSERT(strstr(text, "too many errors emitted") != NULL);
    ASSERT(strstr(text, "dropped with its error") == NULL);
    ASSERT(d.error_count == 3 && d.stop);
    free(text);
    diag_free(&d);

    diag_init(&d, stderr);
    diag_add_source(&d, "t.pyk", src, sizeof src - 1);
    text = render(&d, held_and_embedded);
    ASSERT_STR("t.pyk:1:1: error: first\nx = 1\n^~~~\n"
               "t.pyk:2:5: error: second\n\xc3\xa9 = abc + 1\n    ^~~\n"
               "t.pyk:2:6: error: in b\n\xc3\xa9 = abc + 1\n     ^\n", text);
    free(text);
    diag_free(&d);
}
