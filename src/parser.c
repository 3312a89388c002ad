/*
 * parser.c - tokens to a syntax tree, by recursive descent.
 *
 * Follows grammar/pyk.ebnf production by production; each function carries
 * its production above it. A .pyk file is a whole Python program: kernels
 * and device functions, and the host code around them that launches them.
 * The parser reads all of Python 3's syntax, in two modes:
 *
 * - host code (module level, functions without @cuda.jit, classes ...) is
 *   read in full, for its syntax errors, and skipped: each module-level
 *   statement that is not an import, a constant (names bound to an
 *   expression of the kernel language) or a @cuda.jit function becomes one
 *   Host node saying what it was and which module names it binds;
 * - a function that @cuda.jit decorates (decided from the imports read so
 *   far) is read in the kernel language: a construct outside it (class,
 *   lambda, comprehensions, try, with, f-strings, ...) gets an error that
 *   names it, at its place.
 *
 * Recovery: a syntax error longjmps to the statement being parsed, which is
 * dropped; the parser skips to the end of its logical line, parses (and
 * discards) an indented block that follows, and goes on, so every independent
 * error of a file is reported. Nodes and lists live in the arena, so nothing
 * leaks when a parse is abandoned half way.
 *
 * Depth: recursion is bounded by PYKC_MAX_NESTING and tree height by
 * PYKC_MAX_EXPR_HEIGHT; past either the parse stops with one error.
 */
#include "pykc.h"

#include <setjmp.h>
#include <string.h>

typedef struct Parser {
    Arena *arena;
    Diag *diag;
    int file;
    const Token *toks;
    int count, pos;
    int depth;        /* recursion depth of nested expressions */
    int loop_depth;   /* enclosing while/for loops of the current function */
    int func_depth;   /* enclosing function definitions (and lambdas) */
    int scope_depth;  /* enclosing def and class bodies: 0 at module scope */
    int block_depth;  /* enclosing indented blocks: 0 at the top level */
    bool fatal;       /* too deep: the rest of the file reads as EOF */
    bool host;        /* reading host code: all of Python, to be skipped */
    int host_uses;    /* constructs outside the kernel language read so far */
    Vec *bound;       /* the module names the top-level statement binds */
    Vec jit_names;    /* dotted names that reach numba.cuda.jit, from the
                         module's imports (cuda.jit, nb.cuda.jit, jit) */
    jmp_buf *recover;
} Parser;

/* ---- tokens ---------------------------------------------------------------- */

static const Token *peek(const Parser *p) {
    return p->fatal ? &p->toks[p->count - 1] : &p->toks[p->pos];
}

static TokenKind peek_kind(const Parser *p) { return peek(p)->kind; }
static bool at(const Parser *p, TokenKind k) { return peek_kind(p) == k; }

static TokenKind peek_kind_at(const Parser *p, int ahead) {
    if (p->fatal) return TK_EOF;
    int i = p->pos + ahead;
    return i < p->count ? p->toks[i].kind : TK_EOF;
}

static const Token *next(Parser *p) {
    const Token *t = peek(p);
    if (t->kind != TK_EOF) p->pos++;
    return t;
}

static bool accept(Parser *p, TokenKind k) {
    if (!at(p, k)) return false;
    next(p);
    return true;
}

static Span tok_span(const Parser *p, const Token *t) { return (Span){p->file, t->off, t->off + t->len}; }
static Span here(const Parser *p) { return tok_span(p, peek(p)); }

/* Where an unexpected INDENT is reported: at the first token of the
 * statement it indents, as clang points at a statement's first character. */
static Span indent_site(const Parser *p) {
    int i = p->pos + 1;
    return !p->fatal && i < p->count && p->toks[i].kind != TK_EOF ? tok_span(p, &p->toks[i]) : here(p);
}

/* Span of the previous token's end: where a missing token belongs. */
static Span after_prev(const Parser *p) {
    if (p->pos == 0) return here(p);
    const Token *t = &p->toks[p->pos - 1];
    return (Span){p->file, t->off + t->len, t->off + t->len};
}

/* Span of the token just consumed. */
static Span prev_span(const Parser *p) { return tok_span(p, &p->toks[p->pos > 0 ? p->pos - 1 : 0]); }

static const char *describe(Parser *p, const Token *t) {
    switch (t->kind) {
    case TK_NAME: return arena_printf(p->arena, "'%.*s'", (int)t->len, diag_file(p->diag, p->file)->text + t->off);
    case TK_NEWLINE: return "end of line";
    case TK_INDENT: return "indent";
    case TK_DEDENT: return "dedent";
    case TK_EOF: return "end of file";
    case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STRING: case TK_FSTRING: return token_kind_name(t->kind);
    default: return arena_printf(p->arena, "'%s'", token_kind_name(t->kind));
    }
}

PYKC_NORETURN static void fail(Parser *p) { longjmp(*p->recover, 1); }

/* Reports and abandons the statement. Where the parser stands on a
 * TK_ERROR the lexer has said what is wrong, so it only abandons. */
PYKC_NORETURN PYKC_PRINTF(3, 4) static void syntax_error(Parser *p, Span where, const char *fmt, ...) {
    if (at(p, TK_ERROR)) fail(p);
    va_list ap;
    va_start(ap, fmt);
    diag_report(p->diag, DIAG_ERROR, where, fmt, ap);
    va_end(ap);
    fail(p);
}

/* An error with a note that points at another place: the first of two. */
PYKC_NORETURN static void error_with_note(Parser *p, Span where, const char *message, Span other, const char *note) {
    diag_error(p->diag, where, "%s", message);
    diag_note(p->diag, other, "%s", note);
    fail(p);
}

static Span name_span_of(const Node *n) {
    return (Span){n->span.file, n->span.begin, n->span.begin + (uint32_t)strlen(n->name)};
}

PYKC_NORETURN static void unsupported(Parser *p, Span where, const char *what) {
    syntax_error(p, where, "%s not supported in kernels", what);
}

/* A construct outside the kernel language: refused in a kernel; in host
 * code, counted (the statement is then host code) and read on. */
static void outside_kernels(Parser *p, Span where, const char *what) {
    if (!p->host) unsupported(p, where, what);
    p->host_uses++;
}

static const Token *expect(Parser *p, TokenKind k, const char *context) {
    if (!at(p, k)) {
        Span where = at(p, TK_NEWLINE) || at(p, TK_EOF) ? after_prev(p) : here(p);
        syntax_error(p, where, "expected '%s' %s, found %s", token_kind_name(k), context, describe(p, peek(p)));
    }
    return next(p);
}

static const char *expect_name(Parser *p, const char *context, Span *span) {
    if (!at(p, TK_NAME)) {
        Span where = at(p, TK_NEWLINE) ? after_prev(p) : here(p);
        syntax_error(p, where, "expected a name %s, found %s", context, describe(p, peek(p)));
    }
    const Token *t = next(p);
    if (t->non_ascii && !p->host) syntax_error(p, tok_span(p, t), "non-ASCII identifiers are not supported in kernels");
    if (span) *span = tok_span(p, t);
    return arena_strndup(p->arena, diag_file(p->diag, p->file)->text + t->off, t->len);
}

static void enter(Parser *p) {
    if (++p->depth > PYKC_MAX_NESTING) {
        diag_error(p->diag, here(p), "expression nested too deeply (the limit is %d levels)", PYKC_MAX_NESTING);
        p->fatal = true;
        fail(p);
    }
}

static void leave(Parser *p) { p->depth--; }

/* ---- nodes ------------------------------------------------------------------- */

static Node *new_node(Parser *p, NodeKind kind, Span span) { return node_new(p->arena, kind, span); }

static int max_height(int h, const Node *n) { return n && n->height > h ? n->height : h; }

/* Sets n's height from its children and refuses trees that later passes
 * could not walk recursively. */
static Node *finish_expr(Parser *p, Node *n) {
    int h = 0;
    const Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->func, n->lower, n->upper, n->step};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) h = max_height(h, kids[i]);
    for (int i = 0; i < n->item_len; i++) h = max_height(h, n->items[i]);
    for (int i = 0; i < n->kwarg_len; i++) h = max_height(h, n->kwargs[i]);
    n->height = h + 1;
    if (n->height > PYKC_MAX_EXPR_HEIGHT)
        syntax_error(p, n->span, "expression too complex (its tree is deeper than %d levels)", PYKC_MAX_EXPR_HEIGHT);
    return n;
}

static void set_items(Node *n, const Vec *v) {
    n->items = (Node **)v->items;
    n->item_len = v->len;
}

/* A HostExpr: `what`, over the parts read (for the tree's height). */
static Node *host_expr(Parser *p, Span span, const char *what, const Vec *parts) {
    Node *n = new_node(p, ND_HOST_EXPR, span);
    n->name = what;
    if (parts) set_items(n, parts);
    return finish_expr(p, n);
}

static Node *host_expr1(Parser *p, Span span, const char *what, Node *part) {
    Vec parts = {0};
    vec_push(p->arena, &parts, part);
    return host_expr(p, span, what, &parts);
}

/* Whether n is a starred expression (host code's `*rest`). */
static bool is_starred(const Node *n) { return n->kind == ND_HOST_EXPR && strcmp(n->name, "*") == 0; }

/* Notes the module names that assigning to target binds (names, inside
 * tuples and lists, starred or not) for the top-level statement. */
static void note_bindings(Parser *p, const Node *target) {
    if (!p->bound || p->scope_depth > 0 || !target) return;
    if (target->kind == ND_NAME) {
        vec_push(p->arena, p->bound, (void *)target);
    } else if (target->kind == ND_TUPLE || target->kind == ND_LIST || is_starred(target)) {
        for (int i = 0; i < target->item_len; i++) note_bindings(p, target->items[i]);
    }
}

static Node *name_node(Parser *p, const char *name, Span span) {
    Node *n = new_node(p, ND_NAME, span);
    n->name = name;
    return finish_expr(p, n);
}

/* ---- expressions ------------------------------------------------------------ */

static Node *parse_test(Parser *p);
static Node *parse_expr(Parser *p);
static Node *parse_factor(Parser *p);
static Node *parse_primary(Parser *p);
static Node *parse_boolop(Parser *p, Op op);
static Node *parse_testlist(Parser *p);
static Node *parse_exprlist(Parser *p);
static Node *parse_call(Parser *p, Node *func);
static void check_target(Parser *p, const Node *t);

/* Whether a token of kind k can begin an expression. */
static bool starts_expression(TokenKind k) {
    switch (k) {
    case TK_NAME: case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STRING: case TK_FSTRING:
    case TK_LPAREN: case TK_LBRACKET: case TK_LBRACE: case TK_MINUS: case TK_PLUS: case TK_TILDE:
    case TK_NOT: case TK_LAMBDA: case TK_AWAIT: case TK_NONE: case TK_TRUE: case TK_FALSE:
    case TK_ELLIPSIS: case TK_STAR: case TK_ERROR:
        return true;
    default:
        return false;
    }
}

/* Completes the span of a display or comprehension from its open bracket,
 * skipping what is left of it (a kernel's refused construct). */
