/* test_parser.c - Python's precedence and associativity, the shape of each
 * statement's node, source ranges, recovery and the depth limits. */
#include "pykc.h"
#include "unit.h"

#include <stdlib.h>

static FILE *sink;

typedef struct Parsed {
    Arena arena;
    Diag diag;
    Node *module;
} Parsed;

static Parsed *parse(const char *src, size_t len) {
    Parsed *p = calloc(1, sizeof *p);
    diag_init(&p->diag, sink);
    int f = diag_add_source(&p->diag, "t.pyk", src, len);
    TokenArray toks = lex_file(&p->arena, &p->diag, f);
    p->module = parse_module(&p->arena, &p->diag, f, &toks);
    return p;
}

static Parsed *parse_str(const char *src) { return parse(src, strlen(src)); }

static void done(Parsed *p) {
    diag_free(&p->diag);
    arena_release(&p->arena);
    free(p);
}

/* An expression as an S-expression, operators first: `1 + 2 * 3` is
 * (+ 1 (* 2 3)). */
static void sexpr(char *out, size_t cap, const Node *n);

static void append(char *out, size_t cap, const char *s) {
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s", s);
}

static void sexpr_list(char *out, size_t cap, Node *const *list, int len) {
    for (int i = 0; i < len; i++) {
        append(out, cap, " ");
        sexpr(out, cap, list[i]);
    }
}

static void sexpr(char *out, size_t cap, const Node *n) {
    char buf[64];
    if (!n) {
        append(out, cap, "_");
        return;
    }
    switch (n->kind) {
    case ND_NAME: append(out, cap, n->name); return;
    case ND_INT: snprintf(buf, sizeof buf, "%llu", (unsigned long long)n->v.i.value); append(out, cap, buf); return;
    case ND_BINOP: case ND_BOOLOP:
        snprintf(buf, sizeof buf, n->kind == ND_BOOLOP ? "(%s" : "(%s ", op_spelling(n->op));
        append(out, cap, buf);
        if (n->kind == ND_BOOLOP) {
            sexpr_list(out, cap, n->items, n->item_len);
            append(out, cap, ")");
            return;
        }
        sexpr(out, cap, n->lhs);
        append(out, cap, " ");
        sexpr(out, cap, n->rhs);
        append(out, cap, ")");
        return;
    case ND_UNARY:
        snprintf(buf, sizeof buf, "(%s ", n->op == OP_NEG ? "neg" : n->op == OP_POS ? "pos" : op_spelling(n->op));
        append(out, cap, buf);
        sexpr(out, cap, n->rhs);
        append(out, cap, ")");
        return;
    case ND_COMPARE:
        append(out, cap, "(");
        for (int i = 0; i + 1 < n->item_len; i++) {
            append(out, cap, i ? " " : "");
            append(out, cap, op_spelling(n->ops[i]));
        }
        sexpr_list(out, cap, n->items, n->item_len);
        append(out, cap, ")");
        return;
    case ND_IFEXP:
        append(out, cap, "(if ");
        sexpr(out, cap, n->cond);
        append(out, cap, " ");
        sexpr(out, cap, n->then);
        append(out, cap, " ");
        sexpr(out, cap, n->els);
        append(out, cap, ")");
        return;
    case ND_CALL:
        append(out, cap, "(call ");
        sexpr(out, cap, n->func);
        sexpr_list(out, cap, n->items, n->item_len);
        for (int i = 0; i < n->kwarg_len; i++) {
            append(out, cap, " ");
            append(out, cap, n->kwargs[i]->name);
            append(out, cap, "=");
            sexpr(out, cap, n->kwargs[i]->rhs);
        }
        append(out, cap, ")");
        return;
    case ND_ATTR:
        append(out, cap, "(. ");
        sexpr(out, cap, n->lhs);
        append(out, cap, " ");
        append(out, cap, n->name);
        append(out, cap, ")");
        return;
    case ND_SUBSCRIPT:
        append(out, cap, "([] ");
        sexpr(out, cap, n->lhs);
        append(out, cap, " ");
        sexpr(out, cap, n->rhs);
        append(out, cap, ")");
        return;
    case ND_SLICE:
        append(out, cap, "(: ");
        sexpr(out, cap, n->lower);
        append(out, cap, " ");
        sexpr(out, cap, n->upper);
        append(out, cap, " ");
        sexpr(out, cap, n->step);
        append(out, cap, ")");
        return;
    case ND_TUPLE:
        append(out, cap, "(tuple");
        sexpr_list(out, cap, n->items, n->item_len);
        append(out, cap, ")");
        return;
    default:
        append(out, cap, node_kind_name(n->kind));
        return;
    }
}

