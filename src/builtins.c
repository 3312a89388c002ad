/*
 * builtins.c - every name that Numba defines for kernels, one entry a name.
 *
 * Each Entity gives a canonical dotted path (numba.cuda.grid, math.sqrt,
 * builtins.abs), its typing rule and its lowering. A typing rule is either a
 * list of cases resolved as Numba resolves a ConcreteTemplate (the cases are
 * transcribed from numba-cuda's cudadecl.py, cudamath.py and builtins.py, in
 * their order), or a function for Numba's AbstractTemplates. Codegen lowers
 * by the entry's Lowering kind and name.
 */
#include "pykc.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#define N_(a) (int)(sizeof(a) / sizeof((a)[0]))
#define S1(r, a) {.ret = &ty_##r, .args = {&ty_##a}, .nargs = 1}
#define S2(r, a, b) {.ret = &ty_##r, .args = {&ty_##a, &ty_##b}, .nargs = 2}
#define S3(r, a, b, c) {.ret = &ty_##r, .args = {&ty_##a, &ty_##b, &ty_##c}, .nargs = 3}
#define S1_UNLOWERED(r, a) {.ret = &ty_##r, .args = {&ty_##a}, .nargs = 1, .unlowered = true}

/* ---- case lists -------------------------------------------------------------- */

/* The math cases are numba-cuda's cudamath.py, in its order: the CUDA typing
 * context installs that registry, not numba's mathdecl.py, whose orders
 * differ. A tie between cases goes to the first, so the order decides
 * frexp(float16) -> float32 and nextafter(float16, float16) -> float32. */
static const Sig math_unary[] = {S1(float64, int64), S1(float64, uint64), S1(float32, float32), S1(float64, float64)};
static const Sig math_binary_int[] = {S2(float64, int64, int64), S2(float64, uint64, uint64),
                                      S2(float32, float32, float32), S2(float64, float64, float64)};
static const Sig math_binary[] = {S2(float32, float32, float32), S2(float64, float64, float64)};
static const Sig math_predicate[] = {S1(bool, int64), S1(bool, uint64), S1(bool, float32), S1(bool, float64)};
static const Sig math_pow[] = {S2(float32, float32, float32), S2(float64, float64, float64),
                               S2(float32, float32, int32), S2(float64, float64, int32)};
static const Sig math_ldexp[] = {S2(float32, float32, int32), S2(float64, float64, int32)};

/* Tuple results of the cases below: static, as the case tables are. */
static Type *f64_i32[] = {&ty_float64, &ty_int32}, *f32_i32[] = {&ty_float32, &ty_int32};
static Type *f64_f64[] = {&ty_float64, &ty_float64}, *f32_f32[] = {&ty_float32, &ty_float32};
static Type *i32_bool[] = {&ty_int32, &ty_bool};
#define TUPLE2(name, parts) static Type name = {.kind = TY_TUPLE, .elems = parts, .elem_count = 2}
TUPLE2(ty_frexp64, f64_i32);
TUPLE2(ty_frexp32, f32_i32);
TUPLE2(ty_modf64, f64_f64);
TUPLE2(ty_modf32, f32_f32);
TUPLE2(ty_match_all, i32_bool);

static const Sig math_frexp[] = {S1(frexp32, float32), S1(frexp64, float64)};
static const Sig math_modf[] = {S1(modf64, float64), S1(modf32, float32)};
static const Sig match_any_cases[] = {S2(int32, int32, int32), S2(int32, int32, int64), S2(int32, int32, float32),
                                      S2(int32, int32, float64)};
static const Sig match_all_cases[] = {S2(match_all, int32, int32), S2(match_all, int32, int64),
                                      S2(match_all, int32, float32), S2(match_all, int32, float64)};
static const Sig round_cases[] = {S1(int64, float32), S1(int64, float64), S2(float32, float32, int64),
                                  S2(float64, float64, int64)};

/* cuda.bf16: numba-cuda's bindings of cuda_bf16.h (_internal/cuda_bf16.py) */
static const Sig bf16_unary[] = {S1(bfloat16, bfloat16)};
static const Sig bf16_binary[] = {S2(bfloat16, bfloat16, bfloat16)};
static const Sig bf16_ternary[] = {S3(bfloat16, bfloat16, bfloat16, bfloat16)};
static const Sig bf16_compare[] = {S2(bool, bfloat16, bfloat16)};
static const Sig bf16_predicate[] = {S1(bool, bfloat16)};
static const Sig bf16_to_float[] = {S1(float32, bfloat16)};
static const Sig bf16_from_float[] = {S1(bfloat16, float32)};
static const Sig bf16_from_double[] = {S1(bfloat16, float64)};
static const Sig bf16_as_short[] = {S1(int16, bfloat16)};
static const Sig bf16_as_ushort[] = {S1(uint16, bfloat16)};
static const Sig bf16_from_short[] = {S1(bfloat16, int16)};
static const Sig bf16_from_ushort[] = {S1(bfloat16, uint16)};

static const Sig fp16_unary[] = {S1(float16, float16)};
static const Sig fp16_binary[] = {S2(float16, float16, float16)};
static const Sig fp16_ternary[] = {S3(float16, float16, float16, float16)};
static const Sig fp16_compare[] = {S2(bool, float16, float16)};

static const Sig abs_cases[] = {S1(int8, int8), S1(int16, int16), S1(int32, int32), S1(int64, int64),
                                S1(uint8, uint8), S1(uint16, uint16), S1(uint32, uint32), S1(uint64, uint64),
                                S1(float16, float16), S1(float32, float32), S1(float64, float64), S1(float32, complex64),
                                S1(float64, complex128)};
static const Sig range_cases[] = {S1(int32, int32), S2(int32, int32, int32), S3(int32, int32, int32, int32),
                                  S1(int64, int64), S2(int64, int64, int64), S3(int64, int64, int64, int64),
                                  S1(uint64, uint64), S2(uint64, uint64, uint64), S3(uint64, uint64, uint64, uint64)};

static const Sig popc_cases[] = {S1(int8, int8), S1(int16, int16), S1(int32, int32), S1(int64, int64),
                                 S1(uint8, uint8), S1(uint16, uint16), S1(uint32, uint32), S1(uint64, uint64)};
/* cudaimpl.py lowers ffs of 32- and 64-bit ints only */
static const Sig ffs_cases[] = {S1_UNLOWERED(uint32, int8), S1_UNLOWERED(uint32, int16), S1(uint32, int32),
                                S1(uint32, int64), S1_UNLOWERED(uint32, uint8), S1_UNLOWERED(uint32, uint16),
                                S1(uint32, uint32), S1(uint32, uint64)};
static const Sig brev_cases[] = {S1(uint32, uint32), S1(uint64, uint64)};
static const Sig fma_cases[] = {S3(float32, float32, float32, float32), S3(float64, float64, float64, float64)};
static const Sig cbrt_cases[] = {S1(float32, float32), S1(float64, float64)};
static const Sig syncwarp_cases[] = {{.ret = &ty_none}, S1(none, int32)};
static const Sig nanosleep_cases[] = {S1(none, uint32)};
static const Sig vote_cases[] = {S2(bool, int32, bool)};
static const Sig ballot_cases[] = {S2(int32, int32, bool)};

/* CUDA's vector types, as numba-cuda's vector_types.py makes them: for each
 * member type, vectors of 1 to 4 members named x y z w. */
#define VECTOR_TYPE(base, n) static Type ty_##base##x##n = {.kind = TY_VECTOR, .dtype = &ty_##base, .elem_count = n}
#define VECTOR_TYPES(base) VECTOR_TYPE(base, 1); VECTOR_TYPE(base, 2); VECTOR_TYPE(base, 3); VECTOR_TYPE(base, 4)
VECTOR_TYPES(int8); VECTOR_TYPES(int16); VECTOR_TYPES(int32); VECTOR_TYPES(int64);
VECTOR_TYPES(uint8); VECTOR_TYPES(uint16); VECTOR_TYPES(uint32); VECTOR_TYPES(uint64);
VECTOR_TYPES(float32); VECTOR_TYPES(float64);

/* ---- typing rules for Numba's AbstractTemplates ---------------------------------- */

static int nargs(const Node *call) { return call->item_len; }
static Type *arg_type(const Node *call, int i) { return call->items[i]->ty; }

static bool want_args(Sema *s, Node *call, const Entity *e, int lo, int hi) {
    if (call->kwarg_len > 0) {
        sema_error(s, call->kwargs[0]->span, "%s takes no keyword arguments here", e->path);
        return false;
    }
    if (nargs(call) >= lo && nargs(call) <= hi) return true;
    sema_arg_count_error(s, call, e->path, lo, hi);
    return false;
}

/* literal_unroll(t): the tuple, which a for loop unrolls (sema's
 * type_for); numba-cuda unrolls only tuples. */
static Type *type_literal_unroll(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *t = arg_type(call, 0);
    if (t->kind == TY_TUPLE || t->kind == TY_ERROR) return t;
    sema_error(s, call->items[0]->span, "literal_unroll takes a tuple, not %s", sema_type_name(s, t));
    return &ty_error;
}

/* numba.literal_unroll is Numba's CPU target's: numba-cuda types its own. */
static Type *type_cpu_literal_unroll(Sema *s, Node *call, const Entity *e) {
    sema_error(s, call->func->span, "numba-cuda does not type numba.literal_unroll, Numba's CPU function: use "
               "numba.cuda.literal_unroll ('from numba.cuda import literal_unroll')");
    return &ty_error;
}

static Type *type_grid(Sema *s, Node *call, const Entity *e) {
    int64_t n;
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    if (!sema_const_int(s, call->items[0], "the dimension count of cuda.grid", &n)) return &ty_error;
    if (n < 1 || n > 3) {
        sema_error(s, call->items[0]->span, "%s(ndim): ndim must be 1, 2 or 3, not %lld", e->path, (long long)n);
        return &ty_error;
    }
    return n == 1 ? &ty_int64 : type_unituple(sema_arena(s), &ty_int64, (int)n);
}

static Type *type_no_args(Sema *s, Node *call, const Entity *e) {
    return want_args(s, call, e, 0, 0) ? e->type : &ty_error;
}

/* shape: a compile-time int or tuple of them; dtype: a type. */
static Type *type_array_alloc(Sema *s, Node *call, const Entity *e, bool shared) {
    Node *shape = nargs(call) > 0 ? call->items[0] : NULL, *dtype = nargs(call) > 1 ? call->items[1] : NULL;
    for (int i = 0; i < call->kwarg_len; i++) {
        Node *kw = call->kwargs[i];
        if (strcmp(kw->name, "shape") == 0) shape = kw->rhs;
        else if (strcmp(kw->name, "dtype") == 0) dtype = kw->rhs;
        else if (strcmp(kw->name, "alignment") != 0) {
            sema_error(s, kw->span, "%s has no argument '%s'", e->path, kw->name);
            return &ty_error;
        }
    }
    if (!shape || !dtype) {
        sema_error(s, call->span, "%s needs a shape and a dtype", e->path);
        return &ty_error;
    }
    Type *elem = sema_dtype_arg(s, dtype, "the dtype of a shared or local array");
    if (elem->kind == TY_ERROR) return elem;
    int ndim = 1;
    long count = 1;
    Node **dims = &shape;
    /* a tuple named as a whole (TILE = (16, 16)) gives its dimensions by its
     * type, Tuple(Literal[int](16), ...), as Numba reads it */
    Type *named = shape->kind != ND_TUPLE && shape->ty && shape->ty->kind == TY_TUPLE ? shape->ty : NULL;
    if (shape->kind == ND_TUPLE) {
        dims = shape->items;
        ndim = shape->item_len;
    } else if (named) {
        ndim = named->elem_count;
    }
    if (ndim > PYKC_MAX_NDIM) {
        sema_error(s, shape->span, "an array has at most %d dimensions, as in NumPy", PYKC_MAX_NDIM);
        return &ty_error;
    }
    call->dims = ARENA_ARRAY(sema_arena(s), long, ndim + 1);
    for (int i = 0; i < ndim; i++) {
        int64_t d;
        Span at = named ? shape->span : dims[i]->span;
        if (named && (named->elems[i]->kind != TY_INT || !named->elems[i]->literal)) {
            sema_error(s, at, "the shape of a shared or local array must be a tuple of integer constants, not %s",
                       sema_type_name(s, named));
            return &ty_error;
        }
        if (named) d = named->elems[i]->lit_value;
        else if (!sema_const_int(s, dims[i], "the shape of a shared or local array", &d)) return &ty_error;
        /* Numba takes only literals here: 16, TILE, not TILE + 1 */
        if (!named && !sema_is_literal(s, dims[i])) {
            sema_error(s, at, "the shape of a shared or local array must be an integer literal or a module "
                       "constant, as Numba requires (it does not fold expressions such as TILE + 1)");
            return &ty_error;
        }
        if (d < 0 || (d == 0 && !shared)) {
            sema_error(s, at, "array dimension must be %s, not %lld", shared ? "non-negative" : "positive",
                       (long long)d);
            return &ty_error;
        }
        if (__builtin_mul_overflow(count, d, &count)) count = LONG_MAX;
        call->dims[i] = (long)d;
    }
    long bytes, limit = shared ? CUDA_MAX_STATIC_SHARED : CUDA_MAX_LOCAL;
    bool huge = count == LONG_MAX || __builtin_mul_overflow(count, (long)type_size(elem), &bytes);
    if (huge || bytes > limit) {
        sema_error(s, shape->span, "a %s array of this shape takes %s bytes; CUDA allows %ld (%ld KB) %s",
                   shared ? "shared" : "local", huge ? "more than 2**63" : arena_printf(sema_arena(s), "%ld", bytes),
                   limit, limit >> 10, shared ? "of static shared memory a block" : "of local memory a thread");
        return &ty_error;
    }
    if (shared && !sema_add_shared(s, bytes)) {
        sema_error(s, call->span, "the kernel's static shared arrays take more than the %ld bytes (%ld KB) CUDA "
                   "allows a block", limit, limit >> 10);
        return &ty_error;
    }
    return type_array(sema_arena(s), elem, ndim, 'C');
}

