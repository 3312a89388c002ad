/*
 * hostthreads.c - the host target's threads: each kernel an entry that
 * libpykrt's host device calls for a thread, a coroutine where its threads
 * wait for each other (runtime/host_abi.h).
 *
 * host.c's lowering marks each place a thread waits (a barrier, a warp
 * exchange, nanosleep, the grid barrier) with a call of
 * pykc.host.suspend, and each place it ends early (a raise under
 * debug=True) with pykc.host.exit. host_threads inlines every function
 * that reaches a marker into its kernels (a coroutine suspends only in its
 * own body), makes each marker a suspension point of an LLVM coroutine
 * (switch on llvm.coro.suspend: go on, free the frame, or return to the
 * scheduler) and each return the final suspension, and gives each kernel
 * its entry `void *NAME(void **params)`; LLVM's coroutine passes, part of
 * the standard pipelines, then split the kernel and keep in a malloc'd
 * frame what lives across. A kernel without a marker stays an ordinary
 * function, with a second entry NAME.block that runs a block's threads in
 * one loop. Last, the module's interface: pykrt_host_abi,
 * pykrt_host_enter, pykrt_host_resume, pykrt_host_destroy.
 */
#include "backend.h"

#include <llvm-c/Core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* runtime/host_abi.h: the size of a thread's record, and the version. */
enum { THREAD_RECORD_SIZE = 32 };
#define HOST_ABI_VERSION 1

static LLVMTypeRef ptr_type(LLVMContextRef ctx) { return LLVMPointerTypeInContext(ctx, 0); }

typedef struct Rewrite {
    LLVMModuleRef mod;
    LLVMContextRef ctx;
    LLVMBuilderRef b;
} Rewrite;

static LLVMValueRef intrinsic(Rewrite *r, const char *name, LLVMTypeRef *overloads, int no, LLVMValueRef *args, int n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) ice("unknown intrinsic %s", name);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(r->mod, id, overloads, (size_t)no);
    return LLVMBuildCall2(r->b, LLVMIntrinsicGetType(r->ctx, id, overloads, (size_t)no), f, args, (unsigned)n, "");
}

static LLVMValueRef call_named(Rewrite *r, LLVMTypeRef ret, const char *name, LLVMTypeRef *params, int np,
                               LLVMValueRef *args) {
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)np, false);
    LLVMValueRef f = LLVMGetNamedFunction(r->mod, name);
    if (!f) f = LLVMAddFunction(r->mod, name, fty);
    return LLVMBuildCall2(r->b, fty, f, args, (unsigned)np, "");
}

static bool is_call_to(LLVMValueRef inst, LLVMValueRef fn) {
    return fn && LLVMIsACallInst(inst) && LLVMGetCalledValue(inst) == fn;
}

/* The calls of fn, in module order. */
static int calls_of(LLVMValueRef fn, LLVMValueRef caller, LLVMValueRef **out) {
    int n = 0, cap = 0;
    *out = NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(caller); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!is_call_to(i, fn)) continue;
            if (n == cap && !(*out = realloc(*out, sizeof **out * (size_t)(cap = cap ? 2 * cap : 8))))
                ice("out of memory");
            (*out)[n++] = i;
        }
    return n;
}

static bool calls(LLVMValueRef caller, LLVMValueRef fn) {
    LLVMValueRef *found;
    int n = calls_of(fn, caller, &found);
    free(found);
    return n > 0;
}

static bool is_kernel(LLVMValueRef fn) {
    return LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, HOST_KERNEL_ATTR, (unsigned)strlen(HOST_KERNEL_ATTR)) != NULL;
}

/* Whether fn waits or ends its thread, itself or through a function it
 * calls that is marked as waiting already. */
