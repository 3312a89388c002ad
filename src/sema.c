/*
 * sema.c - names and types, as numba-cuda gives them.
 *
 * Takes the parsed module and gives every expression a type (Node.ty), every
 * name a symbol (Node.sym), every call its callee (Node.entity) and every
 * operand the type it converts to (Node.casts), so that codegen decides
 * nothing about typing. Module-level imports bind names to the entities of
 * builtins.c; module constants are folded; decorators say what is a kernel.
 *
 * Locals are typed as Numba types them: each variable's type is the
 * unification of what is assigned to it (NumPy promotion for numbers). As a
 * loop may read a variable before the assignment that widens it, a function
 * is typed repeatedly, silently, until no variable's type changes, and then
 * once more to report errors and record types.
 */
#include "pykc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Names to symbols: an array in binding order (for "did you mean") with an
 * open-addressing index beside it, so that a module of 100,000 constants
 * binds and looks up in constant time. */
typedef struct Scope {
    Sym **syms;
    int count, cap;
    int *slots;          /* index into syms + 1; 0 is empty */
    int slot_cap;        /* a power of two, at least twice count */
    int binds;           /* a module's: bindings made so far (Sym.order) */
} Scope;

struct Sema {
    Unit *unit;
    Arena *arena;
    Diag *diag;
    Scope *globals;      /* the module scope of the code being typed */
    FuncInfo *fn;        /* the function being typed */
    Scope *locals;
    bool quiet;          /* a fixpoint pass: no diagnostics */
    bool changed;        /* a local's type changed in this pass */
    int loop_depth;
    int unroll_depth;    /* literal_unroll loops around the statement */
    bool replan;         /* a literal_unroll loop needs other versions: the
                            function's blocks are built again */
    bool in_signature;   /* names are numba.types names, as in "void(int32)" */
    bool reading_field;  /* typing the record whose field is read */
    bool return_failed;  /* a return's value failed to type (said already) */
    const char *fold_error; /* why the last fold failed, when it can say */
    struct Reported **reported; /* errors said so far, shared by imports */
    bool imported;       /* typing a module that another one imports */
    Vec *modules;        /* every .pyk module loaded, shared by imports */
    int before;          /* evaluating a module constant: module names are
                            those bound before it (Sym.order), as Python
                            runs the module; 0 otherwise */
    const Node *star_import; /* a `from M import *`, which binds nothing */
};

/* A .pyk module loaded by an import, kept so that each loads once. */
typedef struct LoadedModule {
    const char *path;
    Scope *globals;
    bool loading;        /* its import is in progress: a cycle */
} LoadedModule;

Arena *sema_arena(Sema *s) { return s->arena; }

/* A type as messages show it: Literal[int](5) reads as int64 there. */
const char *sema_type_name(Sema *s, Type *t) { return type_name(s->arena, type_strip_deep(s->arena, t)); }

/* A function typed twice (on its own for its annotations, then for a
 * call's argument types) must not say the same thing twice. */
typedef struct Reported {
    struct Reported *next;
    Span where;
    const char *text;
} Reported;

const char *sema_arg_types(Sema *s, const Node *call) {
    char buf[256] = "";
    for (int i = 0; i < call->item_len; i++) {
        strncat(buf, i ? ", " : "", sizeof buf - strlen(buf) - 1);
        strncat(buf, sema_type_name(s, call->items[i]->ty), sizeof buf - strlen(buf) - 1);
    }
    return arena_strdup(s->arena, buf);
}

/* Whether text was said at where already; notes that it now is. */
static bool said_before(Sema *s, Span where, const char *text) {
    for (Reported *r = *s->reported; r; r = r->next)
        if (r->where.file == where.file && r->where.begin == where.begin && !strcmp(r->text, text)) return true;
    Reported *r = ARENA_NEW(s->arena, Reported);
    r->where = where;
    r->text = arena_strdup(s->arena, text);
    r->next = *s->reported;
    *s->reported = r;
    return false;
}

void sema_error(Sema *s, Span where, const char *fmt, ...) {
    if (s->quiet || s->diag->stop) return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!said_before(s, where, text)) diag_error(s->diag, where, "%s", text);
}

/* ---- scopes ------------------------------------------------------------------- */

static uint32_t name_hash(const char *name) {
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

/* The slot that holds name, or the empty one where it would go. */
static int *scope_slot(const Scope *sc, const char *name) {
    uint32_t mask = (uint32_t)sc->slot_cap - 1;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int *slot = &sc->slots[i];
        if (*slot == 0 || strcmp(sc->syms[*slot - 1]->name, name) == 0) return slot;
    }
}

static Sym *scope_find(const Scope *sc, const char *name) {
    if (!sc->slot_cap) return NULL;
    int *slot = scope_slot(sc, name);
    return *slot ? sc->syms[*slot - 1] : NULL;
}

static void scope_reindex(Sema *s, Scope *sc, int cap) {
    sc->slots = ARENA_ARRAY(s->arena, int, cap);
    sc->slot_cap = cap;
    for (int i = 0; i < sc->count; i++) *scope_slot(sc, sc->syms[i]->name) = i + 1;
}

/* Binds sym's name to sym; a name bound already is rebound (the last
 * binding wins, as in Python). */
static void scope_add(Sema *s, Scope *sc, Sym *sym) {
    if (sc->slot_cap && *scope_slot(sc, sym->name)) {
        sc->syms[*scope_slot(sc, sym->name) - 1] = sym;
        return;
    }
    ARENA_GROW(s->arena, sc->syms, sc->count, sc->cap, 16);
    sc->syms[sc->count++] = sym;
    if (2 * sc->count > sc->slot_cap) scope_reindex(s, sc, sc->slot_cap ? sc->slot_cap * 2 : 32);
    else *scope_slot(sc, sym->name) = sc->count;
}

static Sym *new_sym(Sema *s, SymKind kind, const char *name, Span def) {
    Sym *sym = ARENA_NEW(s->arena, Sym);
    sym->kind = kind;
    sym->name = name;
    sym->def = def;
    return sym;
}

/* A local's SSA version (ssa.c), or a parameter, which is its first. */
static bool is_version(const Sym *sym) { return sym && (sym->kind == SYM_LOCAL || sym->kind == SYM_PARAM); }

static Sym *resolve(Sema *s, Sym *sym);

/* A module name as code reads it: the binding in force (for a constant's
 * value, the one before it), its value evaluated if it was pending. */
static Sym *global_sym(Sema *s, const char *name) {
    Sym *sym = scope_find(s->globals, name);
    while (sym && s->before && sym->order >= s->before) sym = sym->shadowed;
    return resolve(s, sym);
}

static Sym *lookup(Sema *s, const char *name) {
    Sym *sym = s->locals ? scope_find(s->locals, name) : NULL;
    return sym ? sym : global_sym(s, name);
}

/* Levenshtein distance, for "did you mean". */
static int edit_distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) return 99;
    int row[65];
    for (size_t j = 0; j <= m; j++) row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int cur = row[j];
            int best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[m];
}

static const char *builtin_names[] = {"abs", "min", "max", "len", "sum", "range", "int", "float", "bool",
                                      "round", "complex", "pow", "print"};

static const char *suggest(Sema *s, const char *name) {
    const char *best = NULL;
    int best_d = strlen(name) <= 3 ? 1 : 2;
    Scope *scopes[] = {s->locals, s->globals};
    for (int k = 0; k < 2; k++) {
        if (!scopes[k]) continue;
        for (int i = 0; i < scopes[k]->count; i++) {
            int d = edit_distance(name, scopes[k]->syms[i]->name);
            if (d <= best_d) { best_d = d; best = scopes[k]->syms[i]->name; }
        }
    }
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++) {
        int d = edit_distance(name, builtin_names[i]);
        if (d < best_d || (d == best_d && !best)) { best_d = d; best = builtin_names[i]; }
    }
    return best;
}

static void note_undefined(Sema *s, Node *n) {
    if (s->quiet || s->diag->stop) return; /* suggestions cost edit distances */
    const char *hint = suggest(s, n->name);
    int errors = s->diag->error_count;
    if (hint) sema_error(s, n->span, "undefined name '%s'; did you mean '%s'?", n->name, hint);
    else sema_error(s, n->span, "undefined name '%s'", n->name);
    if (hint && s->diag->error_count != errors) diag_fixit(s->diag, n->span, hint);
    if (s->star_import && s->diag->error_count != errors)
        diag_note(s->diag, s->star_import->span, "'from %s import *' binds no names in pykc: import the names kernels use",
                  s->star_import->name ? s->star_import->name : ".");
}

/* A kernel reads a name that host code binds: an error that says so, once
 * a name, with a note where it is bound. */
static void note_host_name(Sema *s, Node *n, Sym *sym) {
    if (s->quiet || s->diag->stop) return;
    int errors = s->diag->error_count;
    if (sym->why) { /* an import that kernels cannot use: its own error, where it is */
        sema_error(s, sym->def, "%s", sym->why);
        if (s->diag->error_count != errors) diag_note(s->diag, n->span, "a kernel uses '%s' here", n->name);
        return;
    }
    bool function = sym->host && sym->host->lhs && sym->host->lhs->kind == ND_FUNCDEF;
    if (function) sema_error(s, n->span, "'%s' is a host function: kernels call only device functions", n->name);
    else sema_error(s, n->span, "'%s' is a host value: kernels read only module constants and their arguments", n->name);
    if (s->diag->error_count == errors) return;
    if (function)
        diag_note(s->diag, sym->def, "'%s' is defined here without @cuda.jit; @cuda.jit(device=True) makes it a device function",
                  n->name);
    else
        diag_note(s->diag, sym->def, "'%s' is set here, by host code (%s) that pykc skips", n->name, sym->host->name);
}

/* ---- compile-time constants ---------------------------------------------------- */

static ConstValue *new_const(Sema *s, Type *ty) {
    ConstValue *c = ARENA_NEW(s->arena, ConstValue);
    c->ty = ty;
    return c;
}

static ConstValue *fold(Sema *s, Node *n);
static Type *type_expr(Sema *s, Node *n);

/* Python's ints have no bound; folding keeps them exact up to 2 ** 100, far
 * past any 64-bit value, and pins a larger one there, marked too big. */
static const __int128 FOLD_LIMIT = (__int128)1 << 100;

/* An integer result of folding: int64 when it fits, uint64 above that,
 * as Numba types a Python int; too_big when neither holds it. */
static ConstValue *int_result(Sema *s, __int128 v) {
    if (v > FOLD_LIMIT) v = FOLD_LIMIT;
    if (v < -FOLD_LIMIT) v = -FOLD_LIMIT;
    ConstValue *r = new_const(s, v > INT64_MAX ? &ty_uint64 : &ty_int64);
    r->v.i = (int64_t)(uint64_t)v;
    r->exact = v;
    r->too_big = v > (__int128)UINT64_MAX || v < (__int128)INT64_MIN;
    return r;
}

/* A value pinned at the limit: what it stands for is no longer known. */
static bool pinned_at_limit(const ConstValue *c) { return c->too_big && (c->exact == FOLD_LIMIT || c->exact == -FOLD_LIMIT); }

static __int128 wide(const ConstValue *c) {
    if (c->exact || c->too_big) return c->exact;
    return c->ty == &ty_uint64 ? (__int128)(uint64_t)c->v.i : (__int128)c->v.i;
}

/* bool(c), as Python takes it */
static bool const_truth(const ConstValue *c) { return c->ty == &ty_float64 ? c->v.f != 0 : wide(c) != 0; }

static __int128 mul_pinned(__int128 p, __int128 q) {
    __int128 r;
    if (__builtin_mul_overflow(p, q, &r)) return (p < 0) != (q < 0) ? -FOLD_LIMIT : FOLD_LIMIT;
    return r;
}

/* p ** q for q >= 0 by squaring, pinned at the limit. */
static __int128 pow_pinned(__int128 p, __int128 q) {
    __int128 acc = 1;
    for (; q > 0; q >>= 1) {
        if (q & 1) acc = mul_pinned(acc, p);
        if (acc > FOLD_LIMIT || acc < -FOLD_LIMIT) return acc;
        if (q > 1) p = mul_pinned(p, p);
        if ((p > FOLD_LIMIT || p < -FOLD_LIMIT) && q > 1) return (p < 0 && (q & 1)) ? -FOLD_LIMIT : FOLD_LIMIT;
    }
    return acc;
}

/* An order: -1, 0 or 1, or 2 when a NaN makes the values unordered. */
enum { UNORDERED = 2 };

/* An int against a float, exactly, as Python compares them (never through
 * a double, which 2 ** 53 + 1 does not fit). */
static int compare_int_float(__int128 p, double x) {
    if (x != x) return UNORDERED;
    if (x >= 0x1p126) return -1;
    if (x <= -0x1p126) return 1;
    double whole = trunc(x);
    __int128 w = (__int128)whole;
    if (p != w) return p < w ? -1 : 1;
    return x > whole ? -1 : x < whole ? 1 : 0;
}

/* How folded scalars a and b compare. */
static int compare_constants(const ConstValue *a, const ConstValue *b) {
    bool fa = a->ty == &ty_float64, fb = b->ty == &ty_float64;
    if (fa && fb) return a->v.f != a->v.f || b->v.f != b->v.f ? UNORDERED : (a->v.f > b->v.f) - (a->v.f < b->v.f);
    if (fa) {
        int r = compare_int_float(wide(b), a->v.f);
        return r == UNORDERED ? r : -r;
    }
    if (fb) return compare_int_float(wide(a), b->v.f);
    __int128 p = wide(a), q = wide(b);
    return (p > q) - (p < q);
}

static bool compare_holds(Op op, int order) {
    if (order == UNORDERED) return op == OP_NE;
    switch (op) {
    case OP_EQ: return order == 0;
    case OP_NE: return order != 0;
    case OP_LT: return order < 0;
    case OP_LE: return order <= 0;
    case OP_GT: return order > 0;
    default: return order >= 0;
    }
}

static ConstValue *fold_binary(Sema *s, Node *n, ConstValue *a, ConstValue *b) {
    bool ints = a->ty->kind != TY_FLOAT && b->ty->kind != TY_FLOAT;
    if (pinned_at_limit(a) || pinned_at_limit(b)) {
        if (ints) return int_result(s, FOLD_LIMIT);
        s->fold_error = "an integer beyond 2 ** 100 (pykc folds no larger ones)";
        return NULL;
    }
    double x = a->ty->kind == TY_FLOAT ? a->v.f : (double)wide(a), y = b->ty->kind == TY_FLOAT ? b->v.f : (double)wide(b);
    __int128 p = wide(a), q = wide(b);
    ConstValue *r = new_const(s, &ty_float64);
    switch (n->op) {
    case OP_ADD: if (ints) return int_result(s, p + q); r->v.f = x + y; return r;
    case OP_SUB: if (ints) return int_result(s, p - q); r->v.f = x - y; return r;
    case OP_MUL:
        if (!ints) { r->v.f = x * y; return r; }
        return int_result(s, mul_pinned(p, q));
    case OP_DIV:
        if (y == 0) {
            s->fold_error = ints ? "division by zero" : "float division by zero";
            return NULL;
        }
        r->v.f = x / y;
        return r;
    case OP_FLOORDIV: case OP_MOD: {
        if ((ints && q == 0) || (!ints && y == 0)) {
            /* ZeroDivisionError, as CPython words it */
            s->fold_error = n->op == OP_MOD ? "integer modulo by zero" : "integer division or modulo by zero";
            if (!ints) s->fold_error = n->op == OP_MOD ? "float modulo by zero" : "float floor division by zero";
            return NULL;
        }
        if (!ints) { /* Python's float // and % (float_divmod in CPython) */
            double m = fmod(x, y), d = (x - m) / y;
            if (m != 0 && ((y < 0) != (m < 0))) {
                m += y;
                d -= 1.0;
            }
            double fl = floor(d);
            if (d - fl > 0.5) fl += 1.0;
            r->v.f = n->op == OP_MOD ? m : fl;
            return r;
        }
        __int128 d = p / q - ((p % q != 0) && ((p < 0) != (q < 0)));
        return int_result(s, n->op == OP_MOD ? p - d * q : d);
    }
    case OP_LSHIFT: case OP_RSHIFT:
        if (!ints) return NULL;
        if (q < 0) {
            s->fold_error = "negative shift count";
            return NULL;
        }
        if (n->op == OP_LSHIFT) return int_result(s, mul_pinned(p, (__int128)1 << (q > 101 ? 101 : q)));
        return int_result(s, q > 126 ? (p < 0 ? -1 : 0) : p >> q); /* floors, as Python's >> does */
    case OP_BITAND: if (!ints) return NULL; return int_result(s, p & q);
    case OP_BITOR: if (!ints) return NULL; return int_result(s, p | q);
    case OP_BITXOR: if (!ints) return NULL; return int_result(s, p ^ q);
    case OP_POW: {
        if (x == 0 && y < 0) {
            s->fold_error = "0.0 cannot be raised to a negative power";
            return NULL;
        }
        if (!ints || q < 0) { /* an int to a negative power is a float in Python */
            r->v.f = pow(x, y);
            return r;
        }
        return int_result(s, pow_pinned(p, q));
    }
    default: return NULL;
    }
}

/* Folds a module-level expression; NULL if it is not a constant. */
static ConstValue *fold(Sema *s, Node *n) {
    ConstValue *c;
    switch (n->kind) {
    case ND_INT:
        if (n->v.i.overflow) return int_result(s, FOLD_LIMIT);
        if (n->v.i.value > INT64_MAX) return int_result(s, (__int128)n->v.i.value);
        c = new_const(s, &ty_int64);
        c->v.i = (int64_t)n->v.i.value;
        return c;
    case ND_FLOAT: c = new_const(s, &ty_float64); c->v.f = n->v.f; return c;
    case ND_BOOL: c = new_const(s, &ty_bool); c->v.b = n->v.b; c->v.i = n->v.b; return c;
    case ND_NAME: {
        Sym *sym = lookup(s, n->name);
        if (sym && sym->kind == SYM_HOST && !sym->why)
            s->fold_error = arena_printf(s->arena, "'%s' is set by host code (%s)", n->name, sym->host->name);
        return sym && sym->kind == SYM_CONST && sym->value->ty->kind != TY_ARRAY ? sym->value : NULL;
    }
    case ND_UNARY: {
        if (n->constant) return n->constant; /* a CPython literal, folded as it was typed */
        ConstValue *a = fold(s, n->rhs);
        if (!a || a->ty->kind == TY_TUPLE) return NULL;
        bool is_int = a->ty != &ty_float64;
        /* Python's ints: -(-2**63) is 2**63, a uint64 to Numba */
        if (is_int && n->op == OP_NEG) return pinned_at_limit(a) ? a : int_result(s, -wide(a));
        if (is_int && n->op == OP_POS) return int_result(s, wide(a));
        if (is_int && n->op == OP_INVERT) return pinned_at_limit(a) ? a : int_result(s, ~wide(a));
        c = new_const(s, a->ty == &ty_bool ? &ty_int64 : a->ty);
        if (n->op == OP_NEG) c->v.f = -a->v.f;
        else if (n->op == OP_POS) c->v = a->v;
        else if (n->op == OP_NOT) { c->ty = &ty_bool; c->v.i = c->v.b = !const_truth(a); }
        else return NULL;
        return c;
    }
    case ND_BINOP: {
        if (n->constant) return n->constant;
        ConstValue *a = fold(s, n->lhs), *b = fold(s, n->rhs);
        if (!a || !b || a->ty->kind == TY_TUPLE || b->ty->kind == TY_TUPLE) return NULL;
        return fold_binary(s, n, a, b);
    }
    case ND_COMPARE: {
        bool truth = true;
        for (int i = 0; i + 1 < n->item_len; i++) {
            ConstValue *a = fold(s, n->items[i]), *b = fold(s, n->items[i + 1]);
            if (!a || !b || a->ty->kind == TY_TUPLE || b->ty->kind == TY_TUPLE || n->ops[i] > OP_GE) return NULL;
            truth = truth && compare_holds(n->ops[i], compare_constants(a, b));
        }
        c = new_const(s, &ty_bool);
        c->v.i = c->v.b = truth;
        return c;
    }
    case ND_BOOLOP: { /* `a and b` is a when a is false, else b; `or` mirrors it */
        ConstValue *last = NULL;
        for (int i = 0; i < n->item_len; i++) {
            last = fold(s, n->items[i]);
            if (!last || last->ty->kind == TY_TUPLE) return NULL;
            bool truth = const_truth(last);
            if (truth == (n->op == OP_OR)) return last;
        }
        return last;
    }
    case ND_IFEXP: {
        ConstValue *cond = fold(s, n->cond);
        if (!cond || cond->ty->kind == TY_TUPLE) return NULL;
        bool truth = const_truth(cond);
        return fold(s, truth ? n->then : n->els);
    }
    case ND_SUBSCRIPT: {
        ConstValue *t = fold(s, n->lhs), *k = fold(s, n->rhs);
        if (!t || !k || t->ty->kind != TY_TUPLE || k->ty != &ty_int64) return NULL;
        int64_t i = k->v.i < 0 ? k->v.i + t->elem_count : k->v.i;
        return i >= 0 && i < t->elem_count ? t->elems[i] : NULL;
    }
    case ND_CALL: {
        /* np.float32(1.5), numba.int32(3): a scalar constant of that type */
        if (n->item_len != 1 || n->kwarg_len) return NULL;
        Type *callee = type_expr(s, n->func);
        ConstValue *a = fold(s, n->items[0]);
        if (callee->kind != TY_DTYPE || !a || a->ty->kind == TY_TUPLE || !is_scalar(callee->dtype) ||
            callee->dtype->kind == TY_COMPLEX)
            return NULL;
        c = new_const(s, callee->dtype);
        double f = a->ty == &ty_float64 ? a->v.f : (double)wide(a);
        if (callee->dtype->kind == TY_FLOAT) c->v.f = f;
        else c->v.i = a->ty == &ty_float64 ? (int64_t)a->v.f : a->v.i;
        if (callee->dtype->kind == TY_BOOL) c->v.i = c->v.b = (f != 0);
        return c;
    }
    case ND_TUPLE: {
        c = new_const(s, NULL);
        c->elems = ARENA_ARRAY(s->arena, ConstValue *, n->item_len ? n->item_len : 1);
        Type **tys = ARENA_ARRAY(s->arena, Type *, n->item_len ? n->item_len : 1);
        for (int i = 0; i < n->item_len; i++) {
            if (!(c->elems[i] = fold(s, n->items[i]))) return NULL;
            tys[i] = c->elems[i]->ty;
        }
        c->elem_count = n->item_len;
        c->ty = type_tuple(s->arena, tys, n->item_len);
        return c;
    }
    default: return NULL;
    }
}

bool sema_is_literal(Sema *s, Node *n) {
    Type *t = n->ty ? n->ty : type_expr(s, n);
    return t->literal || t->kind == TY_ERROR;
}

bool sema_const_int(Sema *s, Node *n, const char *what, int64_t *out) {
    if (n->kind == ND_NAME && is_version(n->sym)) { /* n = 8: Numba types n as Literal[int](8) */
        Type *t = type_expr(s, n);
        if (t->kind == TY_INT && t->literal) {
            *out = t->lit_value;
            return true;
        }
    }
    if (s->fn) { /* SHAPE[1], of a tuple of module constants: Numba types it Literal[int](8) */
        Type *t = n->ty ? n->ty : type_expr(s, n);
        if (t->kind == TY_INT && t->literal) {
            *out = t->lit_value;
            return true;
        }
        if (t->kind == TY_ERROR) return false; /* said already */
    }
    ConstValue *c = s->fn ? NULL : fold(s, n);
    if (!c && (n->kind == ND_INT || n->kind == ND_NAME || n->kind == ND_BINOP || n->kind == ND_UNARY)) {
        Scope *saved = s->locals;
        s->locals = NULL; /* constants live at module level */
        c = fold(s, n);
        s->locals = saved;
    }
    if (!c || (c->ty != &ty_int64 && c->ty != &ty_bool)) {
        sema_error(s, n->span, "%s must be a compile-time integer constant", what);
        return false;
    }
    *out = c->v.i;
    return true;
}

/* ---- annotations and dtypes ----------------------------------------------------- */

static Type *type_expr(Sema *s, Node *n);

static const Entity *entity_of(Sema *s, Node *n) {
    Type *t = n->ty ? n->ty : type_expr(s, n);
    return t->kind == TY_ENTITY ? t->entity : NULL;
}

/* A name in a signature string: Numba evaluates the string among
 * numba.types' names alone, so the module's own names are not seen. */
static Type *signature_name(Sema *s, Node *n) {
    Type *t = type_by_numba_name(n->name);
    if (!t) sema_error(s, n->span, "unknown type '%s' in the signature: it names Numba types such as float32", n->name);
    return t ? t : &ty_error;
}

Type *sema_dtype_arg(Sema *s, Node *n, const char *what) {
    if (n->kind == ND_NAME && s->in_signature) {
        Type *t = signature_name(s, n);
        if (t->kind == TY_ERROR || t != &ty_none) return t;
    } else if (n->kind == ND_STR) {
        /* NumPy's byte order: little-endian ('<', '=', '|') is the GPU's */
        const char *name = strchr("<=|", n->v.s.data[0]) && n->v.s.data[0] ? n->v.s.data + 1 : n->v.s.data;
        if (n->v.s.data[0] == '>') {
            sema_error(s, n->span, "%s cannot be big-endian ('%s'): the GPU is little-endian", what, n->v.s.data);
            return &ty_error;
        }
        Type *t = type_by_name(name);
        if (t && t != &ty_none) return t;
    } else {
        Type *t = type_expr(s, n);
        if (t->kind == TY_DTYPE && t->dtype != &ty_none) return t->dtype;
        if (t->kind == TY_ERROR) return t;
    }
    sema_error(s, n->span, "%s must be a Numba type such as float32", what);
    return &ty_error;
}

/* The layout of an array annotation's index: [:] A, [::1] C, [:, ::1] C,
 * [::1, :] F. */
static bool is_full_slice(const Node *n) { return n->kind == ND_SLICE && !n->lower && !n->upper && !n->step; }
static bool is_unit_slice(const Node *n) {
    return n->kind == ND_SLICE && !n->lower && !n->upper && n->step && n->step->kind == ND_INT && n->step->v.i.value == 1;
}

static Type *array_annotation(Sema *s, Node *ann, Type *elem) {
    Node *idx = ann->rhs;
    Node **dims = &idx;
    int ndim = 1;
    if (idx->kind == ND_TUPLE) {
        dims = idx->items;
        ndim = idx->item_len;
    }
    char layout = 'A';
    for (int i = 0; i < ndim; i++) {
        if (is_unit_slice(dims[i])) {
            if (i == ndim - 1 && layout == 'A') layout = 'C';
            else if (i == 0 && ndim > 1) layout = 'F';
            else layout = 'X';
        } else if (!is_full_slice(dims[i])) {
            layout = 'X';
        }
    }
    if (layout == 'X' || ndim < 1) {
        sema_error(s, ann->span, "an array type is written T[:], T[:, :], T[::1], T[:, ::1] or T[::1, :]");
        return &ty_error;
    }
    if (ndim > PYKC_MAX_NDIM) {
        sema_error(s, ann->span, "an array has at most %d dimensions, as in NumPy", PYKC_MAX_NDIM);
        return &ty_error;
    }
    return type_array(s->arena, elem, ndim, layout);
}

static Type *annotation_type(Sema *s, Node *ann);

/* The tuple type callee names: in a signature string one of numba.types'
 * names, else what the module imported. */
static const Entity *tuple_type_entity(Sema *s, Node *callee) {
    const Entity *e = NULL;
    if (s->in_signature && callee->kind == ND_NAME) e = entity_lookup(arena_printf(s->arena, "numba.%s", callee->name));
    else if (!s->in_signature) e = entity_of(s, callee);
    return e && e->kind == ENT_TUPLE_TYPE ? e : NULL;
}

