/*
 * host.c - the host target: the CPU, through LLVM's X86 back end, into a
 * shared object that libpykrt's host device runs (runtime/host_abi.h).
 *
 * A launch runs each block on one CPU thread, its threads one after
 * another. A kernel that never waits for another thread is an ordinary
 * function, run for each thread in turn. One that does (a barrier, a warp
 * operation, nanosleep, the grid barrier) is compiled as an LLVM
 * coroutine: the lowering below marks each place a thread waits with a
 * call of pykc.host.suspend, which hostthreads.c makes a suspension point
 * before the pipeline (host_optimize), and LLVM's coroutine passes split
 * the kernel at them, keeping in a frame what lives across. The scheduler of the host device resumes the threads of a block
 * in rounds: one waiting at a barrier only when every thread of the block
 * waits at one, one waiting for its warp in the next round, so that the
 * lanes of a warp exchange values through the block's slots in lockstep.
 *
 * What a thread reads of itself (threadIdx, blockIdx, its lane) comes from
 * its record, which the scheduler makes current in pykrt.host.thread, a
 * thread-local variable, before it runs the thread. Shared memory is
 * thread-local storage too: a CPU thread runs one block at a time.
 *
 * Math is libdevice's, linked as the GPU's is (host_link; hostlib.c
 * lowers its NVVM intrinsics), or with --math=libm the C library's
 * (hostmath.c). Fusion follows Numba's rule as explicit fma (contract.c).
 */
#include "backend.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST_TRIPLE "x86_64-pc-linux-gnu"

/* What --arch names: the x86-64 microarchitecture levels. */
static const char *const host_archs[] = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};

/* runtime/host_abi.h: the thread's and the block's records. */
enum {
    THREAD_IDX = 0, THREAD_LINEAR = 12, THREAD_WAIT = 16, THREAD_BLOCK = 24,
    BLOCK_IDX = 0, BLOCK_DIM = 12, GRID_DIM = 24, BLOCK_DYNAMIC_SHARED = 40, BLOCK_SLOTS = 48, BLOCK_LIVE = 56,
    BLOCK_WARP_VOTE = 64, BLOCK_VOTES = 72, BLOCK_RESULTS = 84,
};
enum { AT_BARRIER = 1, AT_WARP = 2, AT_GRID = 3 };
enum { VOTE_ALL, VOTE_ANY, VOTE_EQ, VOTE_BALLOT, VOTE_MATCH_ANY, VOTE_MATCH_ALL };

static bool host_knows_arch(const char *arch) {
    for (size_t i = 0; i < sizeof host_archs / sizeof host_archs[0]; i++)
        if (strcmp(arch, host_archs[i]) == 0) return true;
    return false;
}

static bool host_check_arch(const char *arch, Diag *d) {
    if (host_knows_arch(arch)) return true;
    diag_plain(d, DIAG_ERROR, "unknown host arch '%s' (x86-64, x86-64-v2, x86-64-v3, x86-64-v4)", arch);
    return false;
}

static void on_llvm_fatal(const char *reason) { ice("LLVM: %s", reason); }

static void init_llvm(void) {
    static bool done;
    if (done) return;
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInstallFatalErrorHandler(on_llvm_fatal);
    done = true;
}

static LLVMCodeGenOptLevel codegen_level(int opt_level) {
    return opt_level == 0 ? LLVMCodeGenLevelNone : opt_level == 1 ? LLVMCodeGenLevelLess : LLVMCodeGenLevelAggressive;
}

/* Position-independent: the module is a shared object. */
static LLVMTargetMachineRef make_machine(const TargetConfig *cfg, Diag *d) {
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(HOST_TRIPLE, &target, &msg)) {
        diag_plain(d, DIAG_ERROR, "LLVM has no X86 back end: %s", msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, HOST_TRIPLE, cfg->arch, "", codegen_level(cfg->opt_level),
                                                      LLVMRelocPIC, LLVMCodeModelDefault);
    if (!tm) diag_plain(d, DIAG_ERROR, "LLVM cannot make a target machine for %s", cfg->arch);
    return tm;
}

