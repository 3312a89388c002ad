/*
 * ssa.c - a function body's blocks and its locals' versions, as numba-cuda
 * sees them.
 *
 * Numba reads CPython 3.11's bytecode, not the source, so the shape of the
 * code it types is CPython's: a while loop's test is compiled twice (before
 * the loop and again at the end of the body), an unconditional jump to a
 * jump on the same line is threaded, a test on a constant becomes a jump,
 * and code that cannot run is dropped. Numba cuts that bytecode into blocks
 * at every jump and jump target, gives each loop a single back edge
 * (transforms.py), and then renames the locals into SSA versions (ssa.py):
 * each assignment after a name's first gets the next number (x.1, x.2), and
 * a merge point where different versions meet gets a phi version, numbered
 * on from there in the order the uses ask for them. Each version has a type
 * of its own, which is why `x = 7; r = x // 2; x = 1.5` makes r an int64.
 *
 * This file builds those blocks from the tree in three steps (CPython's
 * blocks, Numba's blocks, the versions) and hands sema the versions and
 * codegen the blocks, with each phi assigned at the end of its
 * predecessors as Numba's PreLowerStripPhis assigns it.
 */
#include "pykc.h"

#include <string.h>

/* ---- CPython's blocks ------------------------------------------------------------ */

typedef enum { PT_FALL, PT_JUMP, PT_CJUMP, PT_FOR_ITER, PT_RETURN, PT_RAISE, PT_CASE } PTerm;

typedef struct NBlock NBlock;

typedef struct PBlock {
    const char *name;
    int order;                /* position in the layout */
    Vec items;                /* CfgItem */
    bool nop;                 /* holds an instruction that is no item (pass) */
    PTerm term;
    Node *node;               /* CJUMP: the test or Assert; FOR_ITER, CASE: the For; RETURN, RAISE */
    int version;              /* CASE: on to the next block for this version, else to target */
    Node *test;               /* CJUMP: the expression tested */
    bool jump_if;             /* CJUMP: jumps when the test is this */
    int line;                 /* JUMP, CJUMP: its line, -1 for an artificial jump */
    struct PBlock *target;
    bool reachable, is_target;
    NBlock *nblock;
} PBlock;

/* ---- Numba's blocks -------------------------------------------------------------- */

typedef enum { EV_USE, EV_DEF } EventKind;

typedef struct Event {
    EventKind kind;
    int name;                 /* index into the locals */
    Node *node;               /* the Name (or the AugAssign that reads it) */
    Span value;               /* EV_DEF: what is assigned */
    Sym *param;               /* a parameter's definition at entry */
} Event;

struct NBlock {
    const char *name;
    int index;
    Vec pblocks;
    NBlock *succ[2];
    int succ_count;
    CfgTermKind term;
    Node *node;
    int version;
    NBlock **preds;
    int pred_count, pred_cap;
    NBlock *idom;
    int rpo;                  /* reverse postorder number, -1 unreached */
    int pre, post;            /* the dominator tree's preorder interval */
    Vec children;             /* in the dominator tree */
    Vec df;                   /* dominance frontier (NBlock), then iterated */
    Event *events;
    int event_count, event_cap;
    Vec moves;                /* PhiMove */
};

typedef struct Loop {
    PBlock *cont, *brk;
} Loop;

/* A local name: assigned somewhere in the body, or a parameter. */
typedef struct Local {
    const char *name;
    Sym *param;
    Node *only_value;         /* the value of its one plain assignment, if one */
    int defs;                 /* assignments in the source */
    Vec funcs;                /* the functions defined here that it may hold
                                 (FunctionDef), by a def, a lambda or a copy */
    Vec copies;               /* the locals it is assigned from (g = f) */
    Vec captures;             /* what reading it reads besides (names): the
                                 captures of each of funcs, in order */
    bool expanding;           /* its captures are being read: a cycle stops */
} Local;

typedef struct Builder {
    Arena *a;
    const Diag *diag;
    FuncInfo *f;
    GlobalConstFn global_const;
    void *ctx;
    Vec layout;               /* PBlock, in CPython's order */
    PBlock *cur;
    Loop loops[PYKC_MAX_NESTING + 8];
    int loop_count;
    Vec marks;                /* Node, PBlock: where a statement starts */
    Local *locals;
    int local_count, local_cap;
    int *slots;               /* name hash -> local index + 1 */
    int slot_cap;
    NBlock **blocks;          /* Numba's, in label order */
    int block_count, block_cap;
    long capture_reads;       /* Names made for captures, bounded (a chain of
                                 functions each reading all the others grows
                                 them exponentially) */
} Builder;

/* ---- locals ---------------------------------------------------------------------- */

static uint32_t hash_name(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int *local_slot(Builder *b, const char *name) {
    uint32_t mask = (uint32_t)b->slot_cap - 1;
    for (uint32_t i = hash_name(name) & mask;; i = (i + 1) & mask)
        if (!b->slots[i] || !strcmp(b->locals[b->slots[i] - 1].name, name)) return &b->slots[i];
}

static int find_local(Builder *b, const char *name) {
    return b->slot_cap ? *local_slot(b, name) - 1 : -1;
}

static int add_local(Builder *b, const char *name) {
    int k = find_local(b, name);
    if (k >= 0) return k;
    ARENA_GROW(b->a, b->locals, b->local_count, b->local_cap, 16);
    if (2 * (b->local_count + 1) > b->slot_cap) {
        b->slot_cap = b->slot_cap ? b->slot_cap * 2 : 32;
        b->slots = ARENA_ARRAY(b->a, int, b->slot_cap);
        for (int i = 0; i < b->local_count; i++) *local_slot(b, b->locals[i].name) = i + 1;
    }
    b->locals[b->local_count] = (Local){.name = name};
    *local_slot(b, name) = ++b->local_count;
    return b->local_count - 1;
}

static void note_targets(Builder *b, Node *t, Node *value);

/* def NAME(...) in the body: an assignment of NAME. */
static void note_def(Builder *b, Node *def) {
    Local *l = &b->locals[add_local(b, def->name)];
    l->defs++;
    l->only_value = def;
}

static void note_targets(Builder *b, Node *t, Node *value) {
    if (t->kind == ND_NAME) {
        int k = add_local(b, t->name);
        Local *l = &b->locals[k];
        l->defs++;
        l->only_value = value;
    } else if (t->kind == ND_TUPLE || t->kind == ND_LIST) {
        for (int i = 0; i < t->item_len; i++) note_targets(b, t->items[i], NULL);
    }
}

/* Python decides what is local by looking: every name a statement of the
 * body assigns, reachable or not. */
static void collect_locals(Builder *b, Node **body, int n) {
    for (int i = 0; i < n; i++) {
        Node *s = body[i];
        switch (s->kind) {
        case ND_ASSIGN:
            for (int k = 0; k < s->item_len; k++) note_targets(b, s->items[k], s->item_len == 1 ? s->rhs : NULL);
            break;
        case ND_AUGASSIGN: note_targets(b, s->lhs, NULL); break;
        case ND_ANNASSIGN:
            if (s->lhs->kind != ND_NAME) break;
            if (s->rhs) note_targets(b, s->lhs, s->rhs);
            else add_local(b, s->lhs->name);
            break;
        case ND_FOR: note_targets(b, s->cond, NULL); break;
        case ND_FUNCDEF: note_def(b, s); continue; /* its body's names are its own */
        default: break;
        }
        collect_locals(b, s->body, s->body_len);
        collect_locals(b, s->orelse, s->orelse_len);
    }
}

/* ---- functions defined inside the function -------------------------------------------- */

/* Python's scopes, as its symtable finds them: a name that a function
 * defined here reads and does not bind is free in it, and where this
 * function binds it, the defined function captures this one's variable.
 * Numba inlines such a function where it is called, with the captured
 * names reading this function's variables there (inline_closurecall.py);
 * pykc compiles it as a function that takes what it captures first, read
 * where the function value is made: at its definition, and at each read
 * of a name that holds it, so that a call sees the variables as they are
 * at the call. */

/* Adds the Name n to set (Name nodes, one a name) unless one of its name is there. */
static void add_name(Arena *a, Vec *set, Node *n) {
    for (int i = 0; i < set->len; i++)
        if (!strcmp(((Node *)set->items[i])->name, n->name)) return;
    vec_push(a, set, n);
}

static bool has_name(const Vec *set, const char *name) {
    for (int i = 0; i < set->len; i++)
        if (!strcmp(((Node *)set->items[i])->name, name)) return true;
    return false;
}

static void free_names(Arena *a, Node *def, Vec *out);

/* The names expression n reads, in order; a lambda's free names. */
static void expr_reads(Arena *a, Node *n, Vec *out) {
    if (!n) return;
    if (n->kind == ND_NAME) { add_name(a, out, n); return; }
    if (n->kind == ND_LAMBDA) { free_names(a, n->func, out); return; }
    Node *kids[] = {n->func, n->lhs, n->rhs, n->cond, n->iter, n->then, n->els, n->lower, n->upper, n->step};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) expr_reads(a, kids[i], out);
    for (int i = 0; i < n->item_len; i++) expr_reads(a, n->items[i], out);
    for (int i = 0; i < n->kwarg_len; i++) expr_reads(a, n->kwargs[i], out);
}