static Type *type_shared_array(Sema *s, Node *call, const Entity *e) { return type_array_alloc(s, call, e, true); }
static Type *type_local_array(Sema *s, Node *call, const Entity *e) { return type_array_alloc(s, call, e, false); }

static Type *type_const_array(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *t = arg_type(call, 0);
    if (t->kind != TY_ARRAY || call->items[0]->kind != ND_NAME || !call->items[0]->sym ||
        call->items[0]->sym->kind != SYM_CONST) {
        sema_error(s, call->items[0]->span, "cuda.const.array_like needs a module-level array constant");
        return &ty_error;
    }
    Type *r = type_array(sema_arena(s), t->dtype, t->ndim, 'C');
    r->readonly = true;
    return r;
}

static bool is_one_of(const Type *t, Type *const *set, int n) {
    for (int i = 0; i < n; i++)
        if (type_equal(t, set[i])) return true;
    return false;
}

static Type *const atomic_all[] = {&ty_float64, &ty_float32, &ty_int32, &ty_uint32, &ty_int64, &ty_uint64};
static Type *const atomic_int[] = {&ty_int32, &ty_uint32, &ty_int64, &ty_uint64};
static Type *const atomic_uint[] = {&ty_uint32, &ty_uint64};

/* The index of an atomic: an integer for 1-d arrays, else a tuple of
 * integers matching ndim. numba-cuda types a 1-tuple on a 1-d array too but
 * cannot lower it ("Cannot cast UniTuple(int32 x 1) to int64"). */
static bool check_atomic_index(Sema *s, const Entity *e, Node *idx, const Type *ary) {
    const Type *t = idx->ty;
    bool ok = ary->ndim == 1 ? is_integer(t) || t->kind == TY_BOOL : false;
    if (ary->ndim > 1 && t->kind == TY_TUPLE && t->elem_count == ary->ndim) {
        ok = true;
        for (int i = 0; i < t->elem_count; i++) ok = ok && is_integer(t->elems[i]);
    }
    if (!ok)
        sema_error(s, idx->span, "%s: the index of a %d-d array must be %s", e->path, ary->ndim,
                   ary->ndim == 1 ? "an integer" : "a tuple of integers, one per dimension");
    return ok;
}

/* An atomic's index, checked as a subscript is: the call is the site. */
static bool check_atomic_call_index(Sema *s, const Entity *e, Node *call, const Type *ary) {
    if (!check_atomic_index(s, e, call->items[1], ary)) return false;
    sema_note_check(s, call, EXC_BOUNDS);
    return true;
}

static Type *type_atomic(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 3, 3)) return &ty_error;
    Type *ary = arg_type(call, 0);
    if (ary->kind != TY_ARRAY) {
        sema_error(s, call->items[0]->span, "%s needs an array as its first argument, not %s", e->path,
                   sema_type_name(s, ary));
        return &ty_error;
    }
    AtomicOp op = (AtomicOp)e->op;
    bool ints_only = op == ATOMIC_AND || op == ATOMIC_OR || op == ATOMIC_XOR || op == ATOMIC_EXCH;
    bool uints_only = op == ATOMIC_INC || op == ATOMIC_DEC;
    bool ok = uints_only ? is_one_of(ary->dtype, atomic_uint, 2)
              : ints_only ? is_one_of(ary->dtype, atomic_int, 4) : is_one_of(ary->dtype, atomic_all, 6);
    if (!ok) {
        sema_error(s, call->items[0]->span, "%s does not support %s arrays", e->path, sema_type_name(s, ary->dtype));
        return &ty_error;
    }
    if (!check_atomic_call_index(s, e, call, ary)) return &ty_error;
    if (!is_scalar(arg_type(call, 2)) || type_conversion(arg_type(call, 2), ary->dtype) == CONV_NONE) {
        sema_error(s, call->items[2]->span, "%s: cannot store %s into a %s array", e->path,
                   sema_type_name(s, arg_type(call, 2)), sema_type_name(s, ary->dtype));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 3);
    call->casts[0] = ary;
    call->casts[1] = arg_type(call, 1);
    call->casts[2] = ary->dtype;
    sema_note_access(s, call->items[0], true, true);
    return ary->dtype;
}

static Type *type_cas(Sema *s, Node *call, const Entity *e) {
    bool indexed = e->op == ATOMIC_CAS;
    if (!want_args(s, call, e, indexed ? 4 : 3, indexed ? 4 : 3)) return &ty_error;
    Type *ary = arg_type(call, 0);
    if (ary->kind != TY_ARRAY || !is_one_of(ary->dtype, atomic_int, 4)) {
        sema_error(s, call->items[0]->span, "%s needs an array of int32, uint32, int64 or uint64", e->path);
        return &ty_error;
    }
    if (!indexed && ary->ndim != 1) {
        sema_error(s, call->items[0]->span, "%s needs a 1-d array", e->path);
        return &ty_error;
    }
    if (indexed && !check_atomic_call_index(s, e, call, ary)) return &ty_error;
    int n = nargs(call);
    for (int i = indexed ? 2 : 1; i < n; i++) {
        Type *t = arg_type(call, i);
        if (!is_scalar(t) || type_conversion(t, ary->dtype) == CONV_NONE) {
            sema_error(s, call->items[i]->span, "%s: the %s must be a number that converts to %s, not %s", e->path,
                       i + 1 == n ? "new value" : "value compared", sema_type_name(s, ary->dtype), sema_type_name(s, t));
            return &ty_error;
        }
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, n);
    for (int i = 0; i < n; i++) call->casts[i] = i == 0 ? ary : (indexed && i == 1) ? arg_type(call, 1) : ary->dtype;
    sema_note_access(s, call->items[0], true, true);
    return ary->dtype;
}

/* The array and index of a cache-hinted load or store (cache_hints.py):
 * an array of ints or floats, indexed by an integer when 1-d or else by a
 * UniTuple of integers, one per dimension. */
static bool check_cache_hint_access(Sema *s, Node *call, const Entity *e) {
    Type *ary = arg_type(call, 0), *idx = type_strip(arg_type(call, 1));
    if (ary->kind != TY_ARRAY) {
        sema_error(s, call->items[0]->span, "%s operates on arrays, not %s", e->path, sema_type_name(s, ary));
        return false;
    }
    if (!is_integer(ary->dtype) && !is_float(ary->dtype)) {
        sema_error(s, call->items[0]->span, "%s needs an array of integers or floats, not of %s", e->path,
                   sema_type_name(s, ary->dtype));
        return false;
    }
    bool ok = is_integer(idx) && ary->ndim == 1;
    if (idx->kind == TY_TUPLE && idx->elem_count == ary->ndim) {
        ok = true;
        for (int i = 0; i < idx->elem_count; i++)
            ok = ok && is_integer(idx->elems[i]) && type_equal(type_strip(idx->elems[i]), type_strip(idx->elems[0]));
    }
    if (!ok)
        sema_error(s, call->items[1]->span, "%s: the index of a %d-d array must be %s, not %s", e->path, ary->ndim,
                   ary->ndim == 1 ? "an integer" : "a tuple of integers of one type, one per dimension",
                   sema_type_name(s, idx));
    return ok;
}

/* ldca ldcg ldcs ldlu ldcv(array, i): the element, loaded with a cache hint */
static Type *type_cache_load(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2) || !check_cache_hint_access(s, call, e)) return &ty_error;
    sema_note_access(s, call->items[0], true, false);
    return arg_type(call, 0)->dtype;
}

/* stcg stcs stwb stwt(array, i, value): value converted to the dtype */
static Type *type_cache_store(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 3, 3) || !check_cache_hint_access(s, call, e)) return &ty_error;
    Type *ary = arg_type(call, 0), *v = arg_type(call, 2);
    if (ary->readonly) {
        sema_error(s, call->items[0]->span, "%s cannot store into a module constant array: it lives in constant memory",
                   e->path);
        return &ty_error;
    }
    if (!is_scalar(v) || type_conversion(v, ary->dtype) == CONV_NONE) {
        sema_error(s, call->items[2]->span, "%s: cannot store %s into an array of %s", e->path, sema_type_name(s, v),
                   sema_type_name(s, ary->dtype));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 3);
    call->casts[0] = ary;
    call->casts[1] = arg_type(call, 1);
    call->casts[2] = ary->dtype;
    sema_note_access(s, call->items[0], false, true);
    return &ty_none;
}

/* cuda.cg.this_grid() and GridGroup.sync(): as in numba-cuda's cg.py, either
 * makes the kernel a cooperative one. */
static Type *type_grid_group(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 0, 0)) return &ty_error;
    sema_note_cooperative(s);
    return e->type;
}

/* syncthreads_count/_and/_or: numba-cuda's intrinsic takes an integer
 * predicate, not a bool. */
static Type *type_barrier_pred(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    if (!is_integer(arg_type(call, 0))) {
        sema_error(s, call->items[0]->span, "%s takes an integer predicate, not %s", e->path, sema_type_name(s, arg_type(call, 0)));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 1);
    call->casts[0] = &ty_int32;
    return &ty_int32;
}

static Type *type_selp(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 3, 3)) return &ty_error;
    static Type *const supported[] = {&ty_float64, &ty_float32, &ty_int16, &ty_uint16, &ty_int32, &ty_uint32,
                                      &ty_int64, &ty_uint64};
    Type *a = type_strip(arg_type(call, 1)), *b = type_strip(arg_type(call, 2));
    if (!type_equal(a, b) || !is_one_of(a, supported, 8)) {
        sema_error(s, call->span, "cuda.selp needs two values of one type among float64, float32 and 16- to 64-bit ints, not %s and %s",
                   sema_type_name(s, a), sema_type_name(s, b));
        return &ty_error;
    }
    return a;
}

static Type *const shfl_types[] = {&ty_int32, &ty_int64, &ty_float32, &ty_float64};

static Type *type_shfl(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 3, 3)) return &ty_error;
    Type *v = arg_type(call, 1);
    /* numba-cuda's shfl_sync_intrinsic takes exactly these four types */
    Type *as = !v->literal && is_one_of(v, shfl_types, 4) ? v : NULL;
    if (!as || !is_integer(arg_type(call, 0)) || !is_integer(arg_type(call, 2))) {
        sema_error(s, call->span, "%s shuffles int32, int64, float32 or float64 values", e->path);
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 3);
    call->casts[0] = &ty_uint32;
    call->casts[1] = as;
    call->casts[2] = &ty_uint32;
    return as;
}

static Type *value_type(Type *t) { return t->kind == TY_OPTIONAL ? t->dtype : t; }

/* The values min and max choose among: the arguments, or the elements of
 * a single tuple argument (MinMaxBase); NULL after an error. */
static Type **minmax_operands(Sema *s, Node *call, const Entity *e, int *n) {
    Type *one = nargs(call) == 1 ? arg_type(call, 0) : NULL;
    if (call->kwarg_len || !nargs(call) || (one && one->kind != TY_TUPLE)) {
        sema_error(s, call->span, "%s needs two or more scalar arguments, or a tuple", e->path + 9);
        return NULL;
    }
    if (one && !one->elem_count) {
        sema_error(s, call->span, "%s() argument is an empty tuple", e->path + 9);
        return NULL;
    }
    *n = one ? one->elem_count : nargs(call);
    if (one) return one->elems;
    Type **tys = ARENA_ARRAY(sema_arena(s), Type *, *n);
    for (int i = 0; i < *n; i++) tys[i] = arg_type(call, i);
    return tys;
}

/* min and max: Numba unifies the operands (MinMaxBase); casts[i] is
 * what argument i (each element of a tuple) converts to. */
static Type *type_minmax(Sema *s, Node *call, const Entity *e) {
    Type *one = nargs(call) == 1 ? arg_type(call, 0) : NULL;
    if (one && one->kind == TY_ARRAY && one->ndim == 1 && is_scalar(one->dtype) && one->dtype->kind != TY_COMPLEX) {
        /* numba-cuda's iterable_min/max: the first element, then each one less (greater) */
        sema_note_access(s, call->items[0], true, false);
        call->casts = ARENA_ARRAY(sema_arena(s), Type *, 1);
        call->casts[0] = one;
        return one->dtype;
    }
    int n;
    Type **tys = minmax_operands(s, call, e, &n);
    if (!tys) return &ty_error;
    /* Numba's MinMaxBase takes numbers only; numba-cuda types min(bool,
     * bool) and a tuple of bools besides (boolval_min, iterable_min), and
     * nothing else with a bool in it */
    int bools = 0;
    for (int i = 0; i < n; i++) bools += tys[i]->kind == TY_BOOL;
    if (bools && (one ? bools != n : bools != 2 || n != 2)) {
        sema_error(s, call->span, "%s(%s) is not supported: numba-cuda takes a bool in min and max only as %s(bool, bool)",
                   e->path + 9, sema_arg_types(s, call), e->path + 9);
        return &ty_error;
    }
    /* no Optional is a number: Numba's retry with their values is the match */
    Type *t = value_type(tys[0]);
    for (int i = 1; i < n && t; i++) t = type_unify(sema_arena(s), t, value_type(tys[i]));
    for (int i = 0; i < n && t; i++)
        if (!is_scalar(value_type(tys[i]))) t = NULL; /* an IntEnum member is no Number */
    if (!t || !is_scalar(t) || t->kind == TY_COMPLEX) {
        sema_error(s, call->span, "%s needs scalar arguments that unify", e->path + 9);
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, nargs(call));
    for (int i = 0; i < nargs(call); i++) call->casts[i] = t;
    return t;
}