static bool host_prepare(IrModule *m, Diag *d) {
    init_llvm();
    if (!host_check_arch(m->cfg->arch, d) || !(m->machine = make_machine(m->cfg, d))) return false;
    LLVMSetTarget(m->mod, HOST_TRIPLE);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(m->machine);
    LLVMSetModuleDataLayout(m->mod, layout);
    LLVMDisposeTargetData(layout);
    return true;
}

/* libdevice, as the GPU links it, its NVVM intrinsics lowered for the CPU
 * (hostlib.c), its questions answered for a current GPU (sm_90) without
 * flush to zero; with --math=libm, nothing: the C library is linked with
 * the shared object (host_emit). */
static bool host_link(IrModule *m, Diag *d) {
    const char *caller = m->cfg->libm ? NULL : libdevice_first_call(m->mod);
    if (!caller) return hostlib_lower(m->mod, d); /* the NVVM intrinsics of --math=libm's functions */
    char path[4096];
    if (!libdevice_find(m->cfg, caller, path, sizeof path, d)) {
        diag_plain(d, DIAG_NOTE, "or compile with --math=libm: the C library's math, within its own error bounds");
        return false;
    }
    LibdeviceOwn own = libdevice_own_functions(m->mod);
    bool linked = libdevice_link(m->mod, path, NULL, d);
    if (linked) libdevice_contract(m->mod, &own);
    free(own.fns);
    if (!linked) return false;
    libdevice_internalize(m->mod);
    libdevice_answer(m->mod, "__CUDA_FTZ", 0, 0);
    libdevice_answer(m->mod, "__CUDA_PREC_SQRT", 1, 1);
    libdevice_answer(m->mod, "__CUDA_ARCH", 900, 900);
    return hostlib_lower(m->mod, d);
}

static long host_max_param_bytes(const TargetConfig *cfg) { return 32764; }

static const char *host_no_bfloat16(const TargetConfig *cfg) { return NULL; }

static void host_describe(FILE *out, const char *libdevice) {
    fprintf(out, "triple: %s\n", HOST_TRIPLE);
    char path[4096], from_env[4096];
    if (libdevice_search(libdevice, path, sizeof path, from_env))
        fprintf(out, "math: libdevice, %s (--math=libm: the C library's)\n", path);
    else
        fputs("math: libdevice not found (--math=libm: the C library's)\n", out);
}

/* ---- the records of the running thread ------------------------------------ */

static LLVMTypeRef ptr_type(LLVMContextRef ctx) { return LLVMPointerTypeInContext(ctx, 0); }

/* The module's thread-local pointer `name`, made on first use. */
LLVMValueRef host_thread_local(LLVMModuleRef mod, const char *name) {
    LLVMValueRef gv = LLVMGetNamedGlobal(mod, name);
    if (gv) return gv;
    LLVMTypeRef p = ptr_type(LLVMGetModuleContext(mod));
    gv = LLVMAddGlobal(mod, p, name);
    LLVMSetInitializer(gv, LLVMConstNull(p));
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetThreadLocal(gv, true);
    return gv;
}

/* A load that stays the same while the thread lives: LLVM may keep it
 * across stores to memory, and out of loops. */
static LLVMValueRef invariant_load(CodeGen *g, LLVMTypeRef t, LLVMValueRef p) {
    LLVMValueRef v = LLVMBuildLoad2(g->b, t, p, "");
    unsigned kind = LLVMGetMDKindIDInContext(g->ctx, "invariant.load", 14);
    LLVMSetMetadata(v, kind, LLVMMetadataAsValue(g->ctx, LLVMMDNodeInContext2(g->ctx, NULL, 0)));
    return v;
}

static LLVMValueRef field_ptr(CodeGen *g, LLVMValueRef record, int offset) {
    LLVMValueRef at = cg_i64(g, offset);
    return LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->ctx), record, &at, 1, "");
}

/* Not invariant: a block's entry (NAME.block) makes each of its threads
 * the running one in turn, in one function. */
static LLVMValueRef thread_record(CodeGen *g) {
    return LLVMBuildLoad2(g->b, ptr_type(g->ctx), host_thread_local(g->mod, HOST_THREAD_VAR), "thread");
}

static LLVMValueRef thread_field(CodeGen *g, int offset, LLVMTypeRef t) {
    return invariant_load(g, t, field_ptr(g, thread_record(g), offset));
}

static LLVMValueRef block_record(CodeGen *g) { return thread_field(g, THREAD_BLOCK, ptr_type(g->ctx)); }

