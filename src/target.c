/*
 * target.c - the NVPTX back end: from a module of LLVM IR to PTX or a cubin.
 *
 * Takes the module that codegen built (kernels in the PTX kernel calling
 * convention, libdevice's __nv_* math functions left as declarations) and a
 * TargetConfig. Gives, one call each: the triple and data layout
 * (target_prepare_module), libdevice linked in (target_link_libdevice), the
 * new pass manager's pipeline run (target_optimize), PTX text
 * (target_emit_ptx) and a cubin assembled by the toolkit's ptxas
 * (target_assemble_cubin). Assumes LLVM 19 to 22 through its C API only,
 * a target machine a thread (split.c), and one module per arch: linking and optimising fold
 * __CUDA_ARCH, so a module serves the arch it was prepared for.
 *
 * The floating-point model follows Numba (NVVM) and nvcc:
 *  - a*b+c fuses into fma.rn: codegen sets the `contract` flag on fadd,
 *    fsub and fmul, which the NVPTX back end fuses at every -O level;
 *  - --fastmath (Numba's fastmath=True: NVVM's ftz=1 prec-div=0 prec-sqrt=0)
 *    gives every function the attributes below, so that f32 division and
 *    square root use div.approx / sqrt.approx and f32 arithmetic flushes
 *    denormals (.ftz), and sets the module flag nvvm-reflect-ftz so that
 *    libdevice takes its flush-to-zero paths; codegen also sets the `fast`
 *    flags on floating-point instructions, which later LLVMs read instead.
 */
#include "pykc.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define TRIPLE "nvptx64-nvidia-cuda"
#define LIBDEVICE_SUBPATH "/nvvm/libdevice/libdevice.10.bc"
#define DEFAULT_CUDA_HOME "/usr/local/cuda"
#define DEBUG_PTX 75

/* ---- architectures ---------------------------------------------------- */

/* The archs pykc targets. `ptx` is the oldest PTX ISA (times ten) that the
 * CUDA toolkit accepts for the arch: asking for it explicitly keeps the
 * .version as old as it can be, so the PTX loads on the oldest driver that
 * knows the arch, whatever default a given LLVM picks. `llvm` is the first
 * LLVM whose NVPTX back end knows the arch. sm_101 is absent: CUDA 13
 * renamed it sm_110. */
typedef struct ArchInfo {
    const char *name;
    int ptx;
    int llvm;
} ArchInfo;

static const ArchInfo arch_table[] = {
    {"sm_75", 63, 19},   {"sm_80", 70, 19},   {"sm_86", 71, 19},   {"sm_87", 74, 19},
    {"sm_89", 78, 19},   {"sm_90", 78, 19},   {"sm_90a", 80, 19},  {"sm_100", 86, 20},
    {"sm_100a", 86, 20}, {"sm_120", 87, 20},  {"sm_120a", 87, 20}, {"sm_103", 88, 21},
    {"sm_103a", 88, 21}, {"sm_121", 88, 21},  {"sm_121a", 88, 21}, {"sm_110", 90, 22},
    {"sm_110a", 90, 22},
};

static const ArchInfo *find_arch(const char *arch, Diag *d) {
    for (size_t i = 0; i < sizeof arch_table / sizeof arch_table[0]; i++) {
        const ArchInfo *a = &arch_table[i];
        if (strcmp(a->name, arch) != 0) continue;
        if (a->llvm > LLVM_VERSION_MAJOR) {
            diag_plain(d, DIAG_ERROR, "architecture '%s' needs LLVM %d or newer; pykc was built with LLVM %d",
                       arch, a->llvm, LLVM_VERSION_MAJOR);
            return NULL;
        }
        return a;
    }
    diag_plain(d, DIAG_ERROR, "unsupported architecture '%s'", arch);
    return NULL;
}

/* ---- the target machine ----------------------------------------------- */

/* LLVM reports its own bugs through report_fatal_error; those are pykc's
 * internal errors, not the user's. */
static void on_llvm_fatal(const char *reason) { ice("LLVM: %s", reason); }

