/*
 * nvptx.c - the NVPTX target: CUDA GPUs, through LLVM's NVPTX back end.
 *
 * Its pipeline takes the module codegen built (kernels marked as PTX
 * entries, libdevice's __nv_* math functions left as declarations) for one
 * arch: triple, data layout and target machine (nvptx_prepare), libdevice
 * linked in (nvptx_link), the new pass manager's pipeline (nvptx_optimize),
 * and PTX text, or a cubin assembled by the toolkit's ptxas (nvptx_emit).
 * Linking and optimising fold __CUDA_ARCH, so a module serves the arch it
 * was prepared for. Its lowering gives codegen what depends on the GPU:
 * special registers, barriers, warp intrinsics, cache operators, the grid
 * barrier, libdevice's names, vprintf and the address spaces.
 *
 * The floating-point model follows Numba (NVVM) and nvcc:
 *  - a*b+c fuses into fma.rn: codegen sets the `contract` flag on fadd,
 *    fsub and fmul, which the NVPTX back end fuses at every -O level,
 *    where Numba's toolchain would fuse (see "contraction" below);
 *  - fastmath (Numba's fastmath=True: NVVM's ftz=1 prec-div=0 prec-sqrt=0)
 *    is a function's model: the attributes below make its f32 division and
 *    square root div.approx / sqrt.approx and its f32 arithmetic flush
 *    denormals (.ftz), and it calls libdevice's flush-to-zero copy, linked
 *    beside the plain one; codegen also sets the `fast` flags on its
 *    floating-point instructions, which later LLVMs read instead.
 */
#include "backend.h"

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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#define TRIPLE "nvptx64-nvidia-cuda"
#define DEBUG_PTX 75

/* ---- architectures ---------------------------------------------------- */

/* The archs pykc targets. `ptx` is the oldest PTX ISA (times ten) that the
 * CUDA toolkit accepts for the arch: asking for it explicitly keeps the
 * .version as old as it can be, so the PTX loads on the oldest driver that
 * knows the arch, whatever default a given LLVM picks. `llvm` is the first
 * LLVM whose NVPTX back end knows the arch. sm_101 is absent: CUDA 13
 * renamed it sm_110. The family archs (sm_100f: any sm_10x, PTX ISA 8.8)
 * came with LLVM 21. */
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
    {"sm_110a", 90, 22}, {"sm_100f", 88, 21}, {"sm_103f", 88, 21}, {"sm_120f", 88, 21},
    {"sm_121f", 88, 21}, {"sm_110f", 90, 22},
};

static const ArchInfo *arch_info(const char *arch) {
    for (size_t i = 0; i < sizeof arch_table / sizeof arch_table[0]; i++)
        if (strcmp(arch_table[i].name, arch) == 0) return &arch_table[i];
    return NULL;
}

static bool nvptx_knows_arch(const char *arch) { return arch_info(arch) != NULL; }

static bool nvptx_check_arch(const char *arch, Diag *d) {
    const ArchInfo *a = arch_info(arch);
    if (!a) {
        diag_plain(d, DIAG_ERROR, "unsupported architecture '%s'", arch);
        char known[512] = "";
        for (size_t i = 0; i < sizeof arch_table / sizeof arch_table[0]; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? " " : "", arch_table[i].name);
        diag_plain(d, DIAG_NOTE, "pykc knows %s", known);
        return false;
    }
    if (a->llvm > LLVM_VERSION_MAJOR) {
        diag_plain(d, DIAG_ERROR, "architecture '%s' needs LLVM %d or newer; pykc was built with LLVM %d", arch,
                   a->llvm, LLVM_VERSION_MAJOR);
        return false;
    }
    return true;
}

/* ---- the target machine ----------------------------------------------- */

/* LLVM reports its own bugs through report_fatal_error; those are pykc's
 * internal errors, not the user's. */
static void on_llvm_fatal(const char *reason) { ice("LLVM: %s", reason); }

/* Four passes of the back end's pipeline that ptxas makes moot: over the 105
 * kernels of tests/gpu and samples, sm_90 SASS came out instruction for
 * instruction the same without them (ptxas lays out blocks, hoists and
 * materialises constants itself). And no linear function test replacement
 * in indvars: rewriting a loop's exit test onto another induction variable
 * left ptxas more to do, not less; without it the 72 modules of tests/gpu
 * and samples assemble to 1% fewer sm_90 SASS instructions (ten smaller,
 * none larger). Run-time unrolling makes at most four copies (the
 * pipeline's comment says why). Options of LLVM's command line are
 * process-wide: set once, before any pipeline is built. */
static void set_llvm_options(void) {
    const char *const args[] = {"pykc", "-disable-block-placement", "-disable-machine-licm",
                                "-disable-constant-hoisting", "-disable-early-taildup", "-disable-lftr",
                                "-unroll-max-count=4", "-unroll-partial-threshold=300"};
    LLVMParseCommandLineOptions((int)(sizeof args / sizeof args[0]), args, NULL);
}

/* Registers the NVPTX back end, once. */
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
static int ptx_isa(const TargetConfig *cfg) {
    const ArchInfo *arch = arch_info(cfg->arch);
    return cfg->debug_info && arch->ptx < DEBUG_PTX ? DEBUG_PTX : arch->ptx;
}

/* 4 KB of kernel parameters, 32 KB from PTX 8.1 on (CUDA 12.1, Volta and
 * newer). */
/* PTX's bf16 instructions (cvt.rn.bf16.f32, fma.rn.bf16, max.bf16 ...)
 * start with sm_80, as numba-cuda's bfloat16 does. */
static const char *nvptx_no_bfloat16(const TargetConfig *cfg) {
    int sm = atoi(cfg->arch + 3);
    if (sm >= 80) return NULL;
    static char why[96];
    snprintf(why, sizeof why, "bfloat16 needs sm_80 or newer, and this module is compiled for %s: pass --arch sm_80",
             cfg->arch);
    return why;
}

static long nvptx_max_param_bytes(const TargetConfig *cfg) { return ptx_isa(cfg) >= 81 ? 32764 : 4352; }

static LLVMCodeGenOptLevel codegen_level(int opt_level) {
    switch (opt_level) {
    case 0: return LLVMCodeGenLevelNone;
    case 1: return LLVMCodeGenLevelLess;
    /* Aggressive only swaps the back end's early CSE for GVN, which finds
     * nothing after the middle end's GVN. */
    default: return LLVMCodeGenLevelDefault;
    }
}

static LLVMTargetMachineRef make_machine(const TargetConfig *cfg, Diag *d) {
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(TRIPLE, &target, &msg)) {
        diag_plain(d, DIAG_ERROR, "LLVM has no NVPTX back end: %s", msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    char features[16];
    snprintf(features, sizeof features, "+ptx%d", ptx_isa(cfg));
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, TRIPLE, cfg->arch, features, codegen_level(cfg->opt_level),
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm) diag_plain(d, DIAG_ERROR, "LLVM cannot make a target machine for %s", cfg->arch);
    return tm;
}

