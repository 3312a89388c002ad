/*
 * types.c - Numba's types, conversions, overload resolution and unification.
 *
 * pykc types a module as numba-cuda does, so this file transcribes Numba's
 * own machinery rather than a table of outcomes: the casting rules of
 * typeconv/rules.py closed transitively as castgraph.py closes them, the
 * candidate signatures of each operator from typing/builtins.py in their
 * order, the rating of candidates from typing/context.py, and NumPy's
 * promote_types for unifying numbers (Number.unify). tests/typing checks the
 * outcome against numba-cuda itself.
 */
#include "pykc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SCALAR(kind_, bits_, signed_) {.kind = kind_, .bits = bits_, .is_signed = signed_}
Type ty_error = {.kind = TY_ERROR}, ty_none = {.kind = TY_NONE}, ty_bool = SCALAR(TY_BOOL, 8, false);
Type ty_string = {.kind = TY_STRING}, ty_slice = {.kind = TY_SLICE}, ty_grid_group = {.kind = TY_GRID_GROUP};
Type ty_int8 = SCALAR(TY_INT, 8, true), ty_int16 = SCALAR(TY_INT, 16, true);
Type ty_int32 = SCALAR(TY_INT, 32, true), ty_int64 = SCALAR(TY_INT, 64, true);
Type ty_uint8 = SCALAR(TY_INT, 8, false), ty_uint16 = SCALAR(TY_INT, 16, false);
Type ty_uint32 = SCALAR(TY_INT, 32, false), ty_uint64 = SCALAR(TY_INT, 64, false);
Type ty_float16 = SCALAR(TY_FLOAT, 16, false), ty_float32 = SCALAR(TY_FLOAT, 32, false);
Type ty_float64 = SCALAR(TY_FLOAT, 64, false);
Type ty_complex64 = SCALAR(TY_COMPLEX, 64, false), ty_complex128 = SCALAR(TY_COMPLEX, 128, false);
Type ty_bfloat16 = SCALAR(TY_BFLOAT16, 16, false);

/* The scalars in one order for the conversion matrix: ORDER SCALARS. */
static Type *const scalars[] = {
    &ty_bool, &ty_int8, &ty_int16, &ty_int32, &ty_int64, &ty_uint8, &ty_uint16, &ty_uint32,
    &ty_uint64, &ty_float16, &ty_float32, &ty_float64, &ty_complex64, &ty_complex128,
};
enum { NSCALARS = sizeof scalars / sizeof scalars[0] };

static const struct { const char *name; Type *type; } type_names[] = {
    {"boolean", &ty_bool}, {"bool_", &ty_bool}, {"b1", &ty_bool},
    {"int8", &ty_int8}, {"int16", &ty_int16}, {"int32", &ty_int32}, {"int64", &ty_int64},
    {"uint8", &ty_uint8}, {"uint16", &ty_uint16}, {"uint32", &ty_uint32}, {"uint64", &ty_uint64},
    {"intp", &ty_int64}, {"uintp", &ty_uint64}, {"intc", &ty_int32}, {"uintc", &ty_uint32},
    {"byte", &ty_uint8}, {"i1", &ty_int8}, {"i2", &ty_int16}, {"i4", &ty_int32}, {"i8", &ty_int64},
    {"u1", &ty_uint8}, {"u2", &ty_uint16}, {"u4", &ty_uint32}, {"u8", &ty_uint64},
    {"float16", &ty_float16}, {"float32", &ty_float32}, {"float64", &ty_float64},
    {"f2", &ty_float16}, {"f4", &ty_float32}, {"f8", &ty_float64},
    {"double", &ty_float64},
    {"complex64", &ty_complex64}, {"complex128", &ty_complex128}, {"c8", &ty_complex64}, {"c16", &ty_complex128},
    {"void", &ty_none}, {"none", &ty_none},
};

Type *type_by_name(const char *name) {
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(type_names[i].name, name) == 0) return type_names[i].type;
    return NULL;
}

/* numba.types' C-flavoured names, which are no NumPy dtype strings or
 * NumPy's names of other types ('uint', 'char'): signatures only. */
static const struct { const char *name; Type *type; } numba_c_names[] = {
    {"bool", &ty_bool}, {"char", &ty_int8}, {"uchar", &ty_uint8}, {"short", &ty_int16}, {"ushort", &ty_uint16},
    {"int_", &ty_int64}, {"uint", &ty_uint64}, {"long_", &ty_int64}, {"ulong", &ty_uint64},
    {"longlong", &ty_int64}, {"ulonglong", &ty_uint64}, {"size_t", &ty_uint64}, {"ssize_t", &ty_int64},
};

Type *type_by_numba_name(const char *name) {
    for (size_t i = 0; i < sizeof numba_c_names / sizeof numba_c_names[0]; i++)
        if (strcmp(numba_c_names[i].name, name) == 0) return numba_c_names[i].type;
    return type_by_name(name);
}

Type *type_int(int bits, bool is_signed) {
    switch (bits) {
    case 8: return is_signed ? &ty_int8 : &ty_uint8;
    case 16: return is_signed ? &ty_int16 : &ty_uint16;
    case 32: return is_signed ? &ty_int32 : &ty_uint32;
    default: return is_signed ? &ty_int64 : &ty_uint64;
    }
}