/* UniTuple(T, n) and Tuple((T1, T2, ...)), as numba.types makes them. */
static Type *tuple_annotation(Sema *s, Node *ann) {
    const Entity *e = tuple_type_entity(s, ann->func);
    bool uni = e && e->op == TUPLE_TYPE_UNI;
    Node *list = e && !uni && ann->item_len == 1 ? ann->items[0] : NULL;
    if (!e || ann->kwarg_len || (uni && ann->item_len != 2) || (!uni && (!list || (list->kind != ND_TUPLE && list->kind != ND_LIST)))) {
        sema_error(s, ann->span, "a tuple type is written UniTuple(T, n) or Tuple((T1, T2, ...)), with numba.types' names");
        return &ty_error;
    }
    int64_t n = 0;
    if (uni) {
        Type *elem = annotation_type(s, ann->items[0]);
        if (elem->kind == TY_ERROR || !sema_const_int(s, ann->items[1], "a UniTuple's length", &n)) return &ty_error;
        if (n < 0 || n > INT32_MAX) {
            sema_error(s, ann->items[1]->span, "a UniTuple's length must be 0 or more");
            return &ty_error;
        }
        return type_unituple(s->arena, elem, (int)n);
    }
    Type **elems = ARENA_ARRAY(s->arena, Type *, list->item_len + 1);
    for (int i = 0; i < list->item_len; i++)
        if ((elems[i] = annotation_type(s, list->items[i]))->kind == TY_ERROR) return &ty_error;
    return type_tuple(s->arena, elems, list->item_len);
}

/* A parameter, return or local annotation: a scalar type, an array or a
 * tuple of them. */
static Type *annotation_type(Sema *s, Node *ann) {
    if (ann->kind == ND_STR) {
        Type *t = type_by_name(ann->v.s.data);
        if (t) return t;
    }
    if (ann->kind == ND_NONE) return &ty_none;
    if (ann->kind == ND_NAME && s->in_signature) return signature_name(s, ann);
    if (ann->kind == ND_CALL) return tuple_annotation(s, ann);
    if (ann->kind == ND_SUBSCRIPT) {
        Type *elem = sema_dtype_arg(s, ann->lhs, "an array's element type");
        return elem->kind == TY_ERROR ? elem : array_annotation(s, ann, elem);
    }
    Type *t = type_expr(s, ann);
    if (t->kind == TY_DTYPE) return t->dtype;
    if (t->kind != TY_ERROR) sema_error(s, ann->span, "a type annotation must name a Numba type such as float32 or float32[:]");
    return &ty_error;
}

/* ---- expressions ------------------------------------------------------------------ */

static Type **new_casts(Sema *s, int n) { return ARENA_ARRAY(s->arena, Type *, n ? n : 1); }

static Type *set_type(Node *n, Type *t) {
    n->ty = t;
    return t;
}

/* How Numba types a global constant where a function reads it: ints and
 * bools as literals, and tuples of them element by element. */
static Type *const_type(Sema *s, ConstValue *c) {
    if (c->ty == &ty_int64 || c->ty == &ty_uint64) return type_literal_int(s->arena, c->v.i, c->ty == &ty_uint64);
    if (c->ty == &ty_bool) return type_literal_bool(s->arena, c->v.b);
    if (c->ty->kind == TY_TUPLE) {
        bool all_literal = true;
        for (int i = 0; i < c->elem_count; i++) all_literal = all_literal && (c->elems[i]->ty == &ty_int64 || c->elems[i]->ty == &ty_bool);
        if (!all_literal) return c->ty;
        Type **elems = ARENA_ARRAY(s->arena, Type *, c->elem_count ? c->elem_count : 1);
        for (int i = 0; i < c->elem_count; i++) elems[i] = const_type(s, c->elems[i]);
        return type_tuple(s->arena, elems, c->elem_count);
    }
    return c->ty;
}

/* Why two types do not unify, where it is not plain: two functions. */
static const char *unify_hint(const Type *a, const Type *b) {
    if (a && b && a->kind == TY_CLOSURE && b->kind == TY_CLOSURE)
        return ": numba-cuda calls a function defined inside a kernel only where it is known which one it is";
    return "";
}

/* A phi version's type: the unification of the versions that reach it,
 * kept from pass to pass as Numba's type variables keep theirs. */
static Type *phi_type(Sema *s, Sym *phi, Node *at) {
    if (phi->typing_phi) return phi->ty && phi->ty->kind != TY_ERROR ? phi->ty : NULL; /* a loop's, being typed */
    phi->typing_phi = true;
    /* an error of a silent pass is found again, to be said */
    Type *t = phi->ty && phi->ty->kind != TY_ERROR ? phi->ty : NULL;
    Sym *first = NULL; /* the first assignment that reaches it, for the note */
    for (int i = 0; i < phi->incoming_count && (!t || t->kind != TY_ERROR); i++) {
        Sym *v = phi->incoming[i];
        Type *vt = !v ? NULL : v->is_phi ? phi_type(s, v, at) : v->ty;
        if (!vt) continue;
        Type *u = t ? type_unify(s->arena, t, vt) : vt;
        if (!u) {
            const char *name = phi->base ? phi->base->name : phi->name;
            if (v->is_phi || !first) {
                sema_error(s, at->span, "cannot unify %s and %s for '%s' where its assignments meet%s", sema_type_name(s, t),
                           sema_type_name(s, vt), name, unify_hint(t, vt));
            } else if (!s->quiet && !s->diag->stop) {
                int errors = s->diag->error_count;
                sema_error(s, v->assigned, "cannot unify %s and %s for '%s'%s", sema_type_name(s, t), sema_type_name(s, vt),
                           name, unify_hint(t, vt));
                if (s->diag->error_count != errors) diag_note(s->diag, first->def, "'%s' is first assigned here", name);
            }
            phi->typing_phi = false;
            return &ty_error;
        }
        if (!first && !v->is_phi) first = v;
        t = u;
    }
    phi->typing_phi = false;
    if (t && (!phi->ty || !type_equal(t, phi->ty))) {
        phi->ty = t;
        s->changed = true;
    }
    return t;
}

/* The type of a read of a version; no version (or no type yet) means no
 * assignment reaches the read. */
static Type *read_version(Sema *s, Sym *v, Node *at) {
    Type *t = v->is_phi ? phi_type(s, v, at) : v->ty;
    if (t) return t;
    if (!s->quiet) sema_error(s, at->span, "local variable '%s' is read before it is assigned", at->name ? at->name : v->name);
    return &ty_error;
}

static bool holds_too_big(const ConstValue *c) {
    for (int i = 0; i < c->elem_count; i++)
        if (holds_too_big(c->elems[i])) return true;
    return c->too_big;
}

static Type *closure_reread(Sema *s, Node *n, Type *held);

static Type *type_name_ref(Sema *s, Node *n) {
    if (is_version(n->sym)) {
        Type *t = read_version(s, n->sym, n);
        /* a closure made in this function is made again where it is read */
        bool made_here = t->kind == TY_CLOSURE && t->func->sym && t->func->sym->func->enclosing == s->fn;
        n->dims = NULL;
        return made_here && n->captures ? closure_reread(s, n, t) : t;
    }
    Sym *sym = lookup(s, n->name);
    if (!sym) {
        const Entity *e = NULL;
        char path[128];
        snprintf(path, sizeof path, "builtins.%s", n->name);
        e = entity_lookup(path);
        if (e) return type_entity(s->arena, e);
        note_undefined(s, n);
        return &ty_error;
    }
    if (sym->kind == SYM_HOST) {
        note_host_name(s, n, sym);
        return &ty_error;
    }
    n->sym = sym;
    if (sym->kind == SYM_CONST && holds_too_big(sym->value)) {
        /* Numba types a global where a function reads it, and refuses it there */
        sema_error(s, n->span, "module constant '%s' is an integer too large for uint64: Numba types ints as int64 or uint64%s",
                   n->name, pinned_at_limit(sym->value) ? " (and pykc folds none beyond 2 ** 100, even in between)" : "");
        return &ty_error;
    }
    if (sym->kind == SYM_CONST) return const_type(s, sym->value);
    if (sym->ty && sym->ty->kind == TY_CLASS && sym->ty->cls->problem) {
        sema_error(s, n->span, "%s", sym->ty->cls->problem);
        return &ty_error;
    }
    return sym->ty ? sym->ty : &ty_error;
}

/* Where an error about an attribute points: its name after the dot. */
static Span name_site(const Node *n) { return n->at.end > n->at.begin ? n->at : n->span; }

static Type *member(Sema *s, Node *n, const Entity *base) {
    char path[256];
    snprintf(path, sizeof path, "%s.%s", base->path, n->name);
    /* numba.float16 is pykc's own name of numba.types.float16: numba lacks it */
    const Entity *e = entity_module_defines(base->path, n->name) == 0 ? NULL : entity_lookup(path);
    if (!e) {
        sema_error(s, name_site(n), "'%s' has no attribute '%s'", base->path, n->name);
        return &ty_error;
    }
    if (e->kind == ENT_DTYPE) return type_dtype(s->arena, e->type);
    if (e->kind == ENT_VALUE) {
        n->entity = e;
        return e->type;
    }

    return type_entity(s->arena, e);
}

/* ---- records ----------------------------------------------------------------------- */

/* "x, y, z": a record's field names, for messages. */
static const char *field_list(Sema *s, const Record *r) {
    const char *list = "";
    for (int i = 0; i < r->count; i++) list = arena_printf(s->arena, "%s%s%s", list, i ? ", " : "", r->fields[i].name);
    return list;
}

/* numba-cuda refuses a field whose offset is no multiple of its alignment
 * (sentry_record_alignment): the GPU cannot load it. */
static bool field_aligned(Sema *s, Span at, const Type *rec, const RecordField *f) {
    const Type *elem = f->type->kind == TY_ARRAY ? f->type->dtype : f->type;
    int align = type_abi_align(elem);
    if (f->offset % align == 0) return true;
    sema_error(s, at, "field '%s' of %s (%s at offset %ld) is not aligned: numba-cuda refuses it, as the GPU cannot "
               "load it; lay the record out with np.dtype(..., align=True)", f->name, sema_type_name(s, (Type *)rec),
               sema_type_name(s, (Type *)elem), f->offset);
    return false;
}

/* The field `name` of a record: its type, with the field recorded in n. */
static Type *record_member(Sema *s, Node *n, Type *rec, const char *name, Span at) {
    const RecordField *f = record_field(rec->record, name);
    if (!f) {
        sema_error(s, at, "the record has no field '%s' (its fields: %s)", name, field_list(s, rec->record));
        return &ty_error;
    }
    if (!field_aligned(s, at, rec, f)) return &ty_error;
    n->field = f;
    return f->type;
}

/* a.x or a['x'] of an array of records: a view of that field in every
 * element, as Numba's array_record_getattr makes it. */
static Type *record_array_view(Sema *s, Node *n, Type *arr, const char *name, Span at) {
    Type *ft = record_member(s, n, arr->dtype, name, at);
    if (ft->kind == TY_ERROR) return ft;
    if (ft->kind == TY_ARRAY) {
        sema_error(s, at, "a view of the array field '%s' across a record array is not supported: index an element first",
                   name);
        return &ty_error;
    }
    Type *view = type_array(s->arena, ft, arr->ndim, 'A');
    view->unaligned = arr->unaligned;
    return view;
}

/* r['x'] or r[1] of a record: a field by name or, as Numba's
 * static_getitem allows, by a constant position. */
static Type *record_subscript(Sema *s, Node *n, Type *rec) {
    Node *idx = n->rhs;
    if (idx->kind == ND_STR && !idx->v.s.bytes) return record_member(s, n, rec, idx->v.s.data, idx->span);
    ConstValue *c = idx->kind == ND_INT || idx->constant || idx->kind == ND_UNARY ? fold(s, idx) : NULL;
    int count = rec->record->count;
    if (c && c->ty == &ty_int64 && c->v.i >= -count && c->v.i < count)
        return record_member(s, n, rec, rec->record->fields[c->v.i < 0 ? c->v.i + count : c->v.i].name, idx->span);
    sema_error(s, idx->span, "a record is indexed by a field name (a string literal) or a constant position below %d",
               count);
    return &ty_error;
}

/* An array's attribute: NULL if it has none of that name. */
static Type *type_array_attribute(Sema *s, Type *base, Attr a) {
    switch (a) {
    case ATTR_SHAPE: case ATTR_STRIDES: return type_unituple(s->arena, &ty_int64, base->ndim);
    case ATTR_NDIM: return type_literal_int(s->arena, base->ndim, false);
    case ATTR_SIZE: case ATTR_ITEMSIZE: case ATTR_NBYTES: return &ty_int64;
    case ATTR_T: {
        char layout = base->ndim == 1 ? base->layout : base->layout == 'C' ? 'F' : base->layout == 'F' ? 'C' : 'A';
        return type_array(s->arena, base->dtype, base->ndim, layout);
    }
    case ATTR_DTYPE: return type_dtype(s->arena, base->dtype);
    case ATTR_REAL: case ATTR_IMAG:
        if (base->dtype->kind != TY_COMPLEX) return NULL;
        return type_array(s->arena, type_float(base->dtype->bits / 2), base->ndim, 'A');
    default: return NULL;
    }
}

/* The type of attribute a of a value of type base, or NULL if it has none. */
static Type *type_value_attribute(Sema *s, Type *base, Attr a) {
    bool part = a == ATTR_REAL || a == ATTR_IMAG;
    int component = a >= ATTR_X && a <= ATTR_W ? (int)(a - ATTR_X) : -1;
    switch (base->kind) {
    case TY_ENTITY: return component >= 0 && component < 3 ? &ty_int32 : NULL; /* threadIdx.x */
    case TY_ARRAY: return type_array_attribute(s, base, a);
    case TY_COMPLEX: return part ? type_float(base->bits / 2) : NULL;
    case TY_INT: case TY_FLOAT: return part ? type_strip(base) : NULL;
    case TY_GRID_GROUP: return a == ATTR_SYNC ? type_entity(s->arena, entity_lookup("GridGroup.sync")) : NULL;
    case TY_VECTOR: return component >= 0 && component < base->elem_count ? base->dtype : NULL;
    case TY_ENUM: return a == ATTR_VALUE ? base->dtype : NULL;
    case TY_RANGE: return a >= ATTR_START && a <= ATTR_STEP ? base->dtype : NULL;
    default: return NULL;
    }
}

/* Color.RED: an enum's member, a constant (n->sym). */
static Type *class_attribute(Sema *s, Node *n, ClassInfo *c) {
    for (int i = 0; c->kind != CLASS_NAMED_TUPLE && i < c->count; i++)
        if (!strcmp(c->names[i], n->name)) {
            n->sym = c->members[i];
            return n->sym->ty;
        }
    sema_error(s, name_site(n), "%s has no %s '%s'", sema_type_name(s, type_class(s->arena, c)),
               c->kind == CLASS_NAMED_TUPLE ? "attribute" : "member", n->name);
    return &ty_error;
}

/* p.x: a named tuple's field, its index in n->dims. NULL if it has none
 * of that name. */
static Type *field_attribute(Sema *s, Node *n, Type *base) {
    for (int i = 0; i < base->cls->count; i++)
        if (!strcmp(base->cls->names[i], n->name)) {
            n->attr = ATTR_FIELD;
            n->dims = ARENA_NEW(s->arena, long);
            n->dims[0] = i;
            return base->elems[i];
        }
    return NULL;
}

static Type *type_attribute(Sema *s, Node *n) {
    if (n->lhs->kind == ND_NAME) {
        Sym *mod = lookup(s, n->lhs->name);
        if (mod && mod->kind == SYM_MODULE) {
            Sym *member = scope_find(mod->members, n->name);
            if (!member || (member->kind != SYM_FUNC && member->kind != SYM_CONST)) {
                sema_error(s, name_site(n), "module '%s' has no device function or constant '%s'", n->lhs->name, n->name);
                return &ty_error;
            }
            n->sym = member;
            return member->ty;
        }
    }
    bool outer = s->reading_field;
    s->reading_field = true;
    Type *base = type_expr(s, n->lhs);
    s->reading_field = outer;
    if (base->kind == TY_ERROR) return base;
    if (base->kind == TY_ENTITY && base->entity->kind != ENT_DIM3) return member(s, n, base->entity);
    if (base->kind == TY_RECORD) return record_member(s, n, base, n->name, name_site(n));
    if (base->kind == TY_CLASS) return class_attribute(s, n, base->cls);
    Type *t = base->kind == TY_TUPLE && base->cls ? field_attribute(s, n, base) : NULL;
    if (t) return t;
    n->attr = attr_lookup(n->name);
    t = n->attr == ATTR_NONE ? NULL : type_value_attribute(s, base, n->attr);
    if (!t && base->kind == TY_ARRAY && base->dtype->kind == TY_RECORD) {
        n->attr = ATTR_NONE;
        return record_array_view(s, n, base, n->name, name_site(n));
    }
    if (t && base->kind == TY_ENTITY) n->entity = base->entity;
    if (t) return t;
    sema_error(s, name_site(n), "%s has no attribute '%s'", sema_type_name(s, base), n->name);
    return &ty_error;
}

/* Whether an index keeps its dimension contiguous (arraydecl.py): an
 * integer does, and so does a slice without a step as the innermost. */
static bool keeps_contiguity(const Node *idx, bool innermost) {
    if (idx->kind != ND_SLICE) return true;
    return innermost && !idx->step;
}

/* The layout of a view, as Numba infers it: a C array stays C when the
 * integers come first and only the innermost index is a plain slice (an F
 * array likewise from the other end); any other view is A. */
static char view_layout(const Type *base, Node **idx, int count) {
    if (base->layout == 'C') {
        if (count < base->ndim && count > 0 && idx[count - 1]->kind == ND_SLICE && idx[count - 1]->step) return 'A';
        for (int i = 0; i < count; i++)
            if (!keeps_contiguity(idx[i], i == count - 1)) return 'A';
        return 'C';
    }
    if (base->layout == 'F') {
        if (count < base->ndim) return 'A';
        for (int i = count - 1; i >= 0; i--)
            if (!keeps_contiguity(idx[i], i == 0)) return 'A';
        return 'F';
    }
    return 'A';
}

/* t[lo:hi:st] of a tuple with constant bounds: the tuple of those items.
 * Sema records the chosen positions in n->dims for codegen. */
static Type *tuple_slice_type(Sema *s, Node *n, Type *base) {
    Node *sl = n->rhs;
    int64_t len = base->elem_count, lo, hi, st = 1;
    Node *parts[3] = {sl->lower, sl->upper, sl->step};
    int64_t vals[3];
    for (int k = 0; k < 3; k++) {
        vals[k] = 0;
        if (parts[k] && !sema_const_int(s, parts[k], "a tuple slice bound", &vals[k])) return &ty_error;
    }
    if (parts[2]) st = vals[2];
    if (st == 0) {
        sema_error(s, sl->span, "slice step cannot be zero");
        return &ty_error;
    }
    lo = parts[0] ? vals[0] : (st < 0 ? len - 1 : 0);
    hi = parts[1] ? vals[1] : (st < 0 ? -len - 1 : len);
    if (lo < 0) lo += len;
    if (hi < 0) hi += len;
    if (lo < 0) lo = st < 0 ? -1 : 0;
    if (hi < 0) hi = st < 0 ? -1 : 0;
    if (lo > len) lo = len;
    if (hi > len) hi = len;
    if (st < 0 && lo >= len) lo = len - 1;
    Type **elems = ARENA_ARRAY(s->arena, Type *, len + 1);
    long *picks = ARENA_ARRAY(s->arena, long, len + 1);
    int n_out = 0;
    for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st) {
        picks[n_out] = (long)i;
        elems[n_out++] = base->elems[i];
    }
    picks[n_out] = -1;
    n->dims = picks;
    return type_tuple(s->arena, elems, n_out);
}

/* v in decimal, into the arena. */
static const char *int128_text(Sema *s, __int128 v) {
    char digits[48], *p = digits + sizeof digits - 1;
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    *p = '\0';
    do *--p = (char)('0' + (int)(m % 10)); while ((m /= 10) != 0);
    if (v < 0) *--p = '-';
    return arena_strdup(s->arena, p);
}

/* A tuple's element at a constant index (an int literal or an expression
 * CPython folds, whatever its size): its type, with the element recorded
 * in n->dims for codegen, or an error when no element is there. */
static Type *tuple_constant_index(Sema *s, Node *n, Type *base, const ConstValue *c) {
    __int128 k = wide(c);
    if (k < 0) k += base->elem_count;
    if (k < 0 || k >= base->elem_count) {
        const SourceFile *f = diag_file(s->diag, n->rhs->span.file);
        const char *text = pinned_at_limit(c) ? arena_strndup(s->arena, f->text + n->rhs->span.begin,
                                                             n->rhs->span.end - n->rhs->span.begin)
                                              : int128_text(s, wide(c));
        sema_error(s, n->rhs->span, "tuple index %s out of range", text);
        return &ty_error;
    }
    n->dims = ARENA_NEW(s->arena, long);
    n->dims[0] = (long)k;
    return base->elems[k];
}

/* The one type of a tuple's elements, literals made plain: a UniTuple to
 * Numba, which indexes, iterates and searches only such tuples at run
 * time. NULL for an empty tuple or one of mixed types. */
static Type *uniform_element(Sema *s, Type *t) { return type_uniform_element(s->arena, t); }

/* A raise or assert of a debug=True function gets a code, by which the
 * thread that raises it tells the host what it raised, where. */
static void add_exception_site(Sema *s, Node *n, ExceptionKind kind, const char *type, const char *message) {
    Unit *u = s->unit;
    ARENA_GROW(s->arena, u->exceptions, u->exception_count, u->exception_cap, 4);
    int line, col;
    diag_line_col(s->diag, n->span.file, n->span.begin, &line, &col);
    u->exceptions[u->exception_count++] = (ExceptionSite){kind, type, message, s->fn->def->name,
                                                          diag_file(s->diag, n->span.file)->path, line, col};
    n->exception = u->exception_count;
}

static void note_exception(Sema *s, Node *n, const char *type, const char *message) {
    if (!s->fn || !(s->fn->debug || (s->fn->checks & CHECK_ASSERT)) || n->exception || s->quiet) return;
    add_exception_site(s, n, EXC_RAISE, type, message);
}

/* A place where a checked function checks an index or a divisor: it gets
 * a code as a raise does, which the failing thread reports with the values. */
void sema_note_check(Sema *s, Node *n, ExceptionKind kind) {
    unsigned check = kind == EXC_BOUNDS ? CHECK_BOUNDS : CHECK_DIV0;
    if (!s->fn || !(s->fn->checks & check) || n->exception || s->quiet) return;
    add_exception_site(s, n, kind, kind == EXC_BOUNDS ? "IndexError" : "ZeroDivisionError", NULL);
}

/* An operand that makes float32 arithmetic float64 under Numba's typing:
 * a float literal, or an integer (literal or not: float32 and int64 make
 * float64). */
static bool is_float_literal(const Node *n) {
    const Node *v = n->kind == ND_UNARY && (n->op == OP_NEG || n->op == OP_POS) ? n->rhs : n;
    return v->kind == ND_FLOAT;
}

static bool widens_float32(const Node *n) { return is_float_literal(n) || (n->ty && is_integer(type_strip(n->ty))); }

/* -Wfp64-promotion: float32 met by a literal or an int, whose float64
 * result costs up to 64x the throughput on consumer GPUs. The fix-it makes
 * the other operand float32. */
static void warn_fp64_promotion(Sema *s, Node *n, Span at, Node *lhs, Node *rhs, const Type *r) {
    if (!s->unit->opts || !s->unit->opts->warn_fp64_promotion || s->quiet || s->diag->stop || r != &ty_float64 || !rhs)
        return;
    bool f32_left = type_strip(lhs->ty) == &ty_float32, f32_right = type_strip(rhs->ty) == &ty_float32;
    Node *culprit = f32_left && widens_float32(rhs) ? rhs : f32_right && widens_float32(lhs) ? lhs : NULL;
    if (!culprit) return;
    const char *what = is_float_literal(culprit) ? "a float64 literal" : "an integer";
    char text[160];
    snprintf(text, sizeof text, "float32 arithmetic widened to float64 by %s [-Wfp64-promotion]", what);
    if (said_before(s, at, text)) return;
    int warnings = s->diag->warning_count + s->diag->error_count;
    diag_warning(s->diag, at, "%s", text);
    if (s->diag->warning_count + s->diag->error_count == warnings) return;
    const SourceFile *f = diag_file(s->diag, culprit->span.file);
    int len = (int)(culprit->span.end - culprit->span.begin);
    diag_fixit(s->diag, culprit->span, arena_printf(s->arena, "float32(%.*s)", len, f->text + culprit->span.begin));
}

/* Integer floor division and modulo check their divisor when asked. */
static void note_division(Sema *s, Node *n, Op op, const Type *result) {
    if ((op == OP_FLOORDIV || op == OP_MOD) && is_integer(result)) sema_note_check(s, n, EXC_DIV0);
}

/* Array indices: integers (Numba normalises to intp) or slices. */
static Type *type_subscript(Sema *s, Node *n) {
    bool outer = s->reading_field;
    s->reading_field = true; /* a record indexed is a field read */
    Type *base = type_expr(s, n->lhs);
    s->reading_field = outer;
    Type *idx = type_expr(s, n->rhs);
    if (base->kind == TY_ERROR || idx->kind == TY_ERROR) return &ty_error;
    if (base->kind == TY_CLASS && n->rhs->kind == ND_STR && base->cls->kind != CLASS_NAMED_TUPLE) {
        Node probe = *n; /* Color["RED"] is Color.RED */
        probe.name = n->rhs->v.s.data;
        probe.span = n->rhs->span;
        Type *t = class_attribute(s, &probe, base->cls);
        n->sym = probe.sym;
        return t;
    }
    if (base->kind == TY_TUPLE && n->rhs->kind == ND_SLICE) return tuple_slice_type(s, n, base);
    if (base->kind == TY_TUPLE) {
        ConstValue *c = n->rhs->kind == ND_INT || n->rhs->constant ? fold(s, n->rhs) : NULL;
        /* a name Numba's find_const resolves to a constant types as its literal */
        if (!c && idx->kind == TY_INT && idx->literal)
            c = int_result(s, idx->is_signed ? (__int128)idx->lit_value : (__int128)(uint64_t)idx->lit_value);
        if (c && c->ty->kind == TY_INT) return tuple_constant_index(s, n, base, c);
        if (!is_integer(idx)) {
            sema_error(s, n->rhs->span, "tuple index must be an integer, not %s", sema_type_name(s, idx));
            return &ty_error;
        }
        Type *uniform = uniform_element(s, base);
        if (uniform) return uniform;
        sema_error(s, n->rhs->span, "a tuple of mixed types needs a constant index");
        return &ty_error;
    }
    if (base->kind == TY_RECORD) return record_subscript(s, n, base);
    if (base->kind != TY_ARRAY) {
        sema_error(s, n->lhs->span, "%s is not subscriptable", sema_type_name(s, base));
        return &ty_error;
    }
    if (idx->kind == TY_STRING && base->dtype->kind == TY_RECORD)
        return record_array_view(s, n, base, n->rhs->v.s.data, n->rhs->span);
    int count = idx->kind == TY_TUPLE ? idx->elem_count : 1;
    Node **nodes = n->rhs->kind == ND_TUPLE ? n->rhs->items : &n->rhs;
    int ints = 0;
    for (int i = 0; i < count; i++) {
        Type *t = idx->kind == TY_TUPLE ? idx->elems[i] : idx;
        if (is_integer(t)) ints++;
        else if (t->kind != TY_SLICE || (nodes[i]->kind != ND_SLICE && n->rhs->kind == ND_TUPLE)) {
            sema_error(s, n->rhs->span, "array index must be an integer, a slice or a tuple of them, not %s",
                       sema_type_name(s, t));
            return &ty_error;
        }
    }
    if (count > base->ndim) {
        sema_error(s, n->rhs->span, "%d-d array indexed with %d indices", base->ndim, count);
        return &ty_error;
    }
    if (ints) sema_note_check(s, n, EXC_BOUNDS);
    if (ints == base->ndim) return base->dtype;
    return type_array(s->arena, base->dtype, base->ndim - ints, view_layout(base, nodes, count));
}

/* numba-cuda's float16 operators (cuda_fp16's bindings) are tried before
 * the builtin cases: + - * / and comparisons on operands that include a
 * float16 and all convert safely to float16 stay in float16. */
static bool float16_operator(Op op, Type *const *args, int nargs) {
    bool arith = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV || op == OP_NEG || op == OP_POS;
    bool cmp = op >= OP_EQ && op <= OP_GE;
    if (!arith && !cmp) return false;
    bool any = false;
    for (int i = 0; i < nargs; i++) {
        Conversion c = type_conversion(args[i], &ty_float16);
        if (c == CONV_NONE || c > CONV_SAFE) return false;
        any = any || args[i] == &ty_float16;
    }
    return any;
}

/* Whether CPython compiles n to a constant: a literal, or a tuple display
 * of them. */