static bool nvptx_prepare(IrModule *m, Diag *d) {
    init_llvm();
    if (!nvptx_check_arch(m->cfg->arch, d) || !(m->machine = make_machine(m->cfg, d))) return false;
    LLVMSetTarget(m->mod, TRIPLE);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(m->machine);
    LLVMSetModuleDataLayout(m->mod, layout);
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
static void nvptx_mark_fast_model(LLVMValueRef fn) {
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
    for (size_t i = 0; i < sizeof fastmath_attrs / sizeof fastmath_attrs[0]; i++) {
        const char *k = fastmath_attrs[i].key, *v = fastmath_attrs[i].value;
        LLVMAttributeRef a = LLVMCreateStringAttribute(ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
}

/* ---- libdevice -------------------------------------------------------- */

/* Whether m declares a libdevice function of the copy `ftz`. */
static bool calls_copy(LLVMModuleRef m, bool ftz) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) && libdevice_is_name(name) && libdevice_is_ftz_copy(name, len) == ftz) return true;
    }
    return false;
}

/* Answers libdevice's questions as NVVM does for Numba, in each copy as
 * its floating-point model asks: __CUDA_FTZ 1 in the fast one, and
 * __CUDA_PREC_SQRT 0 there (LLVM 19's NVVMReflect would answer 0 in both,
 * making math.sqrt approximate without fastmath). NVVMReflect answers
 * __CUDA_ARCH, the same for the whole module. */
static void answer_reflect(LLVMModuleRef m) {
    libdevice_answer(m, "__CUDA_FTZ", 0, 1);
    libdevice_answer(m, "__CUDA_PREC_SQRT", 1, 0);
}

/* Renames every function that lib defines NAME.ftz: the flush-to-zero
 * copy. Its calls among themselves follow, being calls of the functions,
 * not of their names; its globals are private or internal already. */
static void rename_as_ftz_copy(LLVMModuleRef lib) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn)) continue;
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        char *renamed = malloc(len + sizeof LIBDEVICE_FTZ_SUFFIX);
        if (!renamed) ice("out of memory renaming libdevice");
        memcpy(renamed, name, len);
        memcpy(renamed + len, LIBDEVICE_FTZ_SUFFIX, sizeof LIBDEVICE_FTZ_SUFFIX);
        LLVMSetValueName2(fn, renamed, len + sizeof LIBDEVICE_FTZ_SUFFIX - 1);
        free(renamed);
    }
}

/* Gives the flush-to-zero copy the fast model's attributes: inlining ANDs
 * a caller's "unsafe-fp-math" with the callee's, and libdevice says "false". */
static void mark_ftz_copy(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (!LLVMIsDeclaration(fn) && libdevice_is_name(name) && libdevice_is_ftz_copy(name, len)) nvptx_mark_fast_model(fn);
    }
}

/* Links one copy of libdevice into m. */
static bool link_copy(LLVMModuleRef m, const char *path, bool ftz, Diag *d) {
    return libdevice_link(m, path, ftz ? rename_as_ftz_copy : NULL, d);
}

/* libdevice's int-to-float conversions that round toward zero, as inline
 * PTX: LLVM 19's instcombine rewrites llvm.nvvm.i2f.rz and its kin into
 * sitofp/uitofp, which round to the nearest (where NVVM and the back end
 * keep cvt.rz). The float64 ones from 32 bits are exact either way. */
static const struct {
    const char *intrinsic, *ptx, *constraints;
} rz_conversions[] = {
    {"llvm.nvvm.i2f.rz", "cvt.rz.f32.s32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ui2f.rz", "cvt.rz.f32.u32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ll2f.rz", "cvt.rz.f32.s64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ull2f.rz", "cvt.rz.f32.u64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ll2d.rz", "cvt.rz.f64.s64 $0, $1;", "=d,l"},
    {"llvm.nvvm.ull2d.rz", "cvt.rz.f64.u64 $0, $1;", "=d,l"},
};

/* Replaces every call of fn with the inline PTX `text`. */
static void calls_as_ptx(LLVMModuleRef m, LLVMValueRef fn, const char *text, const char *constraints) {
    LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
    LLVMValueRef asm_fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
                                           false, false, LLVMInlineAsmDialectATT, false);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(fn))) {
        LLVMValueRef call = LLVMGetUser(use);
        if (!LLVMIsACallInst(call)) ice("libdevice takes the address of %s", text);
        LLVMValueRef arg = LLVMGetOperand(call, 0);
        LLVMPositionBuilderBefore(b, call);
        LLVMReplaceAllUsesWith(call, LLVMBuildCall2(b, fty, asm_fn, &arg, 1, ""));
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(b);
}

/* What Numba's toolchain does to libdevice that LLVM's pipeline would
 * not: the contractions in each function linked in (those not in `own`),
 * the rounding of the rz conversions. */
static void compile_as_nvvm(LLVMModuleRef m, const LibdeviceOwn *own) {
    libdevice_contract(m, own);
    for (size_t i = 0; i < sizeof rz_conversions / sizeof rz_conversions[0]; i++) {
        LLVMValueRef fn = LLVMGetNamedFunction(m, rz_conversions[i].intrinsic);
        if (fn) calls_as_ptx(m, fn, rz_conversions[i].ptx, rz_conversions[i].constraints);
    }
}

