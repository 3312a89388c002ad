/*
 * target.c - the targets pykc compiles for, and the back half of the
 * pipeline that runs through them.
 *
 * main.c names a target (--target, default nvptx), gets its IR from
 * codegen.c in an IrModule made here, then runs target_link,
 * target_optimize and target_emit, each a call of the target's own
 * function (backend.h). What every target shares lives here: the module's
 * context and lifetime, and the IR as text (--emit llvm).
 */
#include "backend.h"

#include <llvm-c/Analysis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The targets, the first the default. A new target is a file defining a
 * Target and a line here. */
static const Target *const targets[] = {&target_nvptx, &target_host};

const Target *target_find(const char *name) {
    if (!name) return targets[0];
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i]->name, name) == 0) return targets[i];
    return NULL;
}

const char *target_default_arch(const Target *t) { return t->default_arch; }

const Target *target_of_arch(const Target *preferred, const char *arch) {
    if (preferred->knows_arch(arch)) return preferred;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (targets[i]->knows_arch(arch)) return targets[i];
    return preferred;
}

EmitKind target_code_kind(const Target *t) { return t->code_kind; }

bool target_emits(const Target *t, EmitKind kind) {
    switch (kind) {
    case EMIT_PTX: case EMIT_CUBIN: case EMIT_OBJECT: case EMIT_SHARED: return (t->emit_kinds >> kind) & 1;
    default: return true; /* the IR, and what describes the code */
    }
}

bool target_check_arch(const Target *t, const char *arch, Diag *d) { return t->check_arch(arch, d); }

void target_describe(const Target *t, FILE *out, const char *libdevice) {
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    fprintf(out, "LLVM %u.%u.%u\n", major, minor, patch);
    fprintf(out, "target: %s%s, default arch %s\n", t->name, t == targets[0] ? " (the default)" : "", t->default_arch);
    t->describe(out, libdevice);
}

IrModule *ir_module_new(const TargetConfig *cfg, const char *name, Diag *d) {
    IrModule *m = calloc(1, sizeof *m);
    if (!m) ice("out of memory making a module");
    m->cfg = cfg;
    m->ctx = LLVMContextCreate();
    m->mod = LLVMModuleCreateWithNameInContext(name, m->ctx);
    if (cfg->target->prepare(m, d)) return m;
    ir_module_free(m);
    return NULL;
}

void ir_module_free(IrModule *m) {
    if (!m) return;
    if (m->machine) LLVMDisposeTargetMachine(m->machine);
    LLVMDisposeModule(m->mod);
    LLVMContextDispose(m->ctx);
    free(m);
}

bool target_link(IrModule *m, Diag *d) { return m->cfg->target->link(m, d); }

void ir_verify(LLVMModuleRef m, const char *what) {
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        char *ir = LLVMPrintModuleToString(m);
        fprintf(stderr, "%s\n", ir);
        LLVMDisposeMessage(ir);
        ice("%s does not verify: %s", what, msg);
    }
    LLVMDisposeMessage(msg);
}

/* A target's optimise step ends with pykc's own rewrites of the optimised
 * module (contract.c, sregs.c, balance.c ...): the verifier checks them. */
bool target_optimize(IrModule *m, Diag *d) {
    if (!m->cfg->target->optimize(m, d)) return false;
    ir_verify(m->mod, "the IR after pykc's passes over the optimised module");
    return true;
}

/* The module's IR as text. */
static bool print_module(IrModule *m, Code *out) {
    char *ir = LLVMPrintModuleToString(m->mod);
    out->len = strlen(ir);
    out->bytes = malloc(out->len + 1);
    if (!out->bytes) ice("out of memory printing the IR");
    memcpy(out->bytes, ir, out->len + 1);
    out->version[0] = '\0';
    LLVMDisposeMessage(ir);
    return true;
}

void code_free(Code *c) {
    for (int i = 0; i < c->resource_count; i++) free(c->resources[i].entry);
    free(c->resources);
    free(c->bytes);
    *c = (Code){0};
}

bool target_emit(IrModule *m, EmitKind kind, Code *out, Diag *d) {
    if (kind == EMIT_LLVM) return print_module(m, out);
    return m->cfg->target->emit(m, kind, out, d);
}
