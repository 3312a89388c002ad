/* test_lexer.c - token kinds, literal values, lines and columns, the
 * indentation rules and lexical errors. */
#include "pykc.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

static FILE *sink;

/* Lexes src in a fresh Diag whose messages go nowhere; the counts stay. */
typedef struct Lexed {
    Arena arena;
    Diag diag;
    TokenArray t;
} Lexed;

static Lexed *lex(const char *src, size_t len) {
    Lexed *l = calloc(1, sizeof *l);
    diag_init(&l->diag, sink);
    int f = diag_add_source(&l->diag, "t.pyk", src, len);
    l->t = lex_file(&l->arena, &l->diag, f);
    diag_release_all(&l->diag);
    return l;
}

static Lexed *lex_str(const char *src) { return lex(src, strlen(src)); }

static void done(Lexed *l) {
    diag_free(&l->diag);
    arena_release(&l->arena);
    free(l);
}

/* The kinds of the tokens as a string of short names, for compact checks. */
static const char *kinds(const Lexed *l) {
    static char buf[1024];
    buf[0] = '\0';
    for (int i = 0; i < l->t.count; i++) {
        TokenKind k = l->t.tokens[i].kind;
        const char *name = k == TK_NEWLINE ? "NL" : k == TK_INDENT ? "IN" : k == TK_DEDENT ? "DE"
                         : k == TK_EOF ? "EOF" : k == TK_NAME ? "N" : k == TK_INT ? "I" : k == TK_FLOAT ? "F"
                         : k == TK_IMAG ? "J" : k == TK_STRING ? "S" : k == TK_ERROR ? "ERR"
                         : token_kind_name(k);
        if (i) strcat(buf, " ");
        strcat(buf, name);
    }
    return buf;
}

static void test_numbers(void) {
    Lexed *l = lex_str("0x_ff 0o17 0b1010 1_000 0 00 0_0 0XAB 0O7 0B1 18446744073709551615 18446744073709551616\n");
    ASSERT(l->diag.error_count == 0);
    Token *t = l->t.tokens;
    uint64_t want[] = {255, 15, 10, 1000, 0, 0, 0, 0xAB, 7, 1, UINT64_MAX};
    for (int i = 0; i < 11; i++) ASSERT(t[i].kind == TK_INT && t[i].v.i.value == want[i] && !t[i].v.i.overflow);
    ASSERT(t[11].kind == TK_INT && t[11].v.i.overflow);
    ASSERT_STR("I I I I I I I I I I I I NL EOF", kinds(l));
    done(l);

    l = lex_str("1.5e3 .5 5. 1e-3 1E+2 1_0.2_5 0.0 00.5 09.5 1e1_0 3j 1.5J 0j 1e2j .5j 012j\n");
    ASSERT(l->diag.error_count == 0);
    t = l->t.tokens;
    double f[] = {1500.0, 0.5, 5.0, 1e-3, 100.0, 10.25, 0.0, 0.5, 9.5, 1e10};
    for (int i = 0; i < 10; i++) ASSERT(t[i].kind == TK_FLOAT && t[i].v.f == f[i]);
    double j[] = {3.0, 1.5, 0.0, 100.0, 0.5, 12.0};
    for (int i = 0; i < 6; i++) ASSERT(t[10 + i].kind == TK_IMAG && t[10 + i].v.f == j[i]);
    done(l);

    l = lex_str("x = 1e400\n");
    ASSERT(l->diag.error_count == 0 && isinf(l->t.tokens[2].v.f));
    done(l);

    /* Each is one error and still one token. */
    const char *bad[] = {"012", "0_7", "1__0", "1_", "0x", "0x_", "0b2", "0b102", "0o8", "0xfg", "1e",
                         "1abc", "1.5x", "3jx", "1._5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l = lex_str(bad[i]);
        ASSERT(l->diag.error_count == 1);
        ASSERT(l->t.count == 3 && l->t.tokens[1].kind == TK_NEWLINE);
        done(l);
    }
    /* `1if x else 2` is Python, with a warning. */
    l = lex_str("y = 1if x else 2\n");
    ASSERT(l->diag.error_count == 0 && l->diag.warning_count == 1);
    ASSERT_STR("N = I if N else I NL EOF", kinds(l));
    done(l);
    l = lex_str("y = 1else\n");
    ASSERT(l->diag.error_count == 0 && l->diag.warning_count == 1);
    done(l);
}