static LLVMValueRef block_field(CodeGen *g, int offset, LLVMTypeRef t) {
    return invariant_load(g, t, field_ptr(g, block_record(g), offset));
}

static LLVMTypeRef i32_type(CodeGen *g) { return LLVMInt32TypeInContext(g->ctx); }
static LLVMTypeRef i64_type(CodeGen *g) { return LLVMInt64TypeInContext(g->ctx); }

static LLVMValueRef host_special(CodeGen *g, SpecialValue v, int axis) {
    static const int block_offsets[] = {[SV_BLOCK_IDX] = BLOCK_IDX, [SV_BLOCK_DIM] = BLOCK_DIM, [SV_GRID_DIM] = GRID_DIM};
    switch (v) {
    case SV_THREAD_IDX: return thread_field(g, THREAD_IDX + 4 * axis, i32_type(g));
    case SV_LANE_ID: return LLVMBuildAnd(g->b, thread_field(g, THREAD_LINEAR, i32_type(g)), cg_i32(g, 31), "lane");
    case SV_WARP_SIZE: return cg_i32(g, 32);
    default: return block_field(g, block_offsets[v] + 4 * axis, i32_type(g));
    }
}

/* ---- waiting for other threads --------------------------------------------- */

/* The thread stops here until the scheduler resumes it (`why` says
 * when): a marker, which hostthreads.c makes a suspension point. */
static void suspend(CodeGen *g, int why) {
    LLVMBuildStore(g->b, cg_i32(g, why), field_ptr(g, thread_record(g), THREAD_WAIT));
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), NULL, 0, false);
    LLVMValueRef marker = LLVMGetNamedFunction(g->mod, HOST_SUSPEND_MARKER);
    if (!marker) marker = LLVMAddFunction(g->mod, HOST_SUSPEND_MARKER, fty);
    LLVMBuildCall2(g->b, fty, marker, NULL, 0, "");
}

/* nanosleep lets the block's other threads run: a thread that sleeps
 * waits for one of them. A breakpoint is a debugger's, and the host's
 * debuggers stop anywhere. */
static void host_barrier(CodeGen *g, BarrierOp op, LLVMValueRef arg) {
    switch (op) {
    case SYNC_THREADS: suspend(g, AT_BARRIER); return;
    case SYNC_WARP: case NANOSLEEP: suspend(g, AT_WARP); return;
    case FENCE_DEVICE: case FENCE_BLOCK: case FENCE_SYSTEM:
        LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
        return;
    case BREAKPOINT: return;
    }
}

/* syncthreads_count/and/or: each thread adds its predicate to the block's
 * vote, and after the barrier reads what the scheduler moved out. */
static LLVMValueRef host_block_vote(CodeGen *g, BlockVote op, LLVMValueRef pred) {
    LLVMValueRef one = LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntNE, pred, LLVMConstNull(LLVMTypeOf(pred)), ""),
                                     i32_type(g), "");
    LLVMValueRef acc = field_ptr(g, block_record(g), BLOCK_VOTES + 4 * (int)op);
    LLVMValueRef old = LLVMBuildLoad2(g->b, i32_type(g), acc, "");
    LLVMValueRef now = op == VOTE_COUNT ? LLVMBuildAdd(g->b, old, one, "")
                       : op == VOTE_AND ? LLVMBuildAnd(g->b, old, one, "") : LLVMBuildOr(g->b, old, one, "");
    LLVMBuildStore(g->b, now, acc);
    suspend(g, AT_BARRIER);
    return LLVMBuildLoad2(g->b, i32_type(g), field_ptr(g, block_record(g), BLOCK_RESULTS + 4 * (int)op), "");
}

/* ---- warps: exchanges through the block's slots ------------------------------ */

static LLVMValueRef linear_id(CodeGen *g) { return thread_field(g, THREAD_LINEAR, i32_type(g)); }

static LLVMValueRef warp_base(CodeGen *g) { return LLVMBuildAnd(g->b, linear_id(g), cg_i32(g, ~31), ""); }

static LLVMValueRef slot_ptr(CodeGen *g, LLVMValueRef index) {
    LLVMValueRef slots = block_field(g, BLOCK_SLOTS, ptr_type(g->ctx));
    LLVMValueRef i = LLVMBuildZExt(g->b, index, i64_type(g), "");
    return LLVMBuildGEP2(g->b, i64_type(g), slots, &i, 1, "slot");
}