Type *type_float(int bits) { return bits == 16 ? &ty_float16 : bits == 32 ? &ty_float32 : &ty_float64; }
Type *type_complex(int bits) { return bits == 64 ? &ty_complex64 : &ty_complex128; }

static Type *new_type(Arena *a, TypeKind kind) {
    Type *t = ARENA_NEW(a, Type);
    t->kind = kind;
    return t;
}

Type *type_array(Arena *a, Type *dtype, int ndim, char layout) {
    Type *t = new_type(a, TY_ARRAY);
    t->dtype = dtype;
    t->ndim = ndim;
    t->layout = layout;
    t->unaligned = dtype->kind == TY_RECORD && !dtype->record->aligned;
    return t;
}

Type *type_tuple(Arena *a, Type **elems, int n) {
    Type *t = new_type(a, TY_TUPLE);
    t->elems = ARENA_ARRAY(a, Type *, n ? n : 1);
    memcpy(t->elems, elems, sizeof(Type *) * (size_t)n);
    t->elem_count = n;
    return t;
}

Type *type_unituple(Arena *a, Type *elem, int n) {
    Type *t = new_type(a, TY_TUPLE);
    t->elems = ARENA_ARRAY(a, Type *, n ? n : 1);
    for (int i = 0; i < n; i++) t->elems[i] = elem;
    t->elem_count = n;
    return t;
}

Type *type_dtype(Arena *a, Type *of) {
    Type *t = new_type(a, TY_DTYPE);
    t->dtype = of;
    return t;
}

Type *type_range(Arena *a, Type *elem) {
    Type *t = new_type(a, TY_RANGE);
    t->dtype = elem;
    return t;
}

static Type *new_iter(Arena *a, IterKind kind, Type *yields, Type **elems, int n) {
    Type *t = new_type(a, TY_ITER);
    t->iter = kind;
    t->dtype = yields;
    t->elem_count = n;
    t->elems = ARENA_ARRAY(a, Type *, n ? n : 1);
    for (int i = 0; i < n; i++) t->elems[i] = elems[i];
    return t;
}

Type *type_uniform_element(Arena *a, Type *t) {
    if (t->kind != TY_TUPLE || t->elem_count == 0) return NULL;
    Type *first = type_strip_deep(a, t->elems[0]);
    for (int i = 1; i < t->elem_count; i++)
        if (!type_equal(first, type_strip_deep(a, t->elems[i]))) return NULL;
    return first;
}

Type *type_getiter(Arena *a, Type *t) {
    switch (t->kind) {
    case TY_ITER: return t;
    case TY_RANGE: return new_iter(a, ITER_RANGE, t->dtype, NULL, 0);
    case TY_ARRAY: { /* a row of an array of several dimensions: a view, of layout A whatever the array's */
        Type *row = t->dtype;
        if (t->ndim > 1) {
            row = new_type(a, TY_ARRAY);
            *row = *t;
            row->ndim = t->ndim - 1;
            row->layout = 'A';
            row->nested = t->nested ? t->nested + 1 : NULL;
        }
        return new_iter(a, ITER_ARRAY, row, &t, 1);
    }
    case TY_TUPLE: { /* a UniTuple, its literals' types plain */
        Type *elem = type_uniform_element(a, t), *plain = type_strip_deep(a, t);
        return elem ? new_iter(a, ITER_TUPLE, elem, &plain, 1) : NULL;
    }
    default: return NULL;
    }
}

/* Numba's enumerate counts in intp. */
Type *type_enumerate(Arena *a, Type *of) {
    Type *pair[2] = {&ty_int64, of->dtype};
    return new_iter(a, ITER_ENUMERATE, type_tuple(a, pair, 2), &of, 1);
}

Type *type_zip(Arena *a, Type **of, int n) {
    Type **yields = ARENA_ARRAY(a, Type *, n ? n : 1);
    for (int i = 0; i < n; i++) yields[i] = of[i]->dtype;
    return new_iter(a, ITER_ZIP, type_tuple(a, yields, n), of, n);
}

Type *type_unroll_iter(Arena *a, Type *tuple) { return new_iter(a, ITER_UNROLL, &ty_int64, &tuple, 1); }

Type *type_optional(Arena *a, Type *of) {
    Type *t = new_type(a, TY_OPTIONAL);
    t->dtype = type_strip(of);
    return t;
}

Type *type_entity(Arena *a, const Entity *e) {
    Type *t = new_type(a, TY_ENTITY);
    t->entity = e;
    return t;
}

Type *type_literal_int(Arena *a, int64_t v, bool is_unsigned) {
    Type *t = new_type(a, TY_INT);
    t->bits = 64;
    t->is_signed = !is_unsigned;
    t->literal = true;
    t->lit_value = v;
    return t;
}

Type *type_literal_bool(Arena *a, bool v) {
    Type *t = new_type(a, TY_BOOL);
    t->bits = 8;
    t->literal = true;
    t->lit_value = v;
    return t;
}

Type *type_strip(Type *t) {
    if (!t || !t->literal) return t;
    return t->kind == TY_BOOL ? &ty_bool : type_int(t->bits, t->is_signed);
}

