/*
 * backend.h - the back end's internal header, for the files that speak
 * LLVM: codegen.c (the IR builder), target.c (the table of targets and the
 * steps every target shares) and each target (nvptx.c).
 *
 * A target is a struct of functions (Target, below) in two groups: the
 * pipeline after the IR is built (prepare, link, optimise, emit), which
 * main.c runs through target.c, and the lowering of what depends on the
 * machine, which codegen.c calls while it builds the IR: special values,
 * barriers and fences, warp operations, cache-hinted accesses, the grid
 * barrier, the math library, print, where globals live, and how a kernel
 * is marked. Everything else codegen builds as portable LLVM IR (atomics
 * are LLVM's atomicrmw and cmpxchg). A new target is a new file that
 * defines a Target, and a line in target.c's table.
 */
#ifndef PYKC_BACKEND_H
#define PYKC_BACKEND_H

#include "pykc.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* A module on its way through the pipeline, in a context of its own, for
 * one target configuration (ir_module_new). */
struct IrModule {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    const TargetConfig *cfg;
    LLVMTargetMachineRef machine;  /* the target's, made by its prepare */
};

typedef struct LoopState LoopState;

/* The IR builder's state while it builds a module; the target's lowering
 * functions build into g->b, in g->mod. */
typedef struct CodeGen {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    const TargetConfig *cfg;
    Unit *unit;
    Diag *diag;
    Arena *arena;
    FuncInfo *fn;
    LLVMValueRef llfn;
    LoopState *loops;          /* the function's for loops, by node */
    int loop_count, loop_cap;
    bool fastmath;             /* the function's own: instruction flags,
                                  the fast forms of math and division */
    bool ftz;                  /* the floating-point model it is compiled
                                  under, that of the kernels calling it */
    bool failed;
    const Node *at;            /* the statement being built */
    LLVMDIBuilderRef di;       /* -g, --lineinfo or a function's debug=True or
                                  lineinfo=True, else NULL */
    LLVMMetadataRef di_file, di_unit;
    LLVMMetadataRef di_scope;  /* the function's subprogram, or NULL where
                                  it has no debug information */
} CodeGen;

/* Where a global lives: each target maps these to its address spaces. */
typedef enum { MEM_GLOBAL, MEM_SHARED, MEM_CONST, MEM_COUNT } MemorySpace;

/* The forms of float32 division that Numba's fastmath asks for. */
typedef enum {
    FDIV_FAST,          /* `/` of two float32 values: approximate */
    FDIV_FULL,          /* other divisions: 2 ulp, flushing denormals */
    FDIV_EXACT_FTZ,     /* the division in %: rounded, flushing denormals */
    FDIV_APPROX,        /* float32, approximate, keeping denormals: CUDA's
                           bfloat16 division */
} FastDiv;