/* Four passes of the back end's pipeline that ptxas makes moot: over the 105
 * kernels of tests/gpu and samples, sm_90 SASS came out instruction for
 * instruction the same without them (ptxas lays out blocks, hoists and
 * materialises constants itself), and the anchors compile in 2 M fewer
 * instructions (1.6%). And no linear function test replacement in indvars:
 * rewriting a loop's exit test onto another induction variable left ptxas
 * more to do, not less; without it the 72 modules of tests/gpu and samples
 * assemble to 1% fewer sm_90 SASS instructions (ten smaller, none larger),
 * and the anchors compile in 2% fewer instructions. Options of LLVM's
 * command line are process-wide: set once, before any pipeline is built. */
static void set_llvm_options(void) {
    const char *const args[] = {"pykc", "-disable-block-placement", "-disable-machine-licm",
                                "-disable-constant-hoisting", "-disable-early-taildup", "-disable-lftr"};
    LLVMParseCommandLineOptions((int)(sizeof args / sizeof args[0]), args, NULL);
}

/* Registers the NVPTX back end, once, on the main thread: it prepares
 * every module before split.c starts threads. */
static void init_llvm(void) {
    static bool done;
    if (done) return;
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInstallFatalErrorHandler(on_llvm_fatal);
    set_llvm_options();
    done = true;
}

/* DWARF sections in PTX (-g) need PTX 7.5: ptxas refuses them in older
 * versions ("labels1 - labels2 expression in .section"). */
static int ptx_for(const ArchInfo *arch, const TargetConfig *cfg) {
    return cfg->debug_info && arch->ptx < DEBUG_PTX ? DEBUG_PTX : arch->ptx;
}

static LLVMCodeGenOptLevel codegen_level(int opt_level) {
    switch (opt_level) {
    case 0: return LLVMCodeGenLevelNone;
    case 1: return LLVMCodeGenLevelLess;
    /* Aggressive only swaps the back end's early CSE for GVN, which finds
     * nothing after the middle end's GVN: 6% of the compile time. */
    default: return LLVMCodeGenLevelDefault;
    }
}

/* The last target machine made on this thread, and what it was made for: a
 * compilation asks for the same one three times an arch, and making one
 * costs 50 to 500 microseconds. A target machine serves one thread at a
 * time (split.c runs one a thread). It lives until the process ends. */
static _Thread_local struct {
    const ArchInfo *arch;
    int ptx;
    LLVMCodeGenOptLevel level;
    LLVMTargetMachineRef tm;
} machine;

/* The target machine for cfg, owned by the cache above. */
static LLVMTargetMachineRef get_machine(const TargetConfig *cfg, Diag *d) {
    init_llvm();
    const ArchInfo *arch = find_arch(cfg->arch, d);
    if (!arch) return NULL;
    int ptx = ptx_for(arch, cfg);
    LLVMCodeGenOptLevel level = codegen_level(cfg->opt_level);
    if (machine.tm && machine.arch == arch && machine.ptx == ptx && machine.level == level) return machine.tm;
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(TRIPLE, &target, &msg)) {
        diag_plain(d, DIAG_ERROR, "LLVM has no NVPTX back end: %s", msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    char features[16];
    snprintf(features, sizeof features, "+ptx%d", ptx);
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(target, TRIPLE, arch->name, features, level, LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm) {
        diag_plain(d, DIAG_ERROR, "LLVM cannot make a target machine for %s", arch->name);
        return NULL;
    }
    if (machine.tm) LLVMDisposeTargetMachine(machine.tm);
    machine.arch = arch;
    machine.ptx = ptx;
    machine.level = level;
    machine.tm = tm;
    return tm;
}

void target_release_machine(void) {
    if (machine.tm) LLVMDisposeTargetMachine(machine.tm);
    machine.tm = NULL;
}

int target_ptx_isa(const TargetConfig *cfg) {
    const ArchInfo *arch = NULL;
    for (size_t i = 0; i < sizeof arch_table / sizeof arch_table[0] && !arch; i++)
        if (!strcmp(arch_table[i].name, cfg->arch)) arch = &arch_table[i];
    return arch ? ptx_for(arch, cfg) : 0;
}

bool target_prepare_module(LLVMModuleRef m, const TargetConfig *cfg, Diag *d) {
    LLVMTargetMachineRef tm = get_machine(cfg, d);
    if (!tm) return false;
    LLVMSetTarget(m, TRIPLE);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, layout);
    LLVMDisposeTargetData(layout);
    return true;
}