/* sum(t[, start]) of a tuple or a 1-d array: numba-cuda's ol_sum adds
 * each element to an accumulator that starts as start (0), in one loop (a
 * literal_unroll of a tuple of mixed types), so the accumulator is the
 * fixpoint of unifying it with acc + x. casts: [0] the tuple or array,
 * [1] the accumulator's type, then for each element (the one type of an
 * array's) the types of acc + x's case: acc's, x's and the result. */
static Type *type_sum(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 2)) return &ty_error;
    Type *t = arg_type(call, 0), *acc = nargs(call) == 2 ? type_strip(arg_type(call, 1)) : &ty_int64;
    bool vector = t->kind == TY_ARRAY && t->ndim == 1;
    if ((t->kind != TY_TUPLE && !vector) || !is_scalar(acc)) {
        sema_error(s, call->span, "sum() of %s is not supported: numba-cuda sums a tuple or a 1-d array, from a number",
                   sema_arg_types(s, call));
        return &ty_error;
    }
    if (t->kind == TY_TUPLE && t->elem_count == 0) {
        sema_error(s, call->span, "sum() of the empty tuple is not supported, as in numba-cuda");
        return &ty_error;
    }
    if (vector) {
        t = type_unituple(sema_arena(s), t->dtype, 1); /* every element adds as the one of this tuple */
        sema_note_access(s, call->items[0], true, false);
    }
    int ncases, n = t->elem_count;
    bool unsafe;
    const Sig *cases = operator_cases(OP_ADD, 2, &ncases, &unsafe);
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 2 + 3 * n);
    for (int pass = 0, changed = 1; changed && pass < 8; pass++) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            Type *pair[2] = {acc, t->elems[i]};
            int k = is_scalar(pair[1]) ? resolve_overload(cases, ncases, pair, 2, unsafe) : -1;
            Type *u = k < 0 ? NULL : type_unify(sema_arena(s), acc, cases[k].ret);
            if (!u || u->kind == TY_ERROR) {
                sema_error(s, call->span, "sum(): operator '+' is not supported between %s and %s",
                           sema_type_name(s, acc), sema_type_name(s, pair[1]));
                return &ty_error;
            }
            changed |= !type_equal(u, acc);
            acc = u;
            call->casts[2 + 3 * i] = cases[k].args[0];
            call->casts[3 + 3 * i] = cases[k].args[1];
            call->casts[4 + 3 * i] = cases[k].ret;
        }
    }
    call->casts[0] = arg_type(call, 0);
    call->casts[1] = acc;
    return acc;
}

/* len(): int64; of a range, its own type; of a tuple that a parameter
 * holds, as the function was called, the constant its length is
 * (rewrite_semantic_constants). */
static Type *type_len(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *t = arg_type(call, 0);
    if (t->kind == TY_RANGE) return t->dtype;
    if (t->kind != TY_ARRAY && t->kind != TY_TUPLE) {
        sema_error(s, call->items[0]->span, "len() of %s is not supported", sema_type_name(s, t));
        return &ty_error;
    }
    Node *arg = call->items[0];
    if (t->kind == TY_TUPLE && arg->kind == ND_NAME && arg->sym && arg->sym->kind == SYM_PARAM)
        return type_literal_int(sema_arena(s), t->elem_count, false);
    return &ty_int64;
}

/* The iterator of argument i, or NULL after an error saying that Numba
 * iterates over none of it. */
static Type *iterable_arg(Sema *s, Node *call, const Entity *e, int i) {
    Type *t = arg_type(call, i);
    Type *it = type_getiter(sema_arena(s), t);
    if (!it && t->kind != TY_ERROR)
        sema_error(s, call->items[i]->span, "%s() of %s is not supported: numba-cuda iterates over a range, an array, a "
                   "tuple of one element type and an iterator", e->path + 9, sema_type_name(s, t));
    return it;
}

static Type **iterable_casts(Sema *s, Node *call) {
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, nargs(call) ? nargs(call) : 1);
    for (int i = 0; i < nargs(call); i++) call->casts[i] = arg_type(call, i);
    return call->casts;
}

/* enumerate(iterable[, start]): Numba's EnumerateType, counting in intp
 * from start, an integer. */
static Type *type_enumerate_call(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 2)) return &ty_error;
    Type *it = iterable_arg(s, call, e, 0);
    if (!it) return &ty_error;
    if (nargs(call) == 2 && !is_integer(type_strip(arg_type(call, 1)))) {
        sema_error(s, call->items[1]->span, "the start of enumerate() must be an integer, not %s",
                   sema_type_name(s, arg_type(call, 1)));
        return &ty_error;
    }
    iterable_casts(s, call);
    if (nargs(call) == 2) call->casts[1] = &ty_int64;
    return type_enumerate(sema_arena(s), it);
}

/* zip(iterable, ...): Numba's ZipType of their iterators; zip() yields
 * nothing. */
static Type *type_zip_call(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 0, nargs(call))) return &ty_error;
    Type **of = ARENA_ARRAY(sema_arena(s), Type *, nargs(call) ? nargs(call) : 1);
    for (int i = 0; i < nargs(call); i++)
        if (!(of[i] = iterable_arg(s, call, e, i))) return &ty_error;
    iterable_casts(s, call);
    return type_zip(sema_arena(s), of, nargs(call));
}

/* iter(iterable): its iterator (an iterator's is itself). */
static Type *type_iter_call(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *it = iterable_arg(s, call, e, 0);
    if (!it) return &ty_error;
    iterable_casts(s, call);
    return it;
}

/* next(iterator): what it yields; StopIteration past its end (the
 * function returns, as a raise does). */
static Type *type_next_call(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *t = arg_type(call, 0);
    if (t->kind != TY_ITER) {
        if (t->kind != TY_ERROR)
            sema_error(s, call->items[0]->span, "next() of %s is not supported: it takes an iterator (iter(), "
                       "enumerate(), zip())", sema_type_name(s, t));
        return &ty_error;
    }
    iterable_casts(s, call);
    return t->dtype;
}

/* int(x): ints keep their type, floats and bools give int64; float(x):
 * ints give float64, floats keep theirs; bool(x) -> bool; complex(a[, b]):
 * complex64 from float32, else complex128. As numba-cuda types them. */
static Type *type_number_ctor(Sema *s, Node *call, const Entity *e) {
    bool is_complex = e->type == &ty_complex128;
    if (!want_args(s, call, e, 1, is_complex ? 2 : 1)) return &ty_error;
    for (int i = 0; i < nargs(call); i++) {
        Type *t = arg_type(call, i);
        bool refused = !is_scalar(t) || (is_complex && (t == &ty_float16 || t->kind == TY_BOOL)) ||
                       (e->type == &ty_float64 && t->kind == TY_BOOL) ||
                       ((e->type == &ty_int64 || e->type == &ty_float64) && t->kind == TY_COMPLEX);
        if (refused) {
            sema_error(s, call->items[i]->span, "%s() of %s is not supported", e->path + 9, sema_type_name(s, t));
            return &ty_error;
        }
    }
    Type *x = arg_type(call, 0);
    if (e->type == &ty_int64) return x->kind == TY_INT ? type_strip(x) : &ty_int64;
    if (e->type == &ty_float64) return x->kind == TY_FLOAT ? x : x->kind == TY_COMPLEX ? type_float(x->bits / 2) : &ty_float64;
    if (is_complex) {
        bool single = x == &ty_float32;
        for (int i = 1; i < nargs(call); i++) single = single && arg_type(call, i) == &ty_float32;
        return single ? &ty_complex64 : &ty_complex128;
    }
    return e->type;
}

/* divmod(a, b): the type of a // b, twice. */
static Type *type_divmod(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    static const Sig cases[] = {S2(int64, int64, int64), S2(uint64, uint64, uint64), S2(float32, float32, float32),
                                S2(float64, float64, float64)};
    Type *args[2] = {arg_type(call, 0), arg_type(call, 1)};
    int k = resolve_overload(cases, N_(cases), args, 2, true);
    if (k < 0) {
        sema_error(s, call->span, "divmod() of %s and %s", sema_type_name(s, args[0]), sema_type_name(s, args[1]));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 2);
    call->casts[0] = cases[k].args[0];
    call->casts[1] = cases[k].args[1];
    return type_unituple(sema_arena(s), cases[k].ret, 2);
}

static Type *type_pow(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    int n;
    bool unsafe;
    const Sig *cases = operator_cases(OP_POW, 2, &n, &unsafe);
    Type *args[2] = {arg_type(call, 0), arg_type(call, 1)};
    int k = resolve_overload(cases, n, args, 2, unsafe);
    if (k < 0) {
        sema_error(s, call->span, "pow() of %s and %s", sema_type_name(s, args[0]), sema_type_name(s, args[1]));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, 2);
    call->casts[0] = cases[k].args[0];
    call->casts[1] = cases[k].args[1];
    return cases[k].ret;
}

static Type *type_print(Sema *s, Node *call, const Entity *e) {
    if (nargs(call) > 32) {
        sema_error(s, call->items[32]->span, "print() takes at most 32 arguments in kernels");
        return &ty_error;
    }
    for (int i = 0; i < nargs(call); i++) {
        Type *t = arg_type(call, i);
        if ((!is_scalar(t) && t->kind != TY_STRING) || t->kind == TY_BFLOAT16) {
            sema_error(s, call->items[i]->span, "print() of %s is not supported in kernels%s", sema_type_name(s, t),
                       t->kind == TY_BFLOAT16 ? " yet: print float32(x)" : "");
            return &ty_error;
        }
    }
    return &ty_none;
}

/* cuda.float32x4(...): numba-cuda's constructor cases are every way to make
 * up the members from scalars (converted to the member type) and smaller
 * vectors of the same member type, in order; keywords are refused. */
static Type *type_vector_ctor(Sema *s, Node *call, const Entity *e) {
    Type *v = e->type;
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "%s takes no keyword arguments", e->path);
        return &ty_error;
    }
    int members = 0;
    bool ok = true;
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, nargs(call) ? nargs(call) : 1);
    for (int i = 0; i < nargs(call); i++) {
        Type *t = arg_type(call, i);
        if (t->kind == TY_VECTOR && type_equal(t->dtype, v->dtype)) members += t->elem_count;
        else if (is_scalar(t) && type_conversion(t, v->dtype) != CONV_NONE) members++;
        else ok = false;
        call->casts[i] = t->kind == TY_VECTOR ? t : v->dtype;
    }
    if (!ok || members != v->elem_count) {
        sema_error(s, call->span, "%s needs %d member%s from scalars and %s vectors, not (%s)", e->path,
                   v->elem_count, v->elem_count == 1 ? "" : "s", sema_type_name(s, v->dtype), sema_arg_types(s, call));
        return &ty_error;
    }
    return v;
}

/* A type letter of libdevice_funcs.def (ORDER LIBDEVICE_TYPES); capitals
 * (pointer results) name the same types. */
static Type *libdevice_type(char c) {
    switch (tolower((unsigned char)c)) {
    case 'h': return &ty_int16;
    case 'i': return &ty_int32;
    case 'l': return &ty_int64;
    case 'f': return &ty_float32;
    case 'd': return &ty_float64;
    default: return &ty_none;
    }
}

/* libdevice.<f>(...): one signature, resolved as numba-cuda's
 * libdevicedecl.py resolves its ConcreteTemplate (conversions allowed);
 * the results given through pointers follow the function's own in a tuple
 * (libdevicefuncs.create_signature). */
static const char *libdevice_params(Sema *s, const Sig *sig) {
    const char *list = "";
    for (int i = 0; i < sig->nargs; i++)
        list = arena_printf(sema_arena(s), "%s%s%s", list, i ? ", " : "", type_name(sema_arena(s), sig->args[i]));
    return list;
}

static Type *type_libdevice(Sema *s, Node *call, const Entity *e) {
    if (call->kwarg_len) {
        sema_error(s, call->kwargs[0]->span, "%s takes no keyword arguments", e->path);
        return &ty_error;
    }
    Sig sig = {.ret = &ty_none};
    Type *results[4];
    int nresults = 0;
    const char *p = e->lower_name;
    if (*p != 'v') results[nresults++] = libdevice_type(*p);
    for (p += 2; *p; p++) {
        if (isupper((unsigned char)*p)) results[nresults++] = libdevice_type(*p);
        else sig.args[sig.nargs++] = libdevice_type(*p);
    }
    Type *args[3];
    for (int i = 0; i < nargs(call) && i < 3; i++) args[i] = arg_type(call, i);
    if (nargs(call) > 3 || resolve_overload(&sig, 1, args, nargs(call), true) < 0) {
        sema_error(s, call->span, "%s takes (%s), not (%s)", e->path, libdevice_params(s, &sig), sema_arg_types(s, call));
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, sig.nargs ? sig.nargs : 1);
    for (int i = 0; i < sig.nargs; i++) call->casts[i] = sig.args[i];
    if (nresults == 0) return &ty_none;
    return nresults == 1 ? results[0] : type_tuple(sema_arena(s), results, nresults);
}

