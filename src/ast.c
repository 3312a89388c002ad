/*
 * ast.c - syntax tree nodes and their text dump.
 *
 * The dump (--dump-ast) is a stable interface: the lit tests match it. One
 * line a node, indented two spaces a level: `role: Kind details <range>`,
 * where role names the parent's field that holds the node and the range is
 * `line:col-line:col`, the end exclusive, columns in characters.
 */
#include "pykc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const node_names[] = {
#define X(kind, name) name,
    NODE_LIST(X)
#undef X
};

static const char *const op_spellings[] = {
#define X(op, spelling, name) spelling,
    OP_LIST(X)
#undef X
};

static const char *const op_names[] = {
#define X(op, spelling, name) name,
    OP_LIST(X)
#undef X
};

const char *node_kind_name(NodeKind k) { return k >= 0 && k < ND_COUNT ? node_names[k] : "?"; }
const char *op_spelling(Op op) { return op >= 0 && op < OP_COUNT ? op_spellings[op] : "?"; }
const char *op_name(Op op) { return op >= 0 && op < OP_COUNT ? op_names[op] : "?"; }

Node *node_new(Arena *a, NodeKind kind, Span span) {
    Node *n = ARENA_NEW(a, Node);
    n->kind = kind;
    n->span = span;
    n->op = OP_NONE_;
    return n;
}

/* Two cursors, as the dump visits beginnings in order and ends in order,
 * each mostly forward: a one-line file of a million tokens dumps in linear
 * time. */
typedef struct Dumper {
    FILE *out;
    const Diag *diag;
    LineColCursor begin, end;
} Dumper;

static void dump_node(Dumper *dp, const Node *n, int depth, const char *role);

