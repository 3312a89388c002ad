/*
 * abi.c - how a kernel's arguments travel, and what the manifest says of it.
 *
 * A kernel's entry takes each source parameter as one or more parts, in
 * order: an array its data pointer (to global memory), then shape[i] and
 * strides[i] as 64-bit ints; a complex scalar its real and imaginary
 * parts; any other scalar its value, a bool as a byte; a tuple the parts
 * of its members in order, as Numba flattens a tuple argument into its
 * members. codegen.c declares the entry and rebuilds the values from these
 * parts; the manifest lists them (docs/manifest.md), so that any loader can
 * pack a launch. Both read this one description.
 */
#include "pykc.h"

bool abi_passable(const Type *t) {
    if (t->kind != TY_TUPLE) return true;
    for (int i = 0; i < t->elem_count; i++)
        if (!is_scalar(t->elems[i]) && (t->elems[i]->kind != TY_TUPLE || !abi_passable(t->elems[i]))) return false;
    return true;
}

int abi_part_count(const Type *t) {
    if (t->kind == TY_ARRAY) return 1 + 2 * t->ndim;
    if (t->kind == TY_TUPLE) {
        int n = 0;
        for (int i = 0; i < t->elem_count; i++) n += abi_part_count(t->elems[i]);
        return n;
    }
    return t->kind == TY_COMPLEX ? 2 : 1;
}

/* The scalars a tuple holds, nested tuples counted by theirs. */
static int scalar_count(const Type *t) {
    if (t->kind != TY_TUPLE) return 1;
    int n = 0;
    for (int i = 0; i < t->elem_count; i++) n += scalar_count(t->elems[i]);
    return n;
}

/* Part i of a tuple: its member's part, numbered among the tuple's scalars. */
static AbiPart tuple_part(const Type *t, int i) {
    int scalars = 0;
    for (int k = 0; k < t->elem_count; k++) {
        int n = abi_part_count(t->elems[k]);
        if (i < n) {
            AbiPart p = abi_part(t->elems[k], i);
            p.member = scalars + (p.member < 0 ? 0 : p.member);
            return p;
        }
        i -= n;
        scalars += scalar_count(t->elems[k]);
    }
    ice("abi_part: part %d beyond the tuple", i);
}

AbiPart abi_part(const Type *t, int i) {
    if (t->kind == TY_TUPLE) return tuple_part(t, i);
    if (t->kind == TY_ARRAY) {
        if (i == 0) return (AbiPart){PART_DATA, 0, -1, NULL, 8};
        bool shape = i <= t->ndim;
        return (AbiPart){shape ? PART_SHAPE : PART_STRIDES, shape ? i - 1 : i - 1 - t->ndim, -1, &ty_int64, 8};
    }
    if (t->kind == TY_COMPLEX) {
        Type *part = type_float(t->bits / 2);
        return (AbiPart){i == 0 ? PART_REAL : PART_IMAG, 0, -1, part, type_size(part)};
    }
    return (AbiPart){PART_VALUE, 0, -1, t, type_size(t)};
}

/* ---- the manifest's view ------------------------------------------------ */

/* The PTX type a part is passed as: floats as themselves (float16 as its
 * bits), everything else as an unsigned int of its size. */
static const char *part_type_name(AbiPart p) {
    if (p.type && p.type->kind == TY_BFLOAT16) return "b16";
    if (p.type && p.type->kind == TY_FLOAT) return p.type->bits == 16 ? "b16" : p.type->bits == 32 ? "f32" : "f64";
    return p.size == 1 ? "u8" : p.size == 2 ? "u16" : p.size == 4 ? "u32" : "u64";
}

static const char *part_name(Arena *a, AbiPart p) {
    const char *within = p.kind == PART_REAL ? "real" : p.kind == PART_IMAG ? "imag" : "value";
    if (p.member >= 0) /* a tuple's scalar: [j], [j].real, [j].imag */
        return p.kind == PART_VALUE ? arena_printf(a, "[%d]", p.member) : arena_printf(a, "[%d].%s", p.member, within);
    switch (p.kind) {
    case PART_DATA: return "data";
    case PART_SHAPE: return arena_printf(a, "shape[%d]", p.axis);
    case PART_STRIDES: return arena_printf(a, "strides[%d]", p.axis);
    default: return within;
    }
}