/* ---- the floating-point model ----------------------------------------- */

/* What --fastmath means to LLVM 19's NVPTX back end, per function:
 * "unsafe-fp-math" selects div.approx.f32 and sqrt.approx.f32 (and fusion);
 * "denormal-fp-math-f32" selects the .ftz forms. The others say what the
 * `fast` flags say, for the optimiser. */
static const struct { const char *key, *value; } fastmath_attrs[] = {
    {"unsafe-fp-math", "true"},          {"no-infs-fp-math", "true"},
    {"no-nans-fp-math", "true"},         {"no-signed-zeros-fp-math", "true"},
    {"approx-func-fp-math", "true"},     {"denormal-fp-math-f32", "preserve-sign,preserve-sign"},
};

/* Every definition gets them, libdevice's too: inlining ANDs a caller's
 * "unsafe-fp-math" with the callee's, and libdevice says "false". Setting a
 * string attribute replaces it, so calling this twice is harmless. */
void target_mark_fastmath(LLVMValueRef fn) {
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
    for (size_t i = 0; i < sizeof fastmath_attrs / sizeof fastmath_attrs[0]; i++) {
        const char *k = fastmath_attrs[i].key, *v = fastmath_attrs[i].value;
        LLVMAttributeRef a = LLVMCreateStringAttribute(ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
}

/* ---- libdevice -------------------------------------------------------- */

static bool is_libdevice_name(const char *name) { return strncmp(name, "__nv_", 5) == 0; }

/* The suffix of libdevice's flush-to-zero copy, which the functions of the
 * fast floating-point model call (codegen.c). */
#define FTZ_SUFFIX ".ftz"

static bool has_ftz_suffix(const char *name, size_t len) {
    size_t n = sizeof FTZ_SUFFIX - 1;
    return len >= n && memcmp(name + len - n, FTZ_SUFFIX, n) == 0;
}

/* Whether m declares a libdevice function of the copy `ftz`. */
static bool calls_copy(LLVMModuleRef m, bool ftz) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) && is_libdevice_name(name) && has_ftz_suffix(name, len) == ftz) return true;
    }
    return false;
}

/* The first libdevice function the module calls, or NULL. */
static const char *first_libdevice_call(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) && is_libdevice_name(name)) return name;
    }
    return NULL;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Finds libdevice.10.bc into path: --libdevice alone if given (a path the
 * user names is never silently replaced), else $CUDA_HOME, /usr/local/cuda.
 * On failure reports what was searched. */
static bool find_libdevice(const TargetConfig *cfg, const char *caller, char *path, size_t size, Diag *d) {
    if (cfg->libdevice) {
        snprintf(path, size, "%s", cfg->libdevice);
        if (is_file(path)) return true;
        diag_plain(d, DIAG_ERROR, "libdevice not found at '%s' (given with --libdevice)", path);
        return false;
    }
    const char *home = getenv("CUDA_HOME");
    char from_env[4096] = "";
    if (home && *home) {
        snprintf(from_env, sizeof from_env, "%s%s", home, LIBDEVICE_SUBPATH);
        snprintf(path, size, "%s", from_env);
        if (is_file(path)) return true;
    }
    snprintf(path, size, "%s%s", DEFAULT_CUDA_HOME, LIBDEVICE_SUBPATH);
    if (is_file(path)) return true;
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
static void internalize_libdevice(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        if (!LLVMIsDeclaration(fn) && is_libdevice_name(LLVMGetValueName2(fn, &len)))
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
static LLVMValueRef find_reflect_call(LLVMValueRef fn, const char *name) {
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef call = LLVMGetUser(u);
        if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == fn && is_reflect_name(LLVMGetOperand(call, 0), name))
            return call;
    }
    return NULL;
}

/* Whether the reflect call sits in a function of libdevice's flush-to-zero
 * copy. */