Type *type_strip_deep(Arena *a, Type *t) {
    if (!t || t->kind != TY_TUPLE) return type_strip(t);
    Type **elems = ARENA_ARRAY(a, Type *, t->elem_count ? t->elem_count : 1);
    for (int i = 0; i < t->elem_count; i++) elems[i] = type_strip_deep(a, t->elems[i]);
    return type_named_tuple(a, t->cls, elems, t->elem_count);
}

Type *type_enum(Arena *a, ClassInfo *c) {
    Type *t = new_type(a, TY_ENUM);
    t->cls = c;
    t->dtype = c->dtype;
    return t;
}

Type *type_class(Arena *a, ClassInfo *c) {
    Type *t = new_type(a, TY_CLASS);
    t->cls = c;
    return t;
}

Type *type_named_tuple(Arena *a, ClassInfo *c, Type **elems, int n) {
    Type *t = type_tuple(a, elems, n);
    t->cls = c;
    return t;
}

Type *type_record(Arena *a, const Record *r) {
    Type *t = new_type(a, TY_RECORD);
    t->record = r;
    return t;
}

const RecordField *record_field(const Record *r, const char *name) {
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->fields[i].name, name) == 0) return &r->fields[i];
    return NULL;
}

int type_align(const Type *t) {
    switch (t->kind) {
    case TY_RECORD: return t->record->align;
    case TY_ARRAY: return type_align(t->dtype);
    case TY_COMPLEX: return t->bits / 16;
    default: return type_size(t) ? type_size(t) : 1;
    }
}

/* A record's data type is an array of bytes to Numba: alignment 1. */
int type_abi_align(const Type *t) {
    if (t->kind == TY_RECORD) return 1;
    return type_align(t);
}

Type *type_func(Arena *a, Node *def) {
    Type *t = new_type(a, TY_FUNC);
    t->func = def;
    return t;
}

Type *type_closure(Arena *a, Node *def, Type **caps, int n) {
    Type *t = new_type(a, TY_CLOSURE);
    t->func = def;
    t->elem_count = n;
    t->elems = ARENA_ARRAY(a, Type *, n ? n : 1);
    for (int i = 0; i < n; i++) t->elems[i] = caps[i];
    return t;
}

Type *type_extern(Arena *a, ExternFunc *ext) {
    Type *t = new_type(a, TY_EXTERN);
    t->ext = ext;
    return t;
}

/* Numba's Record key: the fields (names, types, offsets), size, aligned. */
static bool record_equal(const Record *a, const Record *b) {
    if (a == b) return true;
    if (a->count != b->count || a->size != b->size || a->aligned != b->aligned) return false;
    for (int i = 0; i < a->count; i++)
        if (strcmp(a->fields[i].name, b->fields[i].name) != 0 || a->fields[i].offset != b->fields[i].offset ||
            !type_equal(a->fields[i].type, b->fields[i].type))
            return false;
    return true;
}

static bool nested_equal(const Type *a, const Type *b) {
    if (!a->nested || !b->nested) return a->nested == b->nested;
    for (int i = 0; i < a->ndim; i++)
        if (a->nested[i] != b->nested[i]) return false;
    return true;
}

bool type_equal(const Type *a, const Type *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    if (a->literal != b->literal || (a->literal && a->lit_value != b->lit_value)) return false;
    switch (a->kind) {
    case TY_INT: return a->bits == b->bits && a->is_signed == b->is_signed;
    case TY_FLOAT: case TY_COMPLEX: return a->bits == b->bits;
    case TY_ARRAY:
        return a->ndim == b->ndim && a->layout == b->layout && a->readonly == b->readonly &&
               a->unaligned == b->unaligned && nested_equal(a, b) && type_equal(a->dtype, b->dtype);
    case TY_RECORD: return record_equal(a->record, b->record);
    case TY_TUPLE: case TY_CLOSURE:
        if (a->elem_count != b->elem_count || a->cls != b->cls || a->func != b->func) return false;
        for (int i = 0; i < a->elem_count; i++)
            if (!type_equal(a->elems[i], b->elems[i])) return false;
        return true;
    case TY_DTYPE: case TY_RANGE: case TY_OPTIONAL: return type_equal(a->dtype, b->dtype);
    case TY_ITER:
        if (a->iter != b->iter || a->elem_count != b->elem_count || !type_equal(a->dtype, b->dtype)) return false;
        for (int i = 0; i < a->elem_count; i++)
            if (!type_equal(a->elems[i], b->elems[i])) return false;
        return true;
    case TY_VECTOR: return a->elem_count == b->elem_count && type_equal(a->dtype, b->dtype);
    case TY_ENTITY: return a->entity == b->entity;
    case TY_FUNC: return a->func == b->func;
    case TY_EXTERN: return a->ext == b->ext;
    case TY_ENUM: case TY_CLASS: return a->cls == b->cls;
    default: return true;
    }
}

bool is_scalar(const Type *t) { return (t->kind >= TY_BOOL && t->kind <= TY_COMPLEX) || t->kind == TY_BFLOAT16; }
bool is_number(const Type *t) { return t->kind >= TY_INT && t->kind <= TY_COMPLEX; }
bool is_integer(const Type *t) { return t->kind == TY_INT; }
bool is_float(const Type *t) { return t->kind == TY_FLOAT; }
bool is_value(const Type *t) { return (t->kind >= TY_NONE && t->kind <= TY_ITER) || t->kind == TY_ERROR; }

