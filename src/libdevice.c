/*
 * libdevice.c - CUDA's libdevice (libdevice.10.bc), the math library that
 * Numba's kernels call, for the targets that link it: where it is found,
 * the functions a module calls linked into it and made internal, the
 * questions it asks through __nvvm_reflect answered, and its arithmetic
 * contracted as Numba's toolchain contracts it. nvptx.c links it for the
 * GPU; host.c for the CPU, its NVVM intrinsics lowered as the CPU computes
 * them (hostlib.c).
 */
#include "backend.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool libdevice_is_name(const char *name) { return strncmp(name, "__nv_", 5) == 0; }


bool libdevice_is_ftz_copy(const char *name, size_t len) {
    size_t n = sizeof LIBDEVICE_FTZ_SUFFIX - 1;
    return len >= n && memcmp(name + len - n, LIBDEVICE_FTZ_SUFFIX, n) == 0;
}


/* The first libdevice function the module calls, or NULL. */
const char *libdevice_first_call(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) && libdevice_is_name(name)) return name;
    }
    return NULL;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where libdevice.10.bc is, into path: --libdevice alone if given (a path
 * the user names is never silently replaced), else $CUDA_HOME, then
 * /usr/local/cuda; false if not there. *from_env: the $CUDA_HOME candidate,
 * or "" when CUDA_HOME is not set. */
bool libdevice_search(const char *given, char *path, size_t size, char from_env[4096]) {
    from_env[0] = '\0';
    if (given) {
        snprintf(path, size, "%s", given);
        return is_file(path);
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(from_env, 4096, "%s%s", home, LIBDEVICE_SUBPATH);
        snprintf(path, size, "%s", from_env);
        if (is_file(path)) return true;
    }
    snprintf(path, size, "%s%s", DEFAULT_CUDA_HOME, LIBDEVICE_SUBPATH);
    return is_file(path);
}

/* Finds libdevice into path; on failure reports what was searched. */
bool libdevice_find(const TargetConfig *cfg, const char *caller, char *path, size_t size, Diag *d) {
    char from_env[4096];
    if (libdevice_search(cfg->libdevice, path, size, from_env)) return true;
    if (cfg->libdevice) {
        diag_plain(d, DIAG_ERROR, "libdevice not found at '%s' (given with --libdevice)", path);
        return false;
    }
    diag_plain(d, DIAG_ERROR, "the module calls %s, a libdevice math function, but libdevice.10.bc was not found", caller);
    diag_plain(d, DIAG_NOTE, "searched %s and %s%s", from_env[0] ? from_env : "$CUDA_HOME (not set)",
               DEFAULT_CUDA_HOME, LIBDEVICE_SUBPATH);
    diag_plain(d, DIAG_NOTE, "install the CUDA toolkit, set CUDA_HOME, or give the file with --libdevice PATH");
    return false;
}

/* Collects the first error that LLVM reports through the context's
 * diagnostic handler while libdevice is read and linked: the default
 * handler would print it and exit. */
typedef struct LinkDiag {
    char *error;
    LLVMDiagnosticHandler old_handler;
    void *old_context;
} LinkDiag;

static void on_link_diagnostic(LLVMDiagnosticInfoRef info, void *opaque) {
    LinkDiag *ld = opaque;
    if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || ld->error) return;
    char *text = LLVMGetDiagInfoDescription(info);
    ld->error = strdup(text);
    LLVMDisposeMessage(text);
}

static void link_diag_begin(LinkDiag *ld, LLVMContextRef ctx) {
    ld->error = NULL;
    ld->old_handler = LLVMContextGetDiagnosticHandler(ctx);
    ld->old_context = LLVMContextGetDiagnosticContext(ctx);
    LLVMContextSetDiagnosticHandler(ctx, on_link_diagnostic, ld);
}

static void link_diag_end(LinkDiag *ld, LLVMContextRef ctx) {
    LLVMContextSetDiagnosticHandler(ctx, ld->old_handler, ld->old_context);
    free(ld->error);
}