static bool constant_display(const Node *n) {
    if (n->kind == ND_TUPLE) {
        for (int i = 0; i < n->item_len; i++)
            if (!constant_display(n->items[i])) return false;
        return true;
    }
    return n->kind == ND_INT || n->kind == ND_FLOAT || n->kind == ND_BOOL || n->kind == ND_IMAG ||
           n->kind == ND_STR || n->kind == ND_NONE || n->folded;
}

/* Numba's TupleCompare: element by element, each pair comparable. */
static bool tuples_compare(Op op, Type *a, Type *b) {
    int n_pairs = a->elem_count < b->elem_count ? a->elem_count : b->elem_count;
    for (int i = 0; i < n_pairs; i++) {
        Type *pair[2] = {a->elems[i], b->elems[i]};
        if (pair[0]->kind == TY_TUPLE && pair[1]->kind == TY_TUPLE) {
            if (!tuples_compare(op, pair[0], pair[1])) return false;
            continue;
        }
        int ncases;
        bool unsafe;
        const Sig *cases = operator_cases(op, 2, &ncases, &unsafe);
        if (resolve_overload(cases, ncases, pair, 2, unsafe) < 0) return false;
    }
    return true;
}

/* x in t: numba-cuda's Contains of a UniTuple or a 1-d array (a Sequence),
 * which compares each element with x as `elem == x` does (casts[0] is the
 * type they compare in, or the tuple x is); the empty tuple contains
 * nothing, a constant. */
static Type *resolve_contains(Sema *s, Span at, Op op, Type *const *args, Type **casts) {
    casts[0] = args[0];
    casts[1] = args[1];
    bool vector = args[1]->kind == TY_ARRAY;
    if (!vector && args[1]->elem_count == 0) return op == OP_IN ? type_literal_bool(s->arena, false) : &ty_bool;
    Type *elem = vector ? (args[1]->ndim == 1 ? args[1]->dtype : NULL) : uniform_element(s, args[1]);
    Type *pair[2] = {elem, args[0]};
    bool ok = elem && elem->kind == TY_TUPLE && args[0]->kind == TY_TUPLE && tuples_compare(OP_EQ, elem, args[0]);
    if (elem && !ok && is_scalar(elem) && is_scalar(args[0])) {
        int ncases;
        bool unsafe;
        const Sig *cases = operator_cases(OP_EQ, 2, &ncases, &unsafe);
        int k = resolve_overload(cases, ncases, pair, 2, unsafe);
        if (k >= 0) casts[0] = cases[k].args[1];
        ok = k >= 0;
    }
    if (!ok) {
        sema_error(s, at, "operator '%s' is not supported between %s and %s%s", op_spelling(op),
                   sema_type_name(s, args[0]), sema_type_name(s, args[1]),
                   elem ? "" : " (numba-cuda searches tuples whose elements have one type)");
        return &ty_error;
    }
    return &ty_bool;
}

/* numba-cuda's bfloat16 operators (cuda_bf16's bindings, tried before the
 * builtin cases, without unsafe conversions): + - * / and comparisons of
 * operands that include a bfloat16 and all convert safely to one, and
 * unary - and +. Their typing takes int8 and uint8, but numba-cuda has no
 * cast of them to bfloat16 to lower: *lowerable says so. */
static bool bfloat16_operator(Op op, Type *const *args, int nargs, bool *lowerable) {
    bool arith = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV || op == OP_NEG || op == OP_POS;
    if (!arith && !(op >= OP_EQ && op <= OP_GE)) return false;
    bool any = false;
    *lowerable = true;
    for (int i = 0; i < nargs; i++) {
        Conversion c = type_conversion(args[i], &ty_bfloat16);
        if (c == CONV_NONE || c > CONV_SAFE) return false;
        any = any || args[i]->kind == TY_BFLOAT16;
        *lowerable = *lowerable && (c == CONV_EXACT || args[i]->kind == TY_BFLOAT16);
    }
    return any;
}

/* numba-cuda types an IntEnum member's conversion to any type its value
 * converts to, then lowers the conversion to integers only. */
static bool casts_lowered(Sema *s, Span at, Type *const *from, Type *const *to, int n) {
    for (int i = 0; i < n; i++)
        if (!type_cast_lowered(from[i], to[i])) {
            sema_error(s, at, "cannot convert %s to %s: numba-cuda converts an IntEnum member to integers only",
                       sema_type_name(s, from[i]), sema_type_name(s, to[i]));
            return false;
        }
    return true;
}

/* EnumCompare: == and != of two members of one enum class. */
static bool enum_equality(Op op, Type *const *args, int nargs) {
    return (op == OP_EQ || op == OP_NE) && nargs == 2 && args[0]->kind == TY_ENUM && type_equal(args[0], args[1]);
}

/* Where an error about operator i of n points: the operator as written;
 * the whole node where there is none (operator.add(a, b), a ufunc). */
static Span op_site(const Node *n, int i) {
    if (n->op_at) return n->op_at[i];
    return n->at.end > n->at.begin ? n->at : n->span;
}

static Type *resolve_op(Sema *s, Node *n, Span at, Op op, Node *lhs, Node *rhs, Type **casts) {
    Type *args[2] = {lhs->ty, rhs ? rhs->ty : NULL};
    int nargs = rhs ? 2 : 1;
    if (args[0]->kind == TY_ERROR || (rhs && args[1]->kind == TY_ERROR)) return &ty_error;
    if (op == OP_IS || op == OP_ISNOT) {
        casts[0] = args[0];
        if (rhs) casts[1] = args[1];
        return &ty_bool;
    }
    if (op >= OP_EQ && op <= OP_GE && rhs && args[0]->kind == TY_TUPLE && args[1]->kind == TY_TUPLE) {
        if (!tuples_compare(op, args[0], args[1])) {
            sema_error(s, at, "operator '%s' is not supported between %s and %s", op_spelling(op),
                       sema_type_name(s, args[0]), sema_type_name(s, args[1]));
            return &ty_error;
        }
        casts[0] = args[0];
        casts[1] = args[1];
        return &ty_bool;
    }
    if ((op == OP_IN || op == OP_NOTIN) && rhs && (args[1]->kind == TY_TUPLE || args[1]->kind == TY_ARRAY)) {
        sema_note_access(s, rhs, true, false);
        return resolve_contains(s, at, op, args, casts);
    }
    if (enum_equality(op, args, nargs)) {
        casts[0] = args[0];
        casts[1] = args[1];
        return &ty_bool;
    }
    if (op == OP_ADD && args[0]->kind == TY_TUPLE && args[1]->kind == TY_TUPLE && !args[0]->cls && !args[1]->cls) {
        /* Numba adds the tuples' types without their literals, but for two
         * constant displays, which CPython folds into one constant */
        bool folded = rhs && constant_display(lhs) && constant_display(rhs);
        Type **elems = ARENA_ARRAY(s->arena, Type *, args[0]->elem_count + args[1]->elem_count + 1);
        int k = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < args[i]->elem_count; j++)
                elems[k++] = folded ? args[i]->elems[j] : type_strip_deep(s->arena, args[i]->elems[j]);
        casts[0] = args[0];
        casts[1] = args[1];
        return type_tuple(s->arena, elems, k);
    }
    if (float16_operator(op, args, nargs)) {
        casts[0] = &ty_float16;
        if (rhs) casts[1] = &ty_float16;
        return op >= OP_EQ ? &ty_bool : &ty_float16;
    }
    bool lowerable;
    if (bfloat16_operator(op, args, nargs, &lowerable)) {
        if (!lowerable) {
            sema_error(s, at, "operator '%s' between %s and %s is not supported: numba-cuda types it on bfloat16 "
                       "but has no conversion of an 8-bit integer to bfloat16; convert it with bfloat16() first",
                       op_spelling(op), sema_type_name(s, args[0]), sema_type_name(s, rhs ? args[1] : args[0]));
            return &ty_error;
        }
        casts[0] = &ty_bfloat16;
        if (rhs) casts[1] = &ty_bfloat16;
        return op >= OP_EQ ? &ty_bool : &ty_bfloat16;
    }
    int ncases;
    bool unsafe;
    const Sig *cases = op == OP_IN || op == OP_NOTIN || op == OP_MATMUL ? NULL : operator_cases(op, nargs, &ncases, &unsafe);
    int k = cases ? resolve_overload(cases, ncases, args, nargs, unsafe) : -1;
    if (k < 0) {
        if (rhs)
            sema_error(s, at, "operator '%s' is not supported between %s and %s", op_spelling(op),
                       sema_type_name(s, args[0]), sema_type_name(s, args[1]));
        else
            sema_error(s, at, "operator '%s' is not supported for %s", op_spelling(op), sema_type_name(s, args[0]));
        return &ty_error;
    }
    casts[0] = cases[k].args[0];
    if (rhs) casts[1] = cases[k].args[1];
    return casts_lowered(s, at, args, casts, nargs) ? cases[k].ret : &ty_error;
}

/* CPython folds operations on int literals before Numba sees them
 * (2 * 3 is the constant 6), so their result is a literal too. Operands
 * are typed first, so theirs is known: each node is folded once, and a
 * chain of a thousand costs a thousand folds, not half a million. */
static bool is_cpython_literal(const Node *n) { return n->kind == ND_INT || n->kind == ND_BOOL || n->constant; }

static bool cpython_folds(const Node *n) {
    if (n->entity) return false; /* operator.add(1, 2): a call, which CPython leaves alone */
    if (n->kind == ND_UNARY)
        return (n->op == OP_NEG || n->op == OP_POS || n->op == OP_INVERT || n->op == OP_NOT) && is_cpython_literal(n->rhs);
    if (n->kind != ND_BINOP || n->op == OP_DIV || n->op == OP_MATMUL) return false;
    return is_cpython_literal(n->lhs) && is_cpython_literal(n->rhs);
}

static Type *folded_literal(Sema *s, Node *n) {
    if (!cpython_folds(n)) return NULL;
    Scope *saved = s->locals;
    s->locals = NULL;
    ConstValue *c = n->constant = fold(s, n);
    s->locals = saved;
    if (!c || c->too_big) return NULL;
    n->folded = true;
    if (c->ty == &ty_float64) n->v.f = c->v.f;
    else n->v.i.value = (uint64_t)c->v.i;
    if (c->ty == &ty_int64 || c->ty == &ty_uint64) return type_literal_int(s->arena, c->v.i, c->ty == &ty_uint64);
    if (c->ty == &ty_bool) return type_literal_bool(s->arena, c->v.b);
    return c->ty; /* a float, as 2 ** -1 folds to 0.5 */
}

/* Numba stores the quotient of x /= y on ints as an int: int64, or uint64
 * when both are unsigned. */
static Type *inplace_result(Op op, Type *r, Type *lhs, Type *rhs) {
    Type *a = type_strip(lhs), *b = type_strip(rhs);
    if (op != OP_DIV || r != &ty_float64 || !(is_integer(a) || a == &ty_bool) || !(is_integer(b) || b == &ty_bool))
        return r;
    return is_integer(a) && !a->is_signed && is_integer(b) && !b->is_signed ? &ty_uint64 : &ty_int64;
}

static Type *type_binop(Sema *s, Node *n) {
    type_expr(s, n->lhs);
    type_expr(s, n->rhs);
    Type *lit = folded_literal(s, n);
    if (lit) {
        n->casts = new_casts(s, 2);
        n->casts[0] = n->casts[1] = &ty_int64;
        return lit;
    }
    n->casts = new_casts(s, 2);
    Type *r = resolve_op(s, n, op_site(n, 0), n->op, n->lhs, n->rhs, n->casts);
    note_division(s, n, n->op, r);
    warn_fp64_promotion(s, n, op_site(n, 0), n->lhs, n->rhs, r);
    return n->inplace && r->kind != TY_ERROR ? inplace_result(n->op, r, n->lhs->ty, n->rhs->ty) : r;
}

static Type *type_unary(Sema *s, Node *n) {
    type_expr(s, n->rhs);
    n->casts = new_casts(s, 1);
    Type *lit = folded_literal(s, n);
    if (lit) {
        n->casts[0] = &ty_int64;
        return lit;
    }
    /* an enum member has no truth of its own: not_'s cases decide */
    if (n->op == OP_NOT && n->rhs->ty->kind != TY_ERROR && n->rhs->ty->kind != TY_OPTIONAL && n->rhs->ty->kind != TY_ENUM) {
        /* numba-cuda has no truth value for arrays or vectors */
        if (n->rhs->ty->kind == TY_ARRAY || n->rhs->ty->kind == TY_VECTOR) {
            sema_error(s, n->span, "operator 'not' is not supported for %s", sema_type_name(s, n->rhs->ty));
            return &ty_error;
        }
        n->casts[0] = n->rhs->ty;
        return &ty_bool;
    }
    return resolve_op(s, n, n->span, n->op, n->rhs, NULL, n->casts);
}

/* x in r of a range: numba-cuda's overload of operator.contains, a call of
 * pykc's own range.pyk, by the value's kind as rangeobj.py chooses the
 * implementation (op_calls[i]). */
static Type *range_contains(Sema *s, Node *n, int i) {
    Node *val = n->items[i], *r = n->items[i + 1];
    if (!n->op_calls) n->op_calls = ARENA_ARRAY(s->arena, Node *, n->item_len);
    Node *call = n->op_calls[i];
    if (!call) {
        call = n->op_calls[i] = node_new(s->arena, ND_CALL, op_site(n, i));
        call->items = ARENA_ARRAY(s->arena, Node *, 2);
        call->items[0] = r;
        call->items[1] = val;
        call->item_len = 2;
    }
    Type *v = type_strip(val->ty);
    const char *name = v->kind == TY_INT || v->kind == TY_BOOL ? "contains"
                       : v->kind == TY_FLOAT ? "contains_real"
                       : v->kind == TY_COMPLEX ? "contains_complex" : "contains_other";
    Type *args[2] = {r->ty, v};
    n->casts[2 * i] = v;
    n->casts[2 * i + 1] = r->ty;
    return sema_call_own(s, call, "range", name, args);
}

static Type *type_compare(Sema *s, Node *n) {
    for (int i = 0; i < n->item_len; i++) type_expr(s, n->items[i]);
    n->casts = new_casts(s, 2 * (n->item_len - 1));
    Type *t = &ty_bool;
    for (int i = 0; i + 1 < n->item_len; i++) {
        bool in_range = (n->ops[i] == OP_IN || n->ops[i] == OP_NOTIN) && n->items[i + 1]->ty->kind == TY_RANGE &&
                        n->items[i]->ty->kind != TY_ERROR;
        Type *r = in_range ? range_contains(s, n, i)
                           : resolve_op(s, n, op_site(n, i), n->ops[i], n->items[i], n->items[i + 1], &n->casts[2 * i]);
        if (r->kind == TY_ERROR) return r;
        if (n->item_len == 2) t = r; /* `x in ()` is Literal[bool](False) */
    }
    return t;
}

/* A condition's truth value: numba-cuda has none for arrays, vectors or an
 * Optional (bool() of OptionalType(T) finds no match). */
static void check_truth(Sema *s, Node *cond, Type *t) {
    if (t->kind != TY_ERROR && !is_scalar(t) && t->kind != TY_NONE && t->kind != TY_TUPLE)
        sema_error(s, cond->span, "%s cannot be used as a condition", sema_type_name(s, t));
}

/* `a and b` and `a if c else b` are joins: their type unifies the arms. */
static Type *join(Sema *s, Node *at, Type *a, Type *b) {
    if (a->kind == TY_ERROR || b->kind == TY_ERROR) return &ty_error;
    Type *t = type_unify(s->arena, a, b);
    if (!t) {
        sema_error(s, at->span, "cannot unify %s and %s", sema_type_name(s, a), sema_type_name(s, b));
        return &ty_error;
    }
    Type *from[] = {a, b}, *to[] = {t, t};
    return casts_lowered(s, at->span, from, to, 2) ? t : &ty_error;
}

/* Numba prunes the branches of `a or b` whose condition is a literal
 * (LT = 1 < 2 at module level): an operand that cannot be the result takes
 * no part in the type, and one that decides ends it. */
static Type *type_boolop(Sema *s, Node *n) {
    Type *t = NULL;
    bool decided = false;
    n->folded = false;
    for (int i = 0; i < n->item_len; i++) {
        Type *it = type_expr(s, n->items[i]);
        if (decided) continue; /* typed for codegen's sake, never the result */
        bool last = i + 1 == n->item_len;
        if (!last && it->kind == TY_OPTIONAL) { /* its truth decides where to go */
            check_truth(s, n->items[i], it);
            return &ty_error;
        }
        if (it->literal && !last && (it->lit_value != 0) != (n->op == OP_OR)) continue;
        decided = it->literal && !last;
        if (decided && !t) { /* the result is this constant */
            n->folded = true;
            n->v.i.value = (uint64_t)it->lit_value;
        }
        t = t ? join(s, n, t, it) : it;
    }
    return t;
}

static Type *type_ifexp(Sema *s, Node *n) {
    type_expr(s, n->cond);
    return join(s, n, type_expr(s, n->then), type_expr(s, n->els));
}

static bool check_args_typed(Node *call) {
    for (int i = 0; i < call->item_len; i++)
        if (call->items[i]->ty->kind == TY_ERROR) return false;
    for (int i = 0; i < call->kwarg_len; i++)
        if (call->kwargs[i]->rhs->ty->kind == TY_ERROR) return false;
    return true;
}

/* numba-cuda's float16 overloads of these math functions keep float16. */
static bool float16_math(const Entity *e, const Node *call) {
    static const char *const names[] = {"sin", "cos", "tanh", "exp", "exp2", "fabs", "log", "log2", "log10",
                                        "sqrt", "ceil", "floor", "trunc"};
    if (e->lower != LW_MATH || e->op != MATH_CALL || call->item_len != 1 || call->items[0]->ty != &ty_float16)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(e->lower_name, names[i])) return true;
    return false;
}

static Type *call_cases(Sema *s, Node *call, const Entity *e) {
    for (int i = 0; e->lower == LW_MATH && i < call->item_len; i++)
        if (call->items[i]->ty->kind == TY_BFLOAT16) {
            sema_error(s, call->span, "%s of a bfloat16 is not supported yet: numba-cuda computes it with the "
                       "cuda.bf16 function of that name; convert to float32 first", e->path);
            return &ty_error;
        }
    if (float16_math(e, call) && !call->kwarg_len) {
        call->casts = new_casts(s, 1);
        call->casts[0] = &ty_float16;
        return &ty_float16;
    }
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "%s takes no keyword arguments", e->path);
        return &ty_error;
    }
    Type *args[3] = {NULL, NULL, NULL};
    int n = call->item_len, lo = e->cases[0].nargs, hi = lo;
    for (int k = 1; k < e->ncases; k++) {
        lo = e->cases[k].nargs < lo ? e->cases[k].nargs : lo;
        hi = e->cases[k].nargs > hi ? e->cases[k].nargs : hi;
    }
    if (n < lo || n > hi) {
        sema_arg_count_error(s, call, e->path, lo, hi);
        return &ty_error;
    }
    for (int i = 0; i < n && i < 3; i++) args[i] = call->items[i]->ty;
    int k = n <= 3 ? resolve_overload(e->cases, e->ncases, args, n, true) : -1;
    if (k < 0) {
        sema_error(s, call->span, "%s does not accept (%s)", e->path, sema_arg_types(s, call));
        return &ty_error;
    }
    if (e->cases[k].unlowered) {
        sema_error(s, call->span, "%s(%s) is not supported: numba-cuda types it but has no implementation of it",
                   e->path, sema_arg_types(s, call));
        return &ty_error;
    }
    call->casts = new_casts(s, n);
    for (int i = 0; i < n; i++) call->casts[i] = e->cases[k].args[i];
    if (!casts_lowered(s, call->span, args, call->casts, n)) return &ty_error;
    return e->lower == LW_RANGE ? type_range(s->arena, e->cases[k].ret) : e->cases[k].ret;
}

static FuncInfo *type_function(Sema *s, FuncInfo *f);
static FuncInfo *declare_function(Sema *s, Node *def);

void sema_arg_count_error(Sema *s, const Node *call, const char *callee, int lo, int hi) {
    int n = call->item_len;
    Span at = n > hi ? call->items[hi]->span : (Span){call->span.file, call->span.end - 1, call->span.end};
    if (lo == hi) sema_error(s, at, "%s takes %d argument%s, %d given", callee, lo, lo == 1 ? "" : "s", n);
    else sema_error(s, at, "%s takes %d to %d arguments, %d given", callee, lo, hi, n);
}

/* What a specialisation keeps of the decorator its function was read
 * with. */
static void copy_decorations(FuncInfo *sp, const FuncInfo *f) {
    sp->fastmath = f->fastmath;
    sp->debug = f->debug;
    sp->checks = f->checks;
    sp->lineinfo = f->lineinfo;
    sp->unoptimized = f->unoptimized;
    sp->forceinline = f->forceinline;
    sp->limits = f->limits;
    sp->inline_mode = f->inline_mode;
}

/* The specialisation of f whose parameters have the types args (n of
 * them), if there is one; one called where errors are said is compiled. */
static FuncInfo *find_specialisation(Sema *s, FuncInfo *f, Type *const *args, int n) {
    for (int k = 0; k < f->spec_count; k++) {
        FuncInfo *sp = f->specs[k];
        bool same = sp->param_count == n;
        for (int i = 0; i < n && same; i++) same = type_equal(sp->params[i]->ty, args[i]);
        if (!same) continue;
        sp->live = sp->live || !s->quiet;
        return sp;
    }
    return NULL;
}

/* sp, declared from a copy of f's definition, as f's specialisation for
 * the types args. */
static FuncInfo *add_specialisation(Sema *s, FuncInfo *f, FuncInfo *sp, Type *const *args) {
    sp->prepared = true; /* its types are the call's; its decorators were read on f */
    sp->generic = f;
    sp->globals = f->globals;
    sp->imported = f->imported;
    sp->is_kernel = false;
    sp->live = !s->quiet;
    for (int i = 0; i < sp->param_count; i++) sp->params[i]->ty = args[i];
    FuncInfo **grown = ARENA_ARRAY(s->arena, FuncInfo *, f->spec_count + 1);
    if (f->spec_count) memcpy(grown, f->specs, sizeof(FuncInfo *) * (size_t)f->spec_count);
    grown[f->spec_count++] = sp;
    f->specs = grown;
    Unit *u = s->unit;
    FuncInfo **funcs = ARENA_ARRAY(s->arena, FuncInfo *, u->func_count + 1);
    memcpy(funcs, u->funcs, sizeof(FuncInfo *) * (size_t)u->func_count);
    funcs[u->func_count++] = sp;
    u->funcs = funcs;
    return sp;
}

/* Numba compiles a device function without a signature for the argument
 * types of each call, ignoring its annotations: find or make the copy for
 * the types args (literals stripped). */
static FuncInfo *specialise(Sema *s, FuncInfo *f, Type *const *args) {
    FuncInfo *sp = find_specialisation(s, f, args, f->param_count);
    if (sp) return sp;
    sp = declare_function(s, node_clone(s->arena, f->def));
    copy_decorations(sp, f);
    return add_specialisation(s, f, sp, args);
}

static Type *type_callee(Sema *s, Node *call, FuncInfo *f);

/* Converts a call's arguments to the parameters of f, the function it
 * calls or the kernel it launches (what: how errors name it); arrays
 * passed are read and written. False after an error. */
static bool convert_call_args(Sema *s, Node *call, FuncInfo *f, const char *what) {
    call->casts = new_casts(s, call->item_len);
    for (int i = 0; i < call->item_len; i++) {
        Type *want = f->params[i]->ty, *got = call->items[i]->ty;
        if (!casts_lowered(s, call->items[i]->span, &got, &want, 1)) return false;
        if (type_conversion(got, want) == CONV_NONE) {
            sema_error(s, call->items[i]->span, "argument %d of %s is %s, which does not convert to %s", i + 1, what,
                       sema_type_name(s, got), sema_type_name(s, want));
            return false;
        }
        call->casts[i] = want;
        if (want->kind == TY_ARRAY) sema_note_access(s, call->items[i], true, true);
    }
    return true;
}

static void prepare_function(Sema *s, FuncInfo *f);

static Type *call_device_function(Sema *s, Node *call, FuncInfo *f) {
    prepare_function(s, f);
    if (f->is_kernel) {
        sema_error(s, call->span, "kernel '%s' cannot be called like a function: a kernel launches it with "
                   "%s[grid, block](args)", f->def->name, f->def->name);
        return &ty_error;
    }
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "keyword arguments to device functions are not supported yet");
        return &ty_error;
    }
    if (call->item_len != f->param_count) {
        sema_arg_count_error(s, call, arena_printf(s->arena, "'%s'", f->def->name), f->param_count, f->param_count);
        return &ty_error;
    }
    if (!f->has_signature) {
        for (int i = 0; i < call->item_len; i++)
            if (!is_value(call->items[i]->ty)) {
                sema_error(s, call->items[i]->span, "argument %d of '%s' is %s, not a value", i + 1, f->def->name,
                           sema_type_name(s, call->items[i]->ty));
                return &ty_error;
            }
        Type **args = new_casts(s, call->item_len);
        for (int i = 0; i < call->item_len; i++) args[i] = type_strip(call->items[i]->ty);
        f = specialise(s, f, args);
    }
    call->sym = f->sym;
    if (!convert_call_args(s, call, f, arena_printf(s->arena, "'%s'", f->def->name))) return &ty_error;
    return type_callee(s, call, f);
}

/* A call of f while f is being typed, from another function: mutual
 * recursion, which numba-cuda cannot compile (its lowering of the call
 * that closes the cycle fails), though it compiles a function calling
 * itself. The cycle is named in the order the calls were typed. */
static bool refuse_call_cycle(Sema *s, Node *call, FuncInfo *f) {
    if (!f->typing || f == s->fn) return false;
    const char *cycle = f->def->name;
    for (FuncInfo *g = s->fn; g && g != f; g = g->typed_from) cycle = arena_printf(s->arena, "%s -> %s", g->def->name, cycle);
    sema_error(s, call->span, "mutually recursive device functions are not supported: this call closes the cycle %s -> %s "
               "(numba-cuda compiles a device function that calls itself, not functions that call each other)",
               f->def->name, cycle);
    return true;
}

/* The type of a call of f, typing f first if it is not yet. */
static Type *type_callee(Sema *s, Node *call, FuncInfo *f) {
    if (f->typing && f->closure) {
        sema_error(s, call->span, "function '%s' calls itself: numba-cuda does not compile a recursive function "
                   "defined inside a kernel", f->def->name);
        return &ty_error;
    }
    if (refuse_call_cycle(s, call, f)) return &ty_error;
    if (f->typing && !f->ret) {
        sema_error(s, call->span, "recursive call to '%s' needs its return type annotated", f->def->name);
        return &ty_error;
    }
    if (f->typed && f->typed_quietly && !s->quiet && !f->typing) {
        /* first typed inside a caller's silent pass: type it again, now
         * that its errors can be reported */
        f->typed = false;
        f->local_count = 0;
        if (!f->ret_declared) f->ret = NULL;
    }
    if (!f->typing) {
        int errors = s->diag->error_count;
        type_function(s, f);
        if (f->generic && !s->quiet && s->diag->error_count != errors && !s->diag->stop)
            diag_note(s->diag, call->span, "'%s' is typed for the arguments of this call: (%s)", f->def->name,
                      sema_arg_types(s, call));
    }
    if (f->cooperative) sema_note_cooperative(s);
    return f->ret ? f->ret : &ty_error;
}

/* ---- functions defined inside functions ---------------------------------------------- */

/* Numba inlines a function defined in a kernel (or device function) where
 * it is called, its free names reading the enclosing function's variables
 * there. pykc compiles it as a device function specialised at each call
 * for the types of what it captures and of the arguments (literals kept,
 * as inlining keeps them), taking the captured values first: a closure
 * value holds them, read where it is made (ssa.c). */

/* The template of the function def defines inside the function being
 * typed, made where the function is first made. */
static FuncInfo *closure_template(Sema *s, Node *def) {
    if (def->sym && def->sym->func) return def->sym->func;
    FuncInfo *f = declare_function(s, def);
    f->is_kernel = false;
    f->abstract = true; /* only its specialisations are compiled */
    f->prepared = true;
    f->typed = true;
    f->closure = true;
    f->enclosing = s->fn;
    f->globals = s->fn->globals;
    f->imported = s->fn->imported;
    return f;
}

/* The type of capture c of def read where def is defined: Numba requires
 * it assigned before (interpreter.py's cell variables). */