int type_size(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return 1;
    case TY_INT: case TY_FLOAT: case TY_COMPLEX: case TY_BFLOAT16: return t->bits / 8;
    case TY_VECTOR: return t->elem_count * type_size(t->dtype);
    case TY_RECORD: return (int)t->record->size;
    case TY_ARRAY: { /* a nested array's bytes in its record */
        long n = type_size(t->dtype);
        for (int i = 0; t->nested && i < t->ndim; i++) n *= t->nested[i];
        return t->nested ? (int)n : 0;
    }
    case TY_TUPLE: {
        int n = 0;
        for (int i = 0; i < t->elem_count; i++) n += type_size(t->elems[i]);
        return n;
    }
    default: return 0;
    }
}

/* A type's name as it grows: a record's may be any length. */
typedef struct NameBuf {
    char *data;
    size_t len, cap;
} NameBuf;

static void append(NameBuf *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) ice("out of memory naming a type");
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

static void appendf(NameBuf *b, const char *fmt, ...) PYKC_PRINTF(2, 3);
static void appendf(NameBuf *b, const char *fmt, ...) {
    char tmp[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    append(b, tmp);
}

static void name_into(const Type *t, NameBuf *b);

/* Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False) */
static void record_name(const Record *r, NameBuf *b) {
    append(b, "Record(");
    for (int i = 0; i < r->count; i++) {
        if (i) append(b, ",");
        append(b, r->fields[i].name);
        append(b, "[type=");
        name_into(r->fields[i].type, b);
        appendf(b, ";offset=%ld]", r->fields[i].offset);
    }
    appendf(b, ";%ld;%s)", r->size, r->aligned ? "True" : "False");
}

/* nestedarray(float32, (3,)) */
static void nested_name(const Type *t, NameBuf *b) {
    append(b, "nestedarray(");
    name_into(t->dtype, b);
    append(b, ", (");
    for (int i = 0; i < t->ndim; i++) appendf(b, "%s%ld", i ? ", " : "", t->nested[i]);
    append(b, t->ndim == 1 ? ",))" : "))");
}

static void array_name(const Type *t, NameBuf *b) {
    if (t->nested) {
        nested_name(t, b);
        return;
    }
    if (t->unaligned) append(b, "unaligned ");
    append(b, t->readonly ? "readonly array(" : "array(");
    name_into(t->dtype, b);
    appendf(b, ", %dd, %c)", t->ndim, t->layout);
}

/* UniTuple(int64 x 2), Tuple(int32, float32); a named tuple's class name
 * for the word: Point(int64 x 2) (NamedUniTuple), Point(int32, float32). */
static void tuple_name(const Type *t, NameBuf *b) {
    bool uniform = t->elem_count > 0;
    for (int i = 1; i < t->elem_count; i++) uniform = uniform && type_equal(t->elems[0], t->elems[i]);
    if (t->cls) appendf(b, "%s(", t->cls->name);
    if (uniform) {
        if (!t->cls) append(b, "UniTuple(");
        name_into(t->elems[0], b);
        appendf(b, " x %d)", t->elem_count);
        return;
    }
    if (!t->cls) append(b, "Tuple(");
    for (int i = 0; i < t->elem_count; i++) {
        if (i) append(b, ", ");
        name_into(t->elems[i], b);
    }
    append(b, ")");
}

static void scalar_name(const Type *t, NameBuf *b) {
    if (t->kind == TY_BOOL) {
        append(b, !t->literal ? "bool" : t->lit_value ? "Literal[bool](True)" : "Literal[bool](False)");
    } else if (t->kind == TY_INT && t->literal) {
        if (t->is_signed) appendf(b, "Literal[int](%lld)", (long long)t->lit_value);
        else appendf(b, "Literal[int](%llu)", (unsigned long long)t->lit_value);
    } else if (t->kind == TY_INT) {
        appendf(b, "%sint%d", t->is_signed ? "" : "u", t->bits);
    } else {
        appendf(b, "%s%d", t->kind == TY_FLOAT ? "float" : "complex", t->bits);
    }
}

/* Enum<int64>(Color), IntEnum class<int64>(Shape), class(Point) */
static void class_name(const Type *t, NameBuf *b) {
    if (t->cls->kind == CLASS_NAMED_TUPLE) {
        appendf(b, "class(%s)", t->cls->name);
        return;
    }
    append(b, t->cls->kind == CLASS_INT_ENUM ? "IntEnum" : "Enum");
    append(b, t->kind == TY_CLASS ? " class<" : "<");
    name_into(t->cls->dtype, b);
    appendf(b, ">(%s)", t->cls->name);
}

static void entity_name(const Type *t, NameBuf *b) {
    const char *path = t->entity->path;
    if (!strncmp(path, "numba.cuda.", 11)) path += 6; /* cuda.threadIdx */
    else if (!strncmp(path, "builtins.", 9)) path += 9;
    appendf(b, t->entity->kind == ENT_MODULE ? "module '%s'" : "'%s'", path);
}

/* range_iter_int64, iter(array(...)), enumerate(...), zip(..., ...) */
static void iter_name(const Type *t, NameBuf *b) {
    static const char *const heads[] = {[ITER_ARRAY] = "iter(", [ITER_TUPLE] = "iter(",
                                        [ITER_ENUMERATE] = "enumerate(", [ITER_ZIP] = "zip(",
                                        [ITER_UNROLL] = "literal_unroll("};
    if (t->iter == ITER_RANGE) {
        append(b, "range_iter_");
        name_into(t->dtype, b);
        return;
    }
    append(b, heads[t->iter]);
    for (int i = 0; i < t->elem_count; i++) {
        if (i) append(b, ", ");
        name_into(t->elems[i], b);
    }
    append(b, ")");
}

static void name_into(const Type *t, NameBuf *b) {
    switch (t->kind) {
    case TY_ERROR: append(b, "<error>"); break;
    case TY_NONE: append(b, "none"); break;
    case TY_BOOL: case TY_INT: case TY_FLOAT: case TY_COMPLEX: scalar_name(t, b); break;
    case TY_ARRAY: array_name(t, b); break;
    case TY_TUPLE: tuple_name(t, b); break;
    case TY_VECTOR: /* numba-cuda names every vector by its member type: double2 is float64x2 */
        name_into(t->dtype, b);
        appendf(b, "x%d", t->elem_count);
        break;
    case TY_RECORD: record_name(t->record, b); break;
    case TY_BFLOAT16: append(b, "__nv_bfloat16"); break;
    case TY_OPTIONAL:
        append(b, "OptionalType(");
        name_into(t->dtype, b);
        append(b, ")");
        break;
    case TY_GRID_GROUP: append(b, "GridGroup"); break;
    case TY_STRING: append(b, "unicode_type"); break;
    case TY_RANGE:
        append(b, "range_state_");
        name_into(t->dtype, b);
        break;
    case TY_ITER: iter_name(t, b); break;
    case TY_DTYPE:
        append(b, "class(");
        name_into(t->dtype, b);
        append(b, ")");
        break;
    case TY_ENTITY: entity_name(t, b); break;
    case TY_FUNC: append(b, "<device function>"); break;
    case TY_CLOSURE: appendf(b, "function '%s'", t->func->name); break;
    case TY_EXTERN: appendf(b, "ExternFunction(%s)", t->ext->name); break;
    case TY_ENUM: case TY_CLASS: class_name(t, b); break;
    case TY_SLICE: append(b, "slice<a:b>"); break;
    }
}

const char *type_name(Arena *a, const Type *t) {
    NameBuf b = {0};
    append(&b, "");
    name_into(t, &b);
    const char *s = arena_strdup(a, b.data);
    free(b.data);
    return s;
}

/* ---- conversions ------------------------------------------------------------ */

/* A scalar type's place in `scalars` (and in conv_matrix), found from its
 * kind and width rather than by comparing it with each: overload
 * resolution asks this for every argument of every case it tries. */
static int scalar_index(const Type *t) {
    if (t->literal) return -1;
    int w = t->bits == 8 ? 0 : t->bits == 16 ? 1 : t->bits == 32 ? 2 : t->bits == 64 ? 3 : -1;
    switch (t->kind) {
    case TY_BOOL: return 0;
    case TY_INT: return w < 0 ? -1 : (t->is_signed ? 1 : 5) + w;
    case TY_FLOAT: return w < 1 ? -1 : 8 + w;
    case TY_COMPLEX: return t->bits == 64 ? 12 : t->bits == 128 ? 13 : -1;
    default: return -1;
    }
}

static Conversion conv_matrix[NSCALARS][NSCALARS];
static bool conv_ready;

static void set_conv(Type *from, Type *to, Conversion c) {
    Conversion *slot = &conv_matrix[scalar_index(from)][scalar_index(to)];
    if (c < *slot) *slot = c;
}

/* rules.py's helpers: the first kind is from -> to, the second to -> from. */
static void rule(Type *a, Type *b, Conversion forward, Conversion backward) {
    set_conv(a, b, forward);
    if (backward != CONV_NONE) set_conv(b, a, backward);
}

static void init_conversions(void) {
    for (int i = 0; i < NSCALARS; i++) {
        if (scalar_index(scalars[i]) != i) ice("scalar_index does not follow the order of `scalars` at %d", i);
        for (int j = 0; j < NSCALARS; j++) conv_matrix[i][j] = i == j ? CONV_EXACT : CONV_NONE;
    }
    rule(&ty_bool, &ty_int8, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_bool, &ty_uint8, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_int8, &ty_int16, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_uint8, &ty_uint16, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_int16, &ty_int32, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_uint16, &ty_uint32, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_int32, &ty_int64, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_uint32, &ty_uint64, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_uint8, &ty_int16, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_uint16, &ty_int32, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_uint32, &ty_int64, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_int8, &ty_float16, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_int16, &ty_float32, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_int32, &ty_float64, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_int16, &ty_float16, CONV_UNSAFE, CONV_UNSAFE);
    rule(&ty_int32, &ty_float32, CONV_UNSAFE, CONV_UNSAFE);
    rule(&ty_int64, &ty_float64, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_uint64, &ty_float64, CONV_SAFE, CONV_UNSAFE);
    rule(&ty_float16, &ty_float32, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_float32, &ty_float64, CONV_PROMOTE, CONV_UNSAFE);
    rule(&ty_float32, &ty_complex64, CONV_SAFE, CONV_NONE);
    rule(&ty_float64, &ty_complex128, CONV_SAFE, CONV_NONE);
    rule(&ty_complex64, &ty_complex128, CONV_PROMOTE, CONV_UNSAFE);
    /* castgraph.py propagates each rule through the known ones: a path's
     * kind is its worst step, and the best path wins. */
    for (int k = 0; k < NSCALARS; k++)
        for (int i = 0; i < NSCALARS; i++)
            for (int j = 0; j < NSCALARS; j++) {
                Conversion via = conv_matrix[i][k] > conv_matrix[k][j] ? conv_matrix[i][k] : conv_matrix[k][j];
                if (via < conv_matrix[i][j]) conv_matrix[i][j] = via;
            }
    conv_ready = true;
}

static Conversion at_least(Conversion c, Conversion floor) { return c == CONV_NONE || c >= floor ? c : floor; }

/* Optional's can_convert_to and can_convert_from (types/misc.py): None
 * promotes to any Optional, a T converts to Optional(U) as T to U but no
 * better than a promotion, and Optional(T) to U as T to U but no better
 * than safe, as the conversion may find None (the function then returns). */
static Conversion optional_conversion(const Type *from, const Type *to) {
    if (from->kind == TY_OPTIONAL && to->kind == TY_OPTIONAL) return type_conversion(from->dtype, to->dtype);
    if (from->kind == TY_OPTIONAL) return at_least(type_conversion(from->dtype, to), CONV_SAFE);
    if (from->kind == TY_NONE) return CONV_PROMOTE;
    return at_least(type_conversion(from, to->dtype), CONV_PROMOTE);
}

/* Bfloat16.can_convert_to and can_convert_from (numba-cuda's
 * ext_types.py): to float32 and float64 safely, from int8 and uint8
 * safely, to and from other numbers unsafely; not closed transitively, as
 * they are methods of the type, not rules of the casting graph. */
static Conversion bfloat16_conversion(const Type *from, const Type *to) {
    const Type *other = from->kind == TY_BFLOAT16 ? to : from;
    if (other->kind != TY_INT && other->kind != TY_FLOAT) return CONV_NONE;
    if (from->kind == TY_BFLOAT16) return other->kind == TY_FLOAT && other->bits >= 32 ? CONV_SAFE : CONV_UNSAFE;
    return other->kind == TY_INT && other->bits == 8 ? CONV_SAFE : CONV_UNSAFE;
}

/* IntEnumMember.can_convert_to: as its value's type converts, but no
 * better than safe; a plain Enum's member converts to nothing else. */
static Conversion enum_conversion(const Type *from, const Type *to) {
    if (type_equal(from, to)) return CONV_EXACT;
    if (from->kind != TY_ENUM || from->cls->kind != CLASS_INT_ENUM) return CONV_NONE;
    return at_least(type_conversion(from->dtype, to), CONV_SAFE);
}

bool type_cast_lowered(const Type *from, const Type *to) {
    return from->kind != TY_ENUM || to->kind == TY_INT || type_equal(from, to);
}

Conversion type_conversion(const Type *from, const Type *to) {
    if (from == to) return CONV_EXACT;
    if ((from->kind == TY_BFLOAT16) != (to->kind == TY_BFLOAT16) && from->kind != TY_OPTIONAL && to->kind != TY_OPTIONAL)
        return bfloat16_conversion(type_strip((Type *)from), type_strip((Type *)to));
    if (from->kind == TY_ENUM || to->kind == TY_ENUM) return enum_conversion(from, to);
    /* a literal converts as its type; two scalars, as the matrix says (whose
     * diagonal is exact) */
    from = type_strip((Type *)from);
    to = type_strip((Type *)to);
    if (!conv_ready) init_conversions();
    int i = scalar_index(from), j = scalar_index(to);
    if (i >= 0 && j >= 0) return conv_matrix[i][j];
    if (type_equal(from, to)) return CONV_EXACT;
    if (from->kind == TY_OPTIONAL || to->kind == TY_OPTIONAL) return optional_conversion(from, to);
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->elem_count == to->elem_count && from->cls == to->cls) {
        Conversion worst = CONV_EXACT;
        for (int k = 0; k < from->elem_count; k++) {
            Conversion c = type_conversion(from->elems[k], to->elems[k]);
            if (c > worst) worst = c;
        }
        return worst;
    }
    if (from->kind == TY_ARRAY && to->kind == TY_ARRAY && from->ndim == to->ndim &&
        type_equal(from->dtype, to->dtype) && (to->layout == 'A' || to->layout == from->layout))
        return CONV_SAFE;
    return CONV_NONE;
}