/* A str prints its UTF-8 as it is; bytes escape what is not ASCII. */
static void dump_string(FILE *out, const char *s, size_t len, bool bytes) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c == '\r') fputs("\\r", out);
        else if (c < 0x20 || c == 0x7F || (bytes && c >= 0x80)) fprintf(out, "\\x%02x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* Python's repr of a float: the shortest digits that read back as the same
 * double, in fixed notation for exponents -4 to 15 and scientific beyond. */
static void dump_double(FILE *out, double v) {
    if (isnan(v) || isinf(v)) {
        fputs(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", out);
        return;
    }
    char buf[64];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    char digits[32];
    int n = 0;
    const char *e = strchr(buf, 'e');
    for (const char *c = buf; c < e; c++)
        if (*c >= '0' && *c <= '9') digits[n++] = *c;
    while (n > 1 && digits[n - 1] == '0') n--;
    int exp = atoi(e + 1);
    if (buf[0] == '-') fputc('-', out);
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            fputs("0.", out);
            for (int i = 0; i < -exp - 1; i++) fputc('0', out);
            fwrite(digits, 1, (size_t)n, out);
        } else {
            for (int i = 0; i <= exp; i++) fputc(i < n ? digits[i] : '0', out);
            fputc('.', out);
            if (n > exp + 1) fwrite(digits + exp + 1, 1, (size_t)(n - exp - 1), out);
            else fputc('0', out);
        }
    } else {
        fputc(digits[0], out);
        if (n > 1) {
            fputc('.', out);
            fwrite(digits + 1, 1, (size_t)(n - 1), out);
        }
        fprintf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

static void dump_details(const Dumper *dp, const Node *n) {
    FILE *out = dp->out;
    switch (n->kind) {
    case ND_NAME: case ND_FUNCDEF: case ND_CLASSDEF: case ND_PARAM: case ND_KEYWORD:
        fprintf(out, " %s", n->name);
        break;
    case ND_ATTR:
        fprintf(out, " .%s", n->name);
        break;
    case ND_ALIAS:
        fprintf(out, " %s", n->name);
        if (n->asname) fprintf(out, " as %s", n->asname);
        break;
    case ND_IMPORT_FROM:
        fprintf(out, " %.*s%s%s", n->level, "..........", n->name ? n->name : "", n->star ? " *" : "");
        break;
    case ND_INT:
        if (n->v.i.overflow) fputs(" <too large>", out);
        else fprintf(out, " %llu", (unsigned long long)n->v.i.value);
        break;
    case ND_FLOAT:
        fputc(' ', out);
        dump_double(out, n->v.f);
        break;
    case ND_IMAG:
        fputc(' ', out);
        dump_double(out, n->v.f);
        fputc('j', out);
        break;
    case ND_STR:
        fputs(n->v.s.bytes ? " b" : " ", out);
        dump_string(out, n->v.s.data, n->v.s.len, n->v.s.bytes);
        break;
    case ND_BOOL:
        fputs(n->v.b ? " True" : " False", out);
        break;
    case ND_BINOP: case ND_UNARY: case ND_BOOLOP: case ND_AUGASSIGN:
        fprintf(out, " %s", op_spelling(n->op));
        break;
    case ND_COMPARE:
        for (int i = 0; i + 1 < n->item_len; i++) fprintf(out, " %s", op_spelling(n->ops[i]));
        break;
    case ND_TUPLE:
        if (n->paren) fputs(" (paren)", out);
        break;
    case ND_HOST: case ND_HOST_EXPR:
        fprintf(out, " %s", n->name);
        break;
    default:
        break;
    }
}

static void dump_list(Dumper *dp, Node *const *list, int len, int depth, const char *role) {
    for (int i = 0; i < len; i++) dump_node(dp, list[i], depth, role);
}

static void dump_children(Dumper *dp, const Node *n, int d) {
    switch (n->kind) {
    case ND_MODULE:
        dump_list(dp, n->body, n->body_len, d, "body");
        break;
    case ND_IMPORT: case ND_IMPORT_FROM:
        dump_list(dp, n->items, n->item_len, d, "name");
        break;
    case ND_FUNCDEF:
        dump_list(dp, n->decorators, n->decorator_len, d, "decorator");
        dump_list(dp, n->items, n->item_len, d, "param");
        if (n->annotation) dump_node(dp, n->annotation, d, "returns");
        dump_list(dp, n->body, n->body_len, d, "body");
        break;
    case ND_CLASSDEF:
        dump_list(dp, n->items, n->item_len, d, "base");
        dump_list(dp, n->kwargs, n->kwarg_len, d, "keyword");
        dump_list(dp, n->body, n->body_len, d, "body");
        break;
    case ND_PARAM:
        if (n->annotation) dump_node(dp, n->annotation, d, "annotation");
        if (n->rhs) dump_node(dp, n->rhs, d, "default");
        break;
    case ND_ASSIGN:
        dump_list(dp, n->items, n->item_len, d, "target");
        dump_node(dp, n->rhs, d, "value");
        break;
    case ND_ANNASSIGN:
        dump_node(dp, n->lhs, d, "target");
        dump_node(dp, n->annotation, d, "annotation");
        if (n->rhs) dump_node(dp, n->rhs, d, "value");
        break;
    case ND_AUGASSIGN:
        dump_node(dp, n->lhs, d, "target");
        dump_node(dp, n->rhs, d, "value");
        break;
    case ND_IF: case ND_WHILE:
        dump_node(dp, n->cond, d, "test");
        dump_list(dp, n->body, n->body_len, d, "body");
        dump_list(dp, n->orelse, n->orelse_len, d, "orelse");
        break;
    case ND_FOR:
        dump_node(dp, n->cond, d, "target");
        dump_node(dp, n->iter, d, "iter");
        dump_list(dp, n->body, n->body_len, d, "body");
        dump_list(dp, n->orelse, n->orelse_len, d, "orelse");
        break;
    case ND_RETURN:
        dump_list(dp, n->items, n->item_len, d, "value");
        break;
    case ND_ASSERT:
        dump_node(dp, n->cond, d, "test");
        if (n->then) dump_node(dp, n->then, d, "msg");
        break;
    case ND_RAISE:
        if (n->rhs) dump_node(dp, n->rhs, d, "exc");
        break;
    case ND_EXPR_STMT:
        dump_node(dp, n->rhs, d, "value");
        break;
    case ND_BINOP:
        dump_node(dp, n->lhs, d, "left");
        dump_node(dp, n->rhs, d, "right");
        break;
    case ND_UNARY:
        dump_node(dp, n->rhs, d, "operand");
        break;
    case ND_BOOLOP: case ND_COMPARE: case ND_TUPLE: case ND_LIST:
        dump_list(dp, n->items, n->item_len, d, n->kind == ND_TUPLE || n->kind == ND_LIST ? "elt" : "operand");
        break;
    case ND_IFEXP:
        dump_node(dp, n->cond, d, "test");
        dump_node(dp, n->then, d, "body");
        dump_node(dp, n->els, d, "orelse");
        break;
    case ND_CALL:
        dump_node(dp, n->func, d, "func");
        dump_list(dp, n->items, n->item_len, d, "arg");
        dump_list(dp, n->kwargs, n->kwarg_len, d, "keyword");
        break;
    case ND_KEYWORD:
        dump_node(dp, n->rhs, d, "value");
        break;
    case ND_ATTR:
        dump_node(dp, n->lhs, d, "value");
        break;
    case ND_SUBSCRIPT:
        dump_node(dp, n->lhs, d, "value");
        dump_node(dp, n->rhs, d, "index");
        break;
    case ND_HOST:
        if (n->lhs) dump_node(dp, n->lhs, d, "stmt");
        dump_list(dp, n->items, n->item_len, d, "binds");
        break;
    case ND_HOST_EXPR:
        dump_list(dp, n->items, n->item_len, d, "part");
        break;
    case ND_LAMBDA:
        dump_list(dp, n->func->items, n->func->item_len, d, "param");
        dump_node(dp, n->func->body[0]->items[0], d, "body");
        break;
    case ND_SLICE:
        if (n->lower) dump_node(dp, n->lower, d, "lower");
        if (n->upper) dump_node(dp, n->upper, d, "upper");
        if (n->step) dump_node(dp, n->step, d, "step");
        break;
    default:
        break;
    }
}

static void dump_node(Dumper *dp, const Node *n, int depth, const char *role) {
    int l0, c0, l1, c1;
    diag_line_col_at(dp->diag, &dp->begin, n->span.file, n->span.begin, &l0, &c0);
    diag_line_col_at(dp->diag, &dp->end, n->span.file, n->span.end, &l1, &c1);
    fprintf(dp->out, "%*s", depth * 2, "");
    if (role) fprintf(dp->out, "%s: ", role);
    fputs(node_kind_name(n->kind), dp->out);
    dump_details(dp, n);
    fprintf(dp->out, " <%d:%d-%d:%d>\n", l0, c0, l1, c1);
    dump_children(dp, n, depth + 1);
}

void ast_dump(FILE *out, const Diag *d, const Node *n) {
    Dumper dp = {.out = out, .diag = d};
    dump_node(&dp, n, 0, NULL);
}

static Node **clone_list(Arena *a, Node *const *list, int n) {
    if (!list || n == 0) return NULL;
    Node **out = ARENA_ARRAY(a, Node *, n);
    for (int i = 0; i < n; i++) out[i] = node_clone(a, list[i]);
    return out;
}

/* Sema's annotations live in the nodes, so a specialisation of a device
 * function, or a second copy of a test, needs its own tree. */
Node *node_clone(Arena *a, const Node *n) {
    if (!n) return NULL;
    Node *c = ARENA_NEW(a, Node);
    *c = *n;
    c->ty = NULL;
    c->sym = NULL;
    c->casts = NULL;
    c->entity = NULL;
    c->attr = ATTR_NONE;
    c->constant = NULL;
    c->dims = NULL;
    c->op_calls = NULL;
    c->retest = NULL;
    c->unreached = false;
    c->captures = NULL;
    c->capture_len = 0;
    c->unroll = NULL;
    Node **kids[] = {&c->lhs, &c->rhs, &c->cond, &c->iter, &c->then, &c->els, &c->annotation,
                     &c->lower, &c->upper, &c->step, &c->func};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) *kids[i] = node_clone(a, *kids[i]);
    c->body = clone_list(a, n->body, n->body_len);
    c->orelse = clone_list(a, n->orelse, n->orelse_len);
    c->items = clone_list(a, n->items, n->item_len);
    c->kwargs = clone_list(a, n->kwargs, n->kwarg_len);
    c->decorators = clone_list(a, n->decorators, n->decorator_len);
    return c;
}