static Type *capture_at_definition(Sema *s, Node *def, Node *c) {
    Sym *v = c->sym;
    Type *t = v && v->is_phi ? phi_type(s, v, c) : v ? v->ty : NULL;
    if (t && t->kind == TY_ARRAY) sema_note_access(s, c, true, true); /* as an argument's */
    if (t) return set_type(c, t);
    if (def->lhs && !strcmp(c->name, def->name))
        sema_error(s, c->span, "function '%s' calls itself: numba-cuda does not compile a recursive function defined "
                   "inside a kernel", def->name);
    else
        sema_error(s, c->span, "function '%s' reads '%s', which is not assigned before '%s' is defined: numba-cuda "
                   "requires what a function defined inside a kernel reads to be assigned first", def->name, c->name,
                   def->name);
    return set_type(c, &ty_error);
}

/* The closure value that def makes where it is defined. */
static Type *closure_made(Sema *s, Node *def) {
    closure_template(s, def);
    Type **caps = new_casts(s, def->capture_len);
    for (int i = 0; i < def->capture_len; i++)
        if ((caps[i] = capture_at_definition(s, def, def->captures[i]))->kind == TY_ERROR) return &ty_error;
    return type_closure(s->arena, def, caps, def->capture_len);
}

/* A read of a name that holds a closure makes it again, reading what it
 * captures where the name is read (n->captures, which ssa.c gave for every
 * function the name may hold; n->dims says which this one's are). */
static Type *closure_reread(Sema *s, Node *n, Type *held) {
    Node *def = held->func;
    Type **caps = new_casts(s, def->capture_len);
    long *pick = ARENA_ARRAY(s->arena, long, def->capture_len ? def->capture_len : 1);
    for (int i = 0; i < def->capture_len; i++) {
        int k = 0;
        while (k < n->capture_len && strcmp(n->captures[k]->name, def->captures[i]->name)) k++;
        if (k == n->capture_len) return held; /* a cycle, said where the function is defined */
        pick[i] = k;
        if ((caps[i] = set_type(n->captures[k], read_version(s, n->captures[k]->sym, n->captures[k])))->kind == TY_ERROR)
            return &ty_error;
        if (caps[i]->kind == TY_ARRAY) sema_note_access(s, n->captures[k], true, true);
    }
    n->dims = pick;
    return type_closure(s->arena, def, caps, def->capture_len);
}

/* A Param of the given name: one of a specialisation's parameters. */
static Node *new_param(Sema *s, const char *name, Span at) {
    Node *p = node_new(s->arena, ND_PARAM, at);
    p->name = name;
    return p;
}

/* `name = value` at the start of a specialisation: a default value. */
static Node *default_assignment(Sema *s, Node *param) {
    Node *a = node_new(s->arena, ND_ASSIGN, param->rhs->span), *target = node_new(s->arena, ND_NAME, param->span);
    target->name = param->name;
    target->height = 1;
    a->items = ARENA_ARRAY(s->arena, Node *, 1);
    a->items[0] = target;
    a->item_len = 1;
    a->rhs = param->rhs;
    return a;
}

/* The copy of def that a call with nargs arguments runs: the captures as
 * its first parameters, then the arguments given; a parameter left to its
 * default is a local assigned the default first, read where the function
 * is called, as Numba's inliner passes the default's expression. */
static Node *closure_copy(Sema *s, Node *tmpl, int nargs) {
    Node *def = node_clone(s->arena, tmpl);
    int ncap = tmpl->capture_len, rest = def->item_len - nargs;
    Node **params = ARENA_ARRAY(s->arena, Node *, ncap + nargs + 1);
    for (int i = 0; i < ncap; i++) params[i] = new_param(s, tmpl->captures[i]->name, tmpl->captures[i]->span);
    for (int i = 0; i < nargs; i++) params[ncap + i] = def->items[i];
    Node **body = ARENA_ARRAY(s->arena, Node *, rest + def->body_len + 1);
    for (int i = 0; i < rest; i++) body[i] = default_assignment(s, def->items[nargs + i]);
    if (def->body_len) memcpy(body + rest, def->body, sizeof(Node *) * (size_t)def->body_len);
    def->items = params;
    def->item_len = ncap + nargs;
    def->body = body;
    def->body_len += rest;
    return def;
}

/* The specialisation of closure template f for what the closure captures
 * (types clo->elems) and arguments of the types args. */
static FuncInfo *specialise_closure(Sema *s, FuncInfo *f, const Type *clo, Type *const *args, int nargs) {
    int n = clo->elem_count + nargs;
    Type **types = new_casts(s, n);
    for (int i = 0; i < clo->elem_count; i++) types[i] = clo->elems[i];
    for (int i = 0; i < nargs; i++) types[clo->elem_count + i] = args[i];
    FuncInfo *sp = find_specialisation(s, f, types, n);
    if (sp) return sp;
    sp = declare_function(s, closure_copy(s, f->def, nargs));
    /* inlined by Numba: compiled as the function it is defined in is */
    copy_decorations(sp, f->enclosing);
    sp->limits = (KernelLimits){0};
    sp->inline_mode = NULL;
    sp->forceinline = true;
    sp->closure = true;
    sp->enclosing = f->enclosing;
    return add_specialisation(s, f, sp, types);
}

/* Whether a default value reads a parameter of def: Python reads the
 * enclosing function's variable there, pykc's copy would read the
 * parameter. */
static const char *default_reads_param(const Node *def, const Node *e) {
    if (!e) return NULL;
    if (e->kind == ND_NAME) {
        for (int i = 0; i < def->item_len; i++)
            if (!strcmp(def->items[i]->name, e->name)) return e->name;
        return NULL;
    }
    if (e->kind == ND_LAMBDA) return NULL;
    const Node *kids[] = {e->func, e->lhs, e->rhs, e->cond, e->then, e->els, e->lower, e->upper, e->step};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) {
        const char *r = default_reads_param(def, kids[i]);
        if (r) return r;
    }
    for (int i = 0; i < e->item_len; i++) {
        const char *r = default_reads_param(def, e->items[i]);
        if (r) return r;
    }
    return NULL;
}

/* Whether call passes def the arguments numba-cuda's inliner can: as many
 * as it has parameters, but for defaults that all or none of are given
 * (it appends the defaults to the arguments, from the first). */
static bool closure_arguments_fit(Sema *s, Node *call, Node *def) {
    const char *name = def->name;
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "keyword arguments to a function defined inside a kernel are not "
                   "supported: numba-cuda's inliner passes arguments by position");
        return false;
    }
    int required = 0, given = call->item_len;
    while (required < def->item_len && !def->items[required]->rhs) required++;
    if (given < required || given > def->item_len) {
        Span at = given > def->item_len ? call->items[def->item_len]->span : call->span;
        const char *count = required == def->item_len ? arena_printf(s->arena, "%d", required)
                                                       : arena_printf(s->arena, "%d to %d", required, def->item_len);
        sema_error(s, at, "'%s' takes %s argument%s, %d given", name, count, def->item_len == 1 ? "" : "s", given);
        return false;
    }
    if (given > required && given < def->item_len) {
        sema_error(s, call->items[required]->span, "pass all or none of the arguments of '%s' that have defaults: "
                   "numba-cuda would give '%s' the default value of '%s'", name, def->items[given]->name,
                   def->items[required]->name);
        return false;
    }
    for (int i = given; i < def->item_len; i++) {
        const char *p = default_reads_param(def, def->items[i]->rhs);
        if (!p) continue;
        sema_error(s, def->items[i]->rhs->span, "the default value of '%s' reads '%s', which is also a parameter of "
                   "'%s': pykc reads a default where the function is called", def->items[i]->name, p, name);
        return false;
    }
    return true;
}

/* A call of a closure: its specialisation for what it captures and the
 * types of the arguments. */
static Type *call_closure(Sema *s, Node *call, Type *clo) {
    FuncInfo *f = clo->func->sym->func;
    if (!closure_arguments_fit(s, call, clo->func)) return &ty_error;
    Type **args = new_casts(s, call->item_len);
    for (int i = 0; i < call->item_len; i++) {
        args[i] = call->items[i]->ty;
        if (!is_value(args[i])) {
            sema_error(s, call->items[i]->span, "argument %d of '%s' is %s, not a value", i + 1, clo->func->name,
                       sema_type_name(s, args[i]));
            return &ty_error;
        }
    }
    for (int i = 0; i < clo->elem_count; i++)
        if (clo->elems[i]->kind == TY_ERROR) return &ty_error;
    FuncInfo *sp = specialise_closure(s, f, clo, args, call->item_len);
    call->sym = sp->sym;
    call->casts = args;
    return type_callee(s, call, sp);
}

/* x.conjugate() and i.bit_count(): the two scalar methods Numba types. */
static Type *type_method_call(Sema *s, Node *n) {
    Type *recv = type_expr(s, n->func->lhs);
    if (recv->kind == TY_ERROR) return recv;
    bool conj = !strcmp(n->func->name, "conjugate");
    if (n->item_len || n->kwarg_len) {
        sema_error(s, n->item_len ? n->items[0]->span : n->kwargs[0]->span, "%s() takes no arguments", n->func->name);
        return &ty_error;
    }
    if ((conj && !is_number(recv)) || (!conj && !is_integer(recv))) {
        sema_error(s, name_site(n->func), "%s has no attribute '%s'", sema_type_name(s, recv), n->func->name);
        return &ty_error;
    }
    n->entity = entity_lookup(conj ? "method.conjugate" : "method.bit_count");
    n->func->ty = recv;
    return recv;
}

static bool is_scalar_method(const Node *func) {
    return func->kind == ND_ATTR && (!strcmp(func->name, "conjugate") || !strcmp(func->name, "bit_count"));
}

/* Numba retries a template that finds no match with each Optional argument
 * as its value; pykc's typing rules take that path where entity_takes_optionals
 * says so (cases resolve it through the conversions), and refuse the rest. */
static bool check_no_optionals(Sema *s, Node *call, const Entity *e) {
    for (int i = 0; i < call->item_len; i++)
        if (call->items[i]->ty->kind == TY_OPTIONAL) {
            sema_error(s, call->items[i]->span, "%s of %s is not supported: test it with `is not None` first",
                       e->path, sema_type_name(s, call->items[i]->ty));
            return false;
        }
    return true;
}

/* bfloat16(x): numba-cuda's constructor cases (cuda_bf16's __nv_bfloat16),
 * resolved without unsafe conversions; the argument converts to the case's
 * type, and that to bfloat16 as the constructor rounds it. */
static Type *type_bfloat16_ctor(Sema *s, Node *n, Type *arg) {
#define FROM(t) {.ret = &ty_bfloat16, .args = {&ty_##t}, .nargs = 1}
    static const Sig cases[] = {FROM(float16), FROM(float32), FROM(float64), FROM(int16), FROM(uint16),
                                FROM(int32), FROM(uint32), FROM(int64), FROM(uint64), FROM(bfloat16)};
#undef FROM
    int k = resolve_overload(cases, (int)(sizeof cases / sizeof cases[0]), &arg, 1, false);
    if (k < 0) {
        sema_error(s, n->span, "bfloat16() of %s: numba-cuda makes a bfloat16 from a float or an integer",
                   sema_type_name(s, arg));
        return &ty_error;
    }
    n->casts = new_casts(s, 1);
    n->casts[0] = cases[k].args[0];
    n->entity = entity_lookup("numba.float32"); /* any dtype entity: lowered as a cast */
    return &ty_bfloat16;
}

/* The field of named tuple c that keyword argument kw gives, or -1 with
 * Python's TypeError (inspect's binding of the arguments). */
static int keyword_field(Sema *s, ClassInfo *c, Node *kw, const bool *given) {
    for (int i = 0; i < c->count; i++) {
        if (strcmp(c->names[i], kw->name) != 0) continue;
        if (!given[i]) return i;
        sema_error(s, kw->span, "%s() got multiple values for argument '%s'", c->name, kw->name);
        return -1;
    }
    sema_error(s, kw->span, "%s() got an unexpected keyword argument '%s'", c->name, kw->name);
    return -1;
}

/* Point(x, y=...): the named tuple of the arguments' types, literals made
 * plain; each keyword's field goes in n->dims for codegen. */
static Type *construct_named_tuple(Sema *s, Node *n, ClassInfo *c) {
    if (n->item_len > c->count) {
        sema_error(s, n->items[c->count]->span, "%s() takes %d arguments: too many positional arguments", c->name, c->count);
        return &ty_error;
    }
    bool *given = ARENA_ARRAY(s->arena, bool, c->count + 1);
    Type **elems = ARENA_ARRAY(s->arena, Type *, c->count + 1);
    n->casts = new_casts(s, n->item_len);
    n->dims = ARENA_ARRAY(s->arena, long, n->kwarg_len + 1);
    for (int i = 0; i < n->item_len; i++) {
        given[i] = true;
        elems[i] = n->casts[i] = type_strip_deep(s->arena, n->items[i]->ty);
    }
    for (int k = 0; k < n->kwarg_len; k++) {
        int f = keyword_field(s, c, n->kwargs[k], given);
        if (f < 0) return &ty_error;
        given[f] = true;
        elems[f] = type_strip_deep(s->arena, n->kwargs[k]->rhs->ty);
        n->dims[k] = f;
    }
    for (int i = 0; i < c->count; i++)
        if (!given[i]) {
            sema_error(s, n->span, "%s() missing a required argument: '%s'", c->name, c->names[i]);
            return &ty_error;
        }
    for (int i = 0; i < c->count; i++)
        if (!is_value(elems[i]) || elems[i]->kind == TY_NONE) {
            sema_error(s, n->span, "field '%s' of %s cannot hold %s", c->names[i], c->name, sema_type_name(s, elems[i]));
            return &ty_error;
        }
    return type_named_tuple(s->arena, c, elems, c->count);
}

/* ---- launches from kernels (dynamic parallelism: a pykc extension) ---------------- */

/* The kernel that call launches, written kernel[config](args); NULL where
 * its callee is not a kernel subscripted. */
static FuncInfo *launched_kernel(Sema *s, Node *call) {
    if (call->func->kind != ND_SUBSCRIPT) return NULL;
    Type *t = type_expr(s, call->func->lhs);
    if (t->kind != TY_FUNC) return NULL;
    FuncInfo *k = t->func->sym->func;
    prepare_function(s, k);
    return k->is_kernel ? k : NULL;
}

/* A launch's grid or block: an int, or a tuple of one to three ints. */
static bool launch_dims(Sema *s, Node *v, const char *what) {
    Type *t = type_strip(type_expr(s, v));
    bool ok = t->kind == TY_INT || (t->kind == TY_TUPLE && t->elem_count >= 1 && t->elem_count <= 3);
    for (int i = 0; ok && t->kind == TY_TUPLE && i < t->elem_count; i++) ok = type_strip(t->elems[i])->kind == TY_INT;
    if (!ok && t->kind != TY_ERROR)
        sema_error(s, v->span, "a launch's %s is an int or a tuple of one to three ints, not %s", what, sema_type_name(s, t));
    return ok;
}

/* kernel[grid, block], kernel[grid, block, stream] or kernel[grid, block,
 * stream, shared_bytes], as numba-cuda launches from the host; the stream
 * is 0, the launching thread's default stream. */
static bool launch_config(Sema *s, Node *cfg) {
    Node **items = cfg->kind == ND_TUPLE ? cfg->items : &cfg;
    int n = cfg->kind == ND_TUPLE ? cfg->item_len : 1;
    if (n < 2 || n > 4) {
        sema_error(s, cfg->span, "a launch is written kernel[grid, block](args), or kernel[grid, block, 0, shared_bytes]");
        return false;
    }
    bool ok = launch_dims(s, items[0], "grid") & launch_dims(s, items[1], "block");
    int64_t stream = 0;
    if (n >= 3 && sema_const_int(s, items[2], "a launch's stream", &stream) && stream != 0) {
        sema_error(s, items[2]->span, "a launch from a kernel goes to the launching thread's default stream: its stream is 0");
        ok = false;
    }
    Type *shared = n == 4 ? type_strip(type_expr(s, items[3])) : &ty_int64;
    if (shared->kind != TY_INT && shared->kind != TY_ERROR)
        sema_error(s, items[3]->span, "a launch's dynamic shared memory is a number of bytes, an int, not %s",
                   sema_type_name(s, shared));
    return ok && shared->kind == TY_INT;
}

/* How well args convert to kernel k's parameters, Numba's (unsafe, safe,
 * promote) counts in rate; false where one does not. */
static bool launch_fits(FuncInfo *k, Node *call, int rate[3]) {
    rate[0] = rate[1] = rate[2] = 0;
    for (int i = 0; i < call->item_len; i++) {
        Conversion c = type_conversion(call->items[i]->ty, k->params[i]->ty);
        if (c == CONV_NONE || !type_cast_lowered(call->items[i]->ty, k->params[i]->ty)) return false;
        if (c != CONV_EXACT) rate[c == CONV_UNSAFE ? 0 : c == CONV_SAFE ? 1 : 2]++;
    }
    return true;
}

/* Numba's order of ratings: fewer unsafe conversions, then fewer safe, then
 * fewer promotions. */
static bool fewer_conversions(const int a[3], const int b[3]) {
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return false;
}

/* The specialisation of kernel k (compiled for several signatures) that
 * the arguments fit best, as Numba's dispatcher picks; NULL after an error. */
static FuncInfo *launch_target(Sema *s, Node *call, FuncInfo *k) {
    if (!k->abstract) return k;
    FuncInfo *best = NULL;
    int best_rate[3] = {0, 0, 0}, rate[3];
    for (int i = 0; i < k->spec_count; i++)
        if (launch_fits(k->specs[i], call, rate) && (!best || fewer_conversions(rate, best_rate))) {
            best = k->specs[i];
            memcpy(best_rate, rate, sizeof rate);
        }
    if (!best && k->spec_count)
        sema_error(s, call->span, "kernel '%s' is compiled for no signature that takes (%s)", k->def->name,
                   sema_arg_types(s, call));
    return best;
}

/* A kernel launched from a kernel or device function: compiled to a launch
 * through CUDA's device runtime, which the module is then linked with. */
static Type *type_launch(Sema *s, Node *call, FuncInfo *k) {
    for (int i = 0; i < call->item_len; i++) type_expr(s, call->items[i]);
    for (int i = 0; i < call->kwarg_len; i++) type_expr(s, call->kwargs[i]->rhs);
    bool ok = launch_config(s, call->func->rhs) && check_args_typed(call);
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "keyword arguments to a kernel are not supported");
        return &ty_error;
    }
    if (k->imported) {
        sema_error(s, call->func->lhs->span, "kernel '%s' of an imported module is not in this module: a kernel "
                   "launches kernels of its own module", k->def->name);
        return &ty_error;
    }
    if (call->item_len != k->param_count) {
        sema_error(s, call->span, "kernel '%s' takes %d argument%s, %d given", k->def->name, k->param_count,
                   k->param_count == 1 ? "" : "s", call->item_len);
        return &ty_error;
    }
    FuncInfo *target = ok ? launch_target(s, call, k) : NULL;
    if (!target) return &ty_error;
    call->sym = target->sym;
    call->func->ty = target->sym->ty;
    if (!convert_call_args(s, call, target, arena_printf(s->arena, "kernel '%s'", k->def->name))) return &ty_error;
    s->unit->launches = true;
    return &ty_none;
}

static Type *call_extern(Sema *s, Node *call, ExternFunc *ext);

static Type *call_class(Sema *s, Node *n, ClassInfo *c) {
    if (c->kind == CLASS_NAMED_TUPLE) return construct_named_tuple(s, n, c);
    sema_error(s, n->func->span, "%s is not callable in kernels: numba-cuda has no type for it as a callable; name "
               "a member (%s.%s)", sema_type_name(s, type_class(s->arena, c)), c->name, c->count ? c->names[0] : "NAME");
    return &ty_error;
}

static Type *type_call(Sema *s, Node *n) {
    if (is_scalar_method(n->func)) {
        Sym *mod = n->func->lhs->kind == ND_NAME ? lookup(s, n->func->lhs->name) : NULL;
        if (!mod || (mod->kind != SYM_ENTITY && mod->kind != SYM_MODULE)) return type_method_call(s, n);
    }
    FuncInfo *launched = launched_kernel(s, n);
    if (launched) return type_launch(s, n, launched);
    Type *callee = type_expr(s, n->func);
    if (callee->kind == TY_ENTITY && callee->entity->lower == LW_COMPILE_TIME) {
        n->entity = callee->entity;
        return callee->entity->type_call(s, n, callee->entity);
    }
    for (int i = 0; i < n->item_len; i++) type_expr(s, n->items[i]);
    for (int i = 0; i < n->kwarg_len; i++) type_expr(s, n->kwargs[i]->rhs);
    if (callee->kind == TY_ERROR || !check_args_typed(n)) return &ty_error;
    if (callee->kind == TY_FUNC) return call_device_function(s, n, callee->func->sym->func);
    if (callee->kind == TY_CLOSURE) return call_closure(s, n, callee);
    if (callee->kind == TY_EXTERN) return call_extern(s, n, callee->ext);
    if (callee->kind == TY_CLASS) return call_class(s, n, callee->cls);
    if (callee->kind == TY_DTYPE) {
        Type *arg = n->item_len == 1 ? n->items[0]->ty : NULL;
        if (arg && arg->kind == TY_OPTIONAL) { /* numba-cuda's cast typer refuses it */
            sema_error(s, n->span, "casting %s to %s directly is unsupported: test it with `is not None` first",
                       sema_type_name(s, arg), sema_type_name(s, callee->dtype));
            return &ty_error;
        }
        if (n->item_len == 1 && !n->kwarg_len && arg->kind == TY_ENUM && type_conversion(arg, callee->dtype) != CONV_NONE) {
            n->entity = entity_lookup("numba.float32");
            return casts_lowered(s, n->span, &arg, &callee->dtype, 1) ? callee->dtype : &ty_error;
        }
        if (n->item_len != 1 || n->kwarg_len || !is_scalar(arg)) {
            /* where clang points: the first argument too many, or the one that is no scalar */
            Span at = n->item_len > 1 ? n->items[1]->span : n->kwarg_len ? n->kwargs[0]->span
                      : n->item_len ? n->items[0]->span : n->span;
            sema_error(s, at, "%s() takes one scalar argument", sema_type_name(s, callee->dtype));
            return &ty_error;
        }
        if (arg->kind == TY_COMPLEX && (callee->dtype->kind == TY_INT || callee->dtype->kind == TY_FLOAT)) {
            /* numba-cuda types it, then finds no cast to lower */
            sema_error(s, n->span, "cannot cast %s to %s: take .real or abs() first", sema_type_name(s, arg),
                       sema_type_name(s, callee->dtype));
            return &ty_error;
        }
        if (callee->dtype->kind == TY_BFLOAT16) return type_bfloat16_ctor(s, n, arg);
        n->entity = entity_lookup("numba.float32"); /* any dtype entity: lowered as a cast */
        return callee->dtype;
    }
    if (callee->kind != TY_ENTITY || callee->entity->kind != ENT_FUNCTION) {
        sema_error(s, n->func->span, "%s is not callable", sema_type_name(s, callee));
        return &ty_error;
    }
    const Entity *e = callee->entity;
    n->entity = e;
    if (e->type_call && !entity_takes_optionals(e) && !check_no_optionals(s, n, e)) return &ty_error;
    return e->type_call ? e->type_call(s, n, e) : call_cases(s, n, e);
}

static Type *type_tuple_expr(Sema *s, Node *n) {
    Type **elems = ARENA_ARRAY(s->arena, Type *, n->item_len ? n->item_len : 1);
    for (int i = 0; i < n->item_len; i++) {
        elems[i] = type_expr(s, n->items[i]);
        if (elems[i]->kind == TY_ERROR) return &ty_error;
        if (!is_value(elems[i]) && elems[i]->kind != TY_SLICE) {
            sema_error(s, n->items[i]->span, "a tuple cannot hold %s", sema_type_name(s, elems[i]));
            return &ty_error;
        }
    }
    return type_tuple(s->arena, elems, n->item_len);
}

static Type *type_expr(Sema *s, Node *n) {
    switch (n->kind) {
    case ND_INT:
        if (n->v.i.overflow) {
            sema_error(s, n->span, "integer literal too large for uint64");
            return set_type(n, &ty_error);
        }
        return set_type(n, type_literal_int(s->arena, (int64_t)n->v.i.value, n->v.i.value > INT64_MAX));
    case ND_FLOAT: return set_type(n, &ty_float64);
    case ND_IMAG: return set_type(n, &ty_complex128);
    case ND_BOOL: return set_type(n, type_literal_bool(s->arena, n->v.b));
    case ND_NONE: return set_type(n, &ty_none);
    case ND_STR:
        if (n->v.s.bytes) sema_error(s, n->span, "bytes literals are not supported in kernels");
        return set_type(n, n->v.s.bytes ? &ty_error : &ty_string);
    case ND_NAME: return set_type(n, type_name_ref(s, n));
    case ND_ATTR: return set_type(n, type_attribute(s, n));
    case ND_SUBSCRIPT: {
        /* a record taken whole is the address of its element: what is
         * done through it may write the array */
        bool field = s->reading_field;
        s->reading_field = false;
        Type *t = set_type(n, type_subscript(s, n));
        sema_note_access(s, n->lhs, true, t->kind == TY_RECORD && !field);
        return t;
    }
    case ND_BINOP: return set_type(n, type_binop(s, n));
    case ND_UNARY: return set_type(n, type_unary(s, n));
    case ND_COMPARE: return set_type(n, type_compare(s, n));
    case ND_BOOLOP: return set_type(n, type_boolop(s, n));
    case ND_IFEXP: return set_type(n, type_ifexp(s, n));
    case ND_CALL: return set_type(n, type_call(s, n));
    case ND_TUPLE: return set_type(n, type_tuple_expr(s, n));
    case ND_LAMBDA: return set_type(n, closure_made(s, n->func));
    case ND_SLICE:
        if (n->lower) type_expr(s, n->lower);
        if (n->upper) type_expr(s, n->upper);
        if (n->step) type_expr(s, n->step);
        return set_type(n, &ty_slice);
    case ND_ELLIPSIS:
        sema_error(s, n->span, "'...' is not supported in kernels");
        return set_type(n, &ty_error);
    case ND_LIST:
        sema_error(s, n->span, "list displays are not supported in kernels");
        return set_type(n, &ty_error);
    default:
        ice("type_expr: unexpected %s", node_kind_name(n->kind));
    }
}

/* ---- statements ------------------------------------------------------------------ */

static bool is_memory_view(const Node *attr) {
    return attr->field || attr->attr == ATTR_T || attr->attr == ATTR_REAL || attr->attr == ATTR_IMAG;
}

void sema_note_access(Sema *s, Node *array_arg, bool read, bool write) {
    /* a view, an element or a field of an array is the array's memory */
    while (array_arg->kind == ND_SUBSCRIPT || (array_arg->kind == ND_ATTR && is_memory_view(array_arg)))
        array_arg = array_arg->lhs;
    Sym *sym = array_arg->kind == ND_NAME ? array_arg->sym : NULL;
    if (sym && sym->base) sym = sym->base; /* a later version of a parameter: a = a[1:] */
    if (!sym || sym->kind != SYM_PARAM) return;
    sym->read |= read;
    sym->written |= write;
}

void sema_note_cooperative(Sema *s) {
    if (s->fn) s->fn->cooperative = true;
}

bool sema_add_shared(Sema *s, long bytes) {
    if (!s->fn || s->quiet) return true;
    if (bytes == 0) s->fn->shared_dynamic = true;
    s->fn->shared_static += bytes;
    return s->fn->shared_static <= CUDA_MAX_STATIC_SHARED;
}

/* Gives a version the type of the value assigned to it (unified with what
 * earlier passes gave it, as a Numba type variable accumulates). */
static void assign_name(Sema *s, Node *target, Type *value, Span where) {
    Sym *sym = target->sym;
    if (!is_version(sym)) ice("assignment to '%s' has no version", target->name);
    target->ty = value;
    if (value->kind == TY_ERROR) {
        if (!sym->ty && !s->quiet) sym->ty = &ty_error; /* later reads stay silent */
        return;
    }
    if (value->kind == TY_STRING) {
        sema_error(s, where, "strings can only be printed or used as assert messages in kernels");
        return;
    }
    if (!is_value(value)) {
        sema_error(s, where, "cannot assign %s to a variable", sema_type_name(s, value));
        return;
    }
    if (!sym->ty) {
        sym->ty = value;
        s->changed = true;
        return;
    }
    if (sym->ty->kind == TY_ERROR) return;
    Type *u = type_unify(s->arena, sym->ty, value);
    if (!u) {
        sema_error(s, where, "cannot unify %s and %s for '%s'%s", sema_type_name(s, sym->ty), sema_type_name(s, value),
                   sym->name, unify_hint(sym->ty, value));
        return;
    }
    if (!type_equal(u, sym->ty)) {
        sym->ty = u;
        s->changed = true;
    }
}