/* ---- structured dtypes ------------------------------------------------------------ */

static long round_up(long n, long to) { return (n + to - 1) / to * to; }

/* A field's shape, ('v', np.float32, (3,)): positive constant extents. */
static Type *nested_array(Sema *s, Node *shape, Type *elem) {
    Node **dims = shape->kind == ND_TUPLE ? shape->items : &shape;
    int ndim = shape->kind == ND_TUPLE ? shape->item_len : 1;
    if (!is_scalar(elem) || ndim < 1 || ndim > PYKC_MAX_NDIM) {
        sema_error(s, shape->span, "an array field needs a scalar element type and 1 to %d dimensions", PYKC_MAX_NDIM);
        return &ty_error;
    }
    long *extents = ARENA_ARRAY(sema_arena(s), long, ndim), count = 1;
    for (int i = 0; i < ndim; i++) {
        int64_t d;
        if (!sema_const_int(s, dims[i], "the shape of an array field", &d)) return &ty_error;
        if (d < 1 || __builtin_mul_overflow(count, (long)d, &count) || count > (1L << 24)) {
            sema_error(s, dims[i]->span, "an array field's extents must be positive, and its elements at most 2**24");
            return &ty_error;
        }
        extents[i] = (long)d;
    }
    Type *t = type_array(sema_arena(s), elem, ndim, 'C');
    t->nested = extents;
    return t;
}

/* ('name', format) or ('name', format, shape), as np.dtype reads a field. */
static bool field_spec(Sema *s, Node *spec, RecordField *f) {
    if (spec->kind != ND_TUPLE || spec->item_len < 2 || spec->item_len > 3 || spec->items[0]->kind != ND_STR ||
        spec->items[0]->v.s.bytes || !spec->items[0]->v.s.len) {
        sema_error(s, spec->span, "a field of np.dtype is written ('name', type) or ('name', type, shape)");
        return false;
    }
    f->name = spec->items[0]->v.s.data;
    if (strlen(f->name) != spec->items[0]->v.s.len) {
        sema_error(s, spec->items[0]->span, "a field name cannot hold a NUL character");
        return false;
    }
    f->type = sema_dtype_arg(s, spec->items[1], "a field's type");
    if (f->type->kind != TY_ERROR && spec->item_len == 3) f->type = nested_array(s, spec->items[2], f->type);
    return f->type->kind != TY_ERROR;
}

/* NumPy's layout: fields one after another; with align=True each at a
 * multiple of its alignment and the size a multiple of the largest. */
static Record *layout_record(Sema *s, RecordField *fields, int n, bool aligned) {
    Record *r = ARENA_NEW(sema_arena(s), Record);
    long offset = 0;
    int align = 1;
    for (int i = 0; i < n; i++) {
        int a = aligned ? type_align(fields[i].type) : 1;
        offset = round_up(offset, a);
        fields[i].offset = offset;
        offset += type_size(fields[i].type);
        if (a > align) align = a;
    }
    *r = (Record){fields, n, round_up(offset, align), align, aligned};
    return r;
}

static bool dtype_align_flag(Sema *s, Node *call, bool *aligned) {
    Node *flag = nargs(call) > 1 ? call->items[1] : NULL;
    for (int i = 0; i < call->kwarg_len; i++) {
        if (strcmp(call->kwargs[i]->name, "align") != 0 || flag) {
            sema_error(s, call->kwargs[i]->span, "np.dtype takes a field list and align= in kernels' modules");
            return false;
        }
        flag = call->kwargs[i]->rhs;
    }
    int64_t v = 0;
    if (flag && !sema_const_int(s, flag, "np.dtype's align", &v)) return false;
    *aligned = v != 0;
    return true;
}

/* np.dtype([('x', np.float32), ...], align=False): a record type, laid
 * out as NumPy lays it out; np.dtype(np.float32) or np.dtype('f4'): the
 * scalar type. */
static Type *type_np_dtype(Sema *s, Node *call, const Entity *e) {
    bool aligned = false;
    if (nargs(call) < 1 || nargs(call) > 2) {
        sema_error(s, call->span, "np.dtype takes a type or a list of fields, and align");
        return &ty_error;
    }
    if (!dtype_align_flag(s, call, &aligned)) return &ty_error;
    Node *spec = call->items[0];
    if (spec->kind != ND_LIST) {
        Type *t = sema_dtype_arg(s, spec, "np.dtype's argument");
        return t->kind == TY_ERROR ? t : type_dtype(sema_arena(s), t);
    }
    if (spec->item_len == 0) {
        sema_error(s, spec->span, "a record needs at least one field");
        return &ty_error;
    }
    RecordField *fields = ARENA_ARRAY(sema_arena(s), RecordField, spec->item_len);
    for (int i = 0; i < spec->item_len; i++) {
        if (!field_spec(s, spec->items[i], &fields[i])) return &ty_error;
        for (int k = 0; k < i; k++)
            if (strcmp(fields[k].name, fields[i].name) == 0) {
                sema_error(s, spec->items[i]->items[0]->span, "field '%s' occurs more than once", fields[i].name);
                return &ty_error;
            }
    }
    return type_dtype(sema_arena(s), type_record(sema_arena(s), layout_record(s, fields, spec->item_len, aligned)));
}

/* numba.from_dtype(dt): Numba's type for a NumPy dtype, which pykc holds
 * as one already. */
static Type *type_from_dtype(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *t = sema_dtype_arg(s, call->items[0], "from_dtype's argument");
    return t->kind == TY_ERROR ? t : type_dtype(sema_arena(s), t);
}

/* ---- cmath ------------------------------------------------------------------------ */

/* numba-cuda's cmath is cmathdecl.py's templates and cmathimpl.py's
 * implementations; pykc's implementations are its own cmath module
 * (src/lib/cmath.pyk), typed for each call as Numba types numba-cuda's. */
static const Sig cmath_unary[] = {S1(complex64, complex64), S1(complex128, complex128)};
static const Sig cmath_predicate[] = {S1(bool, complex64), S1(bool, complex128)};
static const Sig cmath_log[] = {S1(complex64, complex64), S1(complex128, complex128),
                                S2(complex64, complex64, complex64), S2(complex128, complex128, complex128)};

/* The functions cmathdecl.py declares: a ConcreteTemplate (reals convert to
 * complex), implemented for the case's types (cmathimpl.py's @lower), the
 * result converted to the case's declared type. */
static Type *type_cmath_declared(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 2)) return &ty_error;
    Type *args[2] = {arg_type(call, 0), nargs(call) > 1 ? arg_type(call, 1) : NULL};
    int k = resolve_overload(e->cases, e->ncases, args, nargs(call), true);
    if (k < 0) {
        sema_error(s, call->span, "%s takes complex numbers (or reals, converted), not (%s)", e->path,
                   sema_arg_types(s, call));
        return &ty_error;
    }
    Type *impl = sema_call_own(s, call, "cmath", e->lower_name, e->cases[k].args);
    return impl->kind == TY_ERROR ? impl : e->cases[k].ret;
}

/* The functions cmathimpl.py gives as @overloads of a complex argument:
 * reals are refused, and the call has the type of the implementation. */
static Type *type_cmath_overload(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    Type *z = arg_type(call, 0);
    if (z->kind != TY_COMPLEX) {
        sema_error(s, call->items[0]->span, "%s takes a complex number, not %s: numba-cuda implements it for complex "
                   "arguments only", e->path, sema_type_name(s, z));
        return &ty_error;
    }
    return sema_call_own(s, call, "cmath", e->lower_name, &z);
}

/* cmath.rect(r, phi): an @overload of two floats. float16 is one for
 * Numba, but complex() refuses it, so numba-cuda fails on it too. */
static Type *type_cmath_rect(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    Type *args[2] = {arg_type(call, 0), arg_type(call, 1)};
    for (int i = 0; i < 2; i++)
        if (!type_equal(args[i], &ty_float32) && !type_equal(args[i], &ty_float64)) {
            sema_error(s, call->items[i]->span, "%s takes two floats (float32 or float64), not %s", e->path,
                       sema_type_name(s, args[i]));
            return &ty_error;
        }
    return sema_call_own(s, call, "cmath", e->lower_name, args);
}

/* ---- numba.cuda.random -------------------------------------------------------------- */

/* numba-cuda's xoroshiro128p_dtype: np.dtype([('s0', np.uint64),
 * ('s1', np.uint64)], align=True), the state of one generator. */
static RecordField xoroshiro128p_fields[] = {{"s0", &ty_uint64, 0}, {"s1", &ty_uint64, 8}};
static const Record xoroshiro128p_record = {xoroshiro128p_fields, 2, 16, 8, true};
static Type ty_xoroshiro128p = {.kind = TY_RECORD, .record = &xoroshiro128p_record};

/* numba-cuda's functions index states[index]["s0"] and ["s1"]: any array
 * whose records have those two uint64 fields works as theirs does. */
static bool is_state_array(const Type *t) {
    if (t->kind != TY_ARRAY || t->ndim != 1 || t->dtype->kind != TY_RECORD) return false;
    const RecordField *s0 = record_field(t->dtype->record, "s0"), *s1 = record_field(t->dtype->record, "s1");
    return s0 && s1 && type_equal(s0->type, &ty_uint64) && type_equal(s1->type, &ty_uint64);
}

/* The functions of random.py: Numba compiles each for the types of its
 * call, and so does pykc its own random module (src/lib/random.pyk).
 * op is the number of arguments; a first argument `states` when
 * lower_name's function takes the states. */
static Type *type_random(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, e->op, e->op)) return &ty_error;
    bool states = e->type == &ty_xoroshiro128p;
    Type *args[3];
    for (int i = 0; i < e->op; i++) {
        args[i] = type_strip(arg_type(call, i));
        bool ok = i == 0 && states ? is_state_array(args[i]) : is_integer(args[i]) || is_float(args[i]);
        if (!ok) {
            sema_error(s, call->items[i]->span, "%s takes %s as its argument %d, not %s", e->path,
                       i == 0 && states ? "an array of xoroshiro128p states (xoroshiro128p_type[:])" : "an integer",
                       i + 1, sema_type_name(s, args[i]));
            return &ty_error;
        }
    }
    if (states) sema_note_access(s, call->items[0], true, true);
    return sema_call_own(s, call, "random", e->lower_name, args);
}

/* create_xoroshiro128p_states and init_xoroshiro128p_states make device
 * arrays: host code, which a .pyk may import for its __main__ part. */
static Type *type_random_host(Sema *s, Node *call, const Entity *e) {
    sema_error(s, call->span, "%s runs on the host, not in kernels: libpykrt's pykrt_random_states_create makes the "
               "same states", e->path);
    return &ty_error;
}

static const char cmath_source[] =
#include "cmath.pyk.inc"
    ;
static const char random_source[] =
#include "random.pyk.inc"
    ;
static const char range_source[] =
#include "range.pyk.inc"
    ;

const char *own_module_source(const char *name) {
    static const struct { const char *name, *source; } modules[] = {{"cmath", cmath_source}, {"random", random_source},
                                                                         {"range", range_source}};
    for (int i = 0; i < N_(modules); i++)
        if (strcmp(modules[i].name, name) == 0) return modules[i].source;
    return NULL;
}

/* ---- NumPy ufuncs on scalars ------------------------------------------------------- */

/* The ufuncs numba-cuda 0.30's CUDA target compiles (ufuncs.py's ufunc_db),
 * each with NumPy 2.4's loops in NumPy's order (ufunc.types, less those of
 * float16, long double, objects and dates, which Numba never picks); its
 * target implements every one of these loops. */
#define TRIG "f->f d->d F->F D->D"
#define TRIG2 "f->f d->d f->f d->d F->F D->D"
#define REAL "f->f d->d"
#define REAL2 "ff->f dd->d"
#define INTS2(out) "bb->" out " BB->" out " hh->" out " HH->" out " ii->" out " II->" out " ll->" out \
                   " LL->" out " qq->" out " QQ->" out
#define INTS2_SAME "bb->b BB->B hh->h HH->H ii->i II->I ll->l LL->L qq->q QQ->Q"
#define INTS1(out) "b->" out " B->" out " h->" out " H->" out " i->" out " I->" out " l->" out \
                   " L->" out " q->" out " Q->" out