/* What assigning to target reads: a subscript's or attribute's value. */
static void target_reads(Arena *a, Node *t, Vec *out) {
    if (t->kind == ND_TUPLE || t->kind == ND_LIST)
        for (int i = 0; i < t->item_len; i++) target_reads(a, t->items[i], out);
    else if (t->kind != ND_NAME) expr_reads(a, t, out);
}

static void target_binds(Arena *a, Node *t, Vec *out) {
    if (t->kind == ND_NAME) add_name(a, out, t);
    else if (t->kind == ND_TUPLE || t->kind == ND_LIST)
        for (int i = 0; i < t->item_len; i++) target_binds(a, t->items[i], out);
}

/* The names a body reads and binds, not looking into the functions it
 * defines but for their free names. */
static void body_names(Arena *a, Node **body, int n, Vec *reads, Vec *binds) {
    for (int i = 0; i < n; i++) {
        Node *s = body[i];
        switch (s->kind) {
        case ND_ASSIGN:
            expr_reads(a, s->rhs, reads);
            for (int k = 0; k < s->item_len; k++) target_reads(a, s->items[k], reads), target_binds(a, s->items[k], binds);
            break;
        case ND_AUGASSIGN: case ND_ANNASSIGN:
            expr_reads(a, s->lhs, reads);
            expr_reads(a, s->rhs, reads);
            if (s->kind == ND_AUGASSIGN || s->rhs) target_binds(a, s->lhs, binds);
            break;
        case ND_FOR:
            expr_reads(a, s->iter, reads);
            target_reads(a, s->cond, reads);
            target_binds(a, s->cond, binds);
            break;
        case ND_FUNCDEF:
            free_names(a, s, reads);
            add_name(a, binds, s->lhs);
            continue;
        default: break;
        }
        Node *parts[] = {s->kind == ND_FOR ? NULL : s->cond, s->then, s->kind == ND_EXPR_STMT || s->kind == ND_RAISE ? s->rhs : NULL};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) expr_reads(a, parts[k], reads);
        if (s->kind == ND_RETURN) for (int k = 0; k < s->item_len; k++) expr_reads(a, s->items[k], reads);
        body_names(a, s->body, s->body_len, reads, binds);
        body_names(a, s->orelse, s->orelse_len, reads, binds);
    }
}

/* def's free names: what its body (and the functions it defines) reads
 * but does not bind, and what its default values read, which Numba reads
 * where it is called. */
static void free_names(Arena *a, Node *def, Vec *out) {
    Vec reads = {0}, binds = {0};
    for (int i = 0; i < def->item_len; i++) add_name(a, &binds, def->items[i]);
    body_names(a, def->body, def->body_len, &reads, &binds);
    for (int i = 0; i < def->item_len; i++) expr_reads(a, def->items[i]->rhs, &reads);
    for (int i = 0; i < reads.len; i++)
        if (!has_name(&binds, ((Node *)reads.items[i])->name)) add_name(a, out, reads.items[i]);
}

/* def's captures: its free names that are this function's locals, as
 * Names of their own, read where def is defined. */
static void find_captures(Builder *b, Node *def) {
    Vec free = {0}, caps = {0};
    free_names(b->a, def, &free);
    for (int i = 0; i < free.len; i++) {
        Node *n = free.items[i];
        if (find_local(b, n->name) < 0) continue; /* a module name */
        Node *c = node_new(b->a, ND_NAME, n->span);
        c->name = n->name;
        c->height = 1;
        vec_push(b->a, &caps, c);
    }
    def->captures = (Node **)caps.items;
    def->capture_len = caps.len;
}

static void note_funcs_in(Builder *b, Node *n);

/* Where a local is assigned a function defined here, or a local that
 * may hold one: which functions each may hold. */
static void note_holder(Builder *b, Node *target, Node *value) {
    if (target->kind != ND_NAME) return;
    Local *l = &b->locals[find_local(b, target->name)];
    if (value->kind == ND_FUNCDEF) vec_push(b->a, &l->funcs, value);
    else if (value->kind == ND_LAMBDA) vec_push(b->a, &l->funcs, value->func);
    else if (value->kind == ND_NAME && find_local(b, value->name) >= 0)
        vec_push(b->a, &l->copies, &b->locals[find_local(b, value->name)]);
}

static void note_funcs_in(Builder *b, Node *n) {
    if (!n) return;
    if (n->kind == ND_LAMBDA) { find_captures(b, n->func); return; }
    Node *kids[] = {n->func, n->lhs, n->rhs, n->cond, n->iter, n->then, n->els, n->lower, n->upper, n->step};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) note_funcs_in(b, kids[i]);
    for (int i = 0; i < n->item_len; i++) note_funcs_in(b, n->items[i]);
    for (int i = 0; i < n->kwarg_len; i++) note_funcs_in(b, n->kwargs[i]);
}

/* Finds the functions defined in the body (not inside them: those are
 * their own), their captures, and the locals that may hold them. */