static bool link_libdevice(LLVMModuleRef m, const TargetConfig *cfg, Diag *d) {
    const char *caller = libdevice_first_call(m);
    if (!caller) return true;
    char path[4096];
    if (!libdevice_find(cfg, caller, path, sizeof path, d)) return false;
    LibdeviceOwn own = libdevice_own_functions(m);
    bool linked = true;
    for (int ftz = 0; ftz < 2 && linked; ftz++) linked = !calls_copy(m, ftz) || link_copy(m, path, ftz, d);
    if (linked) compile_as_nvvm(m, &own);
    free(own.fns);
    if (!linked) return false;
    libdevice_internalize(m);
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
 * 1-D stencil ran 20% slower on an H100. Loops whose trip count is known
 * only at run time are unrolled four times, a remainder loop before them
 * (NVPTX's own preferences, capped at NVVM's and nvcc's count): a
 * grid-stride loop then keeps four loads in flight a thread, and the
 * shared-memory tree reduction and histogram ran 1.5 to 2.4 times faster
 * on an H200 (eight copies held more registers and ran no faster). Their
 * size budget is O3's full-unrolling one, not NVPTX's quarter of it, which
 * left an n-body step's inner loop (sqrt, a float64 reciprocal) rolled
 * where nvcc unrolls it four times: 9% slower on an H100. ptxas unrolls
 * no loop over global memory again (nounroll.c).
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
    ",loop-unroll<O3>,sroa<preserve-cfg>,correlated-propagation,infer-alignment,"
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

static bool nvptx_link(IrModule *m, Diag *d) { return link_libdevice(m->mod, m->cfg, d); }

static bool nvptx_optimize(IrModule *m, Diag *d) {
    /* With the target machine the pass builder also runs NVPTX's own
     * callbacks (NVVMReflect and friends) at the pipeline's start. */
    contract_doubled(m->mod);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(m->mod, pipeline(m->cfg->opt_level), m->machine, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (!err) {
        contract_limit(m->mod);
        if (m->cfg->opt_level > 0) remat_special_registers(m->mod);
        if (m->cfg->opt_level > 0) balance_bitwise_chains(m->mod);
        if (m->cfg->opt_level > 1) keep_loops_as_unrolled(m->mod);
        return true;
    }
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

/* llvm.copysign as PTX's copysign, which ptxas makes one LOP3 on the sign
 * word: LLVM 19's NVPTX back end expands it into a 64-bit sign test and a
 * select of |x| and -|x|, and libdevice's erf, for one, calls it.
 * PTX's operands are the other way round: copysign d, sign, magnitude. */
static void copysign_as_ptx(LLVMModuleRef m, LLVMBuilderRef b, const char *intrinsic, const char *text,
                            const char *constraints) {
    LLVMValueRef decl = LLVMGetNamedFunction(m, intrinsic);
    if (!decl) return;
    LLVMTypeRef fn_type = LLVMGlobalGetValueType(decl);
    LLVMValueRef op = LLVMGetInlineAsm(fn_type, text, strlen(text), constraints, strlen(constraints), false, false,
                                       LLVMInlineAsmDialectATT, false);
    for (LLVMUseRef u; (u = LLVMGetFirstUse(decl));) {
        LLVMValueRef call = LLVMGetUser(u);
        LLVMValueRef args[] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)};
        LLVMPositionBuilderBefore(b, call);
        LLVMReplaceAllUsesWith(call, LLVMBuildCall2(b, fn_type, op, args, 2, ""));
        LLVMInstructionEraseFromParent(call);
    }
}

static void copysigns_as_ptx(LLVMModuleRef m) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    copysign_as_ptx(m, b, "llvm.copysign.f32", "copysign.f32 $0, $2, $1;", "=f,f,f");
    copysign_as_ptx(m, b, "llvm.copysign.f64", "copysign.f64 $0, $2, $1;", "=d,d,d");
    LLVMDisposeBuilder(b);
}

static bool emit_ptx(IrModule *m, Code *out, Diag *d) {
    copysigns_as_ptx(m->mod);
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(m->machine, m->mod, LLVMAssemblyFile, &msg, &buf)) {
        diag_plain(d, DIAG_ERROR, "LLVM could not emit PTX: %s", msg ? msg : "unknown error");
        LLVMDisposeMessage(msg);
        return false;
    }
    size_t n = LLVMGetBufferSize(buf);
    out->bytes = malloc(n + 1);
    if (!out->bytes) ice("out of memory copying %zu bytes of PTX", n);
    memcpy(out->bytes, LLVMGetBufferStart(buf), n);
    out->bytes[n] = '\0';
    out->len = n;
    LLVMDisposeMemoryBuffer(buf);
    read_ptx_version(out->bytes, out->version);
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

/* What ptxas -v says of the entries, gathered into a cubin's Code: the
 * entry being compiled ("Compiling entry function 'k' for 'sm_90'"), its
 * registers ("Used 30 registers, ..."), and its spills, on the line after
 * "Function properties for k". */
typedef struct PtxasInfo {
    Code *out;
    int entry;               /* the entry compiled last, or -1 */
    int props;               /* the entry whose properties follow, or -1 */
} PtxasInfo;

static int find_entry(const Code *c, const char *name, size_t len) {
    for (int i = 0; i < c->resource_count; i++)
        if (strlen(c->resources[i].entry) == len && strncmp(c->resources[i].entry, name, len) == 0) return i;
    return -1;
}

static void add_entry(PtxasInfo *info, const char *name, size_t len) {
    Code *c = info->out;
    EntryResources *grown = realloc(c->resources, sizeof *grown * (size_t)(c->resource_count + 1));
    char *copy = strndup(name, len);
    if (!grown || !copy) ice("out of memory reading ptxas output");
    c->resources = grown;
    c->resources[c->resource_count] = (EntryResources){copy, 0, 0};
    info->entry = c->resource_count++;
}

/* One line of ptxas's information: kept where it is about an entry. */
static void read_ptxas_info(PtxasInfo *info, const char *text) {
    const char *q;
    int n;
    long spill;
    if (strncmp(text, "Compiling entry function '", 26) == 0 && (q = strchr(text + 26, '\''))) {
        add_entry(info, text + 26, (size_t)(q - text - 26));
    } else if (strncmp(text, "Function properties for ", 24) == 0) {
        info->props = find_entry(info->out, text + 24, strcspn(text + 24, " \r"));
    } else if (sscanf(text, "Used %d registers", &n) == 1 && info->entry >= 0) {
        info->out->resources[info->entry].registers = n;
    } else if (sscanf(text, "%*d bytes stack frame, %ld bytes spill stores", &spill) == 1 && info->props >= 0) {
        info->out->resources[info->props].spill_bytes = spill;
        info->props = -1;
    }
}

/* Passes one line of ptxas on: "ptxas FILE, line N; error   : text" or
 * "ptxas warning : text". The temporary file's name means nothing to the
 * user; the PTX line does, with --emit ptx. Returns whether it was an error. */
static bool report_ptxas_line(char *line, const char *tmp, bool had_error, PtxasInfo *info, Diag *d) {
    if (strncmp(line, "ptxas ", 6) == 0) line += 6;
    if (strncmp(line, "info ", 5) == 0 || strstr(line, "bytes stack frame")) { /* -v's, not a diagnostic */
        const char *colon = strchr(line, ':');
        read_ptxas_info(info, colon && strncmp(line, "info", 4) == 0 ? colon + 1 + strspn(colon + 1, " ") : line + strspn(line, " "));
        return false;
    }
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
static bool report_ptxas(char *output, const char *tmp, Code *out, Diag *d) {
    bool had_error = false;
    PtxasInfo info = {out, -1, -1};
    for (char *line = output, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = '\0';
        if (report_ptxas_line(line, tmp, had_error, &info, d)) had_error = true;
    }
    return had_error;
}

/* Runs ptxas on the PTX in file `ptx_path`, the cubin into `cubin_path`. */
static bool run_ptxas(const char *ptxas, const char *ptx_path, const char *cubin_path, const TargetConfig *cfg,
                      Code *out, Diag *d) {
    char arch_opt[32], opt_opt[8];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", cfg->arch);
    snprintf(opt_opt, sizeof opt_opt, "-O%d", cfg->opt_level);
    char *argv[10];
    int argc = 0;
    argv[argc++] = (char *)ptxas;
    argv[argc++] = arch_opt;
    argv[argc++] = opt_opt;
    argv[argc++] = "-v"; /* each entry's registers and spills, for the manifest */
    if (cfg->lineinfo) argv[argc++] = "-lineinfo"; /* line tables, for profilers */
    if (cfg->relocatable) argv[argc++] = "-c";       /* its externs are linked at load */
    argv[argc++] = "-o";
    argv[argc++] = (char *)cubin_path;
    argv[argc++] = (char *)ptx_path;
    argv[argc] = NULL;
    char *output;
    int why = 0, status = program_run(argv, &output, &why);
    bool had_error = output && report_ptxas(output, ptx_path, out, d);
    free(output);
    if (status < 0) diag_plain(d, DIAG_ERROR, "cannot run '%s': %s", ptxas, strerror(why));
    else if (status != 0 && !had_error) diag_plain(d, DIAG_ERROR, "ptxas failed with exit status %d", status);
    return status == 0;
}

bool nvptx_assemble_cubin(const Code *ptx, const TargetConfig *cfg, Code *out, Diag *d) {
    char ptxas[4096], ptx_path[4096], cubin_path[4096];
    if (!find_ptxas(ptxas, sizeof ptxas, d)) return false;
    if (!program_write_temp("pykc-XXXXXX.ptx", 4, ptx->bytes, ptx->len, ptx_path, sizeof ptx_path, d)) return false;
    int fd = program_temp("pykc-XXXXXX.cubin", 6, cubin_path, sizeof cubin_path, d);
    bool ok = fd >= 0 && close(fd) == 0 && run_ptxas(ptxas, ptx_path, cubin_path, cfg, out, d);
    if (ok && !(out->bytes = program_read_file(cubin_path, &out->len))) {
        diag_plain(d, DIAG_ERROR, "cannot read what ptxas wrote: %s", strerror(errno));
        ok = false;
    }
    memcpy(out->version, ptx->version, sizeof out->version);
    unlink(ptx_path);
    if (fd >= 0) unlink(cubin_path);
    return ok;
}

static bool nvptx_emit(IrModule *m, EmitKind kind, Code *out, Diag *d) {
    if (kind != EMIT_CUBIN) return emit_ptx(m, out, d);
    Code ptx = {0};
    bool ok = emit_ptx(m, &ptx, d) && nvptx_assemble_cubin(&ptx, m->cfg, out, d);
    code_free(&ptx);
    return ok;
}

/* ---- lowering ----------------------------------------------------------- */

static LLVMValueRef sreg(CodeGen *g, const char *reg) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s", reg);
    return cg_intrinsic(g, name, NULL, 0, NULL, 0);
}

static LLVMValueRef nvptx_special(CodeGen *g, SpecialValue v, int axis) {
    static const char *const dim3[] = {"tid", "ctaid", "ntid", "nctaid"};
    if (v == SV_LANE_ID) return sreg(g, "laneid");
    if (v == SV_WARP_SIZE) return sreg(g, "warpsize");
    char reg[16];
    snprintf(reg, sizeof reg, "%s.%c", dim3[v], "xyz"[axis]);
    return sreg(g, reg);
}

/* A PTX instruction as inline assembly, as numba-cuda writes the ones that
 * NVVM has no intrinsic for: constraints such as "=f,f,f". */
static LLVMValueRef inline_ptx(CodeGen *g, LLVMTypeRef ret, const char *text, const char *constraints,
                               LLVMValueRef *args, int n, bool side_effects) {
    LLVMTypeRef params[4];
    for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, false);
    LLVMValueRef asm_ = LLVMGetInlineAsm(fty, text, strlen(text), constraints, strlen(constraints), side_effects, false,
                                         LLVMInlineAsmDialectATT, false);
    return LLVMBuildCall2(g->b, fty, asm_, args, (unsigned)n, "");
}

