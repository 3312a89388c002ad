/*
 * balance.c - chains of and, or and xor regrouped for a shorter path.
 *
 * LLVM's reassociation orders the operands of a chain by rank, not by when
 * they are ready, and can leave the latest one at the bottom of the tree.
 * The step of numba.cuda.random's xoroshiro128+ computes
 * rotl(s0, 55) ^ t ^ (t << 14) with t = s0 ^ s1; the optimiser made it
 * (rotl(s0, 55) ^ (t << 14)) ^ t, whose first xor waits for the shift,
 * and monte_carlo_pi ran 2.2% slower on an H100 than with numba-cuda's
 * (t ^ rotl(s0, 55)) ^ (t << 14), the same instructions otherwise. After
 * the optimiser, each (a op b) op c whose inner operation has no other use
 * is regrouped so that the two operands ready first pair up, where that
 * shortens the longest path through the block (counted in instructions;
 * a value from another block is ready at its start). Constants stay where
 * they are: an address's constant offset must stay outermost to fold.
 */
#include "backend.h"

#include <llvm-c/Core.h>

#include <stdlib.h>

typedef struct Block {
    LLVMValueRef *insts;
    Placed *by_inst; /* to find an instruction's position */
    int *depth;      /* longest path to each instruction within the block */
    int count;
} Block;

static int position_in(const Block *blk, LLVMValueRef v) { return place_of(blk->by_inst, blk->count, v); }

static int depth_of(const Block *blk, LLVMValueRef v) {
    int at = LLVMIsAInstruction(v) ? position_in(blk, v) : -1;
    return at >= 0 ? blk->depth[at] : 0;
}

static int path_through(const Block *blk, LLVMValueRef inst) {
    if (LLVMIsAPHINode(inst)) return 0;
    int deepest = 0;
    for (int k = 0; k < LLVMGetNumOperands(inst); k++) {
        int d = depth_of(blk, LLVMGetOperand(inst, (unsigned)k));
        if (d > deepest) deepest = d;
    }
    return deepest + 1;
}

static bool is_bitwise(LLVMValueRef v) {
    if (!LLVMIsABinaryOperator(v)) return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    LLVMTypeRef t = LLVMTypeOf(v);
    return (op == LLVMAnd || op == LLVMOr || op == LLVMXor) && LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
           LLVMGetIntTypeWidth(t) > 1;
}

/* The operand of outer that is an operation like it, used only there and
 * made in its block, or NULL. */
static LLVMValueRef inner_of(const Block *blk, LLVMValueRef outer, unsigned k) {
    LLVMValueRef v = LLVMGetOperand(outer, k);
    if (!is_bitwise(v) || LLVMGetInstructionOpcode(v) != LLVMGetInstructionOpcode(outer)) return NULL;
    LLVMUseRef use = LLVMGetFirstUse(v);
    if (!use || LLVMGetNextUse(use) || position_in(blk, v) < 0) return NULL;
    return v;
}

static int max2(int a, int b) { return a > b ? a : b; }

/* outer = (x[0] op x[1]) op x[2] regrouped as (ready pair) op latest, inner
 * moved to just before outer. */
static void regroup(LLVMBuilderRef b, Block *blk, int at, LLVMValueRef inner, LLVMValueRef x[3]) {
    int d[3] = {depth_of(blk, x[0]), depth_of(blk, x[1]), depth_of(blk, x[2])};
    int latest = d[0] >= d[1] && d[0] >= d[2] ? 0 : d[1] >= d[2] ? 1 : 2;
    LLVMValueRef first = x[(latest + 1) % 3], second = x[(latest + 2) % 3];
    int paired = 1 + max2(d[(latest + 1) % 3], d[(latest + 2) % 3]);
    if (1 + max2(paired, d[latest]) >= blk->depth[at]) return;
    LLVMValueRef outer = blk->insts[at];
    LLVMInstructionRemoveFromParent(inner);
    LLVMPositionBuilderBefore(b, outer);
    LLVMInsertIntoBuilder(b, inner);
    LLVMSetOperand(inner, 0, first);
    LLVMSetOperand(inner, 1, second);
    LLVMSetOperand(outer, 0, inner);
    LLVMSetOperand(outer, 1, x[latest]);
    if (LLVMGetInstructionOpcode(outer) == LLVMOr) {
        LLVMSetIsDisjoint(inner, false);
        LLVMSetIsDisjoint(outer, false);
    }
    blk->depth[position_in(blk, inner)] = paired;
    blk->depth[at] = 1 + max2(paired, d[latest]);
}

static void balance_at(LLVMBuilderRef b, Block *blk, int at) {
    LLVMValueRef outer = blk->insts[at];
    if (!is_bitwise(outer)) return;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef inner = inner_of(blk, outer, k);
        if (!inner) continue;
        LLVMValueRef x[3] = {LLVMGetOperand(inner, 0), LLVMGetOperand(inner, 1), LLVMGetOperand(outer, 1 - k)};
        if (LLVMIsAConstant(x[0]) || LLVMIsAConstant(x[1]) || LLVMIsAConstant(x[2])) return;
        regroup(b, blk, at, inner, x);
        return;
    }
}

static void balance_block(LLVMBuilderRef b, LLVMBasicBlockRef bb) {
    Block blk = {0};
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) blk.count++;
    blk.insts = malloc(sizeof *blk.insts * (size_t)blk.count);
    blk.by_inst = malloc(sizeof *blk.by_inst * (size_t)blk.count);
    blk.depth = calloc((size_t)blk.count, sizeof *blk.depth);
    if (!blk.insts || !blk.by_inst || !blk.depth) ice("out of memory balancing a block");
    int n = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i), n++) {
        blk.insts[n] = i;
        blk.by_inst[n] = (Placed){i, n};
    }
    places_sort(blk.by_inst, blk.count);
    for (int at = 0; at < blk.count; at++) {
        blk.depth[at] = path_through(&blk, blk.insts[at]);
        balance_at(b, &blk, at);
    }
    free(blk.insts);
    free(blk.by_inst);
    free(blk.depth);
}

void balance_bitwise_chains(LLVMModuleRef m) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            balance_block(b, bb);
    LLVMDisposeBuilder(b);
}