static void assign_target(Sema *s, Node *target, Type *value, Span where);

/* a[1:4] = v, a[:, 0] = v: numba-cuda stores a scalar into every element
 * of the view, and a tuple element by element into a 1-d view of its
 * length; an array it copies only with NRT, which kernels do not have. */
static void check_slice_store(Sema *s, Type *view, Type *value, Span where) {
    bool ok = is_scalar(value) && type_conversion(value, view->dtype) != CONV_NONE;
    Type *elem = uniform_element(s, value);
    if (elem && view->ndim == 1) ok = is_scalar(elem) && type_conversion(elem, view->dtype) != CONV_NONE;
    if (value->kind == TY_ARRAY)
        sema_error(s, where, "storing an array into a slice is not supported: numba-cuda copies it with NRT, which "
                   "kernels do not have; copy it element by element");
    else if (!ok)
        sema_error(s, where, "cannot store %s into a slice of %s", sema_type_name(s, value), sema_type_name(s, view));
}

/* Whether value may be stored where elem lives: a number converts as
 * Numba's cast does; a record copies only into a record of its type. */
static bool storable(Type *value, Type *elem) {
    if (elem->kind == TY_RECORD || value->kind == TY_RECORD) return type_equal(value, elem);
    if (elem->kind == TY_ARRAY) return false;
    const Type *stored = value->kind == TY_OPTIONAL ? value->dtype : value;
    return (is_scalar(stored) || stored->kind == TY_ENUM) && type_conversion(value, elem) != CONV_NONE;
}

/* r.x = v and r['x'] = v: a field of a record, typed by its read. */
static void assign_field(Sema *s, Node *target, Type *value, Span where) {
    Type *field = target->ty = target->kind == ND_ATTR ? type_attribute(s, target) : type_subscript(s, target);
    if (field->kind == TY_ERROR || value->kind == TY_ERROR) return;
    if (!target->field) {
        sema_error(s, target->span, "cannot assign to %s of %s: only a record's fields can be assigned",
                   target->kind == ND_ATTR ? arena_printf(s->arena, "the attribute '%s'", target->name) : "an item",
                   sema_type_name(s, target->lhs->ty));
        return;
    }
    if (field->kind == TY_ARRAY) {
        sema_error(s, target->span, "cannot assign to the array field '%s' as a whole: assign its elements",
                   target->field->name);
        return;
    }
    if (!storable(value, field))
        sema_error(s, where, "cannot store %s into the field '%s' of type %s", sema_type_name(s, value),
                   target->field->name, sema_type_name(s, field));
    sema_note_access(s, target->lhs, false, true);
}

static void assign_item(Sema *s, Node *target, Type *value, Span where) {
    Type *arr = type_expr(s, target->lhs);
    Type *idx = type_expr(s, target->rhs);
    if (arr->kind == TY_ERROR || idx->kind == TY_ERROR || value->kind == TY_ERROR) return;
    if (arr->kind == TY_RECORD) {
        assign_field(s, target, value, where);
        return;
    }
    if (arr->kind != TY_ARRAY) {
        sema_error(s, target->lhs->span, "%s does not support item assignment", sema_type_name(s, arr));
        return;
    }
    Type *elem = type_subscript(s, target);
    target->ty = elem;
    if (elem->kind == TY_ERROR) return;
    if (arr->readonly) {
        sema_error(s, target->span, "cannot store into a module constant array: it lives in constant memory");
        return;
    }
    sema_note_access(s, target->lhs, false, true);
    if (elem->kind == TY_ARRAY) {
        check_slice_store(s, elem, value, where);
        return;
    }
    /* an Optional stores its value, converted (the function returns on None) */
    if (!storable(value, elem))
        sema_error(s, where, "cannot store %s into an array of %s", sema_type_name(s, value), sema_type_name(s, elem));
    else
        casts_lowered(s, where, &value, &elem, 1);
}

void sema_assign_item(Sema *s, Node *target, Type *value, Span where) { assign_item(s, target, value, where); }

Type *sema_type_rewritten(Sema *s, Node *n) { return type_expr(s, n); }

static void assign_target(Sema *s, Node *target, Type *value, Span where) {
    switch (target->kind) {
    case ND_NAME: assign_name(s, target, value, where); return;
    case ND_ATTR: assign_field(s, target, value, where); return;
    case ND_SUBSCRIPT: assign_item(s, target, value, where); return;
    case ND_TUPLE: case ND_LIST:
        if (value->kind == TY_ERROR) { /* bind the names anyway, so their uses stay silent */
            for (int i = 0; i < target->item_len; i++) assign_target(s, target->items[i], &ty_error, where);
            return;
        }
        if (value->kind != TY_TUPLE || value->elem_count != target->item_len) {
            sema_error(s, where, "cannot unpack %s into %d targets", sema_type_name(s, value), target->item_len);
            assign_target(s, target, &ty_error, where); /* the names, bound, stay silent */
            return;
        }
        target->ty = value;
        for (int i = 0; i < target->item_len; i++) assign_target(s, target->items[i], value->elems[i], where);
        return;
    default:
        sema_error(s, target->span, "cannot assign to %s here", node_kind_name(target->kind));
    }
}

static void type_block(Sema *s, Node **body, int n);

static void type_condition(Sema *s, Node *cond) { check_truth(s, cond, type_expr(s, cond)); }

static bool is_literal_unroll(const Type *callee);

/* The iterator a for loop takes of its iterable (Numba's getiter), with
 * the errors where there is none. */
static Type *loop_iterator(Sema *s, Node *it) {
    Type *t = type_expr(s, it);
    Type *iter = t->kind == TY_ERROR ? NULL : type_getiter(s->arena, t);
    if (iter) return iter;
    if (t->kind == TY_TUPLE)
        sema_error(s, it->span, "a for loop over a tuple needs elements of one type, not %s (numba-cuda iterates "
                   "a UniTuple only)%s", sema_type_name(s, t),
                   it->kind == ND_CALL && it->func->kind != ND_NAME && is_literal_unroll(it->func->ty)
                       ? "; numba-cuda unrolls a call of the name literal_unroll ('from numba.cuda import literal_unroll')"
                       : "");
    else if (t->kind != TY_ERROR)
        sema_error(s, it->span, "for loops iterate over range(), an array, a tuple, enumerate() or zip(), not %s",
                   sema_type_name(s, t));
    return &ty_error;
}

static bool is_literal_unroll(const Type *callee) {
    return callee->kind == TY_ENTITY && callee->entity->lower == LW_BUILTIN && callee->entity->op == BUILTIN_LITERAL_UNROLL;
}

/* Whether a for loop iterates over literal_unroll(...), called by a name
 * of it: numba-cuda's unroller finds the call of the global itself, and
 * takes cuda.literal_unroll(t) for the tuple. */
static bool unrolls(Sema *s, Node *iter) {
    return iter->kind == ND_CALL && iter->func->kind == ND_NAME && is_literal_unroll(type_expr(s, iter->func));
}

/* The versions of a loop over a tuple of type t: one for each type of its
 * elements, in the order they first come (analyse_tuple), each with a copy
 * of the target and body. */
static void start_version(Sema *s, Node *n, UnrollVersion *v, Type *elem, int most) {
    v->elem = elem;
    v->indices = ARENA_ARRAY(s->arena, long, most);
    v->target = node_clone(s->arena, n->cond);
    v->body = ARENA_ARRAY(s->arena, Node *, n->body_len ? n->body_len : 1);
    v->body_len = n->body_len;
    for (int j = 0; j < n->body_len; j++) v->body[j] = node_clone(s->arena, n->body[j]);
}

static Unroll *plan_unroll(Sema *s, Node *n, Type *t) {
    Unroll *u = ARENA_NEW(s->arena, Unroll);
    u->versions = ARENA_ARRAY(s->arena, UnrollVersion, t->elem_count ? t->elem_count : 1);
    for (int i = 0; i < t->elem_count; i++) {
        int k = 0;
        while (k < u->count && !type_equal(u->versions[k].elem, t->elems[i])) k++;
        if (k == u->count) start_version(s, n, &u->versions[u->count++], t->elems[i], t->elem_count);
        UnrollVersion *v = &u->versions[k];
        v->indices[v->index_count++] = i;
    }
    return u;
}

/* Whether the versions u fit a tuple of type t. */
static bool plan_fits(const Unroll *u, const Type *t) {
    int seen = 0;
    for (int k = 0; k < u->count; k++) {
        for (int j = 0; j < k; j++)
            if (type_equal(u->versions[j].elem, u->versions[k].elem)) return false;
        for (int j = 0; j < u->versions[k].index_count; j++) {
            long i = u->versions[k].indices[j];
            if (i >= t->elem_count || !type_equal(t->elems[i], u->versions[k].elem)) return false;
            seen++;
        }
    }
    return seen == t->elem_count;
}

/* for x in literal_unroll(t): each version's target takes its type and
 * its body is typed for it. Versions that do not fit t's types are made
 * again, and the function's blocks with them. */
static void type_unrolled_for(Sema *s, Node *n) {
    n->ty = &ty_error; /* its iterator once its versions fit */
    Type *t = type_expr(s, n->iter);
    if (t->kind == TY_ERROR) return;
    if (s->unroll_depth) {
        sema_error(s, n->iter->span, "literal_unroll loops cannot be nested: numba-cuda unrolls only one of them");
        return;
    }
    if (!n->unroll || !plan_fits(n->unroll, t)) {
        n->unroll = plan_unroll(s, n, t);
        s->replan = true;
        return;
    }
    n->ty = type_unroll_iter(s->arena, t);
    s->loop_depth++;
    s->unroll_depth++;
    for (int k = 0; k < n->unroll->count; k++) {
        UnrollVersion *v = &n->unroll->versions[k];
        assign_target(s, v->target, v->elem, v->target->span);
        type_block(s, v->body, v->body_len);
    }
    s->unroll_depth--;
    s->loop_depth--;
    type_block(s, n->orelse, n->orelse_len);
}

static void type_for(Sema *s, Node *n) {
    if (unrolls(s, n->iter)) {
        type_unrolled_for(s, n);
        return;
    }
    n->ty = loop_iterator(s, n->iter);
    assign_target(s, n->cond, n->ty->kind == TY_ERROR ? n->ty : n->ty->dtype, n->cond->span);
    s->loop_depth++;
    type_block(s, n->body, n->body_len);
    s->loop_depth--;
    type_block(s, n->orelse, n->orelse_len);
}

static void type_return(Sema *s, Node *n) {
    FuncInfo *f = s->fn;
    Type *t = n->item_len ? type_expr(s, n->items[0]) : &ty_none;
    if (f->is_kernel) {
        if (t != &ty_none) sema_error(s, n->span, "a kernel must not return a value (kernels return void)");
        return;
    }
    if (t->kind == TY_ERROR) {
        s->return_failed = true;
        return;
    }
    if (f->ret_declared) { /* a refused annotation was said where it is */
        if (f->ret->kind != TY_ERROR && type_conversion(t, f->ret) == CONV_NONE)
            sema_error(s, n->span, "'%s' returns %s, which does not convert to %s", f->def->name,
                       sema_type_name(s, t), sema_type_name(s, f->ret));
        return;
    }
    Type *u = f->ret ? type_unify(s->arena, f->ret, t) : t;
    if (!u) {
        sema_error(s, n->span, "'%s' returns both %s and %s", f->def->name, sema_type_name(s, f->ret),
                   sema_type_name(s, t));
        return;
    }
    if (!f->ret || !type_equal(u, f->ret)) s->changed = true;
    f->ret = u;
}

/* CPython does not keep a local's annotation, so Numba never sees it: the
 * local takes the type of what is assigned to it. Say so where that is not
 * the annotated type. */
static void warn_ignored_annotation(Sema *s, Node *n, Type *annotated) {
    const char *name = n->lhs->name;
    char text[512];
    if (n->rhs) {
        Type *got = is_version(n->lhs->sym) ? n->lhs->sym->ty : NULL;
        if (!got || got->kind == TY_ERROR || type_equal(type_strip(got), annotated)) return;
        snprintf(text, sizeof text, "numba-cuda ignores the annotation of a local variable: '%s' gets type %s, not %s",
                 name, type_name(s->arena, got), sema_type_name(s, annotated));
    } else {
        bool differs = false;
        for (int i = 0; i < s->fn->local_count && !differs; i++) {
            Sym *v = s->fn->locals[i];
            differs = v->base && !strcmp(v->base->name, name) && v->ty && v->ty->kind != TY_ERROR &&
                      !type_equal(type_strip(v->ty), annotated);
        }
        if (!differs) return;
        snprintf(text, sizeof text, "numba-cuda ignores the annotation of a local variable: '%s' takes the types of the values assigned to it, not %s",
                 name, sema_type_name(s, annotated));
    }
    if (!s->diag->stop && !said_before(s, n->annotation->span, text)) diag_warning(s->diag, n->annotation->span, "%s", text);
}

/* ---- raise and assert ------------------------------------------------------------ */

/* Python's str() of a constant argument, repr() inside a tuple. */
static const char *argument_text(Sema *s, Node *arg, bool quoted) {
    if (arg->kind == ND_STR) return quoted ? arena_printf(s->arena, "'%s'", arg->v.s.data) : arg->v.s.data;
    ConstValue *c = fold(s, arg);
    if (!c || c->ty->kind == TY_TUPLE || c->ty->kind == TY_COMPLEX) return NULL;
    if (c->ty->kind == TY_BOOL) return c->v.i ? "True" : "False";
    if (c->ty->kind == TY_INT)
        return c->ty->is_signed ? arena_printf(s->arena, "%lld", (long long)c->v.i) : arena_printf(s->arena, "%llu", (unsigned long long)c->v.i);
    for (int digits = 1;; digits++) { /* the shortest text that reads back the same, as repr() */
        const char *text = arena_printf(s->arena, "%.*g", digits, c->v.f);
        if (strtod(text, NULL) == c->v.f || digits == 17)
            return strpbrk(text, ".einn") ? text : arena_printf(s->arena, "%s.0", text);
    }
}

/* str() of an exception made of constant arguments: the one argument's, or
 * the tuple's. NULL after an error. */
static const char *exception_message(Sema *s, Node *call) {
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "an exception raised in a kernel takes no keyword arguments");
        return NULL;
    }
    const char *text = call->item_len == 1 ? "" : "(";
    for (int i = 0; i < call->item_len; i++) {
        const char *arg = argument_text(s, call->items[i], call->item_len > 1);
        if (!arg) {
            sema_error(s, call->items[i]->span, "the arguments of an exception raised in a kernel must be constants "
                       "(strings, numbers), as numba-cuda requires");
            return NULL;
        }
        text = arena_printf(s->arena, "%s%s%s", text, i ? ", " : "", arg);
    }
    return call->item_len == 1 ? text : arena_printf(s->arena, "%s%s)", text, call->item_len == 1 ? "," : "");
}

/* raise E or raise E(constants): numba-cuda's kernels return; under
 * debug=True the host hears of it. */
static void type_raise(Sema *s, Node *n) {
    if (!n->rhs) {
        sema_error(s, n->span, "a bare 'raise' re-raises an exception, which kernels do not catch: raise an exception class");
        return;
    }
    Node *cls = n->rhs->kind == ND_CALL ? n->rhs->func : n->rhs;
    Type *t = type_expr(s, cls);
    if (t->kind == TY_ERROR) return;
    if (t->kind != TY_ENTITY || t->entity->kind != ENT_EXCEPTION) {
        sema_error(s, cls->span, "kernels raise a built-in exception class (ValueError, IndexError ...), not %s",
                   sema_type_name(s, t));
        return;
    }
    const char *message = NULL;
    if (n->rhs->kind == ND_CALL && n->rhs->item_len + n->rhs->kwarg_len > 0 && !(message = exception_message(s, n->rhs))) return;
    note_exception(s, n, t->entity->path + strlen("builtins."), message);
}

static void type_statement(Sema *s, Node *n) {
    switch (n->kind) {
    case ND_ASSIGN: {
        Type *v = type_expr(s, n->rhs);
        for (int i = 0; i < n->item_len; i++) assign_target(s, n->items[i], v, n->rhs->span);
        return;
    }
    case ND_ANNASSIGN: {
        if (n->lhs->kind != ND_NAME) {
            sema_error(s, n->lhs->span, "only a local variable can be annotated");
            return;
        }
        Type *t = annotation_type(s, n->annotation);
        if (n->rhs) assign_target(s, n->lhs, type_expr(s, n->rhs), n->rhs->span);
        if (!s->quiet && t->kind != TY_ERROR) warn_ignored_annotation(s, n, t);
        return;
    }
    case ND_AUGASSIGN: {
        Type *cur = n->lhs->kind == ND_NAME ? set_type(n->lhs, read_version(s, n->sym, n->lhs)) : type_expr(s, n->lhs);
        type_expr(s, n->rhs);
        n->casts = new_casts(s, 2);
        Type *r = cur->kind == TY_ERROR ? cur : resolve_op(s, n, op_site(n, 0), n->op, n->lhs, n->rhs, n->casts);
        note_division(s, n, n->op, r);
        warn_fp64_promotion(s, n, op_site(n, 0), n->lhs, n->rhs, r);
        n->ty = r = r->kind == TY_ERROR ? r : inplace_result(n->op, r, cur, n->rhs->ty);
        if (n->lhs->kind == ND_NAME) assign_name(s, n->lhs, r, n->span);
        else if (n->lhs->kind == ND_SUBSCRIPT) assign_item(s, n->lhs, r, n->span), sema_note_access(s, n->lhs->lhs, true, true);
        else assign_field(s, n->lhs, r, n->span);
        return;
    }
    case ND_IF:
        type_condition(s, n->cond);
        type_block(s, n->body, n->body_len);
        type_block(s, n->orelse, n->orelse_len);
        return;
    case ND_WHILE:
        type_condition(s, n->cond);
        s->loop_depth++;
        type_block(s, n->body, n->body_len);
        if (n->retest && !n->retest->unreached) type_condition(s, n->retest);
        s->loop_depth--;
        type_block(s, n->orelse, n->orelse_len);
        return;
    case ND_FOR: type_for(s, n); return;
    case ND_RETURN: type_return(s, n); return;
    case ND_ASSERT:
        type_condition(s, n->cond);
        if (n->then && type_expr(s, n->then) != &ty_string && n->then->ty->kind != TY_ERROR)
            sema_error(s, n->then->span, "an assert message must be a string literal");
        else note_exception(s, n, "AssertionError", n->then ? n->then->v.s.data : NULL);
        return;
    case ND_RAISE: type_raise(s, n); return;
    case ND_EXPR_STMT:
        if (n->rhs->kind == ND_STR) return; /* docstring */
        type_expr(s, n->rhs);
        return;
    case ND_BREAK: case ND_CONTINUE: case ND_PASS: return;
    case ND_FUNCDEF: assign_name(s, n->lhs, closure_made(s, n), n->span); return;
    case ND_IMPORT: case ND_IMPORT_FROM:
        sema_error(s, n->span, "%s is only supported at module level", node_kind_name(n->kind));
        return;
    default: ice("type_statement: unexpected %s", node_kind_name(n->kind));
    }
}

/* Code that CPython does not compile is not typed: Numba never sees it. */
static void type_block(Sema *s, Node **body, int n) {
    for (int i = 0; i < n; i++)
        if (!body[i]->unreached) type_statement(s, body[i]);
}

/* ---- functions ---------------------------------------------------------------- */

/* What a module-level name holds, for the tests Numba decides before
 * typing (ssa.c). */
static ConstValue *global_constant(void *ctx, const char *name) {
    Sema *s = ctx;
    Sym *sym = global_sym(s, name);
    return sym && sym->kind == SYM_CONST ? sym->value : NULL;
}

/* One typing of f over blocks built afresh: silent passes until no type
 * changes, then one that reports. False when a literal_unroll loop asks
 * for its versions to be built (s->replan) or the blocks cannot be. */
static bool type_round(Sema *s, FuncInfo *f, bool quiet) {
    Scope *scope = ARENA_NEW(s->arena, Scope);
    s->locals = scope;
    s->replan = false;
    ssa_build(s->arena, s->diag, f, global_constant, s);
    if (f->captures_overflow) {
        sema_error(s, f->def->span, "the functions defined inside '%s' read what they capture more than %d times "
                   "(each reads the others': their chain is too long)", f->def->name, PYKC_MAX_CAPTURE_READS);
        return true;
    }
    for (int i = 0; i < f->param_count; i++) scope_add(s, scope, f->params[i]);
    for (int i = 0; i < f->local_count; i++)
        if (f->locals[i]->base == f->locals[i]) scope_add(s, scope, f->locals[i]); /* a name's first version */
    for (int pass = 0; pass < 16 && !s->replan; pass++) {
        s->quiet = true;
        s->changed = false;
        type_block(s, f->def->body, f->def->body_len);
        if (!s->changed) break;
    }
    s->quiet = quiet;
    if (s->replan) return false;
    f->shared_static = 0;
    f->shared_dynamic = false;
    s->return_failed = false;
    type_block(s, f->def->body, f->def->body_len);
    return !s->replan;
}

/* Types f's versions of its locals (ssa.c) until no version's type changes,
 * then once more to report; again where a literal_unroll loop's versions
 * are found, or change, with the loop's body compiled for them. */
static FuncInfo *type_function(Sema *s, FuncInfo *f) {
    if (f->typed || f->typing || (f->abstract && !f->generic)) return f; /* no types to type it with */
    Sema outer = *s;
    s->globals = f->globals; /* an imported function sees its own module */
    s->fn = f;
    s->loop_depth = 0;
    s->unroll_depth = 0;
    f->typing = true;
    f->typed_from = outer.fn;
    bool settled = false;
    for (int round = 0; round < 8 && !settled; round++) {
        if (round && !f->ret_declared && !f->is_kernel) f->ret = NULL;
        settled = type_round(s, f, outer.quiet);
    }
    if (!settled) /* every round found other types for a loop's tuple */
        sema_error(s, f->def->span, "the types of what a literal_unroll loop of '%s' unrolls change each time it "
                   "is typed", f->def->name);
    /* no return value typed: none, or when one failed, an error its callers
     * pass on silently */
    if (!f->is_kernel && !f->ret) f->ret = s->return_failed ? &ty_error : &ty_none;
    f->typing = false;
    f->typed = true;
    f->typed_quietly = outer.quiet;
    s->fn = outer.fn;
    s->locals = outer.locals;
    s->globals = outer.globals;
    s->loop_depth = outer.loop_depth;
    s->unroll_depth = outer.unroll_depth;
    s->return_failed = outer.return_failed;
    s->replan = outer.replan; /* the caller's loop may have asked */
    s->quiet = outer.quiet;
    return f;
}

/* ---- decorators and signatures --------------------------------------------------- */

static bool is_cuda_jit(Sema *s, Node *n) {
    if (n->kind == ND_CALL) n = n->func;
    const Entity *e = entity_of(s, n);
    return e && strcmp(e->path, "numba.cuda.jit") == 0;
}

/* A signature string, "void(float32[:], int64)" or "float32(float32)",
 * parsed as the Python expression it is. */
/* The contents of a string literal in its source, where its value is
 * those very bytes (no escapes, one literal): then the value's offsets are
 * the source's from there. */
static bool literal_contents(Sema *s, Node *str, Span *contents) {
    const SourceFile *src = diag_file(s->diag, str->span.file);
    const char *raw = src->text + str->span.begin, *end = src->text + str->span.end;
    while (raw < end && *raw != '"' && *raw != '\'') raw++; /* a prefix: r, u */
    if (raw == end) return false;
    int quotes = end - raw >= 6 && raw[1] == raw[0] && raw[2] == raw[0] ? 3 : 1;
    size_t len = (size_t)(end - raw) - 2 * (size_t)quotes;
    if (end - raw < 2 * quotes || len != str->v.s.len || memcmp(raw + quotes, str->v.s.data, len) != 0) return false;
    uint32_t begin = (uint32_t)(raw + quotes - src->text);
    *contents = (Span){str->span.file, begin, begin + (uint32_t)len};
    return true;
}

static bool is_blank(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\f\r\n", text[i])) return false;
    return true;
}

/* A signature as numba-cuda takes one: a string, "void(float32[:])" or
 * "(float32[:],)", parsed as the Python expression it is, or that
 * expression written in the decorator (a signature object). The result is
 * a Call of the return type (func NULL where only argument types are
 * given); NULL after an error. */
static Node *signature_call(Sema *s, Node *sig) {
    Node *e = sig;
    if (sig->kind == ND_STR) {
        if (is_blank(sig->v.s.data, sig->v.s.len)) {
            sema_error(s, sig->span, "a signature is written \"rettype(argtype, ...)\"");
            return NULL;
        }
        Span contents = sig->span;
        bool exact = literal_contents(s, sig, &contents);
        int file = diag_add_embedded(s->diag, sig->v.s.data, sig->v.s.len, contents, exact);
        int errors = s->diag->error_count;
        TokenArray toks = lex_file(s->arena, s->diag, file);
        e = parse_expression(s->arena, s->diag, file, &toks);
        if (s->diag->error_count != errors) return NULL;
    }
    if (e && e->kind == ND_TUPLE) {
        Node *call = node_new(s->arena, ND_CALL, e->span);
        call->items = e->items;
        call->item_len = e->item_len;
        return call;
    }
    if (!e || e->kind != ND_CALL || e->kwarg_len) {
        sema_error(s, sig->span, "a signature is written \"rettype(argtype, ...)\"");
        return NULL;
    }
    return e;
}

/* f typed by the signature written as `written`, read as call. */
static bool apply_signature(Sema *s, FuncInfo *f, Node *call, const Node *written) {
    if (call->item_len != f->param_count) {
        sema_error(s, written->span, "the signature has %d argument type%s but '%s' takes %d", call->item_len,
                   call->item_len == 1 ? "" : "s", f->def->name, f->param_count);
        return false;
    }
    f->has_signature = true;
    s->in_signature = true;
    Type *ret = call->func ? annotation_type(s, call->func) : NULL;
    for (int i = 0; i < call->item_len; i++) f->params[i]->ty = annotation_type(s, call->items[i]);
    s->in_signature = false;
    if (!f->is_kernel) {
        f->ret = ret;
        f->ret_declared = ret != NULL;
    } else if (ret && ret != &ty_none && ret->kind != TY_ERROR) {
        sema_error(s, written->span, "a kernel's signature must return void");
    }
    return true;
}

/* ---- files to link ---------------------------------------------------------------- */

/* The file a string of link= names, relative to the .pyk file that names
 * it: there, and of a kind pykc links. False after an error at str. */
static bool read_link_file(Sema *s, Node *str, LinkInput *out) {
    if (str->kind != ND_STR || str->v.s.bytes) {
        sema_error(s, str->span, "a file to link is named by a string");
        return false;
    }
    const char *path = link_resolve(s->arena, diag_file(s->diag, str->span.file)->path, str->v.s.data);
    LinkKind kind = LINK_PTX;
    const char *why = link_classify(s->arena, path, &kind);
    struct stat st;
    if (!why && stat(path, &st) != 0) why = arena_printf(s->arena, "%s: %s", path, strerror(errno));
    else if (!why && !S_ISREG(st.st_mode)) why = arena_printf(s->arena, "%s is not a regular file", path);
    if (why) {
        sema_error(s, str->span, "cannot link '%s': %s", str->v.s.data, why);
        return false;
    }
    *out = (LinkInput){path, link_base_name(path), kind, str->span};
    return true;
}

/* link=[...] (a list or tuple of paths; for declare_device, also one path,
 * as numba-cuda takes them): the files, *count of them. */
static LinkInput *read_links(Sema *s, Node *v, bool one, int *count) {
    bool seq = v->kind == ND_LIST || v->kind == ND_TUPLE;
    *count = 0;
    if (!seq && !(one && v->kind == ND_STR)) {
        sema_error(s, v->span, "link= is a list of the files to link%s", one ? ", or one file" : "");
        return NULL;
    }
    Node **items = seq ? v->items : &v;
    int n = seq ? v->item_len : 1;
    LinkInput *links = ARENA_ARRAY(s->arena, LinkInput, n ? n : 1);
    for (int i = 0; i < n; i++)
        if (read_link_file(s, items[i], &links[*count])) ++*count;
    return links;
}