#define CMP "?\?->? " INTS2("?") " qQ->? Qq->? ff->? dd->? FF->? DD->?"
#define LOGICAL "?\?->? " INTS2("?") " ff->? dd->? FF->? DD->?"
#define MINMAX "?\?->? " INTS2_SAME " ff->f dd->d FF->F DD->D"
#define UFUNC_LIST(X) \
    X(sin, 1, UF_MATH, OP_NONE_, "sin", TRIG) X(cos, 1, UF_MATH, OP_NONE_, "cos", TRIG) \
    X(tan, 1, UF_MATH, OP_NONE_, "tan", TRIG2) X(arcsin, 1, UF_MATH, OP_NONE_, "asin", TRIG2) \
    X(arccos, 1, UF_MATH, OP_NONE_, "acos", TRIG2) X(arctan, 1, UF_MATH, OP_NONE_, "atan", TRIG2) \
    X(arctan2, 2, UF_MATH, OP_NONE_, "atan2", REAL2) X(hypot, 2, UF_MATH, OP_NONE_, "hypot", REAL2) \
    X(sinh, 1, UF_MATH, OP_NONE_, "sinh", TRIG2) X(cosh, 1, UF_MATH, OP_NONE_, "cosh", TRIG2) \
    X(tanh, 1, UF_MATH, OP_NONE_, "tanh", TRIG2) X(arcsinh, 1, UF_MATH, OP_NONE_, "asinh", TRIG2) \
    X(arccosh, 1, UF_MATH, OP_NONE_, "acosh", TRIG2) X(arctanh, 1, UF_MATH, OP_NONE_, "atanh", TRIG2) \
    X(deg2rad, 1, UF_RADIANS, OP_NONE_, NULL, REAL) X(radians, 1, UF_RADIANS, OP_NONE_, NULL, REAL) \
    X(rad2deg, 1, UF_DEGREES, OP_NONE_, NULL, REAL) X(degrees, 1, UF_DEGREES, OP_NONE_, NULL, REAL) \
    X(greater, 2, UF_COMPARE, OP_GT, NULL, CMP) X(greater_equal, 2, UF_COMPARE, OP_GE, NULL, CMP) \
    X(less, 2, UF_COMPARE, OP_LT, NULL, CMP) X(less_equal, 2, UF_COMPARE, OP_LE, NULL, CMP) \
    X(not_equal, 2, UF_COMPARE, OP_NE, NULL, CMP) X(equal, 2, UF_COMPARE, OP_EQ, NULL, CMP) \
    X(logical_and, 2, UF_LOGICAL, OP_AND, NULL, LOGICAL) X(logical_or, 2, UF_LOGICAL, OP_OR, NULL, LOGICAL) \
    X(logical_xor, 2, UF_LOGICAL, OP_BITXOR, NULL, LOGICAL) \
    X(logical_not, 1, UF_LOGICAL_NOT, OP_NONE_, NULL, "?->? " INTS1("?") " f->? d->? F->? D->?") \
    X(maximum, 2, UF_MAXIMUM, OP_NONE_, NULL, MINMAX) X(minimum, 2, UF_MINIMUM, OP_NONE_, NULL, MINMAX) \
    X(fmax, 2, UF_FMAX, OP_NONE_, NULL, MINMAX) X(fmin, 2, UF_FMIN, OP_NONE_, NULL, MINMAX) \
    X(bitwise_and, 2, UF_BITWISE, OP_BITAND, NULL, "?\?->? " INTS2_SAME) \
    X(bitwise_or, 2, UF_BITWISE, OP_BITOR, NULL, "?\?->? " INTS2_SAME) \
    X(bitwise_xor, 2, UF_BITWISE, OP_BITXOR, NULL, "?\?->? " INTS2_SAME) \
    X(invert, 1, UF_INVERT, OP_NONE_, NULL, "?->? b->b B->B h->h H->H i->i I->I l->l L->L q->q Q->Q") \
    X(left_shift, 2, UF_SHIFT, OP_LSHIFT, NULL, INTS2_SAME) X(right_shift, 2, UF_SHIFT, OP_RSHIFT, NULL, INTS2_SAME) \
    X(log, 1, UF_MATH, OP_NONE_, "log", TRIG2) X(log2, 1, UF_MATH, OP_NONE_, "log2", TRIG2) \
    X(log10, 1, UF_MATH, OP_NONE_, "log10", TRIG2) \
    X(isnan, 1, UF_ISNAN, OP_NONE_, NULL, "?->? " INTS1("?") " f->? d->? F->? D->?") \
    X(conjugate, 1, UF_CONJUGATE, OP_NONE_, NULL, "b->b B->B h->h H->H i->i I->I l->l L->L q->q Q->Q " TRIG) \
    X(divide, 2, UF_DIVIDE, OP_NONE_, NULL, "ff->f dd->d FF->F DD->D")

enum {
#define X(name, nin, kind, op, math, loops) UFUNC_##name,
    UFUNC_LIST(X)
#undef X
};

static const Ufunc ufuncs[] = {
#define X(name, nin, kind, op, math, loops) {#name, nin, kind, op, math, loops},
    UFUNC_LIST(X)
#undef X
};

const Ufunc *ufunc_of(const Entity *e) { return &ufuncs[e->op]; }

/* A loop's letter as Numba's type (from_dtype; 'l' and 'q' are both int64). */
static Type *loop_type(char c) {
    switch (c) {
    case '?': return &ty_bool;
    case 'b': return &ty_int8;
    case 'B': return &ty_uint8;
    case 'h': return &ty_int16;
    case 'H': return &ty_uint16;
    case 'i': return &ty_int32;
    case 'I': return &ty_uint32;
    case 'l': case 'q': return &ty_int64;
    case 'L': case 'Q': return &ty_uint64;
    case 'f': return &ty_float32;
    case 'd': return &ty_float64;
    case 'F': return &ty_complex64;
    default: return &ty_complex128;
    }
}

/* np.can_cast(from, to, "safe") on scalar types; with mixed int and float
 * operands any int goes to any float or complex (numba's ufunc_can_cast). */
static bool ufunc_can_cast(const Type *from, const Type *to, bool mixed) {
    if (from->kind == TY_BOOL) return true;
    if (to->kind == TY_BOOL) return false;
    int to_bits = to->kind == TY_COMPLEX ? to->bits / 2 : to->bits;
    switch (from->kind) {
    case TY_INT:
        if (to->kind == TY_INT)
            return from->is_signed == to->is_signed ? to->bits >= from->bits : !from->is_signed && to->bits > from->bits;
        return mixed || to_bits >= (from->bits <= 8 ? 16 : from->bits == 16 ? 32 : 64);
    case TY_FLOAT: return to->kind != TY_INT && to_bits >= from->bits;
    default: return to->kind == TY_COMPLEX && to->bits >= from->bits;
    }
}

/* numba's ufunc_find_matching_loop: the first loop of NumPy's list that
 * every operand casts to; its types into ins and out. */
static bool ufunc_find_loop(const Ufunc *u, Type *const *args, Type **ins, Type **out) {
    bool ints = false, floats = false;
    for (int i = 0; i < u->nin; i++) {
        ints = ints || args[i]->kind == TY_INT;
        floats = floats || args[i]->kind == TY_FLOAT || args[i]->kind == TY_COMPLEX;
    }
    for (const char *l = u->loops; *l; l += l[u->nin + 3] ? u->nin + 4 : u->nin + 3) {
        bool fits = true;
        for (int i = 0; i < u->nin && fits; i++) fits = ufunc_can_cast(args[i], loop_type(l[i]), ints && floats);
        if (!fits) continue;
        for (int i = 0; i < u->nin; i++) ins[i] = loop_type(l[i]);
        *out = loop_type(l[u->nin + 2]);
        return true;
    }
    return false;
}

/* Whether pykc computes the ufunc's loop on complex numbers as numba-cuda
 * does: the math, division and ordering loops of complex numbers are
 * NumPy's own algorithms, which pykc does not have. */
static bool ufunc_complex_ok(const Ufunc *u) {
    switch (u->kind) {
    case UF_LOGICAL: case UF_LOGICAL_NOT: case UF_ISNAN: case UF_CONJUGATE: return true;
    case UF_COMPARE: return u->op == OP_EQ || u->op == OP_NE;
    default: return false;
    }
}

/* numpy.sin(x), numpy.maximum(a, b) on scalars: numba's Numpy_rules_ufunc,
 * the loop NumPy would choose, computed as numba-cuda's target computes it. */
static Type *type_ufunc(Sema *s, Node *call, const Entity *e) {
    const Ufunc *u = ufunc_of(e);
    if (call->kwarg_len == 0 && nargs(call) == u->nin + 1) {
        sema_error(s, call->items[u->nin]->span, "%s with an explicit output array is not supported yet", e->path);
        return &ty_error;
    }
    if (!want_args(s, call, e, u->nin, u->nin)) return &ty_error;
    Type *args[2], *ins[2], *out;
    for (int i = 0; i < u->nin; i++) {
        args[i] = type_strip(arg_type(call, i));
        if (!is_scalar(args[i]) || args[i] == &ty_float16) {
            sema_error(s, call->items[i]->span, "%s of %s is not supported: %s", e->path, sema_type_name(s, args[i]),
                       args[i] == &ty_float16 ? "numba-cuda has no float16 loops of NumPy's ufuncs"
                       : args[i]->kind == TY_ARRAY ? "on arrays a ufunc allocates its result, which kernels cannot"
                                                   : "a ufunc takes numbers");
            return &ty_error;
        }
    }
    if (!ufunc_find_loop(u, args, ins, &out)) {
        sema_error(s, call->span, "%s has no loop for (%s)", e->path, sema_arg_types(s, call));
        return &ty_error;
    }
    if (ins[0]->kind == TY_COMPLEX && !ufunc_complex_ok(u)) {
        sema_error(s, call->span, "%s of complex numbers is not supported yet", e->path);
        return &ty_error;
    }
    call->casts = ARENA_ARRAY(sema_arena(s), Type *, u->nin);
    for (int i = 0; i < u->nin; i++) call->casts[i] = ins[i];
    return out;
}

/* The ufuncs numba-cuda types but cannot compile: its CUDA target has no
 * implementation of them (the lowering fails with a KeyError). */
static Type *type_ufunc_uncompiled(Sema *s, Node *call, const Entity *e) {
    sema_error(s, call->span, "%s is not supported in kernels: numba-cuda types it, but its CUDA target has no "
               "implementation of it; use %s", e->path, e->lower_name);
    return &ty_error;
}

/* ---- the operator module ---------------------------------------------------------- */

/* Numba types operator.add(a, b) as it types a + b (the operator is that
 * function), so each rule below turns the call into the expression it
 * stands for, operands in place, and types that. The node keeps the
 * entity, which tells sema that CPython did not fold it. */
static Node **operands(Sema *s, Node *call, int n) {
    Node **items = ARENA_ARRAY(sema_arena(s), Node *, n);
    memcpy(items, call->items, sizeof(Node *) * (size_t)n);
    return items;
}

static Type *rewritten(Sema *s, Node *call, NodeKind kind, Op op) {
    call->kind = kind;
    call->op = op;
    call->func = NULL;
    return sema_type_rewritten(s, call);
}

static Type *type_operator_binary(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    call->lhs = call->items[0];
    call->rhs = call->items[1];
    call->inplace = e->lower_name != NULL;
    return rewritten(s, call, ND_BINOP, (Op)e->op);
}

static Type *type_operator_unary(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 1, 1)) return &ty_error;
    call->rhs = call->items[0];
    return rewritten(s, call, ND_UNARY, (Op)e->op);
}

/* lt, is_, contains(a, b) (which is b in a): a comparison of two operands */
static Type *type_operator_compare(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    Node **items = operands(s, call, 2);
    if (e->op == OP_IN) {
        Node *t = items[0];
        items[0] = items[1];
        items[1] = t;
    }
    call->items = items;
    call->ops = ARENA_NEW(sema_arena(s), Op);
    call->ops[0] = (Op)e->op;
    return rewritten(s, call, ND_COMPARE, (Op)e->op);
}

static Type *type_operator_getitem(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 2, 2)) return &ty_error;
    call->lhs = call->items[0];
    call->rhs = call->items[1];
    return rewritten(s, call, ND_SUBSCRIPT, OP_NONE_);
}

/* setitem(a, i, v) stores as a[i] = v does: its target, a[i], is a node of
 * its own (the call's lhs), typed as an assignment's. */
static Type *type_operator_setitem(Sema *s, Node *call, const Entity *e) {
    if (!want_args(s, call, e, 3, 3)) return &ty_error;
    if (!call->lhs) {
        call->lhs = node_new(sema_arena(s), ND_SUBSCRIPT, span_join(call->items[0]->span, call->items[1]->span));
        call->lhs->lhs = call->items[0];
        call->lhs->rhs = call->items[1];
    }
    sema_assign_item(s, call->lhs, arg_type(call, 2), call->items[2]->span);
    return call->lhs->ty && call->lhs->ty->kind == TY_ERROR ? &ty_error : &ty_none;
}

/* abs and truth: numba-cuda has no implementation of them for numbers
 * (truth of a bool is the bool, as bool() gives it). */
static Type *type_operator_refused(Sema *s, Node *call, const Entity *e) {
    if (e->op == OP_NOT && nargs(call) == 1 && type_strip(arg_type(call, 0)) == &ty_bool) {
        call->entity = entity_lookup("builtins.bool");
        return call->entity->type_call(s, call, call->entity);
    }
    sema_error(s, call->span, "%s(%s) is not supported: numba-cuda has no implementation of it%s", e->path,
               sema_arg_types(s, call), e->op == OP_NOT ? "; use bool()" : "; use abs()");
    return &ty_error;
}

/* cuda.fp16.atomicAdd: numba-cuda types it atomicAdd(float16*, float16), and
 * a kernel has no way to make that pointer from an array, so every call of
 * it fails to type there; cuda.atomic.add has no float16 either. */
static Type *type_fp16_atomic_add(Sema *s, Node *call, const Entity *e) {
    sema_error(s, call->span, "%s(%s) is not supported: numba-cuda types it only as atomicAdd(float16*, float16), "
               "and a kernel cannot take that pointer from an array", e->path, sema_arg_types(s, call));
    return &ty_error;
}

/* ---- the table ------------------------------------------------------------------ */