static bool reaches_marker(LLVMValueRef fn, LLVMModuleRef mod) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsACallInst(i)) continue;
            LLVMValueRef callee = LLVMGetCalledValue(i);
            if (callee == LLVMGetNamedFunction(mod, HOST_SUSPEND_MARKER) || callee == LLVMGetNamedFunction(mod, HOST_EXIT_MARKER))
                return true;
            if (LLVMIsAFunction(callee) && LLVMGetStringAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                                                         "pykc-host-waits", 15))
                return true;
        }
    return false;
}

/* Every device function that waits, or ends its thread, inlined into its
 * callers: a coroutine suspends only in its own body. Marks spread up the
 * call graph until none is added. */
static void mark_waiting_functions(LLVMModuleRef mod) {
    for (bool grew = true; grew;) {
        grew = false;
        for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
            if (LLVMIsDeclaration(f) || is_kernel(f) ||
                LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "pykc-host-waits", 15) ||
                !reaches_marker(f, mod))
                continue;
            host_string_attr(f, "pykc-host-waits", "1");
            LLVMContextRef ctx = LLVMGetModuleContext(mod);
            unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
            unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
            LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, never);
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, always, 0));
            grew = true;
        }
    }
}

/* A function that still waits after inlining calls itself. */
static bool check_inlined(LLVMModuleRef mod, Diag *d) {
    LLVMValueRef markers[] = {LLVMGetNamedFunction(mod, HOST_SUSPEND_MARKER), LLVMGetNamedFunction(mod, HOST_EXIT_MARKER)};
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || is_kernel(f) || !(calls(f, markers[0]) || calls(f, markers[1]))) continue;
        size_t len;
        diag_plain(d, DIAG_ERROR, "the host target cannot compile '%s': a recursive device function that waits for "
                   "other threads (a barrier, a warp operation) or raises under debug=True", LLVMGetValueName2(f, &len));
        return false;
    }
    return true;
}

/* The coroutine's parts that every suspension point branches to. */
typedef struct Coroutine {
    LLVMValueRef id, handle;
    LLVMBasicBlockRef final_suspend, cleanup, suspended;
} Coroutine;

static LLVMValueRef token_none(Rewrite *r) { return LLVMConstNull(LLVMTokenTypeInContext(r->ctx)); }

/* `switch (coro.suspend) {0: go on, 1: clean up, default: suspended}`. */
static void suspension_point(Rewrite *r, Coroutine *c, bool final, LLVMBasicBlockRef resume) {
    LLVMValueRef args[] = {token_none(r), LLVMConstInt(LLVMInt1TypeInContext(r->ctx), final, false)};
    LLVMValueRef s = intrinsic(r, "llvm.coro.suspend", NULL, 0, args, 2);
    LLVMValueRef sw = LLVMBuildSwitch(r->b, s, c->suspended, 2);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(r->ctx);
    LLVMAddCase(sw, LLVMConstInt(i8, 0, false), resume);
    LLVMAddCase(sw, LLVMConstInt(i8, 1, false), c->cleanup);
}

/* The frame (malloc'd), its handle into pykrt.host.handle for the entry,
 * at the start of the kernel. */
static void begin_coroutine(Rewrite *r, LLVMValueRef fn, Coroutine *c) {
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(entry));
    LLVMTypeRef p = ptr_type(r->ctx), i64 = LLVMInt64TypeInContext(r->ctx);
    LLVMValueRef id_args[] = {LLVMConstInt(LLVMInt32TypeInContext(r->ctx), 16, false), LLVMConstNull(p),
                              LLVMConstNull(p), LLVMConstNull(p)};
    c->id = intrinsic(r, "llvm.coro.id", NULL, 0, id_args, 4);
    LLVMValueRef size = intrinsic(r, "llvm.coro.size", &i64, 1, NULL, 0);
    LLVMValueRef mem = call_named(r, p, "malloc", &i64, 1, &size);
    LLVMValueRef begin_args[] = {c->id, mem};
    c->handle = intrinsic(r, "llvm.coro.begin", NULL, 0, begin_args, 2);
    LLVMBuildStore(r->b, c->handle, host_thread_local(r->mod, HOST_HANDLE_VAR));
}