/* Parses `x = <expr>` and renders the value. */
static const char *expr(const char *text) {
    static char out[1024];
    char src[512];
    snprintf(src, sizeof src, "x = %s\n", text);
    Parsed *p = parse_str(src);
    out[0] = '\0';
    if (p->diag.error_count || p->module->body_len != 1 || p->module->body[0]->kind != ND_ASSIGN)
        snprintf(out, sizeof out, "<error>");
    else
        sexpr(out, sizeof out, p->module->body[0]->rhs);
    done(p);
    return out;
}

#define ASSERT_EXPR(want, text) ASSERT_STR(want, expr(text))

static void test_precedence(void) {
    /* Each level against the next, lowest first (grammar/pyk.ebnf §5). */
    ASSERT_EXPR("(if c (or a b) d)", "a or b if c else d");
    ASSERT_EXPR("(or a (and b c))", "a or b and c");
    ASSERT_EXPR("(or (and a b) c)", "a and b or c");
    ASSERT_EXPR("(and (not a) b)", "not a and b");
    ASSERT_EXPR("(not (< a b))", "not a < b");
    ASSERT_EXPR("(< (| a b) c)", "a | b < c");
    ASSERT_EXPR("(| a (^ b c))", "a | b ^ c");
    ASSERT_EXPR("(^ a (& b c))", "a ^ b & c");
    ASSERT_EXPR("(& a (<< b c))", "a & b << c");
    ASSERT_EXPR("(>> a (+ b c))", "a >> b + c");
    ASSERT_EXPR("(- a (* b c))", "a - b * c");
    ASSERT_EXPR("(+ (// a b) (% c d))", "a // b + c % d");
    ASSERT_EXPR("(* (neg a) b)", "-a * b");
    ASSERT_EXPR("(neg (** a b))", "-a ** b");
    ASSERT_EXPR("(** a (neg b))", "a ** -b");
    ASSERT_EXPR("(** (call f x) (. a b))", "f(x) ** a.b");
    ASSERT_EXPR("(/ (@ a b) c)", "a @ b / c");
    ASSERT_EXPR("(| (| a b) (| c d))", "(a | b) | (c | d)");
    ASSERT_EXPR("(| a (| b c))", "a | (b | c)");
    ASSERT_EXPR("(* (+ a b) c)", "(a + b) * c");

    /* Associativity: binary operators left, ** and conditionals right. */
    ASSERT_EXPR("(- (- a b) c)", "a - b - c");
    ASSERT_EXPR("(/ (/ a b) c)", "a / b / c");
    ASSERT_EXPR("(<< (<< a b) c)", "a << b << c");
    ASSERT_EXPR("(** a (** b c))", "a ** b ** c");
    ASSERT_EXPR("(if c a (if e d f))", "a if c else d if e else f");
    ASSERT_EXPR("(neg (neg (pos (~ a))))", "--+~a");
    ASSERT_EXPR("(not (not a))", "not not a");

    /* Chains and n-ary operators are one node. */
    ASSERT_EXPR("(< <= == a b c d)", "a < b <= c == d");
    ASSERT_EXPR("(is not is not in in a b c d e)", "a is not b is c not in d in e");
    ASSERT_EXPR("(and a b c)", "a and b and c");
    ASSERT_EXPR("(or (and a b) (and c d))", "a and b or c and d");

    /* Trailers bind tightest, left to right. */
    ASSERT_EXPR("(call (. (. cuda atomic) add) a 0 (neg v))", "cuda.atomic.add(a, 0, -v)");
    ASSERT_EXPR("([] (call f) i)", "f()[i]");
    ASSERT_EXPR("(. ([] a 0) shape)", "a[0].shape");
    ASSERT_EXPR("([] a (tuple i (: 1 _ _) (: _ _ 2)))", "a[i, 1:, ::2]");
    ASSERT_EXPR("([] a (: _ _ _))", "a[:]");
    ASSERT_EXPR("([] a (tuple i))", "a[i,]");
    ASSERT_EXPR("(call f a b c=1 d=(+ 2 3))", "f(a, b, c=1, d=2 + 3)");
    ASSERT_EXPR("(tuple a b)", "a, b");
    ASSERT_EXPR("(tuple a)", "a,");
    ASSERT_EXPR("(tuple)", "()");
    ASSERT_EXPR("a", "(((a)))");
}