static void find_functions(Builder *b, Node **body, int n) {
    for (int i = 0; i < n; i++) {
        Node *s = body[i];
        if (s->kind == ND_FUNCDEF) {
            find_captures(b, s);
            note_holder(b, s->lhs, s);
            continue;
        }
        if (s->kind == ND_ASSIGN && s->item_len == 1) note_holder(b, s->items[0], s->rhs);
        Node *parts[] = {s->rhs, s->lhs, s->cond, s->iter, s->then};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) note_funcs_in(b, parts[k]);
        for (int k = 0; k < s->item_len; k++) note_funcs_in(b, s->items[k]);
        for (int k = 0; s->kind == ND_FOR && s->unroll && k < s->unroll->count; k++)
            find_functions(b, s->unroll->versions[k].body, s->unroll->versions[k].body_len);
        if (s->kind != ND_FOR || !s->unroll) find_functions(b, s->body, s->body_len);
        find_functions(b, s->orelse, s->orelse_len);
    }
}

/* What each local that may hold a function reads with it: the captures
 * of every function it may hold, through copies. */
static void gather_captures(Builder *b) {
    for (bool grew = true; grew;) {
        grew = false;
        for (int k = 0; k < b->local_count; k++) {
            Local *l = &b->locals[k];
            for (int c = 0; c < l->copies.len; c++) {
                Local *from = l->copies.items[c];
                for (int j = 0; j < from->funcs.len; j++) {
                    bool have = false;
                    for (int m = 0; m < l->funcs.len && !have; m++) have = l->funcs.items[m] == from->funcs.items[j];
                    if (!have) vec_push(b->a, &l->funcs, from->funcs.items[j]), grew = true;
                }
            }
        }
    }
    for (int k = 0; k < b->local_count; k++) {
        Local *l = &b->locals[k];
        for (int j = 0; j < l->funcs.len; j++) {
            Node *def = l->funcs.items[j];
            for (int c = 0; c < def->capture_len; c++) add_name(b->a, &l->captures, def->captures[c]);
        }
    }
}

/* ---- tests that CPython or Numba decide at compile time --------------------------- */

typedef struct Known {
    bool is_float;
    bool none;                /* None (a constant, or a parameter of type none) */
    __int128 i;
    double f;
} Known;

static bool known_value(Builder *b, Node *n, Known *out, int depth);

static bool known_number(const ConstValue *c, Known *out) {
    if (!c || c->ty->kind == TY_TUPLE || c->ty->kind == TY_ARRAY) return false;
    out->is_float = c->ty->kind == TY_FLOAT;
    out->f = c->v.f;
    out->i = c->ty == &ty_uint64 ? (__int128)(uint64_t)c->v.i : c->ty == &ty_bool ? c->v.b : c->v.i;
    return true;
}

/* A parameter of a specialisation whose type says its value: None (as
 * Numba's dead branch pruning resolves an argument of type none), or a
 * literal, which only a function defined inside another has (what Numba
 * inlines there reads the caller's constant). */
static bool known_parameter(const Type *t, Known *out) {
    if (!t) return false;
    if (t->kind == TY_NONE) {
        out->none = true;
        return true;
    }
    if (!t->literal) return false;
    out->i = t->is_signed || t->kind == TY_BOOL ? (__int128)t->lit_value : (__int128)(uint64_t)t->lit_value;
    return true;
}

/* The value of a literal, of a module constant, or of a local assigned
 * once from one of them: what Numba's find_const sees through. */
static bool known_value(Builder *b, Node *n, Known *out, int depth) {
    *out = (Known){0};
    switch (n->kind) {
    case ND_INT:
        if (n->v.i.overflow) return false;
        out->i = (__int128)n->v.i.value;
        return true;
    case ND_BOOL: out->i = n->v.b; return true;
    case ND_NONE: out->none = true; return true;
    case ND_FLOAT:
        out->is_float = true;
        out->f = n->v.f;
        return true;
    case ND_NAME: {
        int k = find_local(b, n->name);
        if (k >= 0) {
            Local *l = &b->locals[k];
            if (l->param) return l->defs == 1 && known_parameter(l->param->ty, out);
            return l->defs == 1 && l->only_value && depth < 32 && known_value(b, l->only_value, out, depth + 1);
        }
        return b->global_const && known_number(b->global_const(b->ctx, n->name), out);
    }
    default: return false;
    }
}

static bool is_truthy(const Known *k) { return k->is_float ? k->f != 0 : k->i != 0; }

static int compare_known(Op op, const Known *x, const Known *y) {
    if (x->none || y->none) { /* None is None, and is nothing else */
        bool same = x->none && y->none;
        return op == OP_IS || op == OP_EQ ? same : op == OP_ISNOT || op == OP_NE ? !same : -1;
    }
    if (op == OP_IS || op == OP_ISNOT) return -1;
    double fx = x->is_float ? x->f : (double)x->i, fy = y->is_float ? y->f : (double)y->i;
    bool floats = x->is_float || y->is_float;
    int c = floats ? (fx < fy ? -1 : fx > fy ? 1 : fx == fy ? 0 : 2) : (x->i < y->i ? -1 : x->i > y->i ? 1 : 0);
    if (c == 2) return op == OP_NE; /* NaN */
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return -1;
    }
}

/* 1 or 0 where the test's outcome is fixed before the kernel runs (CPython
 * folds a constant, Numba's dead branch pruning a global or a comparison
 * of two constants), -1 where it is not. */
static int static_truth(Builder *b, Node *n) {
    Known x, y;
    switch (n->kind) {
    case ND_INT: case ND_BOOL: case ND_NONE: case ND_FLOAT: case ND_NAME:
        /* Numba tests a predicate only on a constant, which an argument is
         * not (but for what it inlines: the caller's constant) */
        if (n->kind == ND_NAME && !b->f->closure && find_local(b, n->name) >= 0 && b->locals[find_local(b, n->name)].param)
            return -1;
        return known_value(b, n, &x, 0) ? is_truthy(&x) : -1;
    case ND_STR: return n->v.s.len != 0;
    case ND_UNARY: {
        if (n->op != OP_NOT) return -1;
        int t = static_truth(b, n->rhs);
        return t < 0 ? -1 : !t;
    }
    case ND_BOOLOP: {
        bool is_or = n->op == OP_OR, all_known = true;
        for (int i = 0; i < n->item_len; i++) {
            int t = static_truth(b, n->items[i]);
            if (t == is_or) return is_or;
            all_known = all_known && t >= 0;
        }
        return all_known ? !is_or : -1;
    }
    case ND_COMPARE:
        if (n->item_len != 2 || !known_value(b, n->items[0], &x, 0) || !known_value(b, n->items[1], &y, 0)) return -1;
        return compare_known(n->ops[0], &x, &y);
    default: return -1;
    }
}

/* ---- CPython's compiler ----------------------------------------------------------- */

static PBlock *new_pblock(Builder *b, const char *name) {
    PBlock *p = ARENA_NEW(b->a, PBlock);
    p->name = name;
    p->order = -1;
    return p;
}

static void use_next(Builder *b, PBlock *p) {
    p->order = b->layout.len;
    vec_push(b->a, &b->layout, p);
    b->cur = p;
}

static PBlock *layout_next(Builder *b, const PBlock *p) {
    return p->order + 1 < b->layout.len ? b->layout.items[p->order + 1] : NULL;
}

static void add_item(Builder *b, CfgItemKind kind, Node *n) {
    CfgItem *it = ARENA_NEW(b->a, CfgItem);
    it->kind = kind;
    it->node = n;
    vec_push(b->a, &b->cur->items, it);
}

static void add_version_item(Builder *b, Node *n, int version) {
    add_item(b, ITEM_UNROLL_TARGET, n);
    ((CfgItem *)b->cur->items.items[b->cur->items.len - 1])->version = version;
}

