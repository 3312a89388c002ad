/*
 * emitc.c - C for the programs that launch a module's kernels.
 *
 * --emit header writes a header of typed launchers: a `static inline`
 * function per kernel entry (a kernel compiled for several signatures has
 * one per specialisation; a kernel's copy for contiguous arrays has none,
 * as libpykrt runs it through the kernel's) whose parameters are C types,
 * array views of one dtype and ndim for array parameters, so that the C
 * compiler checks each launch's arguments; libpykrt still checks what C
 * cannot (layout, shapes). The header holds the interface digest of the
 * kernels it was made from, and its loaders have libpykrt compare it with
 * the module's manifest (pykrt_module_bind), so a header and a module of
 * different sources never launch. --emit c writes the same text followed
 * by the module itself, the manifest and the PTX of every arch as byte
 * arrays, so that a program needs no file at run time.
 *
 * The text is C11 and C++: no designated initializers, no compound
 * literals, every view guarded so that several headers share them. Names
 * come from the input's file name (the prefix) and the kernels' entries;
 * parameter names that C or C++ reserve get a trailing underscore. The
 * output depends only on the manifest and the input's base name.
 * docs/runtime.md (Typed launchers) describes it for users.
 */
#include "pykc.h"

#include <stdlib.h>
#include <string.h>

/* How a dtype of the manifest is passed from C: its C type, pykrt's
 * enumerator, the pykrt_arg constructor and its size in bytes. */
typedef struct CType {
    const char *dtype, *ctype, *enumerator, *arg;
    int size;
} CType;

static const CType ctypes[] = {
    {"bool", "bool", "PYKRT_BOOL", "pykrt_arg_bool", 1},
    {"int8", "int8_t", "PYKRT_INT8", "pykrt_arg_int8", 1},
    {"int16", "int16_t", "PYKRT_INT16", "pykrt_arg_int16", 2},
    {"int32", "int32_t", "PYKRT_INT32", "pykrt_arg_int32", 4},
    {"int64", "int64_t", "PYKRT_INT64", "pykrt_arg_int64", 8},
    {"uint8", "uint8_t", "PYKRT_UINT8", "pykrt_arg_uint8", 1},
    {"uint16", "uint16_t", "PYKRT_UINT16", "pykrt_arg_uint16", 2},
    {"uint32", "uint32_t", "PYKRT_UINT32", "pykrt_arg_uint32", 4},
    {"uint64", "uint64_t", "PYKRT_UINT64", "pykrt_arg_uint64", 8},
    /* float16 and bfloat16 travel as their bits: C has no such types */
    {"float16", "uint16_t", "PYKRT_FLOAT16", "pykrt_arg_float16_bits", 2},
    {"bfloat16", "uint16_t", "PYKRT_BFLOAT16", "pykrt_arg_bfloat16_bits", 2},
    {"float32", "float", "PYKRT_FLOAT32", "pykrt_arg_float32", 4},
    {"float64", "double", "PYKRT_FLOAT64", "pykrt_arg_float64", 8},
    {"complex64", "pykc_complex64", "PYKRT_COMPLEX64", "pykrt_arg_complex64", 8},
    {"complex128", "pykc_complex128", "PYKRT_COMPLEX128", "pykrt_arg_complex128", 16},
    /* arrays of records are passed as their descriptor (pykrt checks the layout) */
    {"record", "const pykrt_array *", "PYKRT_RECORD", NULL, 0},
};

static const CType *ctype_of(const char *dtype) {
    for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++)
        if (!strcmp(ctypes[i].dtype, dtype)) return &ctypes[i];
    ice("--emit header: no C type for dtype '%s'", dtype);
}

static bool is_complex(const char *dtype) { return !strncmp(dtype, "complex", 7); }

/* Names a parameter may not take in the generated C: the keywords of C11
 * and C++, the names of the types and macros the launchers use, and the
 * launchers' own parameters and locals. Python's keywords cannot occur. */