static void test_statements(void) {
    Parsed *p = parse_str("from numba import cuda, float32 as f32\n"
                          "import math\n"
                          "N = 16\n"
                          "@cuda.jit(device=True)\n"
                          "def g(x: f32, y: f32 = 1.0) -> f32:\n"
                          "    return x * y\n"
                          "@cuda.jit\n"
                          "def k(a: f32[::1]):\n"
                          "    '''doc'''\n"
                          "    i: int = cuda.grid(1)\n"
                          "    s, t = 0, 1\n"
                          "    s += 1; t -= 1\n"
                          "    for j in range(N):\n"
                          "        if j == 3:\n"
                          "            continue\n"
                          "        elif j > 5:\n"
                          "            break\n"
                          "        else:\n"
                          "            pass\n"
                          "    else:\n"
                          "        pass\n"
                          "    while i < 0:\n"
                          "        i = i + 1\n"
                          "    assert i >= 0, 'neg'\n"
                          "    raise ValueError\n");
    ASSERT(p->diag.error_count == 0);
    Node *m = p->module;
    ASSERT(m->body_len == 5);
    ASSERT(m->body[0]->kind == ND_IMPORT_FROM && m->body[0]->item_len == 2);
    ASSERT(m->body[0]->items[1]->asname && strcmp(m->body[0]->items[1]->asname, "f32") == 0);
    ASSERT(m->body[1]->kind == ND_IMPORT && m->body[2]->kind == ND_ASSIGN);
    Node *g = m->body[3];
    ASSERT(g->kind == ND_FUNCDEF && g->decorator_len == 1 && g->item_len == 2 && g->annotation);
    ASSERT(g->items[1]->annotation && g->items[1]->rhs && g->items[1]->rhs->kind == ND_FLOAT);
    ASSERT(g->body_len == 1 && g->body[0]->kind == ND_RETURN && g->body[0]->item_len == 1);
    Node *k = m->body[4];
    NodeKind want[] = {ND_EXPR_STMT, ND_ANNASSIGN, ND_ASSIGN, ND_AUGASSIGN, ND_AUGASSIGN,
                       ND_FOR, ND_WHILE, ND_ASSERT, ND_RAISE};
    int n = (int)(sizeof want / sizeof want[0]);
    ASSERT(k->body_len == n);
    for (int i = 0; i < n && i < k->body_len; i++) ASSERT(k->body[i]->kind == want[i]);
    Node *loop = k->body[5];
    ASSERT(loop->orelse_len == 1 && loop->body_len == 1);
    Node *branch = loop->body[0];
    ASSERT(branch->kind == ND_IF && branch->orelse_len == 1 && branch->orelse[0]->kind == ND_IF);
    ASSERT(branch->orelse[0]->orelse_len == 1 && branch->orelse[0]->orelse[0]->kind == ND_PASS);
    ASSERT(k->body[2]->items[0]->kind == ND_TUPLE && k->body[2]->rhs->kind == ND_TUPLE);
    ASSERT(k->body[3]->op == OP_ADD && k->body[4]->op == OP_SUB);
    done(p);

    /* Chained assignment: every target, in order (host code at module
     * level, as it assigns more than names: the Host node keeps it). */
    p = parse_str("a = b[0] = c.d = 1\n");
    Node *chain = p->module->body[0]->lhs;
    ASSERT(p->module->body[0]->kind == ND_HOST && chain->item_len == 3 && chain->items[2]->kind == ND_ATTR);
    done(p);
}

static void test_spans(void) {
    Parsed *p = parse_str("x = foo(a,\n        b) + 1\n");
    Node *value = p->module->body[0]->rhs;
    ASSERT(value->kind == ND_BINOP);
    ASSERT(value->span.begin == 4 && value->span.end == 25);
    ASSERT(value->lhs->span.begin == 4 && value->lhs->span.end == 21);
    int line, col;
    diag_line_col(&p->diag, 0, value->rhs->span.begin, &line, &col);
    ASSERT(line == 2 && col == 14);
    /* A compound statement runs to the end of its last clause. */
    done(p);
    p = parse_str("if a:\n    b\nelse:\n    cc\n");
    ASSERT(p->module->body[0]->span.begin == 0 && p->module->body[0]->span.end == 24);
    done(p);
}

static void test_recovery(void) {
    /* Independent errors, each reported, and the good statements kept. */
    Parsed *p = parse_str("x = (1 +)\n"
                          "y = 2\n"
                          "def f(a b):\n"
                          "    return a\n"
                          "z = [i for i in y]\n"
                          "for i in range(3)\n"
                          "    break\n"
                          "w = 3\n");
    ASSERT(p->diag.error_count == 3); /* the comprehension is host code's */
    ASSERT(p->module->body_len == 3);
    done(p);

    /* The error limit ends the parse. */
    char many[4000] = "";
    for (int i = 0; i < 100; i++) strcat(many, "x = )\n");
    p = parse_str(many);
    ASSERT(p->diag.error_count == 20 && p->diag.stop);
    done(p);

    /* A lexical error makes one message, not a second from the parser. */
    p = parse_str("x = 1 $ 2\ny = (\n");
    ASSERT(p->diag.error_count == 2);
    done(p);
}