static void test_strings(void) {
    Lexed *l = lex_str("'a\\tb' \"q\\\"\" r'\\n' b'\\xff' '\\x41\\101\\u00e9\\U0001F600' '\\q' '''a\nb''' \"\"\"c\"\"\" "
                       "'\\\nx' R'x' Rb'y' bR'z' u'w'\n");
    ASSERT(l->diag.error_count == 0);
    Token *t = l->t.tokens;
    ASSERT(t[0].kind == TK_STRING && strcmp(t[0].v.s.data, "a\tb") == 0 && !t[0].v.s.bytes);
    ASSERT_STR("q\"", t[1].v.s.data);
    ASSERT_STR("\\n", t[2].v.s.data);
    ASSERT(t[3].v.s.bytes && t[3].v.s.len == 1 && (unsigned char)t[3].v.s.data[0] == 0xFF);
    ASSERT_STR("AA\xc3\xa9\xf0\x9f\x98\x80", t[4].v.s.data);
    ASSERT_STR("\\q", t[5].v.s.data);
    ASSERT_STR("a\nb", t[6].v.s.data);
    ASSERT_STR("c", t[7].v.s.data);
    ASSERT_STR("x", t[8].v.s.data);
    ASSERT(t[10].v.s.bytes && t[11].v.s.bytes && !t[12].v.s.bytes);
    ASSERT(t[13].kind == TK_NEWLINE);
    done(l);

    l = lex_str("f'{x}' rf'a' F\"b\"\n");
    ASSERT(l->diag.error_count == 0);
    ASSERT(l->t.tokens[0].kind == TK_FSTRING && l->t.tokens[1].kind == TK_FSTRING && l->t.tokens[2].kind == TK_FSTRING);
    done(l);

    /* A triple-quoted string spans lines; the token after it is on its last. */
    l = lex_str("s = '''one\ntwo\n''' + t\n");
    ASSERT(l->t.tokens[2].line == 1 && l->t.tokens[4].line == 3 && l->t.tokens[4].col == 7);
    done(l);

    const char *bad[] = {"'abc", "'''abc", "'\\xZZ'", "b'\xc3\xa9'", "'\\N{DASH'", "'\xff'", "\"a\nb\""};
    int errors[] = {1, 1, 1, 1, 1, 1, 2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l = lex_str(bad[i]);
        ASSERT(l->diag.error_count == errors[i]);
        done(l);
    }
    /* Bytes with invalid UTF-8 inside: one message for the literal. */
    l = lex_str("'\xff\xfe\xfd'\n");
    ASSERT(l->diag.error_count == 1);
    done(l);
}

static void test_indentation(void) {
    Lexed *l = lex_str("if x:\n    a\n    if y:\n        b\n\n  # comment\n    c\nd\n");
    ASSERT(l->diag.error_count == 0);
    ASSERT_STR("if N : NL IN N NL if N : NL IN N NL DE N NL DE N NL EOF", kinds(l));
    done(l);

    /* A tab goes to the next multiple of 8; so 8 spaces then a tab is 16. */
    l = lex_str("if x:\n\ta\n        b\n");
    ASSERT(l->diag.error_count == 1); /* ambiguous: 8 columns, but 1 vs 8 characters */
    done(l);
    /* A deeper line is an INDENT; whether one may come there is the
     * parser's business. */
    l = lex_str("if x:\n\ta\n\tb\n\t\tc\n");
    ASSERT(l->diag.error_count == 0 && strcmp(kinds(l), "if N : NL IN N NL N NL IN N NL DE DE EOF") == 0);
    done(l);
    l = lex_str("if x:\n\ta\n\tif y:\n\t\tb\n");
    ASSERT(l->diag.error_count == 0);
    ASSERT_STR("if N : NL IN N NL if N : NL IN N NL DE DE EOF", kinds(l));
    done(l);
    /* Form feed resets the count. */
    l = lex_str("if x:\n    a\n\f    b\n");
    ASSERT(l->diag.error_count == 0 && strcmp(kinds(l), "if N : NL IN N NL N NL DE EOF") == 0);
    done(l);
    /* An unindent to no level on the stack. */
    l = lex_str("if x:\n    a\n  b\n");
    ASSERT(l->diag.error_count == 1);
    done(l);

    /* Past 100 levels the lexer stops with one error. */
    char deep[40000];
    size_t n = 0;
    for (int i = 0; i < 150; i++) {
        for (int k = 0; k < i; k++) deep[n++] = ' ';
        memcpy(deep + n, "if x:\n", 6);
        n += 6;
    }
    l = lex(deep, n);
    ASSERT(l->diag.error_count == 1 && l->diag.stop);
    ASSERT(l->t.tokens[l->t.count - 1].kind == TK_EOF);
    done(l);
}