static bool in_ftz_copy(LLVMValueRef call) {
    size_t len;
    const char *name = LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)), &len);
    return has_ftz_suffix(name, len);
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
static void replace_reflect_call(LLVMValueRef call, int value) {
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

/* Answers libdevice's questions as NVVM does for Numba, in each copy as
 * its floating-point model asks: __CUDA_FTZ 1 in the fast one, and
 * __CUDA_PREC_SQRT 0 there (LLVM 19's NVVMReflect would answer 0 in both,
 * making math.sqrt approximate without fastmath). NVVMReflect answers
 * __CUDA_ARCH, the same for the whole module. Erasing a call invalidates
 * the use list being walked, so each search starts again. */
static void answer_reflect(LLVMModuleRef m) {
    static const char *const reflect_fns[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
    static const struct { const char *name; int plain, ftz; } answers[] = {
        {"__CUDA_FTZ", 0, 1}, {"__CUDA_PREC_SQRT", 1, 0},
    };
    for (size_t i = 0; i < sizeof reflect_fns / sizeof reflect_fns[0]; i++)
        for (size_t k = 0; k < sizeof answers / sizeof answers[0]; k++) {
            LLVMValueRef fn = LLVMGetNamedFunction(m, reflect_fns[i]), call;
            while (fn && (call = find_reflect_call(fn, answers[k].name))) {
                replace_reflect_call(call, in_ftz_copy(call) ? answers[k].ftz : answers[k].plain);
            }
        }
}

/* Renames every function that lib defines NAME.ftz: the flush-to-zero
 * copy. Its calls among themselves follow, being calls of the functions,
 * not of their names; its globals are private or internal already. */
static void rename_as_ftz_copy(LLVMModuleRef lib) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn)) continue;
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        char *renamed = malloc(len + sizeof FTZ_SUFFIX);
        if (!renamed) ice("out of memory renaming libdevice");
        memcpy(renamed, name, len);
        memcpy(renamed + len, FTZ_SUFFIX, sizeof FTZ_SUFFIX);
        LLVMSetValueName2(fn, renamed, len + sizeof FTZ_SUFFIX - 1);
        free(renamed);
    }
}

/* Gives the flush-to-zero copy the fast model's attributes: inlining ANDs
 * a caller's "unsafe-fp-math" with the callee's, and libdevice says "false". */
static void mark_ftz_copy(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (!LLVMIsDeclaration(fn) && is_libdevice_name(name) && has_ftz_suffix(name, len)) target_mark_fastmath(fn);
    }
}

/* Links one copy of libdevice into m. */
static bool link_copy(LLVMModuleRef m, const char *path, bool ftz, Diag *d) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LinkDiag ld;
    link_diag_begin(&ld, ctx);
    LLVMModuleRef lib = load_libdevice(ctx, path, &ld, d);
    if (lib && ftz) rename_as_ftz_copy(lib);
    bool linked = lib && link_into(m, lib, path, &ld, d);
    link_diag_end(&ld, ctx);
    return linked;
}

bool target_link_libdevice(LLVMModuleRef m, const TargetConfig *cfg, Diag *d) {
    const char *caller = first_libdevice_call(m);
    if (!caller) return true;
    char path[4096];
    if (!find_libdevice(cfg, caller, path, sizeof path, d)) return false;
    for (int ftz = 0; ftz < 2; ftz++)
        if (calls_copy(m, ftz) && !link_copy(m, path, ftz, d)) return false;
    internalize_libdevice(m);
    mark_ftz_copy(m);
    answer_reflect(m);
    return true;
}

/* ---- optimisation ----------------------------------------------------- */