/* Opens libdevice lazily: a function's body is read only if it is linked. */
static LLVMModuleRef load_libdevice(LLVMContextRef ctx, const char *path, LinkDiag *ld, Diag *d) {
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
        diag_plain(d, DIAG_ERROR, "cannot read libdevice '%s': %s", path, msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMModuleRef lib = NULL;
    if (LLVMGetBitcodeModuleInContext2(ctx, buf, &lib)) { /* takes buf on success only */
        LLVMDisposeMemoryBuffer(buf);
        diag_plain(d, DIAG_ERROR, "'%s' is not valid LLVM bitcode%s%s", path, ld->error ? ": " : "",
                   ld->error ? ld->error : "");
        return NULL;
    }
    return lib;
}

/* Makes the linker take only what m calls. Each libdevice function that m
 * does not declare becomes internal, and the linker brings an internal
 * function over only when something it links refers to it. Linking all
 * 352 and letting the optimiser drop them costs ~100 ms; this, ~2 ms. */
static void select_needed(LLVMModuleRef lib, LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (!LLVMIsDeclaration(fn) && !LLVMGetNamedFunction(m, name)) LLVMSetLinkage(fn, LLVMInternalLinkage);
    }
}

/* Links lib into m (lib is consumed), reporting the linker's errors. */
static bool link_into(LLVMModuleRef m, LLVMModuleRef lib, const char *path, LinkDiag *ld, Diag *d) {
    /* libdevice says nvptx64-nvidia-gpulibs and an older layout; made equal
     * to m's, the linker has nothing to warn about. */
    LLVMSetTarget(lib, LLVMGetTarget(m));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
    select_needed(lib, m);
    if (!LLVMLinkModules2(m, lib)) return true;
    diag_plain(d, DIAG_ERROR, "cannot link libdevice '%s': %s", path, ld->error ? ld->error : "unknown error");
    return false;
}

/* Gives the libdevice functions that m called internal linkage too, so
 * that once inlined they are dead and the optimiser drops them. */
void libdevice_internalize(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        if (!LLVMIsDeclaration(fn) && libdevice_is_name(LLVMGetValueName2(fn, &len)))
            LLVMSetLinkage(fn, LLVMInternalLinkage);
    }
}


/* Whether v, the argument of a reflect call, is the string `name`: a
 * global constant, possibly behind a GEP or cast (older bitcode). */
static bool is_reflect_name(LLVMValueRef v, const char *name) {
    while (LLVMIsAConstantExpr(v)) {
        LLVMOpcode op = LLVMGetConstOpcode(v);
        if (op != LLVMGetElementPtr && op != LLVMAddrSpaceCast && op != LLVMBitCast) return false;
        v = LLVMGetOperand(v, 0);
    }
    if (!LLVMIsAGlobalVariable(v)) return false;
    LLVMValueRef init = LLVMGetInitializer(v);
    if (!init || !LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init)) return false;
    size_t len, n = strlen(name);
    const char *s = LLVMGetAsString(init, &len);
    return len >= n && memcmp(s, name, n) == 0 && (len == n || s[n] == '\0');
}

/* The first call of reflect function fn that asks for name, or NULL. */
LLVMValueRef libdevice_find_reflect(LLVMValueRef fn, const char *name) {
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef call = LLVMGetUser(u);
        if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == fn && is_reflect_name(LLVMGetOperand(call, 0), name))
            return call;
    }
    return NULL;
}


/* The value of `a pred b` for constants. */
static bool compare_constants(LLVMIntPredicate pred, long long a, long long b) {
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    switch (pred) {
    case LLVMIntEQ: return a == b;
    case LLVMIntNE: return a != b;
    case LLVMIntSGT: return a > b;
    case LLVMIntSGE: return a >= b;
    case LLVMIntSLT: return a < b;
    case LLVMIntSLE: return a <= b;
    case LLVMIntUGT: return ua > ub;
    case LLVMIntUGE: return ua >= ub;
    case LLVMIntULT: return ua < ub;
    default: return ua <= ub;
    }
}

/* Replaces a reflect call by its answer and folds the comparisons of it
 * (libdevice's `icmp ne i32 %r, 0` and friends), as NVVMReflect does, so
 * that the branches on them are constant when the pipeline starts. */