static void nvptx_barrier(CodeGen *g, BarrierOp op, LLVMValueRef arg) {
    switch (op) {
    case SYNC_THREADS: cg_intrinsic(g, "llvm.nvvm.barrier0", NULL, 0, NULL, 0); return;
    case SYNC_WARP: {
        LLVMValueRef mask = arg ? arg : cg_i32(g, -1);
        cg_intrinsic(g, "llvm.nvvm.bar.warp.sync", NULL, 0, &mask, 1);
        return;
    }
    case FENCE_DEVICE: cg_intrinsic(g, "llvm.nvvm.membar.gl", NULL, 0, NULL, 0); return;
    case FENCE_BLOCK: cg_intrinsic(g, "llvm.nvvm.membar.cta", NULL, 0, NULL, 0); return;
    case FENCE_SYSTEM: cg_intrinsic(g, "llvm.nvvm.membar.sys", NULL, 0, NULL, 0); return;
    case NANOSLEEP:
        inline_ptx(g, LLVMVoidTypeInContext(g->ctx), "nanosleep.u32 $0;", "r,~{memory}", &arg, 1, true);
        return;
    case BREAKPOINT: /* numba-cuda's ptx_brkpt: a debugger stops here */
        inline_ptx(g, LLVMVoidTypeInContext(g->ctx), "brkpt;", "", NULL, 0, true);
        return;
    }
}

static LLVMValueRef nvptx_block_vote(CodeGen *g, BlockVote op, LLVMValueRef pred) {
    static const char *const names[] = {"llvm.nvvm.barrier0.popc", "llvm.nvvm.barrier0.and", "llvm.nvvm.barrier0.or"};
    return cg_intrinsic(g, names[op], NULL, 0, &pred, 1);
}

/* match.any / match.all of a 32- or 64-bit value (floats as their bits):
 * the mask of lanes holding the same, and for match.all whether all do. */
static LLVMValueRef warp_match(CodeGen *g, WarpOp op, LLVMValueRef mask, LLVMValueRef v, const Type *t) {
    bool wide = type_size(t) == 8;
    LLVMTypeRef bits = wide ? LLVMInt64TypeInContext(g->ctx) : LLVMInt32TypeInContext(g->ctx);
    if (t->kind == TY_FLOAT) v = LLVMBuildBitCast(g->b, v, bits, "");
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.match.%s.sync.i%d%s", op == WARP_MATCH_ANY ? "any" : "all", wide ? 64 : 32,
             op == WARP_MATCH_ALL ? "p" : "");
    LLVMValueRef args[] = {mask, v};
    return cg_intrinsic(g, name, NULL, 0, args, 2); /* match.all: {i32, i1}, the tuple Numba gives */
}