static Span rest_of_brackets_at(Parser *p, Span open) {
    int depth = 1;
    Span s = open;
    while (depth > 0 && !at(p, TK_NEWLINE) && !at(p, TK_EOF)) {
        TokenKind k = peek_kind(p);
        if (k == TK_LPAREN || k == TK_LBRACKET || k == TK_LBRACE) depth++;
        if (k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE) depth--;
        s = span_join(s, here(p));
        next(p);
    }
    return s;
}

/* star_expr: '*' expr  -- host code's */
static Node *parse_star_expr(Parser *p) {
    Span star = here(p);
    outside_kernels(p, star, "starred expressions are");
    next(p);
    enter(p);
    Node *e = parse_expr(p);
    leave(p);
    return host_expr1(p, span_join(star, e->span), "*", e);
}

/* test_or_star: test | star_expr */
static Node *parse_test_or_star(Parser *p) { return at(p, TK_STAR) ? parse_star_expr(p) : parse_test(p); }

static bool at_comp_for(const Parser *p) { return at(p, TK_FOR) || (at(p, TK_ASYNC) && peek_kind_at(p, 1) == TK_FOR); }

/* comp_for: ['async'] 'for' exprlist 'in' or_test [comp_iter]
 * comp_iter: comp_for | 'if' or_test [comp_iter]
 * -- host code's comprehensions; their parts go into parts. */
static void parse_comp_for(Parser *p, Vec *parts) {
    while (at_comp_for(p) || at(p, TK_IF)) {
        if (accept(p, TK_IF)) {
            vec_push(p->arena, parts, parse_boolop(p, OP_OR));
            continue;
        }
        accept(p, TK_ASYNC);
        next(p);
        Node *target = parse_exprlist(p);
        check_target(p, target);
        vec_push(p->arena, parts, target);
        expect(p, TK_IN, "after the comprehension's target");
        vec_push(p->arena, parts, parse_boolop(p, OP_OR));
    }
}

/* A comprehension after its first element (in parts), up to `close`: host
 * code's, refused in a kernel as `what`. */
static Node *parse_comprehension(Parser *p, Span open, Vec *parts, TokenKind close, const char *what) {
    if (!p->host) unsupported(p, rest_of_brackets_at(p, open), what);
    p->host_uses++;
    parse_comp_for(p, parts);
    const Token *end = expect(p, close, "to close the comprehension");
    return host_expr(p, span_join(open, tok_span(p, end)), "comprehension", parts);
}

/* Parses the elements of a bracketed display after its opening bracket, up
 * to the closing one, noting a comprehension. */
static void parse_display_items(Parser *p, TokenKind close, Vec *items, bool *is_comprehension) {
    *is_comprehension = false;
    while (!at(p, close)) {
        vec_push(p->arena, items, parse_test_or_star(p));
        if (at_comp_for(p)) {
            *is_comprehension = true;
            return;
        }
        if (!accept(p, TK_COMMA)) break;
    }
}

/* yield_expr: 'yield' ['from' test | testlist]  -- host code's */
static Node *parse_yield(Parser *p) {
    Span span = here(p);
    outside_kernels(p, span, "yield expressions are");
    next(p);
    Vec parts = {0};
    if (accept(p, TK_FROM) || starts_expression(peek_kind(p))) {
        Node *value = p->toks[p->pos - 1].kind == TK_FROM ? parse_test(p) : parse_testlist(p);
        vec_push(p->arena, &parts, value);
        span = span_join(span, value->span);
    }
    return host_expr(p, span, "yield", &parts);
}

/* atom: '(' [yield_expr | test_or_star (',' test_or_star)* [','] | test comp_for] ')' */
static Node *parse_paren(Parser *p) {
    const Token *open = next(p);
    Span span = tok_span(p, open);
    if (at(p, TK_RPAREN)) {
        Node *t = new_node(p, ND_TUPLE, span_join(span, tok_span(p, next(p))));
        t->paren = true;
        return finish_expr(p, t);
    }
    if (at(p, TK_YIELD)) {
        Node *y = parse_yield(p);
        expect(p, TK_RPAREN, "to close '('");
        return y;
    }
    Node *first = parse_test_or_star(p);
    if (at_comp_for(p)) {
        Vec parts = {0};
        vec_push(p->arena, &parts, first);
        return parse_comprehension(p, span, &parts, TK_RPAREN, "generator expressions are");
    }
    if (!at(p, TK_COMMA)) {
        expect(p, TK_RPAREN, "to close '('");
        return first;
    }
    Vec items = {0};
    vec_push(p->arena, &items, first);
    while (accept(p, TK_COMMA) && !at(p, TK_RPAREN)) vec_push(p->arena, &items, parse_test_or_star(p));
    const Token *close = expect(p, TK_RPAREN, "to close the tuple");
    Node *t = new_node(p, ND_TUPLE, span_join(span, tok_span(p, close)));
    t->paren = true;
    set_items(t, &items);
    return finish_expr(p, t);
}

/* atom: '[' [testlist | test comp_for] ']' -- a list display; kernels may
 * not build lists, but module constants (np.array([...])) and decorators
 * may use them. */
static Node *parse_list(Parser *p) {
    Span open = tok_span(p, next(p));
    Vec items = {0};
    bool comp;
    parse_display_items(p, TK_RBRACKET, &items, &comp);
    if (comp) return parse_comprehension(p, open, &items, TK_RBRACKET, "list comprehensions are");
    const Token *close = expect(p, TK_RBRACKET, "to close the list");
    Node *l = new_node(p, ND_LIST, span_join(open, tok_span(p, close)));
    if (!p->host && p->func_depth > 0) unsupported(p, l->span, "list displays are");
    set_items(l, &items);
    return finish_expr(p, l);
}

/* A dict or set display in a kernel: refused, named by what it is. */
PYKC_NORETURN static void refuse_brace(Parser *p) {
    Span open = here(p);
    next(p);
    if (at(p, TK_RBRACE)) unsupported(p, span_join(open, here(p)), "dict displays are");
    const char *what = "set displays are";
    if (accept(p, TK_DSTAR)) {
        what = "dict displays are";
    } else {
        parse_test_or_star(p);
        if (accept(p, TK_COLON)) {
            parse_test(p);
            what = at(p, TK_FOR) ? "dict comprehensions are" : "dict displays are";
        } else if (at(p, TK_FOR)) {
            what = "set comprehensions are";
        }
    }
    unsupported(p, rest_of_brackets_at(p, open), what);
}

/* atom: '{' [dictorsetmaker] '}'
 * dictorsetmaker: (test ':' test | '**' expr) (comp_for | (',' ...)* [','])
 *               | test_or_star (comp_for | (',' test_or_star)* [','])
 * -- host code's dicts and sets */
static Node *parse_brace(Parser *p) {
    if (!p->host) refuse_brace(p);
    p->host_uses++;
    Span open = tok_span(p, next(p));
    Vec parts = {0};
    for (bool first = true; !at(p, TK_RBRACE); first = false) {
        if (accept(p, TK_DSTAR)) {
            vec_push(p->arena, &parts, parse_expr(p));
        } else {
            vec_push(p->arena, &parts, parse_test_or_star(p));
            if (accept(p, TK_COLON)) vec_push(p->arena, &parts, parse_test(p));
        }
        if (first && at_comp_for(p)) {
            parse_comp_for(p, &parts);
            break;
        }
        if (!accept(p, TK_COMMA)) break;
    }
    const Token *close = expect(p, TK_RBRACE, "to close the display");
    return host_expr(p, span_join(open, tok_span(p, close)), "display", &parts);
}

/* The expressions of an f-string's replacement fields (host code's), each
 * read as the testlist it is, its errors the statement's. */
static void parse_fstring_fields(Parser *p, const Token *t) {
    for (int i = 0; i < t->v.s.field_count; i++) {
        Parser sub = *p;
        sub.toks = t->v.s.fields[i].tokens;
        sub.count = t->v.s.fields[i].count;
        sub.pos = 0;
        if (at(&sub, TK_YIELD)) parse_yield(&sub);
        else parse_testlist(&sub);
        if (!at(&sub, TK_NEWLINE))
            syntax_error(&sub, here(&sub), "expected '}' after the f-string's expression, found %s", describe(&sub, peek(&sub)));
        p->host_uses = sub.host_uses;
    }
}

/* The span of the \N{...} escape that starts at off. */
static Span named_escape_span(const Parser *p, uint32_t off) {
    const SourceFile *f = diag_file(p->diag, p->file);
    uint32_t end = off;
    while (end < f->size && f->text[end] != '}') end++;
    return (Span){p->file, off, end < f->size ? end + 1 : end};
}

/* STRING+ : adjacent literals concatenate, as in Python */
static Node *parse_strings(Parser *p) {
    const Token *first = peek(p);
    Span span = tok_span(p, first);
    size_t len = 0;
    int n = 0;
    bool bytes = first->v.s.bytes;
    for (int i = p->pos; i < p->count && (p->toks[i].kind == TK_STRING || p->toks[i].kind == TK_FSTRING); i++, n++) {
        const Token *t = &p->toks[i];
        if (t->kind == TK_FSTRING) outside_kernels(p, tok_span(p, t), "f-strings are");
        if (t->v.s.named_escape && !p->host)
            syntax_error(p, named_escape_span(p, t->v.s.named_escape - 1), "\\N{...} escapes are not supported in kernels");
        if (t->v.s.bytes != bytes) syntax_error(p, tok_span(p, t), "cannot mix bytes and nonbytes literals");
        len += t->v.s.len;
    }
    char *data = arena_alloc(p->arena, len + 1);
    size_t at_byte = 0;
    for (int i = 0; i < n; i++) {
        const Token *t = next(p);
        if (t->kind == TK_FSTRING) parse_fstring_fields(p, t);
        memcpy(data + at_byte, t->v.s.data, t->v.s.len);
        at_byte += t->v.s.len;
        span = span_join(span, tok_span(p, t));
    }
    Node *s = new_node(p, ND_STR, span);
    s->v.s.data = data;
    s->v.s.len = len;
    s->v.s.bytes = bytes;
    return finish_expr(p, s);
}

static Node *parse_name(Parser *p) {
    Span span;
    const char *name = expect_name(p, "", &span);
    Node *n = new_node(p, ND_NAME, span);
    n->name = name;
    return finish_expr(p, n);
}

static Node *parse_lambda(Parser *p);

/* atom: '(' ... ')' | '[' ... ']' | '{' ... '}' | NAME | NUMBER | STRING+
 *     | '...' | 'None' | 'True' | 'False'
 *     | 'await' primary | lambdef | yield_expr | star_expr  -- host code's */