/* A value of t as the 64 bits of a slot, and back. */
static LLVMValueRef to_slot(CodeGen *g, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
        v = LLVMBuildBitCast(g->b, v, LLVMIntTypeInContext(g->ctx, LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32), "");
    return LLVMBuildZExt(g->b, v, i64_type(g), "");
}

static LLVMValueRef from_slot(CodeGen *g, LLVMValueRef bits, LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) return LLVMBuildTrunc(g->b, bits, t, "");
    unsigned width = LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32;
    return LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, bits, LLVMIntTypeInContext(g->ctx, width), ""), t, "");
}

/* The thread's value into its slot, until every lane of the warp has
 * put its own. */
static void publish(CodeGen *g, LLVMValueRef v) {
    LLVMBuildStore(g->b, to_slot(g, v), slot_ptr(g, linear_id(g)));
    suspend(g, AT_WARP);
}

/* After reading the warp's slots: no lane overwrites its slot before
 * every lane has read. */
static void consumed(CodeGen *g) { suspend(g, AT_WARP); }

/* The lane shfl.sync reads (PTX's rules with numba's clamp: 0 for up, 31
 * otherwise; only the offset's low 5 bits count), the thread's own where
 * the source is outside the warp. */
static LLVMValueRef source_lane(CodeGen *g, WarpOp op, LLVMValueRef lane, LLVMValueRef b) {
    b = LLVMBuildAnd(g->b, b, cg_i32(g, 31), "");
    switch (op) {
    case WARP_SHFL_IDX: return b;
    case WARP_SHFL_XOR: return LLVMBuildXor(g->b, lane, b, "");
    case WARP_SHFL_UP: {
        LLVMValueRef j = LLVMBuildSub(g->b, lane, b, "");
        return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, j, cg_i32(g, 0), ""), lane, j, "");
    }
    default: {
        LLVMValueRef j = LLVMBuildAdd(g->b, lane, b, "");
        return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, j, cg_i32(g, 31), ""), lane, j, "");
    }
    }
}

static LLVMValueRef warp_shuffle(CodeGen *g, WarpOp op, LLVMValueRef *args) {
    LLVMValueRef v = args[1];
    publish(g, v);
    LLVMValueRef lane = host_special(g, SV_LANE_ID, 0);
    LLVMValueRef from = LLVMBuildOr(g->b, warp_base(g), source_lane(g, op, lane, args[2]), "");
    LLVMValueRef r = from_slot(g, LLVMBuildLoad2(g->b, i64_type(g), slot_ptr(g, from), ""), LLVMTypeOf(v));
    consumed(g);
    return r;
}

/* The lanes of the thread's warp that have not finished. */
static LLVMValueRef live_lanes(CodeGen *g) {
    LLVMValueRef live = block_field(g, BLOCK_LIVE, ptr_type(g->ctx));
    LLVMValueRef warp = LLVMBuildZExt(g->b, LLVMBuildLShr(g->b, linear_id(g), cg_i32(g, 5), ""), i64_type(g), "");
    return LLVMBuildLoad2(g->b, i32_type(g), LLVMBuildGEP2(g->b, i32_type(g), live, &warp, 1, ""), "");
}

/* The block's warp_vote over the warp's slots, once every lane has put
 * its value. */
static LLVMValueRef warp_vote(CodeGen *g, int vote, LLVMValueRef mask, LLVMValueRef v) {
    publish(g, v);
    LLVMTypeRef i32 = i32_type(g), p = ptr_type(g->ctx);
    LLVMTypeRef params[] = {i32, p, i32, i32, i32};
    LLVMTypeRef fty = LLVMFunctionType(i32, params, 5, false);
    LLVMValueRef fn = block_field(g, BLOCK_WARP_VOTE, p);
    LLVMValueRef args[] = {cg_i32(g, vote), slot_ptr(g, warp_base(g)), host_special(g, SV_LANE_ID, 0), mask,
                           live_lanes(g)};
    LLVMValueRef r = LLVMBuildCall2(g->b, fty, fn, args, 5, "vote");
    consumed(g);
    return r;
}