/* shfl.sync of a value; 64-bit values shuffle as two 32-bit halves. */
static LLVMValueRef warp_shuffle(CodeGen *g, WarpOp op, LLVMValueRef *args, const Type *t) {
    static const char *const modes[] = {[WARP_SHFL_IDX] = "idx", [WARP_SHFL_UP] = "up", [WARP_SHFL_DOWN] = "down",
                                        [WARP_SHFL_XOR] = "bfly"};
    LLVMValueRef mask = args[0], v = args[1], lane = args[2];
    LLVMValueRef clamp = cg_i32(g, op == WARP_SHFL_UP ? 0 : 0x1f);
    bool wide = type_size(t) == 8, fp = t->kind == TY_FLOAT;
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", modes[op], fp && !wide ? "f32" : "i32");
    if (!wide) {
        LLVMValueRef a[] = {mask, v, lane, clamp};
        return cg_intrinsic(g, name, NULL, 0, a, 4);
    }
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->ctx), i64 = LLVMInt64TypeInContext(g->ctx);
    LLVMValueRef bits = fp ? LLVMBuildBitCast(g->b, v, i64, "") : v;
    LLVMValueRef lo = LLVMBuildTrunc(g->b, bits, i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, bits, cg_i64(g, 32), ""), i32, "");
    LLVMValueRef a1[] = {mask, lo, lane, clamp}, a2[] = {mask, hi, lane, clamp};
    lo = LLVMBuildZExt(g->b, cg_intrinsic(g, name, NULL, 0, a1, 4), i64, "");
    hi = LLVMBuildZExt(g->b, cg_intrinsic(g, name, NULL, 0, a2, 4), i64, "");
    LLVMValueRef r = LLVMBuildOr(g->b, lo, LLVMBuildShl(g->b, hi, cg_i64(g, 32), ""), "");
    return fp ? LLVMBuildBitCast(g->b, r, LLVMDoubleTypeInContext(g->ctx), "") : r;
}

static LLVMValueRef nvptx_warp(CodeGen *g, WarpOp op, LLVMValueRef *args, const Type *t) {
    static const char *const votes[] = {[WARP_ALL] = "all", [WARP_ANY] = "any", [WARP_EQ] = "uni",
                                        [WARP_BALLOT] = "ballot"};
    switch (op) {
    case WARP_ACTIVEMASK: return cg_intrinsic(g, "llvm.nvvm.activemask", NULL, 0, NULL, 0);
    case WARP_LANEMASK_LT: return sreg(g, "lanemask.lt");
    case WARP_MATCH_ANY: case WARP_MATCH_ALL: return warp_match(g, op, args[0], args[1], t);
    case WARP_ALL: case WARP_ANY: case WARP_EQ: case WARP_BALLOT: {
        char name[48];
        snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", votes[op]);
        return cg_intrinsic(g, name, NULL, 0, args, 2);
    }
    default: return warp_shuffle(g, op, args, t);
    }
}

/* The integer register a cache-hinted access moves an element of t
 * through, with its PTX constraint (cache_hints.py's CONSTRAINT_MAP):
 * 8-bit elements travel in 32-bit registers, as PTX allows ld.b8/st.b8. */
static LLVMTypeRef cache_hint_register(CodeGen *g, const Type *t, const char **constraint) {
    int bits = t->bits;
    *constraint = bits == 64 ? "l" : bits == 16 ? "h" : "r";
    return LLVMIntTypeInContext(g->ctx, bits == 8 ? 32 : (unsigned)bits);
}

static const char *const cache_ops[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt"}; /* ORDER CacheOp */

/* ld.global.<op> of one element at the generic address p, as numba-cuda
 * emits it (inline PTX: LLVM has no intrinsic for the cache operators). */
static LLVMValueRef nvptx_cache_load(CodeGen *g, CacheOp op, LLVMValueRef p, const Type *t) {
    const char *reg;
    LLVMTypeRef rt = cache_hint_register(g, t, &reg);
    char text[64], constraints[16];
    snprintf(text, sizeof text, "ld.global.%s.b%d $0, [$1];", cache_ops[op], t->bits);
    snprintf(constraints, sizeof constraints, "=%s,l", reg);
    LLVMValueRef bits = inline_ptx(g, rt, text, constraints, &p, 1, false);
    if (t->bits == 8) bits = LLVMBuildTrunc(g->b, bits, LLVMInt8TypeInContext(g->ctx), "");
    return LLVMBuildBitCast(g->b, bits, cg_type(g, t), "");
}

static void nvptx_cache_store(CodeGen *g, CacheOp op, LLVMValueRef p, LLVMValueRef v, const Type *t) {
    const char *reg;
    LLVMTypeRef rt = cache_hint_register(g, t, &reg);
    char text[64], constraints[24];
    snprintf(text, sizeof text, "st.global.%s.b%d [$0], $1;", cache_ops[op], t->bits);
    snprintf(constraints, sizeof constraints, "l,%s,~{memory}", reg);
    LLVMValueRef bits = LLVMBuildBitCast(g->b, v, LLVMIntTypeInContext(g->ctx, (unsigned)t->bits), "");
    if (t->bits == 8) bits = LLVMBuildZExt(g->b, bits, rt, "");
    LLVMValueRef args[] = {p, bits};
    inline_ptx(g, LLVMVoidTypeInContext(g->ctx), text, constraints, args, 2, true);
}

/* The grid's workspace, which the driver gives a cooperative launch in
 * %envreg1 (high half) and %envreg2 (low half), as CUDA's cooperative_groups
 * reads it (driver_abi.h): a word of size, then the grid barrier's word. */
static LLVMValueRef nvptx_grid_group(CodeGen *g) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->ctx);
    LLVMValueRef hi = LLVMBuildZExt(g->b, sreg(g, "envreg1"), i64, "");
    LLVMValueRef lo = LLVMBuildZExt(g->b, sreg(g, "envreg2"), i64, "");
    return LLVMBuildOr(g->b, LLVMBuildShl(g->b, hi, cg_i64(g, 32), ""), lo, "grid");
}

/* tid.x | tid.y | tid.z (reg "tid"), zero only in the first thread. */
static LLVMValueRef or_axes(CodeGen *g, SpecialValue v) {
    LLVMValueRef r = nvptx_special(g, v, 0);
    for (int i = 1; i < 3; i++) r = LLVMBuildOr(g->b, r, nvptx_special(g, v, i), "");
    return r;
}

/* The grid barrier of cooperative_groups' sync_grids: after a block
 * barrier, thread 0 of each block adds 1 to the barrier word (block 0 adds
 * 0x80000000 - (blocks - 1)), so that the word's top bit flips when the last
 * block arrives; each waits for the flip, then the block barrier again. */