/* Where a thread ends (c->final_suspend, which its returns and exits
 * branch to): the final suspension;
 * the frame freed; the coroutine's end, which returns to the scheduler. */
static void end_blocks(Rewrite *r, LLVMValueRef fn, Coroutine *c) {
    c->cleanup = LLVMAppendBasicBlockInContext(r->ctx, fn, "thread.free");
    c->suspended = LLVMAppendBasicBlockInContext(r->ctx, fn, "thread.suspended");
    LLVMBasicBlockRef never = LLVMAppendBasicBlockInContext(r->ctx, fn, "thread.over");
    LLVMPositionBuilderAtEnd(r->b, c->final_suspend);
    suspension_point(r, c, true, never);
    LLVMPositionBuilderAtEnd(r->b, never);
    LLVMBuildUnreachable(r->b);
    LLVMPositionBuilderAtEnd(r->b, c->cleanup);
    LLVMValueRef free_args[] = {c->id, c->handle};
    LLVMValueRef mem = intrinsic(r, "llvm.coro.free", NULL, 0, free_args, 2);
    LLVMTypeRef p = ptr_type(r->ctx);
    call_named(r, LLVMVoidTypeInContext(r->ctx), "free", &p, 1, &mem);
    LLVMBuildBr(r->b, c->suspended);
    LLVMPositionBuilderAtEnd(r->b, c->suspended);
    LLVMValueRef end_args[] = {c->handle, LLVMConstInt(LLVMInt1TypeInContext(r->ctx), 0, false), token_none(r)};
    intrinsic(r, "llvm.coro.end", NULL, 0, end_args, 3);
    LLVMBuildRetVoid(r->b);
}

/* A phi of `to` that came from `from` comes from `by` instead (the C
 * API sets no incoming block: the phi is rebuilt). */
static void move_incoming(Rewrite *r, LLVMBasicBlockRef to, LLVMBasicBlockRef from, LLVMBasicBlockRef by) {
    for (LLVMValueRef phi = LLVMGetFirstInstruction(to); phi && LLVMIsAPHINode(phi);) {
        LLVMValueRef next = LLVMGetNextInstruction(phi);
        unsigned n = LLVMCountIncoming(phi);
        LLVMPositionBuilderBefore(r->b, phi);
        LLVMValueRef fresh = LLVMBuildPhi(r->b, LLVMTypeOf(phi), "");
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef v = LLVMGetIncomingValue(phi, i);
            LLVMBasicBlockRef bb = LLVMGetIncomingBlock(phi, i);
            if (bb == from) bb = by;
            LLVMAddIncoming(fresh, &v, &bb, 1);
        }
        LLVMReplaceAllUsesWith(phi, fresh);
        LLVMInstructionEraseFromParent(phi);
        phi = next;
    }
}

/* The instructions after `inst` into a new block, which its block's
 * successors now come from. */