static LLVMValueRef host_warp(CodeGen *g, WarpOp op, LLVMValueRef *args, const Type *t) {
    static const int votes[] = {[WARP_ALL] = VOTE_ALL, [WARP_ANY] = VOTE_ANY, [WARP_EQ] = VOTE_EQ,
                                [WARP_BALLOT] = VOTE_BALLOT, [WARP_MATCH_ANY] = VOTE_MATCH_ANY,
                                [WARP_MATCH_ALL] = VOTE_MATCH_ALL};
    switch (op) {
    case WARP_ACTIVEMASK: { /* the warp's lanes meet first, as converged lanes run together */
        suspend(g, AT_WARP);
        LLVMValueRef live = live_lanes(g);
        consumed(g);
        return live;
    }
    case WARP_LANEMASK_LT:
        return LLVMBuildSub(g->b, LLVMBuildShl(g->b, cg_i32(g, 1), host_special(g, SV_LANE_ID, 0), ""), cg_i32(g, 1), "");
    case WARP_ALL: case WARP_ANY: case WARP_EQ:
        return LLVMBuildTrunc(g->b, warp_vote(g, votes[op], args[0], args[1]), LLVMInt1TypeInContext(g->ctx), "");
    case WARP_BALLOT: case WARP_MATCH_ANY: return warp_vote(g, votes[op], args[0], args[1]);
    case WARP_MATCH_ALL: {
        LLVMValueRef m = warp_vote(g, VOTE_MATCH_ALL, args[0], args[1]);
        LLVMTypeRef fields[] = {i32_type(g), LLVMInt1TypeInContext(g->ctx)};
        LLVMValueRef r = LLVMGetUndef(LLVMStructTypeInContext(g->ctx, fields, 2, false));
        r = LLVMBuildInsertValue(g->b, r, m, 0, "");
        return LLVMBuildInsertValue(g->b, r, LLVMBuildICmp(g->b, LLVMIntNE, m, cg_i32(g, 0), ""), 1, "");
    }
    default: return warp_shuffle(g, op, args);
    }
}

/* ---- memory ------------------------------------------------------------- */

/* A CPU has one kind of load: the cache operators are the GPU's. */
static LLVMValueRef host_cache_load(CodeGen *g, CacheOp op, LLVMValueRef p, const Type *t) {
    return LLVMBuildLoad2(g->b, cg_type(g, t), p, "");
}

static void host_cache_store(CodeGen *g, CacheOp op, LLVMValueRef p, LLVMValueRef v, const Type *t) {
    LLVMBuildStore(g->b, v, p);
}

static LLVMValueRef host_dynamic_shared(CodeGen *g) {
    return block_field(g, BLOCK_DYNAMIC_SHARED, ptr_type(g->ctx));
}

/* The grid: a cooperative launch runs all its blocks at once, and a
 * thread at the grid barrier waits for every block's (the scheduler's). */
static LLVMValueRef host_grid_group(CodeGen *g) { return cg_i64(g, 0); }

static void host_grid_sync(CodeGen *g, LLVMValueRef group) {
    LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
    suspend(g, AT_GRID);
    LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
}

/* Exact division: what the GPU's approximate forms approximate. */
static LLVMValueRef host_fast_fdiv(CodeGen *g, FastDiv kind, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildFDiv(g->b, a, b, "");
}

/* printf, its values promoted as C's variadic calls promote them. */
static void host_print(CodeGen *g, LLVMValueRef format, LLVMValueRef *values, int n) {
    LLVMValueRef *args = ARENA_ARRAY(g->arena, LLVMValueRef, n + 1);
    args[0] = format;
    for (int i = 0; i < n; i++) {
        LLVMValueRef v = values[i];
        LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));
        if (k == LLVMFloatTypeKind || k == LLVMHalfTypeKind) v = LLVMBuildFPExt(g->b, v, LLVMDoubleTypeInContext(g->ctx), "");
        else if (k == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 32) v = LLVMBuildSExt(g->b, v, i32_type(g), "");
        args[i + 1] = v;
    }
    LLVMTypeRef p = ptr_type(g->ctx);
    LLVMTypeRef fty = LLVMFunctionType(i32_type(g), &p, 1, true);
    LLVMValueRef printf_fn = LLVMGetNamedFunction(g->mod, "printf");
    if (!printf_fn) printf_fn = LLVMAddFunction(g->mod, "printf", fty);
    LLVMBuildCall2(g->b, fty, printf_fn, args, (unsigned)n + 1, "");
}