static void nvptx_grid_sync(CodeGen *g, LLVMValueRef group) {
    LLVMBuilderRef b = g->b;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(g->ctx), i32 = LLVMInt32TypeInContext(g->ctx);
    LLVMValueRef ws = LLVMBuildIntToPtr(b, group, cg_generic_pointer(g), ""), four = cg_i64(g, 4);
    LLVMValueRef word = LLVMBuildGEP2(b, i8, ws, &four, 1, "barrier");
    nvptx_barrier(g, SYNC_THREADS, NULL);
    LLVMBasicBlockRef master = cg_new_block(g, "grid.master"), spin = cg_new_block(g, "grid.spin");
    LLVMBasicBlockRef arrived = cg_new_block(g, "grid.arrived"), join = cg_new_block(g, "grid.join");
    LLVMValueRef zero = cg_i32(g, 0);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, or_axes(g, SV_THREAD_IDX), zero, ""), master, join);
    LLVMPositionBuilderAtEnd(b, master);
    LLVMValueRef blocks = LLVMBuildMul(b, LLVMBuildMul(b, nvptx_special(g, SV_GRID_DIM, 0), nvptx_special(g, SV_GRID_DIM, 1), ""),
                                       nvptx_special(g, SV_GRID_DIM, 2), "");
    LLVMValueRef first = LLVMBuildSub(b, cg_i32(g, (long long)0x80000001u), blocks, "");
    LLVMValueRef is_first = LLVMBuildICmp(b, LLVMIntEQ, or_axes(g, SV_BLOCK_IDX), zero, "");
    LLVMValueRef add = LLVMBuildSelect(b, is_first, first, cg_i32(g, 1), "");
    nvptx_barrier(g, FENCE_DEVICE, NULL);
    LLVMValueRef old = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, word, add, LLVMAtomicOrderingMonotonic, false);
    LLVMBuildBr(b, spin);
    LLVMPositionBuilderAtEnd(b, spin);
    LLVMValueRef now = LLVMBuildLoad2(b, i32, word, "");
    LLVMSetVolatile(now, true);
    LLVMValueRef flipped = LLVMBuildAnd(b, LLVMBuildXor(b, old, now, ""), cg_i32(g, (long long)0x80000000u), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, flipped, zero, ""), arrived, spin);
    LLVMPositionBuilderAtEnd(b, arrived);
    nvptx_barrier(g, FENCE_DEVICE, NULL);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    nvptx_barrier(g, SYNC_THREADS, NULL);
}

/* ---- libdevice's names, and Numba's fast forms ---------------------------- */

/* libdevice's __nv_<symbol>: its flush-to-zero copy (linked under LIBDEVICE_FTZ_SUFFIX)
 * in a function of the fast model. */
static LLVMValueRef nvptx_math_symbol(CodeGen *g, const char *symbol, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    char name[80];
    snprintf(name, sizeof name, "__nv_%s%s", symbol, g->ftz ? LIBDEVICE_FTZ_SUFFIX : "");
    return cg_call(g, ret, name, args, n);
}

static LLVMValueRef f32_inline(CodeGen *g, const char *text, LLVMValueRef *args, int n) {
    return inline_ptx(g, LLVMFloatTypeInContext(g->ctx), text, n == 1 ? "=f,f" : "=f,f,f", args, n, false);
}

/* libdevice's function for name and t: sinf for float32, sin for float64;
 * under fastmath Numba takes libdevice's approximate float32 versions, and
 * tanh.approx where the PTX has it (7.0). */
static LLVMValueRef nvptx_math(CodeGen *g, const char *name, const Type *t, LLVMValueRef *args, int n) {
    static const char *const fast[] = {"sin", "cos", "tan", "exp", "log", "log2", "log10", "pow"};
    bool f32 = t->bits == 32, use_fast = false;
    for (size_t i = 0; g->fastmath && f32 && i < sizeof fast / sizeof fast[0]; i++)
        use_fast = use_fast || !strcmp(name, fast[i]);
    if (g->fastmath && f32 && !strcmp(name, "tanh") && ptx_isa(g->cfg) >= 70)
        return f32_inline(g, "tanh.approx.f32 $0, $1;", args, 1);
    char symbol[64];
    snprintf(symbol, sizeof symbol, "%s%s%s", use_fast ? "fast_" : "", name, f32 ? "f" : "");
    return nvptx_math_symbol(g, symbol, cg_type(g, t), args, n);
}

/* ---- cuda_fp16.hpp's half functions ----------------------------------- */

/* numba-cuda's cuda.fp16 functions (and math.sin ... of a float16) are
 * cuda_fp16.hpp's, compiled apart from the kernel (no fastmath): most an
 * approximate float32 instruction rounded to half, then the inputs it
 * rounds the wrong way fixed up (SPEC_CASE: r + ulp where the input is
 * spc). Their PTX, as the header writes it (abs.f16 as and.b16, which
 * PTX 6.3 has). */
#define HALF_FIX(key, spc, ulp)                                                                                        \
    " {.reg.b16 spc, ulp, p;\n mov.b16 spc," spc ";\n mov.b16 ulp," ulp ";\n set.eq.f16.f16 p," key ", spc;\n"      \
    " fma.rn.f16 r,p,ulp,r;\n }\n"
#define HALF_IN " mov.b16 h,$1;\n cvt.f32.f16 f,h;\n"
#define HALF_OUT " cvt.rn.f16.f32 r,f;\n"
#define HALF_RET " mov.b16 $0,r;\n}"
/* __float_simpl_sinf/cosf: the quadrant q from a*2/pi, the reduced x, the
 * sine or cosine polynomial by q's parity, negated by q's bit 1. */
#define HALF_TRIG(quadrant)                                                                                            \
    "{.reg.b16 h,r,t;\n .reg.b32 f,ar,j,x,x2,z,zn,q,q1,q2,c8,c6,c4,c2,c1,c0;\n .reg.pred podd,pneg;\n" HALF_IN           \
    " fma.rn.f32 ar,f,0f3F22F983,0f4B400000;\n mov.b32 q,ar;\n sub.rn.f32 j,ar,0f4B400000;\n"                          \
    " fma.rn.f32 x,j,0fBFC90FDA,f;\n fma.rn.f32 x,j,0fB3A22168,x;\n" quadrant " mul.rn.f32 x2,x,x;\n"                  \
    " and.b32 q1,q,1;\n setp.ne.u32 podd,q1,0;\n selp.f32 c8,0f37CCF5CE,0fB94CA1F9,podd;\n"                           \
    " selp.f32 c6,0fBAB6061A,0f3C08839E,podd;\n selp.f32 c4,0f3D2AAAA5,0fBE2AAAA3,podd;\n"                             \
    " selp.f32 c2,0fBF000000,0f00000000,podd;\n selp.f32 c1,x2,x,podd;\n selp.f32 c0,0f3F800000,x,podd;\n"            \
    " fma.rn.f32 z,c8,x2,c6;\n fma.rn.f32 z,z,x2,c4;\n fma.rn.f32 z,z,x2,c2;\n fma.rn.f32 z,z,c1,c0;\n"               \
    " and.b32 q2,q,2;\n setp.ne.u32 pneg,q2,0;\n neg.f32 zn,z;\n selp.f32 f,zn,z,pneg;\n" HALF_OUT

