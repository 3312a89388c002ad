/* test_lexer.c - token kinds and literal values for each literal form. */
#include "pykc.h"
#include "unit.h"

#include <math.h>

static TokenArray lex_string(Arena *a, Diag *d, const char *src) {
    int f = diag_add_source(d, "t.pyk", src, strlen(src));
    return lex_file(a, d, f);
}

void test_lexer(void) {
    Arena a = {0};
    Diag d;
    diag_init(&d, stderr);
    TokenArray t = lex_string(&a, &d, "0x_ff 0o17 0b1010 1_000 0 00 1.5e3 .5 3j 18446744073709551616\n");
    ASSERT(d.error_count == 0);
    ASSERT(t.tokens[0].kind == TK_INT && t.tokens[0].v.i.value == 255);
    ASSERT(t.tokens[1].v.i.value == 15);
    ASSERT(t.tokens[2].v.i.value == 10);
    ASSERT(t.tokens[3].v.i.value == 1000);
    ASSERT(t.tokens[4].v.i.value == 0 && t.tokens[5].v.i.value == 0);
    ASSERT(t.tokens[6].kind == TK_FLOAT && t.tokens[6].v.f == 1500.0);
    ASSERT(t.tokens[7].kind == TK_FLOAT && t.tokens[7].v.f == 0.5);
    ASSERT(t.tokens[8].kind == TK_IMAG && t.tokens[8].v.f == 3.0);
    ASSERT(t.tokens[9].kind == TK_INT && t.tokens[9].v.i.overflow);
    ASSERT(t.tokens[10].kind == TK_NEWLINE && t.tokens[11].kind == TK_EOF);

    t = lex_string(&a, &d, "if x:\n\ty = 'a\\tb' r'\\n'\n");
    ASSERT(d.error_count == 0);
    ASSERT(t.tokens[0].kind == TK_IF && t.tokens[3].kind == TK_NEWLINE && t.tokens[4].kind == TK_INDENT);
    ASSERT(t.tokens[7].kind == TK_STRING && strcmp(t.tokens[7].v.s.data, "a\tb") == 0);
    ASSERT(strcmp(t.tokens[8].v.s.data, "\\n") == 0);
    ASSERT(t.tokens[9].kind == TK_NEWLINE && t.tokens[10].kind == TK_DEDENT && t.tokens[11].kind == TK_EOF);
    ASSERT(t.tokens[5].line == 2 && t.tokens[5].col == 2);

    t = lex_string(&a, &d, "a = (1,\n     2) \\\n + 3\n");
    int newlines = 0;
    for (int i = 0; i < t.count; i++) newlines += t.tokens[i].kind == TK_NEWLINE;
    ASSERT(newlines == 1 && d.error_count == 0);

    t = lex_string(&a, &d, "x **= y // z >> 2 -> ...\n");
    ASSERT(t.tokens[1].kind == TK_DSTAREQ && t.tokens[3].kind == TK_DSLASH && t.tokens[5].kind == TK_SHR);
    ASSERT(t.tokens[7].kind == TK_ARROW && t.tokens[8].kind == TK_ELLIPSIS);

    FILE *sink = fopen("/dev/null", "w");
    d.out = sink;
    lex_string(&a, &d, "if x:\n        a\n\tb\n");
    ASSERT(d.error_count == 1); /* tabs and spaces mixed ambiguously */
    lex_string(&a, &d, "x = 012\n");
    ASSERT(d.error_count == 2);
    fclose(sink);
    diag_free(&d);
    arena_release(&a);
}