static Node *parse_atom(Parser *p) {
    const Token *t = peek(p);
    Span span = tok_span(p, t);
    Node *n;
    switch (t->kind) {
    case TK_LPAREN: return parse_paren(p);
    case TK_LBRACKET: return parse_list(p);
    case TK_LBRACE: return parse_brace(p);
    case TK_NAME: return parse_name(p);
    case TK_STRING: case TK_FSTRING: return parse_strings(p);
    case TK_INT:
        n = new_node(p, ND_INT, span);
        n->v.i.value = t->v.i.value;
        n->v.i.overflow = t->v.i.overflow;
        break;
    case TK_FLOAT: case TK_IMAG:
        n = new_node(p, t->kind == TK_FLOAT ? ND_FLOAT : ND_IMAG, span);
        n->v.f = t->v.f;
        break;
    case TK_TRUE: case TK_FALSE:
        n = new_node(p, ND_BOOL, span);
        n->v.b = t->kind == TK_TRUE;
        break;
    case TK_NONE: n = new_node(p, ND_NONE, span); break;
    case TK_ELLIPSIS: n = new_node(p, ND_ELLIPSIS, span); break;
    case TK_LAMBDA: return parse_lambda(p);
    case TK_YIELD: return parse_yield(p);
    case TK_AWAIT: {
        outside_kernels(p, span, "await expressions are");
        next(p);
        enter(p);
        Node *value = parse_primary(p);
        leave(p);
        return host_expr1(p, span_join(span, value->span), "await", value);
    }
    case TK_STAR: return parse_star_expr(p);
    case TK_INDENT: syntax_error(p, indent_site(p), "unexpected indent");
    default:
        syntax_error(p, at(p, TK_NEWLINE) || at(p, TK_EOF) ? after_prev(p) : span, "expected an expression, found %s",
                     describe(p, t));
    }
    next(p);
    return finish_expr(p, n);
}

/* argument: test [comp_for] | NAME '=' test | '*' test | '**' test
 * (the last three forms host code's) */
static void parse_argument(Parser *p, Vec *args, Vec *kwargs, Span open, bool *unpacked_keywords) {
    if (at(p, TK_STAR) || at(p, TK_DSTAR)) {
        bool keywords = at(p, TK_DSTAR);
        outside_kernels(p, here(p), keywords ? "keyword argument unpacking (**kwargs) is" : "argument unpacking (*args) is");
        Span star = tok_span(p, next(p));
        Node *value = parse_test(p);
        vec_push(p->arena, args, host_expr1(p, span_join(star, value->span), keywords ? "**" : "*", value));
        *unpacked_keywords = *unpacked_keywords || keywords;
        return;
    }
    if (at(p, TK_NAME) && peek_kind_at(p, 1) == TK_ASSIGN) {
        Span name_span;
        const char *name = expect_name(p, "", &name_span);
        next(p);
        Node *kw = new_node(p, ND_KEYWORD, name_span);
        kw->name = name;
        kw->rhs = parse_test(p);
        kw->span = span_join(name_span, kw->rhs->span);
        for (int i = 0; i < kwargs->len; i++)
            if (strcmp(((Node *)kwargs->items[i])->name, name) == 0)
                error_with_note(p, name_span, arena_printf(p->arena, "keyword argument repeated: %s", name),
                                name_span_of(kwargs->items[i]), "given first here");
        vec_push(p->arena, kwargs, finish_expr(p, kw));
        return;
    }
    Node *arg = parse_test(p);
    if (at_comp_for(p)) {
        Vec parts = {0};
        vec_push(p->arena, &parts, arg);
        if (!p->host) unsupported(p, rest_of_brackets_at(p, open), "generator expressions are");
        p->host_uses++;
        parse_comp_for(p, &parts);
        arg = host_expr(p, arg->span, "generator", &parts);
    }
    if (*unpacked_keywords) syntax_error(p, arg->span, "positional argument follows keyword argument unpacking");
    if (kwargs->len > 0) syntax_error(p, arg->span, "positional argument follows keyword argument");
    vec_push(p->arena, args, arg);
}

/* trailer: '(' [arglist] ')' */
static Node *parse_call(Parser *p, Node *func) {
    Span open = tok_span(p, next(p));
    Node *call = new_node(p, ND_CALL, func->span);
    Vec args = {0}, kwargs = {0};
    bool unpacked_keywords = false;
    while (!at(p, TK_RPAREN)) {
        parse_argument(p, &args, &kwargs, open, &unpacked_keywords);
        if (!accept(p, TK_COMMA)) break;
    }
    call->span = span_join(func->span, tok_span(p, expect(p, TK_RPAREN, "to close the call")));
    call->func = func;
    set_items(call, &args);
    call->kwargs = (Node **)kwargs.items;
    call->kwarg_len = kwargs.len;
    return finish_expr(p, call);
}

/* subscript: test | [test] ':' [test] [':' [test]] */
static Node *parse_subscript(Parser *p) {
    if (at(p, TK_STAR)) return parse_star_expr(p);
    Node *lower = NULL;
    if (!at(p, TK_COLON)) {
        lower = parse_test(p);
        if (!at(p, TK_COLON)) return lower;
    }
    Span span = lower ? lower->span : here(p);
    Node *s = new_node(p, ND_SLICE, span);
    s->lower = lower;
    span = span_join(span, tok_span(p, next(p)));
    if (!at(p, TK_COLON) && !at(p, TK_COMMA) && !at(p, TK_RBRACKET)) {
        s->upper = parse_test(p);
        span = span_join(span, s->upper->span);
    }
    if (at(p, TK_COLON)) {
        span = span_join(span, tok_span(p, next(p)));
        if (!at(p, TK_COMMA) && !at(p, TK_RBRACKET)) {
            s->step = parse_test(p);
            span = span_join(span, s->step->span);
        }
    }
    s->span = span;
    return finish_expr(p, s);
}

/* trailer: '[' subscriptlist ']' ; several subscripts make a tuple index */
static Node *parse_index(Parser *p, Node *value) {
    next(p);
    Node *first = parse_subscript(p);
    Node *index = first;
    if (at(p, TK_COMMA)) {
        Vec items = {0};
        vec_push(p->arena, &items, first);
        Span span = first->span;
        while (accept(p, TK_COMMA)) {
            span = span_join(span, prev_span(p)); /* a trailing comma too */
            if (at(p, TK_RBRACKET)) break;
            Node *more = parse_subscript(p);
            vec_push(p->arena, &items, more);
            span = span_join(span, more->span);
        }
        index = new_node(p, ND_TUPLE, span);
        set_items(index, &items);
        finish_expr(p, index);
    }
    const Token *close = expect(p, TK_RBRACKET, "to close the subscript");
    Node *n = new_node(p, ND_SUBSCRIPT, span_join(value->span, tok_span(p, close)));
    n->lhs = value;
    n->rhs = index;
    return finish_expr(p, n);
}

/* primary: atom trailer* ; trailer: call | subscript | '.' NAME */
static Node *parse_primary(Parser *p) {
    Node *n = parse_atom(p);
    for (;;) {
        if (at(p, TK_LPAREN)) {
            n = parse_call(p, n);
        } else if (at(p, TK_LBRACKET)) {
            n = parse_index(p, n);
        } else if (accept(p, TK_DOT)) {
            Span name_span;
            const char *name = expect_name(p, "after '.'", &name_span);
            Node *attr = new_node(p, ND_ATTR, span_join(n->span, name_span));
            attr->at = name_span;
            attr->lhs = n;
            attr->name = name;
            n = finish_expr(p, attr);
        } else {
            return n;
        }
    }
}

/* power: primary ['**' factor] */
static Node *parse_power(Parser *p) {
    Node *base = parse_primary(p);
    if (!at(p, TK_DSTAR)) return base;
    Span op_span = tok_span(p, next(p));
    enter(p); /* `2**2**2...` recurses here */
    Node *exp = parse_factor(p);
    leave(p);
    Node *n = new_node(p, ND_BINOP, span_join(base->span, exp->span));
    n->op = OP_POW;
    n->at = op_span;
    n->lhs = base;
    n->rhs = exp;
    return finish_expr(p, n);
}

/* factor: ('+' | '-' | '~') factor | power */
static Node *parse_factor(Parser *p) {
    Op op = at(p, TK_PLUS) ? OP_POS : at(p, TK_MINUS) ? OP_NEG : at(p, TK_TILDE) ? OP_INVERT : OP_NONE_;
    if (op == OP_NONE_) return parse_power(p);
    Span span = tok_span(p, next(p));
    enter(p);
    Node *operand = parse_factor(p);
    leave(p);
    Node *n = new_node(p, ND_UNARY, span_join(span, operand->span));
    n->op = op;
    n->rhs = operand;
    return finish_expr(p, n);
}

/* Binary operators by priority, lowest first, as Lua's parser keeps them:
 * expr: xor_expr ('|' xor_expr)* ... term: factor (('*'|'/'|'//'|'%'|'@') factor)* */
static const struct { TokenKind tok; Op op; int prec; } binary_ops[] = {
    {TK_PIPE, OP_BITOR, 1},   {TK_CARET, OP_BITXOR, 2}, {TK_AMP, OP_BITAND, 3},
    {TK_SHL, OP_LSHIFT, 4},   {TK_SHR, OP_RSHIFT, 4},   {TK_PLUS, OP_ADD, 5},
    {TK_MINUS, OP_SUB, 5},    {TK_STAR, OP_MUL, 6},     {TK_SLASH, OP_DIV, 6},
    {TK_DSLASH, OP_FLOORDIV, 6}, {TK_PERCENT, OP_MOD, 6}, {TK_AT, OP_MATMUL, 6},
};

static int binary_op_at(const Parser *p, Op *op) {
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (at(p, binary_ops[i].tok)) {
            *op = binary_ops[i].op;
            return binary_ops[i].prec;
        }
    return 0;
}

static Node *parse_binary(Parser *p, int min_prec) {
    Node *lhs = parse_factor(p);
    Op op;
    int prec;
    while ((prec = binary_op_at(p, &op)) >= min_prec && prec > 0) {
        Span op_span = tok_span(p, next(p));
        Node *rhs = prec < 6 ? parse_binary(p, prec + 1) : parse_factor(p);
        Node *n = new_node(p, ND_BINOP, span_join(lhs->span, rhs->span));
        n->op = op;
        n->at = op_span;
        n->lhs = lhs;
        n->rhs = rhs;
        lhs = finish_expr(p, n);
    }
    return lhs;
}

static Node *parse_expr(Parser *p) { return parse_binary(p, 1); }

/* comp_op: '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in' | 'is' ['not'] */
static Op comparison_op(Parser *p) {
    switch (peek_kind(p)) {
    case TK_LT: next(p); return OP_LT;
    case TK_GT: next(p); return OP_GT;
    case TK_EQEQ: next(p); return OP_EQ;
    case TK_GE: next(p); return OP_GE;
    case TK_LE: next(p); return OP_LE;
    case TK_NE: next(p); return OP_NE;
    case TK_IN: next(p); return OP_IN;
    case TK_IS: next(p); return accept(p, TK_NOT) ? OP_ISNOT : OP_IS;
    case TK_NOT:
        if (peek_kind_at(p, 1) != TK_IN) return OP_NONE_;
        next(p);
        next(p);
        return OP_NOTIN;
    default: return OP_NONE_;
    }
}

/* The span of the comparison operator just read, from its first token. */
static Span op_read_since(const Parser *p, Span first) {
    const Token *last = &p->toks[p->pos - 1];
    return (Span){p->file, first.begin, last->off + last->len};
}