/* Host code: each top-level statement outside the kernel language is one
 * Host node saying what it was, over the module names it binds; imports,
 * constants and @cuda.jit functions (as the imports name cuda.jit) stay. */
static void test_host_code(void) {
    Parsed *p = parse_str("import numba as nb\n"
                          "from numba.cuda import jit as j\n"
                          "N = 4\n"
                          "W, H = 16, 8\n"
                          "@nb.cuda.jit\n"
                          "def k1(a):\n"
                          "    a[0] = N\n"
                          "@j(device=True)\n"
                          "def d(x):\n"
                          "    return x\n"
                          "@nb.jit\n"
                          "def cpu(x):\n"
                          "    return [y for y in x]\n"
                          "data = {i: f'{i!r}' for i in range(N)}\n"
                          "k1[1, 32](data)\n"
                          "if __name__ == '__main__':\n"
                          "    with open('f') as fh:\n"
                          "        res = fh.read()\n"
                          "class C:\n"
                          "    def m(self, *a, **k): return lambda: (yield)\n");
    ASSERT(p->diag.error_count == 0);
    Node **b = p->module->body;
    ASSERT(p->module->body_len == 11 && b[10]->kind == ND_HOST);
    ASSERT(b[0]->kind == ND_IMPORT && b[1]->kind == ND_IMPORT_FROM && b[2]->kind == ND_ASSIGN && b[3]->kind == ND_ASSIGN);
    ASSERT(b[4]->kind == ND_FUNCDEF && b[5]->kind == ND_FUNCDEF);
    ASSERT(b[6]->kind == ND_HOST && !strcmp(b[6]->name, "function 'cpu'") && b[6]->lhs->kind == ND_FUNCDEF);
    ASSERT(b[7]->kind == ND_HOST && !strcmp(b[7]->name, "assignment") && b[7]->item_len == 1);
    ASSERT(b[8]->kind == ND_HOST && !strcmp(b[8]->name, "launch of k1") && b[8]->item_len == 0);
    ASSERT(b[9]->kind == ND_HOST && b[9]->item_len == 2 && !strcmp(b[9]->items[1]->name, "res"));
    done(p);
    /* In a kernel the same constructs are refused, each at its place. */
    p = parse_str("from numba import cuda\n"
                  "@cuda.jit\n"
                  "def k(a):\n"
                  "    b = [x for x in a]\n"
                  "    c = f'{a}'\n"
                  "    d = {0: 1}\n");
    ASSERT(p->diag.error_count == 3);
    done(p);
    /* Real syntax errors in host code are still errors. */
    p = parse_str("print(f'{x!z}')\ndef f(:\n    pass\nx = [1, 2\n");
    ASSERT(p->diag.error_count == 3);
    done(p);
}

static void test_limits(void) {
    size_t n = 100000;
    char *deep = malloc(3 * n + 16);
    /* 100,000 nested parentheses: one error, no stack overflow. */
    memcpy(deep, "x = ", 4);
    memset(deep + 4, '(', n);
    memset(deep + 4 + n, ')', n);
    deep[4 + 2 * n] = '\n';
    Parsed *p = parse(deep, 5 + 2 * n);
    ASSERT(p->diag.error_count == 1);
    done(p);
    /* The same with operators that recurse: unary minus, not, **. */
    const char *units[] = {"-", "not ", "2**", "a if b else "};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t len = strlen(units[u]), at = 4;
        for (size_t i = 0; i < 20000; i++, at += len) memcpy(deep + at, units[u], len);
        memcpy(deep + at, "1\n", 2);
        p = parse(deep, at + 2);
        ASSERT(p->diag.error_count == 1);
        done(p);
    }
    /* A tall tree built by a loop, not recursion: refused by height. */
    size_t at = 4;
    for (size_t i = 0; i < 5000; i++, at += 2) memcpy(deep + at, "a+", 2);
    memcpy(deep + at, "a\n", 2);
    p = parse(deep, at + 2);
    ASSERT(p->diag.error_count == 1);
    done(p);
    free(deep);
}

void test_parser(void) {
    sink = fopen("/dev/null", "w");
    test_precedence();
    test_statements();
    test_spans();
    test_recovery();
    test_host_code();
    test_limits();
    fclose(sink);
}
