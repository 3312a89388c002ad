/*
 * lexer.c - Python 3 source to tokens, as the kernel subset needs them.
 *
 * Takes one loaded source file and gives the whole token array at once, so
 * the parser's lookahead is free. Indentation becomes INDENT and DEDENT by an
 * indentation stack, measured twice as CPython does (tabs to multiples of 8,
 * and tabs as 1) so that tabs and spaces mixed ambiguously are an error.
 * Newlines inside brackets and after a backslash join lines. Every lexical
 * error is reported through diag (held, so that the parser prints it in
 * source order with its own) and the lexer resynchronises on the next
 * character; where the error leaves no sensible token it puts a TK_ERROR,
 * on which the parser gives up that statement without a second message.
 * The stream it returns is always well formed: it ends in NEWLINE, the
 * DEDENTs that close open blocks, and EOF.
 */
#include "pykc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const token_names[] = {
#define X(kind, spelling) spelling,
    TOKEN_LIST(X)
#undef X
};

const char *token_kind_name(TokenKind k) {
    return k >= 0 && k < TK_COUNT ? token_names[k] : "token";
}

/* Brackets are tracked for line joining and for matching errors. */
typedef struct Bracket {
    char ch;
    uint32_t off;
} Bracket;

typedef struct Lexer {
    Arena *arena;
    Diag *diag;
    int file;
    const char *src;
    uint32_t size, pos;
    int line;
    uint32_t line_start;
    uint32_t col_cache_off;  /* col of col_cache_off on the current line */
    int col_cache;

    Token *toks;
    int count, cap;

    int indents[PYKC_MAX_INDENT + 1], alt_indents[PYKC_MAX_INDENT + 1];
    int depth;               /* entries on the indentation stack above 0 */
    Bracket brackets[PYKC_MAX_NESTING];
    int bracket_depth;       /* may exceed PYKC_MAX_NESTING; only the first
                                entries are remembered */
    bool at_line_start;
    bool too_deep_reported;
    bool bad_char_reported;  /* on this logical line, which is lost anyway */
    uint32_t named_escape;   /* in the string being read: 1 + the offset of
                                its first \N{...} escape, or 0 */
    int fstring_depth;       /* f-strings this lexer's text lies inside */
} Lexer;

static Span span_at(const Lexer *lx, uint32_t begin, uint32_t end) {
    return (Span){lx->file, begin, end};
}

static void error_at(Lexer *lx, uint32_t begin, uint32_t end, const char *fmt, ...) PYKC_PRINTF(4, 5);
static void error_at(Lexer *lx, uint32_t begin, uint32_t end, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_report(lx->diag, DIAG_ERROR, span_at(lx, begin, end), fmt, ap);
    va_end(ap);
}

/* The end of the character at pos: a statement's first, where an error
 * about its indentation points. */
static uint32_t first_char_end(const Lexer *lx) {
    uint32_t cp;
    int n = utf8_decode(lx->src + lx->pos, lx->size - lx->pos, &cp);
    return lx->pos + (uint32_t)(n > 0 ? n : 1);
}

static int peek_at(const Lexer *lx, uint32_t off) {
    return off < lx->size ? (unsigned char)lx->src[off] : -1;
}

static int peek(const Lexer *lx) { return peek_at(lx, lx->pos); }
static int peek2(const Lexer *lx) { return peek_at(lx, lx->pos + 1); }

/* Column of off (>= line_start) in characters, advancing a cache so that a
 * long line is walked once, not once a token. */
static int column_of(Lexer *lx, uint32_t off) {
    if (lx->col_cache_off < lx->line_start || lx->col_cache_off > off) {
        lx->col_cache_off = lx->line_start;
        lx->col_cache = 1;
    }
    uint32_t i = lx->col_cache_off;
    while (i < off) {
        i += (uint32_t)utf8_char_bytes(lx->src + i, lx->size - i);
        lx->col_cache++;
    }
    lx->col_cache_off = i;
    return lx->col_cache;
}