/* comparison: expr (comp_op expr)* ; a chain is one Compare node */
static Node *parse_comparison(Parser *p) {
    Node *first = parse_expr(p);
    Span op_first = here(p);
    Op op = comparison_op(p);
    if (op == OP_NONE_) return first;
    Vec operands = {0};
    int nops = 0, cap = 4;
    Op *ops = ARENA_ARRAY(p->arena, Op, cap);
    Span *op_at = ARENA_ARRAY(p->arena, Span, cap);
    vec_push(p->arena, &operands, first);
    Span span = first->span;
    do {
        if (nops == cap) {
            Op *grown = ARENA_ARRAY(p->arena, Op, cap * 2);
            memcpy(grown, ops, sizeof(Op) * (size_t)cap);
            ops = grown;
            Span *grown_at = ARENA_ARRAY(p->arena, Span, cap * 2);
            memcpy(grown_at, op_at, sizeof(Span) * (size_t)cap);
            op_at = grown_at;
            cap *= 2;
        }
        op_at[nops] = op_read_since(p, op_first);
        ops[nops++] = op;
        Node *rhs = parse_expr(p);
        vec_push(p->arena, &operands, rhs);
        span = span_join(span, rhs->span);
        op_first = here(p);
    } while ((op = comparison_op(p)) != OP_NONE_);
    Node *n = new_node(p, ND_COMPARE, span);
    n->ops = ops;
    n->op_at = op_at;
    set_items(n, &operands);
    return finish_expr(p, n);
}

/* not_test: 'not' not_test | comparison */
static Node *parse_not_test(Parser *p) {
    if (!at(p, TK_NOT)) return parse_comparison(p);
    Span span = tok_span(p, next(p));
    enter(p);
    Node *operand = parse_not_test(p);
    leave(p);
    Node *n = new_node(p, ND_UNARY, span_join(span, operand->span));
    n->op = OP_NOT;
    n->rhs = operand;
    return finish_expr(p, n);
}

/* and_test: not_test ('and' not_test)* ; or_test: and_test ('or' and_test)* */
static Node *parse_boolop(Parser *p, Op op) {
    TokenKind tok = op == OP_OR ? TK_OR : TK_AND;
    Node *first = op == OP_OR ? parse_boolop(p, OP_AND) : parse_not_test(p);
    if (!at(p, tok)) return first;
    Vec operands = {0};
    vec_push(p->arena, &operands, first);
    Span span = first->span;
    while (accept(p, tok)) {
        Node *more = op == OP_OR ? parse_boolop(p, OP_AND) : parse_not_test(p);
        vec_push(p->arena, &operands, more);
        span = span_join(span, more->span);
    }
    Node *n = new_node(p, ND_BOOLOP, span);
    n->op = op;
    set_items(n, &operands);
    return finish_expr(p, n);
}

/* test: or_test ['if' or_test 'else' test] | lambdef | NAME ':=' test
 * (the last two host code's) */
static Node *parse_test(Parser *p) {
    if (at(p, TK_LAMBDA)) return parse_lambda(p);
    enter(p);
    Node *n = parse_boolop(p, OP_OR);
    if (at(p, TK_IF)) {
        next(p);
        Node *cond = parse_boolop(p, OP_OR);
        if (!at(p, TK_ELSE))
            syntax_error(p, at(p, TK_NEWLINE) ? after_prev(p) : here(p),
                         "expected 'else' after 'if' expression, found %s", describe(p, peek(p)));
        next(p);
        Node *els = parse_test(p);
        Node *ifexp = new_node(p, ND_IFEXP, span_join(n->span, els->span));
        ifexp->cond = cond;
        ifexp->then = n;
        ifexp->els = els;
        n = finish_expr(p, ifexp);
    }
    if (at(p, TK_WALRUS)) {
        outside_kernels(p, here(p), "assignment expressions (:=) are");
        next(p);
        if (n->kind != ND_NAME) syntax_error(p, n->span, "the target of ':=' must be a name");
        note_bindings(p, n);
        Vec parts = {0};
        vec_push(p->arena, &parts, n);
        Node *value = parse_test(p);
        vec_push(p->arena, &parts, value);
        n = host_expr(p, span_join(n->span, value->span), ":=", &parts);
    }
    leave(p);
    return n;
}

static Node *parse_param(Parser *p, bool annotations);
static void parse_params(Parser *p, TokenKind close, bool annotations, Vec *params);

/* lambdef: 'lambda' [varargslist] ':' test
 * In a kernel a Lambda over a FunctionDef named <lambda> whose body returns
 * the expression, as CPython compiles it; in host code a HostExpr. */
static Node *parse_lambda(Parser *p) {
    Span span = here(p);
    next(p);
    Vec parts = {0};
    parse_params(p, TK_COLON, false, &parts);
    expect(p, TK_COLON, "after the lambda's parameters");
    p->func_depth++;
    p->scope_depth++;
    Node *body = parse_test(p);
    p->func_depth--;
    p->scope_depth--;
    span = span_join(span, body->span);
    if (p->host) {
        p->host_uses++;
        vec_push(p->arena, &parts, body);
        return host_expr(p, span, "lambda", &parts);
    }
    Node *ret = new_node(p, ND_RETURN, body->span), *def = new_node(p, ND_FUNCDEF, span);
    ret->items = ARENA_ARRAY(p->arena, Node *, 1);
    ret->items[0] = body;
    ret->item_len = 1;
    def->name = "<lambda>";
    set_items(def, &parts);
    def->body = ARENA_ARRAY(p->arena, Node *, 1);
    def->body[0] = ret;
    def->body_len = 1;
    def->height = body->height + 1;
    Node *n = new_node(p, ND_LAMBDA, span);
    n->func = def;
    return finish_expr(p, n);
}

/* testlist: test (',' test)* [','] ; several make a Tuple without parens */
static Node *parse_testlist(Parser *p) {
    Node *first = parse_test_or_star(p);
    if (!at(p, TK_COMMA)) return first;
    Vec items = {0};
    vec_push(p->arena, &items, first);
    Span span = first->span;
    while (accept(p, TK_COMMA)) {
        span = span_join(span, prev_span(p)); /* a trailing comma too, as Python's */
        if (at(p, TK_NEWLINE) || at(p, TK_ASSIGN) || at(p, TK_SEMI) || at(p, TK_COLON) || at(p, TK_EOF) ||
            at(p, TK_RPAREN) || at(p, TK_IN) || (peek_kind(p) >= TK_PLUSEQ && peek_kind(p) <= TK_ATEQ))
            break;
        Node *more = parse_test_or_star(p);
        vec_push(p->arena, &items, more);
        span = span_join(span, more->span);
    }
    Node *t = new_node(p, ND_TUPLE, span);
    set_items(t, &items);
    return finish_expr(p, t);
}

static Node *parse_expr_or_star(Parser *p) { return at(p, TK_STAR) ? parse_star_expr(p) : parse_expr(p); }

/* exprlist: (expr | star_expr) (',' (expr | star_expr))* [','] -- for-loop
 * targets, which stop at 'in' */
static Node *parse_exprlist(Parser *p) {
    Node *first = parse_expr_or_star(p);
    if (!at(p, TK_COMMA)) return first;
    Vec items = {0};
    vec_push(p->arena, &items, first);
    Span span = first->span;
    while (accept(p, TK_COMMA)) {
        span = span_join(span, prev_span(p));
        if (at(p, TK_IN) || at(p, TK_ASSIGN) || at(p, TK_NEWLINE) || at(p, TK_SEMI) || at(p, TK_COLON)) break;
        Node *more = parse_expr_or_star(p);
        vec_push(p->arena, &items, more);
        span = span_join(span, more->span);
    }
    Node *t = new_node(p, ND_TUPLE, span);
    set_items(t, &items);
    return finish_expr(p, t);
}

/* ---- statements ------------------------------------------------------------- */

static void parse_statement(Parser *p, Vec *out);
static void parse_block_into(Parser *p, Vec *out);

static const char *target_problem(const Node *t) {
    if (is_starred(t)) return target_problem(t->items[0]);
    switch (t->kind) {
    case ND_NAME: case ND_ATTR: case ND_SUBSCRIPT: return NULL;
    case ND_TUPLE: case ND_LIST:
        for (int i = 0; i < t->item_len; i++) {
            const char *why = target_problem(t->items[i]);
            if (why) return why;
        }
        return t->item_len == 0 && t->kind == ND_TUPLE ? "cannot assign to ()" : NULL;
    case ND_CALL: return "cannot assign to a function call";
    case ND_INT: case ND_FLOAT: case ND_IMAG: case ND_STR: case ND_BOOL: case ND_NONE: case ND_ELLIPSIS:
        return "cannot assign to a literal";
    case ND_COMPARE: return "cannot assign to a comparison";
    case ND_IFEXP: return "cannot assign to a conditional expression";
    default: return "cannot assign to an expression";
    }
}

static const Node *bad_target(const Node *t) {
    if (is_starred(t)) return bad_target(t->items[0]);
    if (t->kind == ND_TUPLE || t->kind == ND_LIST) {
        for (int i = 0; i < t->item_len; i++) {
            const Node *bad = bad_target(t->items[i]);
            if (bad) return bad;
        }
        return t->item_len == 0 && t->kind == ND_TUPLE ? t : NULL;
    }
    return target_problem(t) ? t : NULL;
}

static void check_target(Parser *p, const Node *t) {
    const Node *bad = bad_target(t);
    if (bad) syntax_error(p, bad->span, "%s", target_problem(bad));
}

static Op augassign_op(TokenKind k) {
    switch (k) {
    case TK_PLUSEQ: return OP_ADD;
    case TK_MINUSEQ: return OP_SUB;
    case TK_STAREQ: return OP_MUL;
    case TK_SLASHEQ: return OP_DIV;
    case TK_DSLASHEQ: return OP_FLOORDIV;
    case TK_PERCENTEQ: return OP_MOD;
    case TK_DSTAREQ: return OP_POW;
    case TK_AMPEQ: return OP_BITAND;
    case TK_PIPEEQ: return OP_BITOR;
    case TK_CARETEQ: return OP_BITXOR;
    case TK_SHLEQ: return OP_LSHIFT;
    case TK_SHREQ: return OP_RSHIFT;
    case TK_ATEQ: return OP_MATMUL;
    default: return OP_NONE_;
    }
}

/* The value of an assignment: testlist, or in host code yield_expr. */
static Node *parse_value(Parser *p) { return at(p, TK_YIELD) ? parse_yield(p) : parse_testlist(p); }

/* expr_stmt: testlist (annassign | augassign value | ('=' value)*)
 * annassign: ':' test ['=' value] ; value: testlist | yield_expr */
static Node *parse_expr_stmt(Parser *p) {
    Node *first = parse_testlist(p);
    if (at(p, TK_COLON)) {
        next(p);
        if (first->kind != ND_NAME && first->kind != ND_ATTR && first->kind != ND_SUBSCRIPT)
            syntax_error(p, first->span, "only a single target (not %s) can be annotated",
                         first->kind == ND_TUPLE ? "a tuple" : "an expression");
        Node *n = new_node(p, ND_ANNASSIGN, first->span);
        n->lhs = first;
        n->annotation = parse_test(p);
        n->span = span_join(n->span, n->annotation->span);
        if (accept(p, TK_ASSIGN)) {
            n->rhs = parse_value(p);
            n->span = span_join(n->span, n->rhs->span);
            note_bindings(p, first);
        }
        return n;
    }
    Op aug = augassign_op(peek_kind(p));
    if (aug != OP_NONE_) {
        Span op_span = tok_span(p, next(p));
        if (first->kind != ND_NAME && first->kind != ND_ATTR && first->kind != ND_SUBSCRIPT)
            syntax_error(p, first->span, "illegal target for augmented assignment");
        note_bindings(p, first);
        Node *n = new_node(p, ND_AUGASSIGN, first->span);
        n->op = aug;
        n->at = op_span;
        n->lhs = first;
        n->rhs = parse_value(p);
        n->span = span_join(n->span, n->rhs->span);
        return n;
    }
    if (!at(p, TK_ASSIGN)) {
        Node *n = new_node(p, ND_EXPR_STMT, first->span);
        n->rhs = first;
        return n;
    }
    Vec targets = {0};
    Node *value = first;
    while (accept(p, TK_ASSIGN)) {
        check_target(p, value);
        note_bindings(p, value);
        vec_push(p->arena, &targets, value);
        value = parse_value(p);
    }
    Node *n = new_node(p, ND_ASSIGN, span_join(first->span, value->span));
    set_items(n, &targets);
    n->rhs = value;
    return n;
}