static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Adds a file to what the module links, once; two files of one name
 * cannot both lie beside the manifest. */
static void unit_add_link(Sema *s, const LinkInput *in) {
    Unit *u = s->unit;
    for (int i = 0; i < u->link_count; i++) {
        if (strcmp(u->links[i].name, in->name) != 0) continue;
        if (same_file(u->links[i].path, in->path)) return;
        sema_error(s, in->at, "cannot link both '%s' and '%s': their copies beside the manifest would both be '%s'",
                   u->links[i].path, in->path, in->name);
        return;
    }
    ARENA_GROW(s->arena, u->links, u->link_count, u->link_cap, 4);
    u->links[u->link_count++] = *in;
}

/* How a cuda.jit option is read, and where it goes in FuncInfo. */
typedef enum {
    OPT_FLAG,           /* a constant truth value, into a bool */
    OPT_NOT_FLAG,       /* the same, negated (device= sets is_kernel) */
    OPT_INT,            /* a constant int */
    OPT_STRING,         /* a string, into a const char * (else ignored) */
    OPT_BOUNDS,         /* launch_bounds: an int, or a tuple of one to three */
    OPT_CARVEOUT,       /* shared_memory_carveout: -1..100 or a name */
    OPT_LINK,           /* link: files to link, into links */
    OPT_IGNORED,        /* accepted, with any value; nothing to do */
    OPT_NO_EFFECT,      /* accepted; -Wignored-options says why it does nothing */
    OPT_REFUSED,        /* numba-cuda refuses it, whatever its value */
} JitOptionKind;

static const struct {
    const char *name;
    JitOptionKind kind;
    size_t field;
    const char *why;    /* NO_EFFECT, REFUSED: what to say */
} jit_options[] = {
    {"device", OPT_NOT_FLAG, offsetof(FuncInfo, is_kernel), NULL},
    {"fastmath", OPT_FLAG, offsetof(FuncInfo, fastmath), NULL},
    {"lineinfo", OPT_FLAG, offsetof(FuncInfo, lineinfo), NULL},
    {"debug", OPT_FLAG, offsetof(FuncInfo, debug), NULL},
    {"opt", OPT_NOT_FLAG, offsetof(FuncInfo, unoptimized), NULL},
    {"max_registers", OPT_INT, offsetof(FuncInfo, limits.max_registers), NULL},
    {"launch_bounds", OPT_BOUNDS, offsetof(FuncInfo, limits), NULL},
    {"shared_memory_carveout", OPT_CARVEOUT, offsetof(FuncInfo, limits), NULL},
    {"inline", OPT_STRING, offsetof(FuncInfo, inline_mode), NULL},
    {"forceinline", OPT_FLAG, offsetof(FuncInfo, forceinline), NULL},
    {"link", OPT_LINK, 0, NULL},
    {"cache", OPT_NO_EFFECT, 0, "pykc compiles ahead of time: its output is the cache"},
    {"lto", OPT_NO_EFFECT, 0, "pykc links libdevice into the PTX it writes; there is no LTO-IR to link"},
    {"extensions", OPT_NO_EFFECT, 0, "argument handlers are Python objects, for numba-cuda's launches"},
    {"boundscheck", OPT_FLAG, offsetof(FuncInfo, boundscheck), NULL},
    {"argtypes", OPT_REFUSED, 0, "the argtypes keyword was removed from numba; pass a signature"},
    {"restype", OPT_REFUSED, 0, "the restype keyword was removed from numba; pass a signature"},
    {"bind", OPT_REFUSED, 0, "the bind keyword was removed from numba"},
};

const char *sema_jit_option(int i, const char **why, bool *refused) {
    if (i < 0 || (size_t)i >= sizeof jit_options / sizeof jit_options[0]) return NULL;
    *why = jit_options[i].why;
    *refused = jit_options[i].kind == OPT_REFUSED;
    return jit_options[i].name;
}

/* launch_bounds=N or (max_threads, min_blocks_per_sm, max_blocks_per_cluster),
 * as numba-cuda gives them to NVVM. */
static void read_launch_bounds(Sema *s, KernelLimits *l, Node *v) {
    int count = v->kind == ND_TUPLE ? v->item_len : 1;
    if (count < 1 || count > 3) {
        sema_error(s, v->span, "launch_bounds takes one to three values (max_threads_per_block, min_blocks_per_sm, "
                               "max_blocks_per_cluster), not %d", count);
        return;
    }
    int *field[] = {&l->max_threads, &l->min_blocks, &l->max_cluster_blocks};
    for (int i = 0; i < count; i++) {
        Node *item = v->kind == ND_TUPLE ? v->items[i] : v;
        int64_t n = 0;
        if (!sema_const_int(s, item, "a launch bound", &n)) continue;
        if (n < 0 || n > INT32_MAX) sema_error(s, item->span, "launch bound %" PRId64 " is out of range", n);
        else *field[i] = (int)n;
    }
}

/* -1 to 100 (percent of the unified L1/shared memory for shared memory),
 * or "default", "MaxL1", "MaxShared" in any case, as numba-cuda checks. */
static void read_carveout(Sema *s, KernelLimits *l, Node *v) {
    static const struct { const char *name; int value; } names[] = {{"default", -1}, {"maxl1", 0}, {"maxshared", 100}};
    if (v->kind == ND_STR) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcasecmp(v->v.s.data, names[i].name) == 0) {
                l->carveout = names[i].value;
                l->has_carveout = true;
                return;
            }
        sema_error(s, v->span, "shared_memory_carveout '%s' is not -1 to 100 or one of 'default', 'MaxL1', 'MaxShared'",
                   v->v.s.data);
        return;
    }
    int64_t n = 0;
    if (!sema_const_int(s, v, "shared_memory_carveout", &n)) return;
    if (n < -1 || n > 100) {
        sema_error(s, v->span, "shared_memory_carveout must be between -1 and 100, not %" PRId64, n);
        return;
    }
    l->carveout = (int)n;
    l->has_carveout = true;
}

static bool option_truth(Sema *s, Node *kw, bool *out) {
    ConstValue *c = fold(s, kw->rhs);
    if (!c || c->ty->kind == TY_TUPLE) {
        sema_error(s, kw->rhs->span, "cuda.jit option '%s' must be a constant", kw->name);
        return false;
    }
    *out = const_truth(c);
    return true;
}

static bool is_false_constant(Sema *s, Node *v) {
    ConstValue *c = fold(s, v);
    return c && c->ty->kind != TY_TUPLE && !const_truth(c);
}

static void read_jit_option(Sema *s, FuncInfo *f, Node *kw, JitOptionKind kind, size_t field) {
    Node *v = kw->rhs;
    void *at = (char *)f + field;
    bool truth;
    switch (kind) {
    case OPT_STRING:
        if (v->kind == ND_STR) *(const char **)at = v->v.s.data;
        return;
    case OPT_INT: {
        int64_t n = 0;
        if (!sema_const_int(s, v, kw->name, &n)) return;
        if (n < 0 || n > INT32_MAX) sema_error(s, v->span, "%s=%" PRId64 " is out of range", kw->name, n);
        else *(int *)at = (int)n;
        return;
    }
    case OPT_BOUNDS: read_launch_bounds(s, at, v); return;
    case OPT_CARVEOUT: read_carveout(s, at, v); return;
    case OPT_LINK:
        f->links = read_links(s, v, false, &f->link_count);
        f->link_at = kw->span;
        return;
    default:
        if (option_truth(s, kw, &truth)) *(bool *)at = truth != (kind == OPT_NOT_FLAG);
        return;
    }
}

static void apply_jit_option(Sema *s, FuncInfo *f, Node *kw) {
    for (size_t i = 0; i < sizeof jit_options / sizeof jit_options[0]; i++) {
        if (strcmp(kw->name, jit_options[i].name) != 0) continue;
        switch (jit_options[i].kind) {
        case OPT_IGNORED: return;
        case OPT_NO_EFFECT:
            if (is_false_constant(s, kw->rhs)) return;
            if (s->unit->opts->warn_ignored_options)
                diag_warning(s->diag, kw->span, "cuda.jit option '%s' has no effect: %s [-Wignored-options]", kw->name,
                             jit_options[i].why);
            return;
        case OPT_REFUSED: sema_error(s, kw->span, "%s", jit_options[i].why); return;
        default: read_jit_option(s, f, kw, jit_options[i].kind, jit_options[i].field); return;
        }
    }
    sema_error(s, kw->span, "unknown cuda.jit option '%s'", kw->name);
}

/* The signatures of a decorator: one types the function; a kernel with
 * several is compiled once for each, as for several --sig (a device
 * function takes the first: pykc types it for each call's arguments). */
static void apply_decorator_signatures(Sema *s, FuncInfo *f, Node **sigs, int count) {
    Node **calls = ARENA_ARRAY(s->arena, Node *, count ? count : 1);
    int ok = 0;
    for (int i = 0; i < count; i++)
        if ((calls[ok] = signature_call(s, sigs[i]))) ok++;
    if (ok != count || !count) {
        if (ok != count) /* said once, at the signature */
            for (int i = 0; i < f->param_count; i++) f->params[i]->ty = &ty_error;
        return;
    }
    if (f->sig_count || count == 1 || !f->is_kernel) { /* --sig then refuses a kernel with types */
        if (!apply_signature(s, f, calls[0], sigs[0]))
            for (int i = 0; i < f->param_count; i++) f->params[i]->ty = &ty_error;
        return;
    }
    s->in_signature = true;
    for (int i = 0; i < count; i++) {
        Type *ret = calls[i]->func ? annotation_type(s, calls[i]->func) : &ty_none;
        if (ret != &ty_none && ret->kind != TY_ERROR) sema_error(s, sigs[i]->span, "a kernel's signature must return void");
    }
    s->in_signature = false;
    f->sigs = calls;
    f->sig_count = count;
    f->sigs_from_decorator = true;
}

/* A kernel's link= files are the module's (numba-cuda links them with
 * the kernel); a device function takes none, as numba-cuda refuses. */
static void add_kernel_links(Sema *s, FuncInfo *f) {
    if (f->link_count && !f->is_kernel) {
        sema_error(s, f->link_at, "link keyword invalid for device function");
        return;
    }
    for (int i = 0; i < f->link_count && !f->imported; i++) unit_add_link(s, &f->links[i]);
}

/* @cuda.jit, @cuda.jit(...options), @cuda.jit("sig", ...): true if the
 * function is compiled for the GPU. */
static bool apply_decorators(Sema *s, FuncInfo *f) {
    bool jit = false;
    Node **sigs = NULL;
    int count = 0, cap = 0;
    for (int i = 0; i < f->def->decorator_len; i++) {
        Node *d = f->def->decorators[i];
        if (!is_cuda_jit(s, d)) {
            if (d->ty && d->ty->kind != TY_ERROR) sema_error(s, d->span, "only @cuda.jit decorates functions in a .pyk module");
            continue;
        }
        jit = true;
        if (d->kind != ND_CALL) continue;
        for (int k = 0; k < d->kwarg_len; k++) apply_jit_option(s, f, d->kwargs[k]);
        for (int k = 0; k < d->item_len; k++) {
            Node *a = d->items[k];
            if (k > 0) {
                sema_error(s, a->span, "cuda.jit takes one positional argument: a signature, or a list of them");
                continue;
            }
            Node **each = a->kind == ND_LIST ? a->items : &d->items[k];
            for (int j = 0; j < (a->kind == ND_LIST ? a->item_len : 1); j++) {
                ARENA_GROW(s->arena, sigs, count, cap, 4);
                sigs[count++] = each[j];
            }
        }
    }
    apply_decorator_signatures(s, f, sigs, count);
    add_kernel_links(s, f);
    return jit;
}

static FuncInfo *declare_function(Sema *s, Node *def) {
    FuncInfo *f = ARENA_NEW(s->arena, FuncInfo);
    f->def = def;
    f->globals = s->globals;
    f->imported = s->imported;
    f->is_kernel = true;
    f->param_count = def->item_len;
    f->params = ARENA_ARRAY(s->arena, Sym *, def->item_len ? def->item_len : 1);
    for (int i = 0; i < def->item_len; i++) {
        Node *p = def->items[i];
        Sym *sym = new_sym(s, SYM_PARAM, p->name, p->span);
        sym->index = i;
        p->sym = sym;
        f->params[i] = sym;
    }
    Sym *sym = new_sym(s, SYM_FUNC, def->name, def->span);
    sym->func = f;
    sym->ty = type_func(s->arena, def);
    def->sym = sym;
    f->sym = sym;
    return f;
}

/* Where a function's name is written: after `def` and blanks. */
static Span def_name_span(Sema *s, const Node *def) {
    const char *text = diag_file(s->diag, def->span.file)->text;
    uint32_t at = def->span.begin + 3;
    while (text[at] == ' ' || text[at] == '\t' || text[at] == '\\' || text[at] == '\n' || text[at] == '\r') at++;
    return (Span){def->span.file, at, at + (uint32_t)strlen(def->name)};
}

/* How to write the type a usage suggests: float32[:, :] or int64. */
static const char *suggested_type(Sema *s, const ParamUsage *u) {
    if (!u->array) return u->dtype;
    char dims[3 * PYKC_MAX_NDIM] = "";
    for (int d = 0; d < u->ndim && d < PYKC_MAX_NDIM; d++) strcat(dims, d ? ", :" : ":");
    return arena_printf(s->arena, "%s[%s]", u->dtype, dims);
}

/* A kernel parameter without a type: the error, and a note with what the
 * kernel's uses of it suggest. */
static void note_untyped_parameter(Sema *s, FuncInfo *f, int i, const ParamUsage *u) {
    Node *p = f->def->items[i];
    int errors = s->diag->error_count;
    sema_error(s, p->span, "parameter '%s' of kernel '%s' needs a type", p->name, f->def->name);
    if (s->diag->error_count == errors || s->diag->stop) return;
    const char *type = suggested_type(s, u);
    if (u->array)
        diag_note(s->diag, p->span, "the kernel uses it as a %d-d array (%s): annotate it, e.g. '%s: %s'", u->ndim, u->why,
                  p->name, type);
    else
        diag_note(s->diag, p->span, "the kernel uses it as a scalar (%s): annotate it, e.g. '%s: %s'",
                  u->index ? "an index or a bound" : u->combined ? "never indexed or measured" : "unused", p->name, type);
    Span after_name = {p->span.file, p->span.begin + (uint32_t)strlen(p->name), p->span.begin + (uint32_t)strlen(p->name)};
    diag_fixit(s->diag, after_name, arena_printf(s->arena, ": %s", type));
}

/* After a kernel's untyped parameters: the import their suggested dtypes
 * need, where the module lacks it, and the --sig that types them all. */
static void note_untyped_kernel(Sema *s, FuncInfo *f, const ParamUsage *usage, bool annotated) {
    if (s->diag->stop) return;
    char missing[64] = "";
    for (int i = 0; i < f->param_count; i++) {
        if (f->def->items[i]->annotation || strstr(missing, usage[i].dtype)) continue;
        Sym *sym = scope_find(s->globals, usage[i].dtype);
        if (!sym || sym->kind != SYM_ENTITY || !sym->ty || sym->ty->kind != TY_DTYPE)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", missing[0] ? ", " : "", usage[i].dtype);
    }
    Span name = def_name_span(s, f->def);
    if (missing[0]) diag_note(s->diag, name, "annotations that name %s need 'from numba import %s'", missing, missing);
    if (annotated) return; /* --sig is for kernels without annotations */
    char sig[512] = "";
    for (int i = 0; i < f->param_count; i++)
        snprintf(sig + strlen(sig), sizeof sig - strlen(sig), "%s%s", i ? ", " : "", suggested_type(s, &usage[i]));
    diag_note(s->diag, name, "or give the types when compiling: --sig '%s(%s)'", f->def->name, sig);
}

static void type_parameters(Sema *s, FuncInfo *f) {
    ParamUsage *usage = NULL;
    bool annotated = false;
    for (int i = 0; i < f->param_count; i++) annotated = annotated || f->def->items[i]->annotation;
    for (int i = 0; i < f->param_count; i++) {
        Node *p = f->def->items[i];
        if (p->rhs) sema_error(s, p->rhs->span, "default parameter values are not supported yet");
        if (p->annotation) {
            Type *t = annotation_type(s, p->annotation);
            if (f->params[i]->ty && f->params[i]->ty->kind != TY_ERROR && !type_equal(f->params[i]->ty, t) && t->kind != TY_ERROR)
                sema_error(s, p->annotation->span, "parameter '%s' is annotated %s but the signature says %s", p->name,
                           sema_type_name(s, t), sema_type_name(s, f->params[i]->ty));
            f->params[i]->ty = t;
        } else if (!f->params[i]->ty && !f->is_kernel) {
            f->params[i]->ty = &ty_error; /* typed only at its calls, as Numba does */
            f->typed = true;
            f->abstract = true;
        } else if (!f->params[i]->ty) {
            if (!usage) {
                usage = ARENA_ARRAY(s->arena, ParamUsage, f->param_count);
                infer_param_usage(s->arena, f->def, usage);
            }
            note_untyped_parameter(s, f, i, &usage[i]);
            f->params[i]->ty = &ty_error;
        }
        if (f->params[i]->ty && f->params[i]->ty->kind != TY_ERROR && !is_value(f->params[i]->ty))
            sema_error(s, p->span, "parameter '%s' cannot be %s", p->name, sema_type_name(s, f->params[i]->ty));
        else if (f->is_kernel && f->params[i]->ty && f->params[i]->ty->kind == TY_RECORD)
            sema_error(s, p->annotation ? p->annotation->span : p->span, "kernel parameter '%s' cannot be a record: "
                       "pass an array of records (rec_t[:]) and index it", p->name);
        else if (f->params[i]->ty && f->is_kernel && !abi_passable(f->params[i]->ty))
            sema_error(s, p->span, "kernel parameter '%s' is %s: a kernel takes tuples of scalars (and of tuples of "
                       "them); pass an array as a parameter of its own", p->name, sema_type_name(s, f->params[i]->ty));
    }
    if (usage) note_untyped_kernel(s, f, usage, annotated);
    if (f->def->annotation) {
        Type *r = annotation_type(s, f->def->annotation);
        if (f->is_kernel && r != &ty_none && r->kind != TY_ERROR)
            sema_error(s, f->def->annotation->span, "a kernel must return None (kernels return void)");
        if (!f->is_kernel) {
            f->ret = r;
            f->ret_declared = true;
        }
    }
    if (f->is_kernel) f->ret = &ty_none;
}

/* ---- module level ------------------------------------------------------------------ */

/* Binds name in the module, after its other bindings (a constant's value
 * sees only those before it). */
static void bind_global(Sema *s, const char *name, Sym *sym) {
    if (strcmp(sym->name, name) != 0 || sym->order) { /* bound again, or under another name: an alias */
        Sym *alias = ARENA_NEW(s->arena, Sym);
        *alias = *sym;
        alias->name = name;
        sym = alias;
    }
    sym->shadowed = scope_find(s->globals, name);
    sym->order = ++s->globals->binds;
    scope_add(s, s->globals, sym);
}

/* -v: host code skipped at `where`. */
static void note_skipped(Sema *s, Span where, const char *what) {
    Unit *u = s->unit;
    ARENA_GROW(s->arena, u->skipped, u->skipped_count, u->skipped_cap, 16);
    u->skipped[u->skipped_count++] = (Skipped){where, what};
}

/* A module name that host code binds: an import kernels cannot use (why:
 * its error) or a Host statement. */
static void bind_host(Sema *s, const char *name, Span at, const Node *host, const char *why) {
    Sym *sym = new_sym(s, SYM_HOST, name, at);
    sym->ty = &ty_error;
    sym->host = host;
    sym->why = why;
    bind_global(s, name, sym);
}

static void bind_entity(Sema *s, const char *name, const Entity *e, Span at) {
    if (e->lower == LW_CONSTANT) { /* from math import pi: a module constant */
        Sym *c = new_sym(s, SYM_CONST, name, at);
        c->value = new_const(s, e->type);
        c->value->v.f = strtod(e->lower_name, NULL);
        c->ty = e->type;
        bind_global(s, name, c);
        return;
    }
    Sym *sym = new_sym(s, SYM_ENTITY, name, at);
    sym->entity = e;
    sym->ty = e->kind == ENT_DTYPE ? type_dtype(s->arena, e->type) : type_entity(s->arena, e);
    bind_global(s, name, sym);
}

static void declare_module(Sema *s, Node *module, Vec *funcs);
static void prepare_functions(Sema *s, FuncInfo **funcs, int n, bool now);

static bool readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* mod.sub -> mod/sub.pyk, searched beside the input, then in each -I. */
static char *find_module_file(Sema *s, const char *dotted) {
    char rel[512];
    snprintf(rel, sizeof rel, "%s.pyk", dotted);
    for (char *p = rel; *p && p < rel + strlen(dotted); p++)
        if (*p == '.') *p = '/';
    const Options *o = s->unit->opts;
    const char *input = o ? o->input : "";
    const char *slash = strrchr(input, '/');
    char *path = arena_printf(s->arena, "%.*s%s", slash ? (int)(slash - input + 1) : 0, input, rel);
    if (readable(path)) return path;
    for (int i = 0; o && i < o->include_count; i++) {
        path = arena_printf(s->arena, "%s/%s", o->include_dirs[i], rel);
        if (readable(path)) return path;
    }
    return NULL;
}

/* Parses file, the source at path, and declares it as an imported module:
 * its device functions and constants in the module's globals. */
static LoadedModule *declare_source(Sema *s, const char *path, int file) {
    LoadedModule *m = ARENA_NEW(s->arena, LoadedModule);
    m->path = path;
    m->globals = ARENA_NEW(s->arena, Scope);
    m->loading = true;
    vec_push(s->arena, s->modules, m);
    int errors = s->diag->error_count;
    TokenArray toks = lex_file(s->arena, s->diag, file);
    Node *module = parse_module(s->arena, s->diag, file, &toks);
    if (s->diag->error_count == errors) {
        Sema sub = {.unit = s->unit, .arena = s->arena, .diag = s->diag, .globals = m->globals, .imported = true,
                    .modules = s->modules, .reported = s->reported};
        Vec funcs = {0};
        declare_module(&sub, module, &funcs);
        prepare_functions(&sub, (FuncInfo **)funcs.items, funcs.len, true);
    }
    m->loading = false;
    return m;
}

/* Loads, parses and declares an imported .pyk module once; its device
 * functions and constants become available to the importer. */
static Scope *load_module(Sema *s, const char *dotted, Span at) {
    char *path = find_module_file(s, dotted);
    if (!path) {
        sema_error(s, at, "cannot import '%s': no %s.pyk beside the input or in the -I directories, and pykc knows numba, numba.cuda, math, cmath, numpy, operator, enum, collections and typing",
                   dotted, dotted);
        return NULL;
    }
    for (int i = 0; i < s->modules->len; i++) {
        LoadedModule *m = s->modules->items[i];
        if (strcmp(m->path, path) != 0) continue;
        if (m->loading) {
            sema_error(s, at, "circular import of '%s'", dotted);
            return NULL;
        }
        return m->globals;
    }
    const char *why;
    int errors = s->diag->error_count;
    int file = diag_load_file(s->diag, path, &why);
    if (file < 0) {
        sema_error(s, at, "cannot read '%s': %s", path, why);
        return NULL;
    }
    Unit *u = s->unit;
    const char **deps = ARENA_ARRAY(s->arena, const char *, u->dep_count + 1);
    if (u->dep_count) memcpy(deps, u->deps, sizeof(char *) * (size_t)u->dep_count);
    deps[u->dep_count++] = path;
    u->deps = deps;
    LoadedModule *m = declare_source(s, path, file);
    return s->diag->error_count == errors ? m->globals : NULL;
}

/* pykc's own module `name` (builtins.c holds its source), loaded once. Its
 * functions are named module.function in the output: no kernel's name can
 * clash with them. */
static Scope *load_own_module(Sema *s, const char *name) {
    if (s->diag->stop) return NULL; /* past the error limit the parser reads nothing */
    const char *path = arena_printf(s->arena, "<pykc>/%s.pyk", name);
    for (int i = 0; i < s->modules->len; i++) {
        LoadedModule *m = s->modules->items[i];
        if (strcmp(m->path, path) == 0) return m->globals;
    }
    const char *text = own_module_source(name);
    if (!text) return NULL;
    int errors = s->diag->error_count;
    LoadedModule *m = declare_source(s, path, diag_add_source(s->diag, path, text, strlen(text)));
    if (s->diag->error_count != errors) ice("pykc's own module %s does not compile", name);
    for (int i = 0; i < m->globals->count; i++) {
        Sym *sym = m->globals->syms[i];
        if (sym->kind == SYM_FUNC) sym->func->def->name = arena_printf(s->arena, "%s.%s", name, sym->name);
    }
    return m->globals;
}

Type *sema_call_own(Sema *s, Node *call, const char *module, const char *name, Type *const *args) {
    Scope *members = load_own_module(s, module);
    if (!members && s->diag->stop) return &ty_error;
    const char *typed = name;
    for (int i = 0; i < call->item_len; i++) typed = arena_printf(s->arena, "%s_%s", typed, type_name(s->arena, args[i]));
    Sym *sym = members ? scope_find(members, typed) : NULL;
    if (!sym && members) sym = scope_find(members, name);
    if (!sym || sym->kind != SYM_FUNC || sym->func->param_count != call->item_len)
        ice("pykc's own module %s has no function %s of %d arguments", module, name, call->item_len);
    FuncInfo *f = specialise(s, sym->func, args);
    call->sym = f->sym;
    call->casts = new_casts(s, call->item_len);
    memcpy(call->casts, args, sizeof(Type *) * (size_t)call->item_len);
    return type_callee(s, call, f);
}

/* Why an import that is neither a module pykc knows nor a .pyk file
 * cannot serve kernels, said if a kernel reads a name it binds. */
static const char *unknown_module(Sema *s, const char *dotted) {
    return arena_printf(s->arena, "cannot import '%s': no %s.pyk beside the input or in the -I directories, and pykc knows numba, numba.cuda, math, cmath, numpy and operator",
                        dotted, dotted);
}

static void import_module(Sema *s, Node *alias) {
    const char *path = entity_module_path(alias->name);
    if (!path && !find_module_file(s, alias->name)) { /* time, matplotlib.pyplot: the host's */
        const char *dot = strchr(alias->name, '.');
        const char *name = alias->asname ? alias->asname : dot ? arena_strndup(s->arena, alias->name, (size_t)(dot - alias->name)) : alias->name;
        bind_host(s, name, alias->span, NULL, unknown_module(s, alias->name));
        note_skipped(s, alias->span, arena_printf(s->arena, "import of '%s' (not a module kernels can use)", alias->name));
        return;
    }
    if (!path) {
        Scope *members = load_module(s, alias->name, alias->span);
        if (!members) return;
        const char *dot = strrchr(alias->name, '.');
        Sym *sym = new_sym(s, SYM_MODULE, alias->asname ? alias->asname : dot ? dot + 1 : alias->name, alias->span);
        sym->members = members;
        sym->ty = &ty_none;
        bind_global(s, sym->name, sym);
        return;
    }
    /* `import numba.cuda` binds numba; `import numba.cuda as c` binds c. */
    const char *name = alias->asname;
    if (!name) {
        const char *dot = strchr(alias->name, '.');
        name = dot ? arena_strndup(s->arena, alias->name, (size_t)(dot - alias->name)) : alias->name;
        if (dot) path = "numba";
    }
    bind_entity(s, name, entity_lookup(path), alias->span);
}

/* from mod import f, C: names of an imported .pyk module. */
static void import_from_module(Sema *s, Node *n) {
    Scope *members = load_module(s, n->name, n->lhs->span);
    if (!members) return;
    Scope *importer = s->globals;
    for (int i = 0; i < n->item_len; i++) {
        Node *a = n->items[i];
        s->globals = members; /* a constant's value is evaluated in its module */
        Sym *sym = resolve(s, scope_find(members, a->name));
        s->globals = importer;
        if (!sym || (sym->kind != SYM_FUNC && sym->kind != SYM_CONST && sym->kind != SYM_HOST)) {
            sema_error(s, a->span, "module '%s' has no device function or constant '%s'", n->name, a->name);
            continue;
        }
        bind_global(s, a->asname ? a->asname : a->name, sym);
    }
}

/* Python's ImportError at the name, where the module pykc checks lacks it,
 * with the modules that have it. The name is bound to the error, which a
 * use does not repeat. */