static LLVMBasicBlockRef split_after(Rewrite *r, LLVMValueRef inst) {
    LLVMBasicBlockRef from = LLVMGetInstructionParent(inst);
    LLVMBasicBlockRef rest = LLVMInsertBasicBlockInContext(r->ctx, LLVMGetNextBasicBlock(from), "resumed");
    LLVMPositionBuilderAtEnd(r->b, rest);
    for (LLVMValueRef i = LLVMGetNextInstruction(inst); i;) {
        LLVMValueRef next = LLVMGetNextInstruction(i);
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilder(r->b, i);
        i = next;
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(rest);
    for (unsigned i = 0, n = term ? LLVMGetNumSuccessors(term) : 0; i < n; i++)
        move_incoming(r, LLVMGetSuccessor(term, i), from, rest);
    return rest;
}

/* Each suspend marker becomes a suspension point that resumes with what
 * followed it. */
static void lower_suspends(Rewrite *r, LLVMValueRef fn, Coroutine *c) {
    LLVMValueRef *found;
    int n = calls_of(LLVMGetNamedFunction(r->mod, HOST_SUSPEND_MARKER), fn, &found);
    for (int i = 0; i < n; i++) {
        LLVMBasicBlockRef resume = split_after(r, found[i]);
        LLVMPositionBuilderBefore(r->b, found[i]);
        suspension_point(r, c, false, resume);
        LLVMInstructionEraseFromParent(found[i]);
    }
    free(found);
}

/* Each `ret void`, and each exit marker with the unreachable after it,
 * becomes a branch to `to` (or a return, where to is NULL). */
static void lower_ends(Rewrite *r, LLVMValueRef fn, LLVMBasicBlockRef to) {
    LLVMValueRef *exits;
    int n = calls_of(LLVMGetNamedFunction(r->mod, HOST_EXIT_MARKER), fn, &exits);
    for (int i = 0; i < n; i++) {
        LLVMValueRef next = LLVMGetNextInstruction(exits[i]);
        if (next && LLVMIsAUnreachableInst(next)) LLVMInstructionEraseFromParent(next);
        LLVMPositionBuilderBefore(r->b, exits[i]);
        if (to) LLVMBuildBr(r->b, to);
        else LLVMBuildRetVoid(r->b);
        LLVMInstructionEraseFromParent(exits[i]);
    }
    free(exits);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && to; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (!term || !LLVMIsAReturnInst(term) || bb == to) continue;
        LLVMPositionBuilderBefore(r->b, term);
        LLVMBuildBr(r->b, to);
        LLVMInstructionEraseFromParent(term);
    }
}

static void make_coroutine(Rewrite *r, LLVMValueRef fn) {
    Coroutine c;
    begin_coroutine(r, fn, &c);
    c.final_suspend = LLVMAppendBasicBlockInContext(r->ctx, fn, "thread.end");
    lower_ends(r, fn, c.final_suspend);
    end_blocks(r, fn, &c);
    lower_suspends(r, fn, &c);
    unsigned kind = LLVMGetEnumAttributeKindForName("presplitcoroutine", 17);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(r->ctx, kind, 0));
}

/* Where thread h finished: its frame freed and `finished` returned; the
 * builder goes on where it is suspended. */
static void return_if_done(Rewrite *r, LLVMValueRef fn, LLVMValueRef h, LLVMValueRef finished_value) {
    LLVMValueRef done = intrinsic(r, "llvm.coro.done", NULL, 0, &h, 1);
    LLVMBasicBlockRef finished = LLVMAppendBasicBlockInContext(r->ctx, fn, "finished");
    LLVMBasicBlockRef waiting = LLVMAppendBasicBlockInContext(r->ctx, fn, "waiting");
    LLVMBuildCondBr(r->b, done, finished, waiting);
    LLVMPositionBuilderAtEnd(r->b, finished);
    intrinsic(r, "llvm.coro.destroy", NULL, 0, &h, 1);
    LLVMBuildRet(r->b, finished_value);
    LLVMPositionBuilderAtEnd(r->b, waiting);
}

/* The coroutine's handle once it has run to its first suspension: NULL
 * (the frame freed) where the thread finished. */
static LLVMValueRef started_handle(Rewrite *r, LLVMValueRef entry) {
    LLVMValueRef h = LLVMBuildLoad2(r->b, ptr_type(r->ctx), host_thread_local(r->mod, HOST_HANDLE_VAR), "handle");
    return_if_done(r, entry, h, LLVMConstNull(ptr_type(r->ctx)));
    return h;
}

/* The kernel's arguments, each loaded from params[i] (as cuLaunchKernel
 * takes them), into args. */