struct Target {
    const char *name;             /* --target NAME */
    const char *default_arch;
    EmitKind code_kind;           /* what it writes by default, and what
                                     a manifest of it describes */
    unsigned emit_kinds;          /* bit 1 << kind for each kind of code it
                                     writes (EMIT_PTX, EMIT_SHARED ...) */
    /* ---- the pipeline */
    /* Whether arch names a machine of this target (sm_90, x86-64-v2). */
    bool (*knows_arch)(const char *arch);
    /* Checks an --arch value: false, with a usage message, if unknown or
     * beyond what this build can compile. */
    bool (*check_arch)(const char *arch, Diag *d);
    /* --version: a line each for what it would use (libdevice: the path
     * --libdevice gives, or NULL to search). */
    void (*describe)(FILE *out, const char *libdevice);
    /* Sets the module's triple and data layout. */
    bool (*prepare)(IrModule *m, Diag *d);
    /* Links the libraries the module calls into it. */
    bool (*link)(IrModule *m, Diag *d);
    bool (*optimize)(IrModule *m, Diag *d);
    /* The code for `kind` (not EMIT_LLVM, which target.c prints), and the
     * version of its format ("7.8" for PTX ISA 7.8). */
    bool (*emit)(IrModule *m, EmitKind kind, Code *out, Diag *d);
    /* The most bytes of parameters a kernel may take. */
    long (*max_param_bytes)(const TargetConfig *cfg);
    /* Why the configured arch cannot compute with bfloat16 values, naming
     * the arch and what would; NULL when it can. */
    const char *(*no_bfloat16)(const TargetConfig *cfg);
    /* ---- lowering */
    unsigned address_space[MEM_COUNT];
    bool shared_is_thread_local;  /* shared memory as thread-local storage */
    /* A special value of the running thread (axis 0..2 for the dim3 ones). */
    LLVMValueRef (*special)(CodeGen *g, SpecialValue v, int axis);
    /* A barrier, fence or pause; arg: syncwarp's mask (NULL: all lanes),
     * nanosleep's time. */
    void (*barrier)(CodeGen *g, BarrierOp op, LLVMValueRef arg);
    LLVMValueRef (*block_vote)(CodeGen *g, BlockVote op, LLVMValueRef pred);
    /* A warp operation on args (as the call gives them, converted); t: the
     * type of the value shuffled or matched. */
    LLVMValueRef (*warp)(CodeGen *g, WarpOp op, LLVMValueRef *args, const Type *t);
    /* The launch's dynamic shared memory (a generic pointer); NULL where
     * it is the module's one extern shared array. */
    LLVMValueRef (*dynamic_shared)(CodeGen *g);
    LLVMValueRef (*cache_load)(CodeGen *g, CacheOp op, LLVMValueRef p, const Type *t);
    void (*cache_store)(CodeGen *g, CacheOp op, LLVMValueRef p, LLVMValueRef v, const Type *t);
    /* cuda.cg.this_grid() and its sync() (the kernel needs a cooperative
     * launch). */
    LLVMValueRef (*grid_group)(CodeGen *g);
    void (*grid_sync)(CodeGen *g, LLVMValueRef group);
    /* The math library's function `name` (sin, hypot, powi) of type t's
     * precision; `symbol`: a function by the library's own name. */
    LLVMValueRef (*math)(CodeGen *g, const char *name, const Type *t, LLVMValueRef *args, int n);
    LLVMValueRef (*math_symbol)(CodeGen *g, const char *symbol, LLVMTypeRef ret, LLVMValueRef *args, int n);
    LLVMValueRef (*fast_fdiv)(CodeGen *g, FastDiv kind, LLVMValueRef a, LLVMValueRef b);
    /* The float16 function `name` (sin, exp10, rcp, tanh_approx ...) of a
     * half x as CUDA's cuda_fp16.hpp computes it, or NULL where that is
     * the float32 function rounded to half. */
    LLVMValueRef (*half_math)(CodeGen *g, const char *name, LLVMValueRef x);
    /* Prints format (a NUL-terminated string's generic pointer) with the
     * values it names, as printf would. */
    void (*print)(CodeGen *g, LLVMValueRef format, LLVMValueRef *values, int n);
    /* Ends the running thread, wherever it is (a raise under debug=True). */
    void (*exit_thread)(CodeGen *g);
    /* Launches kernel entry `fn` from the device (dynamic parallelism):
     * grid and block of three i32 each, `shared` (i32) bytes of dynamic
     * shared memory, and the entry's n parameters, each a value of the type
     * the entry declares; NULL where the target cannot. */
    void (*device_launch)(CodeGen *g, LLVMValueRef fn, LLVMValueRef *grid, LLVMValueRef *block, LLVMValueRef shared,
                          LLVMValueRef *params, int n);
    /* A kernel entry, with the limits its decorator sets, and a function
     * of the fast floating-point model. */
    void (*mark_kernel)(CodeGen *g, const FuncInfo *f, LLVMValueRef fn);
    void (*mark_fast_model)(LLVMValueRef fn);
};