/* -O2 and -O3 run LLVM's O3 function simplification on a kernel module,
 * less what cannot pay on one: coroutines, OpenMP, profiles, vectorizers
 * (NVPTX has no vector registers to fill), interprocedural argument and
 * attribute passes (device functions are internal and get inlined), and
 * tail calls (recursion is refused), and four passes that found nothing
 * ptxas would not (two of O3's eight instcombines, its second
 * correlated-propagation, sccp after gvn). What is left is O3's own
 * sequence, with its options, so the code is O3's: the 65 kernel files of
 * tests/gpu and samples assemble to the same number of SASS instructions,
 * give or take a few, for about 20% less compile time.
 *
 * Loops are unrolled fully where their trip count is known (O3's
 * thresholds), once, late, where O3 unrolls what is left: unrolled in the
 * function simplification, their copies went through GVN, jump threading
 * and the rest again, 4% of the anchors' compile time, for the same SASS
 * over tests/gpu and samples once correlated-propagation after the unroll
 * folds what the branches above decide (an index's wraparound test in each
 * copy). Full unrolling itself pays: without it the tree reduction and the
 * 1-D stencil ran 20% slower on an H100. Partial and run-time unrolling is
 * left to ptxas, which unrolls as it schedules: the three naive matmuls,
 * the tiled one and the grid-stride reduction ran as fast without LLVM's
 * (within 0.5%), for 11% less compile time.
 *
 * nvvm-intr-range must come first: the ranges of threadIdx and friends are
 * what prove index arithmetic non-negative. */
#define SIMPLIFYCFG(opts) "simplifycfg<bonus-inst-threshold=1;" opts ";speculate-blocks;simplify-cond-branch>"
#define CFG_KEEP_LOOPS SIMPLIFYCFG("no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;" \
                                   "no-hoist-common-insts;no-sink-common-insts")
#define CFG_HOIST SIMPLIFYCFG("no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;" \
                              "hoist-common-insts;sink-common-insts")
#define CFG_LATE SIMPLIFYCFG("forward-switch-cond;switch-range-to-icmp;switch-to-lookup;no-keep-loops;" \
                             "hoist-common-insts;sink-common-insts")
#define INSTCOMBINE "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"
#define LICM "licm<allowspeculation>"

static const char kernel_pipeline[] =
    "function(nvvm-reflect,nvvm-intr-range),"
    "function(" CFG_KEEP_LOOPS ",sroa<modify-cfg>,early-cse<>," INSTCOMBINE "," CFG_KEEP_LOOPS "),"
    "always-inline,"
    "cgscc(inline,function<no-rerun>("
    "sroa<modify-cfg>,early-cse<memssa>,speculative-execution<only-if-divergent-target>,jump-threading,"
    "correlated-propagation," CFG_KEEP_LOOPS "," INSTCOMBINE ",reassociate,constraint-elimination,"
    "loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
    "loop-rotate<header-duplication;no-prepare-for-lto>," LICM ",simple-loop-unswitch<trivial>),"
    CFG_KEEP_LOOPS "," INSTCOMBINE ",loop(indvars,loop-deletion),"
    "sroa<modify-cfg>,gvn<>,bdce,jump-threading,adce,memcpyopt,dse,"
    "loop-mssa(" LICM ")," CFG_HOIST "," INSTCOMBINE ")),"
    "globaldce,"
    "function(loop(loop-rotate<header-duplication;no-prepare-for-lto>,loop-deletion),infer-alignment," CFG_LATE
    ",loop-unroll<O3;no-partial;no-runtime>,sroa<preserve-cfg>,correlated-propagation,infer-alignment,"
    INSTCOMBINE ",loop-mssa(" LICM "),"
    "instsimplify,div-rem-pairs," CFG_KEEP_LOOPS "),"
    "globaldce";

/* The pipeline for an -O level. -O0 still needs globaldce: with libdevice
 * linked, its unused functions would otherwise all be written out. */
static const char *pipeline(int opt_level) {
    switch (opt_level) {
    case 0: return "default<O0>,globaldce";
    case 1: return "default<O1>";
    default: return kernel_pipeline;
    }
}

