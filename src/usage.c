/*
 * usage.c - what a kernel's body says of its parameters' types, for the
 * fix-its of a kernel without annotations.
 *
 * Takes a FunctionDef, untyped, and gives for each parameter a guess, from
 * the syntax alone (no names are resolved): an array when it is indexed,
 * measured (.shape .size .ndim .strides .T, len) or iterated, of as many
 * dimensions as its widest subscript or .shape[k] implies (or the targets
 * that unpack its .shape), else a scalar; float32 when its values are
 * combined with floats (float literals, true division, math's functions,
 * float casts, or locals that hold such values), int64 otherwise, and
 * int64 always for a scalar used as an index or a range bound. sema says
 * it as "e.g.": Numba types a parameter from each launch's argument,
 * which only the host code knows.
 */
#include "pykc.h"

#include <string.h>

typedef struct Usages {
    const Node *def;
    ParamUsage *params;
    const char **floaty;      /* names of locals that hold float values */
    int floaty_count, floaty_cap;
    Arena *arena;
    bool changed;
} Usages;

static int param_index(const Usages *u, const Node *n) {
    if (!n || n->kind != ND_NAME) return -1;
    for (int i = 0; i < u->def->item_len; i++)
        if (!strcmp(u->def->items[i]->name, n->name)) return i;
    return -1;
}

static bool is_floaty(const Usages *u, const char *name) {
    for (int i = 0; i < u->floaty_count; i++)
        if (!strcmp(u->floaty[i], name)) return true;
    return false;
}

static void mark_floaty(Usages *u, const char *name) {
    if (is_floaty(u, name)) return;
    ARENA_GROW(u->arena, u->floaty, u->floaty_count, u->floaty_cap, 8);
    u->floaty[u->floaty_count++] = name;
    u->changed = true;
}

static void widen(ParamUsage *p, int ndim, const char *why) {
    p->array = true;
    if (ndim > p->ndim) {
        p->ndim = ndim;
        p->why = why;
    }
    if (!p->why) p->why = why;
}

/* A call whose value is a float: math.f(...), float(...), float32(...). */
static bool is_float_call(const Node *n) {
    if (n->kind != ND_CALL) return false;
    const Node *f = n->func;
    if (f->kind == ND_ATTR && f->lhs->kind == ND_NAME && !strcmp(f->lhs->name, "math")) return true;
    const char *name = f->kind == ND_NAME ? f->name : f->kind == ND_ATTR ? f->name : "";
    return !strcmp(name, "float") || !strcmp(name, "float32") || !strcmp(name, "float64") || !strcmp(name, "sqrt") ||
           !strcmp(name, "exp") || !strcmp(name, "sin") || !strcmp(name, "cos");
}

/* What one expression says: uses of parameters as arrays and indices, and
 * whether it holds a float (then *floats). `in_index`: n is (part of) a
 * subscript's index or a range bound. */