void libdevice_replace_reflect(LLVMValueRef call, int value) {
    LLVMValueRef answer = LLVMConstInt(LLVMTypeOf(call), (unsigned long long)value, false);
    for (LLVMUseRef u = LLVMGetFirstUse(call), next; u; u = next) {
        next = LLVMGetNextUse(u);
        LLVMValueRef cmp = LLVMGetUser(u);
        if (!LLVMIsAICmpInst(cmp)) continue;
        LLVMValueRef a = LLVMGetOperand(cmp, 0), b = LLVMGetOperand(cmp, 1);
        long long va = a == call ? value : LLVMIsAConstantInt(a) ? LLVMConstIntGetSExtValue(a) : 0;
        long long vb = b == call ? value : LLVMIsAConstantInt(b) ? LLVMConstIntGetSExtValue(b) : 0;
        if ((a != call && !LLVMIsAConstantInt(a)) || (b != call && !LLVMIsAConstantInt(b))) continue;
        bool r = compare_constants(LLVMGetICmpPredicate(cmp), va, vb);
        LLVMReplaceAllUsesWith(cmp, LLVMConstInt(LLVMInt1TypeInContext(LLVMGetTypeContext(LLVMTypeOf(cmp))), r, false));
        LLVMInstructionEraseFromParent(cmp);
    }
    LLVMReplaceAllUsesWith(call, answer);
    LLVMInstructionEraseFromParent(call);
}


/* The functions m defines: before linking, pykc's own. */

LibdeviceOwn libdevice_own_functions(LLVMModuleRef m) {
    LibdeviceOwn set = {NULL, 0};
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) set.n += !LLVMIsDeclaration(fn);
    set.fns = malloc((set.n ? set.n : 1) * sizeof *set.fns);
    if (!set.fns) ice("out of memory listing functions");
    set.n = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) set.fns[set.n++] = fn;
    return set;
}

static bool is_own(const LibdeviceOwn *set, LLVMValueRef fn) {
    for (size_t i = 0; i < set->n; i++)
        if (set->fns[i] == fn) return true;
    return false;
}

/* Numba's PTX leaves libdevice's a*b+c as mul.f64 and add.f64, which the
 * driver's PTX compiler fuses into fma, as it does Numba's own; pykc's
 * back end writes mul.rn and add.rn, never fused after it, so it fuses
 * them itself, where they carry the contract flag (libdevice's bitcode
 * leaves it off). */
static void contract_function(LLVMValueRef fn) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(inst);
            if (op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul)
                LLVMSetFastMathFlags(inst, LLVMGetFastMathFlags(inst) | LLVMFastMathAllowContract);
        }
}

/* Loads libdevice and links into m what m calls; prepare (or NULL) sees
 * the library first (the GPU's flush-to-zero copy renames it). */
bool libdevice_link(LLVMModuleRef m, const char *path, void (*prepare)(LLVMModuleRef lib), Diag *d) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LinkDiag ld;
    link_diag_begin(&ld, ctx);
    LLVMModuleRef lib = load_libdevice(ctx, path, &ld, d);
    if (lib && prepare) prepare(lib);
    bool linked = lib && link_into(m, lib, path, &ld, d);
    link_diag_end(&ld, ctx);
    return linked;
}

/* Answers every reflect call for `name`: `ftz` in functions of the
 * flush-to-zero copy, else `plain`. Erasing a call invalidates the use list
 * being walked, so each search starts again. */
void libdevice_answer(LLVMModuleRef m, const char *name, int plain, int ftz) {
    static const char *const reflect_fns[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
    for (size_t i = 0; i < sizeof reflect_fns / sizeof reflect_fns[0]; i++) {
        LLVMValueRef fn = LLVMGetNamedFunction(m, reflect_fns[i]), call;
        while (fn && (call = libdevice_find_reflect(fn, name))) {
            size_t len;
            const char *in = LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)), &len);
            libdevice_replace_reflect(call, libdevice_is_ftz_copy(in, len) ? ftz : plain);
        }
    }
}

/* Contracts the arithmetic of every function m defines that `own` does not
 * list: libdevice's, once linked. */
void libdevice_contract(LLVMModuleRef m, const LibdeviceOwn *own) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn) && !is_own(own, fn)) contract_function(fn);
}