static const char *const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool",
    "catch", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const_cast", "consteval",
    "constexpr", "constinit", "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast",
    "explicit", "export", "false", "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "reinterpret_cast", "requires",
    "static_assert", "static_cast", "template", "this", "thread_local", "throw", "true", "try", "typeid",
    "typename", "using", "virtual", "wchar_t", "xor", "xor_eq", "NULL", "size_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "offsetof", "mod", "config", "arrays", "members",
    "args",
};

static bool is_reserved(const char *name) {
    if (!strncmp(name, "pykrt_", 6) || !strncmp(name, "pykc_", 5) || !strncmp(name, "PYKRT_", 6)) return true;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(reserved[i], name)) return true;
    return false;
}

/* ---- the launchers' parameters ------------------------------------------ */

/* One C parameter of a launcher: a source parameter, or one scalar of a
 * tuple parameter (nested tuples flattened, as Numba passes them). */
typedef struct CParam {
    const CType *type;
    const char *name;
    int ndim;                  /* an array view's; 0 for a scalar */
} CParam;

typedef struct Launcher {
    const ManifestKernel *k;
    int index;                 /* in the manifest */
    CParam *params;
    int count;
    int arrays, members;       /* array views and tuple scalars */
} Launcher;

static bool name_taken(const Launcher *l, int upto, const char *name) {
    for (int i = 0; i < upto; i++)
        if (!strcmp(l->params[i].name, name)) return true;
    return false;
}

/* A name for C parameter i: its own, with an underscore after it where
 * it is reserved (no reserved name ends in one), and more until no
 * earlier parameter has it. */
static const char *c_param_name(Arena *a, const Launcher *l, int i, const char *base) {
    const char *name = is_reserved(base) ? arena_printf(a, "%s_", base) : base;
    while (name_taken(l, i, name)) name = arena_printf(a, "%s_", name);
    return name;
}

static void add_param(Arena *a, Launcher *l, const char *dtype, const char *name, int ndim) {
    l->params[l->count] = (CParam){ctype_of(dtype), NULL, ndim};
    l->params[l->count].name = c_param_name(a, l, l->count, name);
    l->count++;
}

static Launcher launcher_of(Arena *a, const ManifestKernel *k, int index) {
    Launcher l = {.k = k, .index = index};
    int n = 0;
    for (int i = 0; i < k->param_count; i++) n += k->params[i].members ? k->params[i].member_count : 1;
    l.params = ARENA_ARRAY(a, CParam, n ? n : 1);
    for (int i = 0; i < k->param_count; i++) {
        const ManifestParam *p = &k->params[i];
        for (int j = 0; p->members && j < p->member_count; j++)
            add_param(a, &l, p->members[j], arena_printf(a, "%s_%d", p->name, j), 0);
        if (!p->members) add_param(a, &l, p->dtype, p->name, p->is_array ? p->ndim : 0);
        l.arrays += p->is_array && !p->record;
        l.members += p->members ? p->member_count : 0;
    }
    return l;
}

/* ---- text ---------------------------------------------------------------- */

typedef struct Emit {
    FILE *f;
    Arena *arena;
    const Manifest *m;
    const char *prefix;        /* of every name: the input's stem as a C identifier */
    const char *upper;         /* the same in capitals, for macros */
    Launcher *launchers;
    const char **names;        /* each launcher's function name */
} Emit;

/* Text for a comment: "*" and "/" never meet. */
static void put_comment(FILE *f, const char *s) {
    for (; *s; s++) {
        fputc(*s, f);
        if (s[0] == '*' && s[1] == '/') fputc(' ', f);
    }
}

/* A C string literal: printable ASCII but quotes and backslashes as is,
 * every other byte in octal. */
