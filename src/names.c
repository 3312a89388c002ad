/*
 * names.c - every name pykc knows, as Markdown: the generated part of
 * docs/language.md (pykc --list-names; tools/gen-language-doc.sh writes it
 * into the doc and the docs suite fails when the doc differs). Read from
 * the entity table and the cuda.jit options themselves, so the doc lists
 * exactly what the compiler accepts.
 */
#include "pykc.h"

#include <string.h>

/* The module of a dotted path: what precedes its last dot. */
static size_t module_len(const char *path) {
    const char *dot = strrchr(path, '.');
    return dot ? (size_t)(dot - path) : 0;
}

static bool same_module(const Entity *a, const Entity *b) {
    size_t n = module_len(a->path);
    return n == module_len(b->path) && strncmp(a->path, b->path, n) == 0;
}

/* Whether entry i is the first name of its module (modules themselves are
 * listed apart): each module's section is printed once. */
static bool first_of_module(int i) {
    for (int k = 0; k < i; k++)
        if (entity_at(k)->kind != ENT_MODULE && same_module(entity_at(k), entity_at(i))) return false;
    return true;
}

static bool is_module(const Entity *e, const char *module) {
    size_t n = module_len(e->path);
    return strlen(module) == n && strncmp(e->path, module, n) == 0;
}

static bool is_lead(const Entity *e, const char *const *lead, size_t count) {
    for (size_t k = 0; k < count; k++)
        if (is_module(e, lead[k])) return true;
    return false;
}

static const char *kind_word(const Entity *e) {
    if (entity_refusal(e)) return "refused";
    switch (e->kind) {
    case ENT_FUNCTION: return "functions";
    case ENT_DTYPE: return "types";
    case ENT_DIM3: case ENT_VALUE: return "values";
    case ENT_CLASS: case ENT_CLASS_FACTORY: return "classes";
    case ENT_TUPLE_TYPE: return "tuple types";
    case ENT_DECLARE_DEVICE: return "declarations";
    case ENT_EXCEPTION: return "exceptions";
    case ENT_MODULE: break;
    }
    return "modules";
}

static const char *section_title(const char *module, size_t n) {
    static const struct { const char *module, *title; } titles[] = {
        {"builtins", "Built-ins (no import)"},
        {"method", "Methods of scalars (`z.conjugate()`, `n.bit_count()`)"},
        {"GridGroup", "Methods of `cuda.cg.this_grid()`'s group"},
    };
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (strlen(titles[i].module) == n && strncmp(titles[i].module, module, n) == 0) return titles[i].title;
    return NULL;
}

/* One name of a line: `name`, `alias` (float32), `name` (use X instead). */
static void print_name(FILE *out, Arena *a, const Entity *e, bool first) {
    const char *name = e->path + module_len(e->path) + 1;
    fprintf(out, "%s`%s`", first ? "" : ", ", name);
    if (entity_refusal(e)) fprintf(out, " (use %s)", entity_refusal(e));
    else if (e->kind == ENT_DTYPE) {
        const char *t = type_name(a, e->type);
        if (strcmp(t, name) != 0) fprintf(out, " (%s)", t);
    } else if (e->kind == ENT_VALUE && e->lower == LW_CONSTANT) fprintf(out, " (%s)", e->lower_name);
}

/* The names of one module with one kind word, in table order. */
static void print_kind(FILE *out, Arena *a, const Entity *m, const char *kind) {
    bool first = true;
    for (int i = 0; entity_at(i); i++) {
        const Entity *e = entity_at(i);
        if (e->kind == ENT_MODULE || !same_module(e, m) || strcmp(kind_word(e), kind) != 0) continue;
        if (first) fprintf(out, "- %s: ", kind);
        print_name(out, a, e, first);
        first = false;
    }
    if (!first) fputc('\n', out);
}

static void print_module(FILE *out, Arena *a, const Entity *m) {
    static const char *const kinds[] = {"values", "functions", "types", "tuple types", "classes",
                                        "declarations", "exceptions", "refused"};
    size_t n = module_len(m->path);
    const char *title = section_title(m->path, n);
    if (title) fprintf(out, "\n### %s\n\n", title);
    else fprintf(out, "\n### `%.*s`\n\n", (int)n, m->path);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) print_kind(out, a, m, kinds[k]);
}

static void print_jit_options(FILE *out) {
    fputs("\n### `cuda.jit` options\n\n| option | in pykc |\n|---|---|\n", out);
    const char *why;
    bool refused;
    for (int i = 0; sema_jit_option(i, &why, &refused); i++) {
        const char *name = sema_jit_option(i, &why, &refused);
        fprintf(out, "| `%s` | %s%s |\n", name, why ? (refused ? "refused: " : "no effect: ") : "applied",
                why ? why : "");
    }
}

void names_list(FILE *out) {
    Arena a = {0};
    fputs("Modules a kernel file may import from:", out);
    for (int i = 0, first = 1; entity_at(i); i++)
        if (entity_at(i)->kind == ENT_MODULE) fprintf(out, "%s `%s`", first ? "" : ",", entity_at(i)->path), first = 0;
    fputs(".\n", out);
    /* what kernels use most first, then the rest in table order */
    static const char *const lead[] = {"numba.cuda", "numba", "math", "builtins"};
    for (size_t k = 0; k < sizeof lead / sizeof lead[0]; k++)
        for (int i = 0; entity_at(i); i++)
            if (entity_at(i)->kind != ENT_MODULE && first_of_module(i) && is_module(entity_at(i), lead[k]))
                print_module(out, &a, entity_at(i));
    for (int i = 0; entity_at(i); i++)
        if (entity_at(i)->kind != ENT_MODULE && first_of_module(i) && !is_lead(entity_at(i), lead, sizeof lead / sizeof lead[0]))
            print_module(out, &a, entity_at(i));
    print_jit_options(out);
    arena_release(&a);
}