/* dotted_name: NAME ('.' NAME)* */
static const char *parse_dotted_name(Parser *p, Span *span) {
    Span s;
    const char *name = expect_name(p, "in import", &s);
    while (accept(p, TK_DOT)) {
        Span more;
        const char *part = expect_name(p, "after '.'", &more);
        name = arena_printf(p->arena, "%s.%s", name, part);
        s = span_join(s, more);
    }
    *span = s;
    return name;
}

static Node *parse_alias(Parser *p, bool dotted) {
    Span span;
    const char *name = dotted ? parse_dotted_name(p, &span) : expect_name(p, "in import", &span);
    Node *a = new_node(p, ND_ALIAS, span);
    a->name = name;
    if (accept(p, TK_AS)) {
        Span as_span;
        a->asname = expect_name(p, "after 'as'", &as_span);
        a->span = span_join(span, as_span);
    }
    return a;
}

static void check_import_place(Parser *p, Span where) {
    if (!p->host && p->func_depth > 0) syntax_error(p, where, "import statements are only supported at module level");
}

/* An import at module scope that binds `name` to the module or function
 * `path`: the names that reach numba.cuda.jit are noted (for decorators),
 * and the name among those the statement binds. */
static void note_import(Parser *p, const char *name, const char *path, Span at_span) {
    if (p->scope_depth > 0) return;
    const char *jit = NULL;
    if (!strcmp(path, "numba")) jit = arena_printf(p->arena, "%s.cuda.jit", name);
    else if (!strcmp(path, "numba.cuda")) jit = arena_printf(p->arena, "%s.jit", name);
    else if (!strcmp(path, "numba.cuda.jit")) jit = name;
    if (jit) vec_push(p->arena, &p->jit_names, (void *)jit);
    note_bindings(p, name_node(p, name, at_span));
}

/* import_name: 'import' dotted_as_name (',' dotted_as_name)* */
static Node *parse_import(Parser *p) {
    Span span = here(p);
    check_import_place(p, span);
    next(p);
    Vec names = {0};
    do {
        Node *a = parse_alias(p, true);
        vec_push(p->arena, &names, a);
        /* `import numba.cuda` binds numba; `import numba.cuda as c` binds c */
        const char *dot = strchr(a->name, '.');
        const char *bound = a->asname ? a->asname : dot ? arena_strndup(p->arena, a->name, (size_t)(dot - a->name)) : a->name;
        note_import(p, bound, a->asname ? a->name : bound, a->span);
    } while (accept(p, TK_COMMA));
    Node *n = new_node(p, ND_IMPORT, span_join(span, ((Node *)names.items[names.len - 1])->span));
    set_items(n, &names);
    return n;
}

/* import_from: 'from' ('.'* dotted_name | '.'+) 'import'
 *              ('*' | '(' import_as_names ')' | import_as_names) */
static Node *parse_import_from(Parser *p) {
    Span span = here(p);
    check_import_place(p, span);
    next(p);
    Node *n = new_node(p, ND_IMPORT_FROM, span);
    for (;;) {
        if (accept(p, TK_DOT)) n->level++;
        else if (accept(p, TK_ELLIPSIS)) n->level += 3;
        else break;
    }
    if (n->level == 0 || at(p, TK_NAME)) {
        Span name_span;
        n->name = parse_dotted_name(p, &name_span);
        n->lhs = new_node(p, ND_NAME, name_span); /* where errors about the module point */
        n->lhs->name = n->name;
    }
    expect(p, TK_IMPORT, "in 'from' import");
    if (at(p, TK_STAR)) {
        n->star = true;
        n->span = span_join(span, tok_span(p, next(p)));
        return n;
    }
    bool paren = accept(p, TK_LPAREN);
    Vec names = {0};
    do {
        if (paren && at(p, TK_RPAREN)) break;
        vec_push(p->arena, &names, parse_alias(p, false));
    } while (accept(p, TK_COMMA));
    if (paren) n->span = span_join(span, tok_span(p, expect(p, TK_RPAREN, "to close the import list")));
    else if (names.len == 0) syntax_error(p, here(p), "expected a name to import");
    else n->span = span_join(span, ((Node *)names.items[names.len - 1])->span);
    if (names.len == 0) syntax_error(p, n->span, "expected a name to import");
    set_items(n, &names);
    for (int i = 0; i < names.len && n->name && n->level == 0; i++) {
        Node *a = names.items[i];
        note_import(p, a->asname ? a->asname : a->name, arena_printf(p->arena, "%s.%s", n->name, a->name), a->span);
    }
    return n;
}

static Node *parse_keyword_stmt(Parser *p, NodeKind kind) {
    return new_node(p, kind, tok_span(p, next(p)));
}

/* return_stmt: 'return' [testlist] */
static Node *parse_return(Parser *p) {
    Node *n = parse_keyword_stmt(p, ND_RETURN);
    if (p->func_depth == 0) syntax_error(p, n->span, "'return' outside function");
    if (!at(p, TK_NEWLINE) && !at(p, TK_SEMI)) {
        Vec value = {0};
        vec_push(p->arena, &value, parse_testlist(p));
        set_items(n, &value);
        n->span = span_join(n->span, n->items[0]->span);
    }
    return n;
}

/* assert_stmt: 'assert' test [',' test] */
static Node *parse_assert(Parser *p) {
    Node *n = parse_keyword_stmt(p, ND_ASSERT);
    n->cond = parse_test(p);
    n->span = span_join(n->span, n->cond->span);
    if (accept(p, TK_COMMA)) {
        n->then = parse_test(p);
        n->span = span_join(n->span, n->then->span);
    }
    return n;
}

/* raise_stmt: 'raise' [test ['from' test]] */
static Node *parse_raise(Parser *p) {
    Node *n = parse_keyword_stmt(p, ND_RAISE);
    if (!at(p, TK_NEWLINE) && !at(p, TK_SEMI)) {
        n->rhs = parse_test(p);
        n->span = span_join(n->span, n->rhs->span);
        if (at(p, TK_FROM)) {
            outside_kernels(p, here(p), "'raise ... from' is");
            next(p);
            n->span = span_join(n->span, parse_test(p)->span);
        }
    }
    return n;
}

/* A Host statement: host code of a kind the kernel language lacks. */
static Node *host_stmt(Parser *p, Span span, const char *what) {
    Node *n = new_node(p, ND_HOST, span);
    n->name = what;
    return n;
}

/* del_stmt: 'del' exprlist  -- host code's */
static Node *parse_del(Parser *p) {
    Span span = here(p);
    outside_kernels(p, span, "del statements are");
    next(p);
    Node *targets = parse_exprlist(p);
    check_target(p, targets);
    return host_stmt(p, span_join(span, targets->span), "'del' statement");
}

/* global_stmt: 'global' NAME (',' NAME)* ; nonlocal_stmt likewise
 * -- host code's */
static Node *parse_global(Parser *p) {
    const Token *kw = peek(p);
    Span span = tok_span(p, kw);
    outside_kernels(p, span, kw->kind == TK_GLOBAL ? "global statements are" : "nonlocal statements are");
    next(p);
    do {
        Span name;
        expect_name(p, kw->kind == TK_GLOBAL ? "after 'global'" : "after 'nonlocal'", &name);
        span = span_join(span, name);
    } while (accept(p, TK_COMMA));
    return host_stmt(p, span, kw->kind == TK_GLOBAL ? "'global' statement" : "'nonlocal' statement");
}

/* small_stmt: expr_stmt | pass | break | continue | return | raise | assert
 *           | import_name | import_from | del_stmt | global_stmt
 *           | nonlocal_stmt | yield_expr   (the last four host code's) */
static Node *parse_small_stmt(Parser *p) {
    Span span = here(p);
    switch (peek_kind(p)) {
    case TK_PASS: return parse_keyword_stmt(p, ND_PASS);
    case TK_BREAK:
        if (p->loop_depth == 0) syntax_error(p, span, "'break' outside loop");
        return parse_keyword_stmt(p, ND_BREAK);
    case TK_CONTINUE:
        if (p->loop_depth == 0) syntax_error(p, span, "'continue' not properly in loop");
        return parse_keyword_stmt(p, ND_CONTINUE);
    case TK_RETURN: return parse_return(p);
    case TK_RAISE: return parse_raise(p);
    case TK_ASSERT: return parse_assert(p);
    case TK_IMPORT: return parse_import(p);
    case TK_FROM: return parse_import_from(p);
    case TK_DEL: return parse_del(p);
    case TK_GLOBAL: case TK_NONLOCAL: return parse_global(p);
    case TK_YIELD: {
        Node *n = new_node(p, ND_EXPR_STMT, span);
        n->rhs = parse_yield(p);
        n->span = n->rhs->span;
        return n;
    }
    default: return parse_expr_stmt(p);
    }
}

/* simple_stmts: small_stmt (';' small_stmt)* [';'] NEWLINE */
static void parse_simple_stmts(Parser *p, Vec *out) {
    for (;;) {
        vec_push(p->arena, out, parse_small_stmt(p));
        if (!accept(p, TK_SEMI) || at(p, TK_NEWLINE)) break;
    }
    if (!at(p, TK_NEWLINE) && !at(p, TK_EOF))
        syntax_error(p, here(p), "expected end of statement, found %s", describe(p, peek(p)));
    accept(p, TK_NEWLINE);
}

/* suite: simple_stmts | NEWLINE INDENT stmt+ DEDENT */
static void parse_suite(Parser *p, Vec *out, const char *owner, int owner_line) {
    expect(p, TK_COLON, arena_printf(p->arena, "after %s", owner));
    if (!accept(p, TK_NEWLINE)) {
        parse_simple_stmts(p, out);
        return;
    }
    if (!at(p, TK_INDENT))
        syntax_error(p, here(p), "expected an indented block after %s on line %d", owner, owner_line);
    parse_block_into(p, out);
}

static Node **finish_list(Vec *v, int *len) {
    *len = v->len;
    return (Node **)v->items;
}

/* A compound statement's range runs to the end of its last clause. */
static void extend_to_last(Node *n, Node **list, int len) {
    if (len > 0) n->span = span_join(n->span, list[len - 1]->span);
}

static int line_of_token(const Token *t) { return t->line; }

/* if_stmt: 'if' test ':' suite ('elif' test ':' suite)* ['else' ':' suite]
 * An elif is an If nested in orelse, as in Python's own tree. */