static void refuse_import(Sema *s, const char *module, const Node *alias) {
    const char *elsewhere = entity_modules_defining(s->arena, alias->name);
    const char *why = arena_printf(s->arena, "cannot import name '%s' from '%s'%s%s%s", alias->name, module,
                                   elsewhere ? " (it is in " : "", elsewhere ? elsewhere : "", elsewhere ? ")" : "");
    sema_error(s, alias->span, "%s", why);
    bind_host(s, alias->asname ? alias->asname : alias->name, alias->span, NULL, why);
}

/* from M import a, b: names pykc knows (numba, math, numpy ...) or of a
 * .pyk module; any other import is the host's, an error only if a kernel
 * reads what it binds. */
static void import_from(Sema *s, Node *n) {
    const char *mod = n->name ? entity_module_path(n->name) : NULL;
    if (!mod && n->name && n->level == 0 && !n->star && find_module_file(s, n->name)) {
        import_from_module(s, n);
        return;
    }
    if (n->star) {
        s->star_import = n;
        note_skipped(s, n->span, arena_printf(s->arena, "'from %s import *' (import the names kernels use)", n->name ? n->name : "."));
        return;
    }
    /* an unknown module's error is said once, at its name */
    const char *why = mod ? NULL
                      : n->name && n->level == 0 ? unknown_module(s, n->name)
                      : arena_printf(s->arena, "cannot import from '%.*s%s': pykc knows numba, numba.cuda, math, cmath, numpy and operator",
                                     n->level, "..........", n->name ? n->name : "");
    for (int i = 0; i < n->item_len; i++) {
        Node *a = n->items[i];
        if (mod && entity_module_defines(mod, a->name) == 0) {
            refuse_import(s, n->name, a);
            continue;
        }
        /* numba.types.float32 and numba.cuda.types.float16 are numba.float32 and numba.float16 */
        bool alias = mod && (!strcmp(mod, "numba.types") || !strcmp(mod, "numba.cuda.types"));
        const Entity *e = mod ? entity_lookup(arena_printf(s->arena, "%s.%s", mod, a->name)) : NULL;
        if (!e && alias) e = entity_lookup(arena_printf(s->arena, "numba.%s", a->name));
        if (e) {
            bind_entity(s, a->asname ? a->asname : a->name, e, a->span);
            continue;
        }
        bind_host(s, a->asname ? a->asname : a->name, why ? (n->lhs ? n->lhs->span : n->span) : a->span, NULL,
                  why ? why : arena_printf(s->arena, "'%s' has no name '%s' that kernels can use", n->name, a->name));
        note_skipped(s, a->span, arena_printf(s->arena, "import of '%s' from '%s' (not a name kernels can use)", a->name,
                                              n->name ? n->name : "."));
    }
}

static const Define *find_define(const Options *o, const char *name) {
    for (int i = 0; o && i < o->define_count; i++)
        if (strcmp(o->defines[i].name, name) == 0) return &o->defines[i];
    return NULL;
}

/* -DNAME=VALUE replaces the value of module constant NAME; NULL when the
 * value is refused, once: a syntax error where the value is, else here. */
static ConstValue *override_value(Sema *s, const Define *d, Span at) {
    if (is_blank(d->value, strlen(d->value))) {
        sema_error(s, at, "-D%s=%s: the value must be a constant expression", d->name, d->value);
        return NULL;
    }
    int errors = s->diag->error_count;
    int file = diag_add_source(s->diag, arena_printf(s->arena, "<-D%s>", d->name), d->value, strlen(d->value));
    TokenArray toks = lex_file(s->arena, s->diag, file);
    Node *value = parse_expression(s->arena, s->diag, file, &toks);
    if (s->diag->error_count != errors) return NULL;
    s->fold_error = NULL;
    ConstValue *c = value ? fold(s, value) : NULL;
    const char *why = c && c->too_big ? "integer constant too large for uint64"
                      : c ? NULL : s->fold_error ? s->fold_error : "the value must be a constant expression";
    if (why) sema_error(s, at, "-D%s=%s: %s", d->name, d->value, why);
    return why ? NULL : c;
}

/* ---- NumPy array constants (for cuda.const.array_like) ------------------------------ */

static bool is_numpy_call(Sema *s, Node *n, const char *fn) {
    if (n->kind != ND_CALL || n->func->kind != ND_ATTR || strcmp(n->func->name, fn) != 0) return false;
    if (n->func->lhs->kind != ND_NAME) return false;
    Sym *sym = lookup(s, n->func->lhs->name);
    return sym && sym->kind == SYM_ENTITY && sym->entity && !strcmp(sym->entity->path, "numpy");
}

static Node *keyword(Node *call, const char *name) {
    for (int i = 0; i < call->kwarg_len; i++)
        if (!strcmp(call->kwargs[i]->name, name)) return call->kwargs[i]->rhs;
    return NULL;
}

/* Flattens nested lists or tuples of constants in C order, noting the shape. */
static bool flatten(Sema *s, Node *n, int depth, long *shape, int *ndim, double *vals, bool *floats, long *count, long cap) {
    if (n->kind == ND_LIST || n->kind == ND_TUPLE) {
        if (depth >= PYKC_MAX_NDIM) {
            sema_error(s, n->span, "a NumPy array constant has at most %d dimensions", PYKC_MAX_NDIM);
            return false;
        }
        if (depth >= *ndim) {
            *ndim = depth + 1;
            shape[depth] = n->item_len;
        } else if (shape[depth] != n->item_len) {
            sema_error(s, n->span, "a NumPy array constant must be rectangular");
            return false;
        }
        for (int i = 0; i < n->item_len; i++)
            if (!flatten(s, n->items[i], depth + 1, shape, ndim, vals, floats, count, cap)) return false;
        return true;
    }
    ConstValue *c = fold(s, n);
    if (!c || c->ty->kind == TY_TUPLE || *count >= cap) return false;
    if (c->ty == &ty_float64) *floats = true;
    vals[(*count)++] = c->ty == &ty_float64 ? c->v.f : (double)c->v.i;
    return true;
}

static void store_element(void *data, long i, const Type *t, double v) {
    switch (t->kind) {
    case TY_FLOAT:
        if (t->bits == 32) ((float *)data)[i] = (float)v;
        else if (t->bits == 64) ((double *)data)[i] = v;
        else { /* float16: round to nearest via float32's bits */
            float f = (float)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xff, mant = b & 0x7fffff;
            uint16_t h = (uint16_t)sign;
            if (exp > 142) h |= 0x7c00;
            else if (exp > 112) h |= (uint16_t)(((exp - 112) << 10) | ((mant + 0x1000) >> 13));
            ((uint16_t *)data)[i] = h;
        }
        return;
    case TY_BOOL: ((uint8_t *)data)[i] = v != 0; return;
    default:
        switch (t->bits) {
        case 8: ((uint8_t *)data)[i] = (uint8_t)(int64_t)v; return;
        case 16: ((uint16_t *)data)[i] = (uint16_t)(int64_t)v; return;
        case 32: ((uint32_t *)data)[i] = (uint32_t)(int64_t)v; return;
        default: ((int64_t *)data)[i] = (int64_t)v; return;
        }
    }
}

/* np.array([...]), np.arange(...), np.zeros(shape), np.ones(shape), with
 * dtype=, folded into bytes at compile time. NULL if n is none of them. */
static ConstValue *fold_numpy_array(Sema *s, Node *n) {
    bool array = is_numpy_call(s, n, "array"), arange = is_numpy_call(s, n, "arange");
    bool zeros = is_numpy_call(s, n, "zeros"), ones = is_numpy_call(s, n, "ones");
    if (!array && !arange && !zeros && !ones) return NULL;
    enum { CAP = 1 << 20 };
    double *vals = malloc(sizeof(double) * CAP);
    if (!vals) ice("out of memory folding an array constant");
    long shape[PYKC_MAX_NDIM] = {0}, count = 0;
    int ndim = 0;
    bool floats = zeros || ones, ok = n->item_len >= 1;
    if (ok && array) {
        ok = flatten(s, n->items[0], 0, shape, &ndim, vals, &floats, &count, CAP);
    } else if (ok && arange) {
        double a[3] = {0, 0, 1};
        int k = n->item_len == 1 ? 1 : 0;
        for (int i = 0; i < n->item_len && i < 3 && ok; i++) {
            ConstValue *c = fold(s, n->items[i]);
            ok = c && c->ty->kind != TY_TUPLE;
            if (ok) a[k + i] = c->ty == &ty_float64 ? c->v.f : (double)c->v.i, floats |= c->ty == &ty_float64;
        }
        for (double v = a[0]; ok && a[2] != 0 && (a[2] > 0 ? v < a[1] : v > a[1]) && count < CAP; v += a[2]) vals[count++] = v;
        ndim = 1;
        shape[0] = count;
    } else if (ok) {
        Node *sh = n->items[0];
        Node **dims = sh->kind == ND_TUPLE ? sh->items : &sh;
        ndim = sh->kind == ND_TUPLE ? sh->item_len : 1;
        count = 1;
        ok = ndim <= PYKC_MAX_NDIM;
        for (int i = 0; i < ndim && ok; i++) {
            ConstValue *c = fold(s, dims[i]);
            ok = c && c->ty == &ty_int64 && c->v.i >= 0;
            shape[i] = ok ? c->v.i : 0;
            count *= shape[i];
        }
        ok = ok && count <= CAP;
        for (long i = 0; ok && i < count; i++) vals[i] = ones ? 1.0 : 0.0;
    }
    Node *dt = keyword(n, "dtype");
    Type *elem = dt ? sema_dtype_arg(s, dt, "the dtype of an array constant") : floats ? &ty_float64 : &ty_int64;
    if (!ok || elem->kind == TY_ERROR || elem->kind == TY_COMPLEX || elem->kind == TY_RECORD || ndim == 0) {
        if (elem->kind != TY_ERROR) sema_error(s, n->span, "an array constant needs constant elements, a constant shape and a real dtype");
        free(vals);
        return NULL;
    }
    ConstValue *c = new_const(s, type_array(s->arena, elem, ndim, 'C'));
    c->ty->readonly = true;
    c->data = arena_alloc(s->arena, (size_t)(count ? count : 1) * (size_t)type_size(elem));
    for (long i = 0; i < count; i++) store_element(c->data, i, elem, vals[i]);
    c->shape = ARENA_ARRAY(s->arena, long, ndim);
    memcpy(c->shape, shape, sizeof(long) * (size_t)ndim);
    free(vals);
    return c;
}

/* Adds an array constant to the unit's, which stay in source order
 * whenever each is first read. */
static void add_array_constant(Sema *s, ConstValue *c) {
    Unit *u = s->unit;
    ConstValue **grown = ARENA_ARRAY(s->arena, ConstValue *, u->array_count + 1);
    int k = 0;
    for (int i = 0; i < u->array_count; i++) {
        Span other = u->arrays[i]->at;
        if (k == i && (other.file > c->at.file || (other.file == c->at.file && other.begin > c->at.begin))) grown[k++] = c;
        grown[k++] = u->arrays[i];
    }
    if (k == u->array_count) grown[k++] = c;
    u->array_count = k;
    u->arrays = grown;
}

static void define_namedtuple(Sema *s, Node *call, Sym *sym);
static void define_extern(Sema *s, Node *call, Sym *sym);

/* Whether func is an entity of kind (collections.namedtuple is
 * ENT_CLASS_FACTORY; np.arange and the like are no entity: folded as
 * values). */
static bool calls_entity_of(Sema *s, Node *func, EntityKind kind) {
    bool quiet = s->quiet;
    s->quiet = true;
    const Entity *e = entity_of(s, func);
    s->quiet = quiet;
    return e && e->kind == kind;
}

/* Where a module name's pending value is read: its module, before any
 * function, with the names bound before it (Python runs the module in order). */
static void enter_module_scope(Sema *s, const Sym *sym) {
    s->globals = sym->home;
    s->locals = NULL;
    s->fn = NULL;
    s->quiet = false;
    s->in_signature = false;
    s->loop_depth = 0;
    s->before = sym->order;
}

/* A module constant's value, evaluated when something first reads it (sym
 * pending): a -D override, or the value assigned, folded; a NumPy array
 * constant; or an alias of a Numba name (f32 = numba.float32). sym becomes
 * what it holds, or after an error one whose uses stay silent. The value
 * sees the module names bound before the assignment, as when Python runs
 * the module. */
static void evaluate_constant(Sema *s, Sym *sym) {
    Node *n = sym->pending, *value = n->rhs;
    int unpacked = sym->unpacked;
    sym->pending = NULL;
    sym->kind = SYM_ENTITY; /* an error, until the value is known */
    sym->ty = &ty_error;
    Sema outer = *s;
    enter_module_scope(s, sym);
    const Define *d = find_define(s->unit->opts, sym->name);
    ConstValue *c = d ? override_value(s, d, n->span) : NULL;
    bool overridden = c != NULL;
    int count = unpacked ? n->items[0]->item_len : 0;
    if (!c && unpacked && value->kind == ND_TUPLE && value->item_len == count) {
        value = value->items[unpacked - 1]; /* W, H = 16, 8: each its own */
        unpacked = 0;
    }
    if (!c && value->kind == ND_CALL && calls_entity_of(s, value->func, ENT_CLASS_FACTORY)) {
        define_namedtuple(s, value, sym);
        goto done;
    }
    if (!c && value->kind == ND_CALL && calls_entity_of(s, value->func, ENT_DECLARE_DEVICE)) {
        define_extern(s, value, sym);
        goto done;
    }
    if (!c && value->kind == ND_LIST) {
        sema_error(s, value->span, "module-level values must be compile-time constants (ints, floats, bools, tuples of them)");
        goto done;
    }
    if (!c) {
        s->fold_error = NULL;
        c = fold(s, value);
        if (!c && s->fold_error) {
            sema_error(s, value->span, "%s in the value of module constant '%s'", s->fold_error, sym->name);
            goto done;
        }
    }
    if (!c && value->kind == ND_CALL) {
        int errors = s->diag->error_count;
        c = fold_numpy_array(s, value);
        if (!c && s->diag->error_count != errors) goto done;
        if (c) {
            c->name = sym->name;
            c->at = n->span;
            add_array_constant(s, c);
        }
    }
    if (!c) {
        Type *t = type_expr(s, value);
        if (t->kind == TY_ENTITY || t->kind == TY_DTYPE) { /* an alias: f32 = numba.float32 */
            sym->ty = t;
            sym->entity = t->kind == TY_ENTITY ? t->entity : NULL;
        } else if (t->kind != TY_ERROR) {
            sema_error(s, value->span, "module-level values must be compile-time constants (ints, floats, bools, tuples of them)");
        }
        goto done;
    }
    if (unpacked && !overridden) {
        if (c->ty->kind != TY_TUPLE || c->elem_count != count) {
            sema_error(s, value->span, "the value of '%s' unpacks into %d names but is not a tuple of %d", sym->name, count, count);
            goto done;
        }
        c = c->elems[unpacked - 1];
    }
    sym->kind = SYM_CONST;
    sym->value = c;
    sym->ty = c->ty;
done:
    *s = outer;
}

static void evaluate_class(Sema *s, Sym *sym);

static Sym *resolve(Sema *s, Sym *sym) {
    if (sym && sym->pending && sym->pending->kind == ND_CLASSDEF) evaluate_class(s, sym);
    else if (sym && sym->pending) evaluate_constant(s, sym);
    return sym;
}

/* NAME = value (or A = B = value, or NAME: T = value): each name a module
 * constant, evaluated only if something reads it. */
static void declare_name(Sema *s, Node *n, Node *target, int unpacked) {
    Sym *sym = new_sym(s, SYM_CONST, target->name, target->span);
    sym->pending = n;
    sym->unpacked = unpacked;
    sym->home = s->globals;
    target->sym = sym;
    bind_global(s, target->name, sym);
}

/* NAME = value, A = B = value, W, H = 16, 8, NAME: T = value, NAME += value:
 * each name a module constant, evaluated only if something reads it. */
static void declare_constant(Sema *s, Node *n) {
    if (n->kind == ND_AUGASSIGN) { /* N += 1 is N = N + 1, N the binding before */
        Node *value = node_new(s->arena, ND_BINOP, n->span);
        value->op = n->op;
        value->lhs = node_clone(s->arena, n->lhs);
        value->rhs = n->rhs;
        Node *assign = node_new(s->arena, ND_ASSIGN, n->span);
        assign->items = ARENA_ARRAY(s->arena, Node *, 1);
        assign->items[0] = n->lhs;
        assign->item_len = 1;
        assign->rhs = value;
        n = assign;
    }
    if (n->kind == ND_ANNASSIGN) {
        declare_name(s, n, n->lhs, 0);
        return;
    }
    for (int i = 0; i < n->item_len; i++) {
        Node *t = n->items[i];
        if (t->kind == ND_NAME) declare_name(s, n, t, 0);
        else
            for (int k = 0; k < t->item_len; k++) declare_name(s, n, t->items[k], k + 1);
    }
}