static void visit(Usages *u, const Node *n, bool in_index, bool *floats) {
    if (!n) return;
    int p;
    switch (n->kind) {
    case ND_FLOAT: *floats = true; return;
    case ND_NAME:
        if ((p = param_index(u, n)) >= 0) {
            if (in_index) u->params[p].index = true;
            else u->params[p].combined = true;
            if (u->params[p].floaty && !in_index) *floats = true;
        } else if (!in_index && is_floaty(u, n->name)) {
            *floats = true;
        }
        return;
    case ND_SUBSCRIPT: {
        const Node *base = n->lhs, *idx = n->rhs;
        int dims = idx->kind == ND_TUPLE ? idx->item_len : 1;
        if ((p = param_index(u, base)) >= 0) {
            widen(&u->params[p], dims, dims == 1 ? "indexed with one subscript" : arena_printf(u->arena, "indexed with %d subscripts", dims));
            if (u->params[p].floaty) *floats = true;
        } else if (base->kind == ND_ATTR && !strcmp(base->name, "shape") && (p = param_index(u, base->lhs)) >= 0 &&
                   idx->kind == ND_INT) {
            widen(&u->params[p], (int)idx->v.i.value + 1, arena_printf(u->arena, "measured by .shape[%d]", (int)idx->v.i.value));
        } else {
            visit(u, base, in_index, floats);
        }
        visit(u, idx, true, floats);
        return;
    }
    case ND_ATTR:
        if ((p = param_index(u, n->lhs)) >= 0) {
            static const char *const measures[] = {"shape", "size", "ndim", "strides", "nbytes", "itemsize", "T"};
            for (size_t i = 0; i < sizeof measures / sizeof measures[0]; i++)
                if (!strcmp(n->name, measures[i]))
                    widen(&u->params[p], !strcmp(n->name, "T") ? 2 : 1, arena_printf(u->arena, "its .%s read", n->name));
            return;
        }
        visit(u, n->lhs, in_index, floats);
        return;
    case ND_CALL: {
        const Node *f = n->func;
        bool range = f->kind == ND_NAME && !strcmp(f->name, "range");
        if (f->kind == ND_NAME && !strcmp(f->name, "len") && n->item_len == 1 && (p = param_index(u, n->items[0])) >= 0) {
            widen(&u->params[p], 1, "measured by len()");
            return;
        }
        /* cuda.atomic.add(ary, idx, v) and friends: ary an array of idx's dims */
        if (f->kind == ND_ATTR && f->lhs->kind == ND_ATTR && !strcmp(f->lhs->name, "atomic") && n->item_len >= 2 &&
            (p = param_index(u, n->items[0])) >= 0) {
            widen(&u->params[p], n->items[1]->kind == ND_TUPLE ? n->items[1]->item_len : 1, "updated atomically");
            visit(u, n->items[1], true, floats);
            for (int i = 2; i < n->item_len; i++) visit(u, n->items[i], false, floats);
            if (*floats && !u->params[p].floaty) u->params[p].floaty = u->changed = true;
            if (u->params[p].floaty) *floats = true;
            return;
        }
        if (is_float_call(n)) *floats = true;
        if (f->kind != ND_NAME) visit(u, f, false, floats);
        for (int i = 0; i < n->item_len; i++) visit(u, n->items[i], range || in_index, floats);
        for (int i = 0; i < n->kwarg_len; i++) visit(u, n->kwargs[i]->rhs, false, floats);
        return;
    }
    case ND_BINOP:
        if (n->op == OP_DIV) *floats = true;
        visit(u, n->lhs, in_index, floats);
        visit(u, n->rhs, in_index, floats);
        return;
    case ND_COMPARE: {
        /* a comparison's value is a bool: its operands combine with nothing */
        bool ignored = false;
        for (int i = 0; i < n->item_len; i++) visit(u, n->items[i], in_index, &ignored);
        return;
    }
    default: {
        const Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->lower, n->upper, n->step};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) visit(u, kids[i], in_index, floats);
        for (int i = 0; i < n->item_len; i++) visit(u, n->items[i], in_index, floats);
        return;
    }
    }
}

/* An assignment's targets take the value's floats: locals and arrays whose
 * elements are stored. */
static void assign_floats(Usages *u, const Node *target) {
    int p;
    if (target->kind == ND_NAME) {
        if ((p = param_index(u, target)) >= 0) {
            if (!u->params[p].floaty) u->params[p].floaty = u->changed = true;
        } else {
            mark_floaty(u, target->name);
        }
    } else if (target->kind == ND_SUBSCRIPT && (p = param_index(u, target->lhs)) >= 0) {
        if (!u->params[p].floaty) u->params[p].floaty = u->changed = true;
    } else if (target->kind == ND_TUPLE) {
        for (int i = 0; i < target->item_len; i++) assign_floats(u, target->items[i]);
    }
}

/* The arrays whose elements a statement reads take its floats too: in
 * `acc += a[i] * 2.0` both acc and a hold floats. */