static int line_of(Builder *b, const Node *n) {
    int line, col;
    diag_line_col(b->diag, n->span.file, n->span.begin, &line, &col);
    return line;
}

/* Ends the current block with term; what follows starts a new block,
 * reached only if something jumps to it. */
static void end_block(Builder *b, PTerm term, Node *node, PBlock *target, int line, const char *next) {
    b->cur->term = term;
    b->cur->node = node;
    b->cur->target = target;
    b->cur->line = line;
    use_next(b, new_pblock(b, next));
}

/* compiler_jump_if: to target when test is cond, else on. A test decided
 * at compile time is a jump or nothing. */
static void jump_if(Builder *b, Node *test, Node *node, PBlock *target, bool cond, int line, const char *next) {
    int t = static_truth(b, test);
    if (t >= 0) {
        if (t == cond) end_block(b, PT_JUMP, NULL, target, line, "dead");
        else b->cur->nop = true;
        return;
    }
    b->cur->test = test;
    b->cur->jump_if = cond;
    end_block(b, PT_CJUMP, node, target, line, next);
}

static void compile_body(Builder *b, Node **body, int n);

static void mark(Builder *b, Node *n) {
    vec_push(b->a, &b->marks, n);
    vec_push(b->a, &b->marks, b->cur);
}

static void compile_if(Builder *b, Node *n) {
    PBlock *end = new_pblock(b, "if.done"), *next = n->orelse_len ? new_pblock(b, "if.else") : end;
    jump_if(b, n->cond, n->cond, next, false, line_of(b, n), "if.then");
    compile_body(b, n->body, n->body_len);
    if (n->orelse_len) {
        end_block(b, PT_JUMP, NULL, end, -1, "dead");
        use_next(b, next);
        compile_body(b, n->orelse, n->orelse_len);
    }
    use_next(b, end);
}

static void push_loop(Builder *b, PBlock *cont, PBlock *brk) {
    b->loops[b->loop_count++] = (Loop){cont, brk};
}

/* while: the test, the body, the test again (3.11), the else. */
static void compile_while(Builder *b, Node *n) {
    PBlock *loop = new_pblock(b, "while.cond"), *body = new_pblock(b, "while.body");
    PBlock *anchor = new_pblock(b, "while.else"), *end = new_pblock(b, "while.done");
    int line = line_of(b, n);
    use_next(b, loop);
    /* the loop starts at its test: the block before it may be an empty one
     * (after `if False:`) that jumps are threaded past, never reached */
    mark(b, n);
    push_loop(b, loop, end);
    jump_if(b, n->cond, n->cond, anchor, false, line, "while.body");
    use_next(b, body);
    compile_body(b, n->body, n->body_len);
    n->retest = node_clone(b->a, n->cond);
    mark(b, n->retest);
    jump_if(b, n->retest, n->retest, body, true, line, "while.else");
    b->loop_count--;
    use_next(b, anchor);
    compile_body(b, n->orelse, n->orelse_len);
    use_next(b, end);
}

/* An unrolled loop's body (Numba's MixedContainerUnroller): the element's
 * index chooses a version (a chain of tests, the last one needing none),
 * which takes the element as its type and runs its copy of the body. */
static void compile_versions(Builder *b, Node *n, PBlock *start) {
    const Unroll *u = n->unroll;
    for (int k = 0; k < u->count; k++) {
        PBlock *next = k + 1 < u->count ? new_pblock(b, "unroll.next") : NULL;
        if (next) {
            b->cur->version = k;
            end_block(b, PT_CASE, n, next, -1, "unroll.version");
        }
        add_version_item(b, n, k);
        compile_body(b, u->versions[k].body, u->versions[k].body_len);
        end_block(b, PT_JUMP, NULL, start, -1, "dead");
        if (next) use_next(b, next);
    }
}

static void compile_for(Builder *b, Node *n) {
    PBlock *start = new_pblock(b, "for.cond"), *cleanup = new_pblock(b, "for.else"), *end = new_pblock(b, "for.done");
    add_item(b, ITEM_FOR_INIT, n);
    use_next(b, start);
    push_loop(b, start, end);
    end_block(b, PT_FOR_ITER, n, cleanup, -1, "for.body");
    add_item(b, ITEM_FOR_TARGET, n);
    if (n->unroll) compile_versions(b, n, start);
    else compile_body(b, n->body, n->body_len);
    end_block(b, PT_JUMP, NULL, start, -1, "dead");
    b->loop_count--;
    use_next(b, cleanup);
    compile_body(b, n->orelse, n->orelse_len);
    use_next(b, end);
}

static void compile_stmt(Builder *b, Node *n) {
    mark(b, n);
    switch (n->kind) {
    case ND_IF: compile_if(b, n); return;
    case ND_WHILE: compile_while(b, n); return;
    case ND_FOR: compile_for(b, n); return;
    case ND_RETURN: end_block(b, PT_RETURN, n, NULL, -1, "dead"); return;
    case ND_RAISE: end_block(b, PT_RAISE, n, NULL, -1, "dead"); return;
    case ND_BREAK: case ND_CONTINUE:
        if (b->loop_count) {
            Loop *l = &b->loops[b->loop_count - 1];
            end_block(b, PT_JUMP, NULL, n->kind == ND_BREAK ? l->brk : l->cont, line_of(b, n), "dead");
        }
        return;
    case ND_ASSERT: {
        PBlock *end = new_pblock(b, "assert.ok");
        jump_if(b, n->cond, n, end, true, line_of(b, n), "assert.fail");
        end_block(b, PT_RAISE, n, NULL, -1, "dead");
        use_next(b, end);
        return;
    }
    case ND_PASS: b->cur->nop = true; return;
    case ND_EXPR_STMT:
        if (n->rhs->kind == ND_STR) { b->cur->nop = true; return; } /* a docstring */
        add_item(b, ITEM_STMT, n);
        return;
    case ND_ANNASSIGN:
        if (n->rhs) add_item(b, ITEM_STMT, n);
        return;
    default: add_item(b, ITEM_STMT, n); return;
    }
}

static void compile_body(Builder *b, Node **body, int n) {
    for (int i = 0; i < n; i++) compile_stmt(b, body[i]);
}

/* ---- CPython's optimizer ---------------------------------------------------------- */

static bool is_empty(const PBlock *p) { return p->items.len == 0 && !p->nop && p->term == PT_FALL; }

/* A jump to an empty block goes to the first instruction after it. */
static PBlock *skip_empty(Builder *b, PBlock *p) {
    while (p && is_empty(p)) p = layout_next(b, p);
    return p;
}

/* optimize_basic_block's jump threading: a jump to a block that is only a
 * jump on the same line goes straight to that jump's target. */
static void thread_jumps(Builder *b) {
    for (int i = 0; i < b->layout.len; i++) {
        PBlock *p = b->layout.items[i];
        if (p->term != PT_JUMP && p->term != PT_CJUMP) continue;
        for (int guard = 0; guard < 64; guard++) {
            PBlock *t = skip_empty(b, p->target);
            p->target = t;
            if (!t || t->items.len || t->nop || t->term != PT_JUMP || t->line != p->line) break;
            PBlock *next = skip_empty(b, t->target);
            if (next == t) break;
            p->target = next;
        }
    }
}