static void put_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= ' ' && *p < 127 && *p != '"' && *p != '\\' && *p != '?') fputc(*p, f);
        else fprintf(f, "\\%03o", *p);
    }
    fputc('"', f);
}

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The input's stem as a C identifier: bytes other than letters, digits
 * and '_' become '_', and "pyk_" goes before one that does not start with
 * a letter or that starts as pykrt's and the views' names do (pykrt.pyk's
 * pykrt_module would be pykrt.h's). */
static char *c_prefix(Arena *a, const char *input) {
    const char *base = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = arena_strndup(a, base, n);
    for (char *p = out; *p; p++)
        if (!is_letter(*p) && !(*p >= '0' && *p <= '9')) *p = '_';
    bool taken = !strncmp(out, "pykrt", 5) || !strncmp(out, "pykc", 4) || !strncmp(out, "PYKRT", 5) ||
                 !strncmp(out, "PYKC", 4);
    return !is_letter(out[0]) || taken ? arena_printf(a, "pyk_%s", out) : out;
}

static char *upper(Arena *a, const char *s) {
    char *out = arena_strdup(a, s);
    for (char *p = out; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    return out;
}

/* ---- the interface digest ------------------------------------------------ */

/* The digest libpykrt computes from the manifest it loads
 * (pk_interface_digest, docs/manifest.md): FNV-1a of each kernel's
 * `entry(type,type,...)` and a newline, a type being its dtype, an
 * array's with "[ndim]", a tuple's member dtypes in parentheses. */
static void put_interface_type(FILE *f, const ManifestParam *p) {
    if (!p->members) {
        fputs(p->dtype, f);
        if (p->is_array) fprintf(f, "[%d]", p->ndim);
        return;
    }
    fputc('(', f);
    for (int t = 0; t < p->member_count; t++) fprintf(f, "%s%s", t ? "," : "", p->members[t]);
    fputc(')', f);
}

static void interface_digest(const Manifest *m, char out[25]) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) ice("out of memory writing the interface digest");
    for (int i = 0; i < m->kernel_count; i++) {
        const ManifestKernel *k = &m->kernels[i];
        fprintf(f, "%s(", k->entry);
        for (int j = 0; j < k->param_count; j++) {
            fputs(j ? "," : "", f);
            put_interface_type(f, &k->params[j]);
        }
        fputs(")\n", f);
    }
    fclose(f);
    digest_fnv1a64(text, len, out);
    free(text);
}

/* ---- views and complex numbers, shared by every header ------------------ */

static void emit_complex(FILE *f, const CType *t) {
    const char *part = t->size == 8 ? "float" : "double";
    fprintf(f, "#ifndef PYKC_%s_DEFINED\n#define PYKC_%s_DEFINED\n", t->enumerator + 6, t->enumerator + 6);
    fprintf(f, "/* A %s scalar argument: its real and imaginary parts. */\n", t->dtype);
    fprintf(f, "typedef struct %s {\n    %s re, im;\n} %s;\n#endif\n\n", t->ctype, part, t->ctype);
}

/* A C- or F-contiguous view of shape n0, n1, ... at `data`. */
static void emit_view_contiguous(FILE *f, const char *view, const CType *t, int ndim, char order) {
    fprintf(f, "/* A%s-contiguous view of shape (n0", order == 'C' ? " C" : "n F");
    for (int d = 1; d < ndim; d++) fprintf(f, ", n%d", d);
    fputs(") at data. */\n", f);
    fprintf(f, "static inline %s %s_%c(pykrt_devptr data", view, view, order == 'C' ? 'c' : 'f');
    for (int d = 0; d < ndim; d++) fprintf(f, ", int64_t n%d", d);
    fprintf(f, ")\n{\n    %s v;\n    v.data = data;\n", view);
    for (int d = 0; d < ndim; d++) fprintf(f, "    v.shape[%d] = n%d;\n", d, d);
    int first = order == 'C' ? ndim - 1 : 0, step = order == 'C' ? -1 : 1;
    fprintf(f, "    v.strides[%d] = %d;\n", first, t->size);
    for (int d = first + step; d >= 0 && d < ndim; d += step)
        fprintf(f, "    v.strides[%d] = v.strides[%d] * n%d;\n", d, d - step, d - step);
    fputs("    return v;\n}\n\n", f);
}