static Token *push_token(Lexer *lx, TokenKind kind, uint32_t begin, uint32_t end) {
    if (lx->count == lx->cap) {
        int cap = lx->cap ? lx->cap * 2 : 256;
        Token *grown = realloc(lx->toks, sizeof(Token) * (size_t)cap);
        if (!grown) ice("out of memory: %d tokens", cap);
        lx->toks = grown;
        lx->cap = cap;
    }
    Token *t = &lx->toks[lx->count++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->off = begin;
    t->len = end - begin;
    t->line = lx->line;
    t->col = column_of(lx, begin);
    return t;
}

static void new_line(Lexer *lx, uint32_t next_line_start) {
    lx->line++;
    lx->line_start = next_line_start;
}

/* Consumes a line break at pos (\n, \r\n or \r); false if there is none. */
static bool eat_line_break(Lexer *lx) {
    int c = peek(lx);
    if (c == '\r') {
        lx->pos += peek2(lx) == '\n' ? 2 : 1;
    } else if (c == '\n') {
        lx->pos++;
    } else {
        return false;
    }
    new_line(lx, lx->pos);
    return true;
}

static bool is_line_break(int c) { return c == '\n' || c == '\r'; }

/* ---- indentation --------------------------------------------------------- */

/* Python decodes the whole file first, so a comment must be UTF-8 too. */
static void skip_comment(Lexer *lx) {
    bool reported = false;
    while (peek(lx) != -1 && !is_line_break(peek(lx))) {
        int n = utf8_decode(lx->src + lx->pos, lx->size - lx->pos, NULL);
        if ((n == 0 || peek(lx) == 0) && !reported) {
            if (peek(lx) == 0) error_at(lx, lx->pos, lx->pos + 1, "source code cannot contain NUL bytes");
            else error_at(lx, lx->pos, lx->pos + 1, "invalid UTF-8 byte 0x%02x in a comment", peek(lx));
            reported = true;
        }
        lx->pos += n ? (uint32_t)n : 1;
    }
}

/* Measures the indentation at the start of a logical line and emits INDENT
 * or DEDENTs. Blank and comment-only lines are skipped whole. Returns false
 * at end of input. */
static bool lex_indentation(Lexer *lx) {
    for (;;) {
        int col = 0, alt = 0;
        uint32_t begin = lx->pos;
        for (;;) {
            int c = peek(lx);
            if (c == ' ') { col++; alt++; }
            else if (c == '\t') { col = (col / 8 + 1) * 8; alt++; }
            else if (c == '\f') { col = alt = 0; }
            else break;
            lx->pos++;
        }
        int c = peek(lx);
        if (c == '#') skip_comment(lx), c = peek(lx);
        if (c == -1) return false;
        if (is_line_break(c)) {
            eat_line_break(lx);
            continue;
        }
        if (c == '\\' && is_line_break(peek2(lx))) {
            /* A continuation before any token: the next line carries on. */
            lx->pos++;
            eat_line_break(lx);
            continue;
        }
        int top = lx->indents[lx->depth], alt_top = lx->alt_indents[lx->depth];
        if (col == top) {
            if (alt != alt_top)
                error_at(lx, begin, lx->pos, "inconsistent use of tabs and spaces in indentation");
        } else if (col > top) {
            if (alt <= alt_top)
                error_at(lx, begin, lx->pos, "inconsistent use of tabs and spaces in indentation");
            if (lx->depth == PYKC_MAX_INDENT) {
                if (!lx->too_deep_reported)
                    error_at(lx, begin, lx->pos, "too many levels of indentation (the limit is %d)", PYKC_MAX_INDENT);
                lx->too_deep_reported = true;
                lx->diag->stop = true;
                return false;
            }
            lx->depth++;
            lx->indents[lx->depth] = col;
            lx->alt_indents[lx->depth] = alt;
            push_token(lx, TK_INDENT, begin, lx->pos);
        } else {
            while (lx->depth > 0 && col < lx->indents[lx->depth]) {
                lx->depth--;
                push_token(lx, TK_DEDENT, lx->pos, lx->pos);
            }
            if (col != lx->indents[lx->depth])
                error_at(lx, lx->pos, first_char_end(lx), "unindent does not match any outer indentation level");
            else if (alt != lx->alt_indents[lx->depth])
                error_at(lx, begin, lx->pos, "inconsistent use of tabs and spaces in indentation");
        }
        return true;
    }
}

/* ---- numbers ------------------------------------------------------------ */

static bool is_ident_start(int c) { return c == '_' || (c >= 0 && c < 0x80 && isalpha(c)); }
static bool is_ident_char(int c) { return c == '_' || (c >= 0 && c < 0x80 && isalnum(c)); }

static int digit_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

/* Python still reads `1if x else 2` (with a warning): a number directly
 * followed by one of these keywords ends there. */
static bool keyword_follows(const Lexer *lx) {
    static const char *const words[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    uint32_t end = lx->pos;
    while (is_ident_char(peek_at(lx, end))) end++;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == end - lx->pos && memcmp(words[i], lx->src + lx->pos, end - lx->pos) == 0) return true;
    return false;
}

static void warn_keyword_follows(Lexer *lx) {
    uint32_t end = lx->pos;
    while (is_ident_char(peek_at(lx, end))) end++;
    diag_warning(lx->diag, span_at(lx, lx->pos, end), "missing space between a number and '%.*s'",
                 (int)(end - lx->pos), lx->src + lx->pos);
}

static void skip_ident_chars(Lexer *lx) {
    while (is_ident_char(peek(lx))) lx->pos++;
}

/* Scans digits of base with single underscores between them; an underscore
 * may also follow a base prefix (0x_ff). Returns the count of digits. */
static int scan_digits(Lexer *lx, int base, bool after_prefix, uint64_t *value, bool *overflow) {
    int n = 0;
    bool underscore_ok = after_prefix;
    for (;;) {
        int c = peek(lx);
        if (c == '_' && (n > 0 || underscore_ok) && digit_value(peek2(lx)) < base) {
            lx->pos++;
            continue;
        }
        int v = digit_value(c);
        if (v >= base) break;
        if (value) {
            if (*value > (UINT64_MAX - (uint64_t)v) / (uint64_t)base) *overflow = true;
            *value = *value * (uint64_t)base + (uint64_t)v;
        }
        lx->pos++;
        n++;
        underscore_ok = false;
    }
    return n;
}

/* Copies the literal without underscores for strtod. */
static double float_value(Lexer *lx, uint32_t begin, uint32_t end) {
    char buf[128];
    size_t n = 0;
    char *heap = NULL, *out = buf;
    if (end - begin >= sizeof buf) {
        heap = malloc(end - begin + 1);
        if (!heap) ice("out of memory reading a float literal");
        out = heap;
    }
    for (uint32_t i = begin; i < end; i++)
        if (lx->src[i] != '_') out[n++] = lx->src[i];
    out[n] = '\0';
    double v = strtod(out, NULL);
    free(heap);
    return v;
}

static void finish_number(Lexer *lx, uint32_t begin, bool is_float) {
    TokenKind kind = is_float ? TK_FLOAT : TK_INT;
    if (peek(lx) == 'j' || peek(lx) == 'J') {
        lx->pos++;
        kind = TK_IMAG;
    }
    if (is_ident_char(peek(lx))) {
        if (keyword_follows(lx)) {
            warn_keyword_follows(lx);
        } else {
            skip_ident_chars(lx);
            error_at(lx, begin, lx->pos, "invalid %s literal",
                     kind == TK_INT ? "decimal" : kind == TK_IMAG ? "imaginary" : "float");
        }
    }
    Token *t = push_token(lx, kind, begin, lx->pos);
    if (kind != TK_INT) t->v.f = float_value(lx, begin, kind == TK_IMAG ? t->off + t->len - 1 : t->off + t->len);
}

/* 0x.. | 0o.. | 0b.. : messages as CPython words them */
static void lex_prefixed_int(Lexer *lx, uint32_t begin, int base, const char *what) {
    lx->pos += 2;
    uint64_t value = 0;
    bool overflow = false;
    int n = scan_digits(lx, base, true, &value, &overflow);
    int c = peek(lx);
    if (c >= '0' && c <= '9') {
        uint32_t bad = lx->pos;
        skip_ident_chars(lx);
        error_at(lx, bad, bad + 1, "invalid digit '%c' in %s literal", c, what);
    } else if (n > 0 && c != '_' && is_ident_char(c) && keyword_follows(lx)) {
        warn_keyword_follows(lx);
    } else if (n == 0 || c == '_' || is_ident_char(c)) {
        skip_ident_chars(lx);
        error_at(lx, begin, lx->pos, "invalid %s literal", what);
    }
    Token *t = push_token(lx, TK_INT, begin, lx->pos);
    t->v.i.value = value;
    t->v.i.overflow = overflow;
}

/* decimal | 0x.. | 0o.. | 0b.. | float (with . or exponent) | imaginary */
static void lex_number(Lexer *lx) {
    uint32_t begin = lx->pos;
    int c1 = peek2(lx);
    if (peek(lx) == '0' && (c1 == 'x' || c1 == 'X')) return lex_prefixed_int(lx, begin, 16, "hexadecimal");
    if (peek(lx) == '0' && (c1 == 'o' || c1 == 'O')) return lex_prefixed_int(lx, begin, 8, "octal");
    if (peek(lx) == '0' && (c1 == 'b' || c1 == 'B')) return lex_prefixed_int(lx, begin, 2, "binary");

    uint64_t value = 0;
    bool overflow = false, is_float = false;
    int int_digits = scan_digits(lx, 10, false, &value, &overflow);
    if (peek(lx) == '.' && (int_digits > 0 || isdigit(peek2(lx)))) {
        lx->pos++;
        scan_digits(lx, 10, false, NULL, NULL);
        is_float = true;
    }
    if ((peek(lx) == 'e' || peek(lx) == 'E') && !keyword_follows(lx)) {
        uint32_t save = lx->pos++;
        if (peek(lx) == '+' || peek(lx) == '-') lx->pos++;
        if (scan_digits(lx, 10, false, NULL, NULL) == 0) {
            lx->pos = save + 1;
            skip_ident_chars(lx);
            error_at(lx, begin, lx->pos, "invalid float literal: the exponent has no digits");
        }
        is_float = true;
    }
    if (peek(lx) == '_') {
        while (peek(lx) == '_') lx->pos++;
        skip_ident_chars(lx);
        error_at(lx, begin, lx->pos, "invalid decimal literal: an underscore must separate digits");
    }
    bool imag = peek(lx) == 'j' || peek(lx) == 'J';
    if (!is_float && !imag && value != 0 && lx->src[begin] == '0')
        error_at(lx, begin, lx->pos,
                 "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    finish_number(lx, begin, is_float);
    Token *t = &lx->toks[lx->count - 1];
    if (t->kind == TK_INT) {
        t->v.i.value = value;
        t->v.i.overflow = overflow;
    }
}

/* ---- strings ------------------------------------------------------------- */

typedef struct StrBuf {
    char *data;
    size_t len, cap;
} StrBuf;

static void sb_put(StrBuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) ice("out of memory in a string literal");
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_put_utf8(StrBuf *b, uint32_t cp) {
    char out[4];
    size_t n;
    if (cp < 0x80) { out[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { out[0] = (char)(0xC0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        out[0] = (char)(0xF0 | cp >> 18); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
    }
    sb_put(b, out, n);
}

/* Reads \xhh, \uhhhh or \Uhhhhhhhh digits after the escape letter. */
static bool hex_escape(Lexer *lx, int ndigits, uint32_t *cp) {
    *cp = 0;
    for (int i = 0; i < ndigits; i++) {
        int v = digit_value(peek(lx));
        if (v >= 16) return false;
        *cp = *cp * 16 + (uint32_t)v;
        lx->pos++;
    }
    return true;
}

static void lex_escape(Lexer *lx, StrBuf *b, bool bytes) {
    uint32_t esc = lx->pos++; /* the backslash */
    int c = peek(lx);
    static const char simple_from[] = "\\'\"abfnrtv";
    static const char simple_to[] = "\\'\"\a\b\f\n\r\t\v";
    const char *hit = c > 0 ? strchr(simple_from, c) : NULL;
    if (hit) {
        sb_put(b, &simple_to[hit - simple_from], 1);
        lx->pos++;
        return;
    }
    if (is_line_break(c)) {
        eat_line_break(lx);
        return;
    }
    if (c >= '0' && c <= '7') {
        uint32_t v = 0;
        for (int i = 0; i < 3 && peek(lx) >= '0' && peek(lx) <= '7'; i++) v = v * 8 + (uint32_t)(lx->src[lx->pos++] - '0');
        if (bytes || v < 0x80) { char ch = (char)v; sb_put(b, &ch, 1); }
        else sb_put_utf8(b, v);
        return;
    }
    int ndigits = c == 'x' ? 2 : (c == 'u' && !bytes) ? 4 : (c == 'U' && !bytes) ? 8 : 0;
    if (ndigits) {
        lx->pos++;
        uint32_t cp;
        if (!hex_escape(lx, ndigits, &cp) || cp > 0x10FFFF) {
            error_at(lx, esc, lx->pos, "invalid \\%c escape in string literal", c);
            return;
        }
        if (bytes || (c == 'x' && cp < 0x80)) { char ch = (char)cp; sb_put(b, &ch, 1); }
        else sb_put_utf8(b, cp);
        return;
    }
    if (c == 'N' && !bytes) {
        /* A character by its Unicode name: pykc keeps no table of names, so
         * the value stays as written and a kernel refuses it (parser.c). */
        lx->pos++;
        if (peek(lx) == '{') lx->pos++;
        while (isalnum(peek(lx)) || peek(lx) == ' ' || peek(lx) == '-') lx->pos++; /* what names are made of */
        if (lx->src[esc + 2] != '{' || peek(lx) != '}' || lx->pos == esc + 3) {
            error_at(lx, esc, lx->pos, "malformed \\N character escape");
            return;
        }
        lx->pos++;
        sb_put(b, lx->src + esc, lx->pos - esc);
        if (!lx->named_escape) lx->named_escape = esc + 1;
        return;
    }
    /* Python keeps an unknown escape as written. */
    sb_put(b, "\\", 1);
}

/* Reads the body of a string whose opening quote(s) start at pos. */
static void lex_string_body(Lexer *lx, uint32_t begin, bool raw, bool bytes, TokenKind kind) {
    int first_line = lx->line;
    uint32_t first_line_start = lx->line_start;
    char quote = lx->src[lx->pos];
    bool triple = peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote;
    lx->pos += triple ? 3 : 1;
    StrBuf b = {0};
    bool bad_char_reported = false;
    lx->named_escape = 0;
    for (;;) {
        int c = peek(lx);
        if (c == -1 || (!triple && is_line_break(c))) {
            error_at(lx, begin, lx->pos, "unterminated %sstring literal", triple ? "triple-quoted " : "");
            break;
        }
        if (c == quote && (!triple || (peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote))) {
            lx->pos += triple ? 3 : 1;
            break;
        }
        if (c == '\\' && !raw) {
            lex_escape(lx, &b, bytes);
            continue;
        }
        if (c == '\\' && raw && peek2(lx) != -1) {
            /* A raw string keeps the backslash and the character after it
             * (a line break read as Python reads one: "\n"). */
            uint32_t from = lx->pos;
            lx->pos++;
            if (eat_line_break(lx)) {
                sb_put(&b, "\\\n", 2);
            } else {
                lx->pos += (uint32_t)utf8_char_bytes(lx->src + lx->pos, lx->size - lx->pos);
                sb_put(&b, lx->src + from, lx->pos - from);
            }
            continue;
        }
        if (is_line_break(c)) {
            /* Python reads CRLF and CR as "\n", in strings too. */
            eat_line_break(lx);
            sb_put(&b, "\n", 1);
            continue;
        }
        int n = c == 0 ? 0 : utf8_decode(lx->src + lx->pos, lx->size - lx->pos, NULL);
        if (n == 0 || (bytes && n > 1)) {
            /* One message a literal: binary garbage in quotes is one mistake. */
            if (!bad_char_reported) {
                uint32_t end = lx->pos + (n ? (uint32_t)n : 1);
                if (c == 0) error_at(lx, lx->pos, end, "source code cannot contain NUL bytes");
                else if (n == 0) error_at(lx, lx->pos, end, "invalid UTF-8 byte 0x%02x in a string literal", c);
                else error_at(lx, lx->pos, end, "bytes can only contain ASCII literal characters");
            }
            bad_char_reported = true;
            lx->pos += n ? (uint32_t)n : 1;
            continue;
        }
        sb_put(&b, lx->src + lx->pos, (size_t)n);
        lx->pos += (uint32_t)n;
    }
    /* A token's place is where it begins, though a triple-quoted string
     * may end lines later. */
    int last_line = lx->line;
    uint32_t last_line_start = lx->line_start;
    lx->line = first_line;
    lx->line_start = first_line_start;
    Token *t = push_token(lx, kind, begin, lx->pos);
    lx->line = last_line;
    lx->line_start = last_line_start;
    t->v.s.data = b.data ? arena_strndup(lx->arena, b.data, b.len) : "";
    t->v.s.len = b.len;
    t->v.s.bytes = bytes;
    t->v.s.named_escape = lx->named_escape;
    free(b.data);
}

/* ---- f-strings ------------------------------------------------------------- */

/* f-strings are read as Python 3.12 reads them (PEP 701): the text between
 * replacement fields, `{{` and `}}`, and each field `{expr[=][!c][:spec]}`,
 * whose expression may hold brackets and strings, in any quotes, and whose
 * spec may hold fields of its own. Each expression is lexed into tokens of
 * its own, kept on the f-string's token, so that the parser checks its
 * syntax where host code uses one (a kernel refuses f-strings whole). */

#define PYKC_MAX_FSTRING_NESTING 20

static void lex_token(Lexer *lx);

/* Skips the string literal whose opening quote is at pos, as a field's
 * expression holds it (its own errors come when the expression is lexed). */
static void skip_nested_string(Lexer *lx) {
    char quote = lx->src[lx->pos];
    bool triple = peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote;
    lx->pos += triple ? 3 : 1;
    while (peek(lx) != -1) {
        int c = peek(lx);
        if (c == quote && (!triple || (peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote))) {
            lx->pos += triple ? 3 : 1;
            return;
        }
        if (is_line_break(c)) {
            if (!triple) return;
            eat_line_break(lx);
            continue;
        }
        lx->pos += c == '\\' && peek2(lx) != -1 && !is_line_break(peek2(lx)) ? 2 : 1;
    }
}

/* Scans a field's expression from pos to what ends it outside brackets
 * and strings: `}`, `:`, `!` (not `!=`) or the `=` of `{x=}`. False if the
 * f-string or the input ends first. */
static bool scan_field_expression(Lexer *lx, bool triple) {
    int depth = 0, prev = 0;
    for (;;) {
        int c = peek(lx);
        if (c == -1) return false;
        if (is_line_break(c)) {
            if (!triple) return false;
            eat_line_break(lx);
            prev = '\n';
            continue;
        }
        if (c == '\'' || c == '"') {
            skip_nested_string(lx);
            prev = c;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (depth == 0) {
            if (c == '}' || c == ':') return true;
            if (c == '!' && peek2(lx) != '=') return true;
            if (c == '=' && peek2(lx) != '=' && prev != '=' && prev != '!' && prev != '<' && prev != '>') return true;
        }
        prev = c;
        lx->pos += (uint32_t)utf8_char_bytes(lx->src + lx->pos, lx->size - lx->pos);
    }
}

/* The tokens of a field's expression, [begin, end) of the source, lexed as
 * if inside the field's brace: line breaks join, and a stray closing
 * bracket is reported against it. */
static TokenArray lex_field(Lexer *lx, uint32_t begin, uint32_t end, int line, uint32_t line_start) {
    Lexer sub = {.arena = lx->arena, .diag = lx->diag, .file = lx->file, .src = lx->src, .size = end, .pos = begin,
                 .line = line, .line_start = line_start, .col_cache = 1, .bracket_depth = 1,
                 .fstring_depth = lx->fstring_depth + 1};
    sub.brackets[0] = (Bracket){'{', begin - 1};
    while (sub.pos < sub.size && !lx->diag->stop) lex_token(&sub);
    push_token(&sub, TK_NEWLINE, end, end);
    push_token(&sub, TK_EOF, end, end);
    arena_adopt(lx->arena, sub.toks);
    return (TokenArray){sub.toks, sub.count};
}

typedef struct Fields {
    TokenArray *items;
    int count, cap;
} Fields;

static bool lex_replacement_field(Lexer *lx, uint32_t string_begin, bool triple, int nesting, Fields *out);

/* A field's format spec after its `:`, up to the field's `}`: text, and
 * fields of its own. */
static bool lex_format_spec(Lexer *lx, uint32_t string_begin, bool triple, int nesting, Fields *out) {
    for (;;) {
        int c = peek(lx);
        if (c == '}') return true;
        if (c == -1 || c == '\'' || c == '"' || (is_line_break(c) && !triple)) return false;
        if (c == '{') {
            if (!lex_replacement_field(lx, string_begin, triple, nesting + 1, out)) return false;
            continue;
        }
        if (is_line_break(c)) {
            eat_line_break(lx);
            continue;
        }
        lx->pos += (uint32_t)utf8_char_bytes(lx->src + lx->pos, lx->size - lx->pos);
    }
}

/* `{expr[=][!c][:spec]}` from its `{` at pos; false (reported) if broken. */
static bool lex_replacement_field(Lexer *lx, uint32_t string_begin, bool triple, int nesting, Fields *out) {
    uint32_t open = lx->pos++;
    if (nesting > 2 || lx->fstring_depth >= PYKC_MAX_FSTRING_NESTING) {
        error_at(lx, open, open + 1, "f-string: expressions nested too deeply");
        return false;
    }
    int line = lx->line;
    uint32_t line_start = lx->line_start, begin = lx->pos;
    bool ended = scan_field_expression(lx, triple);
    uint32_t end = lx->pos;
    while (end > begin && strchr(" \t\f\r\n", lx->src[end - 1])) end--;
    uint32_t first = begin;
    while (first < end && strchr(" \t\f\r\n", lx->src[first])) first++;
    if (!ended) {
        error_at(lx, open, open + 1, "f-string: expecting '}'");
        return false;
    }
    if (first == end) {
        error_at(lx, open, lx->pos + 1, "f-string: valid expression required before '%c'", lx->src[lx->pos]);
        return false;
    }
    if (out->count == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 4;
        out->items = realloc(out->items, sizeof(TokenArray) * (size_t)out->cap);
        if (!out->items) ice("out of memory in an f-string");
    }
    out->items[out->count++] = lex_field(lx, begin, lx->pos, line, line_start);
    if (peek(lx) == '=') lx->pos++;
    if (peek(lx) == '!') {
        uint32_t bang = lx->pos++;
        int c = peek(lx);
        if (c == 's' || c == 'r' || c == 'a') lx->pos++;
        if ((c != 's' && c != 'r' && c != 'a') || (peek(lx) != ':' && peek(lx) != '}')) {
            error_at(lx, bang, lx->pos + 1, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
            return false;
        }
    }
    if (peek(lx) == ':') {
        lx->pos++;
        if (!lex_format_spec(lx, string_begin, triple, nesting, out)) {
            error_at(lx, open, open + 1, "f-string: expecting '}'");
            return false;
        }
    }
    if (peek(lx) != '}') {
        error_at(lx, open, open + 1, "f-string: expecting '}'");
        return false;
    }
    lx->pos++;
    return true;
}

/* Reads an f-string from its opening quote(s) at pos. After a broken field
 * the rest of the literal is skipped to its closing quote. */
static void lex_fstring_body(Lexer *lx, uint32_t begin, bool raw) {
    int first_line = lx->line;
    uint32_t first_line_start = lx->line_start;
    char quote = lx->src[lx->pos];
    bool triple = peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote;
    lx->pos += triple ? 3 : 1;
    uint32_t body = lx->pos, body_end = body;
    Fields fields = {0};
    bool broken = false;
    for (;;) {
        int c = peek(lx);
        if (c == -1 || (!triple && is_line_break(c))) {
            if (!broken) error_at(lx, begin, lx->pos, "unterminated %sf-string literal", triple ? "triple-quoted " : "");
            body_end = lx->pos;
            break;
        }
        if (c == quote && (!triple || (peek2(lx) == quote && peek_at(lx, lx->pos + 2) == quote))) {
            body_end = lx->pos;
            lx->pos += triple ? 3 : 1;
            break;
        }
        if (is_line_break(c)) {
            eat_line_break(lx);
        } else if (c == '\\' && peek2(lx) != -1) {
            /* An escape; a brace after a backslash still opens or closes a
             * field, and \N{NAME}'s braces are its own. */
            lx->pos++;
            if (eat_line_break(lx)) continue;
            if (!raw && peek(lx) == 'N' && peek2(lx) == '{') {
                while (peek(lx) != -1 && peek(lx) != '}' && peek(lx) != quote && !is_line_break(peek(lx))) lx->pos++;
                if (peek(lx) == '}') lx->pos++;
            } else if (peek(lx) != '{' && peek(lx) != '}') {
                lx->pos += (uint32_t)utf8_char_bytes(lx->src + lx->pos, lx->size - lx->pos);
            }
        } else if ((c == '{' || c == '}') && peek2(lx) == c) {
            lx->pos += 2;
        } else if (c == '{' && !broken) {
            /* after a broken field the rest is read as text, to the quote
             * that ends the f-string, so that what follows lexes as written */
            uint32_t open = lx->pos, line_start = lx->line_start;
            int line = lx->line;
            broken = !lex_replacement_field(lx, begin, triple, 0, &fields);
            if (broken) {
                lx->pos = open + 1;
                lx->line = line;
                lx->line_start = line_start;
            }
        } else if (c == '}' && !broken) {
            error_at(lx, lx->pos, lx->pos + 1, "f-string: single '}' is not allowed");
            broken = true;
            lx->pos++;
        } else {
            lx->pos += (uint32_t)utf8_char_bytes(lx->src + lx->pos, lx->size - lx->pos);
        }
    }
    int last_line = lx->line;
    uint32_t last_line_start = lx->line_start;
    lx->line = first_line;
    lx->line_start = first_line_start;
    Token *t = push_token(lx, TK_FSTRING, begin, lx->pos);
    lx->line = last_line;
    lx->line_start = last_line_start;
    t->v.s.data = arena_strndup(lx->arena, lx->src + body, body_end - body);
    t->v.s.len = body_end - body;
    t->v.s.fields = ARENA_ARRAY(lx->arena, TokenArray, fields.count ? fields.count : 1);
    if (fields.count) memcpy(t->v.s.fields, fields.items, sizeof(TokenArray) * (size_t)fields.count);
    t->v.s.field_count = fields.count;
    free(fields.items);
}

/* A string prefix is up to two of r, b, u, f in either case (not every
 * pair is Python: u goes alone, b and f never together). */
static bool lex_string_prefix(Lexer *lx) {
    uint32_t p = lx->pos;
    bool raw = false, bytes = false, fstr = false, uni = false;
    for (int i = 0; i < 2; i++) {
        int c = tolower(peek_at(lx, p));
        if (c == 'r' && !raw) raw = true;
        else if (c == 'b' && !bytes) bytes = true;
        else if (c == 'f' && !fstr) fstr = true;
        else if (c == 'u' && !uni) uni = true;
        else break;
        p++;
    }
    int q = peek_at(lx, p);
    if (p == lx->pos || (q != '\'' && q != '"')) return false;
    if ((uni && (raw || bytes || fstr)) || (bytes && fstr)) return false;
    uint32_t begin = lx->pos;
    lx->pos = p;
    if (fstr) lex_fstring_body(lx, begin, raw);
    else lex_string_body(lx, begin, raw, bytes, TK_STRING);
    return true;
}

/* ---- names and operators --------------------------------------------------- */

static const struct { const char *word; size_t len; TokenKind kind; } keywords[] = {
#define X(kind, spelling) {spelling, sizeof spelling - 1, kind},
    KEYWORD_LIST(X)
#undef X
};

/* Whether a non-ASCII code point reads as a letter, judged by its block:
 * enough to tell an identifier someone meant (é, π, 变量) from a stray
 * symbol (×, →, “) without carrying Unicode's tables. */
static bool is_unicode_letter(uint32_t cp) {
    static const struct { uint32_t lo, hi; } blocks[] = {
        {0xAA, 0xAA},       {0xB5, 0xB5},       {0xBA, 0xBA},       {0xC0, 0xD6},
        {0xD8, 0xF6},       {0xF8, 0x2FF},      {0x300, 0x36F},     {0x370, 0x373},
        {0x376, 0x37D},     {0x37F, 0x386},     {0x388, 0x3FF},     {0x400, 0x52F},
        {0x531, 0x587},     {0x591, 0x5F2},     {0x610, 0x6FF},     {0x900, 0xDFF},
        {0xE00, 0xEFF},     {0x10A0, 0x10FF},   {0x1100, 0x11FF},   {0x1E00, 0x1FFF},
        {0x3041, 0x30FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xAC00, 0xD7A3},
        {0xF900, 0xFAFF},   {0x20000, 0x2FA1F},
    };
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (cp >= blocks[i].lo && cp <= blocks[i].hi) return true;
    return false;
}

/* Bytes of the non-ASCII letter at off, or 0. */
static int unicode_letter_at(const Lexer *lx, uint32_t off) {
    uint32_t cp;
    if (off >= lx->size || (unsigned char)lx->src[off] < 0x80) return 0;
    int n = utf8_decode(lx->src + off, lx->size - off, &cp);
    return n && is_unicode_letter(cp) ? n : 0;
}

/* NAME, or a keyword. Python allows non-ASCII identifiers, and so does
 * host code; a kernel refuses them (its names become PTX symbols, which are
 * ASCII): the token says so, for the parser. */
static void lex_name(Lexer *lx) {
    uint32_t begin = lx->pos;
    bool non_ascii = false;
    for (;;) {
        int n = unicode_letter_at(lx, lx->pos);
        if (n) {
            non_ascii = true;
            lx->pos += (uint32_t)n;
        } else if (is_ident_char(peek(lx))) {
            lx->pos++;
        } else {
            break;
        }
    }
    size_t len = lx->pos - begin;
    TokenKind kind = TK_NAME;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0] && !non_ascii; i++)
        if (keywords[i].len == len && keywords[i].word[0] == lx->src[begin] &&
            memcmp(keywords[i].word, lx->src + begin, len) == 0)
            kind = keywords[i].kind;
    push_token(lx, kind, begin, lx->pos)->non_ascii = non_ascii;
}

/* Operators, longest first within each leading character. */
static const struct { const char text[4]; TokenKind kind; } operators[] = {
    {"**=", TK_DSTAREQ}, {"//=", TK_DSLASHEQ}, {">>=", TK_SHREQ}, {"<<=", TK_SHLEQ},
    {"...", TK_ELLIPSIS},
    {"->", TK_ARROW}, {":=", TK_WALRUS}, {"**", TK_DSTAR}, {"//", TK_DSLASH},
    {"<<", TK_SHL}, {">>", TK_SHR}, {"<=", TK_LE}, {">=", TK_GE}, {"==", TK_EQEQ},
    {"!=", TK_NE}, {"+=", TK_PLUSEQ}, {"-=", TK_MINUSEQ}, {"*=", TK_STAREQ},
    {"/=", TK_SLASHEQ}, {"%=", TK_PERCENTEQ}, {"&=", TK_AMPEQ}, {"|=", TK_PIPEEQ},
    {"^=", TK_CARETEQ}, {"@=", TK_ATEQ},
    {"(", TK_LPAREN}, {")", TK_RPAREN}, {"[", TK_LBRACKET}, {"]", TK_RBRACKET},
    {"{", TK_LBRACE}, {"}", TK_RBRACE}, {":", TK_COLON}, {",", TK_COMMA},
    {";", TK_SEMI}, {".", TK_DOT}, {"@", TK_AT}, {"+", TK_PLUS}, {"-", TK_MINUS},
    {"*", TK_STAR}, {"/", TK_SLASH}, {"%", TK_PERCENT}, {"&", TK_AMP},
    {"|", TK_PIPE}, {"^", TK_CARET}, {"~", TK_TILDE}, {"<", TK_LT}, {">", TK_GT},
    {"=", TK_ASSIGN},
};

static void open_bracket(Lexer *lx, char ch) {
    if (lx->bracket_depth < PYKC_MAX_NESTING)
        lx->brackets[lx->bracket_depth] = (Bracket){ch, lx->pos};
    lx->bracket_depth++;
}

/* A closing bracket that closes nothing, or the wrong one, becomes a
 * TK_ERROR; a wrong one still closes the innermost, as people mean it to. */
static TokenKind close_bracket(Lexer *lx, char ch, TokenKind kind) {
    static const char pairs[] = "()[]{}";
    char want = pairs[strchr(pairs, ch) - pairs - 1];
    if (lx->bracket_depth == 0) {
        error_at(lx, lx->pos, lx->pos + 1, "unmatched '%c'", ch);
        return TK_ERROR;
    }
    lx->bracket_depth--;
    if (lx->bracket_depth < PYKC_MAX_NESTING) {
        Bracket open = lx->brackets[lx->bracket_depth];
        if (open.ch != want) {
            error_at(lx, lx->pos, lx->pos + 1, "closing parenthesis '%c' does not match opening parenthesis '%c'", ch,
                     open.ch);
            diag_note(lx->diag, span_at(lx, open.off, open.off + 1), "opening parenthesis is here");
            return TK_ERROR;
        }
    }
    return kind;
}

static bool lex_operator(Lexer *lx) {
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
        if (operators[i].text[0] != lx->src[lx->pos]) continue;
        size_t n = strlen(operators[i].text);
        if (lx->pos + n > lx->size || memcmp(lx->src + lx->pos, operators[i].text, n) != 0) continue;
        char c = operators[i].text[0];
        TokenKind kind = operators[i].kind;
        if (n == 1 && strchr("([{", c)) open_bracket(lx, c);
        if (n == 1 && strchr(")]}", c)) kind = close_bracket(lx, c, kind);
        push_token(lx, kind, lx->pos, lx->pos + (uint32_t)n);
        lx->pos += (uint32_t)n;
        return true;
    }
    return false;
}

/* Whether the character at off can start no token (so it is in a run of
 * bad characters); sets *n to its length in bytes. */
static bool is_bad_char(const Lexer *lx, uint32_t off, int *n) {
    int c = peek_at(lx, off);
    *n = 1;
    if (c == -1 || c == ' ' || c == '\t' || c == '\f' || is_line_break(c)) return false;
    if (c >= 0x80) {
        *n = utf8_decode(lx->src + off, lx->size - off, NULL);
        if (*n == 0) *n = 1;
        return unicode_letter_at(lx, off) == 0;
    }
    if (c == '!') return peek_at(lx, off + 1) != '=';
    return c == 0 || c == '$' || c == '?' || c == '`' || c < 0x20 || c == 0x7F;
}

/* A run of characters that start no token is one error and one TK_ERROR:
 * binary garbage, invalid UTF-8, NUL bytes, a stray `$` or `×`. The message
 * names the first, as CPython's does. */
static void lex_bad_chars(Lexer *lx) {
    uint32_t begin = lx->pos;
    int c = peek(lx), n;
    uint32_t cp = 0;
    int first_len = utf8_decode(lx->src + begin, lx->size - begin, &cp);
    while (is_bad_char(lx, lx->pos, &n)) lx->pos += (uint32_t)n;
    if (lx->pos == begin) lx->pos++; /* `!` before `=` is an operator; never stall */
    Span first = span_at(lx, begin, begin + (uint32_t)(first_len ? first_len : 1));
    Span all = span_at(lx, begin, lx->pos);
    push_token(lx, TK_ERROR, begin, lx->pos);
    /* The parser drops the statement at its first TK_ERROR: more stray
     * characters on the line (the closing “ of “quoted”) say nothing new. */
    if (lx->bad_char_reported) return;
    lx->bad_char_reported = true;
    if (c == 0)
        diag_error(lx->diag, all, "source code cannot contain NUL bytes");
    else if (c >= 0x80 && first_len == 0)
        diag_error(lx->diag, all, "invalid UTF-8 byte 0x%02x", c);
    else if (c >= 0x80)
        diag_error(lx->diag, first, "invalid character '%.*s' (U+%04X)", first_len, lx->src + begin, (unsigned)cp);
    else if (c < 0x20 || c == 0x7F)
        diag_error(lx->diag, first, "invalid non-printable character U+%04X", (unsigned)c);
    else
        diag_error(lx->diag, first, "invalid character '%c'", c);
}

/* ---- the main loop ----------------------------------------------------------- */

static bool last_is(const Lexer *lx, TokenKind k) { return lx->count > 0 && lx->toks[lx->count - 1].kind == k; }

/* Ends a logical line at a line break outside brackets. */
static void end_logical_line(Lexer *lx) {
    lx->bad_char_reported = false;
    if (lx->count > 0 && !last_is(lx, TK_NEWLINE) && !last_is(lx, TK_INDENT) && !last_is(lx, TK_DEDENT))
        push_token(lx, TK_NEWLINE, lx->pos, lx->pos);
    eat_line_break(lx);
    lx->at_line_start = true;
}

static void lex_token(Lexer *lx) {
    int c = peek(lx);
    if (c == ' ' || c == '\t' || c == '\f') {
        lx->pos++;
    } else if (c == '#') {
        skip_comment(lx);
    } else if (is_line_break(c)) {
        if (lx->bracket_depth > 0) eat_line_break(lx);
        else end_logical_line(lx);
    } else if (c == '\\') {
        uint32_t at = lx->pos++;
        if (!eat_line_break(lx)) {
            if (peek(lx) == -1) error_at(lx, at, at + 1, "unexpected end of file after line continuation character");
            else error_at(lx, at, at + 1, "unexpected character after line continuation character");
            push_token(lx, TK_ERROR, at, at + 1);
        }
    } else if (isdigit(c) || (c == '.' && isdigit(peek2(lx)))) {
        lex_number(lx);
    } else if (is_ident_start(c)) {
        if (!lex_string_prefix(lx)) lex_name(lx);
    } else if (unicode_letter_at(lx, lx->pos)) {
        lex_name(lx);
    } else if (c == '\'' || c == '"') {
        lex_string_body(lx, lx->pos, false, false, TK_STRING);
    } else if (!lex_operator(lx)) {
        lex_bad_chars(lx);
    }
}

static void lex_end(Lexer *lx) {
    if (lx->bracket_depth > 0) {
        int i = lx->bracket_depth < PYKC_MAX_NESTING ? lx->bracket_depth - 1 : PYKC_MAX_NESTING - 1;
        Bracket b = lx->brackets[i];
        error_at(lx, b.off, b.off + 1, "'%c' was never closed", b.ch);
        lx->bracket_depth = 0;
        push_token(lx, TK_ERROR, lx->pos, lx->pos);
    }
    if (lx->count > 0 && !last_is(lx, TK_NEWLINE) && !last_is(lx, TK_DEDENT))
        push_token(lx, TK_NEWLINE, lx->pos, lx->pos);
    while (lx->depth > 0) {
        lx->depth--;
        push_token(lx, TK_DEDENT, lx->pos, lx->pos);
    }
    push_token(lx, TK_EOF, lx->pos, lx->pos);
}

TokenArray lex_file(Arena *a, Diag *d, int file) {
    const SourceFile *f = diag_file(d, file);
    diag_hold(d);
    Lexer lx = {.arena = a, .diag = d, .file = file, .src = f->text, .size = (uint32_t)f->size, .line = 1,
                .col_cache = 1, .at_line_start = true};
    /* A UTF-8 BOM is no part of the first line (diag.c agrees). */
    if (lx.size >= 3 && memcmp(lx.src, "\xEF\xBB\xBF", 3) == 0) lx.pos = lx.line_start = lx.col_cache_off = 3;
    while (!d->stop) {
        if (lx.at_line_start && lx.bracket_depth == 0) {
            lx.at_line_start = false;
            if (!lex_indentation(&lx)) break;
        }
        if (lx.pos >= lx.size) break;
        lex_token(&lx);
    }
    if (d->stop) lx.bracket_depth = 0;
    lex_end(&lx);
    /* The array is large (a token for every few bytes): the arena adopts it
     * rather than copy it. */
    Token *fitted = realloc(lx.toks, sizeof(Token) * (size_t)lx.count);
    if (fitted) lx.toks = fitted;
    arena_adopt(a, lx.toks);
    return (TokenArray){lx.toks, lx.count};
}