#define MODULE(path) {path, ENT_MODULE, NULL, NULL, 0, NULL, LW_NONE, 0, NULL}
#define DTYPE(path, t) {path, ENT_DTYPE, NULL, NULL, 0, &ty_##t, LW_CAST, 0, NULL}
#define CASES(path, cases, lw, op) {path, ENT_FUNCTION, NULL, cases, N_(cases), NULL, lw, op, NULL}
#define RULE(path, fn, type, lw, op) {path, ENT_FUNCTION, fn, NULL, 0, type, lw, op, NULL}
#define SPECIAL(path, kind, op) {path, kind, NULL, NULL, 0, &ty_int32, LW_SPECIAL, op, NULL}
/* math.NAME, lowered as the library's function lib (op MATH_CALL) or by op */
#define MATH_AS(name, cases, op, lib) {"math." name, ENT_FUNCTION, NULL, cases, N_(cases), NULL, LW_MATH, op, lib}
#define MATH(name, cases) MATH_AS(name, cases, MATH_CALL, name)
#define FP16(name, cases, op) CASES("numba.cuda.fp16." name, cases, LW_FP16, op)
#define BF16(name, cases, op) CASES("numba.cuda.bf16." name, cases, LW_BF16, op)
#define FP16_VIA(name, lib) {"numba.cuda.fp16." name, ENT_FUNCTION, NULL, fp16_unary, 1, NULL, LW_FP16, \
                             FP16_VIA_FLOAT32, lib}
#define CMATH(name, cases) {"cmath." name, ENT_FUNCTION, type_cmath_declared, cases, N_(cases), NULL, LW_OWN, 0, name}
#define CMATH_OVERLOAD(name, rule) {"cmath." name, ENT_FUNCTION, rule, NULL, 0, NULL, LW_OWN, 0, name}
#define RANDOM_STATES(name, n) {"numba.cuda.random." name, ENT_FUNCTION, type_random, NULL, 0, &ty_xoroshiro128p, \
                               LW_OWN, n, name}
#define RANDOM_VALUES(name, n) {"numba.cuda.random." name, ENT_FUNCTION, type_random, NULL, 0, NULL, LW_OWN, n, name}
#define FLOAT_CONSTANTS(module) \
    {module ".pi", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "3.141592653589793"}, \
    {module ".e", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "2.718281828459045"}, \
    {module ".tau", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "6.283185307179586"}, \
    {module ".inf", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "inf"}, \
    {module ".nan", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "nan"}