/* The view of a pykrt_array, and the pykrt_array of a view. */
static void emit_view_conversions(FILE *f, const char *view, const CType *t, int ndim) {
    fprintf(f, "/* The view of array descriptor a: false, leaving *out alone, unless a is a\n"
               " * %d-d %s array. */\n", ndim, t->dtype);
    fprintf(f, "static inline bool %s_of(const pykrt_array *a, %s *out)\n{\n    int i;\n", view, view);
    fprintf(f, "    if (!a || !out || a->dtype != %s || a->ndim != %d)\n        return false;\n", t->enumerator, ndim);
    fprintf(f, "    out->data = a->data;\n    for (i = 0; i < %d; i++) {\n", ndim);
    fputs("        out->shape[i] = a->shape[i];\n        out->strides[i] = a->strides[i];\n    }\n"
          "    return true;\n}\n\n", f);
    fprintf(f, "/* The array descriptor of view v, as a launch takes it. */\n");
    fprintf(f, "static inline pykrt_array %s_array(%s v)\n{\n    pykrt_array a;\n    int i;\n", view, view);
    fprintf(f, "    memset(&a, 0, sizeof a);\n    a.data = v.data;\n    a.dtype = %s;\n    a.ndim = %d;\n",
            t->enumerator, ndim);
    fprintf(f, "    for (i = 0; i < %d; i++) {\n", ndim);
    fputs("        a.shape[i] = v.shape[i];\n        a.strides[i] = v.strides[i];\n    }\n    return a;\n}\n", f);
}

/* pykc_float32_2d: a 2-d float32 array in device memory. */
static void emit_view(FILE *f, const CType *t, int ndim) {
    const char *dtype = t->dtype;
    fprintf(f, "#ifndef PYKC_%s_%dD_DEFINED\n#define PYKC_%s_%dD_DEFINED\n", t->enumerator + 6, ndim,
            t->enumerator + 6, ndim);
    fprintf(f, "/* A %d-d %s array in device memory, as an array parameter of that dtype\n"
               " * and ndim takes it: shape in elements, strides in bytes. */\n", ndim, dtype);
    char view[48];
    snprintf(view, sizeof view, "pykc_%s_%dd", dtype, ndim);
    fprintf(f, "typedef struct %s {\n    pykrt_devptr data;\n    int64_t shape[%d];\n    int64_t strides[%d];\n} %s;\n\n",
            view, ndim, ndim, view);
    emit_view_contiguous(f, view, t, ndim, 'C');
    if (ndim > 1) emit_view_contiguous(f, view, t, ndim, 'F');
    emit_view_conversions(f, view, t, ndim);
    fputs("#endif\n\n", f);
}

/* Each complex type and array view the launchers use, in first use. */
static void emit_types(Emit *e, int count) {
    const char **seen = ARENA_ARRAY(e->arena, const char *, 1);
    int nseen = 0, cap = 1;
    for (int i = 0; i < count; i++)
        for (int j = 0; j < e->launchers[i].count; j++) {
            const CParam *p = &e->launchers[i].params[j];
            if (!p->type->arg || (!p->ndim && !is_complex(p->type->dtype))) continue;
            const char *key = arena_printf(e->arena, "%s/%d", p->type->dtype, p->ndim);
            bool known = false;
            for (int s = 0; s < nseen && !known; s++) known = !strcmp(seen[s], key);
            if (known) continue;
            seen = arena_grow(e->arena, seen, nseen, &cap, sizeof *seen, 8);
            seen[nseen++] = key;
            if (p->ndim) emit_view(e->f, p->type, p->ndim);
            else emit_complex(e->f, p->type);
        }
}

/* ---- the module and its loaders ------------------------------------------ */