static Node *parse_if(Parser *p) {
    const Token *kw = next(p);
    Node *n = new_node(p, ND_IF, tok_span(p, kw));
    n->cond = parse_test(p);
    Vec body = {0}, orelse = {0};
    parse_suite(p, &body, kw->kind == TK_IF ? "'if' statement" : "'elif' statement", line_of_token(kw));
    n->body = finish_list(&body, &n->body_len);
    if (at(p, TK_ELIF)) {
        vec_push(p->arena, &orelse, parse_if(p));
    } else if (at(p, TK_ELSE)) {
        const Token *e = next(p);
        parse_suite(p, &orelse, "'else' clause", line_of_token(e));
    }
    n->orelse = finish_list(&orelse, &n->orelse_len);
    extend_to_last(n, n->body, n->body_len);
    extend_to_last(n, n->orelse, n->orelse_len);
    return n;
}

static void parse_loop_else(Parser *p, Node *n) {
    Vec orelse = {0};
    if (at(p, TK_ELSE)) {
        const Token *e = next(p);
        parse_suite(p, &orelse, "'else' clause", line_of_token(e));
    }
    n->orelse = finish_list(&orelse, &n->orelse_len);
    extend_to_last(n, n->body, n->body_len);
    extend_to_last(n, n->orelse, n->orelse_len);
}

/* while_stmt: 'while' test ':' suite ['else' ':' suite] */
static Node *parse_while(Parser *p) {
    const Token *kw = next(p);
    Node *n = new_node(p, ND_WHILE, tok_span(p, kw));
    n->cond = parse_test(p);
    Vec body = {0};
    p->loop_depth++;
    parse_suite(p, &body, "'while' statement", line_of_token(kw));
    p->loop_depth--;
    n->body = finish_list(&body, &n->body_len);
    parse_loop_else(p, n);
    return n;
}

/* for_stmt: 'for' exprlist 'in' testlist ':' suite ['else' ':' suite] */
static Node *parse_for(Parser *p) {
    const Token *kw = next(p);
    Node *n = new_node(p, ND_FOR, tok_span(p, kw));
    n->cond = parse_exprlist(p);
    check_target(p, n->cond);
    note_bindings(p, n->cond);
    expect(p, TK_IN, "after the 'for' target");
    n->iter = parse_testlist(p);
    Vec body = {0};
    p->loop_depth++;
    parse_suite(p, &body, "'for' statement", line_of_token(kw));
    p->loop_depth--;
    n->body = finish_list(&body, &n->body_len);
    parse_loop_else(p, n);
    return n;
}

/* param: NAME [':' test] ['=' test]
 *      | '*' [NAME [':' test]] | '**' NAME [':' test] | '/'   (host code's)
 * Lambdas' parameters take no annotations. NULL for a bare '*' or '/'. */
static Node *parse_param(Parser *p, bool annotations) {
    Span span = here(p);
    if (at(p, TK_STAR) || at(p, TK_DSTAR) || at(p, TK_SLASH)) {
        bool named = peek_kind_at(p, 1) == TK_NAME;
        Span whole = named ? span_join(span, tok_span(p, &p->toks[p->pos + 1])) : span;
        outside_kernels(p, whole, at(p, TK_SLASH) ? "positional-only parameters are"
                                  : at(p, TK_DSTAR) ? "variadic keyword parameters (**kwargs) are"
                                  : named ? "variadic parameters (*args) are" : "keyword-only parameters are");
        TokenKind k = next(p)->kind;
        if (k == TK_SLASH || (k == TK_STAR && !named)) return NULL;
    }
    Node *n = new_node(p, ND_PARAM, span);
    n->name = expect_name(p, "for a parameter", &n->span);
    if (annotations && accept(p, TK_COLON)) {
        n->annotation = parse_test(p);
        n->span = span_join(n->span, n->annotation->span);
    }
    if (accept(p, TK_ASSIGN)) {
        n->rhs = parse_test(p);
        n->span = span_join(n->span, n->rhs->span);
    }
    return n;
}

/* parameters: [param (',' param)* [',']] up to `close`, each name once */
static void parse_params(Parser *p, TokenKind close, bool annotations, Vec *params) {
    while (!at(p, close)) {
        Node *param = parse_param(p, annotations);
        for (int i = 0; param && i < params->len; i++)
            if (strcmp(((Node *)params->items[i])->name, param->name) == 0)
                error_with_note(p, name_span_of(param),
                                arena_printf(p->arena, "duplicate parameter '%s' in function definition", param->name),
                                name_span_of(params->items[i]), "the first is here");
        if (param) vec_push(p->arena, params, param);
        if (!accept(p, TK_COMMA)) break;
    }
}

/* type_params: '[' ... ']'  -- host code's generics (def f[T], class C[T]),
 * read as balanced brackets */
static void skip_type_params(Parser *p) {
    if (!at(p, TK_LBRACKET)) return;
    outside_kernels(p, here(p), "type parameters are");
    int depth = 0;
    do {
        if (at(p, TK_NEWLINE) || at(p, TK_EOF)) syntax_error(p, after_prev(p), "expected ']' to close the type parameters");
        TokenKind k = next(p)->kind;
        depth += k == TK_LBRACKET || k == TK_LPAREN ? 1 : k == TK_RBRACKET || k == TK_RPAREN ? -1 : 0;
    } while (depth > 0);
}

/* A body: the suite of a def or class, whose names are not module names. */
static void parse_body(Parser *p, Vec *out, const char *owner, int owner_line, bool function) {
    int loops = p->loop_depth, funcs = p->func_depth;
    p->loop_depth = 0;
    p->func_depth = function ? funcs + 1 : 0;
    p->scope_depth++;
    parse_suite(p, out, owner, owner_line);
    p->scope_depth--;
    p->func_depth = funcs;
    p->loop_depth = loops;
}

static Node *last_of(Vec *v) { return v->len ? v->items[v->len - 1] : NULL; }

/* funcdef: 'def' NAME [type_params] '(' [parameters] ')' ['->' test] ':' suite
 * A function that @cuda.jit decorates at the top level (device) is read
 * in the kernel language and kept; any other is host code: a Host node
 * "function 'NAME'" over its FunctionDef. */
static Node *parse_funcdef(Parser *p, Vec *decorators, bool device) {
    const Token *kw = next(p);
    /* a function defined inside a kernel is kernel code, as numba-cuda
     * compiles it where it is called; numba-cuda types no decorator there */
    bool inner = !p->host && p->func_depth > 0;
    if (inner && decorators->len)
        syntax_error(p, ((Node *)decorators->items[0])->span, "a function defined inside a kernel cannot be decorated: "
                     "numba-cuda compiles it as part of the kernel");
    bool host = p->host;
    p->host = !device && !inner;
    Node *n = new_node(p, ND_FUNCDEF, tok_span(p, kw)); /* at 'def', as Python places it */
    Span name_span;
    n->name = expect_name(p, "after 'def'", &name_span);
    n->span = span_join(n->span, name_span);
    note_bindings(p, name_node(p, n->name, name_span));
    if (inner) n->lhs = name_node(p, n->name, name_span);
    skip_type_params(p);
    expect(p, TK_LPAREN, "after the function name");
    Vec params = {0};
    parse_params(p, TK_RPAREN, true, &params);
    expect(p, TK_RPAREN, "to close the parameter list");
    if (accept(p, TK_ARROW)) n->annotation = parse_test(p);
    set_items(n, &params);
    n->decorators = finish_list(decorators, &n->decorator_len);
    Vec body = {0};
    parse_body(p, &body, "function definition", line_of_token(kw), true);
    p->host = host;
    n->body = finish_list(&body, &n->body_len);
    extend_to_last(n, n->body, n->body_len);
    if (device || inner) return n;
    Node *h = host_stmt(p, n->span, arena_printf(p->arena, "function '%s'", n->name));
    h->lhs = n;
    return h;
}

/* classdef: 'class' NAME [type_params] ['(' [arglist] ')'] ':' suite
 * At the top level a ClassDef, whose bases sema reads (an Enum, IntEnum or
 * NamedTuple that kernels may use, else host code); elsewhere host code. */
static Node *parse_class(Parser *p) {
    const Token *kw = peek(p);
    bool module_level = p->scope_depth == 0 && p->block_depth == 0;
    if (!module_level) outside_kernels(p, tok_span(p, kw), "class definitions are");
    next(p);
    Node *n = new_node(p, ND_CLASSDEF, tok_span(p, kw));
    Span name_span;
    n->name = expect_name(p, "after 'class'", &name_span);
    note_bindings(p, name_node(p, n->name, name_span));
    skip_type_params(p);
    if (at(p, TK_LPAREN)) {
        Node *bases = parse_call(p, name_node(p, n->name, name_span));
        n->items = bases->items;
        n->item_len = bases->item_len;
        n->kwargs = bases->kwargs;
        n->kwarg_len = bases->kwarg_len;
    }
    Vec body = {0};
    parse_body(p, &body, "class definition", line_of_token(kw), false);
    n->body = finish_list(&body, &n->body_len);
    extend_to_last(n, n->body, n->body_len);
    if (module_level) return n; /* an Enum, IntEnum or NamedTuple, or host code: sema reads its bases */
    return host_stmt(p, n->span, arena_printf(p->arena, "class '%s'", n->name));
}

/* try_stmt: 'try' ':' suite ((except_clause ':' suite)+ ['else' ':' suite]
 *           ['finally' ':' suite] | 'finally' ':' suite)
 * except_clause: 'except' ['*'] [test ['as' NAME]]   -- host code's */
static Node *parse_try(Parser *p) {
    const Token *kw = peek(p);
    outside_kernels(p, tok_span(p, kw), "try statements are");
    next(p);
    Vec body = {0};
    parse_suite(p, &body, "'try' statement", line_of_token(kw));
    bool handlers = false, finally = false;
    while (at(p, TK_EXCEPT)) {
        const Token *e = next(p);
        accept(p, TK_STAR);
        if (!at(p, TK_COLON)) {
            parse_test(p);
            if (accept(p, TK_AS)) {
                Span name;
                const char *bound = expect_name(p, "after 'as'", &name);
                note_bindings(p, name_node(p, bound, name));
            }
        }
        parse_suite(p, &body, "'except' clause", line_of_token(e));
        handlers = true;
    }
    if (handlers && at(p, TK_ELSE)) {
        const Token *e = next(p);
        parse_suite(p, &body, "'else' clause", line_of_token(e));
    }
    if (at(p, TK_FINALLY)) {
        const Token *e = next(p);
        parse_suite(p, &body, "'finally' clause", line_of_token(e));
        finally = true;
    }
    if (!handlers && !finally) syntax_error(p, here(p), "expected 'except' or 'finally' block, found %s", describe(p, peek(p)));
    Span span = tok_span(p, kw);
    if (body.len) span = span_join(span, last_of(&body)->span);
    return host_stmt(p, span, "'try' statement");
}

/* Whether the '(' at p's place opens a parenthesized list of with items:
 * its ')' is followed by ':'. */
static bool with_items_in_parens(const Parser *p) {
    int depth = 0;
    for (int i = p->pos; i < p->count; i++) {
        TokenKind k = p->toks[i].kind;
        if (k == TK_NEWLINE || k == TK_EOF) return false;
        depth += k == TK_LPAREN || k == TK_LBRACKET || k == TK_LBRACE ? 1 : k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE ? -1 : 0;
        if (depth == 0) return i + 1 < p->count && p->toks[i + 1].kind == TK_COLON;
    }
    return false;
}

