/*
 * contract.c - where a*b+c fuses into one rounding, as Numba fuses it:
 * the contract flags that codegen sets, kept where Numba's toolchain would
 * fuse and taken off elsewhere, for every target.
 *
 * Numba's a*b+c: NVVM fuses a product into fma.rn where every use of it is
 * an addition (p + p included), else leaves mul.f64 and add.f64, which the
 * driver's PTX compiler fuses by the same rule: a product with a use that
 * is not an addition, or five uses or more, stays a product everywhere.
 * LLVM's NVPTX back end fuses, at every -O level, each fmul into the fadd
 * or fsub using it where both carry the contract flag (and writes mul.rn
 * and add.rn, which nothing fuses after it). So the flag goes where Numba's
 * rule would fuse, and nowhere else (contract_limit). A CPU without FMA
 * instructions fuses nothing by itself: there contract_fuse makes each
 * fusion the NVPTX back end would make an llvm.fma, choosing between two
 * products as LLVM's DAG combiner does.
 */
#include "backend.h"

#include <llvm-c/Core.h>

#include <math.h>

static bool is_contractible(LLVMValueRef inst, LLVMOpcode want) {
    return LLVMIsAInstruction(inst) && LLVMGetInstructionOpcode(inst) == want && LLVMCanValueUseFastMathFlags(inst) &&
           (LLVMGetFastMathFlags(inst) & LLVMFastMathAllowContract);
}

static bool fuses_everywhere(LLVMValueRef mul) {
    int n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(mul); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if ((!is_contractible(user, LLVMFAdd) && !is_contractible(user, LLVMFSub)) || ++n >= 5) return false;
    }
    return true;
}

/* p + p of a product p = a * b that fuses: fma(a, b, p), as NVVM writes it,
 * before LLVM's instcombine makes it p * 2.0, which nothing fuses. */
static void fuse_doubled_product(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef add) {
    static const char fma[] = "llvm.fma";
    LLVMValueRef p = LLVMGetOperand(add, 0);
    if (LLVMGetOperand(add, 1) != p || !is_contractible(p, LLVMFMul) || !fuses_everywhere(p)) return;
    LLVMTypeRef t = LLVMTypeOf(p);
    LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, LLVMLookupIntrinsicID(fma, sizeof fma - 1), &t, 1);
    LLVMValueRef args[] = {LLVMGetOperand(p, 0), LLVMGetOperand(p, 1), p};
    LLVMPositionBuilderBefore(b, add);
    LLVMReplaceAllUsesWith(add, LLVMBuildCall2(b, LLVMGlobalGetValueType(decl), decl, args, 3, ""));
    LLVMInstructionEraseFromParent(add);
}

/* The product again, with mul's flags but contract (LLVM's C API can only
 * add flags). */
static void uncontract(LLVMBuilderRef b, LLVMValueRef mul) {
    LLVMPositionBuilderBefore(b, mul);
    LLVMValueRef plain = LLVMBuildFMul(b, LLVMGetOperand(mul, 0), LLVMGetOperand(mul, 1), "");
    LLVMSetFastMathFlags(plain, LLVMGetFastMathFlags(mul) & ~LLVMFastMathAllowContract);
    LLVMReplaceAllUsesWith(mul, plain);
    LLVMInstructionEraseFromParent(mul);
}

/* Calls f on each instruction of m, which f may replace (the walk goes on
 * after it). */
typedef void (*InstFn)(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef inst);

static void each_instruction(LLVMModuleRef m, InstFn f) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef inst = LLVMGetFirstInstruction(bb), next; inst; inst = next) {
                next = LLVMGetNextInstruction(inst);
                f(m, b, inst);
            }
    LLVMDisposeBuilder(b);
}

static void fuse_if_doubled(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef inst) {
    if (is_contractible(inst, LLVMFAdd)) fuse_doubled_product(m, b, inst);
}

static void limit_contraction(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef inst) {
    if (is_contractible(inst, LLVMFMul) && !fuses_everywhere(inst)) uncontract(b, inst);
}

void contract_doubled(LLVMModuleRef m) { each_instruction(m, fuse_if_doubled); }

void contract_limit(LLVMModuleRef m) { each_instruction(m, limit_contraction); }

static int use_count(LLVMValueRef v) {
    int n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) n++;
    return n;
}

static LLVMValueRef fma_call(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z) {
    static const char fma[] = "llvm.fma";
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, LLVMLookupIntrinsicID(fma, sizeof fma - 1), &t, 1);
    LLVMValueRef args[] = {x, y, z};
    return LLVMBuildCall2(b, LLVMGlobalGetValueType(decl), decl, args, 3, "");
}

/* x * 2.0 and x * -2.0: the DAG combiner makes them x + x (negated)
 * before it fuses anything, so they fuse with nothing. */
static bool is_doubling(LLVMValueRef mul) {
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef c = LLVMGetOperand(mul, i);
        LLVMBool lossy;
        if (LLVMIsAConstantFP(c) && fabs(LLVMConstRealGetDouble(c, &lossy)) == 2.0) return true;
    }
    return false;
}

static bool fusable_product(LLVMValueRef v) { return is_contractible(v, LLVMFMul) && !is_doubling(v); }

/* fadd (fmul x, y), z -> fma(x, y, z); of two products the one with fewer
 * uses; fsub (fmul x, y), z -> fma(x, y, -z), fsub z, (fmul x, y) ->
 * fma(-x, y, z). */
static void fuse_contracted(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef inst) {
    bool add = is_contractible(inst, LLVMFAdd);
    if (!add && !is_contractible(inst, LLVMFSub)) return;
    LLVMValueRef n0 = LLVMGetOperand(inst, 0), n1 = LLVMGetOperand(inst, 1);
    bool p0 = fusable_product(n0), p1 = fusable_product(n1);
    if (!p0 && !p1) return;
    bool first = p0 && !(p1 && use_count(n1) < use_count(n0));
    LLVMPositionBuilderBefore(b, inst);
    LLVMValueRef r;
    if (first) {
        LLVMValueRef z = add ? n1 : LLVMBuildFNeg(b, n1, "");
        r = fma_call(m, b, LLVMGetOperand(n0, 0), LLVMGetOperand(n0, 1), z);
    } else {
        LLVMValueRef x = add ? LLVMGetOperand(n1, 0) : LLVMBuildFNeg(b, LLVMGetOperand(n1, 0), "");
        r = fma_call(m, b, x, LLVMGetOperand(n1, 1), n0);
    }
    LLVMReplaceAllUsesWith(inst, r);
    LLVMInstructionEraseFromParent(inst);
}

void contract_fuse(LLVMModuleRef m) { each_instruction(m, fuse_contracted); }