static int pblock_succs(Builder *b, PBlock *p, PBlock *out[2]) {
    switch (p->term) {
    case PT_FALL: out[0] = layout_next(b, p); return out[0] != NULL;
    case PT_JUMP: out[0] = p->target; return 1;
    case PT_CJUMP: case PT_FOR_ITER: case PT_CASE: out[0] = layout_next(b, p); out[1] = p->target; return 2;
    default: return 0;
    }
}

static void mark_reachable(Builder *b) {
    PBlock **stack = ARENA_ARRAY(b->a, PBlock *, b->layout.len + 1);
    int top = 0;
    PBlock *entry = b->layout.items[0];
    entry->reachable = true;
    stack[top++] = entry;
    while (top) {
        PBlock *p = stack[--top], *next[2];
        int n = pblock_succs(b, p, next);
        for (int i = 0; i < n; i++)
            if (next[i] && !next[i]->reachable) {
                next[i]->reachable = true;
                stack[top++] = next[i];
            }
    }
}

/* ---- Numba's blocks --------------------------------------------------------------- */

static NBlock *new_nblock(Builder *b) {
    ARENA_GROW(b->a, b->blocks, b->block_count, b->block_cap, 16);
    NBlock *nb = ARENA_NEW(b->a, NBlock);
    nb->index = b->block_count;
    b->blocks[b->block_count++] = nb;
    return nb;
}

static bool is_code(const PBlock *p) { return p->reachable && !is_empty(p); }

/* Numba starts a block at the entry, at every jump target and after every
 * jump; a block that falls into a jump target ends with a jump to it. */
static void split_blocks(Builder *b) {
    for (int i = 0; i < b->layout.len; i++) {
        PBlock *p = b->layout.items[i];
        if (is_code(p) && (p->term == PT_JUMP || p->term == PT_CJUMP || p->term == PT_FOR_ITER || p->term == PT_CASE))
            skip_empty(b, p->target)->is_target = true;
    }
    NBlock *cur = NULL;
    PBlock *prev = NULL;
    for (int i = 0; i < b->layout.len; i++) {
        PBlock *p = b->layout.items[i];
        if (!is_code(p)) continue;
        if (!cur || p->is_target || prev->term != PT_FALL) {
            cur = new_nblock(b);
            cur->name = p->name;
        }
        p->nblock = cur;
        vec_push(b->a, &cur->pblocks, p);
        prev = p;
    }
    for (int i = 0; i < b->block_count; i++) {
        NBlock *nb = b->blocks[i];
        PBlock *last = nb->pblocks.items[nb->pblocks.len - 1], *next[2];
        int n = pblock_succs(b, last, next);
        for (int k = 0; k < n; k++) nb->succ[k] = skip_empty(b, next[k])->nblock;
        nb->succ_count = n;
        nb->node = last->node;
        switch (last->term) {
        case PT_FALL: case PT_JUMP: nb->term = TERM_JUMP; nb->succ[0] = n ? nb->succ[0] : NULL; break;
        case PT_CJUMP:
            nb->term = TERM_BRANCH;
            if (last->jump_if) { /* succ[0] is where it goes when the test is true */
                NBlock *t = nb->succ[0];
                nb->succ[0] = nb->succ[1];
                nb->succ[1] = t;
            }
            break;
        case PT_FOR_ITER: nb->term = TERM_FOR_ITER; break;
        case PT_CASE: nb->term = TERM_UNROLL_CASE; nb->version = last->version; break;
        case PT_RETURN: nb->term = TERM_RETURN; break;
        case PT_RAISE: nb->term = TERM_RAISE; break;
        }
    }
}

static void add_pred(Builder *b, NBlock *to, NBlock *from) {
    for (int i = 0; i < to->pred_count; i++)
        if (to->preds[i] == from) return;
    ARENA_GROW(b->a, to->preds, to->pred_count, to->pred_cap, 4);
    to->preds[to->pred_count++] = from;
}

static void compute_preds(Builder *b) {
    for (int i = 0; i < b->block_count; i++) b->blocks[i]->pred_count = 0;
    for (int i = 0; i < b->block_count; i++)
        for (int k = 0; k < b->blocks[i]->succ_count; k++) add_pred(b, b->blocks[i]->succ[k], b->blocks[i]);
}

/* Reverse postorder from the entry, and the back edges (to a block still on
 * the depth-first stack), found without recursion. */
static NBlock **order_blocks(Builder *b, bool *back_edge, int *count) {
    NBlock **rpo = ARENA_ARRAY(b->a, NBlock *, b->block_count);
    int *next_succ = ARENA_ARRAY(b->a, int, b->block_count);
    bool *on_stack = ARENA_ARRAY(b->a, bool, b->block_count), *seen = ARENA_ARRAY(b->a, bool, b->block_count);
    NBlock **stack = ARENA_ARRAY(b->a, NBlock *, b->block_count);
    int top = 0, post = b->block_count;
    stack[top++] = b->blocks[0];
    seen[0] = on_stack[0] = true;
    while (top) {
        NBlock *nb = stack[top - 1];
        if (next_succ[nb->index] < nb->succ_count) {
            int k = next_succ[nb->index]++;
            NBlock *s = nb->succ[k];
            if (on_stack[s->index] && back_edge) back_edge[nb->index * 2 + k] = true;
            if (!seen[s->index]) {
                seen[s->index] = on_stack[s->index] = true;
                stack[top++] = s;
            }
            continue;
        }
        on_stack[nb->index] = false;
        rpo[--post] = nb;
        top--;
    }
    for (int i = 0; i < b->block_count; i++) b->blocks[i]->rpo = -1;
    for (int i = post; i < b->block_count; i++) rpo[i]->rpo = i - post;
    if (count) *count = b->block_count - post;
    return rpo + post;
}

/* canonicalize_cfg_single_backedge: a loop header entered again from more
 * than one block of its loop gets a tail block that gathers those edges. */
static void single_back_edges(Builder *b) {
    int n = b->block_count;
    bool *back = ARENA_ARRAY(b->a, bool, 2 * n);
    order_blocks(b, back, NULL);
    compute_preds(b);
    bool *body = ARENA_ARRAY(b->a, bool, n), *done = ARENA_ARRAY(b->a, bool, n);
    NBlock **work = ARENA_ARRAY(b->a, NBlock *, n + 1), **members = ARENA_ARRAY(b->a, NBlock *, n + 1);
    NBlock **headers = ARENA_ARRAY(b->a, NBlock *, 2 * n); /* before any edge moves to a tail */
    for (int e = 0; e < 2 * n; e++) headers[e] = back[e] ? b->blocks[e / 2]->succ[e % 2] : NULL;
    for (int e = 0; e < 2 * n; e++) {
        if (!back[e]) continue;
        NBlock *header = headers[e];
        if (done[header->index]) continue;
        done[header->index] = true;
        /* the loop body: every block that reaches one of the header's back
         * edges without passing the header */
        int top = 0, count = 0;
        body[header->index] = true;
        members[count++] = header;
        for (int f = e; f < 2 * n; f++)
            if (headers[f] == header && !body[f / 2]) {
                body[f / 2] = true;
                members[count++] = work[top++] = b->blocks[f / 2];
            }
        while (top) {
            NBlock *x = work[--top];
            for (int p = 0; p < x->pred_count; p++)
                if (!body[x->preds[p]->index]) {
                    body[x->preds[p]->index] = true;
                    members[count++] = work[top++] = x->preds[p];
                }
        }
        int sources = 0;
        for (int i = 0; i < count; i++)
            for (int k = 0; k < members[i]->succ_count; k++)
                if (members[i]->succ[k] == header) { sources++; break; }
        if (sources >= 2) {
            NBlock *tail = new_nblock(b);
            tail->name = "loop.latch";
            tail->term = TERM_JUMP;
            tail->succ[0] = header;
            tail->succ_count = 1;
            for (int i = 0; i < count; i++)
                for (int k = 0; k < members[i]->succ_count; k++)
                    if (members[i]->succ[k] == header) members[i]->succ[k] = tail;
        }
        for (int i = 0; i < count; i++) body[members[i]->index] = false;
    }
    compute_preds(b);
}