static void read_floats(Usages *u, const Node *n) {
    if (!n) return;
    int p;
    if (n->kind == ND_SUBSCRIPT && (p = param_index(u, n->lhs)) >= 0) {
        if (!u->params[p].floaty) u->params[p].floaty = u->changed = true;
        return;
    }
    if (n->kind == ND_NAME && (p = param_index(u, n)) >= 0 && !u->params[p].index) {
        if (!u->params[p].floaty) u->params[p].floaty = u->changed = true;
        return;
    }
    if (n->kind == ND_COMPARE || (n->kind == ND_SUBSCRIPT)) return;
    const Node *kids[] = {n->lhs, n->rhs, n->then, n->els};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) read_floats(u, kids[i]);
    for (int i = 0; n->kind != ND_CALL && i < n->item_len; i++) read_floats(u, n->items[i]);
    if (n->kind == ND_CALL)
        for (int i = 0; i < n->item_len; i++) read_floats(u, n->items[i]);
}

static void visit_block(Usages *u, Node *const *body, int n);

static void visit_statement(Usages *u, const Node *n) {
    bool floats = false;
    switch (n->kind) {
    case ND_ASSIGN: case ND_AUGASSIGN: case ND_ANNASSIGN: {
        const Node *value = n->rhs;
        if (!value) return;
        visit(u, value, false, &floats);
        int count = n->kind == ND_ASSIGN ? n->item_len : 1;
        Node *const *targets = n->kind == ND_ASSIGN ? n->items : &n->lhs;
        for (int i = 0; i < count; i++) {
            const Node *t = targets[i];
            /* n, m = a.shape: a has as many dimensions */
            int p;
            if (t->kind == ND_TUPLE && value->kind == ND_ATTR && !strcmp(value->name, "shape") &&
                (p = param_index(u, value->lhs)) >= 0)
                widen(&u->params[p], t->item_len, arena_printf(u->arena, "its .shape unpacked into %d names", t->item_len));
            if (t->kind == ND_SUBSCRIPT) {
                bool ignored = false;
                visit(u, t, false, &ignored);
            }
            if (n->kind == ND_AUGASSIGN) visit(u, t, false, &floats);
            if (floats) assign_floats(u, t);
        }
        if (floats) read_floats(u, value);
        return;
    }
    case ND_EXPR_STMT:
        visit(u, n->rhs, false, &floats);
        if (floats) read_floats(u, n->rhs);
        return;
    case ND_IF: case ND_WHILE:
        visit(u, n->cond, false, &floats);
        visit_block(u, n->body, n->body_len);
        visit_block(u, n->orelse, n->orelse_len);
        return;
    case ND_FOR: {
        int p = param_index(u, n->iter);
        if (p >= 0) widen(&u->params[p], 1, "iterated");
        else visit(u, n->iter, false, &floats);
        visit_block(u, n->body, n->body_len);
        visit_block(u, n->orelse, n->orelse_len);
        return;
    }
    case ND_RETURN: case ND_ASSERT:
        for (int i = 0; i < n->item_len; i++) visit(u, n->items[i], false, &floats);
        visit(u, n->cond, false, &floats);
        return;
    default:
        return;
    }
}

static void visit_block(Usages *u, Node *const *body, int n) {
    for (int i = 0; i < n; i++) visit_statement(u, body[i]);
}

void infer_param_usage(Arena *a, const Node *def, ParamUsage *out) {
    Usages u = {.def = def, .params = out, .arena = a};
    memset(out, 0, sizeof(ParamUsage) * (size_t)def->item_len);
    /* floats flow through locals in any order: again until none is new */
    for (int pass = 0; pass < 8; pass++) {
        u.changed = false;
        visit_block(&u, def->body, def->body_len);
        if (!u.changed) break;
    }
    for (int i = 0; i < def->item_len; i++) {
        ParamUsage *p = &out[i];
        if (p->array && p->ndim < 1) p->ndim = 1;
        p->dtype = p->floaty && (p->array || !p->index) ? "float32" : "int64";
    }
}