/* A tuple's scalars' dtypes, in order, from *n on. */
static void list_members(Arena *a, const Type *t, const char **out, int *n) {
    for (int i = 0; i < t->elem_count; i++) {
        if (t->elems[i]->kind == TY_TUPLE) list_members(a, t->elems[i], out, n);
        else out[(*n)++] = type_name(a, t->elems[i]);
    }
}

static void describe_param(Arena *a, const Sym *p, ManifestParam *mp) {
    const Type *t = p->ty;
    mp->name = p->name;
    mp->is_array = t->kind == TY_ARRAY;
    const Type *elem = mp->is_array ? t->dtype : t;
    mp->record = elem->kind == TY_RECORD ? elem->record : NULL;
    /* NumPy has no bfloat16; ml_dtypes, which Numba maps to it, calls it so */
    mp->dtype = mp->record ? "record" : elem->kind == TY_BFLOAT16 ? "bfloat16" : type_name(a, elem);
    mp->ndim = mp->is_array ? t->ndim : 0;
    mp->layout = mp->is_array ? t->layout : 'A';
    mp->access = p->written ? (p->read ? "readwrite" : "write") : "read";
    if (t->kind != TY_TUPLE) return;
    mp->members = ARENA_ARRAY(a, const char *, scalar_count(t) + 1);
    list_members(a, t, mp->members, &mp->member_count);
}

static void describe_kernel(Arena *a, const FuncInfo *f, ManifestKernel *k) {
    /* a specialisation (--sig) has its own entry and its source name */
    k->name = f->generic ? f->generic->def->name : f->def->name;
    k->entry = f->def->name;
    k->contiguous = f->contiguous ? f->contiguous->def->name : NULL;
    k->param_count = f->param_count;
    k->params = ARENA_ARRAY(a, ManifestParam, f->param_count ? f->param_count : 1);
    int parts = 0;
    for (int i = 0; i < f->param_count; i++) parts += abi_part_count(f->params[i]->ty);
    k->ptx_params = ARENA_ARRAY(a, ManifestPtxParam, parts ? parts : 1);
    k->ptx_param_count = 0;
    for (int i = 0; i < f->param_count; i++) {
        const Type *t = f->params[i]->ty;
        describe_param(a, f->params[i], &k->params[i]);
        for (int j = 0; j < abi_part_count(t); j++) {
            AbiPart p = abi_part(t, j);
            k->ptx_params[k->ptx_param_count++] = (ManifestPtxParam){part_type_name(p), p.size, p.size, i, part_name(a, p)};
        }
    }
    k->shared_static = f->shared_static;
    k->shared_dynamic = f->shared_dynamic;
    k->limits = f->limits;
    k->cooperative = f->cooperative;
    k->debug = f->debug;
    k->checks = f->checks;
}

static void describe_constants(Unit *u, Manifest *m) {
    m->const_count = u->array_count;
    m->consts = ARENA_ARRAY(u->arena, ManifestConst, u->array_count ? u->array_count : 1);
    for (int i = 0; i < u->array_count; i++) {
        ConstValue *c = u->arrays[i];
        ManifestConst *mc = &m->consts[i];
        mc->name = c->name;
        mc->dtype = type_name(u->arena, c->ty->dtype);
        mc->ndim = c->ty->ndim;
        mc->shape = c->shape;
        mc->size = type_size(c->ty->dtype);
        for (int d = 0; d < c->ty->ndim; d++) mc->size *= c->shape[d];
    }
}

static bool is_entry(const FuncInfo *f) { return f->is_kernel && !f->imported && !f->abstract; }

void abi_describe_module(Unit *u, Manifest *m) {
    describe_constants(u, m);
    int n = 0;
    for (int i = 0; i < u->func_count; i++) n += is_entry(u->funcs[i]);
    m->exceptions = u->exceptions;
    m->exception_count = u->exception_count;
    m->kernels = ARENA_ARRAY(u->arena, ManifestKernel, n ? n : 1);
    m->kernel_count = 0;
    for (int i = 0; i < u->func_count; i++)
        if (is_entry(u->funcs[i])) describe_kernel(u->arena, u->funcs[i], &m->kernels[m->kernel_count++]);
}