static void test_lines(void) {
    /* Implicit joining in brackets and a backslash continuation: one line. */
    Lexed *l = lex_str("a = (1,\n     2) \\\n + 3\nb = [\n]\n");
    ASSERT(l->diag.error_count == 0);
    ASSERT_STR("N = ( I , I ) + I NL N = [ ] NL EOF", kinds(l));
    ASSERT(l->t.tokens[7].kind == TK_PLUS && l->t.tokens[7].line == 3 && l->t.tokens[7].col == 2);
    done(l);

    /* CRLF and lone CR end lines too; a BOM is skipped; no final newline. */
    l = lex_str("\xEF\xBB\xBFx = 1\r\ny = 2\rz = 3");
    ASSERT(l->diag.error_count == 0);
    ASSERT_STR("N = I NL N = I NL N = I NL EOF", kinds(l));
    ASSERT(l->t.tokens[0].col == 1 && l->t.tokens[8].line == 3);
    done(l);

    /* Columns count characters, not bytes. */
    l = lex_str("s = '\xc3\xa9\xe2\x82\xac' + t\n");
    ASSERT(l->t.tokens[4].col == 12 && l->t.tokens[4].off == 14);
    done(l);

    /* Comments and blank lines make no tokens; nor does an empty file. */
    l = lex_str("# only\n\n   \n# comment\n");
    ASSERT_STR("EOF", kinds(l));
    done(l);
    l = lex_str("");
    ASSERT_STR("EOF", kinds(l));
    done(l);
}

static void test_operators(void) {
    Lexed *l = lex_str("+ - * ** / // % @ << >> & | ^ ~ := < > <= >= == != ( ) [ ] { } , : . ; = -> "
                       "+= -= *= /= //= %= @= &= |= ^= >>= <<= **= ...\n");
    ASSERT(l->diag.error_count == 0);
    TokenKind want[] = {TK_PLUS, TK_MINUS, TK_STAR, TK_DSTAR, TK_SLASH, TK_DSLASH, TK_PERCENT, TK_AT, TK_SHL, TK_SHR,
                        TK_AMP, TK_PIPE, TK_CARET, TK_TILDE, TK_WALRUS, TK_LT, TK_GT, TK_LE, TK_GE, TK_EQEQ, TK_NE,
                        TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET, TK_LBRACE, TK_RBRACE, TK_COMMA, TK_COLON,
                        TK_DOT, TK_SEMI, TK_ASSIGN, TK_ARROW, TK_PLUSEQ, TK_MINUSEQ, TK_STAREQ, TK_SLASHEQ,
                        TK_DSLASHEQ, TK_PERCENTEQ, TK_ATEQ, TK_AMPEQ, TK_PIPEEQ, TK_CARETEQ, TK_SHREQ, TK_SHLEQ,
                        TK_DSTAREQ, TK_ELLIPSIS};
    int n = (int)(sizeof want / sizeof want[0]);
    int same = 0;
    for (int i = 0; i < n; i++) same += l->t.tokens[i].kind == want[i];
    ASSERT(same == n);
    done(l);

    /* Longest match without spaces. */
    l = lex_str("a**=b//c>>=d...e->f\n");
    ASSERT_STR("N **= N // N >>= N ... N -> N NL EOF", kinds(l));
    done(l);

    /* Keywords, and the soft keywords that stay names. */
    l = lex_str("if elif else while for in not and or is None True False lambda match case type _x\n");
    ASSERT_STR("if elif else while for in not and or is None True False lambda N N N N NL EOF", kinds(l));
    done(l);
}

