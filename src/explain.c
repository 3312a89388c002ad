/*
 * explain.c - why a local has its type (--explain-types NAME).
 *
 * Numba types each SSA version of a local on its own: every assignment
 * makes a version of the type of what is assigned, and where versions
 * meet (after a branch, at a loop's head) a merge version unifies them
 * (Number.unify: int64 and float64 make float64). A local's type is its
 * versions' story, which this tells as notes at each assignment and merge,
 * in the order Numba renamed them, function by function.
 */
#include "pykc.h"

#include <string.h>

static bool is_version_of(const Sym *s, const char *name) {
    const Sym *first = s->base ? s->base : s;
    return first->name && strcmp(first->name, name) == 0;
}

/* "x (int64), x.1 (float64)": the versions a merge unifies, once each. */
static const char *incoming_list(Arena *a, const Sym *phi) {
    const char *text = "";
    for (int i = 0; i < phi->incoming_count; i++) {
        const Sym *in = phi->incoming[i];
        bool seen = !in || in == phi;
        for (int j = 0; j < i && !seen; j++) seen = phi->incoming[j] == in;
        if (seen) continue;
        text = arena_printf(a, "%s%s'%s' (%s)", text, *text ? ", " : "", in->name, in->ty ? type_name(a, in->ty) : "untyped");
    }
    return text;
}

static void explain_version(const Unit *u, const Sym *v) {
    const char *t = v->ty ? type_name(u->arena, v->ty) : "untyped";
    if (v->kind == SYM_PARAM)
        diag_note(u->diag, v->def, "'%s' is a parameter: %s", v->name, t);
    else if (v->is_phi)
        diag_note(u->diag, v->merged, "'%s' is where %s meet: they unify to %s", v->name, incoming_list(u->arena, v), t);
    else
        diag_note(u->diag, v->assigned, "'%s' is %s, the type of what is assigned here", v->name, t);
}

static int count_versions(const FuncInfo *f, const char *name) {
    int n = 0;
    for (int i = 0; i < f->param_count; i++) n += is_version_of(f->params[i], name);
    for (int i = 0; i < f->local_count; i++) n += f->locals[i]->kind != SYM_PARAM && is_version_of(f->locals[i], name);
    return n;
}

/* The versions of name in f, parameter first, in the order Numba made them. */
static void explain_function(const Unit *u, const FuncInfo *f, const char *name) {
    diag_note(u->diag, f->def->span, "in %s '%s', '%s' has %d version%s:", f->is_kernel ? "kernel" : "device function",
              f->def->name, name, count_versions(f, name), count_versions(f, name) == 1 ? "" : "s");
    for (int i = 0; i < f->param_count; i++)
        if (is_version_of(f->params[i], name)) explain_version(u, f->params[i]);
    for (int i = 0; i < f->local_count; i++)
        if (f->locals[i]->kind != SYM_PARAM && is_version_of(f->locals[i], name)) explain_version(u, f->locals[i]);
}

void explain_types(const Unit *u, const char *name) {
    bool told = false;
    for (int i = 0; i < u->func_count; i++) {
        const FuncInfo *f = u->funcs[i];
        if (f->abstract || f->imported || f->contiguous_of || !f->typed || !count_versions(f, name)) continue;
        explain_function(u, f, name);
        told = true;
    }
    if (!told) diag_plain(u->diag, DIAG_ERROR, "--explain-types: no function has a local or parameter named '%s'", name);
}