bool target_optimize(LLVMModuleRef m, const TargetConfig *cfg, Diag *d) {
    LLVMTargetMachineRef tm = get_machine(cfg, d);
    if (!tm) return false;
    /* With the target machine the pass builder also runs NVPTX's own
     * callbacks (NVVMReflect and friends) at the pipeline's start. */
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(m, pipeline(cfg->opt_level), tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (!err) return true;
    char *msg = LLVMGetErrorMessage(err);
    diag_plain(d, DIAG_ERROR, "LLVM's optimiser failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
}

/* ---- PTX -------------------------------------------------------------- */

/* The X.Y of the PTX's `.version X.Y` line into out, "" if none. */
static void read_ptx_version(const char *ptx, char out[8]) {
    out[0] = '\0';
    const char *v = strncmp(ptx, ".version ", 9) == 0 ? ptx : strstr(ptx, "\n.version ");
    if (!v) return;
    v += v[0] == '\n' ? 10 : 9;
    size_t n = strspn(v, "0123456789.");
    if (n > 7) n = 7;
    memcpy(out, v, n);
    out[n] = '\0';
}

bool target_emit_ptx(LLVMModuleRef m, const TargetConfig *cfg, char **ptx, size_t *len, char ptx_version[8],
                     Diag *d) {
    LLVMTargetMachineRef tm = get_machine(cfg, d);
    if (!tm) return false;
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    bool failed = LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &buf);
    if (failed) {
        diag_plain(d, DIAG_ERROR, "LLVM could not emit PTX: %s", msg ? msg : "unknown error");
        LLVMDisposeMessage(msg);
        return false;
    }
    size_t n = LLVMGetBufferSize(buf);
    char *text = malloc(n + 1);
    if (!text) ice("out of memory copying %zu bytes of PTX", n);
    memcpy(text, LLVMGetBufferStart(buf), n);
    text[n] = '\0';
    LLVMDisposeMemoryBuffer(buf);
    read_ptx_version(text, ptx_version);
    *ptx = text;
    *len = n;
    return true;
}

/* ---- cubin through ptxas ---------------------------------------------- */

/* ptxas from $CUDA_HOME/bin, else /usr/local/cuda/bin, into path. */
static bool find_ptxas(char *path, size_t size, Diag *d) {
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(path, size, "%s/bin/ptxas", home);
        if (access(path, X_OK) == 0) return true;
    }
    snprintf(path, size, "%s/bin/ptxas", DEFAULT_CUDA_HOME);
    if (access(path, X_OK) == 0) return true;
    diag_plain(d, DIAG_ERROR, "ptxas not found in $CUDA_HOME/bin or %s/bin: --emit cubin needs the CUDA toolkit",
               DEFAULT_CUDA_HOME);
    return false;
}

/* A fresh temporary file named like pattern (XXXXXX before `suffix_len`
 * bytes of suffix) in $TMPDIR or /tmp: its descriptor, its name in path. */
static int make_temp(const char *pattern, int suffix_len, char *path, size_t size, Diag *d) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/%s", dir && *dir ? dir : "/tmp", pattern);
    int fd = mkstemps(path, suffix_len);
    if (fd < 0) diag_plain(d, DIAG_ERROR, "cannot create a temporary file for ptxas: %s", strerror(errno));
    return fd;
}

/* Writes the PTX to a fresh temporary file; its name goes into path. */
static bool write_temp_ptx(const char *ptx, size_t len, char *path, size_t size, Diag *d) {
    int fd = make_temp("pykc-XXXXXX.ptx", 4, path, size, d);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, ptx + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    bool ok = done == len && close(fd) == 0;
    if (done != len) close(fd);
    if (!ok) {
        diag_plain(d, DIAG_ERROR, "cannot write '%s': %s", path, strerror(errno));
        unlink(path);
    }
    return ok;
}