static bool rate_less(const int a[3], const int b[3]) {
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return false;
}

int resolve_overload(const Sig *cases, int ncases, Type *const *args, int nargs, bool allow_unsafe) {
    int best = -1;
    int best_rate[3] = {0, 0, 0};
    for (int c = 0; c < ncases; c++) {
        if (cases[c].nargs != nargs) continue;
        int rate[3] = {0, 0, 0}; /* unsafe, safe, promote */
        bool ok = true;
        for (int i = 0; i < nargs && ok; i++) {
            Conversion conv = type_conversion(args[i], cases[c].args[i]);
            if (conv == CONV_NONE || (conv == CONV_UNSAFE && !allow_unsafe)) ok = false;
            else if (conv == CONV_UNSAFE) rate[0]++;
            else if (conv == CONV_SAFE) rate[1]++;
            else if (conv == CONV_PROMOTE) rate[2]++;
        }
        if (ok && (best < 0 || rate_less(rate, best_rate))) {
            best = c;
            memcpy(best_rate, rate, sizeof rate);
        }
    }
    return best;
}

/* ---- operator cases (typing/builtins.py) ---------------------------------------- */

typedef struct CaseList {
    Sig cases[48];
    int count;
    bool allow_unsafe;
} CaseList;

static CaseList op_cases[OP_COUNT][2]; /* [op][unary=0, binary=1] */
static bool cases_ready;