/* NAME, or NAME_ ... where another name of the header has it. */
static const char *c_function_name(Emit *e, int index, const char *base) {
    static const char *const own[] = {"module", "bind", "load", "load_embedded", "unload", "embedded_manifest",
                                      "embedded_manifest_size", "embedded_images", "embedded_image_count"};
    const char *name = arena_printf(e->arena, "%s_%s", e->prefix, base);
    for (bool clash = true; clash;) {
        clash = false;
        for (size_t i = 0; i < sizeof own / sizeof own[0] && !clash; i++)
            clash = !strcmp(name, arena_printf(e->arena, "%s_%s", e->prefix, own[i]));
        for (int i = 0; i < index && !clash; i++) clash = !strcmp(name, e->names[i]);
        if (clash) name = arena_printf(e->arena, "%s_", name);
    }
    return name;
}

static void emit_head(Emit *e, const char *source, const char *digest, bool embedded) {
    FILE *f = e->f;
    const char *dot = strrchr(source, '.');
    const char *stem = dot && dot != source ? arena_strndup(e->arena, source, (size_t)(dot - source)) : source;
    fputs("/* ", f);
    put_comment(f, source);
    fprintf(f, ": typed launchers for its kernels%s, generated by pykc %s\n"
               " * (--emit %s); regenerate it rather than edit it. docs/runtime.md, Typed\n"
               " * launchers, describes them:\n *\n", embedded ? " and the module itself" : "", PYKC_VERSION,
            embedded ? "c" : "header");
    fprintf(f, " *     %s_module m;\n *     %s_load(ctx, \"", e->prefix, e->prefix);
    put_comment(f, stem);
    fprintf(f, ".yaml\", &m);    or %s_load_embedded(ctx, &m)\n", e->prefix);
    fprintf(f, " *     %s(&m, &config, arguments...);\n *     %s_unload(&m);\n */\n",
            e->m->kernel_count ? e->names[0] : arena_printf(e->arena, "%s_KERNEL", e->prefix), e->prefix);
    /* a source's unused static functions are clang's warning, a header's not */
    if (embedded)
        fputs("#if defined(__clang__)\n#pragma clang diagnostic push\n"
              "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n", f);
    fprintf(f, "#ifndef PYKC_%s_H\n#define PYKC_%s_H\n\n#include <pykrt.h>\n\n", e->upper, e->upper);
    fputs("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", f);
    fprintf(f, "/* The interface digest of the kernels this header was generated for: the\n"
               " * loaders have libpykrt compare it with the module's (pykrt_module_bind). */\n");
    fprintf(f, "#define %s_INTERFACE \"%s\"\n\n", e->upper, digest);
}

static void emit_module(Emit *e) {
    FILE *f = e->f;
    const char *p = e->prefix;
    int n = e->m->kernel_count;
    fprintf(f, "/* The module, loaded, and its kernels in the manifest's order. */\n"
               "typedef struct %s_module {\n    pykrt_module *module;\n", p);
    fprintf(f, "    pykrt_kernel *kernels[%d];\n} %s_module;\n\n", n ? n : 1, p);
    fputs("/* The module of `pykc --emit c`, where its source is linked in. */\n", f);
    fprintf(f, "extern const unsigned char %s_embedded_manifest[];\nextern const size_t %s_embedded_manifest_size;\n", p, p);
    fprintf(f, "extern const pykrt_image %s_embedded_images[];\nextern const size_t %s_embedded_image_count;\n\n", p, p);
    fputs("/* Describes in *out a module loaded otherwise (pykrt_module_load_ex), after\n"
          " * checking that its kernels are this header's; the module stays the\n * caller's. */\n", f);
    fprintf(f, "static inline pykrt_status %s_bind(pykrt_module *module, %s_module *out)\n{\n", p, p);
    fprintf(f, "    pykrt_status st = pykrt_module_bind(module, %s_INTERFACE, out ? out->kernels : NULL, %d);\n",
            e->upper, n);
    fputs("    if (st == PYKRT_SUCCESS && out)\n        out->module = module;\n    return st;\n}\n\n", f);
}