#define NUMPY_AND_NUMBA(t) DTYPE("numba." #t, t), DTYPE("numpy." #t, t)
#define VECTOR(name, t) {"numba.cuda." name, ENT_FUNCTION, type_vector_ctor, NULL, 0, &ty_##t, LW_VECTOR, 0, NULL}
#define VECTORS(base) VECTOR(#base "x1", base##x1), VECTOR(#base "x2", base##x2), \
                      VECTOR(#base "x3", base##x3), VECTOR(#base "x4", base##x4)
#define VECTOR_ALIASES(alias, base) VECTOR(#alias "1", base##x1), VECTOR(#alias "2", base##x2), \
                                    VECTOR(#alias "3", base##x3), VECTOR(#alias "4", base##x4)

#define OPERATOR(name, rule, op) {"operator." name, ENT_FUNCTION, rule, NULL, 0, NULL, LW_NONE, op, NULL}
#define OPERATOR_BINARY(name, op) OPERATOR(name, type_operator_binary, op), \
    {"operator.i" name, ENT_FUNCTION, type_operator_binary, NULL, 0, NULL, LW_NONE, op, "inplace"}

#define UFUNC_ALIAS(alias, name) {"numpy." alias, ENT_FUNCTION, type_ufunc, NULL, 0, NULL, LW_UFUNC, UFUNC_##name, NULL}
#define UNCOMPILED(name, instead) {"numpy." name, ENT_FUNCTION, type_ufunc_uncompiled, NULL, 0, NULL, LW_NONE, 0, instead}

#define EXCEPTION(name) {"builtins." name, ENT_EXCEPTION, NULL, NULL, 0, NULL, LW_NONE, 0, NULL}

static const Entity entities[] = {
    MODULE("numba"), MODULE("numba.cuda"), MODULE("numba.cuda.atomic"), MODULE("numba.cuda.shared"),
    MODULE("numba.cuda.local"), MODULE("numba.cuda.const"), MODULE("numba.cuda.random"),
    MODULE("math"), MODULE("numpy"), MODULE("numba.cuda.fp16"), MODULE("numba.cuda.libdevice"),
    MODULE("numba.cuda.cg"), MODULE("cmath"), MODULE("operator"), MODULE("numba.cuda.bf16"),
    MODULE("numba.cuda.types"),
    MODULE("enum"), MODULE("collections"), MODULE("typing"),

    /* numba.types' tuple types, in annotations and signatures */
    {"numba.UniTuple", ENT_TUPLE_TYPE, NULL, NULL, 0, NULL, LW_NONE, TUPLE_TYPE_UNI, NULL},
    {"numba.Tuple", ENT_TUPLE_TYPE, NULL, NULL, 0, NULL, LW_NONE, TUPLE_TYPE_HETEROGENEOUS, NULL},

    /* the exceptions a kernel raises (under debug=True, reported by libpykrt) */
    EXCEPTION("ArithmeticError"), EXCEPTION("AssertionError"), EXCEPTION("AttributeError"),
    EXCEPTION("Exception"), EXCEPTION("IndexError"), EXCEPTION("KeyError"), EXCEPTION("LookupError"),
    EXCEPTION("NotImplementedError"), EXCEPTION("OverflowError"), EXCEPTION("RuntimeError"),
    EXCEPTION("TypeError"), EXCEPTION("ValueError"), EXCEPTION("ZeroDivisionError"),

    /* what a module-level class derives from, or is made by (sema's define_class) */
    {"enum.Enum", ENT_CLASS, NULL, NULL, 0, NULL, LW_NONE, CLASS_ENUM, NULL},
    {"enum.IntEnum", ENT_CLASS, NULL, NULL, 0, NULL, LW_NONE, CLASS_INT_ENUM, NULL},
    {"typing.NamedTuple", ENT_CLASS, NULL, NULL, 0, NULL, LW_NONE, CLASS_NAMED_TUPLE, NULL},
    {"collections.namedtuple", ENT_CLASS_FACTORY, NULL, NULL, 0, NULL, LW_NONE, CLASS_NAMED_TUPLE, NULL},

    NUMPY_AND_NUMBA(int8), NUMPY_AND_NUMBA(int16), NUMPY_AND_NUMBA(int32), NUMPY_AND_NUMBA(int64),
    NUMPY_AND_NUMBA(uint8), NUMPY_AND_NUMBA(uint16), NUMPY_AND_NUMBA(uint32), NUMPY_AND_NUMBA(uint64),
    NUMPY_AND_NUMBA(float16), NUMPY_AND_NUMBA(float32), NUMPY_AND_NUMBA(float64),
    NUMPY_AND_NUMBA(complex64), NUMPY_AND_NUMBA(complex128),
    DTYPE("numba.intp", int64), DTYPE("numpy.intp", int64), DTYPE("numba.uintp", uint64), DTYPE("numpy.uintp", uint64),
    DTYPE("numba.boolean", bool), DTYPE("numba.bool_", bool), DTYPE("numpy.bool_", bool),
    DTYPE("numba.double", float64), DTYPE("numpy.double", float64),
    /* numba's other names of its scalar types (numba.types and numba have
     * each; numba.types alone has f2) */
    DTYPE("numba.b1", bool), DTYPE("numba.bool", bool), DTYPE("numba.i1", int8), DTYPE("numba.i2", int16),
    DTYPE("numba.i4", int32), DTYPE("numba.i8", int64), DTYPE("numba.u1", uint8), DTYPE("numba.u2", uint16),
    DTYPE("numba.u4", uint32), DTYPE("numba.u8", uint64), DTYPE("numba.f2", float16), DTYPE("numba.f4", float32),
    DTYPE("numba.f8", float64), DTYPE("numba.c8", complex64), DTYPE("numba.c16", complex128),
    DTYPE("numba.char", int8), DTYPE("numba.uchar", uint8), DTYPE("numba.byte", uint8), DTYPE("numba.short", int16),
    DTYPE("numba.ushort", uint16), DTYPE("numba.intc", int32), DTYPE("numba.uintc", uint32),
    DTYPE("numba.int_", int64), DTYPE("numba.uint", uint64), DTYPE("numba.long_", int64), DTYPE("numba.ulong", uint64),
    DTYPE("numba.longlong", int64), DTYPE("numba.ulonglong", uint64), DTYPE("numba.size_t", uint64),
    DTYPE("numba.ssize_t", int64),
    DTYPE("numba.void", none), DTYPE("numba.none", none),

    {"numpy.dtype", ENT_FUNCTION, type_np_dtype, NULL, 0, NULL, LW_COMPILE_TIME, 0, NULL},
    {"numba.from_dtype", ENT_FUNCTION, type_from_dtype, NULL, 0, NULL, LW_COMPILE_TIME, 0, NULL},

    /* The decorator itself: sema reads it, nothing lowers it. */
    {"numba.cuda.jit", ENT_FUNCTION, NULL, NULL, 0, NULL, LW_NONE, 0, NULL},
    /* An external device function's declaration, read where a module-level
     * assignment calls it (sema's define_extern). */
    {"numba.cuda.declare_device", ENT_DECLARE_DEVICE, NULL, NULL, 0, NULL, LW_NONE, 0, NULL},

    SPECIAL("numba.cuda.threadIdx", ENT_DIM3, SV_THREAD_IDX),
    SPECIAL("numba.cuda.blockIdx", ENT_DIM3, SV_BLOCK_IDX),
    SPECIAL("numba.cuda.blockDim", ENT_DIM3, SV_BLOCK_DIM),
    SPECIAL("numba.cuda.gridDim", ENT_DIM3, SV_GRID_DIM),
    SPECIAL("numba.cuda.laneid", ENT_VALUE, SV_LANE_ID),
    SPECIAL("numba.cuda.warpsize", ENT_VALUE, SV_WARP_SIZE),
    RULE("numba.cuda.grid", type_grid, NULL, LW_GRID, 0),
    RULE("numba.cuda.gridsize", type_grid, NULL, LW_GRIDSIZE, 0),

    RULE("numba.cuda.syncthreads", type_no_args, &ty_none, LW_BARRIER, SYNC_THREADS),
    RULE("numba.cuda.syncthreads_count", type_barrier_pred, NULL, LW_BLOCK_VOTE, VOTE_COUNT),
    RULE("numba.cuda.syncthreads_and", type_barrier_pred, NULL, LW_BLOCK_VOTE, VOTE_AND),
    RULE("numba.cuda.syncthreads_or", type_barrier_pred, NULL, LW_BLOCK_VOTE, VOTE_OR),
    CASES("numba.cuda.syncwarp", syncwarp_cases, LW_BARRIER, SYNC_WARP),
    CASES("numba.cuda.nanosleep", nanosleep_cases, LW_BARRIER, NANOSLEEP),
    RULE("numba.cuda.threadfence", type_no_args, &ty_none, LW_BARRIER, FENCE_DEVICE),
    RULE("numba.cuda.threadfence_block", type_no_args, &ty_none, LW_BARRIER, FENCE_BLOCK),
    RULE("numba.cuda.threadfence_system", type_no_args, &ty_none, LW_BARRIER, FENCE_SYSTEM),

    RULE("numba.cuda.shared.array", type_shared_array, NULL, LW_SHARED_ARRAY, 0),
    RULE("numba.cuda.local.array", type_local_array, NULL, LW_LOCAL_ARRAY, 0),
    RULE("numba.cuda.const.array_like", type_const_array, NULL, LW_CONST_ARRAY, 0),

    RULE("numba.cuda.atomic.add", type_atomic, NULL, LW_ATOMIC, ATOMIC_ADD),
    RULE("numba.cuda.atomic.sub", type_atomic, NULL, LW_ATOMIC, ATOMIC_SUB),
    RULE("numba.cuda.atomic.max", type_atomic, NULL, LW_ATOMIC, ATOMIC_MAX),
    RULE("numba.cuda.atomic.min", type_atomic, NULL, LW_ATOMIC, ATOMIC_MIN),
    RULE("numba.cuda.atomic.nanmax", type_atomic, NULL, LW_ATOMIC, ATOMIC_NANMAX),
    RULE("numba.cuda.atomic.nanmin", type_atomic, NULL, LW_ATOMIC, ATOMIC_NANMIN),
    RULE("numba.cuda.atomic.and_", type_atomic, NULL, LW_ATOMIC, ATOMIC_AND),
    RULE("numba.cuda.atomic.or_", type_atomic, NULL, LW_ATOMIC, ATOMIC_OR),
    RULE("numba.cuda.atomic.xor", type_atomic, NULL, LW_ATOMIC, ATOMIC_XOR),
    RULE("numba.cuda.atomic.exch", type_atomic, NULL, LW_ATOMIC, ATOMIC_EXCH),
    RULE("numba.cuda.atomic.inc", type_atomic, NULL, LW_ATOMIC, ATOMIC_INC),
    RULE("numba.cuda.atomic.dec", type_atomic, NULL, LW_ATOMIC, ATOMIC_DEC),
    RULE("numba.cuda.atomic.cas", type_cas, NULL, LW_ATOMIC, ATOMIC_CAS),
    RULE("numba.cuda.atomic.compare_and_swap", type_cas, NULL, LW_ATOMIC, ATOMIC_CAS_FIRST),

    CASES("numba.cuda.popc", popc_cases, LW_BITOP, BIT_POPC),
    CASES("numba.cuda.clz", popc_cases, LW_BITOP, BIT_CLZ),
    CASES("numba.cuda.ffs", ffs_cases, LW_BITOP, BIT_FFS),
    CASES("numba.cuda.brev", brev_cases, LW_BITOP, BIT_BREV),
    CASES("numba.cuda.fma", fma_cases, LW_FMA, 0),
    {"numba.cuda.cbrt", ENT_FUNCTION, NULL, cbrt_cases, N_(cbrt_cases), NULL, LW_MATH, MATH_CALL, "cbrt"},
    RULE("numba.cuda.selp", type_selp, NULL, LW_SELP, 0),

    VECTORS(int8), VECTORS(int16), VECTORS(int32), VECTORS(int64),
    VECTORS(uint8), VECTORS(uint16), VECTORS(uint32), VECTORS(uint64),
    VECTORS(float32), VECTORS(float64),
    /* stubs.py's C names, with NumPy's widths on 64-bit Linux (long is 64-bit) */
    VECTOR_ALIASES(char, int8), VECTOR_ALIASES(short, int16), VECTOR_ALIASES(int, int32),
    VECTOR_ALIASES(long, int64), VECTOR_ALIASES(longlong, int64),
    VECTOR_ALIASES(uchar, uint8), VECTOR_ALIASES(ushort, uint16), VECTOR_ALIASES(uint, uint32),
    VECTOR_ALIASES(ulong, uint64), VECTOR_ALIASES(ulonglong, uint64),
    VECTOR_ALIASES(float, float32), VECTOR_ALIASES(double, float64),

    RULE("numba.cuda.cg.this_grid", type_grid_group, &ty_grid_group, LW_GRID_GROUP, GRID_THIS),
    RULE("GridGroup.sync", type_grid_group, &ty_int32, LW_GRID_GROUP, GRID_SYNC),

    /* loads and stores with PTX's cache operators */
    RULE("numba.cuda.ldca", type_cache_load, NULL, LW_CACHE_LOAD, CACHE_CA),
    RULE("numba.cuda.ldcg", type_cache_load, NULL, LW_CACHE_LOAD, CACHE_CG),
    RULE("numba.cuda.ldcs", type_cache_load, NULL, LW_CACHE_LOAD, CACHE_CS),
    RULE("numba.cuda.ldlu", type_cache_load, NULL, LW_CACHE_LOAD, CACHE_LU),
    RULE("numba.cuda.ldcv", type_cache_load, NULL, LW_CACHE_LOAD, CACHE_CV),
    RULE("numba.cuda.stcg", type_cache_store, NULL, LW_CACHE_STORE, CACHE_CG),
    RULE("numba.cuda.stcs", type_cache_store, NULL, LW_CACHE_STORE, CACHE_CS),
    RULE("numba.cuda.stwb", type_cache_store, NULL, LW_CACHE_STORE, CACHE_WB),
    RULE("numba.cuda.stwt", type_cache_store, NULL, LW_CACHE_STORE, CACHE_WT),

    RULE("numba.cuda.activemask", type_no_args, &ty_uint32, LW_WARP, WARP_ACTIVEMASK),
    RULE("numba.cuda.lanemask_lt", type_no_args, &ty_uint32, LW_WARP, WARP_LANEMASK_LT),
    RULE("numba.cuda.shfl_sync", type_shfl, NULL, LW_WARP, WARP_SHFL_IDX),
    RULE("numba.cuda.shfl_up_sync", type_shfl, NULL, LW_WARP, WARP_SHFL_UP),
    RULE("numba.cuda.shfl_down_sync", type_shfl, NULL, LW_WARP, WARP_SHFL_DOWN),
    RULE("numba.cuda.shfl_xor_sync", type_shfl, NULL, LW_WARP, WARP_SHFL_XOR),
    CASES("numba.cuda.all_sync", vote_cases, LW_WARP, WARP_ALL),
    CASES("numba.cuda.any_sync", vote_cases, LW_WARP, WARP_ANY),
    CASES("numba.cuda.eq_sync", vote_cases, LW_WARP, WARP_EQ),
    CASES("numba.cuda.ballot_sync", ballot_cases, LW_WARP, WARP_BALLOT),
    CASES("numba.cuda.match_any_sync", match_any_cases, LW_WARP, WARP_MATCH_ANY),
    CASES("numba.cuda.match_all_sync", match_all_cases, LW_WARP, WARP_MATCH_ALL),

    /* cuda.fp16: float16 intrinsics, lowered on half values */
    FP16("hadd", fp16_binary, FP16_ADD), FP16("hsub", fp16_binary, FP16_SUB), FP16("hmul", fp16_binary, FP16_MUL),
    FP16("hdiv", fp16_binary, FP16_DIV), FP16("hmax", fp16_binary, FP16_MAX), FP16("hmin", fp16_binary, FP16_MIN),
    FP16("heq", fp16_compare, FP16_EQ), FP16("hne", fp16_compare, FP16_NE), FP16("hgt", fp16_compare, FP16_GT),
    FP16("hge", fp16_compare, FP16_GE), FP16("hlt", fp16_compare, FP16_LT), FP16("hle", fp16_compare, FP16_LE),
    FP16("hneg", fp16_unary, FP16_NEG), FP16("habs", fp16_unary, FP16_ABS), FP16("hfma", fp16_ternary, FP16_FMA),
    FP16("hrcp", fp16_unary, FP16_RCP),
    RULE("numba.cuda.fp16.atomicAdd", type_fp16_atomic_add, NULL, LW_NONE, 0),
    FP16_VIA("hsqrt", "sqrt"), FP16_VIA("hrsqrt", "rsqrt"), FP16_VIA("hsin", "sin"), FP16_VIA("hcos", "cos"),
    FP16_VIA("htanh", "tanh"), FP16_VIA("htanh_approx", "tanh_approx"), FP16_VIA("hexp", "exp"), FP16_VIA("hexp2", "exp2"),
    FP16_VIA("hexp10", "exp10"), FP16_VIA("hlog", "log"), FP16_VIA("hlog2", "log2"), FP16_VIA("hlog10", "log10"),
    FP16_VIA("hrint", "rint"), FP16_VIA("htrunc", "trunc"), FP16_VIA("hceil", "ceil"), FP16_VIA("hfloor", "floor"),

    /* cuda.bf16 (sm_80 and newer): the type, arithmetic, comparisons, conversions */
    DTYPE("numba.cuda.bf16.bfloat16", bfloat16), DTYPE("numba.cuda.types.bfloat16", bfloat16),
    BF16("hadd", bf16_binary, BF16_ADD), BF16("hadd_rn", bf16_binary, BF16_ADD),
    BF16("hsub", bf16_binary, BF16_SUB), BF16("hsub_rn", bf16_binary, BF16_SUB),
    BF16("hmul", bf16_binary, BF16_MUL), BF16("hmul_rn", bf16_binary, BF16_MUL),
    BF16("hdiv", bf16_binary, BF16_DIV), BF16("hfma", bf16_ternary, BF16_FMA),
    BF16("hneg", bf16_unary, BF16_NEG), BF16("habs", bf16_unary, BF16_ABS),
    BF16("hmax", bf16_binary, BF16_MAX), BF16("hmin", bf16_binary, BF16_MIN),
    BF16("hmax_nan", bf16_binary, BF16_MAX_NAN), BF16("hmin_nan", bf16_binary, BF16_MIN_NAN),
    BF16("heq", bf16_compare, BF16_EQ), BF16("hne", bf16_compare, BF16_NE), BF16("hlt", bf16_compare, BF16_LT),
    BF16("hle", bf16_compare, BF16_LE), BF16("hgt", bf16_compare, BF16_GT), BF16("hge", bf16_compare, BF16_GE),
    BF16("hequ", bf16_compare, BF16_EQU), BF16("hneu", bf16_compare, BF16_NEU), BF16("hltu", bf16_compare, BF16_LTU),
    BF16("hleu", bf16_compare, BF16_LEU), BF16("hgtu", bf16_compare, BF16_GTU), BF16("hgeu", bf16_compare, BF16_GEU),
    BF16("hisnan", bf16_predicate, BF16_ISNAN),
    BF16("bfloat162float", bf16_to_float, BF16_CONVERT), BF16("float2bfloat16", bf16_from_float, BF16_CONVERT),
    BF16("float2bfloat16_rn", bf16_from_float, BF16_CONVERT), BF16("double2bfloat16", bf16_from_double, BF16_CONVERT),
    BF16("bfloat16_as_short", bf16_as_short, BF16_BITS), BF16("bfloat16_as_ushort", bf16_as_ushort, BF16_BITS),
    BF16("short_as_bfloat16", bf16_from_short, BF16_BITS), BF16("ushort_as_bfloat16", bf16_from_ushort, BF16_BITS),

    MATH("sin", math_unary), MATH("cos", math_unary), MATH("tan", math_unary),
    MATH("asin", math_unary), MATH("acos", math_unary), MATH("atan", math_unary),
    MATH("sinh", math_unary), MATH("cosh", math_unary), MATH("tanh", math_unary),
    MATH("asinh", math_unary), MATH("acosh", math_unary), MATH("atanh", math_unary),
    MATH("exp", math_unary), MATH("exp2", math_unary), MATH("expm1", math_unary),
    MATH("log", math_unary), MATH("log2", math_unary), MATH("log10", math_unary), MATH("log1p", math_unary),
    MATH("sqrt", math_unary), MATH("fabs", math_unary), MATH("erf", math_unary), MATH("erfc", math_unary),
    MATH_AS("gamma", math_unary, MATH_CALL, "tgamma"), MATH("lgamma", math_unary),
    MATH_AS("degrees", math_unary, MATH_DEGREES, NULL), MATH_AS("radians", math_unary, MATH_RADIANS, NULL),
    MATH("atan2", math_binary_int), MATH("hypot", math_binary_int), MATH("fmod", math_binary),
    MATH("remainder", math_binary),
    /* numba-cuda's floor, ceil and trunc return floats (cudamath.py), not
     * the ints of Numba's CPU target */
    MATH("floor", math_unary), MATH("ceil", math_unary), MATH("trunc", math_unary),
    MATH("copysign", math_binary), MATH("nextafter", math_binary), MATH_AS("pow", math_pow, MATH_POW, "pow"),
    MATH("ldexp", math_ldexp),
    MATH_AS("frexp", math_frexp, MATH_FREXP, "frexp"), MATH_AS("modf", math_modf, MATH_MODF, "modf"),
    FLOAT_CONSTANTS("math"),
    MATH_AS("isnan", math_predicate, MATH_ISNAN, NULL),
    MATH_AS("isinf", math_predicate, MATH_ISINF, NULL),
    MATH_AS("isfinite", math_predicate, MATH_ISFINITE, NULL),

    /* cmath: cmathdecl.py's declarations, then cmathimpl.py's overloads */
    CMATH("acos", cmath_unary), CMATH("asin", cmath_unary), CMATH("asinh", cmath_unary),
    CMATH("atan", cmath_unary), CMATH("atanh", cmath_unary), CMATH("cos", cmath_unary),
    CMATH("exp", cmath_unary), CMATH("sin", cmath_unary), CMATH("sqrt", cmath_unary),
    CMATH("tan", cmath_unary), CMATH("log", cmath_log),
    CMATH("isnan", cmath_predicate), CMATH("isinf", cmath_predicate), CMATH("isfinite", cmath_predicate),
    CMATH_OVERLOAD("acosh", type_cmath_overload), CMATH_OVERLOAD("cosh", type_cmath_overload),
    CMATH_OVERLOAD("sinh", type_cmath_overload), CMATH_OVERLOAD("tanh", type_cmath_overload),
    CMATH_OVERLOAD("log10", type_cmath_overload), CMATH_OVERLOAD("phase", type_cmath_overload),
    CMATH_OVERLOAD("polar", type_cmath_overload), CMATH_OVERLOAD("rect", type_cmath_rect),
    FLOAT_CONSTANTS("cmath"),

    /* numba.cuda.random: the device functions of random.py, then its host
     * functions, its dtype and its constants */
    RANDOM_STATES("init_xoroshiro128p_state", 3), RANDOM_STATES("xoroshiro128p_next", 2),
    RANDOM_STATES("xoroshiro128p_jump", 2), RANDOM_STATES("xoroshiro128p_uniform_float32", 2),
    RANDOM_STATES("xoroshiro128p_uniform_float64", 2), RANDOM_STATES("xoroshiro128p_normal_float32", 2),
    RANDOM_STATES("xoroshiro128p_normal_float64", 2), RANDOM_STATES("init_xoroshiro128p_states_cpu", 3),
    RANDOM_VALUES("rotl", 2), RANDOM_VALUES("uint64_to_unit_float64", 1), RANDOM_VALUES("uint64_to_unit_float32", 1),
    RULE("numba.cuda.random.create_xoroshiro128p_states", type_random_host, NULL, LW_NONE, 0),
    RULE("numba.cuda.random.init_xoroshiro128p_states", type_random_host, NULL, LW_NONE, 0),
    DTYPE("numba.cuda.random.xoroshiro128p_dtype", xoroshiro128p),
    DTYPE("numba.cuda.random.xoroshiro128p_type", xoroshiro128p),
    {"numba.cuda.random.TWO_PI_FLOAT32", ENT_VALUE, NULL, NULL, 0, &ty_float32, LW_CONSTANT, 0, "6.2831854820251465"},
    {"numba.cuda.random.TWO_PI_FLOAT64", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "6.283185307179586"},

    /* methods of scalars; sema types them from the receiver */
    {"method.conjugate", ENT_FUNCTION, NULL, NULL, 0, NULL, LW_BUILTIN, BUILTIN_CONJUGATE, NULL},
    {"method.bit_count", ENT_FUNCTION, NULL, NULL, 0, NULL, LW_BUILTIN, BUILTIN_BIT_COUNT, NULL},

#define LIBDEVICE(name, sig) \
    {"numba.cuda.libdevice." #name, ENT_FUNCTION, type_libdevice, NULL, 0, NULL, LW_LIBDEVICE, 0, sig},
#include "libdevice_funcs.def"
#undef LIBDEVICE

    /* operator: each the operator it names (the i-forms as x op= y) */
    OPERATOR_BINARY("add", OP_ADD), OPERATOR_BINARY("sub", OP_SUB), OPERATOR_BINARY("mul", OP_MUL),
    OPERATOR_BINARY("truediv", OP_DIV), OPERATOR_BINARY("floordiv", OP_FLOORDIV), OPERATOR_BINARY("mod", OP_MOD),
    OPERATOR_BINARY("pow", OP_POW), OPERATOR_BINARY("lshift", OP_LSHIFT), OPERATOR_BINARY("rshift", OP_RSHIFT),
    OPERATOR("and_", type_operator_binary, OP_BITAND), OPERATOR("or_", type_operator_binary, OP_BITOR),
    OPERATOR("xor", type_operator_binary, OP_BITXOR),
    {"operator.iand", ENT_FUNCTION, type_operator_binary, NULL, 0, NULL, LW_NONE, OP_BITAND, "inplace"},
    {"operator.ior", ENT_FUNCTION, type_operator_binary, NULL, 0, NULL, LW_NONE, OP_BITOR, "inplace"},
    {"operator.ixor", ENT_FUNCTION, type_operator_binary, NULL, 0, NULL, LW_NONE, OP_BITXOR, "inplace"},
    OPERATOR("neg", type_operator_unary, OP_NEG), OPERATOR("pos", type_operator_unary, OP_POS),
    OPERATOR("invert", type_operator_unary, OP_INVERT), OPERATOR("not_", type_operator_unary, OP_NOT),
    OPERATOR("lt", type_operator_compare, OP_LT), OPERATOR("le", type_operator_compare, OP_LE),
    OPERATOR("eq", type_operator_compare, OP_EQ), OPERATOR("ne", type_operator_compare, OP_NE),
    OPERATOR("gt", type_operator_compare, OP_GT), OPERATOR("ge", type_operator_compare, OP_GE),
    OPERATOR("is_", type_operator_compare, OP_IS), OPERATOR("is_not", type_operator_compare, OP_ISNOT),
    OPERATOR("contains", type_operator_compare, OP_IN),
    OPERATOR("getitem", type_operator_getitem, 0),
    {"operator.setitem", ENT_FUNCTION, type_operator_setitem, NULL, 0, NULL, LW_SETITEM, 0, NULL},
    OPERATOR("abs", type_operator_refused, OP_NONE_), OPERATOR("truth", type_operator_refused, OP_NOT),

    /* numpy's ufuncs on scalars, NumPy 2's aliases, and those numba-cuda cannot compile */
#define X(name, nin, kind, op, math, loops) \
    {"numpy." #name, ENT_FUNCTION, type_ufunc, NULL, 0, NULL, LW_UFUNC, UFUNC_##name, NULL},
    UFUNC_LIST(X)
#undef X
    UFUNC_ALIAS("acos", arccos), UFUNC_ALIAS("asin", arcsin), UFUNC_ALIAS("atan", arctan),
    UFUNC_ALIAS("atan2", arctan2), UFUNC_ALIAS("acosh", arccosh), UFUNC_ALIAS("asinh", arcsinh),
    UFUNC_ALIAS("atanh", arctanh), UFUNC_ALIAS("bitwise_invert", invert), UFUNC_ALIAS("bitwise_not", invert),
    UFUNC_ALIAS("bitwise_left_shift", left_shift), UFUNC_ALIAS("bitwise_right_shift", right_shift),
    UFUNC_ALIAS("conj", conjugate), UFUNC_ALIAS("true_divide", divide),
    UNCOMPILED("sqrt", "math.sqrt"), UNCOMPILED("exp", "math.exp"), UNCOMPILED("exp2", "math.exp2"),
    UNCOMPILED("expm1", "math.expm1"), UNCOMPILED("log1p", "math.log1p"), UNCOMPILED("cbrt", "cuda.cbrt"),
    UNCOMPILED("absolute", "abs()"), UNCOMPILED("abs", "abs()"), UNCOMPILED("fabs", "math.fabs"),
    UNCOMPILED("floor", "math.floor"), UNCOMPILED("ceil", "math.ceil"), UNCOMPILED("trunc", "math.trunc"),
    UNCOMPILED("rint", "round()"), UNCOMPILED("sign", "a comparison"), UNCOMPILED("power", "**"),
    UNCOMPILED("pow", "**"), UNCOMPILED("float_power", "**"), UNCOMPILED("fmod", "math.fmod"),
    UNCOMPILED("remainder", "%"), UNCOMPILED("mod", "%"), UNCOMPILED("divmod", "divmod()"),
    UNCOMPILED("isinf", "math.isinf"), UNCOMPILED("isfinite", "math.isfinite"), UNCOMPILED("signbit", "math.copysign"),
    UNCOMPILED("add", "+"), UNCOMPILED("subtract", "-"), UNCOMPILED("multiply", "*"), UNCOMPILED("floor_divide", "//"),
    UNCOMPILED("negative", "-x"), UNCOMPILED("positive", "+x"), UNCOMPILED("square", "x * x"),
    UNCOMPILED("reciprocal", "1 / x"), UNCOMPILED("copysign", "math.copysign"),
    UNCOMPILED("nextafter", "math.nextafter"), UNCOMPILED("ldexp", "math.ldexp"), UNCOMPILED("gcd", "a loop"),
    UNCOMPILED("lcm", "a loop"), UNCOMPILED("logaddexp", "math.log and math.exp"),
    UNCOMPILED("logaddexp2", "math.log2 and math.exp2"), UNCOMPILED("spacing", "math.nextafter"),
    {"numpy.pi", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "3.141592653589793"},
    {"numpy.e", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "2.718281828459045"},
    {"numpy.inf", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "inf"},
    {"numpy.nan", ENT_VALUE, NULL, NULL, 0, &ty_float64, LW_CONSTANT, 0, "nan"},

    CASES("builtins.abs", abs_cases, LW_BUILTIN, BUILTIN_ABS),
    RULE("builtins.min", type_minmax, NULL, LW_BUILTIN, BUILTIN_MIN),
    RULE("builtins.max", type_minmax, NULL, LW_BUILTIN, BUILTIN_MAX),
    RULE("builtins.len", type_len, NULL, LW_BUILTIN, BUILTIN_LEN),
    RULE("builtins.sum", type_sum, NULL, LW_BUILTIN, BUILTIN_SUM),
    RULE("numba.cuda.literal_unroll", type_literal_unroll, NULL, LW_BUILTIN, BUILTIN_LITERAL_UNROLL),
    RULE("numba.literal_unroll", type_cpu_literal_unroll, NULL, LW_BUILTIN, BUILTIN_LITERAL_UNROLL),
    CASES("builtins.range", range_cases, LW_RANGE, ITER_RANGE),
    RULE("builtins.enumerate", type_enumerate_call, NULL, LW_RANGE, ITER_ENUMERATE),
    RULE("builtins.zip", type_zip_call, NULL, LW_RANGE, ITER_ZIP),
    RULE("builtins.iter", type_iter_call, NULL, LW_BUILTIN, BUILTIN_ITER),
    RULE("builtins.next", type_next_call, NULL, LW_BUILTIN, BUILTIN_NEXT),
    RULE("builtins.int", type_number_ctor, &ty_int64, LW_BUILTIN, BUILTIN_INT),
    RULE("builtins.float", type_number_ctor, &ty_float64, LW_BUILTIN, BUILTIN_FLOAT),
    RULE("builtins.bool", type_number_ctor, &ty_bool, LW_BUILTIN, BUILTIN_BOOL),
    RULE("builtins.complex", type_number_ctor, &ty_complex128, LW_BUILTIN, BUILTIN_COMPLEX),
    CASES("builtins.round", round_cases, LW_BUILTIN, BUILTIN_ROUND),
    RULE("builtins.divmod", type_divmod, NULL, LW_BUILTIN, BUILTIN_DIVMOD),
    RULE("builtins.pow", type_pow, NULL, LW_BUILTIN, BUILTIN_POW),
    RULE("builtins.print", type_print, NULL, LW_BUILTIN, BUILTIN_PRINT),
    RULE("builtins.breakpoint", type_no_args, &ty_none, LW_BARRIER, BREAKPOINT),
};

/* The table indexed by path (open addressing, built on first use): a lookup
 * costs a hash, not a walk through the hundreds of libdevice and vector
 * names. On a repeated path the first entry wins, as it is inserted first. */
enum { ENTITY_SLOTS = 2048 };
_Static_assert(N_(entities) <= ENTITY_SLOTS / 2, "the entity index must stay at most half full");
static const Entity *entity_index[ENTITY_SLOTS];

static uint32_t path_hash(const char *path) {
    uint32_t h = 2166136261u;
    for (const char *p = path; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h & (ENTITY_SLOTS - 1);
}

const Entity *entity_lookup(const char *path) {
    static bool indexed;
    if (!indexed) {
        for (int i = 0; i < N_(entities); i++) {
            uint32_t h = path_hash(entities[i].path);
            while (entity_index[h]) h = (h + 1) & (ENTITY_SLOTS - 1);
            entity_index[h] = &entities[i];
        }
        indexed = true;
    }
    for (uint32_t h = path_hash(path); entity_index[h]; h = (h + 1) & (ENTITY_SLOTS - 1))
        if (strcmp(entity_index[h]->path, path) == 0) return entity_index[h];
    return NULL;
}

/* Every name each module whose imports pykc checks defines, as Python
 * and numba-cuda define them (module_names.def, generated). */
typedef struct ModuleNames {
    const char *module;
    const char *const *names;
    int count;
} ModuleNames;

#define MODULE_NAMES(m, ...) {m, (const char *const[]){__VA_ARGS__}, N_(((const char *const[]){__VA_ARGS__}))},
static const ModuleNames module_names[] = {
#include "module_names.def"
};
#undef MODULE_NAMES

int entity_module_defines(const char *module, const char *name) {
    for (int i = 0; i < N_(module_names); i++) {
        if (strcmp(module_names[i].module, module) != 0) continue;
        for (int k = 0; k < module_names[i].count; k++)
            if (strcmp(module_names[i].names[k], name) == 0) return 1;
        return 0;
    }
    return -1;
}

const char *entity_modules_defining(Arena *a, const char *name) {
    const char *list = NULL;
    for (int i = 0; i < N_(module_names); i++)
        if (entity_module_defines(module_names[i].module, name) == 1)
            list = list ? arena_printf(a, "%s, %s", list, module_names[i].module) : module_names[i].module;
    return list;
}

const char *entity_module_path(const char *import_name) {
    static const char *const known[] = {"numba", "numba.cuda", "numba.cuda.random", "numba.cuda.fp16", "numba.cuda.bf16",
                                        "numba.cuda.types", "numba.cuda.libdevice", "numba.types",
                                        "math", "cmath", "numpy", "operator", "enum", "collections", "typing"};
    for (int i = 0; i < N_(known); i++)
        if (strcmp(known[i], import_name) == 0) return known[i];
    return NULL;
}

Attr attr_lookup(const char *name) {
    static const struct { const char *name; Attr attr; } attrs[] = {
        {"shape", ATTR_SHAPE}, {"strides", ATTR_STRIDES}, {"ndim", ATTR_NDIM}, {"size", ATTR_SIZE},
        {"itemsize", ATTR_ITEMSIZE}, {"nbytes", ATTR_NBYTES}, {"T", ATTR_T}, {"dtype", ATTR_DTYPE},
        {"real", ATTR_REAL}, {"imag", ATTR_IMAG}, {"x", ATTR_X}, {"y", ATTR_Y}, {"z", ATTR_Z}, {"w", ATTR_W},
        {"sync", ATTR_SYNC}, {"value", ATTR_VALUE}, {"start", ATTR_START}, {"stop", ATTR_STOP}, {"step", ATTR_STEP},
    };
    for (int i = 0; i < N_(attrs); i++)
        if (strcmp(attrs[i].name, name) == 0) return attrs[i].attr;
    return ATTR_NONE;
}

bool entity_takes_optionals(const Entity *e) { return e->type_call == type_minmax; }

const Entity *entity_at(int i) { return i >= 0 && i < N_(entities) ? &entities[i] : NULL; }

const char *entity_refusal(const Entity *e) {
    if (e->type_call == type_ufunc_uncompiled) return e->lower_name;
    if (e->type_call == type_operator_refused) return e->op == OP_NOT ? "bool()" : "abs()";
    if (e->type_call == type_fp16_atomic_add) return "cuda.atomic.add on float32";
    if (e->type_call == type_random_host) return "pykrt_random_states_create, on the host";
    return NULL;
}