static const struct {
    const char *name, *ptx;
} half_functions[] = {
    {"sin", HALF_TRIG("") " and.b16 t,r,0x8000U;\n and.b16 r,r,0x7FFFU;\n and.b16 h,h,0x7FFFU;\n" HALF_FIX(
                "h", "0X32B3U", "0x0800U") HALF_FIX("h", "0X5CB0U", "0x9000U") " or.b16 r,r,t;\n" HALF_RET},
    {"cos", HALF_TRIG(" and.b32 q,q,3;\n add.u32 q,q,1;\n") " and.b16 h,h,0x7FFFU;\n" HALF_FIX("h", "0X2B7CU",
                                                                                                "0x1000U") HALF_RET},
    {"exp", "{.reg.b32 f,C,nZ;\n .reg.b16 h,r;\n" HALF_IN " mov.b32 C,0x3fb8aa3bU;\n mov.b32 nZ,0x80000000U;\n"
            " fma.rn.f32 f,f,C,nZ;\n ex2.approx.ftz.f32 f,f;\n" HALF_OUT HALF_FIX("h", "0X1F79U", "0x9400U")
                HALF_FIX("h", "0X25CFU", "0x9400U") HALF_FIX("h", "0XC13BU", "0x0400U")
                    HALF_FIX("h", "0XC1EFU", "0x0200U") HALF_RET},
    {"exp2", "{.reg.b32 f,ULP;\n .reg.b16 h,r;\n" HALF_IN " ex2.approx.ftz.f32 f,f;\n mov.b32 ULP,0x33800000U;\n"
             " fma.rn.f32 f,f,ULP,f;\n" HALF_OUT HALF_RET},
    {"exp10", "{.reg.b32 f,C,nZ;\n .reg.b16 h,r;\n" HALF_IN " mov.b32 C,0x40549A78U;\n mov.b32 nZ,0x80000000U;\n"
              " fma.rn.f32 f,f,C,nZ;\n ex2.approx.ftz.f32 f,f;\n" HALF_OUT HALF_FIX("h", "0x34DEU", "0x9800U")
                  HALF_FIX("h", "0x9766U", "0x9000U") HALF_FIX("h", "0x9972U", "0x1000U")
                      HALF_FIX("h", "0xA5C4U", "0x1000U") HALF_FIX("h", "0xBF0AU", "0x8100U") HALF_RET},
    {"log2", "{.reg.b32 f;\n .reg.b16 h,r;\n" HALF_IN " lg2.approx.ftz.f32 f,f;\n" HALF_OUT HALF_FIX(
                 "r", "0xA2E2U", "0x8080U") HALF_FIX("r", "0xBF46U", "0x9400U") HALF_RET},
    {"log", "{.reg.b32 f,C;\n .reg.b16 h,r;\n" HALF_IN " lg2.approx.ftz.f32 f,f;\n mov.b32 C,0x3f317218U;\n"
            " mul.f32 f,f,C;\n" HALF_OUT HALF_FIX("h", "0X160DU", "0x9C00U") HALF_FIX("h", "0X3BFEU", "0x8010U")
                HALF_FIX("h", "0X3C0BU", "0x8080U") HALF_FIX("h", "0X6051U", "0x1C00U") HALF_RET},
    {"log10", "{.reg.b32 f,C;\n .reg.b16 h,r;\n" HALF_IN " lg2.approx.ftz.f32 f,f;\n mov.b32 C,0x3E9A209BU;\n"
              " mul.f32 f,f,C;\n" HALF_OUT HALF_FIX("h", "0x338FU", "0x1000U") HALF_FIX("h", "0x33F8U", "0x9000U")
                  HALF_FIX("h", "0x57E1U", "0x9800U") HALF_FIX("h", "0x719DU", "0x9C00U") HALF_RET},
    {"rcp", "{.reg.b32 f;\n .reg.b16 h,r;\n" HALF_IN " rcp.approx.ftz.f32 f,f;\n" HALF_OUT HALF_RET},
    {"rsqrt", "{.reg.b32 f;\n .reg.b16 h,r;\n" HALF_IN " rsqrt.approx.ftz.f32 f,f;\n" HALF_OUT HALF_RET},
    {"sqrt", "{.reg.b32 f;\n .reg.b16 h,r;\n" HALF_IN " sqrt.approx.ftz.f32 f,f;\n" HALF_OUT HALF_RET},
};

/* htanh: libdevice's tanhf of the float, rounded (the plain copy: the
 * header is compiled without fastmath). */
static LLVMValueRef half_tanh(CodeGen *g, LLVMValueRef x) {
    LLVMTypeRef f = LLVMFloatTypeInContext(g->ctx);
    LLVMValueRef wide = LLVMBuildFPExt(g->b, x, f, "");
    return LLVMBuildFPTrunc(g->b, cg_call(g, f, "__nv_tanhf", &wide, 1), LLVMTypeOf(x), "");
}

/* cuda_fp16.hpp's function `name` (sin, exp10, rcp, tanh_approx ...) of
 * the half x, or NULL where the header computes in float32 and rounds, as
 * the caller does. */
static LLVMValueRef nvptx_half_math(CodeGen *g, const char *name, LLVMValueRef x) {
    if (!strcmp(name, "tanh")) return half_tanh(g, x);
    const char *ptx = NULL;
    for (size_t i = 0; i < sizeof half_functions / sizeof half_functions[0] && !ptx; i++)
        if (!strcmp(name, half_functions[i].name)) ptx = half_functions[i].ptx;
    if (!strcmp(name, "tanh_approx")) { /* htanh's tanh.approx.f16 needs PTX 7.0 */
        if (ptx_isa(g->cfg) < 70) return half_tanh(g, x);
        ptx = "tanh.approx.f16 $0, $1;";
    }
    if (!ptx) return NULL;
    LLVMTypeRef i16 = LLVMInt16TypeInContext(g->ctx);
    LLVMValueRef bits = LLVMBuildBitCast(g->b, x, i16, "");
    return LLVMBuildBitCast(g->b, inline_ptx(g, i16, ptx, "=h,h", &bits, 1, false), LLVMTypeOf(x), "");
}

/* Numba's fastmath float32 divisions, as NVVM compiles them with
 * prec-div=0: LLVM 19's NVPTX back end would choose these forms only for
 * the whole process. */
static LLVMValueRef nvptx_fast_fdiv(CodeGen *g, FastDiv kind, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef args[] = {a, b};
    switch (kind) {
    case FDIV_FAST: return nvptx_math_symbol(g, "fast_fdividef", LLVMTypeOf(a), args, 2);
    case FDIV_FULL: return f32_inline(g, "div.full.ftz.f32 $0, $1, $2;", args, 2);
    case FDIV_APPROX: return f32_inline(g, "div.approx.f32 $0, $1, $2;", args, 2);
    default: return cg_intrinsic(g, "llvm.nvvm.div.rn.ftz.f", NULL, 0, args, 2);
    }
}

/* vprintf(format, buffer): the values packed in a local struct. */
static void nvptx_print(CodeGen *g, LLVMValueRef format, LLVMValueRef *values, int n) {
    LLVMValueRef buffer = LLVMConstPointerNull(cg_generic_pointer(g));
    if (n) {
        LLVMTypeRef *fields = ARENA_ARRAY(g->arena, LLVMTypeRef, n);
        for (int i = 0; i < n; i++) fields[i] = LLVMTypeOf(values[i]);
        LLVMTypeRef st = LLVMStructTypeInContext(g->ctx, fields, (unsigned)n, false);
        LLVMValueRef slot = cg_entry_alloca(g, st, "print.args");
        for (int i = 0; i < n; i++) LLVMBuildStore(g->b, values[i], LLVMBuildStructGEP2(g->b, st, slot, (unsigned)i, ""));
        buffer = LLVMBuildAddrSpaceCast(g->b, slot, cg_generic_pointer(g), "");
    }
    LLVMValueRef args[] = {format, buffer};
    cg_call(g, LLVMInt32TypeInContext(g->ctx), "vprintf", args, 2);
}

