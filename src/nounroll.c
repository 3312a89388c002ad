/*
 * nounroll.c - loops over global memory that ptxas leaves as the
 * optimiser made them.
 *
 * The optimiser decides each loop's unrolling: full, or at most four
 * copies (nvptx.c's pipeline). ptxas unrolls again any loop whose trip
 * count it can compute. Where the loop reads global memory that helps
 * nothing: a grid-stride sum kept sixteen loads a thread in flight where
 * nvcc's build keeps four, and ran 2% slower on an H100 in the tree and
 * warp reductions; a column sum over a constant 1024 rows ran 4% slower.
 * So such a loop gets llvm.loop.unroll.disable on its back edge, which
 * the NVPTX back end writes as `.pragma "nounroll"`. A loop that only
 * computes is left to ptxas: four float32 FMA chains over 4096 iterations
 * ran 1.6 times as long with the optimiser's four copies alone as when
 * ptxas unrolled them further (nvcc's NVVM gives that loop sixteen
 * copies). Of the 83 modules of tests/gpu and
 * samples, seven then assemble to fewer sm_90 SASS instructions
 * (reduce_atomic's 1656 to 904), none to more.
 */
#include "backend.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

static const char unroll_disable[] = "llvm.loop.unroll.disable";

/* Whether a loop ID's property is {"llvm.loop.unroll.disable"}. */
static bool is_unroll_disable(LLVMValueRef property) {
    if (!property || !LLVMIsAMDNode(property) || LLVMGetMDNodeNumOperands(property) != 1) return false;
    LLVMValueRef name;
    LLVMGetMDNodeOperands(property, &name);
    unsigned len = 0;
    const char *s = name ? LLVMGetMDString(name, &len) : NULL;
    return s && len == sizeof unroll_disable - 1 && memcmp(s, unroll_disable, len) == 0;
}

/* A loop ID of its own (first operand itself) with old's properties, if
 * any, and unroll.disable. */
static LLVMValueRef disabled_id(LLVMContextRef c, LLVMValueRef old) {
    unsigned n = old ? LLVMGetMDNodeNumOperands(old) : 0;
    LLVMValueRef *values = malloc(sizeof *values * (n ? n : 1));
    LLVMMetadataRef *ops = malloc(sizeof *ops * (n + 2));
    if (!values || !ops) ice("out of memory marking loops");
    if (n) LLVMGetMDNodeOperands(old, values);
    LLVMMetadataRef self = LLVMTemporaryMDNode(c, NULL, 0);
    size_t count = 0;
    ops[count++] = self;
    for (unsigned k = 1; k < n; k++) ops[count++] = LLVMValueAsMetadata(values[k]);
    LLVMMetadataRef name = LLVMMDStringInContext2(c, unroll_disable, sizeof unroll_disable - 1);
    ops[count++] = LLVMMDNodeInContext2(c, &name, 1);
    LLVMMetadataRef id = LLVMMDNodeInContext2(c, ops, count);
    LLVMMetadataReplaceAllUsesWith(self, id); /* a self-reference makes id distinct */
    free(values);
    free(ops);
    return LLVMMetadataAsValue(c, id);
}

static bool has_unroll_disable(LLVMValueRef id) {
    unsigned n = LLVMGetMDNodeNumOperands(id);
    LLVMValueRef *values = malloc(sizeof *values * (n ? n : 1));
    if (!values) ice("out of memory marking loops");
    LLVMGetMDNodeOperands(id, values);
    bool found = false;
    for (unsigned k = 1; k < n && !found; k++) found = is_unroll_disable(values[k]);
    free(values);
    return found;
}

static void mark_back_edge(LLVMContextRef c, unsigned loop_kind, LLVMValueRef branch) {
    LLVMValueRef old = LLVMGetMetadata(branch, loop_kind);
    if (old && has_unroll_disable(old)) return;
    LLVMSetMetadata(branch, loop_kind, disabled_id(c, old));
}

/* Where p points to, one step back: a GEP's, a cast's or a phi's first
 * operand, or NULL. */
static LLVMValueRef pointer_source(LLVMValueRef p) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) || LLVMIsABitCastInst(p) || LLVMIsAPHINode(p))
        return LLVMGetOperand(p, 0);
    if (!LLVMIsAConstantExpr(p)) return NULL;
    LLVMOpcode op = LLVMGetConstOpcode(p);
    return op == LLVMGetElementPtr || op == LLVMAddrSpaceCast || op == LLVMBitCast ? LLVMGetOperand(p, 0) : NULL;
}

/* Whether a load reads global memory: its address comes from neither a
 * shared array (address space 3) nor a local one (5, or an alloca). */
static bool reads_global(LLVMValueRef load) {
    LLVMValueRef p = LLVMGetOperand(load, 0);
    for (int step = 0; p && step < 32; step++, p = pointer_source(p)) {
        LLVMTypeRef t = LLVMTypeOf(p);
        if (LLVMGetTypeKind(t) != LLVMPointerTypeKind) return true;
        unsigned space = LLVMGetPointerAddressSpace(t);
        if (space == 3 || space == 5 || LLVMIsAAllocaInst(p)) return false;
    }
    return true;
}

static bool loop_reads_global(const Layout *l, int k) {
    for (int at = l->header[k]; at <= l->latch[k]; at++)
        for (LLVMValueRef i = LLVMGetFirstInstruction(l->blocks[at]); i; i = LLVMGetNextInstruction(i))
            if (LLVMIsALoadInst(i) && reads_global(i)) return true;
    return false;
}

void keep_loops_as_unrolled(LLVMModuleRef m) {
    LLVMContextRef c = LLVMGetModuleContext(m);
    unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        if (!LLVMCountBasicBlocks(fn)) continue;
        Layout l = layout_of(fn);
        for (int k = 0; k < l.loop_count; k++)
            if (loop_reads_global(&l, k)) mark_back_edge(c, loop_kind, LLVMGetBasicBlockTerminator(l.blocks[l.latch[k]]));
        layout_free(&l);
    }
}