/* The thread ends: hostthreads.c makes the marker a branch to its
 * kernel's end, once the function is inlined there. */
static void host_exit_thread(CodeGen *g) {
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), NULL, 0, false);
    LLVMValueRef marker = LLVMGetNamedFunction(g->mod, HOST_EXIT_MARKER);
    if (!marker) marker = LLVMAddFunction(g->mod, HOST_EXIT_MARKER, fty);
    LLVMBuildCall2(g->b, fty, marker, NULL, 0, "");
}

void host_string_attr(LLVMValueRef fn, const char *k, const char *v) {
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

/* Marked for hostthreads.c, which gives it its entry. */
static void host_mark_kernel(CodeGen *g, const FuncInfo *f, LLVMValueRef fn) { host_string_attr(fn, HOST_KERNEL_ATTR, "1"); }

/* fastmath's freedoms, which the CPU's instructions take; denormals are
 * kept, as the CPU keeps them. */
static void host_mark_fast_model(LLVMValueRef fn) {
    static const char *const keys[] = {"unsafe-fp-math", "no-infs-fp-math", "no-nans-fp-math",
                                       "no-signed-zeros-fp-math", "approx-func-fp-math"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) host_string_attr(fn, keys[i], "true");
}

/* Whether the module rounds float32 to bfloat16 (fptrunc), which LLVM's
 * X86 back end leaves to the library's __truncsfbf2. */
static bool truncates_to_bfloat(LLVMModuleRef mod) {
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
                if (LLVMIsAFPTruncInst(i) && LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMBFloatTypeKind) return true;
    return false;
}

/* __truncsfbf2 as cvt.rn.bf16.f32 rounds: to nearest even, NaN to the
 * canonical 0x7fff (libgcc before GCC 13 has none, and compiler-rt's keeps
 * the NaN's payload). Hidden: each module has its own. */
static void add_truncsfbf2(LLVMModuleRef mod) {
    LLVMContextRef ctx = LLVMGetModuleContext(mod);
    struct { LLVMBuilderRef b; } builder = {LLVMCreateBuilderInContext(ctx)}, *r = &builder;
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx), bf16 = LLVMBFloatTypeInContext(ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i16 = LLVMInt16TypeInContext(ctx);
    LLVMValueRef fn = LLVMAddFunction(mod, "__truncsfbf2", LLVMFunctionType(bf16, &f32, 1, false));
    LLVMSetVisibility(fn, LLVMHiddenVisibility);
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
    LLVMValueRef x = LLVMGetParam(fn, 0);
    LLVMValueRef u = LLVMBuildBitCast(r->b, x, i32, "");
    LLVMValueRef odd = LLVMBuildAnd(r->b, LLVMBuildLShr(r->b, u, LLVMConstInt(i32, 16, false), ""), LLVMConstInt(i32, 1, false), "");
    LLVMValueRef up = LLVMBuildAdd(r->b, LLVMBuildAdd(r->b, u, LLVMConstInt(i32, 0x7fff, false), ""), odd, "");
    LLVMValueRef bits = LLVMBuildTrunc(r->b, LLVMBuildLShr(r->b, up, LLVMConstInt(i32, 16, false), ""), i16, "");
    LLVMValueRef nan = LLVMBuildFCmp(r->b, LLVMRealUNO, x, x, "");
    bits = LLVMBuildSelect(r->b, nan, LLVMConstInt(i16, 0x7fff, false), bits, "");
    LLVMBuildRet(r->b, LLVMBuildBitCast(r->b, bits, bf16, ""));
    LLVMDisposeBuilder(r->b);
}

bool host_run_passes(IrModule *m, const char *passes, Diag *d) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(m->mod, passes, m->machine, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (!err) return true;
    char *msg = LLVMGetErrorMessage(err);
    diag_plain(d, DIAG_ERROR, "LLVM's optimiser failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
}

static const char *pipeline(int opt_level) {
    static const char *const levels[] = {"default<O0>", "default<O1>", "default<O2>", "default<O3>"};
    return levels[opt_level];
}

static bool host_optimize(IrModule *m, Diag *d) {
    if (!host_threads(m, d)) return false; /* hostthreads.c */
    hostlib_conversions(m->mod);
    contract_doubled(m->mod);
    if (!host_run_passes(m, pipeline(m->cfg->opt_level), d)) return false;
    contract_limit(m->mod);
    contract_fuse(m->mod);
    if (truncates_to_bfloat(m->mod)) add_truncsfbf2(m->mod);
    return true;
}

/* ---- the shared object ------------------------------------------------------ */

static bool emit_object(IrModule *m, Code *out, Diag *d) {
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(m->machine, m->mod, LLVMObjectFile, &msg, &buf)) {
        diag_plain(d, DIAG_ERROR, "LLVM could not emit the object: %s", msg ? msg : "unknown error");
        LLVMDisposeMessage(msg);
        return false;
    }
    out->len = LLVMGetBufferSize(buf);
    out->bytes = malloc(out->len + 1);
    if (!out->bytes) ice("out of memory copying the object");
    memcpy(out->bytes, LLVMGetBufferStart(buf), out->len);
    LLVMDisposeMemoryBuffer(buf);
    out->version[0] = '\0';
    return true;
}

/* The object linked into a shared object by the system's C compiler
 * driver: no start files (their bytes differ between systems), libm,
 * libc, and libgcc for what LLVM leaves to it (powi, half conversions). */
static bool link_shared(const Code *object, Code *out, Diag *d) {
    char obj_path[4096], so_path[4096];
    if (!program_write_temp("pykc-XXXXXX.o", 2, object->bytes, object->len, obj_path, sizeof obj_path, d)) return false;
    int fd = program_temp("pykc-XXXXXX.so", 3, so_path, sizeof so_path, d);
    bool ok = fd >= 0 && close(fd) == 0;
    char *argv[] = {"cc", "-shared", "-nostdlib", "-o", so_path, obj_path, "-lm", "-lc", "-lgcc", NULL};
    char *output = NULL;
    int why = 0, status = ok ? program_run(argv, &output, &why) : -1;
    if (ok && status < 0) diag_plain(d, DIAG_ERROR, "cannot run 'cc' to link the host module: %s", strerror(why));
    else if (ok && status != 0) diag_plain(d, DIAG_ERROR, "linking the host module failed:\n%s", output ? output : "");
    ok = ok && status == 0;
    if (ok && !(out->bytes = program_read_file(so_path, &out->len))) {
        diag_plain(d, DIAG_ERROR, "cannot read what the linker wrote: %s", strerror(errno));
        ok = false;
    }
    free(output);
    unlink(obj_path);
    if (fd >= 0) unlink(so_path);
    return ok;
}

static bool host_emit(IrModule *m, EmitKind kind, Code *out, Diag *d) {
    if (kind == EMIT_OBJECT) return emit_object(m, out, d);
    Code object = {0};
    bool ok = emit_object(m, &object, d) && link_shared(&object, out, d);
    code_free(&object);
    return ok;
}

const Target target_host = {
    .name = "host",
    .default_arch = "x86-64-v2",
    .code_kind = EMIT_SHARED,
    .emit_kinds = (1u << EMIT_OBJECT) | (1u << EMIT_SHARED),
    .knows_arch = host_knows_arch,
    .check_arch = host_check_arch,
    .describe = host_describe,
    .prepare = host_prepare,
    .link = host_link,
    .optimize = host_optimize,
    .emit = host_emit,
    .max_param_bytes = host_max_param_bytes,
    .no_bfloat16 = host_no_bfloat16,
    .address_space = {[MEM_GLOBAL] = 0, [MEM_SHARED] = 0, [MEM_CONST] = 0},
    .shared_is_thread_local = true,
    .special = host_special,
    .barrier = host_barrier,
    .block_vote = host_block_vote,
    .warp = host_warp,
    .cache_load = host_cache_load,
    .cache_store = host_cache_store,
    .dynamic_shared = host_dynamic_shared,
    .grid_group = host_grid_group,
    .grid_sync = host_grid_sync,
    .math = host_math,
    .math_symbol = host_math_symbol,
    .fast_fdiv = host_fast_fdiv,
    .half_math = host_half_math,
    .print = host_print,
    .exit_thread = host_exit_thread,
    .device_launch = NULL,
    .mark_kernel = host_mark_kernel,
    .mark_fast_model = host_mark_fast_model,
};