/* Cooper, Harvey and Kennedy's dominators, then the frontiers and their
 * iteration (DF+), as Numba's CFGraph and ssa.py compute them. */
static NBlock *intersect(NBlock *x, NBlock *y) {
    while (x != y) {
        while (x->rpo > y->rpo) x = x->idom;
        while (y->rpo > x->rpo) y = y->idom;
    }
    return x;
}

/* Preorder and postorder numbers of the dominator tree, without recursion:
 * d dominates x exactly when d's interval holds x's. */
static void number_dominator_tree(Builder *b) {
    NBlock *entry = b->blocks[0];
    for (int i = 0; i < b->block_count; i++) {
        NBlock *x = b->blocks[i];
        if (x->idom && x != entry) vec_push(b->a, &x->idom->children, x);
    }
    NBlock **stack = ARENA_ARRAY(b->a, NBlock *, b->block_count + 1);
    int *next = ARENA_ARRAY(b->a, int, b->block_count), top = 0, clock = 0;
    stack[top++] = entry;
    entry->pre = clock++;
    while (top) {
        NBlock *x = stack[top - 1];
        if (next[x->index] < x->children.len) {
            NBlock *c = x->children.items[next[x->index]++];
            c->pre = clock++;
            stack[top++] = c;
            continue;
        }
        x->post = clock++;
        top--;
    }
}

static void dominance(Builder *b) {
    int n;
    NBlock **rpo = order_blocks(b, NULL, &n);
    for (int i = 0; i < b->block_count; i++) b->blocks[i]->idom = NULL;
    NBlock *entry = b->blocks[0];
    entry->idom = entry;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 1; i < n; i++) {
            NBlock *x = rpo[i], *d = NULL;
            for (int p = 0; p < x->pred_count; p++) {
                NBlock *q = x->preds[p];
                if (q->rpo < 0 || !q->idom) continue;
                d = d ? intersect(q, d) : q;
            }
            if (d && x->idom != d) {
                x->idom = d;
                changed = true;
            }
        }
    }
    number_dominator_tree(b);
    for (int i = 0; i < b->block_count; i++) {
        NBlock *x = b->blocks[i];
        if (x->pred_count < 2 || !x->idom) continue;
        for (int p = 0; p < x->pred_count; p++)
            for (NBlock *r = x->preds[p]; r->idom && r != x->idom; r = r->idom) {
                bool have = false;
                for (int k = 0; k < r->df.len && !have; k++) have = r->df.items[k] == x;
                if (!have) vec_push(b->a, &r->df, x);
                if (r == r->idom) break;
            }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < b->block_count; i++) {
            NBlock *x = b->blocks[i];
            for (int k = 0; k < x->df.len; k++) {
                NBlock *y = x->df.items[k];
                for (int j = 0; j < y->df.len; j++) {
                    NBlock *z = y->df.items[j];
                    bool have = false;
                    for (int m = 0; m < x->df.len && !have; m++) have = x->df.items[m] == z;
                    if (!have) {
                        vec_push(b->a, &x->df, z);
                        changed = true;
                    }
                }
            }
        }
    }
}

/* ---- uses and definitions, in bytecode order -------------------------------------- */

static void add_event(Builder *b, NBlock *nb, EventKind kind, int name, Node *node) {
    ARENA_GROW(b->a, nb->events, nb->event_count, nb->event_cap, 8);
    nb->events[nb->event_count++] = (Event){.kind = kind, .name = name, .node = node};
}

static void walk_uses(Builder *b, NBlock *nb, Node *n);

/* The reads of what n, a read of a local that may hold a function, holds
 * besides: fresh Names where n stands, each read there too. */
static void walk_captures(Builder *b, NBlock *nb, Node *n, Local *l) {
    n->captures = NULL;
    n->capture_len = 0;
    if (!l->captures.len || l->expanding) return; /* a cycle: sema says why */
    if ((b->capture_reads += l->captures.len) > PYKC_MAX_CAPTURE_READS) {
        b->f->captures_overflow = true;
        return;
    }
    l->expanding = true;
    n->capture_len = l->captures.len;
    n->captures = ARENA_ARRAY(b->a, Node *, l->captures.len);
    for (int i = 0; i < l->captures.len; i++) {
        Node *c = node_new(b->a, ND_NAME, n->span);
        c->name = ((Node *)l->captures.items[i])->name;
        c->height = 1;
        n->captures[i] = c;
        walk_uses(b, nb, c);
    }
    l->expanding = false;
}

static void walk_uses(Builder *b, NBlock *nb, Node *n) {
    if (!n) return;
    if (n->kind == ND_NAME) {
        int k = find_local(b, n->name);
        if (k >= 0) add_event(b, nb, EV_USE, k, n);
        if (k >= 0) walk_captures(b, nb, n, &b->locals[k]);
        return;
    }
    if (n->kind == ND_LAMBDA) { /* made here: its captures read here */
        for (int i = 0; i < n->func->capture_len; i++) walk_uses(b, nb, n->func->captures[i]);
        return;
    }
    Node *kids[] = {n->func, n->lhs, n->rhs, n->cond, n->iter, n->then, n->els, n->lower, n->upper, n->step};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) walk_uses(b, nb, kids[i]);
    for (int i = 0; i < n->item_len; i++) walk_uses(b, nb, n->items[i]);
    for (int i = 0; i < n->kwarg_len; i++) walk_uses(b, nb, n->kwargs[i]);
}

static void walk_target(Builder *b, NBlock *nb, Node *t, Span value) {
    if (t->kind == ND_NAME) {
        add_event(b, nb, EV_DEF, find_local(b, t->name), t);
        nb->events[nb->event_count - 1].value = value;
    } else if (t->kind == ND_TUPLE || t->kind == ND_LIST) {
        for (int i = 0; i < t->item_len; i++) walk_target(b, nb, t->items[i], value);
    } else {
        walk_uses(b, nb, t);
    }
}