/* NAME_load and NAME_load_embedded: a load, then NAME_bind. */
static void emit_loader(Emit *e, bool embedded) {
    FILE *f = e->f;
    const char *p = e->prefix;
    if (embedded) {
        fputs("/* Loads the module embedded in the program (the source `pykc --emit c`\n"
              " * wrote, compiled and linked in). */\n", f);
        fprintf(f, "static inline pykrt_status %s_load_embedded(pykrt_context *ctx, %s_module *out)\n{\n", p, p);
    } else {
        fputs("/* Loads the module from its manifest (`pykc -o k.ptx` writes k.yaml). */\n", f);
        fprintf(f, "static inline pykrt_status %s_load(pykrt_context *ctx, const char *manifest_path, %s_module *out)\n{\n",
                p, p);
    }
    fputs("    pykrt_module *module = NULL;\n    pykrt_status st = ", f);
    if (embedded)
        fprintf(f, "pykrt_module_load_memory(ctx, (const char *)%s_embedded_manifest,\n"
                   "        %s_embedded_manifest_size, %s_embedded_images, %s_embedded_image_count, &module);\n",
                p, p, p, p);
    else fputs("pykrt_module_load(ctx, manifest_path, &module);\n", f);
    fprintf(f, "    if (st == PYKRT_SUCCESS && (st = %s_bind(module, out)) != PYKRT_SUCCESS)\n", p);
    fputs("        pykrt_module_unload(module);\n    return st;\n}\n\n", f);
}

static void emit_unload(Emit *e) {
    fputs("/* Unloads the module; its kernels become invalid. */\n", e->f);
    fprintf(e->f, "static inline pykrt_status %s_unload(%s_module *m)\n{\n", e->prefix, e->prefix);
    fputs("    pykrt_status st = pykrt_module_unload(m ? m->module : NULL);\n"
          "    if (st == PYKRT_SUCCESS && m)\n        m->module = NULL;\n    return st;\n}\n\n", e->f);
}

/* ---- launchers ----------------------------------------------------------- */

/* "float32[:, ::1]", as Numba spells an array type. */
static void put_numba_type(FILE *f, const ManifestParam *p) {
    fputs(p->dtype, f);
    if (!p->is_array) return;
    fputc('[', f);
    for (int d = 0; d < p->ndim; d++) {
        bool unit = (p->layout == 'C' && d == p->ndim - 1) || (p->layout == 'F' && d == 0);
        fprintf(f, "%s%s", d ? ", " : "", unit ? "::1" : ":");
    }
    fputc(']', f);
}

/* The kernel's source signature, and its entry where that is not its
 * name, as a comment wrapped after commas. */
static void emit_signature_comment(Emit *e, const Launcher *l) {
    const ManifestKernel *k = l->k;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) ice("out of memory writing C");
    fprintf(f, "%s(", k->name);
    for (int i = 0; i < k->param_count; i++) {
        fprintf(f, "%s%s: ", i ? ", " : "", k->params[i].name);
        put_numba_type(f, &k->params[i]);
    }
    fprintf(f, ")%s%s", strcmp(k->name, k->entry) ? ", entry " : "", strcmp(k->name, k->entry) ? k->entry : "");
    fclose(f);
    fputs("/* ", e->f);
    for (size_t col = 3, i = 0; i < len; i++, col++) {
        fputc(text[i], e->f);
        if (text[i] == ',' && i + 1 < len && text[i + 1] == ' ' && col > 80) {
            fputs("\n *", e->f);
            col = 2;
        }
    }
    fputs(" */\n", e->f);
    free(text);
}

static const char *c_param_type(Arena *a, const CParam *p) {
    if (p->ndim && p->type->arg) return arena_printf(a, "pykc_%s_%dd", p->type->dtype, p->ndim);
    return p->type->ctype;
}