static void add_case(CaseList *l, Type *ret, Type *a, Type *b) {
    Sig *s = &l->cases[l->count++];
    s->ret = ret;
    s->args[0] = a;
    s->args[1] = b;
    s->nargs = b ? 2 : 1;
}

static Type *const machine_ints[] = {&ty_int64, &ty_uint64};
static Type *const signed_domain[] = {&ty_int8, &ty_int16, &ty_int32, &ty_int64};
static Type *const unsigned_domain[] = {&ty_uint8, &ty_uint16, &ty_uint32, &ty_uint64};
static Type *const real_domain[] = {&ty_float32, &ty_float64};
static Type *const complex_domain[] = {&ty_complex64, &ty_complex128};

/* choose_result_int: at least 64 bits, signed if any input is. */
static Type *result_int(const Type *a, const Type *b) {
    int bits = 64;
    if (a->bits > bits) bits = a->bits;
    if (b && b->bits > bits) bits = b->bits;
    return type_int(bits, a->is_signed || (b && b->is_signed));
}

static void add_integer_binops(CaseList *l, bool float_result) {
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            add_case(l, float_result ? &ty_float64 : result_int(machine_ints[i], machine_ints[j]), machine_ints[i],
                     machine_ints[j]);
}

static void add_same(CaseList *l, Type *const *domain, int n, bool binary) {
    for (int i = 0; i < n; i++) add_case(l, domain[i], domain[i], binary ? domain[i] : NULL);
}