static void nvptx_exit_thread(CodeGen *g) { cg_intrinsic(g, "llvm.nvvm.exit", NULL, 0, NULL, 0); }

/* ---- launches from the device: CUDA's device runtime ----------------------- */

static LLVMValueRef dim3_value(CodeGen *g, LLVMTypeRef dim3, LLVMValueRef *xyz) {
    LLVMValueRef v = LLVMGetUndef(dim3);
    for (unsigned i = 0; i < 3; i++) v = LLVMBuildInsertValue(g->b, v, xyz[i], i, "");
    return v;
}

/* The entry's parameters into the buffer, each at the next offset its
 * size aligns, as the kernel's parameter space lays them out. */
static void fill_parameter_buffer(CodeGen *g, LLVMValueRef buf, LLVMValueRef *params, int n) {
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(g->mod);
    unsigned long long offset = 0;
    for (int i = 0; i < n; i++) {
        unsigned long long size = LLVMStoreSizeOfType(layout, LLVMTypeOf(params[i]));
        offset = (offset + size - 1) / size * size;
        LLVMValueRef at = cg_i64(g, (long long)offset);
        LLVMValueRef p = LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->ctx), buf, &at, 1, "");
        LLVMSetAlignment(LLVMBuildStore(g->b, params[i], p), (unsigned)size);
        offset += size;
    }
}

/* As nvcc compiles kernel<<<grid, block, shared>>>(args) with -rdc=true
 * (CUDA 12's device runtime, libcudadevrt): a parameter buffer for the
 * kernel, filled and launched into the default stream; where the runtime
 * gives no buffer (too many launches pending), nothing is launched. */
static void nvptx_device_launch(CodeGen *g, LLVMValueRef fn, LLVMValueRef *grid, LLVMValueRef *block,
                                LLVMValueRef shared, LLVMValueRef *params, int n) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->ctx), ptr = cg_generic_pointer(g);
    LLVMTypeRef fields[] = {i32, i32, i32};
    LLVMTypeRef dim3 = LLVMStructTypeInContext(g->ctx, fields, 3, false);
    LLVMValueRef args[] = {fn, dim3_value(g, dim3, grid), dim3_value(g, dim3, block), shared};
    LLVMValueRef buf = cg_call(g, ptr, "__cudaCDP2GetParameterBufferV2", args, 4);
    LLVMBasicBlockRef go = cg_new_block(g, "launch.buffer"), done = cg_new_block(g, "launch.done");
    LLVMBuildCondBr(g->b, LLVMBuildIsNull(g->b, buf, ""), done, go);
    LLVMPositionBuilderAtEnd(g->b, go);
    fill_parameter_buffer(g, buf, params, n);
    LLVMValueRef launch[] = {buf, LLVMConstNull(ptr)};
    cg_call(g, i32, "__cudaCDP2LaunchDeviceV2", launch, 2);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

static void annotate(CodeGen *g, LLVMValueRef fn, const char *what, int value) {
    LLVMMetadataRef md[] = {LLVMValueAsMetadata(fn), LLVMMDStringInContext2(g->ctx, what, strlen(what)),
                            LLVMValueAsMetadata(cg_i32(g, value))};
    LLVMAddNamedMetadataOperand(g->mod, "nvvm.annotations",
                                LLVMMetadataAsValue(g->ctx, LLVMMDNodeInContext2(g->ctx, md, 3)));
}

/* The kernel mark, and the performance-tuning directives of PTX that the
 * decorator asks for: .maxntid, .minnctapersm, .maxclusterrank (clusters
 * are sm_90's) and .maxnreg. */
static void nvptx_mark_kernel(CodeGen *g, const FuncInfo *f, LLVMValueRef fn) {
    LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
    annotate(g, fn, "kernel", 1);
    const KernelLimits *l = &f->limits;
    if (l->max_threads) annotate(g, fn, "maxntidx", l->max_threads);
    if (l->min_blocks) annotate(g, fn, "minctasm", l->min_blocks);
    if (l->max_registers) annotate(g, fn, "maxnreg", l->max_registers);
    if (!l->max_cluster_blocks) return;
    if (atoi(g->cfg->arch + 3) < 90)
        diag_warning(g->diag, f->def->span, "kernel '%s': launch_bounds' max_blocks_per_cluster needs sm_90 or newer; "
                     "ignored for %s", f->def->name, g->cfg->arch);
    else
        annotate(g, fn, "maxclusterrank", l->max_cluster_blocks);
}

/* --version: the triple, and the libdevice a compilation would link. */
static void nvptx_describe(FILE *out, const char *libdevice) {
    fprintf(out, "triple: %s\n", TRIPLE);
    char path[4096], from_env[4096];
    if (libdevice_search(libdevice, path, sizeof path, from_env))
        fprintf(out, "libdevice: %s\n", path);
    else if (libdevice)
        fprintf(out, "libdevice: none: '%s' (given with --libdevice) is not a file\n", libdevice);
    else
        fprintf(out, "libdevice: none found (searched %s and %s%s)\n", from_env[0] ? from_env : "$CUDA_HOME (not set)",
                DEFAULT_CUDA_HOME, LIBDEVICE_SUBPATH);
}

const Target target_nvptx = {
    .name = "nvptx",
    .default_arch = "sm_75",
    .code_kind = EMIT_PTX,
    .emit_kinds = (1u << EMIT_PTX) | (1u << EMIT_CUBIN),
    .knows_arch = nvptx_knows_arch,
    .check_arch = nvptx_check_arch,
    .describe = nvptx_describe,
    .prepare = nvptx_prepare,
    .link = nvptx_link,
    .optimize = nvptx_optimize,
    .emit = nvptx_emit,
    .max_param_bytes = nvptx_max_param_bytes,
    .address_space = {[MEM_GLOBAL] = 1, [MEM_SHARED] = 3, [MEM_CONST] = 4},
    .special = nvptx_special,
    .barrier = nvptx_barrier,
    .block_vote = nvptx_block_vote,
    .warp = nvptx_warp,
    .cache_load = nvptx_cache_load,
    .cache_store = nvptx_cache_store,
    .grid_group = nvptx_grid_group,
    .grid_sync = nvptx_grid_sync,
    .math = nvptx_math,
    .math_symbol = nvptx_math_symbol,
    .fast_fdiv = nvptx_fast_fdiv,
    .no_bfloat16 = nvptx_no_bfloat16,
    .print = nvptx_print,
    .exit_thread = nvptx_exit_thread,
    .device_launch = nvptx_device_launch,
    .mark_kernel = nvptx_mark_kernel,
    .mark_fast_model = nvptx_mark_fast_model,
    .half_math = nvptx_half_math,
};