static void load_arguments(Rewrite *r, LLVMValueRef kernel, LLVMValueRef params, LLVMValueRef *args) {
    LLVMTypeRef p = ptr_type(r->ctx), i64 = LLVMInt64TypeInContext(r->ctx);
    for (unsigned i = 0, n = LLVMCountParams(kernel); i < n; i++) {
        LLVMValueRef at = LLVMConstInt(i64, i, false);
        LLVMValueRef slot = LLVMBuildLoad2(r->b, p, LLVMBuildGEP2(r->b, p, params, &at, 1, ""), "");
        args[i] = LLVMBuildLoad2(r->b, LLVMTypeOf(LLVMGetParam(kernel, i)), slot, "");
    }
}

/* `void NAME.block(void **params, pykrt_host_thread *threads, uint32_t n)`
 * for a kernel that never waits: every thread of a block in one loop, each
 * made the running one in turn, the arguments loaded once. */
static void add_block_entry(Rewrite *r, LLVMValueRef kernel, const char *name) {
    LLVMTypeRef p = ptr_type(r->ctx), i32 = LLVMInt32TypeInContext(r->ctx), i64 = LLVMInt64TypeInContext(r->ctx);
    LLVMTypeRef params[] = {p, p, i32};
    char *block_name = malloc(strlen(name) + 7);
    if (!block_name) ice("out of memory");
    sprintf(block_name, "%s.block", name);
    LLVMValueRef fn = LLVMAddFunction(r->mod, block_name, LLVMFunctionType(LLVMVoidTypeInContext(r->ctx), params, 3, false));
    free(block_name);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(r->ctx, fn, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(r->ctx, fn, "thread");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(r->ctx, fn, "done");
    LLVMPositionBuilderAtEnd(r->b, entry);
    unsigned n = LLVMCountParams(kernel);
    LLVMValueRef *args = calloc(n ? n : 1, sizeof *args);
    if (!args) ice("out of memory");
    load_arguments(r, kernel, LLVMGetParam(fn, 0), args);
    LLVMValueRef count = LLVMBuildZExt(r->b, LLVMGetParam(fn, 2), i64, "");
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntEQ, count, LLVMConstInt(i64, 0, false), ""), done, loop);
    LLVMPositionBuilderAtEnd(r->b, loop);
    LLVMValueRef i = LLVMBuildPhi(r->b, i64, "i");
    LLVMValueRef stride = LLVMConstInt(i64, THREAD_RECORD_SIZE, false);
    LLVMValueRef at = LLVMBuildMul(r->b, i, stride, "");
    LLVMValueRef record = LLVMBuildGEP2(r->b, LLVMInt8TypeInContext(r->ctx), LLVMGetParam(fn, 1), &at, 1, "");
    LLVMBuildStore(r->b, record, host_thread_local(r->mod, HOST_THREAD_VAR));
    LLVMBuildCall2(r->b, LLVMGlobalGetValueType(kernel), kernel, args, n, "");
    LLVMValueRef next = LLVMBuildAdd(r->b, i, LLVMConstInt(i64, 1, false), "");
    LLVMValueRef zero = LLVMConstInt(i64, 0, false);
    LLVMAddIncoming(i, &zero, &entry, 1);
    LLVMAddIncoming(i, &next, &loop, 1);
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntULT, next, count, ""), loop, done);
    LLVMPositionBuilderAtEnd(r->b, done);
    LLVMBuildRetVoid(r->b);
    free(args);
}

/* `void *NAME(void **params)`: the launch's parameters, as
 * cuLaunchKernel takes them, into the kernel's (now NAME.thread). */