static void item_events(Builder *b, NBlock *nb, const CfgItem *it) {
    Node *n = it->node;
    if (it->kind == ITEM_FOR_INIT) { walk_uses(b, nb, n->iter); return; }
    if (it->kind == ITEM_FOR_TARGET) {
        if (!n->unroll) walk_target(b, nb, n->cond, n->cond->span);
        return;
    }
    if (it->kind == ITEM_UNROLL_TARGET) {
        Node *t = n->unroll->versions[it->version].target;
        walk_target(b, nb, t, t->span);
        return;
    }
    switch (n->kind) {
    case ND_ASSIGN:
        walk_uses(b, nb, n->rhs);
        for (int i = 0; i < n->item_len; i++) walk_target(b, nb, n->items[i], n->rhs->span);
        return;
    case ND_AUGASSIGN:
        if (n->lhs->kind == ND_NAME) {
            add_event(b, nb, EV_USE, find_local(b, n->lhs->name), n);
            walk_uses(b, nb, n->rhs);
            add_event(b, nb, EV_DEF, find_local(b, n->lhs->name), n->lhs);
            nb->events[nb->event_count - 1].value = n->span;
            return;
        }
        walk_uses(b, nb, n->lhs);
        walk_uses(b, nb, n->rhs);
        return;
    case ND_ANNASSIGN:
        walk_uses(b, nb, n->rhs);
        if (n->lhs->kind == ND_NAME) walk_target(b, nb, n->lhs, n->rhs->span);
        return;
    case ND_EXPR_STMT: walk_uses(b, nb, n->rhs); return;
    case ND_FUNCDEF:
        for (int i = 0; i < n->capture_len; i++) walk_uses(b, nb, n->captures[i]);
        walk_target(b, nb, n->lhs, n->span);
        return;
    default: return;
    }
}

static void collect_events(Builder *b) {
    NBlock *entry = b->blocks[0];
    for (int i = 0; i < b->f->param_count; i++) {
        int k = find_local(b, b->f->params[i]->name);
        add_event(b, entry, EV_DEF, k, NULL);
        entry->events[entry->event_count - 1].param = b->f->params[i];
    }
    for (int i = 0; i < b->block_count; i++) {
        NBlock *nb = b->blocks[i];
        for (int j = 0; j < nb->pblocks.len; j++) {
            PBlock *p = nb->pblocks.items[j];
            for (int k = 0; k < p->items.len; k++) item_events(b, nb, p->items.items[k]);
            if (p->term == PT_CJUMP && p->node->kind == ND_ASSERT) {
                walk_uses(b, nb, p->node->cond);
                walk_uses(b, nb, p->node->then);
            } else if (p->term == PT_CJUMP) {
                walk_uses(b, nb, p->test);
            } else if (p->term == PT_RETURN || p->term == PT_RAISE) {
                if (p->node && p->node->kind == ND_RETURN && p->node->item_len) walk_uses(b, nb, p->node->items[0]);
                else if (p->node && p->node->kind == ND_RAISE) walk_uses(b, nb, p->node->rhs);
            }
        }
    }
}

/* ---- ssa.py: one name at a time ---------------------------------------------------- */

/* Where a name occurs: its events in block order. */
typedef struct Occurrence {
    NBlock *block;
    Event *event;
} Occurrence;

/* A name's versions while it is renamed: the assignments in each block (a
 * phi first), as ssa.py's defmap and phimap keep them. The arrays are
 * shared by all names and cleared where a name touched them. */
typedef struct Renaming {
    Builder *b;
    Local *local;
    Sym *first;
    int counter;              /* the number the next version gets */
    Vec *defs;                /* per block: Sym, in order */
    Sym **phi;                /* per block */
    bool *phi_location;
    Vec touched;              /* NBlock whose entries to clear */
    Sym **above;              /* per block: what reaches its top, once asked */
    bool *asked;
    Sym *undefined;           /* what a read binds to that no assignment reaches */
} Renaming;

static Sym *new_version(Renaming *r, Span at) {
    Sym *v = ARENA_NEW(r->b->a, Sym);
    v->kind = SYM_LOCAL;
    v->name = r->counter ? arena_printf(r->b->a, "%s.%d", r->local->name, r->counter) : r->local->name;
    v->def = at;
    v->base = r->first ? r->first : v;
    r->counter++;
    FuncInfo *f = r->b->f;
    ARENA_GROW(r->b->a, f->locals, f->local_count, f->local_cap, 16);
    f->locals[f->local_count++] = v;
    return v;
}

static Sym *def_from_top(Renaming *r, NBlock *nb);

static Sym *def_from_bottom(Renaming *r, NBlock *nb) {
    Vec *d = &r->defs[nb->index];
    return d->len ? d->items[d->len - 1] : def_from_top(r, nb);
}

/* A phi version at the top of nb, and its incoming versions. */
static Sym *make_phi(Renaming *r, NBlock *nb) {
    Builder *b = r->b;
    Sym *phi = new_version(r, b->f->def->span);
    phi->is_phi = true;
    phi->merged = nb->node ? nb->node->span : b->f->def->span;
    Vec *d = &r->defs[nb->index], grown = {0};
    vec_push(b->a, &grown, phi);
    for (int i = 0; i < d->len; i++) vec_push(b->a, &grown, d->items[i]);
    if (!d->len) vec_push(b->a, &r->touched, nb);
    *d = grown;
    r->phi[nb->index] = phi;
    r->asked[nb->index] = true; /* what reaches its top, from now on */
    r->above[nb->index] = phi;
    phi->incoming_count = nb->pred_count;
    phi->incoming = ARENA_ARRAY(b->a, Sym *, nb->pred_count ? nb->pred_count : 1);
    for (int p = 0; p < nb->pred_count; p++) phi->incoming[p] = def_from_bottom(r, nb->preds[p]);
    for (int p = 0; p < nb->pred_count; p++) {
        if (phi->incoming[p] == phi) continue;
        PhiMove *m = ARENA_NEW(b->a, PhiMove);
        m->phi = phi;
        m->value = phi->incoming[p];
        vec_push(b->a, &nb->preds[p]->moves, m);
    }
    return phi;
}

/* _find_def_from_top: up the dominator tree to an assignment, or to a
 * block where versions meet, which gets a phi whose incoming versions are
 * found at once, predecessor by predecessor. What the walk finds is kept
 * for every block it passed, so that reads in a long chain of blocks cost
 * linear time. */
static Sym *def_from_top(Renaming *r, NBlock *nb) {
    Builder *b = r->b;
    if (r->asked[nb->index]) return r->above[nb->index];
    Vec passed = {0};
    Sym *found = NULL;
    NBlock *x = nb;
    for (;;) {
        if (r->asked[x->index]) {
            found = r->above[x->index];
            break;
        }
        if (r->phi_location[x->index]) {
            found = make_phi(r, x);
            vec_push(b->a, &passed, x);
            break;
        }
        vec_push(b->a, &passed, x);
        if (x->idom == x || !x->idom) break; /* no assignment reaches it */
        x = x->idom;
        Vec *d = &r->defs[x->index];
        if (d->len) {
            found = d->items[d->len - 1];
            break;
        }
    }
    for (int i = 0; i < passed.len; i++) {
        NBlock *p = passed.items[i];
        if (!r->asked[p->index] && !r->phi[p->index] && !r->defs[p->index].len) vec_push(b->a, &r->touched, p);
        r->asked[p->index] = true;
        r->above[p->index] = found;
    }
    return found;
}

/* Whether the block of a name's one assignment dominates nb: by the
 * dominator tree's preorder intervals, in constant time. */
static bool dominates(const NBlock *d, const NBlock *nb) { return d->pre <= nb->pre && nb->post <= d->post; }

/* Renames local k if Numba would (it is assigned more than once, or read
 * where its assignment does not dominate), and binds every occurrence. */