static void add_bool_result(CaseList *l, Type *const *domain, int n, bool binary) {
    for (int i = 0; i < n; i++) add_case(l, &ty_bool, domain[i], binary ? domain[i] : NULL);
}

static void init_arith(Op op) {
    CaseList *l = &op_cases[op][1];
    l->allow_unsafe = true;
    if (op == OP_DIV) {
        add_integer_binops(l, true);
    } else {
        add_integer_binops(l, false);
    }
    if (op == OP_POW) {
        Type *const rhs[] = {&ty_int32, &ty_int64, &ty_uint64};
        for (int i = 0; i < 3; i++) add_case(l, &ty_float32, &ty_float32, rhs[i]);
        for (int i = 0; i < 3; i++) add_case(l, &ty_float64, &ty_float64, rhs[i]);
    }
    add_same(l, real_domain, 2, true);
    if (op != OP_MOD && op != OP_FLOORDIV) add_same(l, complex_domain, 2, true);
}

static void init_shift(Op op) {
    CaseList *l = &op_cases[op][1];
    l->allow_unsafe = false;
    Type *const rhs[] = {&ty_uint64, &ty_int64};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) add_case(l, result_int(signed_domain[i], NULL), signed_domain[i], rhs[j]);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) add_case(l, result_int(unsigned_domain[i], NULL), unsigned_domain[i], rhs[j]);
}

static void init_bitwise(Op op) {
    CaseList *l = &op_cases[op][1];
    l->allow_unsafe = false;
    add_case(l, &ty_bool, &ty_bool, &ty_bool);
    add_integer_binops(l, false);
}

static void init_comparison(Op op) {
    CaseList *l = &op_cases[op][1];
    l->allow_unsafe = true;
    add_case(l, &ty_bool, &ty_bool, &ty_bool);
    add_bool_result(l, signed_domain, 4, true);
    add_bool_result(l, unsigned_domain, 4, true);
    add_bool_result(l, real_domain, 2, true);
    if (op == OP_EQ || op == OP_NE) add_bool_result(l, complex_domain, 2, true);
}

static void init_unary(void) {
    Op signs[] = {OP_NEG, OP_POS};
    for (int k = 0; k < 2; k++) {
        CaseList *l = &op_cases[signs[k]][0];
        l->allow_unsafe = true;
        for (int i = 0; i < 4; i++) add_case(l, result_int(unsigned_domain[i], NULL), unsigned_domain[i], NULL);
        for (int i = 0; i < 4; i++) add_case(l, result_int(signed_domain[i], NULL), signed_domain[i], NULL);
        add_same(l, real_domain, 2, false);
        add_same(l, complex_domain, 2, false);
        add_case(l, &ty_int64, &ty_bool, NULL);
    }
    CaseList *inv = &op_cases[OP_INVERT][0];
    inv->allow_unsafe = false;
    add_case(inv, &ty_bool, &ty_bool, NULL);
    for (int i = 0; i < 4; i++) add_case(inv, result_int(unsigned_domain[i], NULL), unsigned_domain[i], NULL);
    for (int i = 0; i < 4; i++) add_case(inv, result_int(signed_domain[i], NULL), signed_domain[i], NULL);
    CaseList *not_ = &op_cases[OP_NOT][0];
    not_->allow_unsafe = true;
    add_case(not_, &ty_bool, &ty_bool, NULL);
    add_bool_result(not_, signed_domain, 4, false);
    add_bool_result(not_, unsigned_domain, 4, false);
    add_bool_result(not_, real_domain, 2, false);
    add_bool_result(not_, complex_domain, 2, false);
}