extern const Target target_nvptx;
extern const Target target_host;

/* target.c: m checked by LLVM's verifier, an internal error naming `what`
 * m is where it fails: pykc's IR is pykc's to get right. */
void ir_verify(LLVMModuleRef m, const char *what);

/* libdevice.c: CUDA's libdevice, for the targets that link it. */
#define LIBDEVICE_SUBPATH "/nvvm/libdevice/libdevice.10.bc"
#define DEFAULT_CUDA_HOME "/usr/local/cuda"
/* The suffix of libdevice's flush-to-zero copy, which the functions of the
 * fast floating-point model call (codegen.c). */
#define LIBDEVICE_FTZ_SUFFIX ".ftz"
bool libdevice_is_name(const char *name);
bool libdevice_is_ftz_copy(const char *name, size_t len);
/* The first libdevice function m calls (declares), or NULL. */
const char *libdevice_first_call(LLVMModuleRef m);
/* Where libdevice.10.bc is, into path: --libdevice alone if given, else
 * $CUDA_HOME, then /usr/local/cuda; from_env: the $CUDA_HOME candidate. */
bool libdevice_search(const char *given, char *path, size_t size, char from_env[4096]);
/* libdevice_search, reporting what was searched when it fails (caller: the
 * function that needs it). */
bool libdevice_find(const TargetConfig *cfg, const char *caller, char *path, size_t size, Diag *d);
bool libdevice_link(LLVMModuleRef m, const char *path, void (*prepare)(LLVMModuleRef lib), Diag *d);
/* libdevice's functions in m made internal, dead once inlined. */
void libdevice_internalize(LLVMModuleRef m);
LLVMValueRef libdevice_find_reflect(LLVMValueRef fn, const char *name);
void libdevice_replace_reflect(LLVMValueRef call, int value);
void libdevice_answer(LLVMModuleRef m, const char *name, int plain, int ftz);
/* The functions m defines before linking: pykc's own. */
typedef struct {
    LLVMValueRef *fns;
    size_t n;
} LibdeviceOwn;
LibdeviceOwn libdevice_own_functions(LLVMModuleRef m);
void libdevice_contract(LLVMModuleRef m, const LibdeviceOwn *own);

/* contract.c: Numba's rule for fusing a*b+c. Before the pipeline, p + p
 * of a product that fuses becomes fma(a, b, p); after it, contract_limit
 * takes the contract flag off products that do not fuse in every use, and
 * contract_fuse (for a target that does not fuse by itself) makes each
 * remaining fusion an llvm.fma. */
void contract_doubled(LLVMModuleRef m);
void contract_limit(LLVMModuleRef m);
void contract_fuse(LLVMModuleRef m);

/* sregs.c: after the optimiser, each block that uses a special register's
 * read (or its widening) made in another block reads it again, so that the
 * value is not held in registers through a loop. */
void remat_special_registers(LLVMModuleRef m);

/* balance.c: after the optimiser, chains of and, or and xor regrouped so
 * that the operands ready first pair up. */
void balance_bitwise_chains(LLVMModuleRef m);

/* nounroll.c: after the optimiser, each loop it left that reads global
 * memory is marked so that ptxas does not unroll it again. */
void keep_loops_as_unrolled(LLVMModuleRef m);

/* loops.c: positions of blocks or instructions found by their address:
 * places_sort an array of (key, position) once, then place_of gives a
 * key's position, -1 for one not among them. */
typedef struct Placed {
    const void *key;
    int at;
} Placed;

void places_sort(Placed *places, int n);
int place_of(const Placed *places, int n, const void *key);

/* loops.c: a function's blocks in layout order (position i is blocks[i]),
 * its loops, as back edges from latch[k] to header[k], and its dominator
 * tree, for the passes after the optimiser. */