/* with_stmt: 'with' (with_item (',' with_item)* | '(' with_item (',' with_item)* [','] ')') ':' suite
 * with_item: test ['as' target]   -- host code's */
static Node *parse_with(Parser *p) {
    const Token *kw = peek(p);
    outside_kernels(p, tok_span(p, kw), "with statements are");
    next(p);
    bool paren = at(p, TK_LPAREN) && with_items_in_parens(p);
    if (paren) next(p);
    do {
        if (paren && at(p, TK_RPAREN)) break;
        parse_test(p);
        if (accept(p, TK_AS)) {
            Node *target = parse_expr_or_star(p);
            check_target(p, target);
            note_bindings(p, target);
        }
    } while (accept(p, TK_COMMA));
    if (paren) expect(p, TK_RPAREN, "to close the 'with' items");
    Vec body = {0};
    parse_suite(p, &body, "'with' statement", line_of_token(kw));
    Span span = tok_span(p, kw);
    if (body.len) span = span_join(span, last_of(&body)->span);
    return host_stmt(p, span, "'with' statement");
}

/* async_stmt: 'async' (funcdef | with_stmt | for_stmt)  -- host code's */
static Node *parse_async(Parser *p) {
    Span span = here(p);
    outside_kernels(p, span, peek_kind_at(p, 1) == TK_DEF ? "async functions are" : "async statements are");
    next(p);
    Vec none = {0};
    Node *n;
    switch (peek_kind(p)) {
    case TK_DEF: n = parse_funcdef(p, &none, false); break;
    case TK_WITH: n = parse_with(p); break;
    case TK_FOR: n = parse_for(p); break;
    default: syntax_error(p, here(p), "expected 'def', 'with' or 'for' after 'async', found %s", describe(p, peek(p)));
    }
    n->span = span_join(span, n->span);
    return n;
}

/* decorated: ('@' test NEWLINE)+ (funcdef | classdef | async_funcdef)
 * Numba's forms: @cuda.jit, @cuda.jit(device=True), @cuda.jit("sig") ...
 * A function at the top level that they decorate is a kernel or a device
 * function, read in the kernel language; any other is host code. */
static bool decorators_name_jit(const Parser *p, int at_token, int *after);

static Node *parse_decorated(Parser *p) {
    int after;
    bool jit = decorators_name_jit(p, p->pos, &after);
    bool device = jit && p->block_depth == 0 && p->scope_depth == 0 && after < p->count && p->toks[after].kind == TK_DEF;
    bool host = p->host;
    if (device) p->host = false;
    Vec decorators = {0};
    while (accept(p, TK_AT)) {
        vec_push(p->arena, &decorators, parse_test(p));
        if (!at(p, TK_NEWLINE)) syntax_error(p, here(p), "expected end of line after decorator, found %s", describe(p, peek(p)));
        next(p);
    }
    Node *n;
    if (at(p, TK_CLASS)) n = parse_class(p);
    else if (at(p, TK_ASYNC)) n = parse_async(p);
    else if (!at(p, TK_DEF)) syntax_error(p, here(p), "expected a function definition after decorators, found %s", describe(p, peek(p)));
    else n = parse_funcdef(p, &decorators, device);
    p->host = host;
    return n;
}

/* Whether the decorator whose '@' is token i names numba.cuda.jit, called
 * or not: `cuda.jit` (or `X.cuda.jit`) as written, or a dotted name that the
 * imports read so far bind to it (nb.cuda.jit after `import numba as nb`,
 * jit after `from numba.cuda import jit`). */
static bool decorator_is_jit(const Parser *p, int i) {
    const char *text = diag_file(p->diag, p->file)->text;
    char path[256] = "";
    for (i++;; i++) {
        if (i >= p->count || p->toks[i].kind != TK_NAME || strlen(path) + p->toks[i].len + 2 > sizeof path) return false;
        strncat(path, text + p->toks[i].off, p->toks[i].len);
        if (++i >= p->count || p->toks[i].kind != TK_DOT) break;
        strcat(path, ".");
    }
    if (p->toks[i].kind != TK_LPAREN && p->toks[i].kind != TK_NEWLINE) return false;
    size_t n = strlen(path);
    if (!strcmp(path, "cuda.jit") || (n > 9 && !strcmp(path + n - 9, ".cuda.jit"))) return true;
    for (int k = 0; k < p->jit_names.len; k++)
        if (!strcmp(path, p->jit_names.items[k])) return true;
    return false;
}

/* The decorators from the '@' at token i: whether one names cuda.jit, and
 * the index of the token after them (what they decorate). */
static bool decorators_name_jit(const Parser *p, int i, int *after) {
    bool jit = false;
    while (i < p->count && p->toks[i].kind == TK_AT) {
        jit = jit || decorator_is_jit(p, i);
        while (i < p->count - 1 && p->toks[i].kind != TK_NEWLINE) i++;
        i++;
    }
    *after = i;
    return jit;
}

/* The text of the token at the parser's place plus ahead. */
static bool name_is(const Parser *p, int ahead, const char *word) {
    if (peek_kind_at(p, ahead) != TK_NAME) return false;
    const Token *t = &p->toks[p->pos + ahead];
    return t->len == strlen(word) && memcmp(diag_file(p->diag, p->file)->text + t->off, word, t->len) == 0;
}

/* `match` and `type` are soft keywords: names, except at the start of a
 * match statement (`match x:` and a block) or a type alias (`type T = ...`). */
static const char *soft_keyword_statement(const Parser *p) {
    if (name_is(p, 0, "type") && peek_kind_at(p, 1) == TK_NAME &&
        (peek_kind_at(p, 2) == TK_ASSIGN || peek_kind_at(p, 2) == TK_LBRACKET))
        return "type alias statements are";
    if (!name_is(p, 0, "match")) return NULL;
    TokenKind next_kind = peek_kind_at(p, 1);
    if (next_kind == TK_ASSIGN || next_kind == TK_COLON || next_kind == TK_DOT || next_kind == TK_NEWLINE) return NULL;
    int i = p->pos;
    while (i + 1 < p->count && p->toks[i + 1].kind != TK_NEWLINE && p->toks[i + 1].kind != TK_EOF) i++;
    return p->toks[i].kind == TK_COLON ? "match statements are" : NULL;
}

/* type_alias: 'type' NAME [type_params] '=' test  -- host code's */
static Node *parse_type_alias(Parser *p) {
    Span span = tok_span(p, next(p));
    Span name;
    const char *bound = expect_name(p, "after 'type'", &name);
    note_bindings(p, name_node(p, bound, name));
    skip_type_params(p);
    expect(p, TK_ASSIGN, "in a type alias");
    return host_stmt(p, span_join(span, parse_test(p)->span), "type alias");
}

/* match_stmt: 'match' subject ':' NEWLINE INDENT case_block+ DEDENT
 * case_block: 'case' pattern ['if' test] ':' suite  -- host code's; a
 * pattern, with its guard, is read as balanced tokens up to its ':' */
static Node *parse_match(Parser *p) {
    const Token *kw = next(p);
    parse_testlist(p);
    expect(p, TK_COLON, "after the 'match' subject");
    if (!accept(p, TK_NEWLINE) || !at(p, TK_INDENT))
        syntax_error(p, here(p), "expected an indented block of 'case' clauses after 'match' statement on line %d", kw->line);
    next(p);
    Vec body = {0};
    p->block_depth++;
    while (!at(p, TK_DEDENT) && !at(p, TK_EOF)) {
        if (accept(p, TK_NEWLINE)) continue;
        if (!name_is(p, 0, "case")) syntax_error(p, here(p), "expected 'case', found %s", describe(p, peek(p)));
        const Token *c = next(p);
        for (int depth = 0; depth > 0 || !at(p, TK_COLON);) {
            if (at(p, TK_NEWLINE) || at(p, TK_EOF)) syntax_error(p, after_prev(p), "expected ':' after the 'case' pattern");
            TokenKind k = next(p)->kind;
            depth += k == TK_LPAREN || k == TK_LBRACKET || k == TK_LBRACE ? 1 : k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE ? -1 : 0;
        }
        parse_suite(p, &body, "'case' clause", line_of_token(c));
    }
    p->block_depth--;
    accept(p, TK_DEDENT);
    Span span = tok_span(p, kw);
    if (body.len) span = span_join(span, last_of(&body)->span);
    return host_stmt(p, span, "'match' statement");
}

/* compound_stmt: if_stmt | while_stmt | for_stmt | funcdef | decorated
 *              | classdef | try_stmt | with_stmt | async_stmt | match_stmt
 *              | type_alias   (the last six host code's) */
static void parse_statement(Parser *p, Vec *out) {
    Span span = here(p);
    Vec none = {0};
    const char *soft = soft_keyword_statement(p);
    if (soft) {
        outside_kernels(p, span, soft);
        vec_push(p->arena, out, name_is(p, 0, "type") ? parse_type_alias(p) : parse_match(p));
        return;
    }
    switch (peek_kind(p)) {
    case TK_IF: vec_push(p->arena, out, parse_if(p)); return;
    case TK_WHILE: vec_push(p->arena, out, parse_while(p)); return;
    case TK_FOR: vec_push(p->arena, out, parse_for(p)); return;
    case TK_DEF: vec_push(p->arena, out, parse_funcdef(p, &none, false)); return;
    case TK_AT: vec_push(p->arena, out, parse_decorated(p)); return;
    case TK_CLASS: vec_push(p->arena, out, parse_class(p)); return;
    case TK_TRY: vec_push(p->arena, out, parse_try(p)); return;
    case TK_WITH: vec_push(p->arena, out, parse_with(p)); return;
    case TK_ASYNC: vec_push(p->arena, out, parse_async(p)); return;
    case TK_ELIF: case TK_ELSE: case TK_EXCEPT: case TK_FINALLY:
        syntax_error(p, span, "'%s' without a matching statement", token_kind_name(peek_kind(p)));
    case TK_INDENT: syntax_error(p, indent_site(p), "unexpected indent");
    default: parse_simple_stmts(p, out);
    }
}

/* Skips an indented block unread. */
static void skip_block(Parser *p) {
    int depth = 0;
    do {
        if (at(p, TK_INDENT)) depth++;
        if (at(p, TK_DEDENT)) depth--;
        next(p);
    } while (depth > 0 && !at(p, TK_EOF));
}

/* What the statement that failed opens, so that its block is read as what
 * it is: a loop's body may `break`, a function's may `return`, a kernel's
 * is read in the kernel language, a class's holds host functions. */
typedef struct Opened {
    TokenKind keyword;          /* what the statement begins with */
    bool loop, function, kernel, class_body, unread;
} Opened;

static Opened statement_opens(const Parser *p) {
    TokenKind k = peek_kind(p);
    Opened o = {.keyword = k};
    if (k == TK_AT && !p->fatal) {
        int after;
        o.kernel = decorators_name_jit(p, p->pos, &after) && p->block_depth == 0 && p->scope_depth == 0;
        k = after < p->count ? p->toks[after].kind : TK_EOF; /* what the decorators decorate */
        o.kernel = o.kernel && k == TK_DEF;
    }
    o.loop = k == TK_FOR || k == TK_WHILE || (k == TK_ASYNC && peek_kind_at(p, 1) == TK_FOR);
    o.function = k == TK_DEF || k == TK_ASYNC;
    o.class_body = k == TK_CLASS;
    /* In a kernel a class is refused whole, its methods unread; a match
     * statement holds cases, which read as statements would only make
     * noise. */
    o.unread = (k == TK_CLASS && !p->host) || soft_keyword_statement(p) != NULL;
    return o;
}