static void rename_local(Renaming *r, Occurrence *occ, int n) {
    Builder *b = r->b;
    int count = 0;
    for (int i = 0; i < n; i++) {
        Event *ev = occ[i].event;
        if (ev->kind != EV_DEF) continue;
        Sym *v = ev->param ? ev->param : new_version(r, ev->node->span);
        v->assigned = ev->param ? v->def : ev->value;
        if (ev->param) r->counter = 1;
        if (!r->first) r->first = v;
        v->base = r->first;
        if (ev->node) ev->node->sym = v;
        if (!r->defs[occ[i].block->index].len) vec_push(b->a, &r->touched, occ[i].block);
        vec_push(b->a, &r->defs[occ[i].block->index], v);
        count++;
    }
    bool violator = count > 1;
    NBlock *def_block = NULL;
    for (int i = 0; i < n && !def_block; i++)
        if (occ[i].event->kind == EV_DEF) def_block = occ[i].block;
    for (int i = 0; i < n && !violator; i++)
        if (occ[i].event->kind == EV_USE) violator = !def_block || !dominates(def_block, occ[i].block);
    for (int i = 0; i < n && violator; i++)
        for (int j = 0; occ[i].event->kind == EV_DEF && j < occ[i].block->df.len; j++) {
                NBlock *x = occ[i].block->df.items[j];
                if (!r->phi_location[x->index]) vec_push(b->a, &r->touched, x);
                r->phi_location[x->index] = true;
            }
    NBlock *block = NULL;
    Sym *last = NULL; /* the last assignment seen in this block */
    for (int i = 0; i < n; i++) {
        Event *ev = occ[i].event;
        if (occ[i].block != block) {
            block = occ[i].block;
            last = NULL;
        }
        if (ev->kind == EV_DEF) {
            last = ev->param ? ev->param : ev->node->sym;
            continue;
        }
        Sym *v;
        if (!violator) /* one assignment: a read before it in its own block reads nothing */
            v = count && (last || !r->defs[block->index].len) ? r->first : NULL;
        else
            v = last ? last : r->phi[block->index] ? r->phi[block->index] : def_from_top(r, block);
        if (!v && !r->undefined) {
            r->undefined = ARENA_NEW(b->a, Sym);
            r->undefined->kind = SYM_LOCAL;
            r->undefined->name = r->local->name;
            r->undefined->def = ev->node->span;
        }
        ev->node->sym = v ? v : r->undefined;
    }
}

static void rename_all(Builder *b) {
    int *counts = ARENA_ARRAY(b->a, int, b->local_count + 1), total = 0;
    for (int i = 0; i < b->block_count; i++)
        for (int e = 0; e < b->blocks[i]->event_count; e++) counts[b->blocks[i]->events[e].name]++, total++;
    int *start = ARENA_ARRAY(b->a, int, b->local_count + 1);
    for (int k = 0; k < b->local_count; k++) start[k + 1] = start[k] + counts[k];
    Occurrence *occ = ARENA_ARRAY(b->a, Occurrence, total ? total : 1);
    int *fill = ARENA_ARRAY(b->a, int, b->local_count + 1);
    memcpy(fill, start, sizeof(int) * (size_t)(b->local_count + 1));
    for (int i = 0; i < b->block_count; i++)
        for (int e = 0; e < b->blocks[i]->event_count; e++) {
            Event *ev = &b->blocks[i]->events[e];
            occ[fill[ev->name]++] = (Occurrence){b->blocks[i], ev};
        }
    Renaming r = {.b = b};
    r.defs = ARENA_ARRAY(b->a, Vec, b->block_count);
    r.phi = ARENA_ARRAY(b->a, Sym *, b->block_count);
    r.phi_location = ARENA_ARRAY(b->a, bool, b->block_count);
    r.asked = ARENA_ARRAY(b->a, bool, b->block_count);
    r.above = ARENA_ARRAY(b->a, Sym *, b->block_count);
    for (int k = 0; k < b->local_count; k++) {
        r.local = &b->locals[k];
        r.first = NULL;
        r.undefined = NULL;
        r.counter = 0;
        rename_local(&r, occ + start[k], counts[k]);
        for (int i = 0; i < r.touched.len; i++) {
            NBlock *x = r.touched.items[i];
            r.defs[x->index] = (Vec){0};
            r.phi[x->index] = NULL;
            r.phi_location[x->index] = false;
            r.asked[x->index] = false;
            r.above[x->index] = NULL;
        }
        r.touched.len = 0;
    }
}

/* ---- results ----------------------------------------------------------------------- */

static void hand_over(Builder *b) {
    FuncInfo *f = b->f;
    f->block_count = b->block_count;
    f->blocks = ARENA_ARRAY(b->a, CfgBlock *, b->block_count);
    for (int i = 0; i < b->block_count; i++) f->blocks[i] = ARENA_NEW(b->a, CfgBlock);
    for (int i = 0; i < b->block_count; i++) {
        NBlock *nb = b->blocks[i];
        CfgBlock *c = f->blocks[i];
        c->index = i;
        c->name = nb->name;
        c->term = nb->term;
        c->node = nb->node;
        c->version = nb->version;
        for (int k = 0; k < nb->succ_count; k++) c->succ[k] = f->blocks[nb->succ[k]->index];
        int items = 0;
        for (int j = 0; j < nb->pblocks.len; j++) items += ((PBlock *)nb->pblocks.items[j])->items.len;
        c->items = ARENA_ARRAY(b->a, CfgItem, items ? items : 1);
        for (int j = 0; j < nb->pblocks.len; j++) {
            PBlock *p = nb->pblocks.items[j];
            for (int k = 0; k < p->items.len; k++) c->items[c->item_count++] = *(CfgItem *)p->items.items[k];
        }
        c->move_count = nb->moves.len;
        c->moves = ARENA_ARRAY(b->a, PhiMove, nb->moves.len ? nb->moves.len : 1);
        for (int k = 0; k < nb->moves.len; k++) c->moves[k] = *(PhiMove *)nb->moves.items[k];
    }
    for (int i = 0; i + 1 < b->marks.len; i += 2) {
        Node *n = b->marks.items[i];
        PBlock *p = b->marks.items[i + 1];
        n->unreached = !p->reachable;
    }
}

void ssa_build(Arena *a, const Diag *d, FuncInfo *f, GlobalConstFn global_const, void *ctx) {
    Builder b = {.a = a, .diag = d, .f = f, .global_const = global_const, .ctx = ctx};
    f->local_count = 0;
    f->captures_overflow = false;
    for (int i = 0; i < f->param_count; i++) {
        int k = add_local(&b, f->params[i]->name);
        Local *l = &b.locals[k];
        l->param = f->params[i];
        l->defs++;
        f->params[i]->base = f->params[i];
    }
    collect_locals(&b, f->def->body, f->def->body_len);
    find_functions(&b, f->def->body, f->def->body_len);
    gather_captures(&b);
    use_next(&b, new_pblock(&b, "entry")); /* where the parameters are bound */
    b.cur->nop = true;
    compile_body(&b, f->def->body, f->def->body_len);
    b.cur->term = PT_RETURN; /* falling off the end returns None */
    thread_jumps(&b);
    mark_reachable(&b);
    split_blocks(&b);
    single_back_edges(&b);
    dominance(&b);
    collect_events(&b);
    rename_all(&b);
    hand_over(&b);
}