static void emit_prototype(Emit *e, const Launcher *l, const char *name) {
    const char *lead = arena_printf(e->arena, "static inline pykrt_status %s(", name);
    const char **parts = ARENA_ARRAY(e->arena, const char *, l->count + 2);
    parts[0] = arena_printf(e->arena, "const %s_module *mod", e->prefix);
    parts[1] = "const pykrt_launch_config *config";
    size_t width = strlen(lead);
    for (int i = 0; i < l->count; i++) {
        const char *type = c_param_type(e->arena, &l->params[i]);
        parts[i + 2] = arena_printf(e->arena, "%s%s%s", type, type[strlen(type) - 1] == '*' ? "" : " ",
                                    l->params[i].name);
    }
    for (int i = 0; i < l->count + 2; i++) width += strlen(parts[i]) + 2;
    fputs(lead, e->f);
    for (int i = 0; i < l->count + 2; i++) /* one a line where they would not fit on one */
        fprintf(e->f, "%s%s", i == 0 ? "" : width > 110 ? ",\n    " : ", ", parts[i]);
    fputs(")\n", e->f);
}

/* args[i] for source parameter i, tuple scalars into members[] from *m on
 * and array descriptors into arrays[] from *a on, from C parameters *c on. */
static void emit_arg(Emit *e, const ManifestParam *p, int i, const CParam *c, int *a, int *m) {
    FILE *f = e->f;
    if (p->record) fprintf(f, "    args[%d] = pykrt_arg_array(%s);\n", i, c[0].name);
    else if (p->is_array) {
        fprintf(f, "    arrays[%d] = %s_array(%s);\n", *a, c_param_type(e->arena, c), c[0].name);
        fprintf(f, "    args[%d] = pykrt_arg_array(&arrays[%d]);\n", i, (*a)++);
    } else if (p->members) {
        for (int j = 0; j < p->member_count; j++) {
            const CParam *s = &c[j];
            if (is_complex(s->type->dtype)) fprintf(f, "    members[%d] = %s(%s.re, %s.im);\n", *m + j, s->type->arg, s->name, s->name);
            else fprintf(f, "    members[%d] = %s(%s);\n", *m + j, s->type->arg, s->name);
        }
        fprintf(f, "    args[%d] = pykrt_arg_tuple(&members[%d], %d);\n", i, *m, p->member_count);
        *m += p->member_count;
    } else if (is_complex(p->dtype)) fprintf(f, "    args[%d] = %s(%s.re, %s.im);\n", i, c->type->arg, c->name, c->name);
    else fprintf(f, "    args[%d] = %s(%s);\n", i, c->type->arg, c->name);
}

static void emit_launcher(Emit *e, const Launcher *l, const char *name) {
    FILE *f = e->f;
    const ManifestKernel *k = l->k;
    emit_signature_comment(e, l);
    emit_prototype(e, l, name);
    fputs("{\n", f);
    if (l->arrays) fprintf(f, "    pykrt_array arrays[%d];\n", l->arrays);
    if (l->members) fprintf(f, "    pykrt_arg members[%d];\n", l->members);
    if (k->param_count) fprintf(f, "    pykrt_arg args[%d];\n", k->param_count);
    for (int i = 0, c = 0, a = 0, m = 0; i < k->param_count; i++) {
        emit_arg(e, &k->params[i], i, &l->params[c], &a, &m);
        c += k->params[i].members ? k->params[i].member_count : 1;
    }
    fprintf(f, "    return pykrt_launch(mod ? mod->kernels[%d] : NULL, config, %s, %d);\n}\n\n", l->index,
            k->param_count ? "args" : "NULL", k->param_count);
}

/* ---- the embedded module (--emit c) -------------------------------------- */

static void put_bytes(FILE *f, const char *bytes, size_t len) {
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%s%u,", i % 20 == 0 ? "\n   " : "", (unsigned)(unsigned char)bytes[i]);
    fputs(len ? "\n" : "\n    0\n", f);
}

/* The file of image i: a target's, then a linked file's. */
static const char *image_file(const Manifest *m, int i) {
    return i < m->target_count ? m->targets[i].file : m->links[i - m->target_count].file;
}