/* Skips the rest of the logical line, then reads the indented block that
 * belongs to it (if any) for its own errors, as the block of what opened. */
static void skip_line_and_block(Parser *p, Opened opened) {
    while (!at(p, TK_NEWLINE) && !at(p, TK_EOF) && !at(p, TK_INDENT) && !at(p, TK_DEDENT)) next(p);
    accept(p, TK_NEWLINE);
    if (!at(p, TK_INDENT)) return;
    if (opened.unread) {
        skip_block(p);
        return;
    }
    int loops = p->loop_depth, funcs = p->func_depth, scopes = p->scope_depth;
    bool host = p->host;
    if (opened.function) p->func_depth++, p->loop_depth = 0, p->scope_depth++, p->host = !opened.kernel && p->host;
    if (opened.class_body) p->func_depth = 0, p->loop_depth = 0, p->scope_depth++;
    if (opened.loop) p->loop_depth++;
    Vec discarded = {0};
    parse_block_into(p, &discarded);
    p->loop_depth = loops;
    p->func_depth = funcs;
    p->scope_depth = scopes;
    p->host = host;
}

/* Whether clause `next` may continue a statement whose last clause was
 * `prev` (in a try statement when in_try). */
static bool clause_follows(TokenKind prev, TokenKind next, bool in_try) {
    switch (prev) {
    case TK_IF: case TK_ELIF: return next == TK_ELIF || next == TK_ELSE;
    case TK_WHILE: case TK_FOR: case TK_ASYNC: return next == TK_ELSE;
    case TK_TRY: case TK_EXCEPT: return next == TK_EXCEPT || next == TK_ELSE || next == TK_FINALLY;
    case TK_ELSE: return in_try && next == TK_FINALLY;
    default: return false;
    }
}

/* A clause that continues a dropped statement: its header and block are
 * read for their own errors (`elif x` without its ':'), then dropped. */
/* The parser's state that a statement changes as it nests, restored when
 * the statement is dropped. */
typedef struct Nesting {
    int depth, loops, funcs, scopes, blocks;
    bool host;
} Nesting;

static Nesting nesting_of(const Parser *p) {
    return (Nesting){p->depth, p->loop_depth, p->func_depth, p->scope_depth, p->block_depth, p->host};
}

static void restore_nesting(Parser *p, Nesting n) {
    p->depth = n.depth;
    p->loop_depth = n.loops;
    p->func_depth = n.funcs;
    p->scope_depth = n.scopes;
    p->block_depth = n.blocks;
    p->host = n.host;
}

static void parse_clause_recovering(Parser *p, Opened opened) {
    jmp_buf here_buf;
    jmp_buf *outer = p->recover;
    Nesting nesting = nesting_of(p);
    p->recover = &here_buf;
    if (setjmp(here_buf) == 0) {
        const Token *kw = next(p);
        Vec discarded = {0};
        if (kw->kind == TK_EXCEPT) {
            skip_line_and_block(p, opened);
        } else {
            if (kw->kind == TK_ELIF) parse_test(p);
            if (opened.function) p->func_depth++, p->loop_depth = 0;
            if (opened.loop) p->loop_depth++;
            parse_suite(p, &discarded,
                        kw->kind == TK_ELIF ? "'elif' statement" : kw->kind == TK_ELSE ? "'else' clause" : "'finally' clause",
                        kw->line);
        }
    } else {
        restore_nesting(p, nesting);
        skip_line_and_block(p, opened);
    }
    restore_nesting(p, nesting);
    p->recover = outer;
}

/* After an error: skips the rest of the statement's line and reads its
 * block, then each clause that continues it (elif, else, except, finally),
 * so that every independent error is found and none is made twice. */
static void synchronize(Parser *p, Opened opened) {
    skip_line_and_block(p, opened);
    TokenKind prev = opened.keyword;
    bool in_try = prev == TK_TRY || prev == TK_EXCEPT;
    while (clause_follows(prev, peek_kind(p), in_try)) {
        prev = peek_kind(p);
        in_try = in_try || prev == TK_EXCEPT;
        parse_clause_recovering(p, opened);
    }
}

/* Prints the lexer's held errors that come before this statement, then
 * parses it; on a syntax error, drops it and resynchronises. */
static void parse_statement_recovering(Parser *p, Vec *out) {
    diag_release(p->diag, p->file, peek(p)->off);
    jmp_buf here_buf;
    jmp_buf *outer = p->recover;
    Nesting nesting = nesting_of(p);
    Opened opened = statement_opens(p);
    p->recover = &here_buf;
    if (setjmp(here_buf) == 0) {
        parse_statement(p, out);
    } else {
        restore_nesting(p, nesting);
        synchronize(p, opened);
    }
    p->recover = outer;
}

/* block: INDENT stmt+ DEDENT */
static void parse_block_into(Parser *p, Vec *out) {
    next(p); /* INDENT */
    p->block_depth++;
    while (!at(p, TK_DEDENT) && !at(p, TK_EOF) && !p->diag->stop) {
        if (accept(p, TK_NEWLINE)) continue;
        parse_statement_recovering(p, out);
    }
    p->block_depth--;
    accept(p, TK_DEDENT);
}

/* ---- the module ---------------------------------------------------------- */

/* A constant's target: a name, or a tuple of names (W, H = 16, 8). */
static bool is_constant_target(const Node *t) {
    if (t->kind == ND_NAME) return true;
    if (t->kind != ND_TUPLE || t->item_len == 0) return false;
    for (int i = 0; i < t->item_len; i++)
        if (t->items[i]->kind != ND_NAME) return false;
    return true;
}

/* Whether a top-level statement read in the kernel language's terms is
 * kept: an import, a constant (names bound to a value, which sema reads
 * only if a kernel does), a @cuda.jit function, `pass` or a docstring. */
static bool kept_at_module_level(const Node *n) {
    switch (n->kind) {
    case ND_IMPORT: case ND_IMPORT_FROM: case ND_FUNCDEF: case ND_PASS: case ND_CLASSDEF: return true;
    case ND_ASSIGN:
        for (int i = 0; i < n->item_len; i++)
            if (!is_constant_target(n->items[i])) return false;
        return true;
    case ND_AUGASSIGN: return n->lhs->kind == ND_NAME;
    case ND_ANNASSIGN: return n->lhs->kind == ND_NAME && n->rhs;
    case ND_EXPR_STMT: return n->rhs->kind == ND_STR;
    default: return false;
    }
}

static bool is_main_guard(const Node *n) {
    return n->kind == ND_IF && n->cond->kind == ND_COMPARE && n->cond->item_len == 2 &&
           n->cond->items[0]->kind == ND_NAME && strcmp(n->cond->items[0]->name, "__name__") == 0;
}

/* A dotted name as written (cuda.to_device), or NULL. */
static const char *dotted(Parser *p, const Node *n) {
    if (n->kind == ND_NAME) return n->name;
    if (n->kind != ND_ATTR) return NULL;
    const char *base = dotted(p, n->lhs);
    return base ? arena_printf(p->arena, "%s.%s", base, n->name) : NULL;
}

/* What a skipped statement was, as -v says: "assignment", "launch of k". */
static const char *host_what(Parser *p, const Node *n) {
    switch (n->kind) {
    case ND_HOST: return n->name;
    case ND_ASSIGN: case ND_ANNASSIGN: case ND_AUGASSIGN: return "assignment";
    case ND_EXPR_STMT: {
        const Node *v = n->rhs;
        if (v->kind == ND_CALL && v->func->kind == ND_SUBSCRIPT && dotted(p, v->func->lhs))
            return arena_printf(p->arena, "launch of %s", dotted(p, v->func->lhs));
        if (v->kind == ND_CALL && dotted(p, v->func)) return arena_printf(p->arena, "call of %s", dotted(p, v->func));
        return "expression";
    }
    case ND_IF: return is_main_guard(n) ? "'if __name__ == \"__main__\"' block" : "'if' statement";
    case ND_FOR: return "'for' loop";
    case ND_WHILE: return "'while' loop";
    case ND_RAISE: return "'raise' statement";
    case ND_ASSERT: return "'assert' statement";
    case ND_CLASSDEF: return arena_printf(p->arena, "class '%s'", n->name);
    default: return "statement";
    }
}

/* The top-level statement at p's place, with any others on its line: those
 * that use nothing outside the kernel language and are kept as they are,
 * and each other a Host node, what it was, over the module names it binds. */
static void parse_top_level(Parser *p, Vec *body) {
    int first = body->len, uses = p->host_uses;
    Vec bound = {0};
    p->bound = &bound;
    parse_statement_recovering(p, body);
    p->bound = NULL;
    for (int i = first; i < body->len; i++) {
        Node *n = body->items[i];
        if (p->host_uses == uses && kept_at_module_level(n)) continue;
        Node *h = n;
        if (n->kind != ND_HOST) {
            h = host_stmt(p, n->span, host_what(p, n));
            h->lhs = n;
        }
        set_items(h, &bound);
        body->items[i] = h;
    }
}

/* file_input: (NEWLINE | stmt)* ENDMARKER */
Node *parse_module(Arena *a, Diag *d, int file, const TokenArray *toks) {
    Parser p = {.arena = a, .diag = d, .file = file, .toks = toks->tokens, .count = toks->count, .host = true};
    const SourceFile *f = diag_file(d, file);
    Node *m = node_new(a, ND_MODULE, (Span){file, 0, (uint32_t)f->size});
    Vec body = {0};
    while (!at(&p, TK_EOF) && !d->stop) {
        if (accept(&p, TK_NEWLINE)) continue;
        if (at(&p, TK_DEDENT)) { /* only after a lexical indentation error */
            next(&p);
            continue;
        }
        parse_top_level(&p, &body);
    }
    m->body = finish_list(&body, &m->body_len);
    diag_release_all(d);
    return m;
}

/* expression_input: NEWLINE* testlist NEWLINE* ENDMARKER -- a signature
 * string, a -D value or a --sig, in the kernel language. */
Node *parse_expression(Arena *a, Diag *d, int file, const TokenArray *toks) {
    Parser p = {.arena = a, .diag = d, .file = file, .toks = toks->tokens, .count = toks->count};
    jmp_buf here_buf;
    p.recover = &here_buf;
    Node *n = NULL;
    if (setjmp(here_buf) == 0) {
        while (accept(&p, TK_NEWLINE)) continue;
        if (at(&p, TK_INDENT)) syntax_error(&p, indent_site(&p), "unexpected indent");
        n = parse_testlist(&p);
        while (accept(&p, TK_NEWLINE) || accept(&p, TK_DEDENT)) continue;
        if (!at(&p, TK_EOF)) syntax_error(&p, here(&p), "expected the end of the expression, found %s", describe(&p, peek(&p)));
    } else {
        n = NULL;
    }
    diag_release_all(d);
    return n;
}