/* The bytes of the file at path, malloc'd, or NULL. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *bytes = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n + 1)) &&
        fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return bytes;
}

/* Reads what fd gives until end of file into a malloc'd string. */
static char *read_all(int fd) {
    size_t len = 0, cap = 4096;
    char *s = malloc(cap);
    if (!s) ice("out of memory reading ptxas output");
    for (;;) {
        if (len + 1 == cap && !(s = realloc(s, cap *= 2))) ice("out of memory reading ptxas output");
        ssize_t r = read(fd, s + len, cap - len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    s[len] = '\0';
    return s;
}

/* Runs argv (no shell), its stdout and stderr into *output. Returns the
 * exit status, or -1 with *why set when it could not run. */
static int run_capture(char *const argv[], char **output, int *why) {
    int fds[2];
    *output = NULL;
    if (pipe(fds) != 0) return *why = errno, -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc == 0) *output = read_all(fds[0]);
    close(fds[0]);
    if (rc != 0) return *why = rc, -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return *why = errno, -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Passes one line of ptxas on: "ptxas FILE, line N; error   : text" or
 * "ptxas warning : text". The temporary file's name means nothing to the
 * user; the PTX line does, with --emit ptx. Returns whether it was an error. */
static bool report_ptxas_line(char *line, const char *tmp, bool had_error, Diag *d) {
    if (strncmp(line, "ptxas ", 6) == 0) line += 6;
    int ptx_line = 0;
    size_t tl = strlen(tmp);
    if (strncmp(line, tmp, tl) == 0 && sscanf(line + tl, ", line %d;", &ptx_line) == 1) line = strchr(line, ';') + 1;
    line += strspn(line, " ");
    char *colon = strchr(line, ':');
    if (!colon) {
        if (*line) diag_plain(d, DIAG_NOTE, "ptxas: %s", line);
        return false;
    }
    size_t kind_len = strcspn(line, " :");
    char *text = colon + 1 + strspn(colon + 1, " ");
    bool error = kind_len == 5 && strncmp(line, "error", 5) == 0;
    bool fatal = kind_len == 5 && strncmp(line, "fatal", 5) == 0;
    bool warning = kind_len == 7 && strncmp(line, "warning", 7) == 0;
    /* "fatal: Ptx assembly aborted due to errors" only sums the errors up. */
    DiagLevel level = error || (fatal && !had_error) ? DIAG_ERROR : warning ? DIAG_WARNING : DIAG_NOTE;
    if (ptx_line) diag_plain(d, level, "ptxas: %s (PTX line %d)", text, ptx_line);
    else diag_plain(d, level, "ptxas: %s", text);
    return error || fatal;
}

/* Passes ptxas's output on line by line; returns whether any was an error. */
static bool report_ptxas(char *output, const char *tmp, Diag *d) {
    bool had_error = false;
    for (char *line = output, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = '\0';
        if (report_ptxas_line(line, tmp, had_error, d)) had_error = true;
    }
    return had_error;
}

/* Runs ptxas on the PTX in file `ptx_path`, the cubin into `cubin_path`. */
static bool run_ptxas(const char *ptxas, const char *ptx_path, const char *cubin_path, const TargetConfig *cfg,
                      Diag *d) {
    char arch_opt[32], opt_opt[8];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", cfg->arch);
    snprintf(opt_opt, sizeof opt_opt, "-O%d", cfg->opt_level);
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)ptxas;
    argv[argc++] = arch_opt;
    argv[argc++] = opt_opt;
    if (cfg->debug_info) argv[argc++] = "-lineinfo"; /* line tables, for profilers */
    argv[argc++] = "-o";
    argv[argc++] = (char *)cubin_path;
    argv[argc++] = (char *)ptx_path;
    argv[argc] = NULL;
    char *output;
    int why = 0, status = run_capture(argv, &output, &why);
    bool had_error = output && report_ptxas(output, ptx_path, d);
    free(output);
    if (status < 0) diag_plain(d, DIAG_ERROR, "cannot run '%s': %s", ptxas, strerror(why));
    else if (status != 0 && !had_error) diag_plain(d, DIAG_ERROR, "ptxas failed with exit status %d", status);
    return status == 0;
}

bool target_assemble_cubin(const char *ptx, size_t len, const TargetConfig *cfg, char **cubin, size_t *cubin_len,
                           Diag *d) {
    char ptxas[4096], ptx_path[4096], cubin_path[4096];
    if (!find_arch(cfg->arch, d) || !find_ptxas(ptxas, sizeof ptxas, d)) return false;
    if (!write_temp_ptx(ptx, len, ptx_path, sizeof ptx_path, d)) return false;
    int fd = make_temp("pykc-XXXXXX.cubin", 6, cubin_path, sizeof cubin_path, d);
    bool ok = fd >= 0 && close(fd) == 0 && run_ptxas(ptxas, ptx_path, cubin_path, cfg, d);
    if (ok && !(*cubin = read_file(cubin_path, cubin_len))) {
        diag_plain(d, DIAG_ERROR, "cannot read what ptxas wrote: %s", strerror(errno));
        ok = false;
    }
    unlink(ptx_path);
    if (fd >= 0) unlink(cubin_path);
    return ok;
}