static void emit_embedded(Emit *e, const Code *codes, const char *manifest, size_t manifest_len) {
    FILE *f = e->f;
    const char *p = e->prefix;
    int n = e->m->target_count + e->m->link_count;
    fputs("/* The module: each arch's PTX, the files it links, and the manifest that describes them. */\n", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "/* %s */\nstatic const unsigned char %s_image_%d[] = {",
                i < e->m->target_count ? e->m->targets[i].arch : "linked", p, i);
        put_bytes(f, codes[i].bytes, codes[i].len);
        fputs("};\n\n", f);
    }
    fputs("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", f);
    fprintf(f, "const unsigned char %s_embedded_manifest[] = {", p);
    put_bytes(f, manifest, manifest_len);
    fprintf(f, "};\n\nconst size_t %s_embedded_manifest_size = %zu;\n\n", p, manifest_len);
    fprintf(f, "const pykrt_image %s_embedded_images[] = {\n", p);
    for (int i = 0; i < n; i++) {
        fputs("    {", f);
        put_string(f, image_file(e->m, i));
        fprintf(f, ", %s_image_%d, sizeof %s_image_%d},\n", p, i, p, i);
    }
    fprintf(f, "};\n\nconst size_t %s_embedded_image_count = %d;\n\n", p, n);
    fputs("#ifdef __cplusplus\n}\n#endif\n", f);
}

/* ---- the whole --------------------------------------------------------- */

/* Each kernel's launcher: its C parameters and its function's name. */
static void plan_launchers(Emit *e) {
    int n = e->m->kernel_count;
    e->launchers = ARENA_ARRAY(e->arena, Launcher, n ? n : 1);
    e->names = ARENA_ARRAY(e->arena, const char *, n ? n : 1);
    for (int i = 0; i < n; i++) {
        e->launchers[i] = launcher_of(e->arena, &e->m->kernels[i], i);
        e->names[i] = c_function_name(e, i, e->m->kernels[i].entry);
    }
}

/* Whether kernel k is the copy of another for contiguous arrays: that
 * kernel's launcher runs it, as libpykrt picks it for contiguous
 * arguments. */
static bool contiguous_copy(const Manifest *m, const ManifestKernel *k) {
    for (int i = 0; i < m->kernel_count; i++)
        if (m->kernels[i].contiguous && !strcmp(m->kernels[i].contiguous, k->entry)) return true;
    return false;
}

static void emit_launchers(Emit *e) {
    int n = e->m->kernel_count;
    emit_types(e, n);
    emit_module(e);
    emit_loader(e, false);
    emit_loader(e, true);
    emit_unload(e);
    for (int i = 0; i < n; i++)
        if (!contiguous_copy(e->m, &e->m->kernels[i])) emit_launcher(e, &e->launchers[i], e->names[i]);
}

bool emitc_module(Unit *u, const Manifest *m, const Code *codes, const char *path, Outputs *outs) {
    char digest[25];
    interface_digest(m, digest);
    const char *input = u->opts->input;
    const char *source = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
    Emit e = {.arena = u->arena, .m = m, .prefix = c_prefix(u->arena, input)};
    e.upper = upper(u->arena, e.prefix);
    char *text = NULL, *manifest = NULL;
    size_t len = 0, manifest_len = 0;
    if (codes && !(manifest = manifest_render(m, &manifest_len, u->diag))) return false;
    if (!(e.f = open_memstream(&text, &len))) ice("out of memory writing C");
    plan_launchers(&e);
    emit_head(&e, source, digest, codes != NULL);
    emit_launchers(&e);
    fputs("#ifdef __cplusplus\n}\n#endif\n\n", e.f);
    fprintf(e.f, "#endif /* PYKC_%s_H */\n", e.upper);
    if (codes) {
        fputs("#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n\n", e.f);
        emit_embedded(&e, codes, manifest, manifest_len);
    }
    fclose(e.f);
    bool ok = output_add(outs, path, text, len);
    free(text);
    free(manifest);
    return ok;
}