typedef struct Layout {
    LLVMBasicBlockRef *blocks;
    Placed *by_block; /* to find a block's position */
    int count;
    int *latch, *header; /* positions, loop_count of each */
    int loop_count;
    int *idom; /* each block's immediate dominator; the entry's is itself, -1 where unreached */
} Layout;

Layout layout_of(LLVMValueRef fn);
int layout_position(const Layout *l, LLVMBasicBlockRef block); /* -1 if not fn's */
void layout_free(Layout *l);

/* host.c and hostthreads.c: the host target's lowering leaves markers
 * where a thread waits or ends, which host_threads makes coroutine
 * suspension points before the pipeline; both read the running thread's
 * record through a thread-local pointer. */
#define HOST_SUSPEND_MARKER "pykc.host.suspend"
#define HOST_EXIT_MARKER "pykc.host.exit"
#define HOST_THREAD_VAR "pykrt.host.thread"
#define HOST_HANDLE_VAR "pykrt.host.handle"
#define HOST_KERNEL_ATTR "pykc-host-kernel"
/* The module's thread-local pointer `name`, made on first use. */
LLVMValueRef host_thread_local(LLVMModuleRef mod, const char *name);
void host_string_attr(LLVMValueRef fn, const char *key, const char *value);
/* LLVM's pass pipeline `passes` over m; false with LLVM's message. */
bool host_run_passes(IrModule *m, const char *passes, Diag *d);
/* Kernels and their entries as libpykrt's host device calls them. */
bool host_threads(IrModule *m, Diag *d);

/* hostlib.c: the NVVM intrinsics that libdevice calls, lowered for the
 * host (after libdevice is linked into m); false with an error naming one
 * it cannot. */
bool hostlib_lower(LLVMModuleRef m, Diag *d);
/* Every float-to-integer conversion of m as the GPU's cvt.rzi computes it
 * (saturated, NaN as an H100 gives it). */
void hostlib_conversions(LLVMModuleRef m);

/* hostmath.c: the host target's math lowering (Target.math, math_symbol,
 * half_math). */
LLVMValueRef host_math(CodeGen *g, const char *name, const Type *t, LLVMValueRef *args, int n);
LLVMValueRef host_math_symbol(CodeGen *g, const char *symbol, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef host_half_math(CodeGen *g, const char *name, LLVMValueRef x);
/* The cubin of PTX text, assembled by the toolkit's ptxas ($CUDA_HOME or
 * /usr/local/cuda), its messages passed on as diagnostics. */
bool nvptx_assemble_cubin(const Code *ptx, const TargetConfig *cfg, Code *out, Diag *d);

/* ---- codegen.c: what a target's lowering may use -------------------------- */

LLVMTypeRef cg_type(CodeGen *g, const Type *t);
LLVMTypeRef cg_generic_pointer(CodeGen *g);
LLVMValueRef cg_intrinsic(CodeGen *g, const char *name, LLVMTypeRef *overloads, int no, LLVMValueRef *args, int n);
/* A call of the external function `name`, declared as the arguments say. */
LLVMValueRef cg_call(CodeGen *g, LLVMTypeRef ret, const char *name, LLVMValueRef *args, int n);
/* An alloca in the function's entry block, where mem2reg finds it. */
LLVMValueRef cg_entry_alloca(CodeGen *g, LLVMTypeRef t, const char *name);
LLVMBasicBlockRef cg_new_block(CodeGen *g, const char *name);
/* An error at the statement being built: what the target cannot do. */
void cg_refuse(CodeGen *g, const char *what);

static inline LLVMValueRef cg_i32(CodeGen *g, long long v) {
    return LLVMConstInt(LLVMInt32TypeInContext(g->ctx), (unsigned long long)v, true);
}

static inline LLVMValueRef cg_i64(CodeGen *g, long long v) {
    return LLVMConstInt(LLVMInt64TypeInContext(g->ctx), (unsigned long long)v, true);
}

#endif