/* Host code: its names are the host's; -v says what was skipped. */
static void declare_host(Sema *s, Node *n) {
    const char *what = n->name;
    if (!strcmp(what, "assignment") && n->item_len) {
        char names[200] = "";
        for (int i = 0; i < n->item_len; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", n->items[i]->name);
        what = arena_printf(s->arena, "assignment to %s", names);
    }
    note_skipped(s, n->span, what);
    for (int i = 0; i < n->item_len; i++) bind_host(s, n->items[i]->name, n->items[i]->span, n, NULL);
}

/* ---- classes: Enum, IntEnum, named tuples -------------------------------------------- */

static ClassInfo *new_class(Sema *s, const char *name, ClassKind kind, Span def, int count) {
    ClassInfo *c = ARENA_NEW(s->arena, ClassInfo);
    c->name = name;
    c->kind = kind;
    c->def = def;
    c->names = ARENA_ARRAY(s->arena, const char *, count ? count : 1);
    return c;
}

/* sym, a module name, holds class c. */
static void class_into(Sema *s, Sym *sym, ClassInfo *c) {
    sym->kind = SYM_ENTITY;
    sym->ty = type_class(s->arena, c);
}

/* The ClassKind that a class's single base names (Enum, IntEnum,
 * NamedTuple), or -1: then the class is host code. */
static int class_base(Sema *s, Node *n) {
    bool quiet = s->quiet;
    s->quiet = true; /* a host class's bases are the host's */
    for (int i = 0; i < n->item_len; i++) type_expr(s, n->items[i]);
    const Entity *e = n->item_len == 1 && !n->kwarg_len ? entity_of(s, n->items[0]) : NULL;
    s->quiet = quiet;
    return e && e->kind == ENT_CLASS ? e->op : -1;
}

/* What a class body may hold: the members of an Enum or IntEnum
 * (NAME = test), the fields of a NamedTuple (NAME: test [= test]), a
 * docstring, pass. NULL if stmt is one of them, else what it is. */
static const char *class_member_problem(const Node *stmt) {
    switch (stmt->kind) {
    case ND_ASSIGN: return stmt->item_len == 1 && stmt->items[0]->kind == ND_NAME ? NULL : "an assignment to anything but one name";
    case ND_ANNASSIGN: return stmt->lhs->kind == ND_NAME ? NULL : "an annotated assignment to anything but a name";
    case ND_EXPR_STMT: return stmt->rhs->kind == ND_STR ? NULL : "an expression statement";
    case ND_PASS: return NULL;
    case ND_FUNCDEF: return "a method";
    case ND_HOST: return stmt->lhs && stmt->lhs->kind == ND_FUNCDEF ? "a method" : "this statement";
    default: return "this statement";
    }
}

/* Each statement of the body of a class that kernels use is a member or a
 * field: any other is reported where it stands. */
static void check_class_body(Sema *s, Node *n) {
    for (int i = 0; i < n->body_len; i++) {
        const char *problem = class_member_problem(n->body[i]);
        if (problem)
            sema_error(s, n->body[i]->span, "%s is not supported in a class body: a class that kernels use is an Enum or "
                       "IntEnum of `NAME = constant` members, or a NamedTuple of `NAME: type` fields", problem);
    }
}

/* Numba's type of an enum member's value (typeof): int64, or uint64 past
 * it; float64; bool. NULL for a value of another kind. */
static Type *member_value_type(ConstValue *c) {
    if (c->ty == &ty_int64 || c->ty == &ty_uint64 || c->ty == &ty_float64 || c->ty == &ty_bool) return c->ty;
    return NULL;
}

static bool member_name_ok(Sema *s, ClassInfo *c, Node *target) {
    if (target->name[0] == '_') {
        sema_error(s, target->span, "'%s': names that begin with '_' are not members of an enum; pykc supports none",
                   target->name);
        return false;
    }
    for (int i = 0; i < c->count; i++)
        if (!strcmp(c->names[i], target->name)) {
            sema_error(s, target->span, "enum member '%s' is defined twice", target->name);
            return false;
        }
    return true;
}

/* Numba's refusal of an enum whose values have two types, which it
 * lists sorted. */
static const char *heterogeneous(Sema *s, Type *a, Type *b) {
    const char *x = type_name(s->arena, a), *y = type_name(s->arena, b);
    if (strcmp(x, y) > 0) {
        const char *t = x;
        x = y;
        y = t;
    }
    return arena_printf(s->arena, "Cannot type heterogeneous enum: got value types %s, %s", x, y);
}

/* One `NAME = constant` of an enum's body: a member, a constant symbol. */
static void enum_member(Sema *s, ClassInfo *c, Node *stmt) {
    if (stmt->kind != ND_ASSIGN) {
        if (stmt->kind == ND_ANNASSIGN)
            sema_error(s, stmt->span, "an enum's members are written NAME = constant, without an annotation");
        return;
    }
    Node *target = stmt->items[0];
    ConstValue *v = fold(s, stmt->rhs);
    Type *vt = v ? member_value_type(v) : NULL;
    if (!vt || (c->kind == CLASS_INT_ENUM && vt->kind != TY_INT)) {
        sema_error(s, stmt->rhs->span, "the value of enum member '%s' must be a constant %s", target->name,
                   c->kind == CLASS_INT_ENUM ? "int" : "int, float or bool");
        return;
    }
    if (!member_name_ok(s, c, target)) return;
    if (c->dtype && c->dtype != vt && !c->problem) c->problem = heterogeneous(s, c->dtype, vt);
    if (!c->dtype) c->dtype = vt;
    Sym *m = new_sym(s, SYM_CONST, target->name, target->span);
    m->value = v;
    c->names[c->count] = target->name;
    c->members[c->count++] = m;
}

static void define_enum(Sema *s, Node *n, ClassKind kind, Sym *sym) {
    ClassInfo *c = new_class(s, n->name, kind, n->span, n->body_len);
    c->members = ARENA_ARRAY(s->arena, Sym *, n->body_len ? n->body_len : 1);
    for (int i = 0; i < n->body_len; i++) enum_member(s, c, n->body[i]);
    if (!c->count) {
        c->problem = "Cannot type enum with no members";
        c->dtype = &ty_int64;
    }
    Type *member = type_enum(s->arena, c);
    for (int i = 0; i < c->count; i++) c->members[i]->ty = member;
    class_into(s, sym, c);
}

/* Python's rules for a named tuple's type and field names
 * (collections.namedtuple's checks). */
static bool is_keyword(const char *name) {
    static const char *const keywords[] = {
#define X(kind, spelling) spelling,
        KEYWORD_LIST(X)
#undef X
    };
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (!strcmp(keywords[i], name)) return true;
    return false;
}

static bool is_identifier(const char *name) {
    if (!*name || (*name >= '0' && *name <= '9')) return false;
    for (const char *p = name; *p; p++)
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return !is_keyword(name);
}

static bool add_field(Sema *s, ClassInfo *c, const char *name, Span at) {
    const char *why = !is_identifier(name) ? "is not a valid identifier"
                      : name[0] == '_' ? "starts with an underscore" : NULL;
    for (int i = 0; i < c->count && !why; i++)
        if (!strcmp(c->names[i], name)) why = "is given twice";
    if (why) {
        sema_error(s, at, "field name '%s' of named tuple '%s' %s", name, c->name, why);
        return false;
    }
    c->names[c->count++] = name;
    return true;
}

/* "x y" or "x, y": the names one string gives, split at commas and spaces. */
static bool add_fields_of_string(Sema *s, ClassInfo *c, Node *str) {
    const char *p = str->v.s.data, *end = p + str->v.s.len;
    bool ok = true;
    while (p < end) {
        while (p < end && (*p == ',' || *p == ' ')) p++;
        const char *start = p;
        while (p < end && *p != ',' && *p != ' ') p++;
        if (p > start) ok = add_field(s, c, arena_strndup(s->arena, start, (size_t)(p - start)), str->span) && ok;
    }
    return ok;
}

/* namedtuple's field names: a string of them, or a list or tuple of strings. */
static bool namedtuple_fields(Sema *s, ClassInfo *c, Node *arg) {
    if (arg->kind == ND_STR) return add_fields_of_string(s, c, arg);
    if (arg->kind != ND_LIST && arg->kind != ND_TUPLE) {
        sema_error(s, arg->span, "namedtuple's field names are a string, or a list or tuple of strings");
        return false;
    }
    bool ok = true;
    for (int i = 0; i < arg->item_len; i++) {
        Node *f = arg->items[i];
        if (f->kind != ND_STR) {
            sema_error(s, f->span, "a field name of a named tuple is a string");
            ok = false;
        } else {
            ok = add_field(s, c, f->v.s.data, f->span) && ok;
        }
    }
    return ok;
}

/* Point = namedtuple("Point", ["x", "y"]): a class named by its first
 * argument (Numba's name for the type), bound to the target. */
static void define_namedtuple(Sema *s, Node *call, Sym *sym) {
    Node *tn = call->item_len == 2 ? call->items[0] : NULL;
    if (call->kwarg_len || !tn) {
        sema_error(s, call->kwarg_len ? call->kwargs[0]->span : call->span,
                   "namedtuple takes a type name and field names (defaults, rename and module are not supported)");
        return;
    }
    if (tn->kind != ND_STR || !is_identifier(tn->v.s.data)) {
        sema_error(s, tn->span, "namedtuple's type name must be a string that is an identifier");
        return;
    }
    int cap = call->items[1]->kind == ND_STR ? (int)call->items[1]->v.s.len : call->items[1]->item_len;
    ClassInfo *c = new_class(s, tn->v.s.data, CLASS_NAMED_TUPLE, call->span, cap);
    if (!namedtuple_fields(s, c, call->items[1])) return;
    c->name = tn->v.s.data;
    class_into(s, sym, c);
}

/* ---- external device functions (cuda.declare_device) ------------------------------- */

/* declare_device's parameters, as Python binds a call's arguments to them. */
enum { DD_NAME, DD_SIG, DD_LINK, DD_COOPERATIVE, DD_ABI, DD_PARAMS };

static bool bind_declare_args(Sema *s, Node *call, Node **args) {
    static const char *const names[DD_PARAMS] = {"name", "sig", "link", "use_cooperative", "abi"};
    if (call->item_len > DD_PARAMS) {
        sema_error(s, call->items[DD_PARAMS]->span, "declare_device() takes at most %d arguments", DD_PARAMS);
        return false;
    }
    for (int i = 0; i < call->item_len; i++) args[i] = call->items[i];
    for (int k = 0; k < call->kwarg_len; k++) {
        Node *kw = call->kwargs[k];
        int i = 0;
        while (i < DD_PARAMS && strcmp(names[i], kw->name) != 0) i++;
        if (i == DD_PARAMS || args[i]) {
            sema_error(s, kw->span, i == DD_PARAMS ? "declare_device() got an unexpected keyword argument '%s'"
                                                   : "declare_device() got multiple values for argument '%s'", kw->name);
            return false;
        }
        args[i] = kw->rhs;
    }
    if (!args[DD_NAME] || !args[DD_SIG]) {
        sema_error(s, call->span, "declare_device() missing a required argument: '%s'", names[args[DD_NAME] ? DD_SIG : DD_NAME]);
        return false;
    }
    return true;
}

/* A symbol PTX takes for a function: letters, digits, _ and $, not first a digit. */
static bool ptx_symbol(const char *name) {
    if (!*name || (*name >= '0' && *name <= '9')) return false;
    for (const char *p = name; *p; p++)
        if (!(*p == '_' || *p == '$' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* Whether numba-cuda's ABI passes t to an external function as pykc
 * lowers it: scalars, arrays (numba's array struct) and tuples of them. */
static bool extern_passable(const Type *t) {
    if (is_scalar(t)) return true;
    if (t->kind == TY_ARRAY) return !t->nested;
    if (t->kind != TY_TUPLE) return false;
    for (int i = 0; i < t->elem_count; i++)
        if (!extern_passable(t->elems[i])) return false;
    return true;
}

/* The name: a string constant that PTX takes as a symbol, no kernel's. */
static const char *extern_name(Sema *s, Node *n) {
    if (n->kind != ND_STR || n->v.s.bytes || !ptx_symbol(n->v.s.data)) {
        sema_error(s, n->span, "declare_device's name is a string, the function's symbol: letters, digits, _ and $");
        return NULL;
    }
    Unit *u = s->unit;
    for (int i = 0; i < u->func_count; i++)
        if (u->funcs[i]->is_kernel && !u->funcs[i]->imported && !strcmp(u->funcs[i]->def->name, n->v.s.data)) {
            sema_error(s, n->span, "declare_device('%s', ...) would call kernel '%s' of this module: a kernel's entry has "
                       "that symbol", n->v.s.data, n->v.s.data);
            return NULL;
        }
    return n->v.s.data;
}

/* The signature's types into ext: a return type (numba-cuda requires one),
 * and arguments and a result the ABI passes. */
static bool extern_signature(Sema *s, Node *sig, ExternFunc *ext) {
    Node *call = signature_call(s, sig);
    if (!call) return false;
    if (!call->func) {
        sema_error(s, sig->span, "Return type must be provided for device declarations");
        return false;
    }
    s->in_signature = true;
    ext->ret = annotation_type(s, call->func);
    ext->param_count = call->item_len;
    ext->params = new_casts(s, call->item_len);
    for (int i = 0; i < call->item_len; i++) ext->params[i] = annotation_type(s, call->items[i]);
    s->in_signature = false;
    bool ok = ext->ret->kind != TY_ERROR;
    if (ok && !is_scalar(ext->ret) && ext->ret != &ty_none)
        ok = false, sema_error(s, call->func->span, "an external function returns a scalar or None here, not %s",
                               sema_type_name(s, ext->ret));
    for (int i = 0; i < call->item_len; i++) {
        if (ext->params[i]->kind == TY_ERROR) ok = false;
        else if (!extern_passable(ext->params[i]))
            ok = false, sema_error(s, call->items[i]->span, "an external function takes scalars, arrays and tuples of "
                                   "them here, not %s", sema_type_name(s, ext->params[i]));
    }
    return ok;
}

/* abi="numba" or "c", use_cooperative=, link=: the rest of ext. */
static bool extern_options(Sema *s, Node **args, ExternFunc *ext) {
    Node *abi = args[DD_ABI], *coop = args[DD_COOPERATIVE];
    if (abi && (abi->kind != ND_STR || (strcmp(abi->v.s.data, "numba") && strcmp(abi->v.s.data, "c")))) {
        sema_error(s, abi->span, "Unsupported ABI: declare_device's abi is \"numba\" or \"c\"");
        return false;
    }
    ext->abi = abi && !strcmp(abi->v.s.data, "c") ? EXTERN_ABI_C : EXTERN_ABI_NUMBA;
    ConstValue *c = coop ? fold(s, coop) : NULL;
    if (coop && (!c || c->ty->kind == TY_TUPLE)) {
        sema_error(s, coop->span, "use_cooperative must be a constant");
        return false;
    }
    ext->cooperative = c && const_truth(c);
    if (!args[DD_LINK] || args[DD_LINK]->kind == ND_NONE) return true;
    int errors = s->diag->error_count;
    ext->links = read_links(s, args[DD_LINK], true, &ext->link_count);
    return s->diag->error_count == errors;
}

/* foo = cuda.declare_device("foo", "float32(float32)", link=[...],
 * use_cooperative=False, abi="numba"): an external device function, which
 * kernels call by its symbol, as numba-cuda declares one. */
static void define_extern(Sema *s, Node *call, Sym *sym) {
    Node *args[DD_PARAMS] = {0};
    if (!bind_declare_args(s, call, args)) return;
    ExternFunc *ext = ARENA_NEW(s->arena, ExternFunc);
    ext->def = call->span;
    if (!(ext->name = extern_name(s, args[DD_NAME]))) return;
    bool sig_ok = extern_signature(s, args[DD_SIG], ext);
    if (!extern_options(s, args, ext) || !sig_ok) return;
    sym->ty = type_extern(s->arena, ext);
}

/* A call of an external function: its arguments convert to its
 * parameters as to a signature's (unsafe conversions too, as numba's
 * ConcreteTemplate takes them). The first call makes its files the
 * module's. */
static Type *call_extern(Sema *s, Node *call, ExternFunc *ext) {
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "keyword arguments to external functions are not supported");
        return &ty_error;
    }
    if (call->item_len != ext->param_count) {
        sema_error(s, call->span, "'%s' takes %d argument%s, %d given", ext->name, ext->param_count,
                   ext->param_count == 1 ? "" : "s", call->item_len);
        return &ty_error;
    }
    call->casts = new_casts(s, call->item_len);
    for (int i = 0; i < call->item_len; i++) {
        Type *want = ext->params[i], *got = call->items[i]->ty;
        if (!casts_lowered(s, call->items[i]->span, &got, &want, 1)) return &ty_error;
        if (type_conversion(got, want) == CONV_NONE) {
            sema_error(s, call->items[i]->span, "argument %d of '%s' is %s, which does not convert to %s", i + 1,
                       ext->name, sema_type_name(s, got), sema_type_name(s, want));
            return &ty_error;
        }
        call->casts[i] = want;
        if (want->kind == TY_ARRAY) sema_note_access(s, call->items[i], true, true);
    }
    if (ext->cooperative) sema_note_cooperative(s);
    if (!ext->called) {
        ext->called = true;
        ARENA_GROW(s->arena, s->unit->externs, s->unit->extern_count, s->unit->extern_cap, 4);
        s->unit->externs[s->unit->extern_count++] = ext;
        for (int i = 0; i < ext->link_count; i++) unit_add_link(s, &ext->links[i]);
    }
    return ext->ret;
}

/* class P(NamedTuple): one field a `NAME: type` line, whose annotation
 * Numba does not read (it types the values a kernel gives). */
static void define_named_tuple_class(Sema *s, Node *n, Sym *sym) {
    ClassInfo *c = new_class(s, n->name, CLASS_NAMED_TUPLE, n->span, n->body_len);
    for (int i = 0; i < n->body_len; i++) {
        Node *stmt = n->body[i];
        if (stmt->kind == ND_ANNASSIGN && !stmt->rhs) add_field(s, c, stmt->lhs->name, stmt->lhs->span);
        else if (stmt->kind == ND_ANNASSIGN)
            sema_error(s, stmt->rhs->span, "default values of NamedTuple fields are not supported");
        else if (stmt->kind == ND_ASSIGN)
            sema_error(s, stmt->span, "a NamedTuple's fields are written NAME: type");
    }
    class_into(s, sym, c);
}

/* A module-level class, when something first reads its name (sym
 * pending): an Enum, IntEnum or NamedTuple, its body checked; any other
 * class is host code, which kernels cannot use. */
static void evaluate_class(Sema *s, Sym *sym) {
    Node *n = sym->pending;
    sym->pending = NULL;
    sym->kind = SYM_ENTITY; /* an error, until the class is known */
    sym->ty = &ty_error;
    Sema outer = *s;
    enter_module_scope(s, sym);
    int kind = class_base(s, n);
    if (kind < 0) {
        Node *host = node_new(s->arena, ND_HOST, n->span);
        host->name = arena_printf(s->arena, "class '%s', which derives from none of enum.Enum, enum.IntEnum and "
                                  "typing.NamedTuple", n->name);
        sym->kind = SYM_HOST;
        sym->host = host;
    } else {
        check_class_body(s, n);
        if (kind == CLASS_NAMED_TUPLE) define_named_tuple_class(s, n, sym);
        else define_enum(s, n, (ClassKind)kind, sym);
    }
    *s = outer;
}

/* class NAME(...): at module level, a name evaluated if something reads it. */
static void declare_class(Sema *s, Node *n) {
    Sym *sym = new_sym(s, SYM_CONST, n->name, n->span);
    sym->pending = n;
    sym->home = s->globals;
    bind_global(s, n->name, sym);
}

static void check_defines_exist(Sema *s) {
    const Options *o = s->unit->opts;
    for (int i = 0; o && i < o->define_count; i++) {
        Sym *sym = scope_find(s->globals, o->defines[i].name);
        if (sym && (sym->pending || sym->kind == SYM_CONST)) {
            resolve(s, sym); /* the value given is checked, read or not */
            continue;
        }
        diag_plain(s->diag, DIAG_ERROR, "-D%s: '%s' is not a module constant of %s", o->defines[i].name,
                   o->defines[i].name, o->input);
    }
}

static void module_statement(Sema *s, Node *n, Vec *funcs) {
    switch (n->kind) {
    case ND_IMPORT:
        for (int i = 0; i < n->item_len; i++) import_module(s, n->items[i]);
        return;
    case ND_IMPORT_FROM: import_from(s, n); return;
    case ND_ASSIGN: case ND_ANNASSIGN: case ND_AUGASSIGN: declare_constant(s, n); return;
    case ND_CLASSDEF: declare_class(s, n); return;
    case ND_FUNCDEF: {
        FuncInfo *f = declare_function(s, n);
        bind_global(s, n->name, f->sym);
        vec_push(s->arena, funcs, f);
        return;
    }
    case ND_HOST: declare_host(s, n); return;
    case ND_EXPR_STMT: case ND_PASS: return; /* a docstring */
    default: ice("a %s at module level", node_kind_name(n->kind));
    }
}

/* -v: the module's constants that nothing read, skipped as host code is. */
/* Whether a module-level call is written as one of declare_device (by
 * that name, so that host code's callees are never typed, which would
 * evaluate the constants they read). */
static bool declares_device(Sema *s, Node *call) {
    if (call->kind != ND_CALL || (call->func->kind != ND_NAME && call->func->kind != ND_ATTR) ||
        strcmp(call->func->name, "declare_device") != 0)
        return false;
    return calls_entity_of(s, call->func, ENT_DECLARE_DEVICE);
}

/* A declaration no kernel reads is still checked, as numba-cuda checks it
 * when the module is imported; its files are linked only if called. */
static void check_declarations(Sema *s, const Node *module) {
    for (int i = 0; i < module->body_len && !s->diag->stop; i++) {
        const Node *n = module->body[i];
        if (n->kind != ND_ASSIGN || !declares_device(s, n->rhs)) continue;
        for (int k = 0; k < n->item_len; k++)
            if (n->items[k]->kind == ND_NAME && n->items[k]->sym && n->items[k]->sym->pending) resolve(s, n->items[k]->sym);
    }
}

static void note_unread_constants(Sema *s, const Node *module) {
    for (int i = 0; i < module->body_len; i++) {
        const Node *n = module->body[i];
        Sym *cls = n->kind == ND_CLASSDEF ? scope_find(s->globals, n->name) : NULL;
        if (cls && cls->pending == n) note_skipped(s, n->span, arena_printf(s->arena, "class '%s' (no kernel reads it)", n->name));
        else if (cls && cls->kind == SYM_HOST) note_skipped(s, n->span, cls->host->name);
        if (n->kind != ND_ASSIGN && n->kind != ND_ANNASSIGN && n->kind != ND_AUGASSIGN) continue;
        Vec names_read = {0};
        if (n->kind == ND_ASSIGN)
            for (int k = 0; k < n->item_len; k++) {
                Node *t = n->items[k];
                if (t->kind == ND_NAME) vec_push(s->arena, &names_read, t);
                for (int j = 0; t->kind == ND_TUPLE && j < t->item_len; j++) vec_push(s->arena, &names_read, t->items[j]);
            }
        else
            vec_push(s->arena, &names_read, n->lhs);
        char names[200] = "";
        bool unread = true;
        for (int k = 0; k < names_read.len && unread; k++) {
            Node *t = names_read.items[k];
            unread = t->sym && t->sym->pending;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", t->name);
        }
        if (unread) note_skipped(s, n->span, arena_printf(s->arena, "assignment to %s (no kernel reads it)", names));
    }
}

static int by_place(const void *a, const void *b) {
    const Skipped *x = a, *y = b;
    if (x->where.file != y->where.file) return x->where.file < y->where.file ? -1 : 1;
    return x->where.begin < y->where.begin ? -1 : x->where.begin > y->where.begin;
}

static void declare_module(Sema *s, Node *module, Vec *funcs) {
    for (int i = 0; i < module->body_len; i++) module_statement(s, module->body[i], funcs);
}

/* ---- --sig: a kernel's types from the command line --------------------------------- */

/* An error of a --sig, the command line's: pykc then exits with status 2;
 * of a decorator's signature, the input's. */
static void sig_error(Sema *s, const FuncInfo *f, Span where, const char *fmt, ...) PYKC_PRINTF(4, 5);
static void sig_error(Sema *s, const FuncInfo *f, Span where, const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sema_error(s, where, "%s", text);
    if (!f || !f->sigs_from_decorator) s->unit->usage_error = true;
}

/* What the signatures of f are called in messages. */
static const char *sig_source(const FuncInfo *f) { return f->sigs_from_decorator ? "the signature" : "--sig"; }

/* The module's kernel nearest to name, for "did you mean". */
static const char *nearest_kernel(Sema *s, const char *name) {
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < s->unit->func_count; i++) {
        FuncInfo *f = s->unit->funcs[i];
        if (f->imported || f->generic) continue;
        int d = edit_distance(name, f->def->name);
        if (d < best_d) best_d = d, best = f->def->name;
    }
    return best;
}

/* Reads each --sig, NAME(type, ...), and gives it to the function NAME of
 * the input, which its decorators will say is a kernel (prepare_function). */
static void read_signatures(Sema *s) {
    const Options *o = s->unit->opts;
    for (int i = 0; o && i < o->sig_count; i++) {
        int errors = s->diag->error_count;
        int file = diag_add_source(s->diag, "<--sig>", o->sigs[i], strlen(o->sigs[i]));
        TokenArray toks = lex_file(s->arena, s->diag, file);
        Node *call = parse_expression(s->arena, s->diag, file, &toks);
        if (s->diag->error_count != errors) {
            s->unit->usage_error = true;
            continue;
        }
        if (call->kind != ND_CALL || call->func->kind != ND_NAME || call->kwarg_len) {
            sig_error(s, NULL, call->span, "a --sig is written NAME(type, ...), as in --sig 'vadd(float32[::1], float32[::1], int64)'");
            continue;
        }
        Sym *sym = scope_find(s->globals, call->func->name);
        if (!sym || sym->kind != SYM_FUNC || sym->func->imported) {
            const char *hint = nearest_kernel(s, call->func->name);
            bool host = sym && sym->kind == SYM_HOST && sym->host && sym->host->lhs && sym->host->lhs->kind == ND_FUNCDEF;
            sig_error(s, NULL, call->func->span, "--sig names '%s', %s%s%s%s", call->func->name,
                      host ? "a function without @cuda.jit, not a kernel" : "which is no kernel of ",
                      host ? "" : o->input, hint ? "; did you mean " : "", hint ? arena_printf(s->arena, "'%s'?", hint) : "");
            continue;
        }
        FuncInfo *f = sym->func;
        Node **grown = ARENA_ARRAY(s->arena, Node *, f->sig_count + 1);
        if (f->sig_count) memcpy(grown, f->sigs, sizeof(Node *) * (size_t)f->sig_count);
        grown[f->sig_count++] = call;
        f->sigs = grown;
    }
}

/* Adds sp to the unit's functions after those at index `after`. */
static void insert_function(Unit *u, Arena *a, int after, FuncInfo *sp) {
    FuncInfo **funcs = ARENA_ARRAY(a, FuncInfo *, u->func_count + 1);
    memcpy(funcs, u->funcs, sizeof(FuncInfo *) * (size_t)(after + 1));
    funcs[after + 1] = sp;
    memcpy(funcs + after + 2, u->funcs + after + 1, sizeof(FuncInfo *) * (size_t)(u->func_count - after - 1));
    u->func_count++;
    u->funcs = funcs;
}

/* "float32, array(float32, 1d, A)": n types in Numba's spelling. */
static const char *type_list(Sema *s, Type *const *types, int n) {
    const char *text = "";
    for (int i = 0; i < n; i++) text = arena_printf(s->arena, "%s%s%s", text, i ? ", " : "", type_name(s->arena, types[i]));
    return text;
}

/* The entry of kernel f's copy for the parameter types `types`:
 * NAME__<the first 8 digits of the digest of their names>, a name that
 * depends only on the types. */
static const char *copy_entry_name(Sema *s, const FuncInfo *f, Type *const *types) {
    const char *text = type_list(s, types, f->param_count);
    char digest[25];
    digest_fnv1a64(text, strlen(text), digest);
    return arena_printf(s->arena, "%s__%.8s", f->def->name, digest + 8);
}

/* Kernel f's body declared again as kernel `entry`, its parameters typed
 * `types`; the manifest names it after f. */
static FuncInfo *copy_kernel(Sema *s, FuncInfo *f, Type *const *types, const char *entry) {
    FuncInfo *sp = declare_function(s, node_clone(s->arena, f->def));
    sp->def->name = sp->sym->name = entry;
    sp->prepared = true; /* its decorators were read on f */
    sp->generic = f;
    sp->globals = f->globals;
    sp->is_kernel = true;
    copy_decorations(sp, f);
    sp->ret = &ty_none;
    for (int i = 0; i < f->param_count; i++) sp->params[i]->ty = types[i];
    return sp;
}

/* Where f is in the unit's functions. */
static int function_index(const Unit *u, const FuncInfo *f) {
    int at = 0;
    while (at < u->func_count && u->funcs[at] != f) at++;
    return at;
}

/* Kernel f's specialisation for the types of its index-th --sig: a copy
 * typed with them, whose entry is NAME for the first, NAME__<digest of the
 * types> for the others (the manifest's name stays NAME). */
static void specialise_kernel(Sema *s, FuncInfo *f, int index) {
    Node *sig = f->sigs[index];
    if (sig->item_len != f->param_count) {
        char names[256] = "";
        for (int i = 0; i < f->param_count; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", f->params[i]->name);
        sig_error(s, f, sig->span, "%s gives %d type%s, but kernel '%s' takes %d parameter%s (%s)", sig_source(f),
                  sig->item_len, sig->item_len == 1 ? "" : "s", f->def->name, f->param_count, f->param_count == 1 ? "" : "s",
                  names);
        return;
    }
    Type **types = ARENA_ARRAY(s->arena, Type *, f->param_count ? f->param_count : 1);
    int errors = s->diag->error_count;
    s->in_signature = true;
    for (int i = 0; i < sig->item_len; i++) {
        types[i] = annotation_type(s, sig->items[i]);
        if (types[i]->kind != TY_ERROR && !is_value(types[i]))
            sema_error(s, sig->items[i]->span, "a parameter cannot be %s", sema_type_name(s, types[i]));
    }
    s->in_signature = false;
    if (s->diag->error_count != errors) {
        s->unit->usage_error = !f->sigs_from_decorator;
        return;
    }
    const char *text = type_list(s, types, f->param_count);
    for (int k = 0; k < f->spec_count; k++) {
        bool same = true;
        for (int i = 0; i < f->param_count && same; i++) same = type_equal(f->specs[k]->params[i]->ty, types[i]);
        if (same && f->sigs_from_decorator) return; /* numba-cuda compiles it once */
        if (same) {
            sig_error(s, f, sig->span, "this --sig gives kernel '%s' the types of an earlier one (%s)", f->def->name, text);
            return;
        }
    }
    const char *entry = f->spec_count == 0 ? f->def->name : copy_entry_name(s, f, types);
    if (f->spec_count && scope_find(s->globals, entry)) {
        sig_error(s, f, sig->span, "the entry name '%s' for this %s is the name of another function of the module", entry,
                  f->sigs_from_decorator ? "signature" : "--sig");
        return;
    }
    FuncInfo *sp = copy_kernel(s, f, types, entry);
    sp->sig = sig;
    FuncInfo **specs = ARENA_ARRAY(s->arena, FuncInfo *, f->spec_count + 1);
    if (f->spec_count) memcpy(specs, f->specs, sizeof(FuncInfo *) * (size_t)f->spec_count);
    specs[f->spec_count++] = sp;
    f->specs = specs;
    insert_function(s->unit, s->arena, function_index(s->unit, f) + f->spec_count - 1, sp);
}

/* Kernel f, typed by its annotations or its one signature, compiled a
 * second time with each layout-A array parameter C-contiguous, as Numba's
 * dispatcher compiles a kernel for the contiguous arrays it is mostly
 * given: its strides are then the item sizes, constants that fold into
 * every index. libpykrt launches the copy where each of those arguments is
 * contiguous, the kernel itself where one is not. */
static void add_contiguous_copy(Sema *s, FuncInfo *f) {
    if (!f->is_kernel || f->imported || f->abstract || f->generic) return;
    Type **types = ARENA_ARRAY(s->arena, Type *, f->param_count ? f->param_count : 1);
    bool any = false;
    for (int i = 0; i < f->param_count; i++) {
        Type *t = f->params[i]->ty;
        if (!t || t->kind == TY_ERROR) return;
        types[i] = t;
        if (t->kind != TY_ARRAY || t->layout != 'A' || t->nested) continue;
        types[i] = ARENA_NEW(s->arena, Type);
        *types[i] = *t;
        types[i]->layout = 'C';
        any = true;
    }
    const char *entry = any ? copy_entry_name(s, f, types) : NULL;
    if (!entry || scope_find(s->globals, entry)) return; /* a function of that name: no copy */
    FuncInfo *copy = copy_kernel(s, f, types, entry);
    copy->contiguous_of = f;
    f->contiguous = copy;
    insert_function(s->unit, s->arena, function_index(s->unit, f), copy);
}

/* A kernel given --sig: if it has no types of its own, one specialisation
 * a --sig; the kernel itself, typeless, is none. False if --sig does not
 * apply (then said why). */
static bool apply_signatures(Sema *s, FuncInfo *f) {
    if (!f->is_kernel) {
        sig_error(s, f, f->sigs[0]->func->span, "--sig names '%s', a device function: it is typed for the arguments of each call",
                  f->def->name);
        return false;
    }
    const char *why = f->has_signature ? "its @cuda.jit signature" : NULL;
    for (int i = 0; i < f->param_count && !why && !f->sigs_from_decorator; i++) /* numba's signatures win */
        if (f->def->items[i]->annotation) why = arena_printf(s->arena, "the annotation of '%s'", f->params[i]->name);
    if (why) {
        int errors = s->diag->error_count;
        sig_error(s, f, f->sigs[0]->func->span, "--sig names kernel '%s', which has types already (%s); --sig is for kernels without them",
                  f->def->name, why);
        if (s->diag->error_count != errors) diag_note(s->diag, f->def->span, "'%s' is defined here", f->def->name);
        return false;
    }
    for (int i = 0; i < f->param_count; i++)
        if (f->def->items[i]->rhs) sema_error(s, f->def->items[i]->rhs->span, "default parameter values are not supported yet");
    f->abstract = true; /* its specialisations are the kernels */
    f->typed = true;
    f->ret = &ty_none;
    for (int i = 0; i < f->param_count; i++) f->params[i]->ty = &ty_error;
    for (int i = 0; i < f->sig_count; i++) specialise_kernel(s, f, i);
    return true;
}

/* Reads f's decorators and parameter types, at module level, once: just
 * before f is typed or called, so that errors come about in source order. */
static void prepare_function(Sema *s, FuncInfo *f) {
    if (f->prepared) return;
    f->prepared = true;
    Sema outer = *s;
    s->fn = NULL;
    s->locals = NULL;
    s->quiet = false; /* said once, whatever pass of a caller gets here */
    s->globals = f->globals;
    s->loop_depth = 0;
    for (int k = 0; k < f->def->decorator_len; k++) {
        Node *d = f->def->decorators[k];
        type_expr(s, d->kind == ND_CALL ? d->func : d);
    }
    bool decorated = apply_decorators(s, f);
    f->checks = (s->unit->opts ? s->unit->opts->checks : 0) | (f->boundscheck ? CHECK_BOUNDS : 0);
    if (!decorated) {
        /* a decorator that is not cuda.jit was reported as such */
        if (!f->def->decorator_len) sema_error(s, f->def->span, "function '%s' needs @cuda.jit", f->def->name);
        f->abstract = true;
    } else if (!f->sig_count || !apply_signatures(s, f)) {
        type_parameters(s, f);
        add_contiguous_copy(s, f);
    }
    *s = outer;
}

/* Adds funcs to the unit; an imported module's are prepared at once, the
 * input's as sema_module reaches them. */
static void prepare_functions(Sema *s, FuncInfo **funcs, int n, bool now) {
    Unit *u = s->unit;
    FuncInfo **all = ARENA_ARRAY(s->arena, FuncInfo *, u->func_count + n + 1);
    if (u->func_count) memcpy(all, u->funcs, sizeof(FuncInfo *) * (size_t)u->func_count);
    for (int i = 0; i < n; i++) all[u->func_count++] = funcs[i];
    u->funcs = all;
    for (int i = 0; now && i < n; i++) prepare_function(s, funcs[i]);
}

bool sema_module(Unit *u) {
    Vec modules = {0};
    Scope *globals = ARENA_NEW(u->arena, Scope);
    struct Reported *reported = NULL;
    Sema s = {.unit = u, .arena = u->arena, .diag = u->diag, .globals = globals, .modules = &modules,
              .reported = &reported};
    int errors = u->diag->error_count;
    Vec funcs = {0};
    diag_hold(u->diag); /* errors come as the functions are typed; they print in source order */
    declare_module(&s, u->module, &funcs);
    check_defines_exist(&s);
    prepare_functions(&s, (FuncInfo **)funcs.items, funcs.len, false);
    read_signatures(&s);
    int kernels = 0;
    for (int i = 0; i < u->func_count; i++) {
        FuncInfo *f = u->funcs[i];
        prepare_function(&s, f);
        int before = u->diag->error_count;
        if (f->contiguous_of && u->diag->error_count != errors) {
            f->abstract = true; /* its kernel's errors, said once */
            f->contiguous_of->contiguous = NULL;
            continue;
        }
        type_function(&s, f);
        if (f->sig && u->diag->error_count != before && !u->diag->stop)
            diag_note(u->diag, f->sig->span, "kernel '%s' is typed for this %s", f->generic->def->name,
                      f->generic->sigs_from_decorator ? "signature" : "--sig");
        if (f->contiguous_of && u->diag->error_count != before && !u->diag->stop)
            diag_note(u->diag, f->def->span, "kernel '%s' is typed here for C-contiguous arrays too, as Numba's "
                      "dispatcher types it for contiguous arguments", f->generic->def->name);
        kernels += f->is_kernel && !f->imported;
    }
    if (kernels == 0 && u->diag->error_count == errors)
        diag_warning(u->diag, (Span){u->module->span.file, 0, 0}, "module defines no kernel");
    check_declarations(&s, u->module);
    note_unread_constants(&s, u->module);
    if (u->skipped_count > 1) qsort(u->skipped, (size_t)u->skipped_count, sizeof *u->skipped, by_place);
    diag_release_all(u->diag);
    return u->diag->error_count == errors;
}

/* ---- --dump-types ------------------------------------------------------------------- */

static int by_name(const void *a, const void *b) {
    return strcmp((*(Sym *const *)a)->name, (*(Sym *const *)b)->name);
}

void sema_dump_types(FILE *out, const Unit *u) {
    for (int i = 0; i < u->func_count; i++) {
        FuncInfo *f = u->funcs[i];
        /* a kernel's --sig copies: each; its copy for contiguous arrays: none (the kernel as written) */
        if ((f->generic && !f->is_kernel) || f->abstract || f->imported || f->contiguous_of) continue;
        fprintf(out, "%s -> %s%s\n", f->def->name, type_name(u->arena, f->ret ? f->ret : &ty_none),
                f->is_kernel ? "" : "  [device]");
        int n = f->local_count + f->param_count;
        Sym **all = ARENA_ARRAY(u->arena, Sym *, n ? n : 1);
        memcpy(all, f->params, sizeof(Sym *) * (size_t)f->param_count);
        int k = f->param_count;
        for (int j = 0; j < f->local_count; j++) all[k++] = f->locals[j];
        qsort(all, (size_t)k, sizeof(Sym *), by_name);
        for (int j = 0; j < k; j++)
            if (all[j]->ty && is_value(all[j]->ty))
                fprintf(out, "%s %s %s\n", f->def->name, all[j]->name, type_name(u->arena, all[j]->ty));
    }
}