static void test_errors(void) {
    /* A stray character is one error and one TK_ERROR token. */
    Lexed *l = lex_str("x = 1 $ 2\n");
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N = I ERR I NL EOF") == 0);
    done(l);
    /* A run of garbage is one error. */
    l = lex("a\0\0\xff\xfe?b\n", 8);
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N ERR N NL EOF") == 0);
    done(l);
    /* Brackets: unmatched and mismatched closers are errors; an unclosed one
     * is reported at the end, with a TK_ERROR before the last NEWLINE. */
    l = lex_str("a = )\nb = (]\nc = [\n");
    ASSERT(l->diag.error_count == 3);
    ASSERT_STR("N = ERR NL N = ( ERR NL N = [ ERR NL EOF", kinds(l));
    done(l);
    /* A backslash not at the end of a line. */
    l = lex_str("x = 1 \\ + 2\n");
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N = I ERR + I NL EOF") == 0);
    done(l);
    l = lex_str("x = 1 \\");
    ASSERT(l->diag.error_count == 1);
    done(l);
    /* A non-ASCII name is one NAME, marked (host code may use it, a kernel
     * not); a non-ASCII symbol is an invalid character. */
    l = lex_str("caf\xc3\xa9 = 1 \xc3\x97 2\n");
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N = I ERR I NL EOF") == 0);
    ASSERT(l->t.tokens[0].non_ascii && !l->t.tokens[2].non_ascii);
    done(l);
    /* Invalid UTF-8 in a comment. */
    l = lex_str("x = 1  # \xff\n");
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N = I NL EOF") == 0);
    done(l);
    /* Stray characters: one message a logical line, and the error limit
     * stops the lexer. */
    l = lex_str("x = “quoted” $\n");
    ASSERT(l->diag.error_count == 1 && strcmp(kinds(l), "N = ERR N ERR ERR NL EOF") == 0);
    done(l);
    char garbage[200];
    for (int i = 0; i < 200; i++) garbage[i] = i % 2 ? '$' : '\n';
    l = lex(garbage, sizeof garbage);
    ASSERT(l->diag.error_count == 20 && l->diag.stop);
    done(l);
}

/* f-strings as Python 3.12 reads them: each field's expression lexed into
 * tokens of its own, nested quotes and specs included; a broken field is
 * one error. */
static void test_fstrings(void) {
    Lexed *l = lex_str("f'{a + 1}{{x}} {b!r:>{w}} {c=}' + f\"{d[\"k\"]}\"\n");
    ASSERT(l->diag.error_count == 0);
    ASSERT_STR("f-string + f-string NL EOF", kinds(l));
    const Token *t = &l->t.tokens[0];
    ASSERT(t->v.s.field_count == 4);
    ASSERT(t->v.s.fields[0].count == 5 && t->v.s.fields[0].tokens[1].kind == TK_PLUS); /* a + 1 NEWLINE EOF */
    ASSERT(t->v.s.fields[1].tokens[0].kind == TK_NAME && t->v.s.fields[1].tokens[1].kind == TK_NEWLINE);
    ASSERT(t->v.s.fields[2].tokens[0].col == 23); /* w, in the spec */
    ASSERT(l->t.tokens[2].v.s.field_count == 1 && l->t.tokens[2].v.s.fields[0].tokens[2].kind == TK_STRING);
    done(l);
    /* A field over lines of a triple-quoted f-string keeps its lines. */
    l = lex_str("f'''{\n  x}'''\n");
    ASSERT(l->diag.error_count == 0 && l->t.tokens[0].v.s.fields[0].tokens[0].line == 2);
    done(l);
    const char *bad[] = {"f'{x'\n", "f'{}'\n", "f'}'\n", "f'{x!z}'\n", "f'{a)}'\n", "f'''{x'''\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l = lex_str(bad[i]);
        ASSERT(l->diag.error_count == 1);
        done(l);
    }
}

void test_lexer(void) {
    sink = fopen("/dev/null", "w");
    test_numbers();
    test_strings();
    test_indentation();
    test_lines();
    test_operators();
    test_errors();
    test_fstrings();
    fclose(sink);
}