static void add_entry(Rewrite *r, LLVMValueRef kernel, bool coroutine) {
    size_t len;
    char *name = strdup(LLVMGetValueName2(kernel, &len));
    char *thread_name = malloc(len + 8);
    if (!name || !thread_name) ice("out of memory");
    snprintf(thread_name, len + 8, "%s.thread", name);
    LLVMSetValueName2(kernel, thread_name, strlen(thread_name));
    LLVMSetLinkage(kernel, LLVMInternalLinkage);
    LLVMTypeRef p = ptr_type(r->ctx);
    LLVMValueRef entry = LLVMAddFunction(r->mod, name, LLVMFunctionType(p, &p, 1, false));
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(r->ctx, entry, "entry"));
    unsigned n = LLVMCountParams(kernel);
    LLVMValueRef *args = calloc(n ? n : 1, sizeof *args);
    if (!args) ice("out of memory");
    load_arguments(r, kernel, LLVMGetParam(entry, 0), args);
    LLVMBuildCall2(r->b, LLVMGlobalGetValueType(kernel), kernel, args, n, "");
    LLVMBuildRet(r->b, coroutine ? started_handle(r, entry) : LLVMConstNull(p));
    if (!coroutine) add_block_entry(r, kernel, name);
    free(args);
    free(thread_name);
    free(name);
}

/* What the host device calls (runtime/host_abi.h): the ABI's version,
 * pykrt_host_enter, pykrt_host_resume and pykrt_host_destroy. */
static void add_interface(Rewrite *r) {
    LLVMTypeRef p = ptr_type(r->ctx), i32 = LLVMInt32TypeInContext(r->ctx), v = LLVMVoidTypeInContext(r->ctx);
    LLVMValueRef abi = LLVMAddGlobal(r->mod, i32, "pykrt_host_abi");
    LLVMSetInitializer(abi, LLVMConstInt(i32, HOST_ABI_VERSION, false));
    LLVMSetGlobalConstant(abi, true);

    LLVMValueRef enter = LLVMAddFunction(r->mod, "pykrt_host_enter", LLVMFunctionType(v, &p, 1, false));
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(r->ctx, enter, "entry"));
    LLVMBuildStore(r->b, LLVMGetParam(enter, 0), host_thread_local(r->mod, HOST_THREAD_VAR));
    LLVMBuildRetVoid(r->b);

    LLVMValueRef resume = LLVMAddFunction(r->mod, "pykrt_host_resume", LLVMFunctionType(i32, &p, 1, false));
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(r->ctx, resume, "entry"));
    LLVMValueRef h = LLVMGetParam(resume, 0);
    intrinsic(r, "llvm.coro.resume", NULL, 0, &h, 1);
    return_if_done(r, resume, h, LLVMConstInt(i32, 1, false));
    LLVMBuildRet(r->b, LLVMConstInt(i32, 0, false));

    LLVMValueRef destroy = LLVMAddFunction(r->mod, "pykrt_host_destroy", LLVMFunctionType(v, &p, 1, false));
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(r->ctx, destroy, "entry"));
    h = LLVMGetParam(destroy, 0);
    intrinsic(r, "llvm.coro.destroy", NULL, 0, &h, 1);
    LLVMBuildRetVoid(r->b);
}

/* Each kernel an entry: a coroutine where it waits, else a function that
 * runs the thread to its end. */
static void add_entries(Rewrite *r) {
    LLVMValueRef suspend_fn = LLVMGetNamedFunction(r->mod, HOST_SUSPEND_MARKER);
    LLVMValueRef *kernels = NULL;
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(r->mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && is_kernel(f)) {
            if (!(kernels = realloc(kernels, sizeof *kernels * (size_t)(n + 1)))) ice("out of memory");
            kernels[n++] = f;
        }
    for (int i = 0; i < n; i++) {
        bool waits = calls(kernels[i], suspend_fn);
        if (waits) make_coroutine(r, kernels[i]);
        else lower_ends(r, kernels[i], NULL);
        add_entry(r, kernels[i], waits);
    }
    free(kernels);
}

bool host_threads(IrModule *m, Diag *d) {
    mark_waiting_functions(m->mod);
    if (!host_run_passes(m, "always-inline", d) || !check_inlined(m->mod, d)) return false;
    Rewrite r = {m->mod, m->ctx, LLVMCreateBuilderInContext(m->ctx)};
    add_entries(&r);
    add_interface(&r);
    LLVMDisposeBuilder(r.b);
    return true;
}