static void init_cases(void) {
    Op arith[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW};
    for (size_t i = 0; i < sizeof arith / sizeof arith[0]; i++) init_arith(arith[i]);
    init_shift(OP_LSHIFT);
    init_shift(OP_RSHIFT);
    init_bitwise(OP_BITAND);
    init_bitwise(OP_BITOR);
    init_bitwise(OP_BITXOR);
    Op cmp[] = {OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE};
    for (size_t i = 0; i < sizeof cmp / sizeof cmp[0]; i++) init_comparison(cmp[i]);
    init_unary();
    cases_ready = true;
}

const Sig *operator_cases(Op op, int nargs, int *ncases, bool *allow_unsafe) {
    if (!cases_ready) init_cases();
    const CaseList *l = &op_cases[op][nargs == 2];
    *ncases = l->count;
    *allow_unsafe = l->allow_unsafe;
    return l->cases;
}

/* ---- unification -------------------------------------------------------------- */

/* NumPy's promote_types for two numbers (Number.unify in Numba). */
static Type *promote_numbers(Type *x, Type *y) {
    if (x->kind < y->kind) {
        Type *t = x;
        x = y;
        y = t;
    }
    /* Now x is the wider kind: complex > float > int. */
    if (x->kind == TY_INT) {
        if (x->is_signed == y->is_signed) return x->bits >= y->bits ? x : y;
        Type *s = x->is_signed ? x : y, *u = x->is_signed ? y : x;
        if (s->bits > u->bits) return s;
        return u->bits == 64 ? &ty_float64 : type_int(u->bits * 2, true);
    }
    /* The float (or complex's part) that holds y's values exactly enough. */
    int need = 16;
    if (y->kind == TY_INT) need = y->bits <= 8 ? 16 : y->bits <= 16 ? 32 : 64;
    else if (y->kind == TY_FLOAT) need = y->bits;
    else need = y->bits / 2;
    int have = x->kind == TY_COMPLEX ? x->bits / 2 : x->bits;
    int bits = have > need ? have : need;
    if (x->kind == TY_COMPLEX || y->kind == TY_COMPLEX) return type_complex(bits < 32 ? 64 : bits * 2);
    return type_float(bits);
}

/* NoneType.unify and Optional.unify: None with T is OptionalType(T), and
 * an Optional with T or Optional(U) is Optional(T unified with U). */
static Type *unify_optional(Arena *a, Type *x, Type *y) {
    if (y->kind == TY_NONE) {
        Type *t = x;
        x = y;
        y = t;
    }
    if (x->kind == TY_NONE) {
        if (y->kind == TY_OPTIONAL) return y;
        return is_value(y) && y->kind != TY_GRID_GROUP && y->kind != TY_CLOSURE ? type_optional(a, y) : NULL;
    }
    Type *inner = type_unify(a, x->kind == TY_OPTIONAL ? x->dtype : x, y->kind == TY_OPTIONAL ? y->dtype : y);
    if (!inner || inner->kind == TY_ERROR) return inner;
    return inner->kind == TY_OPTIONAL ? inner : type_optional(a, inner);
}

Type *type_unify(Arena *a, Type *x, Type *y) {
    if (type_equal(x, y)) return x;
    x = type_strip(x);
    y = type_strip(y);
    if (type_equal(x, y)) return x;
    if (x->kind == TY_ERROR || y->kind == TY_ERROR) return &ty_error;
    if (x->kind == TY_NONE || y->kind == TY_NONE || x->kind == TY_OPTIONAL || y->kind == TY_OPTIONAL)
        return unify_optional(a, x, y);
    if (is_number(x) && is_number(y)) return promote_numbers(x, y);
    if (x->kind == TY_TUPLE && y->kind == TY_TUPLE && x->elem_count == y->elem_count && x->cls == y->cls) {
        Type **elems = ARENA_ARRAY(a, Type *, x->elem_count);
        for (int i = 0; i < x->elem_count; i++)
            if (!(elems[i] = type_unify(a, x->elems[i], y->elems[i]))) return NULL;
        return type_named_tuple(a, x->cls, elems, x->elem_count);
    }
    if (x->kind == TY_CLOSURE && y->kind == TY_CLOSURE && x->func == y->func) {
        /* one function, made where its captures had other types */
        Type **caps = ARENA_ARRAY(a, Type *, x->elem_count ? x->elem_count : 1);
        for (int i = 0; i < x->elem_count; i++)
            if (!(caps[i] = type_unify(a, x->elems[i], y->elems[i]))) return NULL;
        return type_closure(a, x->func, caps, x->elem_count);
    }
    if (x->kind == TY_ARRAY && y->kind == TY_ARRAY && x->ndim == y->ndim && type_equal(x->dtype, y->dtype))
        return type_array(a, x->dtype, x->ndim, 'A');
    Conversion c = type_conversion(x, y);
    if (c != CONV_NONE && c <= CONV_SAFE) return y;
    c = type_conversion(y, x);
    if (c != CONV_NONE && c <= CONV_SAFE) return x;
    return NULL;
}
