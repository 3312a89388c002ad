/*
 * codegen.c - the typed tree to LLVM IR, through LLVM's C API.
 *
 * Takes a Unit that sema typed (every expression has its type, every
 * operand its cast) and builds one LLVM module for a target: kernels are
 * entries whose arguments arrive as abi.c describes them; device functions
 * are internal. It decides nothing about typing, only how each typed
 * operation runs with Python's semantics as Numba compiles them.
 *
 * Values: bool is i1 (i8 in memory), ints iN, floats half/float/double,
 * complex {f, f}, tuples structs, arrays {ptr, [n x i64] shape, [n x i64]
 * strides} with a generic data pointer: kernel parameters, shared arrays
 * and constants are cast from the target's address spaces, and the
 * optimiser (NVPTX's InferAddressSpaces) turns the accesses back.
 *
 * What depends on the machine (special registers, barriers, warp
 * operations, the math library, print, where globals live) is asked of
 * the target through g->cfg->target (backend.h); the rest is portable IR.
 */
#include "backend.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The target of the module being built. */
#define TARGET(g) ((g)->cfg->target)

/* Room for n items in the unit's arena: for counts that the input decides
 * (a tuple's elements, an array's dimensions, a call's arguments). */
#define CG_ARRAY(g, T, n) ARENA_ARRAY((g)->arena, T, (n) > 0 ? (n) : 1)

static void cg_error(CodeGen *g, Span at, const char *fmt, const char *what) {
    if (!g->failed || g->diag->error_count == 0) diag_error(g->diag, at, fmt, what);
    g->failed = true;
}

void cg_refuse(CodeGen *g, const char *what) { cg_error(g, g->at ? g->at->span : g->fn->def->span, "%s", what); }

/* ---- types ---------------------------------------------------------------------- */

static LLVMTypeRef i1(CodeGen *g) { return LLVMInt1TypeInContext(g->ctx); }
static LLVMTypeRef i8(CodeGen *g) { return LLVMInt8TypeInContext(g->ctx); }
static LLVMTypeRef i32(CodeGen *g) { return LLVMInt32TypeInContext(g->ctx); }
static LLVMTypeRef i64(CodeGen *g) { return LLVMInt64TypeInContext(g->ctx); }
static LLVMTypeRef ptr_in(CodeGen *g, unsigned as) { return LLVMPointerTypeInContext(g->ctx, as); }
LLVMTypeRef cg_generic_pointer(CodeGen *g) { return ptr_in(g, 0); }

static LLVMTypeRef llvm_type(CodeGen *g, const Type *t);

static LLVMTypeRef float_type(CodeGen *g, int bits) {
    return bits == 16 ? LLVMHalfTypeInContext(g->ctx) : bits == 32 ? LLVMFloatTypeInContext(g->ctx)
                                                                    : LLVMDoubleTypeInContext(g->ctx);
}

static LLVMTypeRef array_struct(CodeGen *g, int ndim) {
    LLVMTypeRef dims = LLVMArrayType2(i64(g), (uint64_t)ndim);
    LLVMTypeRef fields[] = {cg_generic_pointer(g), dims, dims};
    return LLVMStructTypeInContext(g->ctx, fields, 3, false);
}

static LLVMTypeRef range_struct(CodeGen *g, const Type *t);
static LLVMTypeRef iter_struct(CodeGen *g, const Type *t);

static LLVMTypeRef llvm_type(CodeGen *g, const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return i1(g);
    case TY_INT: return LLVMIntTypeInContext(g->ctx, (unsigned)t->bits);
    case TY_FLOAT: return float_type(g, t->bits);
    case TY_BFLOAT16: return LLVMBFloatTypeInContext(g->ctx);
    case TY_COMPLEX: {
        LLVMTypeRef f = float_type(g, t->bits / 2);
        LLVMTypeRef parts[] = {f, f};
        return LLVMStructTypeInContext(g->ctx, parts, 2, false);
    }
    case TY_ARRAY: return array_struct(g, t->ndim);
    case TY_TUPLE: {
        LLVMTypeRef *fields = CG_ARRAY(g, LLVMTypeRef, t->elem_count);
        for (int i = 0; i < t->elem_count; i++) fields[i] = llvm_type(g, t->elems[i]);
        return LLVMStructTypeInContext(g->ctx, fields, (unsigned)t->elem_count, false);
    }
    case TY_VECTOR: { /* numba-cuda's StructModel: one field a member */
        LLVMTypeRef fields[4];
        for (int i = 0; i < t->elem_count; i++) fields[i] = llvm_type(g, t->dtype);
        return LLVMStructTypeInContext(g->ctx, fields, (unsigned)t->elem_count, false);
    }
    case TY_OPTIONAL: { /* numba's OptionalModel: the value and whether there is one */
        LLVMTypeRef fields[] = {llvm_type(g, t->dtype), i1(g)};
        return LLVMStructTypeInContext(g->ctx, fields, 2, false);
    }
    case TY_CLOSURE: { /* the values it captures; None as a byte no one reads */
        LLVMTypeRef *fields = CG_ARRAY(g, LLVMTypeRef, t->elem_count);
        for (int i = 0; i < t->elem_count; i++) fields[i] = t->elems[i]->kind == TY_NONE ? i8(g) : llvm_type(g, t->elems[i]);
        return LLVMStructTypeInContext(g->ctx, fields, (unsigned)t->elem_count, false);
    }
    case TY_GRID_GROUP: return i64(g); /* the grid workspace's address */
    case TY_RANGE: return range_struct(g, t);
    case TY_ITER: return iter_struct(g, t);
    case TY_RECORD: return cg_generic_pointer(g); /* numba's RecordModel: its data's address */
    case TY_ENUM: return llvm_type(g, t->dtype); /* numba-cuda's EnumModel: the value */
    case TY_NONE: return LLVMVoidTypeInContext(g->ctx);
    default: return i8(g);
    }
}

LLVMTypeRef cg_type(CodeGen *g, const Type *t) { return llvm_type(g, t); }

/* How a value sits in memory: bool as a byte, a record as its bytes. */
static LLVMTypeRef memory_type(CodeGen *g, const Type *t) {
    if (t->kind == TY_RECORD) return LLVMArrayType2(LLVMInt8TypeInContext(g->ctx), (uint64_t)t->record->size);
    return t->kind == TY_BOOL ? LLVMInt8TypeInContext(g->ctx) : llvm_type(g, t);
}

static LLVMValueRef const_int(CodeGen *g, LLVMTypeRef t, long long v) { return LLVMConstInt(t, (unsigned long long)v, true); }
static LLVMValueRef i64c(CodeGen *g, long long v) { return const_int(g, i64(g), v); }

/* Field i of agg, read through the insertvalues that built it, as
 * instsimplify would: arrays, tuples and complex numbers are mostly built
 * and taken apart in one function, and those extractvalues were a third of
 * the anchors' IR before optimisation. */
static LLVMValueRef extract(CodeGen *g, LLVMValueRef agg, unsigned i, const char *name) {
    while (LLVMIsAInsertValueInst(agg) && LLVMGetNumIndices(agg) == 1) {
        if (LLVMGetIndices(agg)[0] == i) return LLVMGetOperand(agg, 1);
        agg = LLVMGetOperand(agg, 0);
    }
    return LLVMBuildExtractValue(g->b, agg, i, name);
}

/* ---- conversions ------------------------------------------------------------------- */

static LLVMValueRef to_bool(CodeGen *g, LLVMValueRef v, const Type *t);
static LLVMValueRef convert(CodeGen *g, LLVMValueRef v, const Type *from, const Type *to);
static void gen_raise(CodeGen *g, const Node *site);
static void check_indices(CodeGen *g, const Node *site, const Type *t, LLVMValueRef arr, LLVMValueRef *idx,
                          const Type **idx_ty);
static void check_divisor(CodeGen *g, const Node *site, LLVMValueRef b);
static void store_target(CodeGen *g, Node *target, LLVMValueRef v, const Type *vt);

static LLVMValueRef make_optional(CodeGen *g, const Type *opt, LLVMValueRef value, LLVMValueRef valid) {
    LLVMValueRef o = LLVMBuildInsertValue(g->b, LLVMGetUndef(llvm_type(g, opt)), value, 0, "");
    return LLVMBuildInsertValue(g->b, o, valid, 1, "");
}

/* optional.py's casts: None is an Optional without a value (a null one),
 * a value one with it, Optional to Optional keeps None; Optional(T) to
 * anything else is its value, and where there is none the function
 * returns, as numba-cuda's TypeError does without debug=True. */
static LLVMValueRef convert_optional(CodeGen *g, LLVMValueRef v, const Type *from, const Type *to) {
    if (to->kind == TY_OPTIONAL) {
        if (from->kind == TY_NONE) return LLVMConstNull(llvm_type(g, to));
        if (from->kind != TY_OPTIONAL) return make_optional(g, to, convert(g, v, from, to->dtype), LLVMConstInt(i1(g), 1, false));
        LLVMValueRef data = convert(g, extract(g, v, 0, ""), from->dtype, to->dtype);
        return make_optional(g, to, data, extract(g, v, 1, ""));
    }
    LLVMBasicBlockRef none = cg_new_block(g, "optional.none"), some = cg_new_block(g, "optional.some");
    LLVMBuildCondBr(g->b, extract(g, v, 1, ""), some, none);
    LLVMPositionBuilderAtEnd(g->b, none);
    gen_raise(g, NULL);
    LLVMPositionBuilderAtEnd(g->b, some);
    return convert(g, extract(g, v, 0, ""), from->dtype, to);
}

/* ---- bfloat16, computed as CUDA's cuda_bf16.hpp computes it for numba-cuda ---- */

static LLVMTypeRef f32_type(CodeGen *g) { return LLVMFloatTypeInContext(g->ctx); }
static LLVMTypeRef bf16_type(CodeGen *g) { return LLVMBFloatTypeInContext(g->ctx); }

/* A bfloat16 value where the target has no bfloat16 instructions: said
 * once, at the first one. */
static void need_bfloat16(CodeGen *g, const Node *at) {
    const char *why = TARGET(g)->no_bfloat16 ? TARGET(g)->no_bfloat16(g->cfg) : NULL;
    if (why) cg_error(g, at->span, "%s", why);
}

/* float to bfloat16, to nearest even: cvt.rn.bf16.f32. */
static LLVMValueRef bf16_from_float(CodeGen *g, LLVMValueRef f) { return LLVMBuildFPTrunc(g->b, f, bf16_type(g), ""); }

/* __double2bfloat16: the double rounded to float toward zero with the
 * lowest bit set when inexact (round to odd), then to nearest even, which
 * rounds the double itself correctly. */
static LLVMValueRef bf16_from_double(CodeGen *g, LLVMValueRef d) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef i32t = LLVMInt32TypeInContext(g->ctx), f64t = LLVMDoubleTypeInContext(g->ctx);
    LLVMValueRef f = LLVMBuildFPTrunc(B, d, f32_type(g), ""), back = LLVMBuildFPExt(B, f, f64t, "");
    LLVMValueRef u = LLVMBuildBitCast(B, f, i32t, ""), zero = LLVMConstReal(f64t, 0.0), one = LLVMConstInt(i32t, 1, false);
    LLVMValueRef not_nan = LLVMBuildICmp(B, LLVMIntULE, LLVMBuildShl(B, u, one, ""), LLVMConstInt(i32t, 0xFF000000u, false), "");
    LLVMValueRef up = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGT, d, zero, ""), LLVMBuildFCmp(B, LLVMRealOGT, back, d, ""), "");
    LLVMValueRef down = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOLT, d, zero, ""), LLVMBuildFCmp(B, LLVMRealOLT, back, d, ""), "");
    u = LLVMBuildSub(B, u, LLVMBuildZExt(B, LLVMBuildOr(B, up, down, ""), i32t, ""), "");
    LLVMValueRef inexact = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealUNE, back, d, ""), not_nan, "");
    u = LLVMBuildOr(B, u, LLVMBuildZExt(B, inexact, i32t, ""), "");
    return bf16_from_float(g, LLVMBuildBitCast(B, u, f32_type(g), ""));
}

/* An integer to bfloat16, rounded to nearest as CUDA's __int2bfloat16_rn
 * and its kin do: exactly through float up to 16 bits, through double up
 * to 32; a 64-bit one first kept to 53 bits, rounded to odd (the bits
 * shifted out or-ed into the lowest), which double then holds exactly. */
static LLVMValueRef bf16_from_int(CodeGen *g, LLVMValueRef v, const Type *from) {
    LLVMBuilderRef B = g->b;
    bool sgn = from->kind == TY_INT && from->is_signed;
    if (from->bits <= 16 || from->kind == TY_BOOL)
        return bf16_from_float(g, sgn ? LLVMBuildSIToFP(B, v, f32_type(g), "") : LLVMBuildUIToFP(B, v, f32_type(g), ""));
    LLVMTypeRef f64t = LLVMDoubleTypeInContext(g->ctx), i64t = LLVMInt64TypeInContext(g->ctx);
    if (from->bits <= 32)
        return bf16_from_double(g, sgn ? LLVMBuildSIToFP(B, v, f64t, "") : LLVMBuildUIToFP(B, v, f64t, ""));
    LLVMValueRef zero = LLVMConstInt(i64t, 0, false);
    LLVMValueRef neg = sgn ? LLVMBuildICmp(B, LLVMIntSLT, v, zero, "") : LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 0, false);
    LLVMValueRef mag = LLVMBuildSelect(B, neg, LLVMBuildSub(B, zero, v, ""), v, "");
    LLVMValueRef lz_args[] = {mag, LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 0, false)};
    LLVMValueRef lz = cg_intrinsic(g, "llvm.ctlz", &i64t, 1, lz_args, 2);
    LLVMValueRef over = LLVMBuildSub(B, LLVMConstInt(i64t, 64 - 53, false), lz, "");
    LLVMValueRef shift = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, over, zero, ""), over, zero, "");
    LLVMValueRef lost = LLVMBuildAnd(B, mag, LLVMBuildSub(B, LLVMBuildShl(B, LLVMConstInt(i64t, 1, false), shift, ""),
                                                          LLVMConstInt(i64t, 1, false), ""), "");
    LLVMValueRef kept = LLVMBuildOr(B, LLVMBuildLShr(B, mag, shift, ""),
                                    LLVMBuildZExt(B, LLVMBuildICmp(B, LLVMIntNE, lost, zero, ""), i64t, ""), "");
    LLVMValueRef scale = LLVMBuildUIToFP(B, LLVMBuildShl(B, LLVMConstInt(i64t, 1, false), shift, ""), f64t, "");
    LLVMValueRef d = LLVMBuildFMul(B, LLVMBuildUIToFP(B, kept, f64t, ""), scale, "");
    return bf16_from_double(g, LLVMBuildSelect(B, neg, LLVMBuildFNeg(B, d, ""), d, ""));
}

/* bfloat16 to an integer: truncated, saturated, NaN to 0, as CUDA's
 * __bfloat162int_rz and its kin (cvt.rzi). */
static LLVMValueRef bf16_to_int(CodeGen *g, LLVMValueRef v, const Type *to) {
    LLVMValueRef f = LLVMBuildFPExt(g->b, v, f32_type(g), "");
    LLVMTypeRef types[] = {LLVMIntTypeInContext(g->ctx, (unsigned)to->bits), f32_type(g)};
    return cg_intrinsic(g, to->is_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &f, 1);
}

static LLVMValueRef convert_bf16(CodeGen *g, LLVMValueRef v, const Type *from, const Type *to) {
    if (to->kind == TY_BFLOAT16) {
        if (from->kind == TY_FLOAT && from->bits == 64) return bf16_from_double(g, v);
        if (from->kind == TY_FLOAT) return bf16_from_float(g, from->bits == 32 ? v : LLVMBuildFPExt(g->b, v, f32_type(g), ""));
        return bf16_from_int(g, v, from);
    }
    if (to->kind == TY_INT) return bf16_to_int(g, v, to);
    return convert(g, LLVMBuildFPExt(g->b, v, f32_type(g), ""), &ty_float32, to);
}

/* Converts v of type from to type to, as Numba's context.cast does. */
static LLVMValueRef convert(CodeGen *g, LLVMValueRef v, const Type *from, const Type *to) {
    if (type_equal(from, to) || to->kind == TY_ERROR) return v;
    if (from->kind == TY_OPTIONAL || to->kind == TY_OPTIONAL) return convert_optional(g, v, from, to);
    if (to->kind == TY_BOOL && from->kind == TY_BFLOAT16)
        return LLVMBuildFCmp(g->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    if (from->kind == TY_BFLOAT16 || to->kind == TY_BFLOAT16) return convert_bf16(g, v, from, to);
    if (from->kind == TY_ENUM) return convert(g, v, from->dtype, to); /* an IntEnum member's value */
    LLVMBuilderRef b = g->b;
    LLVMTypeRef dst = llvm_type(g, to);
    if (to->kind == TY_BOOL) return to_bool(g, v, from);
    if (from->kind == TY_BOOL) {
        if (to->kind == TY_INT) return LLVMBuildZExt(b, v, dst, "");
        if (to->kind == TY_FLOAT) return LLVMBuildUIToFP(b, v, dst, "");
    }
    if (from->kind == TY_INT && to->kind == TY_INT) {
        if (to->bits > from->bits) return from->is_signed ? LLVMBuildSExt(b, v, dst, "") : LLVMBuildZExt(b, v, dst, "");
        if (to->bits < from->bits) return LLVMBuildTrunc(b, v, dst, "");
        return v;
    }
    if (from->kind == TY_INT && to->kind == TY_FLOAT)
        return from->is_signed ? LLVMBuildSIToFP(b, v, dst, "") : LLVMBuildUIToFP(b, v, dst, "");
    if (from->kind == TY_FLOAT && to->kind == TY_INT) {
        /* numba-cuda casts float16 with cvt.rni: to the nearest, ties to even */
        if (from->bits == 16) {
            LLVMTypeRef half = LLVMTypeOf(v);
            v = cg_intrinsic(g, "llvm.roundeven", &half, 1, &v, 1);
        }
        return to->is_signed ? LLVMBuildFPToSI(b, v, dst, "") : LLVMBuildFPToUI(b, v, dst, "");
    }
    if (from->kind == TY_FLOAT && to->kind == TY_FLOAT)
        return to->bits > from->bits ? LLVMBuildFPExt(b, v, dst, "") : LLVMBuildFPTrunc(b, v, dst, "");
    if (to->kind == TY_COMPLEX) {
        Type *part = type_float(to->bits / 2);
        LLVMValueRef re, im;
        if (from->kind == TY_COMPLEX) {
            Type *fp = type_float(from->bits / 2);
            re = convert(g, extract(g, v, 0, ""), fp, part);
            im = convert(g, extract(g, v, 1, ""), fp, part);
        } else {
            re = convert(g, v, from, part);
            im = LLVMConstReal(float_type(g, part->bits), 0.0);
        }
        LLVMValueRef c = LLVMGetUndef(dst);
        c = LLVMBuildInsertValue(b, c, re, 0, "");
        return LLVMBuildInsertValue(b, c, im, 1, "");
    }
    if (from->kind == TY_COMPLEX)
        return convert(g, extract(g, v, 0, ""), type_float(from->bits / 2), to);
    if ((from->kind == TY_TUPLE && to->kind == TY_TUPLE) || (from->kind == TY_CLOSURE && to->kind == TY_CLOSURE)) {
        LLVMValueRef out = LLVMGetUndef(dst);
        for (int i = 0; i < to->elem_count; i++) {
            LLVMValueRef e = convert(g, extract(g, v, (unsigned)i, ""), from->elems[i], to->elems[i]);
            out = LLVMBuildInsertValue(b, out, e, (unsigned)i, "");
        }
        return out;
    }
    if (from->kind == TY_ARRAY && to->kind == TY_ARRAY) return v;
    ice("convert: %s to %s", type_name(g->arena, from), type_name(g->arena, to));
}

/* Python truthiness. */
static LLVMValueRef to_bool(CodeGen *g, LLVMValueRef v, const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return v;
    case TY_INT: return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    case TY_FLOAT: case TY_BFLOAT16: return LLVMBuildFCmp(g->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    case TY_COMPLEX: {
        LLVMValueRef re = extract(g, v, 0, ""), im = extract(g, v, 1, "");
        Type *p = type_float(t->bits / 2);
        return LLVMBuildOr(g->b, to_bool(g, re, p), to_bool(g, im, p), "");
    }
    case TY_TUPLE: return LLVMConstInt(i1(g), t->elem_count != 0, false);
    default: return LLVMConstInt(i1(g), 0, false);
    }
}

/* ---- helpers ----------------------------------------------------------------------- */

LLVMValueRef cg_call(CodeGen *g, LLVMTypeRef ret, const char *name, LLVMValueRef *args, int n) {
    LLVMValueRef f = LLVMGetNamedFunction(g->mod, name);
    LLVMTypeRef params[8];
    for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, false);
    if (!f) f = LLVMAddFunction(g->mod, name, fty);
    return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

LLVMValueRef cg_intrinsic(CodeGen *g, const char *name, LLVMTypeRef *overloads, int no, LLVMValueRef *args, int n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) ice("unknown intrinsic %s", name);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->mod, id, overloads, (size_t)no);
    LLVMTypeRef fty = LLVMIntrinsicGetType(g->ctx, id, overloads, (size_t)no);
    return LLVMBuildCall2(g->b, fty, f, args, (unsigned)n, "");
}

static void set_fp_flags(CodeGen *g, LLVMValueRef inst) {
    if (!LLVMCanValueUseFastMathFlags(inst)) return;
    LLVMSetFastMathFlags(inst, g->fastmath ? LLVMFastMathAll : LLVMFastMathAllowContract);
}

LLVMBasicBlockRef cg_new_block(CodeGen *g, const char *name) {
    return LLVMAppendBasicBlockInContext(g->ctx, g->llfn, name);
}

/* An alloca in the entry block, so that mem2reg promotes it. */
LLVMValueRef cg_entry_alloca(CodeGen *g, LLVMTypeRef t, const char *name) {
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->llfn);
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first) LLVMPositionBuilderBefore(eb, first);
    else LLVMPositionBuilderAtEnd(eb, entry);
    LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
    LLVMDisposeBuilder(eb);
    return a;
}

/* ---- what the target lowers -------------------------------------------------------- */

static LLVMValueRef math_call(CodeGen *g, const char *name, const Type *t, LLVMValueRef *args, int n) {
    return TARGET(g)->math(g, name, t, args, n);
}

static void barrier(CodeGen *g, BarrierOp op, LLVMValueRef arg) { TARGET(g)->barrier(g, op, arg); }

/* A global of the module in the target's memory `space`. */
static LLVMValueRef add_global(CodeGen *g, MemorySpace space, LLVMTypeRef type, const char *name) {
    LLVMValueRef gv = LLVMAddGlobalInAddressSpace(g->mod, type, name, TARGET(g)->address_space[space]);
    if (space == MEM_SHARED && TARGET(g)->shared_is_thread_local) LLVMSetThreadLocal(gv, true);
    return gv;
}

static LLVMValueRef generic(CodeGen *g, LLVMValueRef p) { return LLVMBuildAddrSpaceCast(g->b, p, cg_generic_pointer(g), ""); }

/* ---- arrays ----------------------------------------------------------------------- */

static LLVMValueRef make_array(CodeGen *g, const Type *t, LLVMValueRef data, LLVMValueRef *shape, LLVMValueRef *strides) {
    LLVMValueRef a = LLVMGetUndef(array_struct(g, t->ndim));
    a = LLVMBuildInsertValue(g->b, a, data, 0, "");
    LLVMValueRef sh = LLVMGetUndef(LLVMArrayType2(i64(g), (uint64_t)t->ndim)), st = sh;
    for (int i = 0; i < t->ndim; i++) {
        sh = LLVMBuildInsertValue(g->b, sh, shape[i], (unsigned)i, "");
        st = LLVMBuildInsertValue(g->b, st, strides[i], (unsigned)i, "");
    }
    a = LLVMBuildInsertValue(g->b, a, sh, 1, "");
    return LLVMBuildInsertValue(g->b, a, st, 2, "");
}

static LLVMValueRef array_dim(CodeGen *g, LLVMValueRef arr, int field, int i) {
    LLVMValueRef dims = extract(g, arr, (unsigned)field, "");
    return extract(g, dims, (unsigned)i, field == 1 ? "shape" : "stride");
}

/* A signed index into a dimension of `extent`, wrapped around as Numba
 * wraps a negative one; a constant one needs no test. */
static LLVMValueRef wrap_index(CodeGen *g, LLVMValueRef i, LLVMValueRef extent) {
    if (LLVMIsAConstantInt(i)) return LLVMConstIntGetSExtValue(i) < 0 ? LLVMBuildAdd(g->b, i, extent, "") : i;
    LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, i, i64c(g, 0), "");
    return LLVMBuildSelect(g->b, neg, LLVMBuildAdd(g->b, i, extent, ""), i, "");
}

/* Whether dimension d of arr steps one item at a time: by its layout, or
 * by a stride the compiler knows to be the item size, so that the address
 * is an item index, as for a contiguous array, and a loop's address
 * arithmetic is the same. */
static bool contiguous_dim(CodeGen *g, const Type *t, LLVMValueRef arr, int d) {
    if ((t->layout == 'C' && d == t->ndim - 1) || (t->layout == 'F' && d == 0)) return true;
    if (d != t->ndim - 1) return false;
    LLVMValueRef stride = array_dim(g, arr, 2, d);
    return LLVMIsAConstantInt(stride) && LLVMConstIntGetSExtValue(stride) == type_size(t->dtype);
}

/* The address of arr[idx...]: negative indices wrap around as in Numba; a
 * contiguous innermost dimension needs no stride multiply. */
static LLVMValueRef element_ptr(CodeGen *g, const Type *t, LLVMValueRef arr, LLVMValueRef *idx, const Type **idx_ty) {
    LLVMValueRef p = extract(g, arr, 0, "data");
    LLVMValueRef offset = NULL, last = NULL;
    for (int d = 0; d < t->ndim; d++) {
        LLVMValueRef i = convert(g, idx[d], idx_ty[d], idx_ty[d]->kind == TY_INT && !idx_ty[d]->is_signed ? &ty_uint64 : &ty_int64);
        if (idx_ty[d]->kind != TY_INT || idx_ty[d]->is_signed) i = wrap_index(g, i, array_dim(g, arr, 1, d));
        if (contiguous_dim(g, t, arr, d)) {
            last = i;
            continue;
        }
        LLVMValueRef term = LLVMBuildNSWMul(g->b, i, array_dim(g, arr, 2, d), "");
        offset = offset ? LLVMBuildNSWAdd(g->b, offset, term, "") : term;
    }
    if (offset) p = LLVMBuildGEP2(g->b, i8(g), p, &offset, 1, "");
    if (last) p = LLVMBuildGEP2(g->b, memory_type(g, t->dtype), p, &last, 1, "");
    return p;
}

/* Reads the value at p, align bytes aligned (0: its natural alignment):
 * a record is its address, as Numba passes records. */
static LLVMValueRef load_place(CodeGen *g, const Type *t, LLVMValueRef p, unsigned align) {
    if (t->kind == TY_RECORD) return p;
    LLVMValueRef v = LLVMBuildLoad2(g->b, memory_type(g, t), p, "");
    if (align) LLVMSetAlignment(v, align);
    return t->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(i8(g), 0, false), "") : v;
}

/* Writes v at p: a record by copying its bytes from its address. */
static void store_place(CodeGen *g, const Type *t, LLVMValueRef v, LLVMValueRef p, unsigned align) {
    if (t->kind == TY_RECORD) {
        LLVMBuildMemCpy(g->b, p, align ? align : 1, v, 1, i64c(g, t->record->size));
        return;
    }
    if (t->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, i8(g), "");
    LLVMValueRef st = LLVMBuildStore(g->b, v, p);
    if (align) LLVMSetAlignment(st, align);
}

/* The alignment an array's elements are known to have: 1 for the bytes
 * of packed records, as Numba loads them; else their natural one (0). */
static unsigned element_align(const Type *arr) { return arr->unaligned ? 1 : 0; }

/* A static shared or local array: storage of the whole size, C strides. */
static LLVMValueRef alloc_array(CodeGen *g, Node *call, bool shared) {
    const Type *t = call->ty;
    long count = 1;
    for (int i = 0; i < t->ndim; i++) count *= call->dims[i];
    LLVMTypeRef elem = memory_type(g, t->dtype);
    LLVMTypeRef storage = LLVMArrayType2(elem, (uint64_t)count);
    LLVMValueRef data;
    if (shared && !count && TARGET(g)->dynamic_shared) {
        data = TARGET(g)->dynamic_shared(g);
    } else if (shared) {
        /* Every dynamic array of a module is the one extern symbol: they all
         * alias the launch's dynamic shared memory, as in Numba. */
        LLVMValueRef gv = count ? NULL : LLVMGetNamedGlobal(g->mod, "pykc_dynamic_shared");
        if (!gv) {
            gv = add_global(g, MEM_SHARED, count ? storage : LLVMArrayType2(i8(g), 0),
                            count ? "shared" : "pykc_dynamic_shared");
            LLVMSetLinkage(gv, count ? LLVMInternalLinkage : LLVMExternalLinkage);
            if (count) LLVMSetInitializer(gv, LLVMGetUndef(storage));
            LLVMSetAlignment(gv, 16);
        }
        data = generic(g, gv);
    } else {
        LLVMValueRef a = cg_entry_alloca(g, storage, "local");
        LLVMSetAlignment(a, 16);
        data = a;
    }
    LLVMValueRef *shv = CG_ARRAY(g, LLVMValueRef, t->ndim), *stv = CG_ARRAY(g, LLVMValueRef, t->ndim);
    long stride = type_size(t->dtype);
    for (int i = t->ndim - 1; i >= 0; i--) {
        shv[i] = i64c(g, call->dims[i]);
        stv[i] = i64c(g, stride);
        stride *= call->dims[i];
    }
    return make_array(g, t, data, shv, stv);
}

/* ---- arithmetic ------------------------------------------------------------------- */

static LLVMValueRef gen_expr(CodeGen *g, Node *n);

static LLVMValueRef fp_op(CodeGen *g, LLVMValueRef v) {
    set_fp_flags(g, v);
    return v;
}

/* Python's floor division and modulo of integers: the quotient rounds to
 * minus infinity and the remainder takes the divisor's sign. Division by
 * zero gives 0, as no exception can be raised in a kernel. */
static LLVMValueRef int_divmod(CodeGen *g, LLVMValueRef a, LLVMValueRef b, const Type *t, bool want_mod) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMConstNull(ty);
    LLVMValueRef is_zero = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
    LLVMValueRef safe_b = LLVMBuildSelect(B, is_zero, LLVMConstInt(ty, 1, false), b, "");
    if (!t->is_signed) {
        LLVMValueRef r = want_mod ? LLVMBuildURem(B, a, safe_b, "") : LLVMBuildUDiv(B, a, safe_b, "");
        return LLVMBuildSelect(B, is_zero, zero, r, "");
    }
    /* INT_MIN // -1 overflows: divide by 1 and negate instead, as wrapping
     * arithmetic gives (the remainder is 0) */
    LLVMValueRef minus_one = LLVMBuildICmp(B, LLVMIntEQ, safe_b, LLVMConstAllOnes(ty), "");
    safe_b = LLVMBuildSelect(B, minus_one, LLVMConstInt(ty, 1, false), safe_b, "");
    LLVMValueRef q = LLVMBuildSDiv(B, a, safe_b, ""), r = LLVMBuildSRem(B, a, safe_b, "");
    /* numba-cuda's int_divmod_signed gives 0 for INT_MIN // -1 */
    LLVMValueRef int_min = LLVMConstInt(ty, 1ULL << (LLVMGetIntTypeWidth(ty) - 1), false);
    LLVMValueRef overflow = LLVMBuildAnd(B, minus_one, LLVMBuildICmp(B, LLVMIntEQ, a, int_min, ""), "");
    q = LLVMBuildSelect(B, minus_one, LLVMBuildNeg(B, a, ""), q, "");
    q = LLVMBuildSelect(B, overflow, LLVMConstNull(ty), q, "");
    LLVMValueRef adjust = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""),
                                       LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildXor(B, r, safe_b, ""), zero, ""), "");
    LLVMValueRef out = want_mod ? LLVMBuildSelect(B, adjust, LLVMBuildAdd(B, r, safe_b, ""), r, "")
                                : LLVMBuildSelect(B, adjust, LLVMBuildSub(B, q, LLVMConstInt(ty, 1, false), ""), q, "");
    return LLVMBuildSelect(B, is_zero, zero, out, "");
}

/* Whether a float32 division takes one of Numba's fastmath forms. */
static bool fast_f32(const CodeGen *g, LLVMValueRef a) { return g->fastmath && LLVMTypeOf(a) == LLVMFloatTypeInContext(g->ctx); }

/* A float division as Numba compiles it: under fastmath (prec_div=0) a
 * float32 one is good to 2 ulp. */
static LLVMValueRef float_div(CodeGen *g, LLVMBuilderRef B, LLVMValueRef a, LLVMValueRef b, const char *name) {
    if (!fast_f32(g, a)) return LLVMBuildFDiv(B, a, b, name);
    return TARGET(g)->fast_fdiv(g, FDIV_FULL, a, b);
}

/* Python's float floor division and modulo, as Numba's real_divmod: from
 * fmod, then corrected to the divisor's sign. */
static LLVMValueRef float_divmod(CodeGen *g, LLVMValueRef a, LLVMValueRef b, const Type *t, bool want_mod) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMConstNull(ty), one = LLVMConstReal(ty, 1.0);
    /* the remainder as numba-cuda's NVVM computes frem, x - trunc(x / y) * y,
     * which is NaN for an infinite divisor where fmod would give x */
    LLVMTypeRef tover[] = {ty};
    LLVMValueRef quot;
    if (fast_f32(g, a)) { /* NVVM keeps frem's division exact */
        quot = TARGET(g)->fast_fdiv(g, FDIV_EXACT_FTZ, a, b);
    } else {
        quot = LLVMBuildFDiv(B, a, b, "");
    }
    LLVMValueRef whole = cg_intrinsic(g, "llvm.trunc", tover, 1, &quot, 1);
    LLVMValueRef mod = fp_op(g, LLVMBuildFSub(B, a, fp_op(g, LLVMBuildFMul(B, whole, b, "")), ""));
    LLVMValueRef div = fp_op(g, float_div(g, B, fp_op(g, LLVMBuildFSub(B, a, mod, "")), b, ""));
    LLVMValueRef mod_nz = LLVMBuildFCmp(B, LLVMRealUNE, mod, zero, "");
    LLVMValueRef signs_differ = LLVMBuildXor(B, LLVMBuildFCmp(B, LLVMRealOLT, b, zero, ""),
                                             LLVMBuildFCmp(B, LLVMRealOLT, mod, zero, ""), "");
    LLVMValueRef fix = LLVMBuildAnd(B, mod_nz, signs_differ, "");
    if (want_mod) {
        LLVMValueRef fixed = LLVMBuildSelect(B, fix, fp_op(g, LLVMBuildFAdd(B, mod, b, "")), mod, "");
        LLVMValueRef args[] = {zero, b};
        LLVMTypeRef over[] = {ty};
        LLVMValueRef signed_zero = cg_intrinsic(g, "llvm.copysign", over, 1, args, 2);
        return LLVMBuildSelect(B, mod_nz, fixed, signed_zero, "");
    }
    div = LLVMBuildSelect(B, fix, fp_op(g, LLVMBuildFSub(B, div, one, "")), div, "");
    LLVMTypeRef over[] = {ty};
    LLVMValueRef fl = cg_intrinsic(g, "llvm.floor", over, 1, &div, 1);
    LLVMValueRef frac = fp_op(g, LLVMBuildFSub(B, div, fl, ""));
    LLVMValueRef round_up = LLVMBuildFCmp(B, LLVMRealOGT, frac, LLVMConstReal(ty, 0.5), "");
    LLVMValueRef result = LLVMBuildSelect(B, round_up, fp_op(g, LLVMBuildFAdd(B, fl, one, "")), fl, "");
    LLVMValueRef plain = fp_op(g, float_div(g, B, a, b, ""));
    /* a zero quotient carries the sign of a / b, as Python's does */
    LLVMValueRef zero_args[] = {zero, plain};
    LLVMValueRef signed_zero = cg_intrinsic(g, "llvm.copysign", over, 1, zero_args, 2);
    result = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOEQ, div, zero, ""), signed_zero, result, "");
    LLVMValueRef b_zero = LLVMBuildFCmp(B, LLVMRealOEQ, b, zero, "");
    return LLVMBuildSelect(B, b_zero, plain, result, "");
}

/* ---- x ** n for an int n, as Numba's int_power_impl and static_power_impl ---- */

static LLVMValueRef pow_mul(CodeGen *g, bool fp, LLVMValueRef a, LLVMValueRef b) {
    return fp ? fp_op(g, LLVMBuildFMul(g->b, a, b, "")) : LLVMBuildMul(g->b, a, b, "");
}

/* 1.0 / r as Numba writes it for a float r: a float64 division, rounded to
 * r's type after (once more, harmlessly, for float32). */
static LLVMValueRef pow_invert(CodeGen *g, LLVMValueRef r, const Type *t) {
    LLVMValueRef one = LLVMConstReal(LLVMDoubleTypeInContext(g->ctx), 1.0);
    LLVMValueRef q = fp_op(g, LLVMBuildFDiv(g->b, one, convert(g, r, t, &ty_float64), ""));
    return convert(g, q, &ty_float64, t);
}

/* The int result of a negative power whose base is `test`: 0 ** -n is the
 * minimum int (NumPy's error value), 1 and -1 keep `r`, the rest give 0. */
static LLVMValueRef pow_int_negative(CodeGen *g, LLVMValueRef test, LLVMValueRef r) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef ty = LLVMTypeOf(r);
    LLVMValueRef zero = LLVMConstNull(ty), min = LLVMConstInt(ty, 1ULL << (LLVMGetIntTypeWidth(ty) - 1), false);
    LLVMValueRef one = LLVMBuildICmp(B, LLVMIntEQ, test, LLVMConstInt(ty, 1, false), "");
    LLVMValueRef unit = LLVMBuildOr(B, one, LLVMBuildICmp(B, LLVMIntEQ, test, LLVMConstAllOnes(ty), ""), "");
    LLVMValueRef other = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, test, zero, ""), min, zero, "");
    return LLVMBuildSelect(B, unit, r, other, "");
}

/* x ** k for a literal k, |k| <= 0x10000 (static_power_impl): the
 * squarings unrolled, the result inverted for a negative k (an int's by
 * its value, not the base's). Numba's first multiplication, by 1, LLVM
 * folds away. */
static LLVMValueRef pow_unrolled(CodeGen *g, LLVMValueRef a, long long k, const Type *t) {
    bool fp = t->kind == TY_FLOAT;
    LLVMValueRef r = NULL, val = a;
    for (unsigned long long e = k < 0 ? -(unsigned long long)k : (unsigned long long)k; e; e >>= 1) {
        if (e & 1) r = r ? pow_mul(g, fp, r, val) : val;
        if (e > 1) val = pow_mul(g, fp, val, val);
    }
    if (!r) return fp ? LLVMConstReal(LLVMTypeOf(a), 1.0) : LLVMConstInt(LLVMTypeOf(a), 1, false);
    if (k > 0) return r;
    return fp ? pow_invert(g, r, t) : pow_int_negative(g, r, r);
}

/* The loop of int_power: r *= x for each set bit of n, x squared each
 * step, from the block the builder is at; ends at a new block. */
static LLVMValueRef pow_loop(CodeGen *g, LLVMValueRef fn, LLVMValueRef a, LLVMValueRef n, bool fp) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef ty = LLVMTypeOf(a), ety = LLVMTypeOf(n);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->ctx, fn, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, fn, "loop.done");
    LLVMValueRef zero = LLVMConstNull(ety), one = fp ? LLVMConstReal(ty, 1.0) : LLVMConstInt(ty, 1, false);
    LLVMBuildBr(B, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef acc = LLVMBuildPhi(B, ty, "acc"), x = LLVMBuildPhi(B, ty, "x"), e = LLVMBuildPhi(B, ety, "n");
    LLVMValueRef odd = LLVMBuildTrunc(B, e, LLVMInt1TypeInContext(g->ctx), "");
    LLVMValueRef acc2 = LLVMBuildSelect(B, odd, pow_mul(g, fp, acc, x), acc, "");
    LLVMValueRef x2 = pow_mul(g, fp, x, x);
    LLVMValueRef e2 = LLVMBuildLShr(B, e, LLVMConstInt(ety, 1, false), "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, e2, zero, ""), loop, done);
    LLVMValueRef acc_in[] = {one, acc2}, x_in[] = {a, x2}, e_in[] = {n, e2};
    LLVMBasicBlockRef in[] = {from, loop};
    LLVMAddIncoming(acc, acc_in, in, 2);
    LLVMAddIncoming(x, x_in, in, 2);
    LLVMAddIncoming(e, e_in, in, 2);
    LLVMPositionBuilderAtEnd(B, done);
    /* the loop ran once; x ** 0 is 1 */
    return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, n, zero, ""), one, acc2, "");
}

/* The body of int_power for base type t and exponent type tb: n = |e|
 * (the caller has raised for the e whose negation overflows); past
 * 0x10000 the float64 pow of both; else the loop, inverted for e < 0 (a
 * float by 1.0 / r, an int as pow_int_negative says, whatever the path). */
static void pow_body(CodeGen *g, LLVMValueRef fn, const Type *t, const Type *tb) {
    LLVMBuilderRef B = g->b;
    bool fp = t->kind == TY_FLOAT;
    LLVMValueRef a = LLVMGetParam(fn, 0), e = LLVMGetParam(fn, 1);
    LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(g->ctx, fn, "entry"));
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(e));
    LLVMValueRef neg = LLVMConstInt(i1(g), 0, false), n = e;
    if (tb->is_signed) {
        neg = LLVMBuildICmp(B, LLVMIntSLT, e, zero, "");
        n = LLVMBuildSelect(B, neg, LLVMBuildNeg(B, e, ""), e, "");
    }
    LLVMBasicBlockRef far = LLVMAppendBasicBlockInContext(g->ctx, fn, "far"), near = LLVMAppendBasicBlockInContext(g->ctx, fn, "near");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, fn, "done");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntUGT, n, LLVMConstInt(LLVMTypeOf(e), 0x10000, false), ""), far, near);
    LLVMPositionBuilderAtEnd(B, far);
    LLVMValueRef fa = convert(g, a, t, &ty_float64), fe = convert(g, e, tb, &ty_float64);
    LLVMValueRef args[] = {fa, fe};
    LLVMValueRef far_r = convert(g, math_call(g, "pow", &ty_float64, args, 2), &ty_float64, t);
    LLVMBasicBlockRef far_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, near);
    LLVMValueRef near_r = pow_loop(g, fn, a, n, fp);
    if (fp) near_r = LLVMBuildSelect(B, neg, pow_invert(g, near_r, t), near_r, "");
    LLVMBasicBlockRef near_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef r = LLVMBuildPhi(B, LLVMTypeOf(a), "");
    LLVMValueRef rs[] = {far_r, near_r};
    LLVMBasicBlockRef from[] = {far_end, near_end};
    LLVMAddIncoming(r, rs, from, 2);
    if (!fp) r = LLVMBuildSelect(B, neg, pow_int_negative(g, a, r), r, "");
    LLVMBuildRet(B, r);
}

/* x ** e through int_power's helper, built once a module for each base
 * and exponent type and floating-point model. */
static LLVMValueRef pow_call(CodeGen *g, LLVMValueRef a, LLVMValueRef e, const Type *t, const Type *tb) {
    char name[64];
    snprintf(name, sizeof name, "pykc.pow.%c%d.%c%d%s%s", t->kind == TY_FLOAT ? 'f' : t->is_signed ? 'i' : 'u', t->bits,
             tb->is_signed ? 'i' : 'u', tb->bits, g->ftz ? ".ftz" : "", g->fastmath ? ".fast" : "");
    LLVMTypeRef params[] = {LLVMTypeOf(a), LLVMTypeOf(e)};
    LLVMTypeRef fty = LLVMFunctionType(LLVMTypeOf(a), params, 2, false);
    LLVMValueRef f = LLVMGetNamedFunction(g->mod, name);
    if (!f) {
        f = LLVMAddFunction(g->mod, name, fty);
        LLVMSetLinkage(f, LLVMInternalLinkage);
        if (g->ftz) TARGET(g)->mark_fast_model(f);
        /* built with g's builder, which the conversions and calls use */
        LLVMBuilderRef outer = g->b;
        g->b = LLVMCreateBuilderInContext(g->ctx);
        pow_body(g, f, t, tb);
        LLVMDisposeBuilder(g->b);
        g->b = outer;
    }
    LLVMValueRef args[] = {a, e};
    return LLVMBuildCall2(g->b, fty, f, args, 2, "");
}

/* A literal exponent's value, where it is one Numba unrolls. */
static bool pow_literal(LLVMValueRef e, const Type *tb, long long *k) {
    if (!LLVMIsAConstantInt(e)) return false;
    *k = LLVMConstIntGetSExtValue(e);
    if (!tb->is_signed && *k < 0) return false;
    return *k >= -0x10000 && *k <= 0x10000;
}

/* x ** e, e an int of type tb; x's type t. Numba negates a negative e in
 * tb's width and raises OverflowError where that stays negative (the
 * minimum of tb); an int base is taken in the case's result type. */
static LLVMValueRef power_int_exponent(CodeGen *g, LLVMValueRef a, LLVMValueRef e, const Type *t, const Type *tb) {
    if (t->kind == TY_INT) t = type_int(t->bits > tb->bits ? t->bits : tb->bits, t->is_signed || tb->is_signed);
    long long k;
    if (pow_literal(e, tb, &k)) return pow_unrolled(g, a, k, t);
    if (tb->is_signed) {
        LLVMValueRef min = LLVMConstInt(LLVMTypeOf(e), 1ULL << (tb->bits - 1), false);
        LLVMBasicBlockRef overflow = cg_new_block(g, "pow.overflow"), ok = cg_new_block(g, "pow.ok");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, e, min, ""), overflow, ok);
        LLVMPositionBuilderAtEnd(g->b, overflow);
        gen_raise(g, NULL);
        LLVMPositionBuilderAtEnd(g->b, ok);
    }
    return pow_call(g, a, e, t, tb);
}

static LLVMValueRef complex_make(CodeGen *g, LLVMTypeRef ty, LLVMValueRef re, LLVMValueRef im);

/* a ** b for complex numbers, as numba-cuda's cpow_internal computes it:
 * b == 0 gives 1; a.real == 0 and b.real == 0 give 0; otherwise the polar
 * form |a|**b.real / exp(arg(a) * b.imag) at angle
 * arg(a) * b.real + b.imag * log|a|. */
static LLVMValueRef complex_pow(CodeGen *g, LLVMValueRef a, LLVMValueRef b, const Type *t) {
    LLVMBuilderRef B = g->b;
    const Type *part = type_float(t->bits / 2);
    LLVMTypeRef ft = float_type(g, part->bits);
    LLVMValueRef ar = extract(g, a, 0, ""), ai = extract(g, a, 1, "");
    LLVMValueRef br = extract(g, b, 0, ""), bi = extract(g, b, 1, "");
    LLVMValueRef zero = LLVMConstNull(ft);
    LLVMValueRef hyp_args[] = {ar, ai}, atan_args[] = {ai, ar};
    LLVMValueRef vabs = math_call(g, "hypot", part, hyp_args, 2);
    LLVMValueRef pow_args[] = {vabs, br};
    LLVMValueRef len = math_call(g, "pow", part, pow_args, 2);
    LLVMValueRef at = math_call(g, "atan2", part, atan_args, 2);
    LLVMValueRef phase = LLVMBuildFMul(B, at, br, "");
    LLVMValueRef scaled = LLVMBuildFMul(B, at, bi, "");
    LLVMValueRef damp = math_call(g, "exp", part, &scaled, 1);
    LLVMValueRef turn = LLVMBuildFMul(B, bi, math_call(g, "log", part, &vabs, 1), "");
    LLVMValueRef has_imag = LLVMBuildFCmp(B, LLVMRealUNE, bi, zero, "");
    len = LLVMBuildSelect(B, has_imag, float_div(g, B, len, damp, ""), len, "");
    phase = LLVMBuildSelect(B, has_imag, LLVMBuildFAdd(B, phase, turn, ""), phase, "");
    LLVMValueRef re = LLVMBuildFMul(B, len, math_call(g, "cos", part, &phase, 1), "");
    LLVMValueRef im = LLVMBuildFMul(B, len, math_call(g, "sin", part, &phase, 1), "");
    LLVMValueRef b_zero = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, br, zero, ""),
                                       LLVMBuildFCmp(B, LLVMRealOEQ, bi, zero, ""), "");
    LLVMValueRef a_b_zero = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, ar, zero, ""),
                                         LLVMBuildFCmp(B, LLVMRealOEQ, br, zero, ""), "");
    re = LLVMBuildSelect(B, a_b_zero, zero, re, "");
    im = LLVMBuildSelect(B, a_b_zero, zero, im, "");
    re = LLVMBuildSelect(B, b_zero, LLVMConstReal(ft, 1.0), re, "");
    im = LLVMBuildSelect(B, b_zero, zero, im, "");
    return complex_make(g, LLVMTypeOf(a), re, im);
}

/* x ** y once both are converted to the chosen case's types. */
static LLVMValueRef power(CodeGen *g, LLVMValueRef a, LLVMValueRef b, const Type *ta, const Type *tb) {
    if (ta->kind == TY_COMPLEX) return complex_pow(g, a, b, ta);
    if (tb->kind == TY_INT) return power_int_exponent(g, a, b, ta, tb);
    LLVMValueRef args[] = {a, b};
    return math_call(g, "pow", ta, args, 2);
}

static LLVMValueRef shift(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *t) {
    /* A shift by the width or more gives 0 (or -1 for negative >>): never LLVM's poison. */
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef width = LLVMConstInt(ty, (unsigned long long)t->bits, false);
    LLVMValueRef too_far = LLVMBuildICmp(g->b, LLVMIntUGE, b, width, "");
    LLVMValueRef amount = LLVMBuildSelect(g->b, too_far, LLVMConstInt(ty, (unsigned long long)t->bits - 1, false), b, "");
    if (op == OP_LSHIFT) {
        LLVMValueRef r = LLVMBuildShl(g->b, a, amount, "");
        return LLVMBuildSelect(g->b, too_far, LLVMConstNull(ty), r, "");
    }
    if (t->is_signed) return LLVMBuildAShr(g->b, a, amount, "");
    LLVMValueRef r = LLVMBuildLShr(g->b, a, amount, "");
    return LLVMBuildSelect(g->b, too_far, LLVMConstNull(ty), r, "");
}

static LLVMValueRef complex_parts(CodeGen *g, LLVMValueRef v, int i) { return extract(g, v, (unsigned)i, ""); }

static LLVMValueRef complex_make(CodeGen *g, LLVMTypeRef ty, LLVMValueRef re, LLVMValueRef im) {
    LLVMValueRef c = LLVMGetUndef(ty);
    c = LLVMBuildInsertValue(g->b, c, re, 0, "");
    return LLVMBuildInsertValue(g->b, c, im, 1, "");
}

static LLVMValueRef complex_arith(CodeGen *g, Node *at, Op op, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef ar = complex_parts(g, a, 0), ai = complex_parts(g, a, 1), br = complex_parts(g, b, 0), bi = complex_parts(g, b, 1);
    LLVMBuilderRef B = g->b;
    switch (op) {
    case OP_ADD: return complex_make(g, LLVMTypeOf(a), fp_op(g, LLVMBuildFAdd(B, ar, br, "")), fp_op(g, LLVMBuildFAdd(B, ai, bi, "")));
    case OP_SUB: return complex_make(g, LLVMTypeOf(a), fp_op(g, LLVMBuildFSub(B, ar, br, "")), fp_op(g, LLVMBuildFSub(B, ai, bi, "")));
    case OP_MUL: {
        LLVMValueRef re = fp_op(g, LLVMBuildFSub(B, fp_op(g, LLVMBuildFMul(B, ar, br, "")), fp_op(g, LLVMBuildFMul(B, ai, bi, "")), ""));
        LLVMValueRef im = fp_op(g, LLVMBuildFAdd(B, fp_op(g, LLVMBuildFMul(B, ar, bi, "")), fp_op(g, LLVMBuildFMul(B, ai, br, "")), ""));
        return complex_make(g, LLVMTypeOf(a), re, im);
    }
    case OP_DIV: {
        /* CPython's c_quot, as Numba divides: scale by the larger part of
         * the divisor so that neither the squares overflow nor precision
         * goes; a zero divisor raises ZeroDivisionError (the function
         * returns). */
        LLVMTypeRef ft = LLVMTypeOf(ar);
        LLVMValueRef zero = LLVMConstNull(ft);
        LLVMValueRef re_zero = LLVMBuildFCmp(B, LLVMRealOEQ, br, zero, "");
        LLVMValueRef both_zero = LLVMBuildAnd(B, re_zero, LLVMBuildFCmp(B, LLVMRealOEQ, bi, zero, ""), "");
        LLVMBasicBlockRef by_zero = cg_new_block(g, "cdiv.zero"), ok = cg_new_block(g, "cdiv.ok");
        LLVMBuildCondBr(B, both_zero, by_zero, ok);
        LLVMPositionBuilderAtEnd(B, by_zero);
        gen_raise(g, NULL);
        LLVMPositionBuilderAtEnd(B, ok);
        LLVMTypeRef over[] = {ft};
        LLVMValueRef abs_r = cg_intrinsic(g, "llvm.fabs", over, 1, &br, 1), abs_i = cg_intrinsic(g, "llvm.fabs", over, 1, &bi, 1);
        LLVMValueRef real_big = LLVMBuildFCmp(B, LLVMRealOGE, abs_r, abs_i, "");
        LLVMValueRef ratio1 = float_div(g, B, bi, br, ""), denom1 = LLVMBuildFAdd(B, br, LLVMBuildFMul(B, bi, ratio1, ""), "");
        LLVMValueRef re1 = float_div(g, B, LLVMBuildFAdd(B, ar, LLVMBuildFMul(B, ai, ratio1, ""), ""), denom1, "");
        LLVMValueRef im1 = float_div(g, B, LLVMBuildFSub(B, ai, LLVMBuildFMul(B, ar, ratio1, ""), ""), denom1, "");
        LLVMValueRef ratio2 = float_div(g, B, br, bi, ""), denom2 = LLVMBuildFAdd(B, LLVMBuildFMul(B, br, ratio2, ""), bi, "");
        LLVMValueRef re2 = float_div(g, B, LLVMBuildFAdd(B, LLVMBuildFMul(B, ar, ratio2, ""), ai, ""), denom2, "");
        LLVMValueRef im2 = float_div(g, B, LLVMBuildFSub(B, LLVMBuildFMul(B, ai, ratio2, ""), ar, ""), denom2, "");
        LLVMValueRef re = LLVMBuildSelect(B, real_big, re1, re2, ""), im = LLVMBuildSelect(B, real_big, im1, im2, "");
        return complex_make(g, LLVMTypeOf(a), re, im);
    }
    default:
        cg_error(g, at->span, "%s of complex numbers is not supported yet", op_spelling(op));
        return LLVMGetUndef(LLVMTypeOf(a));
    }
}

/* One binary operation on operands already converted to t (and tb). */
/* __internal_device_hdiv: in float, the divisor scaled down when huge so
 * that the approximate division keeps its denormals, then rounded. */
static LLVMValueRef bf16_div(CodeGen *g, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef f = f32_type(g);
    LLVMValueRef fa = LLVMBuildFPExt(B, a, f, ""), fb = LLVMBuildFPExt(B, b, f, ""), quarter = LLVMConstReal(f, 0.25);
    LLVMValueRef big = LLVMBuildFCmp(B, LLVMRealOGE, cg_intrinsic(g, "llvm.fabs", &f, 1, &fb, 1),
                                     LLVMConstReal(f, 0x1p126), "");
    fb = LLVMBuildSelect(B, big, LLVMBuildFMul(B, fb, quarter, ""), fb, "");
    LLVMValueRef q = TARGET(g)->fast_fdiv(g, FDIV_APPROX, fa, fb);
    LLVMValueRef fma_args[] = {q, quarter, LLVMConstReal(f, -0.0)};
    q = LLVMBuildSelect(B, big, cg_intrinsic(g, "llvm.fma", &f, 1, fma_args, 3), q, "");
    return bf16_from_float(g, q);
}

/* bfloat16 arithmetic: each operation rounded once, as CUDA's fma.rn.bf16
 * forms and add.bf16 round it (float holds every exact sum and product of
 * two bfloat16s' 8-bit significands before the one rounding), and never
 * contracted, as numba-cuda's calls of cuda_bf16's functions are not. */
static LLVMValueRef bf16_arith(CodeGen *g, Node *at, Op op, LLVMValueRef a, LLVMValueRef b) {
    switch (op) {
    case OP_ADD: return LLVMBuildFAdd(g->b, a, b, "");
    case OP_SUB: return LLVMBuildFSub(g->b, a, b, "");
    case OP_MUL: return LLVMBuildFMul(g->b, a, b, "");
    case OP_DIV: return bf16_div(g, a, b);
    default:
        cg_error(g, at->span, "operator '%s' on bfloat16 is not supported by code generation", op_spelling(op));
        return LLVMGetUndef(LLVMTypeOf(a));
    }
}

/* a op b, a and b converted to their case's argument types t and tb;
 * result is its return type. */
static LLVMValueRef arith(CodeGen *g, Node *at, Op op, LLVMValueRef a, LLVMValueRef b, const Type *t, const Type *tb,
                          const Type *result) {
    LLVMBuilderRef B = g->b;
    if (t->kind == TY_BFLOAT16) return bf16_arith(g, at, op, a, b);
    if (t->kind == TY_INT && result->kind == TY_INT) {
        /* Numba computes an integer case in its return type, both operands
         * cast there: (uint64, int64) -> int64 divides signed. The exponent
         * of ** keeps its own type, which says whether it can be negative. */
        a = convert(g, a, t, result);
        if (op != OP_POW) {
            b = convert(g, b, tb, result);
            tb = result;
        }
        t = result;
    }
    if (op == OP_POW) return power(g, a, b, t, tb);
    if (t->kind == TY_COMPLEX) return complex_arith(g, at, op, a, b);
    bool fp = t->kind == TY_FLOAT;
    if (op == OP_DIV && !fp) {
        a = convert(g, a, t, result);
        b = convert(g, b, tb, result);
        fp = true;
    }
    switch (op) {
    case OP_ADD: return fp ? fp_op(g, LLVMBuildFAdd(B, a, b, "")) : LLVMBuildAdd(B, a, b, "");
    case OP_SUB: return fp ? fp_op(g, LLVMBuildFSub(B, a, b, "")) : LLVMBuildSub(B, a, b, "");
    case OP_MUL: return fp ? fp_op(g, LLVMBuildFMul(B, a, b, "")) : LLVMBuildMul(B, a, b, "");
    case OP_DIV:
        /* numba-cuda's own lowering of float32 / float32 under fastmath */
        if (g->fastmath && at->kind == ND_BINOP && t->kind == TY_FLOAT && t->bits == 32 && tb->kind == TY_FLOAT && tb->bits == 32)
            return TARGET(g)->fast_fdiv(g, FDIV_FAST, a, b);
        return fp_op(g, float_div(g, B, a, b, ""));
    case OP_FLOORDIV: case OP_MOD:
        if (fp) return float_divmod(g, a, b, t, op == OP_MOD);
        check_divisor(g, at, b);
        return int_divmod(g, a, b, t, op == OP_MOD);
    case OP_LSHIFT: case OP_RSHIFT: return shift(g, op, a, convert(g, b, tb, t), t);
    case OP_BITAND: return LLVMBuildAnd(B, a, b, "");
    case OP_BITOR: return LLVMBuildOr(B, a, b, "");
    case OP_BITXOR: return LLVMBuildXor(B, a, b, "");
    default:
        cg_error(g, at->span, "operator '%s' is not supported by code generation", op_spelling(op));
        return LLVMGetUndef(LLVMTypeOf(a));
    }
}

static LLVMValueRef compare(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *t);

/* Tuples compare as Python compares them: == and != element by element,
 * the orders lexicographically (the first unequal pair decides, then the
 * lengths). */
static LLVMValueRef compare_tuples(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *ta, const Type *tb) {
    int n = ta->elem_count < tb->elem_count ? ta->elem_count : tb->elem_count;
    LLVMValueRef all_eq = LLVMConstInt(i1(g), ta->elem_count == tb->elem_count, false);
    Op strict = op == OP_LE ? OP_LT : op == OP_GE ? OP_GT : op;
    bool ordered = op != OP_EQ && op != OP_NE;
    /* when every compared pair is equal, the shorter tuple is less */
    LLVMValueRef result = LLVMConstInt(i1(g), (op == OP_LT && ta->elem_count < tb->elem_count) ||
                                                  (op == OP_LE && ta->elem_count <= tb->elem_count) ||
                                                  (op == OP_GT && ta->elem_count > tb->elem_count) ||
                                                  (op == OP_GE && ta->elem_count >= tb->elem_count), false);
    for (int i = n - 1; i >= 0; i--) {
        const Type *t = type_unify(g->arena, ta->elems[i], tb->elems[i]);
        LLVMValueRef x = convert(g, extract(g, a, (unsigned)i, ""), ta->elems[i], t);
        LLVMValueRef y = convert(g, extract(g, b, (unsigned)i, ""), tb->elems[i], t);
        LLVMValueRef eq = compare(g, OP_EQ, x, y, t);
        if (ordered) result = LLVMBuildSelect(g->b, eq, result, compare(g, strict, x, y, t), "");
        else all_eq = LLVMBuildAnd(g->b, all_eq, eq, "");
    }
    if (ordered) return result;
    return op == OP_EQ ? all_eq : LLVMBuildNot(g->b, all_eq, "");
}

static LLVMValueRef compare(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *t) {
    if (t->kind == TY_ENUM) t = t->dtype; /* enum members compare by value */
    if (t->kind == TY_FLOAT || t->kind == TY_BFLOAT16) {
        LLVMRealPredicate p = op == OP_EQ ? LLVMRealOEQ : op == OP_NE ? LLVMRealUNE : op == OP_LT ? LLVMRealOLT
                            : op == OP_LE ? LLVMRealOLE : op == OP_GT ? LLVMRealOGT : LLVMRealOGE;
        return LLVMBuildFCmp(g->b, p, a, b, "");
    }
    if (t->kind == TY_COMPLEX) {
        LLVMValueRef re = compare(g, op, complex_parts(g, a, 0), complex_parts(g, b, 0), type_float(t->bits / 2));
        LLVMValueRef im = compare(g, op, complex_parts(g, a, 1), complex_parts(g, b, 1), type_float(t->bits / 2));
        return op == OP_EQ ? LLVMBuildAnd(g->b, re, im, "") : LLVMBuildOr(g->b, re, im, "");
    }
    bool s = t->kind == TY_INT && t->is_signed;
    LLVMIntPredicate p = op == OP_EQ ? LLVMIntEQ : op == OP_NE ? LLVMIntNE : op == OP_LT ? (s ? LLVMIntSLT : LLVMIntULT)
                       : op == OP_LE ? (s ? LLVMIntSLE : LLVMIntULE) : op == OP_GT ? (s ? LLVMIntSGT : LLVMIntUGT)
                                                                     : (s ? LLVMIntSGE : LLVMIntUGE);
    return LLVMBuildICmp(g->b, p, a, b, "");
}

/* ---- expressions ------------------------------------------------------------------- */

static LLVMValueRef gen_cast(CodeGen *g, Node *n, const Type *to) { return convert(g, gen_expr(g, n), n->ty, to); }

/* A module array constant: its bytes in constant memory under its own
 * name (so a loader can read or set it), seen as a C-contiguous array. */
static LLVMValueRef const_array(CodeGen *g, Sym *sym) {
    ConstValue *c = sym->value;
    const Type *t = c->ty;
    long count = 1;
    for (int i = 0; i < t->ndim; i++) count *= c->shape[i];
    size_t bytes = (size_t)count * (size_t)type_size(t->dtype);
    LLVMValueRef gv = LLVMGetNamedGlobal(g->mod, c->name);
    if (!gv) {
        LLVMValueRef init = LLVMConstStringInContext2(g->ctx, c->data, bytes, true);
        gv = add_global(g, MEM_CONST, LLVMTypeOf(init), c->name);
        LLVMSetInitializer(gv, init);
        LLVMSetGlobalConstant(gv, true);
        LLVMSetAlignment(gv, 16);
    }
    LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, t->ndim), *strides = CG_ARRAY(g, LLVMValueRef, t->ndim);
    long stride = type_size(t->dtype);
    for (int i = t->ndim - 1; i >= 0; i--) {
        shape[i] = i64c(g, c->shape[i]);
        strides[i] = i64c(g, stride);
        stride *= c->shape[i];
    }
    return make_array(g, t, generic(g, gv), shape, strides);
}

/* A scalar or tuple module constant as an LLVM constant of type t. */
static LLVMValueRef const_value(CodeGen *g, const ConstValue *c, const Type *t) {
    if (t->kind == TY_ENUM) t = t->dtype; /* a member is its value */
    if (t->kind == TY_TUPLE) {
        LLVMValueRef *elems = CG_ARRAY(g, LLVMValueRef, c->elem_count);
        for (int i = 0; i < c->elem_count; i++) elems[i] = const_value(g, c->elems[i], t->elems[i]);
        return LLVMConstStructInContext(g->ctx, elems, (unsigned)c->elem_count, false);
    }
    if (t->kind == TY_FLOAT) return LLVMConstReal(llvm_type(g, t), c->ty->kind == TY_FLOAT ? c->v.f : (double)c->v.i);
    if (t->kind == TY_BOOL) return LLVMConstInt(i1(g), c->v.i != 0, false);
    return LLVMConstInt(llvm_type(g, t), (unsigned long long)c->v.i, false);
}

/* Whether a version holds a value at run time (None holds nothing). */
static bool has_storage(const Sym *sym) { return sym->ty && is_value(sym->ty) && sym->ty->kind != TY_NONE; }

/* A version's slot, made the first time it is asked for. */
static LLVMValueRef version_slot(CodeGen *g, Sym *sym) {
    if (!sym->cg) sym->cg = cg_entry_alloca(g, llvm_type(g, sym->ty), sym->name);
    return sym->cg;
}

/* A parameter is its value, and so is a version from its assignment on
 * (assign_version); a phi, or a version read before its assignment is
 * reached, lives in a slot. */
static LLVMValueRef load_version(CodeGen *g, Sym *sym) {
    if (sym->ty->kind == TY_NONE) return NULL;
    if (!has_storage(sym)) ice("symbol %s has no storage", sym->name);
    if (sym->cg_is_value) return sym->cg;
    return LLVMBuildLoad2(g->b, llvm_type(g, sym->ty), version_slot(g, sym), sym->name);
}

/* Numba's versions are SSA: each is assigned once, and each but a phi in
 * a block that dominates its uses, as ssa.py places them. So a version is
 * the value assigned, with no slot to store it in and load it from (which
 * left mem2reg a third of a kernel's IR to take out again). */
static void assign_version(CodeGen *g, Sym *sym, LLVMValueRef v) {
    if (sym->is_phi || sym->cg) {
        if (sym->cg_is_value) ice("version %s assigned twice", sym->name);
        LLVMBuildStore(g->b, v, version_slot(g, sym));
        return;
    }
    sym->cg = v;
    sym->cg_is_value = true;
    size_t len;
    if (LLVMIsAInstruction(v) && !*LLVMGetValueName2(v, &len)) LLVMSetValueName2(v, sym->name, strlen(sym->name));
}

/* A closure: the values of what it captures, read at caps (those that
 * pick says, else all). */
static LLVMValueRef make_closure(CodeGen *g, const Type *t, Node **caps, const long *pick) {
    LLVMValueRef v = LLVMGetUndef(llvm_type(g, t));
    for (int i = 0; i < t->elem_count; i++) {
        Node *c = caps[pick ? pick[i] : i];
        LLVMValueRef x = t->elems[i]->kind == TY_NONE ? LLVMGetUndef(i8(g)) : convert(g, gen_expr(g, c), c->ty, t->elems[i]);
        v = LLVMBuildInsertValue(g->b, v, x, (unsigned)i, "");
    }
    return v;
}

static LLVMValueRef gen_name(CodeGen *g, Node *n) {
    Sym *sym = n->sym;
    if (!sym) ice("unresolved name %s", n->name);
    if (n->ty->kind == TY_CLOSURE && n->dims) return make_closure(g, n->ty, n->captures, n->dims);
    if (sym->kind == SYM_CONST && sym->value->ty->kind == TY_ARRAY) return const_array(g, sym);
    if (sym->kind == SYM_CONST) {
        ConstValue *c = sym->value;
        if (c->ty->kind == TY_FLOAT || c->ty->kind == TY_BOOL || c->ty->kind == TY_INT || c->ty->kind == TY_TUPLE)
            return const_value(g, c, n->ty);
        cg_error(g, n->span, "constant '%s' of this kind is not supported in code yet", n->name);
        return LLVMGetUndef(llvm_type(g, n->ty));
    }
    return load_version(g, sym);
}

/* The product of an array's extents, times `scale` if not NULL. */
static LLVMValueRef array_size(CodeGen *g, const Type *t, LLVMValueRef arr, LLVMValueRef scale) {
    LLVMValueRef size = scale;
    for (int i = 0; i < t->ndim; i++) {
        LLVMValueRef extent = array_dim(g, arr, 1, i);
        size = size ? LLVMBuildNSWMul(g->b, size, extent, "") : extent;
    }
    return size ? size : i64c(g, 1);
}

/* An array with the same data and its dimensions reversed (.T), or the
 * same dimensions and its data offset by `offset` bytes (.real, .imag). */
static LLVMValueRef array_view(CodeGen *g, const Type *t, const Type *view, LLVMValueRef arr, bool reverse, long offset) {
    LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, t->ndim), *strides = CG_ARRAY(g, LLVMValueRef, t->ndim);
    LLVMValueRef data = extract(g, arr, 0, "");
    for (int i = 0; i < t->ndim; i++) {
        int from = reverse ? t->ndim - 1 - i : i;
        shape[i] = array_dim(g, arr, 1, from);
        strides[i] = array_dim(g, arr, 2, from);
    }
    if (offset) {
        LLVMValueRef by = i64c(g, offset);
        data = LLVMBuildGEP2(g->b, i8(g), data, &by, 1, "");
    }
    return make_array(g, view, data, shape, strides);
}

/* .shape or .strides: the tuple of an array's dimension field. */
static LLVMValueRef array_dims(CodeGen *g, const Type *t, const Type *tuple, LLVMValueRef arr, int field) {
    LLVMValueRef dims = extract(g, arr, (unsigned)field, "");
    LLVMValueRef out = LLVMGetUndef(llvm_type(g, tuple));
    for (int i = 0; i < t->ndim; i++)
        out = LLVMBuildInsertValue(g->b, out, extract(g, dims, (unsigned)i, ""), (unsigned)i, "");
    return out;
}

static LLVMValueRef array_attribute(CodeGen *g, Node *n, LLVMValueRef arr) {
    const Type *t = n->lhs->ty;
    long part = type_size(t->dtype) / 2;
    switch (n->attr) {
    case ATTR_NDIM: return i64c(g, t->ndim);
    case ATTR_ITEMSIZE: return i64c(g, type_size(t->dtype));
    case ATTR_SIZE: return array_size(g, t, arr, NULL);
    case ATTR_NBYTES: return array_size(g, t, arr, i64c(g, type_size(t->dtype)));
    case ATTR_REAL: return array_view(g, t, n->ty, arr, false, 0);
    case ATTR_IMAG: return array_view(g, t, n->ty, arr, false, part);
    case ATTR_T: return array_view(g, t, n->ty, arr, true, 0);
    case ATTR_SHAPE: return array_dims(g, t, n->ty, arr, 1);
    default: return array_dims(g, t, n->ty, arr, 2);
    }
}

/* The address of a record's field, and in *align how aligned it is: a
 * packed record's fields are loaded byte by byte, as Numba loads them. */
static LLVMValueRef field_ptr(CodeGen *g, Node *n, unsigned *align) {
    LLVMValueRef off = i64c(g, n->field->offset);
    *align = n->lhs->ty->record->aligned ? 0 : 1;
    return LLVMBuildGEP2(g->b, i8(g), gen_expr(g, n->lhs), &off, 1, n->field->name);
}

/* A nested array field: an array over the record's bytes, C strides. */
static LLVMValueRef nested_array(CodeGen *g, const Type *t, LLVMValueRef data) {
    LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, t->ndim), *strides = CG_ARRAY(g, LLVMValueRef, t->ndim);
    long stride = type_size(t->dtype);
    for (int i = t->ndim - 1; i >= 0; i--) {
        shape[i] = i64c(g, t->nested[i]);
        strides[i] = i64c(g, stride);
        stride *= t->nested[i];
    }
    return make_array(g, t, data, shape, strides);
}

/* r.x, r['x'] of a record; a.x, a['x'] of a record array: the view of
 * that field in every element. */
static LLVMValueRef gen_field(CodeGen *g, Node *n) {
    if (n->lhs->ty->kind == TY_ARRAY)
        return array_view(g, n->lhs->ty, n->ty, gen_expr(g, n->lhs), false, n->field->offset);
    unsigned align;
    LLVMValueRef p = field_ptr(g, n, &align);
    return n->ty->kind == TY_ARRAY ? nested_array(g, n->ty, p) : load_place(g, n->ty, p, align);
}

static LLVMValueRef subscript_ptr(CodeGen *g, Node *n);

/* Where an assignment or x op= y writes: an array element or a field. */
static LLVMValueRef place_ptr(CodeGen *g, Node *target, unsigned *align) {
    if (target->field) return field_ptr(g, target, align);
    *align = element_align(target->lhs->ty);
    return subscript_ptr(g, target);
}

static LLVMValueRef gen_attribute(CodeGen *g, Node *n) {
    if (n->field) return gen_field(g, n);
    if (n->sym && n->sym->kind == SYM_CONST) return gen_name(g, n); /* mod.CONSTANT */
    const Entity *e = n->entity;
    if (e && e->lower == LW_CONSTANT) return LLVMConstReal(LLVMDoubleTypeInContext(g->ctx), strtod(e->lower_name, NULL));
    if (e && e->kind == ENT_DIM3) return TARGET(g)->special(g, (SpecialValue)e->op, n->attr - ATTR_X);
    if (e && e->kind == ENT_VALUE) return TARGET(g)->special(g, (SpecialValue)e->op, 0);
    const Type *bt = n->lhs->ty;
    LLVMValueRef base = gen_expr(g, n->lhs);
    switch (bt->kind) {
    case TY_ARRAY: return array_attribute(g, n, base);
    case TY_COMPLEX: return complex_parts(g, base, n->attr == ATTR_IMAG);
    case TY_VECTOR: return extract(g, base, (unsigned)(n->attr - ATTR_X), n->name);
    case TY_RANGE: return extract(g, base, (unsigned)(n->attr - ATTR_START), n->name);
    case TY_TUPLE: return extract(g, base, (unsigned)n->dims[0], n->name); /* a named tuple's field */
    default: return n->attr == ATTR_IMAG ? LLVMConstNull(llvm_type(g, n->ty)) : base; /* a real's .real, .imag */
    }
}

/* The indices of a subscript, as values and types (in the arena). */
static int gen_indices(CodeGen *g, Node *index, LLVMValueRef **vals_out, const Type ***tys_out) {
    int n = index->ty->kind == TY_TUPLE ? index->ty->elem_count : 1;
    LLVMValueRef *vals = *vals_out = CG_ARRAY(g, LLVMValueRef, n);
    const Type **tys = *tys_out = CG_ARRAY(g, const Type *, n);
    if (index->ty->kind == TY_TUPLE) {
        LLVMValueRef t = gen_expr(g, index);
        for (int i = 0; i < index->ty->elem_count; i++) {
            vals[i] = extract(g, t, (unsigned)i, "");
            tys[i] = index->ty->elems[i];
        }
        return index->ty->elem_count;
    }
    vals[0] = gen_expr(g, index);
    tys[0] = index->ty;
    if (tys[0]->kind == TY_BOOL) {
        vals[0] = convert(g, vals[0], tys[0], &ty_int64);
        tys[0] = &ty_int64;
    }
    return 1;
}

static LLVMValueRef subscript_ptr(CodeGen *g, Node *n) {
    LLVMValueRef arr = gen_expr(g, n->lhs);
    LLVMValueRef *idx;
    const Type **tys;
    gen_indices(g, n->rhs, &idx, &tys);
    check_indices(g, n, n->lhs->ty, arr, idx, tys);
    return element_ptr(g, n->lhs->ty, arr, idx, tys);
}

/* The start, length and step of a[lo:hi:st] along a dimension of length
 * len, as Python's slice.indices() computes them. */
static void slice_bounds(CodeGen *g, Node *sl, LLVMValueRef len, LLVMValueRef *start, LLVMValueRef *count,
                         LLVMValueRef *step) {
    LLVMBuilderRef B = g->b;
    LLVMValueRef zero = i64c(g, 0), one = i64c(g, 1), minus1 = i64c(g, -1);
    *step = sl->step ? gen_cast(g, sl->step, &ty_int64) : one;
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, *step, zero, "");
    LLVMValueRef bound[2];
    Node *given[2] = {sl->lower, sl->upper};
    for (int k = 0; k < 2; k++) {
        if (!given[k]) {
            bound[k] = k == 0 ? LLVMBuildSelect(B, neg, LLVMBuildSub(B, len, one, ""), zero, "")
                              : LLVMBuildSelect(B, neg, minus1, len, "");
            continue;
        }
        LLVMValueRef v = gen_cast(g, given[k], &ty_int64);
        LLVMValueRef wrapped = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, v, zero, ""), LLVMBuildAdd(B, v, len, ""), v, "");
        LLVMValueRef low = LLVMBuildSelect(B, neg, minus1, zero, "");
        LLVMValueRef high = LLVMBuildSelect(B, neg, LLVMBuildSub(B, len, one, ""), len, "");
        wrapped = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, wrapped, zero, ""), low, wrapped, "");
        bound[k] = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGE, wrapped, len, ""), high, wrapped, "");
    }
    *start = bound[0];
    /* up: (stop - start - 1) / step + 1 if start < stop; down: mirrored */
    LLVMValueRef up_n = LLVMBuildAdd(B, LLVMBuildSDiv(B, LLVMBuildSub(B, LLVMBuildSub(B, bound[1], bound[0], ""), one, ""), *step, ""), one, "");
    LLVMValueRef down_n = LLVMBuildAdd(B, LLVMBuildSDiv(B, LLVMBuildSub(B, LLVMBuildSub(B, bound[0], bound[1], ""), one, ""), LLVMBuildNeg(B, *step, ""), ""), one, "");
    LLVMValueRef up = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, bound[0], bound[1], ""), up_n, zero, "");
    LLVMValueRef down = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, bound[0], bound[1], ""), down_n, zero, "");
    *count = LLVMBuildSelect(B, neg, down, up, "");
}

/* a[i, lo:hi, ...]: a view sharing a's data; integers drop a dimension,
 * slices keep one with a new length and stride, missing ones stay whole. */
static LLVMValueRef gen_view(CodeGen *g, Node *n) {
    const Type *bt = n->lhs->ty;
    LLVMValueRef arr = gen_expr(g, n->lhs);
    Node **idx = n->rhs->kind == ND_TUPLE ? n->rhs->items : &n->rhs;
    int count = n->rhs->kind == ND_TUPLE ? n->rhs->item_len : 1;
    LLVMValueRef offset = i64c(g, 0);
    LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, bt->ndim), *strides = CG_ARRAY(g, LLVMValueRef, bt->ndim);
    int out = 0;
    for (int d = 0; d < bt->ndim; d++) {
        LLVMValueRef len = array_dim(g, arr, 1, d), stride = array_dim(g, arr, 2, d);
        if (d >= count) {
            shape[out] = len;
            strides[out++] = stride;
        } else if (idx[d]->kind == ND_SLICE) {
            LLVMValueRef start, n_items, step;
            slice_bounds(g, idx[d], len, &start, &n_items, &step);
            offset = LLVMBuildAdd(g->b, offset, LLVMBuildMul(g->b, start, stride, ""), "");
            shape[out] = n_items;
            strides[out++] = LLVMBuildMul(g->b, stride, step, "");
        } else {
            LLVMValueRef i = gen_cast(g, idx[d], &ty_int64);
            i = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, i64c(g, 0), ""), LLVMBuildAdd(g->b, i, len, ""), i, "");
            offset = LLVMBuildAdd(g->b, offset, LLVMBuildMul(g->b, i, stride, ""), "");
        }
    }
    LLVMValueRef data = LLVMBuildGEP2(g->b, i8(g), extract(g, arr, 0, ""), &offset, 1, "");
    return make_array(g, n->ty, data, shape, strides);
}

static LLVMValueRef gen_field(CodeGen *g, Node *n);

static LLVMValueRef gen_subscript(CodeGen *g, Node *n) {
    if (n->field) return gen_field(g, n);
    if (n->sym && n->sym->kind == SYM_CONST) return gen_name(g, n); /* Color["RED"] */
    if (n->lhs->ty->kind == TY_ARRAY && n->ty->kind == TY_ARRAY) return gen_view(g, n);
    if (n->lhs->ty->kind == TY_TUPLE && n->rhs->kind == ND_SLICE) {
        LLVMValueRef t = gen_expr(g, n->lhs), out = LLVMGetUndef(llvm_type(g, n->ty));
        for (int i = 0; n->dims[i] >= 0; i++)
            out = LLVMBuildInsertValue(g->b, out, extract(g, t, (unsigned)n->dims[i], ""), (unsigned)i, "");
        return out;
    }
    if (n->lhs->ty->kind == TY_TUPLE) {
        LLVMValueRef t = gen_expr(g, n->lhs);
        if (n->dims) return extract(g, t, (unsigned)n->dims[0], ""); /* a constant index, sema's */
        /* a uniform tuple with a variable index: spill and index */
        LLVMTypeRef tt = llvm_type(g, n->lhs->ty);
        LLVMValueRef slot = cg_entry_alloca(g, tt, "tuple");
        LLVMBuildStore(g->b, t, slot);
        LLVMValueRef i = gen_cast(g, n->rhs, &ty_int64);
        LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, i, i64c(g, 0), "");
        i = LLVMBuildSelect(g->b, neg, LLVMBuildAdd(g->b, i, i64c(g, n->lhs->ty->elem_count), ""), i, "");
        LLVMValueRef p = LLVMBuildGEP2(g->b, llvm_type(g, n->ty), slot, &i, 1, "");
        return LLVMBuildLoad2(g->b, llvm_type(g, n->ty), p, "");
    }
    return load_place(g, n->ty, subscript_ptr(g, n), element_align(n->lhs->ty));
}

/* The return type of a binary operator's case: the node's type, but for
 * ints dividing as floats, whose float64 quotient operator.itruediv then
 * stores as the int the node's type says (sema). */
static const Type *case_result(Node *n) {
    if (n->op == OP_DIV && n->casts[0]->kind == TY_INT) return &ty_float64;
    return type_strip(n->ty);
}

static LLVMValueRef gen_binop(CodeGen *g, Node *n) {
    LLVMValueRef a = gen_cast(g, n->lhs, n->casts[0]), b = gen_cast(g, n->rhs, n->casts[1]);
    if (n->lhs->ty->kind == TY_TUPLE) { /* a + b of tuples: the concatenation */
        LLVMValueRef out = LLVMGetUndef(llvm_type(g, n->ty));
        int k = 0;
        for (int i = 0; i < n->lhs->ty->elem_count; i++)
            out = LLVMBuildInsertValue(g->b, out, extract(g, a, (unsigned)i, ""), (unsigned)k++, "");
        for (int i = 0; i < n->rhs->ty->elem_count; i++)
            out = LLVMBuildInsertValue(g->b, out, extract(g, b, (unsigned)i, ""), (unsigned)k++, "");
        return out;
    }
    if (n->op == OP_LSHIFT || n->op == OP_RSHIFT) {
        /* Numba shifts in the result's width: the operand widened first */
        const Type *rt = type_strip(n->ty);
        return shift(g, n->op, convert(g, a, n->casts[0], rt), convert(g, b, n->casts[1], rt), rt);
    }
    const Type *rt = case_result(n);
    return convert(g, arith(g, n, n->op, a, b, n->casts[0], n->casts[1], rt), rt, n->ty);
}

static LLVMValueRef gen_unary(CodeGen *g, Node *n) {
    if (n->op == OP_NOT) return LLVMBuildNot(g->b, to_bool(g, gen_cast(g, n->rhs, n->casts[0]), n->casts[0]), "");
    const Type *t = n->casts[0];
    LLVMValueRef v = gen_cast(g, n->rhs, t);
    LLVMValueRef r = v;
    if (n->op == OP_NEG) {
        if (t->kind == TY_FLOAT || t->kind == TY_BFLOAT16) r = LLVMBuildFNeg(g->b, v, "");
        else if (t->kind == TY_COMPLEX)
            r = complex_make(g, LLVMTypeOf(v), LLVMBuildFNeg(g->b, complex_parts(g, v, 0), ""), LLVMBuildFNeg(g->b, complex_parts(g, v, 1), ""));
        else if (t->kind == TY_BOOL) return LLVMBuildNeg(g->b, convert(g, v, t, n->ty), "");
        else r = LLVMBuildNeg(g->b, v, "");
    } else if (n->op == OP_INVERT) {
        r = t->kind == TY_BOOL ? LLVMBuildNot(g->b, v, "") : LLVMBuildNot(g->b, v, "");
    } else if (t->kind == TY_BOOL) {
        return convert(g, v, t, n->ty);
    }
    return convert(g, r, t, n->ty);
}

/* `is`: None is None, an Optional is None where it has no value
 * (optional.py); values of other types are never identical. */
static LLVMValueRef identity(CodeGen *g, Op op, LLVMValueRef a, const Type *ta, LLVMValueRef b, const Type *tb) {
    if (tb->kind == TY_OPTIONAL) {
        LLVMValueRef v = a;
        const Type *t = ta;
        a = b, ta = tb, b = v, tb = t;
    }
    if (ta->kind == TY_OPTIONAL && tb->kind == TY_NONE) {
        LLVMValueRef valid = extract(g, a, 1, "");
        return op == OP_ISNOT ? valid : LLVMBuildNot(g->b, valid, "");
    }
    if (ta->kind == TY_ENUM && type_equal(ta, tb)) return compare(g, op == OP_IS ? OP_EQ : OP_NE, a, b, ta);
    bool same = type_equal(ta, tb) && ta->kind == TY_NONE;
    return LLVMConstInt(i1(g), same == (op == OP_IS), false);
}

/* A loop over the elements of a 1-d array from index `from` on, as
 * Numba's iterators run: array_loop_begin leaves the builder in the body
 * with the element, array_loop_end closes it. Values carried from one
 * element to the next live in entry allocas, which LLVM promotes. */
typedef struct ArrayLoop {
    LLVMValueRef slot;
    LLVMBasicBlockRef cond, done;
} ArrayLoop;

static LLVMValueRef array_loop_begin(CodeGen *g, ArrayLoop *l, const Type *t, LLVMValueRef arr, long from) {
    l->slot = cg_entry_alloca(g, i64(g), "elem.i");
    LLVMBuildStore(g->b, i64c(g, from), l->slot);
    l->cond = cg_new_block(g, "elems.cond");
    LLVMBasicBlockRef body = cg_new_block(g, "elems.body");
    l->done = cg_new_block(g, "elems.done");
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->cond);
    LLVMValueRef i = LLVMBuildLoad2(g->b, i64(g), l->slot, "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, array_dim(g, arr, 1, 0), ""), body, l->done);
    LLVMPositionBuilderAtEnd(g->b, body);
    const Type *it = &ty_int64;
    return load_place(g, t->dtype, element_ptr(g, t, arr, &i, &it), element_align(t));
}

static void array_loop_end(CodeGen *g, ArrayLoop *l) {
    LLVMValueRef i = LLVMBuildLoad2(g->b, i64(g), l->slot, "");
    LLVMBuildStore(g->b, LLVMBuildNSWAdd(g->b, i, i64c(g, 1), ""), l->slot);
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->done);
}

/* Whether element e (of type et) equals x, as `e == x` compares them. */
static LLVMValueRef element_equals(CodeGen *g, LLVMValueRef e, const Type *et, LLVMValueRef x, const Type *xt,
                                   const Type *cmp) {
    if (cmp->kind == TY_TUPLE) return compare_tuples(g, OP_EQ, e, x, et, xt);
    return compare(g, OP_EQ, convert(g, e, et, cmp), convert(g, x, xt, cmp), cmp);
}

/* x in t, t a tuple of one element type or a 1-d array: whether some
 * element equals x, compared as `elem == x` (in cmp, or as tuples); x not
 * in t, the opposite. */
static LLVMValueRef contains(CodeGen *g, Op op, LLVMValueRef x, const Type *xt, LLVMValueRef t, const Type *tt,
                             const Type *cmp) {
    LLVMValueRef found = LLVMConstInt(i1(g), 0, false);
    if (tt->kind == TY_ARRAY) {
        LLVMValueRef slot = cg_entry_alloca(g, i1(g), "found");
        LLVMBuildStore(g->b, found, slot);
        ArrayLoop l;
        LLVMValueRef e = array_loop_begin(g, &l, tt, t, 0);
        LLVMValueRef eq = element_equals(g, e, tt->dtype, x, xt, cmp);
        LLVMBuildStore(g->b, LLVMBuildOr(g->b, LLVMBuildLoad2(g->b, i1(g), slot, ""), eq, ""), slot);
        array_loop_end(g, &l);
        found = LLVMBuildLoad2(g->b, i1(g), slot, "");
    }
    for (int i = 0; tt->kind == TY_TUPLE && i < tt->elem_count; i++) {
        LLVMValueRef eq = element_equals(g, extract(g, t, (unsigned)i, ""), tt->elems[i], x, xt, cmp);
        found = LLVMBuildOr(g->b, found, eq, "");
    }
    return op == OP_IN ? found : LLVMBuildNot(g->b, found, "");
}

/* The i-th comparison of the chain n, of its operands left and right. */
static LLVMValueRef call_function(CodeGen *g, FuncInfo *f, LLVMValueRef *args, int n) {
    LLVMValueRef fn = f->cg[g->ftz];
    return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

static LLVMValueRef compare_pair(CodeGen *g, Node *n, int i, LLVMValueRef left, LLVMValueRef right) {
    const Type *ta = n->casts[2 * i], *tb = n->casts[2 * i + 1];
    Op op = n->ops[i];
    if (n->op_calls && n->op_calls[i]) { /* x in range(...): range.pyk's contains */
        const Node *call = n->op_calls[i];
        LLVMValueRef args[] = {right, convert(g, left, n->items[i]->ty, call->casts[1])};
        LLVMValueRef r = to_bool(g, call_function(g, call->sym->func, args, 2), call->sym->func->ret);
        return op == OP_NOTIN ? LLVMBuildNot(g->b, r, "") : r;
    }
    if (op == OP_IS || op == OP_ISNOT) return identity(g, op, left, n->items[i]->ty, right, n->items[i + 1]->ty);
    if (op == OP_IN || op == OP_NOTIN) return contains(g, op, left, n->items[i]->ty, right, tb, ta);
    if (ta->kind == TY_TUPLE) return compare_tuples(g, op, left, right, ta, tb);
    return compare(g, op, convert(g, left, n->items[i]->ty, ta), convert(g, right, n->items[i + 1]->ty, tb), ta);
}

/* A chain a < b < c compares each pair in turn, stopping at the first
 * false, each operand evaluated once; a single comparison is just that. */
static LLVMValueRef gen_compare(CodeGen *g, Node *n) {
    if (n->item_len == 2) {
        LLVMValueRef left = gen_expr(g, n->items[0]);
        return compare_pair(g, n, 0, left, gen_expr(g, n->items[1]));
    }
    LLVMBasicBlockRef done = cg_new_block(g, "cmp.done");
    LLVMValueRef *phi_vals = ARENA_ARRAY(g->arena, LLVMValueRef, n->item_len);
    LLVMBasicBlockRef *phi_from = ARENA_ARRAY(g->arena, LLVMBasicBlockRef, n->item_len);
    int k = 0;
    LLVMValueRef left = gen_expr(g, n->items[0]);
    LLVMValueRef result = NULL;
    for (int i = 0; i + 1 < n->item_len; i++) {
        LLVMValueRef right = gen_expr(g, n->items[i + 1]);
        result = compare_pair(g, n, i, left, right);
        if (i + 2 < n->item_len) {
            LLVMBasicBlockRef next = cg_new_block(g, "cmp.next");
            phi_vals[k] = result;
            phi_from[k++] = LLVMGetInsertBlock(g->b);
            LLVMBuildCondBr(g->b, result, next, done);
            LLVMPositionBuilderAtEnd(g->b, next);
        }
        left = right;
    }
    phi_vals[k] = result;
    phi_from[k++] = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMValueRef phi = LLVMBuildPhi(g->b, i1(g), "");
    LLVMAddIncoming(phi, phi_vals, phi_from, (unsigned)k);
    return phi;
}

/* `a and b` / `a or b` return an operand, converted to the joined type. */
static LLVMValueRef gen_boolop(CodeGen *g, Node *n) {
    LLVMBasicBlockRef done = cg_new_block(g, n->op == OP_AND ? "and.done" : "or.done");
    LLVMValueRef *vals = CG_ARRAY(g, LLVMValueRef, n->item_len);
    LLVMBasicBlockRef *from = CG_ARRAY(g, LLVMBasicBlockRef, n->item_len);
    int k = 0;
    for (int i = 0; i < n->item_len; i++) {
        LLVMValueRef v = gen_expr(g, n->items[i]);
        LLVMValueRef as_result = convert(g, v, n->items[i]->ty, n->ty);
        vals[k] = as_result;
        from[k++] = LLVMGetInsertBlock(g->b);
        if (i + 1 == n->item_len) {
            LLVMBuildBr(g->b, done);
            break;
        }
        LLVMValueRef truth = to_bool(g, v, n->items[i]->ty);
        from[k - 1] = LLVMGetInsertBlock(g->b);
        LLVMBasicBlockRef next = cg_new_block(g, "bool.next");
        if (n->op == OP_AND) LLVMBuildCondBr(g->b, truth, next, done);
        else LLVMBuildCondBr(g->b, truth, done, next);
        LLVMPositionBuilderAtEnd(g->b, next);
    }
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMValueRef phi = LLVMBuildPhi(g->b, llvm_type(g, n->ty), "");
    LLVMAddIncoming(phi, vals, from, (unsigned)k);
    return phi;
}

static LLVMValueRef gen_ifexp(CodeGen *g, Node *n) {
    LLVMValueRef c = to_bool(g, gen_expr(g, n->cond), n->cond->ty);
    LLVMBasicBlockRef then = cg_new_block(g, "ifexp.then"), els = cg_new_block(g, "ifexp.else"), done = cg_new_block(g, "ifexp.done");
    LLVMBuildCondBr(g->b, c, then, els);
    LLVMPositionBuilderAtEnd(g->b, then);
    LLVMValueRef a = gen_cast(g, n->then, n->ty);
    LLVMBasicBlockRef a_from = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, els);
    LLVMValueRef b = gen_cast(g, n->els, n->ty);
    LLVMBasicBlockRef b_from = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    if (n->ty->kind == TY_NONE) return LLVMGetUndef(i8(g)); /* as None is: nothing to merge */
    LLVMValueRef phi = LLVMBuildPhi(g->b, llvm_type(g, n->ty), "");
    LLVMValueRef vals[] = {a, b};
    LLVMBasicBlockRef from[] = {a_from, b_from};
    LLVMAddIncoming(phi, vals, from, 2);
    return phi;
}

static LLVMValueRef gen_tuple(CodeGen *g, Node *n) {
    LLVMValueRef t = LLVMGetUndef(llvm_type(g, n->ty));
    for (int i = 0; i < n->item_len; i++) t = LLVMBuildInsertValue(g->b, t, gen_expr(g, n->items[i]), (unsigned)i, "");
    return t;
}

/* ---- calls ---------------------------------------------------------------------------- */

static LLVMValueRef arg_cast(CodeGen *g, Node *call, int i) {
    return call->casts ? gen_cast(g, call->items[i], call->casts[i]) : gen_expr(g, call->items[i]);
}

/* A special value, zero-extended to int64: special registers are never
 * negative, and saying so lets LLVM prove an index non-negative, so that
 * x[cuda.grid(1)] needs no wraparound test. */
static LLVMValueRef special64(CodeGen *g, SpecialValue v, int axis) {
    return LLVMBuildZExt(g->b, TARGET(g)->special(g, v, axis), i64(g), "");
}

/* cuda.grid(n) (blockIdx * blockDim + threadIdx) or cuda.gridsize(n)
 * (gridDim * blockDim), an int64 or a tuple of n. */
static LLVMValueRef gen_grid(CodeGen *g, Node *call, bool size) {
    int n = call->ty->kind == TY_TUPLE ? call->ty->elem_count : 1;
    LLVMValueRef out = n > 1 ? LLVMGetUndef(llvm_type(g, call->ty)) : NULL, v = NULL;
    for (int i = 0; i < n; i++) {
        LLVMValueRef a = special64(g, size ? SV_GRID_DIM : SV_BLOCK_IDX, i), b = special64(g, SV_BLOCK_DIM, i);
        v = LLVMBuildNUWMul(g->b, a, b, "");
        LLVMSetNSW(v, true);
        if (!size) {
            v = LLVMBuildNUWAdd(g->b, v, special64(g, SV_THREAD_IDX, i), "");
            LLVMSetNSW(v, true);
        }
        if (out) out = LLVMBuildInsertValue(g->b, out, v, (unsigned)i, "");
    }
    return out ? out : v;
}

/* The address of the element that a call's first two arguments, an array
 * and an index, name (atomics, cache hints). */
static LLVMValueRef call_element_ptr(CodeGen *g, Node *call) {
    LLVMValueRef arr = gen_expr(g, call->items[0]);
    LLVMValueRef *idx;
    const Type **tys;
    gen_indices(g, call->items[1], &idx, &tys);
    check_indices(g, call, call->items[0]->ty, arr, idx, tys);
    return element_ptr(g, call->items[0]->ty, arr, idx, tys);
}

/* LLVM's atomicrmw for an atomic of cuda.atomic on elements of type t. */
static LLVMAtomicRMWBinOp atomic_rmw(AtomicOp op, const Type *t) {
    bool fp = t->kind == TY_FLOAT, sgn = t->kind == TY_INT && t->is_signed;
    switch (op) {
    case ATOMIC_ADD: return fp ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    case ATOMIC_SUB: return fp ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub;
    case ATOMIC_MAX: case ATOMIC_NANMAX:
        return fp ? LLVMAtomicRMWBinOpFMax : sgn ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    case ATOMIC_MIN: case ATOMIC_NANMIN:
        return fp ? LLVMAtomicRMWBinOpFMin : sgn ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    case ATOMIC_AND: return LLVMAtomicRMWBinOpAnd;
    case ATOMIC_OR: return LLVMAtomicRMWBinOpOr;
    case ATOMIC_XOR: return LLVMAtomicRMWBinOpXor;
    case ATOMIC_EXCH: return LLVMAtomicRMWBinOpXchg;
    case ATOMIC_INC: return LLVMAtomicRMWBinOpUIncWrap;
    default: return LLVMAtomicRMWBinOpUDecWrap;
    }
}

static LLVMValueRef gen_atomic(CodeGen *g, Node *call, const Entity *e) {
    AtomicOp op = (AtomicOp)e->op;
    /* compare_and_swap has no index: it works on element 0, the data pointer. */
    LLVMValueRef p = op == ATOMIC_CAS_FIRST ? extract(g, gen_expr(g, call->items[0]), 0, "data") : call_element_ptr(g, call);
    if (op == ATOMIC_CAS || op == ATOMIC_CAS_FIRST) {
        int first = op == ATOMIC_CAS ? 2 : 1;
        LLVMValueRef old = arg_cast(g, call, first), val = arg_cast(g, call, first + 1);
        LLVMValueRef r = LLVMBuildAtomicCmpXchg(g->b, p, old, val, LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, false);
        return extract(g, r, 0, "");
    }
    return LLVMBuildAtomicRMW(g->b, atomic_rmw(op, call->ty), p, arg_cast(g, call, 2), LLVMAtomicOrderingMonotonic, false);
}

/* The i-th value min or max chooses among, converted to the result's
 * type: an argument, or an element of the one tuple argument. */
static LLVMValueRef minmax_operand(CodeGen *g, Node *call, LLVMValueRef tuple, int i) {
    if (!tuple) return arg_cast(g, call, i);
    const Type *tt = call->items[0]->ty;
    return convert(g, extract(g, tuple, (unsigned)i, ""), tt->elems[i], call->ty);
}

/* Whether v replaces acc as the least (greatest) so far: Python keeps the
 * first on ties, and a NaN first stays. */
static LLVMValueRef minmax_picks(CodeGen *g, LLVMValueRef v, LLVMValueRef acc, const Type *t, bool is_max) {
    if (t->kind == TY_FLOAT) return LLVMBuildFCmp(g->b, is_max ? LLVMRealOGT : LLVMRealOLT, v, acc, "");
    return compare(g, is_max ? OP_GT : OP_LT, v, acc, t);
}

/* min or max of a 1-d array: its first element (an empty one raises
 * StopIteration: the function returns), then each one that picks. */
static LLVMValueRef array_minmax(CodeGen *g, Node *call, bool is_max) {
    const Type *at = call->items[0]->ty, *t = call->ty;
    LLVMValueRef arr = gen_expr(g, call->items[0]);
    LLVMBasicBlockRef empty = cg_new_block(g, "minmax.empty"), go = cg_new_block(g, "minmax.first");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, array_dim(g, arr, 1, 0), i64c(g, 0), ""), empty, go);
    LLVMPositionBuilderAtEnd(g->b, empty);
    gen_raise(g, NULL);
    LLVMPositionBuilderAtEnd(g->b, go);
    LLVMValueRef zero = i64c(g, 0), slot = cg_entry_alloca(g, llvm_type(g, t), "best");
    const Type *it = &ty_int64;
    LLVMBuildStore(g->b, load_place(g, t, element_ptr(g, at, arr, &zero, &it), element_align(at)), slot);
    ArrayLoop l;
    LLVMValueRef v = array_loop_begin(g, &l, at, arr, 1), acc = LLVMBuildLoad2(g->b, llvm_type(g, t), slot, "");
    LLVMBuildStore(g->b, LLVMBuildSelect(g->b, minmax_picks(g, v, acc, t, is_max), v, acc, ""), slot);
    array_loop_end(g, &l);
    return LLVMBuildLoad2(g->b, llvm_type(g, t), slot, "");
}

/* Whether min or max is of two float32s or float64s, which numba-cuda
 * lowers to libdevice's fmin and fmax (a NaN gives the other operand; -0.0
 * is less than +0.0) rather than by Python's comparisons. */
static bool minmax_is_libdevice(const Node *call) {
    if (call->item_len != 2) return false;
    for (int i = 0; i < 2; i++) {
        const Type *t = type_strip(call->items[i]->ty);
        if (t->kind != TY_FLOAT || (t->bits != 32 && t->bits != 64)) return false;
    }
    return true;
}

static LLVMValueRef gen_minmax(CodeGen *g, Node *call, bool is_max) {
    if (call->item_len == 1 && call->items[0]->ty->kind == TY_ARRAY) return array_minmax(g, call, is_max);
    const Type *t = call->ty;
    if (minmax_is_libdevice(call)) {
        LLVMValueRef a = arg_cast(g, call, 0), b = arg_cast(g, call, 1);
        LLVMValueRef args[] = {a, b};
        return math_call(g, is_max ? "fmax" : "fmin", t, args, 2);
    }
    bool of_tuple = call->item_len == 1;
    LLVMValueRef tuple = of_tuple ? gen_expr(g, call->items[0]) : NULL;
    int n = of_tuple ? call->items[0]->ty->elem_count : call->item_len;
    LLVMValueRef acc = minmax_operand(g, call, tuple, 0);
    for (int i = 1; i < n; i++) {
        LLVMValueRef v = minmax_operand(g, call, tuple, i);
        acc = LLVMBuildSelect(g->b, minmax_picks(g, v, acc, t, is_max), v, acc, "");
    }
    return acc;
}

/* A NUL-terminated string in constant memory, as a generic pointer. */
static LLVMValueRef const_string(CodeGen *g, const char *text, size_t len) {
    LLVMValueRef init = LLVMConstStringInContext2(g->ctx, text, len, false);
    LLVMValueRef gv = add_global(g, MEM_CONST, LLVMTypeOf(init), "str");
    LLVMSetInitializer(gv, init);
    LLVMSetGlobalConstant(gv, true);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
    return generic(g, gv);
}

/* print(a, b, ...) as numba-cuda prints: one printf of the items joined
 * by spaces; ints as %lld or %llu, floats as %f of a double, bools as
 * True/False, strings as they are. */
static LLVMValueRef gen_print(CodeGen *g, Node *call) {
    size_t cap = 64, len = 0;
    char *fmt = malloc(cap);
    LLVMValueRef *vals = ARENA_ARRAY(g->arena, LLVMValueRef, call->item_len ? call->item_len : 1);
    int n = 0;
    for (int i = 0; i < call->item_len && fmt; i++) {
        Node *a = call->items[i];
        const char *piece = "%s";
        char *owned = NULL;
        if (a->ty->kind == TY_STRING) {
            owned = malloc(2 * a->v.s.len + 1);
            size_t k = 0;
            for (size_t j = 0; owned && j < a->v.s.len; j++) {
                if (a->v.s.data[j] == '%') owned[k++] = '%';
                owned[k++] = a->v.s.data[j];
            }
            if (owned) owned[k] = '\0';
            piece = owned ? owned : "";
        } else if (a->ty->kind == TY_BOOL) {
            LLVMValueRef v = gen_expr(g, a);
            vals[n++] = LLVMBuildSelect(g->b, v, const_string(g, "True", 4), const_string(g, "False", 5), "");
        } else if (a->ty->kind == TY_INT) {
            piece = a->ty->is_signed ? "%lld" : "%llu";
            vals[n++] = gen_cast(g, a, a->ty->is_signed ? &ty_int64 : &ty_uint64);
        } else if (a->ty->kind == TY_FLOAT) {
            piece = "%f";
            vals[n++] = gen_cast(g, a, &ty_float64);
        } else {
            cg_error(g, a->span, "printing %s is not supported yet", type_name(g->arena, a->ty));
        }
        size_t need = len + strlen(piece) + 3;
        if (need > cap) {
            while (cap < need) cap *= 2;
            char *grown = realloc(fmt, cap);
            if (!grown) ice("out of memory building a print format");
            fmt = grown;
        }
        if (i) fmt[len++] = ' ';
        memcpy(fmt + len, piece, strlen(piece));
        len += strlen(piece);
        free(owned);
    }
    if (!fmt) ice("out of memory building a print format");
    fmt[len++] = '\n';
    LLVMValueRef fmt_ptr = const_string(g, fmt, len);
    free(fmt);
    TARGET(g)->print(g, fmt_ptr, vals, n);
    return NULL;
}

static LLVMValueRef gen_abs(CodeGen *g, Node *call) {
    LLVMValueRef v = arg_cast(g, call, 0);
    const Type *in = call->casts[0];
    if (in->kind == TY_FLOAT) {
        LLVMTypeRef over[] = {LLVMTypeOf(v)};
        return cg_intrinsic(g, "llvm.fabs", over, 1, &v, 1);
    }
    if (in->kind == TY_INT && !in->is_signed) return v;
    if (in->kind == TY_INT) {
        LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, v, LLVMConstNull(LLVMTypeOf(v)), "");
        return LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, v, ""), v, "");
    }
    LLVMValueRef parts[] = {complex_parts(g, v, 0), complex_parts(g, v, 1)};
    return math_call(g, "hypot", call->ty, parts, 2);
}

/* complex(re[, im]): each part converted to the result's float type;
 * complex(z) widens z. */
static LLVMValueRef gen_complex(CodeGen *g, Node *call) {
    const Type *t = call->ty;
    if (call->item_len == 1 && call->items[0]->ty->kind == TY_COMPLEX) return gen_cast(g, call->items[0], t);
    Type *part = type_float(t->bits / 2);
    LLVMValueRef re = gen_cast(g, call->items[0], part);
    LLVMValueRef im = call->item_len > 1 ? gen_cast(g, call->items[1], part) : LLVMConstReal(float_type(g, part->bits), 0);
    return complex_make(g, llvm_type(g, t), re, im);
}

static LLVMValueRef gen_divmod(CodeGen *g, Node *call) {
    const Type *ct = call->casts[0];
    LLVMValueRef a = arg_cast(g, call, 0), b = arg_cast(g, call, 1);
    LLVMValueRef q = arith(g, call, OP_FLOORDIV, a, b, ct, call->casts[1], ct);
    LLVMValueRef r = arith(g, call, OP_MOD, a, b, ct, call->casts[1], ct);
    LLVMValueRef out = LLVMGetUndef(llvm_type(g, call->ty));
    out = LLVMBuildInsertValue(g->b, out, q, 0, "");
    return LLVMBuildInsertValue(g->b, out, r, 1, "");
}

/* libdevice's llrint of a float64 (numba-cuda's round(x)): ties to even,
 * saturating past the int64 range. */
static LLVMValueRef nearest_int(CodeGen *g, LLVMValueRef d) {
    return TARGET(g)->math_symbol(g, "llrint", i64(g), &d, 1);
}

/* round(x, n) as numba-cuda's round_to_impl (CPython's fallback
 * double_round), in float64: x itself where it or x * 10**n is not
 * finite; y = x * 10**n (n > 22: x * 10**(n-22) * 1e22) or x / 10**-n;
 * z = llrint(y), or 2 * llrint(y / 2) where y is halfway; then scaled back
 * the same way. z is an int, so -0.4 gives +0.0, and past 2**63 saturates. */
static LLVMValueRef round_ndigits(CodeGen *g, LLVMValueRef x, LLVMValueRef n, const Type *t) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef d = LLVMDoubleTypeInContext(g->ctx);
    LLVMValueRef xd = convert(g, x, t, &ty_float64), zero = LLVMConstInt(i64(g), 0, false);
    LLVMValueRef nonneg = LLVMBuildICmp(B, LLVMIntSGE, n, zero, "");
    LLVMValueRef wide = LLVMBuildICmp(B, LLVMIntSGT, n, LLVMConstInt(i64(g), 22, false), "");
    LLVMValueRef e = LLVMBuildSelect(B, wide, LLVMBuildSub(B, n, LLVMConstInt(i64(g), 22, false), ""), n, "");
    e = LLVMBuildSelect(B, nonneg, e, LLVMBuildNeg(B, n, ""), "");
    LLVMValueRef pow1 = power_int_exponent(g, LLVMConstReal(d, 10.0), e, &ty_float64, &ty_int64);
    LLVMValueRef pow2 = LLVMBuildSelect(B, wide, LLVMConstReal(d, 1e22), LLVMConstReal(d, 1.0), "");
    LLVMValueRef up = fp_op(g, LLVMBuildFMul(B, fp_op(g, LLVMBuildFMul(B, xd, pow1, "")), pow2, ""));
    LLVMValueRef y = LLVMBuildSelect(B, nonneg, up, fp_op(g, LLVMBuildFDiv(B, xd, pow1, "")), "");
    LLVMValueRef z = convert(g, nearest_int(g, y), &ty_int64, &ty_float64);
    LLVMValueRef off = fp_op(g, LLVMBuildFSub(B, y, z, ""));
    LLVMValueRef half = LLVMBuildFCmp(B, LLVMRealOEQ, cg_intrinsic(g, "llvm.fabs", &d, 1, &off, 1), LLVMConstReal(d, 0.5), "");
    LLVMValueRef halved = convert(g, nearest_int(g, fp_op(g, LLVMBuildFDiv(B, y, LLVMConstReal(d, 2.0), ""))), &ty_int64, &ty_float64);
    z = LLVMBuildSelect(B, half, fp_op(g, LLVMBuildFMul(B, LLVMConstReal(d, 2.0), halved, "")), z, "");
    LLVMValueRef down = fp_op(g, LLVMBuildFDiv(B, fp_op(g, LLVMBuildFDiv(B, z, pow2, "")), pow1, ""));
    LLVMValueRef r = convert(g, LLVMBuildSelect(B, nonneg, down, fp_op(g, LLVMBuildFMul(B, z, pow1, "")), ""), &ty_float64, t);
    LLVMValueRef inf = LLVMConstReal(d, 1.0 / 0.0);
    LLVMValueRef x_finite = LLVMBuildFCmp(B, LLVMRealOLT, cg_intrinsic(g, "llvm.fabs", &d, 1, &xd, 1), inf, "");
    LLVMValueRef up_inf = LLVMBuildFCmp(B, LLVMRealOEQ, cg_intrinsic(g, "llvm.fabs", &d, 1, &up, 1), inf, "");
    LLVMValueRef not_finite = LLVMBuildNot(B, x_finite, "");
    LLVMValueRef keep = LLVMBuildOr(B, not_finite, LLVMBuildAnd(B, nonneg, up_inf, ""), "");
    return LLVMBuildSelect(B, keep, x, r, "");
}

/* round(x): to the nearest int, ties to even. round(x, n): round_ndigits. */
static LLVMValueRef gen_round(CodeGen *g, Node *call) {
    if (call->item_len == 1) {
        const Type *in = call->items[0]->ty;
        LLVMValueRef v = gen_expr(g, call->items[0]);
        if (in->kind != TY_FLOAT) return convert(g, v, in, call->ty);
        LLVMTypeRef over[] = {LLVMTypeOf(v)};
        return convert(g, cg_intrinsic(g, "llvm.roundeven", over, 1, &v, 1), in, call->ty);
    }
    LLVMValueRef x = arg_cast(g, call, 0);
    LLVMValueRef n = convert(g, arg_cast(g, call, 1), call->casts[1], &ty_int64);
    return round_ndigits(g, x, n, call->casts[0]);
}

/* sum(t[, start]): acc = start, then acc = acc + x for each element x,
 * each addition in its case's types (sema's casts) and stored as acc's. */
static LLVMValueRef sum_step(CodeGen *g, Node *call, LLVMValueRef acc, LLVMValueRef x, const Type *xt, int i) {
    Type *const *c = &call->casts[2 + 3 * i];
    const Type *acc_t = call->casts[1];
    LLVMValueRef r = arith(g, call, OP_ADD, convert(g, acc, acc_t, c[0]), convert(g, x, xt, c[1]), c[0], c[1], c[2]);
    return convert(g, r, c[2], acc_t);
}

static LLVMValueRef gen_sum(CodeGen *g, Node *call) {
    const Type *t = call->items[0]->ty, *acc_t = call->casts[1];
    LLVMValueRef seq = gen_expr(g, call->items[0]);
    LLVMValueRef acc = call->item_len == 2 ? gen_cast(g, call->items[1], acc_t) : LLVMConstNull(llvm_type(g, acc_t));
    if (t->kind == TY_ARRAY) {
        LLVMValueRef slot = cg_entry_alloca(g, llvm_type(g, acc_t), "sum");
        LLVMBuildStore(g->b, acc, slot);
        ArrayLoop l;
        LLVMValueRef x = array_loop_begin(g, &l, t, seq, 0);
        LLVMBuildStore(g->b, sum_step(g, call, LLVMBuildLoad2(g->b, llvm_type(g, acc_t), slot, ""), x, t->dtype, 0), slot);
        array_loop_end(g, &l);
        return LLVMBuildLoad2(g->b, llvm_type(g, acc_t), slot, "");
    }
    for (int i = 0; i < t->elem_count; i++) acc = sum_step(g, call, acc, extract(g, seq, (unsigned)i, ""), t->elems[i], i);
    return acc;
}

/* x.conjugate() and i.bit_count() */
static LLVMValueRef gen_method(CodeGen *g, Node *call, BuiltinOp op) {
    LLVMValueRef v = gen_expr(g, call->func->lhs);
    if (op == BUILTIN_BIT_COUNT) {
        LLVMTypeRef over[] = {LLVMTypeOf(v)};
        return cg_intrinsic(g, "llvm.ctpop", over, 1, &v, 1);
    }
    if (call->ty->kind != TY_COMPLEX) return v;
    return complex_make(g, LLVMTypeOf(v), complex_parts(g, v, 0), LLVMBuildFNeg(g->b, complex_parts(g, v, 1), ""));
}

static LLVMValueRef range_len(CodeGen *g, LLVMValueRef r, const Type *t);
static LLVMValueRef iter_of(CodeGen *g, LLVMValueRef v, const Type *t);
static LLVMValueRef gen_next(CodeGen *g, Node *call);

static LLVMValueRef gen_builtin(CodeGen *g, Node *call, const Entity *e) {
    switch ((BuiltinOp)e->op) {
    case BUILTIN_MIN: case BUILTIN_MAX: return gen_minmax(g, call, e->op == BUILTIN_MAX);
    case BUILTIN_ITER: return iter_of(g, gen_expr(g, call->items[0]), call->items[0]->ty);
    case BUILTIN_NEXT: return gen_next(g, call);
    case BUILTIN_LEN: {
        const Type *at = call->items[0]->ty;
        if (at->kind == TY_TUPLE) return i64c(g, at->elem_count);
        if (at->kind == TY_RANGE) return range_len(g, gen_expr(g, call->items[0]), at);
        return array_dim(g, gen_expr(g, call->items[0]), 1, 0);
    }
    case BUILTIN_ABS: return gen_abs(g, call);
    case BUILTIN_INT: case BUILTIN_FLOAT: case BUILTIN_BOOL: return gen_cast(g, call->items[0], call->ty);
    case BUILTIN_COMPLEX: return gen_complex(g, call);
    case BUILTIN_DIVMOD: return gen_divmod(g, call);
    case BUILTIN_ROUND: return gen_round(g, call);
    case BUILTIN_PRINT: return gen_print(g, call);
    case BUILTIN_SUM: return gen_sum(g, call);
    case BUILTIN_LITERAL_UNROLL: return gen_expr(g, call->items[0]);
    case BUILTIN_CONJUGATE: case BUILTIN_BIT_COUNT: return gen_method(g, call, (BuiltinOp)e->op);
    case BUILTIN_POW: {
        LLVMValueRef a = arg_cast(g, call, 0), b = arg_cast(g, call, 1);
        return arith(g, call, OP_POW, a, b, call->casts[0], call->casts[1], call->ty);
    }
    }
    ice("builtin %s has no lowering", e->path);
}

/* isnan, isinf, isfinite: of an int, constants. */
static LLVMValueRef math_predicate(CodeGen *g, MathOp op, LLVMValueRef v, const Type *in) {
    if (in->kind == TY_INT) return LLVMConstInt(i1(g), op == MATH_ISFINITE, false);
    LLVMValueRef nan = LLVMBuildFCmp(g->b, LLVMRealUNO, v, v, "");
    if (op == MATH_ISNAN) return nan;
    LLVMTypeRef over[] = {LLVMTypeOf(v)};
    LLVMValueRef mag = cg_intrinsic(g, "llvm.fabs", over, 1, &v, 1);
    LLVMValueRef inf = LLVMBuildFCmp(g->b, LLVMRealOEQ, mag, LLVMConstReal(LLVMTypeOf(v), 1.0 / 0.0), "");
    return op == MATH_ISINF ? inf : LLVMBuildNot(g->b, LLVMBuildOr(g->b, nan, inf, ""), "");
}

/* frexp and modf: the library returns one part and stores the other
 * through a pointer; Python's modf gives (fraction, integer part), as
 * libdevice does. */
static LLVMValueRef math_two_parts(CodeGen *g, Node *call, const char *name, const Type *in, LLVMValueRef x) {
    LLVMTypeRef other = !strcmp(name, "frexp") ? i32(g) : LLVMTypeOf(x);
    LLVMValueRef slot = cg_entry_alloca(g, other, name);
    LLVMValueRef args[] = {x, slot};
    LLVMValueRef first = math_call(g, name, in, args, 2);
    LLVMValueRef t = LLVMGetUndef(llvm_type(g, call->ty));
    t = LLVMBuildInsertValue(g->b, t, first, 0, "");
    return LLVMBuildInsertValue(g->b, t, LLVMBuildLoad2(g->b, other, slot, ""), 1, "");
}

/* A float16 function as cuda_fp16.hpp computes it: the target's own form,
 * or the float32 function rounded to half. */
static LLVMValueRef half_math(CodeGen *g, const char *name, LLVMValueRef x) {
    LLVMValueRef r = TARGET(g)->half_math(g, name, x);
    if (r) return r;
    LLVMValueRef f = convert(g, x, &ty_float16, &ty_float32);
    return convert(g, math_call(g, name, &ty_float32, &f, 1), &ty_float32, &ty_float16);
}

static LLVMValueRef gen_math(CodeGen *g, Node *call, const Entity *e) {
    LLVMValueRef args[3];
    for (int i = 0; i < call->item_len; i++) args[i] = arg_cast(g, call, i);
    const Type *in = call->casts[0];
    MathOp op = (MathOp)e->op;
    if (op >= MATH_ISNAN) return math_predicate(g, op, args[0], in);
    if (in->kind == TY_INT) {
        /* an int argument: the float64 function of float64(n), as the
         * (float64, int64) case of Numba's math templates computes it */
        for (int i = 0; i < call->item_len; i++)
            if (call->casts[i]->kind == TY_INT) args[i] = convert(g, args[i], call->casts[i], &ty_float64);
        in = &ty_float64;
    }
    if (in == &ty_float16) /* numba-cuda's float16 overloads: cuda_fp16.hpp's hsin ... */
        return convert(g, half_math(g, e->lower_name, args[0]), &ty_float16, call->ty);
    switch (op) {
    case MATH_DEGREES: case MATH_RADIANS: {
        double k = op == MATH_DEGREES ? 57.29577951308232 : 0.017453292519943295;
        return fp_op(g, LLVMBuildFMul(g->b, args[0], LLVMConstReal(LLVMTypeOf(args[0]), k), ""));
    }
    case MATH_FREXP: case MATH_MODF: return math_two_parts(g, call, e->lower_name, in, args[0]);
    case MATH_POW: /* pow(float, int32): libdevice's powi, as numba-cuda's mathimpl lowers it */
        if (call->casts[1]->kind == TY_INT) return math_call(g, "powi", in, args, 2);
        return convert(g, math_call(g, "pow", in, args, 2), in, call->ty);
    default: return convert(g, math_call(g, e->lower_name, in, args, call->item_len), in, call->ty);
    }
}

/* ---- NumPy ufuncs, as numba-cuda's target computes each loop (ufuncs.py) ---- */

/* maximum and minimum return a NaN operand (the first, when both are);
 * fmax and fmin the other operand; on ints the greater (less) one, the
 * first on ties; on bools or and and. */
static LLVMValueRef ufunc_extreme(CodeGen *g, UfuncKind kind, LLVMValueRef a, LLVMValueRef b, const Type *t) {
    bool is_max = kind == UF_MAXIMUM || kind == UF_FMAX;
    if (t->kind == TY_BOOL) return is_max ? LLVMBuildOr(g->b, a, b, "") : LLVMBuildAnd(g->b, a, b, "");
    if (t->kind == TY_INT) return LLVMBuildSelect(g->b, compare(g, is_max ? OP_GE : OP_LE, a, b, t), a, b, "");
    LLVMValueRef keeps_a = LLVMBuildFCmp(g->b, is_max ? LLVMRealOGE : LLVMRealOLE, a, b, "");
    LLVMValueRef ordered = LLVMBuildSelect(g->b, keeps_a, a, b, "");
    bool nan_wins = kind == UF_MAXIMUM || kind == UF_MINIMUM;
    LLVMValueRef probe = nan_wins ? a : b;
    LLVMValueRef probe_nan = LLVMBuildFCmp(g->b, LLVMRealUNO, probe, probe, "");
    LLVMValueRef with_nan = LLVMBuildSelect(g->b, probe_nan, a, b, "");
    return LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, LLVMRealUNO, a, b, ""), with_nan, ordered, "");
}

/* The loops qQ->? and Qq->? compare an int64 with a uint64 by value: a
 * negative int64 is less than every uint64. */
static LLVMValueRef compare_mixed_sign(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *ta) {
    LLVMValueRef signed_neg = LLVMBuildICmp(g->b, LLVMIntSLT, ta->is_signed ? a : b, i64c(g, 0), "");
    LLVMValueRef by_bits = compare(g, op, a, b, &ty_uint64);
    /* with a negative signed operand, a < b when a is that operand */
    bool neg_first_true = op == OP_LT || op == OP_LE || op == OP_NE;
    bool neg_second_true = op == OP_GT || op == OP_GE || op == OP_NE;
    LLVMValueRef when_neg = LLVMConstInt(i1(g), ta->is_signed ? neg_first_true : neg_second_true, false);
    return LLVMBuildSelect(g->b, signed_neg, when_neg, by_bits, "");
}

static LLVMValueRef ufunc_compare(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *ta, const Type *tb) {
    if (ta->kind == TY_INT && tb->kind == TY_INT && ta->is_signed != tb->is_signed)
        return compare_mixed_sign(g, op, a, b, ta);
    return compare(g, op, a, b, ta);
}

static LLVMValueRef ufunc_isnan(CodeGen *g, LLVMValueRef v, const Type *t) {
    if (t->kind == TY_FLOAT) return LLVMBuildFCmp(g->b, LLVMRealUNO, v, v, "");
    if (t->kind != TY_COMPLEX) return LLVMConstInt(i1(g), 0, false);
    LLVMValueRef re = complex_parts(g, v, 0), im = complex_parts(g, v, 1);
    return LLVMBuildOr(g->b, LLVMBuildFCmp(g->b, LLVMRealUNO, re, re, ""), LLVMBuildFCmp(g->b, LLVMRealUNO, im, im, ""), "");
}

static LLVMValueRef ufunc_logical(CodeGen *g, Op op, LLVMValueRef a, LLVMValueRef b, const Type *t) {
    a = to_bool(g, a, t);
    b = to_bool(g, b, t);
    if (op == OP_AND) return LLVMBuildAnd(g->b, a, b, "");
    return op == OP_OR ? LLVMBuildOr(g->b, a, b, "") : LLVMBuildXor(g->b, a, b, "");
}

static LLVMValueRef gen_ufunc(CodeGen *g, Node *call, const Entity *e) {
    const Ufunc *u = ufunc_of(e);
    const Type *t = call->casts[0], *tb = u->nin > 1 ? call->casts[1] : NULL;
    LLVMValueRef a = arg_cast(g, call, 0), b = u->nin > 1 ? arg_cast(g, call, 1) : NULL;
    LLVMValueRef args[] = {a, b};
    switch (u->kind) {
    case UF_MATH: return math_call(g, u->math, t, args, u->nin);
    case UF_DEGREES: case UF_RADIANS: {
        double k = u->kind == UF_DEGREES ? 57.29577951308232 : 0.017453292519943295;
        return fp_op(g, LLVMBuildFMul(g->b, a, LLVMConstReal(LLVMTypeOf(a), k), ""));
    }
    case UF_COMPARE: return ufunc_compare(g, u->op, a, b, t, tb);
    case UF_LOGICAL: return ufunc_logical(g, u->op, a, b, t);
    case UF_LOGICAL_NOT: return LLVMBuildNot(g->b, to_bool(g, a, t), "");
    case UF_MAXIMUM: case UF_MINIMUM: case UF_FMAX: case UF_FMIN: return ufunc_extreme(g, u->kind, a, b, t);
    case UF_BITWISE: return arith(g, call, u->op, a, b, t, tb, t);
    case UF_INVERT: return LLVMBuildNot(g->b, a, "");
    case UF_SHIFT: return shift(g, u->op, a, b, t);
    case UF_ISNAN: return ufunc_isnan(g, a, t);
    case UF_CONJUGATE:
        if (t->kind != TY_COMPLEX) return a;
        return complex_make(g, LLVMTypeOf(a), complex_parts(g, a, 0), LLVMBuildFNeg(g->b, complex_parts(g, a, 1), ""));
    case UF_DIVIDE: return fp_op(g, float_div(g, g->b, a, b, ""));
    }
    ice("ufunc %s has no lowering", u->name);
}

static LLVMValueRef gen_bitop(CodeGen *g, Node *call, const Entity *e) {
    LLVMValueRef v = arg_cast(g, call, 0);
    const Type *in = call->casts[0];
    LLVMTypeRef over[] = {LLVMTypeOf(v)};
    LLVMValueRef args[] = {v, LLVMConstInt(i1(g), 0, false)};
    switch ((BitOp)e->op) {
    case BIT_POPC: return cg_intrinsic(g, "llvm.ctpop", over, 1, &v, 1);
    case BIT_BREV: return cg_intrinsic(g, "llvm.bitreverse", over, 1, &v, 1);
    case BIT_CLZ: return cg_intrinsic(g, "llvm.ctlz", over, 1, args, 2);
    case BIT_FFS: break;
    }
    /* ffs: 1 + the index of the lowest set bit, 0 for 0 (cuda's __ffs) */
    LLVMValueRef tz = cg_intrinsic(g, "llvm.cttz", over, 1, args, 2);
    LLVMValueRef one = LLVMBuildAdd(g->b, tz, LLVMConstInt(LLVMTypeOf(v), 1, false), "");
    LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
    LLVMValueRef r = LLVMBuildSelect(g->b, zero, LLVMConstNull(LLVMTypeOf(v)), one, "");
    return convert(g, r, in->bits > 32 ? in : type_int(in->bits, false), &ty_uint32);
}

/* The warp functions: the mask first, as uint32 for the votes, and the
 * value shuffled or matched in its own type. */
static LLVMValueRef gen_warp(CodeGen *g, Node *call, const Entity *e) {
    WarpOp op = (WarpOp)e->op;
    LLVMValueRef args[3];
    bool vote = op == WARP_ALL || op == WARP_ANY || op == WARP_EQ || op == WARP_BALLOT;
    if (vote) {
        args[0] = gen_cast(g, call->items[0], &ty_uint32);
        args[1] = gen_cast(g, call->items[1], &ty_bool);
    } else {
        for (int i = 0; i < call->item_len && i < 3; i++) args[i] = arg_cast(g, call, i);
    }
    const Type *t = op == WARP_MATCH_ANY || op == WARP_MATCH_ALL ? call->casts[1] : call->ty;
    return TARGET(g)->warp(g, op, args, t);
}

/* cuda.fp16: half arithmetic in LLVM's half type (sm_53+ runs it
 * natively); transcendental functions as cuda_fp16.hpp computes them. */
static LLVMValueRef gen_fp16(CodeGen *g, Node *call, const Entity *e) {
    static const Op ops[] = {[FP16_ADD] = OP_ADD, [FP16_SUB] = OP_SUB, [FP16_MUL] = OP_MUL, [FP16_DIV] = OP_DIV,
                             [FP16_EQ] = OP_EQ,   [FP16_NE] = OP_NE,   [FP16_GT] = OP_GT,   [FP16_GE] = OP_GE,
                             [FP16_LT] = OP_LT,   [FP16_LE] = OP_LE};
    Fp16Op op = (Fp16Op)e->op;
    LLVMValueRef a[3];
    for (int i = 0; i < call->item_len && i < 3; i++) a[i] = arg_cast(g, call, i);
    LLVMTypeRef over[] = {LLVMHalfTypeInContext(g->ctx)};
    switch (op) {
    case FP16_NE: /* __hne is setp.ne.f16: false where either is NaN, unlike != */
        return LLVMBuildFCmp(g->b, LLVMRealONE, a[0], a[1], "");
    case FP16_EQ: case FP16_GT: case FP16_GE: case FP16_LT: case FP16_LE:
        return compare(g, ops[op], a[0], a[1], &ty_float16);
    case FP16_ADD: case FP16_SUB: case FP16_MUL: case FP16_DIV:
        return arith(g, call, ops[op], a[0], a[1], &ty_float16, &ty_float16, &ty_float16);
    case FP16_NEG: return LLVMBuildFNeg(g->b, a[0], "");
    case FP16_ABS: return cg_intrinsic(g, "llvm.fabs", over, 1, a, 1);
    case FP16_FMA: return cg_intrinsic(g, "llvm.fma", over, 1, a, 3);
    case FP16_MAX: return cg_intrinsic(g, "llvm.maxnum", over, 1, a, 2);
    case FP16_MIN: return cg_intrinsic(g, "llvm.minnum", over, 1, a, 2);
    case FP16_RCP: return half_math(g, "rcp", a[0]);
    case FP16_VIA_FLOAT32: break;
    }
    return half_math(g, e->lower_name, a[0]);
}

/* A comparison of cuda.bf16: ordered (false where either is NaN) or
 * unordered (true there). */
static LLVMValueRef bf16_compare(CodeGen *g, Bf16Op op, LLVMValueRef a, LLVMValueRef b) {
    static const LLVMRealPredicate preds[] = {
        [BF16_EQ] = LLVMRealOEQ,  [BF16_NE] = LLVMRealONE,  [BF16_LT] = LLVMRealOLT,  [BF16_LE] = LLVMRealOLE,
        [BF16_GT] = LLVMRealOGT,  [BF16_GE] = LLVMRealOGE,  [BF16_EQU] = LLVMRealUEQ, [BF16_NEU] = LLVMRealUNE,
        [BF16_LTU] = LLVMRealULT, [BF16_LEU] = LLVMRealULE, [BF16_GTU] = LLVMRealUGT, [BF16_GEU] = LLVMRealUGE,
    };
    return LLVMBuildFCmp(g->b, preds[op], a, b, "");
}

/* cuda.bf16: each function as its cuda_bf16.hpp instruction computes it
 * on sm_80 and newer (fma.rn.bf16, abs.bf16, max.bf16, max.NaN.bf16 ...). */
static LLVMValueRef gen_bf16(CodeGen *g, Node *call, const Entity *e) {
    static const Op ops[] = {[BF16_ADD] = OP_ADD, [BF16_SUB] = OP_SUB, [BF16_MUL] = OP_MUL, [BF16_DIV] = OP_DIV};
    static const char *const intrinsics[] = {[BF16_FMA] = "llvm.fma", [BF16_ABS] = "llvm.fabs",
                                             [BF16_MAX] = "llvm.maxnum", [BF16_MIN] = "llvm.minnum",
                                             [BF16_MAX_NAN] = "llvm.maximum", [BF16_MIN_NAN] = "llvm.minimum"};
    Bf16Op op = (Bf16Op)e->op;
    LLVMValueRef a[3];
    for (int i = 0; i < call->item_len && i < 3; i++) a[i] = arg_cast(g, call, i);
    LLVMTypeRef bf = bf16_type(g);
    need_bfloat16(g, call);
    switch (op) {
    case BF16_ADD: case BF16_SUB: case BF16_MUL: case BF16_DIV: return bf16_arith(g, call, ops[op], a[0], a[1]);
    case BF16_FMA: case BF16_ABS: case BF16_MAX: case BF16_MIN: case BF16_MAX_NAN: case BF16_MIN_NAN:
        return cg_intrinsic(g, intrinsics[op], &bf, 1, a, call->item_len);
    case BF16_NEG: return LLVMBuildFNeg(g->b, a[0], "");
    case BF16_ISNAN: return LLVMBuildFCmp(g->b, LLVMRealUNO, a[0], a[0], "");
    case BF16_CONVERT: return convert(g, a[0], call->casts[0], call->ty);
    case BF16_BITS: return LLVMBuildBitCast(g->b, a[0], llvm_type(g, call->ty), "");
    default: return bf16_compare(g, op, a[0], a[1]);
    }
}

/* A vector from scalars and smaller vectors, their members in order. */
static LLVMValueRef gen_vector(CodeGen *g, Node *call) {
    LLVMValueRef v = LLVMGetUndef(llvm_type(g, call->ty));
    unsigned member = 0;
    for (int i = 0; i < call->item_len; i++) {
        LLVMValueRef a = arg_cast(g, call, i);
        if (call->casts[i]->kind != TY_VECTOR) {
            v = LLVMBuildInsertValue(g->b, v, a, member++, "");
            continue;
        }
        for (int k = 0; k < call->casts[i]->elem_count; k++)
            v = LLVMBuildInsertValue(g->b, v, extract(g, a, (unsigned)k, ""), member++, "");
    }
    return v;
}

/* libdevice.<f>(...): a call of __nv_<f>; what it gives through pointers
 * (capitals of the signature) comes back after its own result, as a tuple. */
static LLVMValueRef gen_libdevice(CodeGen *g, Node *call, const Entity *e) {
    const char *sig = e->lower_name, *name = strrchr(e->path, '.') + 1;
    const Type *t = call->ty;
    bool has_ret = sig[0] != 'v', tuple = t->kind == TY_TUPLE;
    LLVMValueRef args[8], slots[4];
    LLVMTypeRef slot_types[4];
    int n = 0, nslots = 0, next_arg = 0;
    for (const char *p = sig + 2; *p && n < 8; p++) {
        if (!isupper((unsigned char)*p)) {
            args[n++] = arg_cast(g, call, next_arg++);
            continue;
        }
        const Type *out = tuple ? t->elems[(has_ret ? 1 : 0) + nslots] : t;
        slot_types[nslots] = llvm_type(g, out);
        slots[nslots] = cg_entry_alloca(g, slot_types[nslots], "");
        args[n++] = slots[nslots++];
    }
    LLVMTypeRef ret = has_ret ? llvm_type(g, tuple ? t->elems[0] : t) : LLVMVoidTypeInContext(g->ctx);
    LLVMValueRef r = TARGET(g)->math_symbol(g, name, ret, args, n);
    if (nslots == 0) return has_ret ? r : NULL;
    if (!tuple) return LLVMBuildLoad2(g->b, slot_types[0], slots[0], "");
    LLVMValueRef out = LLVMGetUndef(llvm_type(g, t));
    unsigned k = 0;
    if (has_ret) out = LLVMBuildInsertValue(g->b, out, r, k++, "");
    for (int i = 0; i < nslots; i++)
        out = LLVMBuildInsertValue(g->b, out, LLVMBuildLoad2(g->b, slot_types[i], slots[i], ""), k++, "");
    return out;
}

/* A call of device function f; of a closure, what it captures first. A
 * None argument is a byte no one reads. */
static LLVMValueRef gen_device_call(CodeGen *g, Node *call, FuncInfo *f) {
    const Type *clo = call->func->ty->kind == TY_CLOSURE ? call->func->ty : NULL;
    int ncap = clo ? clo->elem_count : 0, n = ncap + call->item_len;
    LLVMValueRef *args = CG_ARRAY(g, LLVMValueRef, n);
    LLVMValueRef held = clo ? gen_expr(g, call->func) : NULL;
    for (int i = 0; i < ncap; i++) args[i] = extract(g, held, (unsigned)i, "");
    for (int i = 0; i < call->item_len; i++) {
        LLVMValueRef v = arg_cast(g, call, i);
        args[ncap + i] = v ? v : LLVMGetUndef(i8(g));
    }
    return call_function(g, f, args, n);
}

/* ---- external functions (cuda.declare_device) ---------------------------------------- */

static void end_thread(CodeGen *g);

/* How numba-cuda's data model holds a scalar in memory and passes it: a
 * bool as a byte, float16 and bfloat16 as 16-bit integers. */
static LLVMTypeRef extern_scalar_type(CodeGen *g, const Type *t) {
    if (t->kind == TY_BOOL) return i8(g);
    if (t->kind == TY_BFLOAT16 || (t->kind == TY_FLOAT && t->bits == 16)) return LLVMInt16TypeInContext(g->ctx);
    if (t->kind == TY_NONE) return cg_generic_pointer(g);
    return llvm_type(g, t);
}

static LLVMValueRef to_extern_scalar(CodeGen *g, LLVMValueRef v, const Type *t) {
    if (t->kind == TY_BOOL) return LLVMBuildZExt(g->b, v, i8(g), "");
    if (LLVMTypeOf(v) == extern_scalar_type(g, t)) return v;
    return LLVMBuildBitCast(g->b, v, extern_scalar_type(g, t), "");
}

static LLVMValueRef from_extern_scalar(CodeGen *g, LLVMValueRef v, const Type *t) {
    if (t->kind == TY_BOOL) return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(i8(g)), "");
    if (LLVMTypeOf(v) == llvm_type(g, t)) return v;
    return LLVMBuildBitCast(g->b, v, llvm_type(g, t), "");
}

/* The parameters a value of t is passed as, flattened as numba-cuda's
 * ArgPacker flattens it: a complex number as its parts, a tuple as its
 * members', an array as numba's array struct (meminfo, parent, nitems,
 * itemsize, data, shape..., strides...). Appends to out (when not NULL)
 * and returns how many. */
static int extern_params(CodeGen *g, const Type *t, LLVMTypeRef *out) {
    int n = 0;
    if (t->kind == TY_ARRAY) {
        LLVMTypeRef p = cg_generic_pointer(g);
        LLVMTypeRef head[] = {p, p, i64(g), i64(g), p};
        for (int i = 0; i < 5 + 2 * t->ndim; i++)
            if (out) out[i] = i < 5 ? head[i] : i64(g);
        return 5 + 2 * t->ndim;
    }
    if (t->kind == TY_COMPLEX || t->kind == TY_TUPLE) {
        for (int i = 0; i < (t->kind == TY_COMPLEX ? 2 : t->elem_count); i++)
            n += extern_params(g, t->kind == TY_COMPLEX ? type_float(t->bits / 2) : t->elems[i], out ? out + n : NULL);
        return n;
    }
    if (out) out[0] = extern_scalar_type(g, t);
    return 1;
}

/* The product of an array's extents: numba's nitems. */
static LLVMValueRef array_nitems(CodeGen *g, const Type *t, LLVMValueRef arr) {
    LLVMValueRef n = i64c(g, 1);
    for (int d = 0; d < t->ndim; d++) n = LLVMBuildMul(g->b, n, array_dim(g, arr, 1, d), "");
    return n;
}

/* v, of type t, as the parameters extern_params gives, into out. */
static int extern_args(CodeGen *g, const Type *t, LLVMValueRef v, LLVMValueRef *out) {
    if (t->kind == TY_ARRAY) {
        LLVMValueRef null = LLVMConstNull(cg_generic_pointer(g));
        LLVMValueRef head[] = {null, null, array_nitems(g, t, v), i64c(g, type_size(t->dtype)), extract(g, v, 0, "")};
        memcpy(out, head, sizeof head);
        for (int d = 0; d < t->ndim; d++) {
            out[5 + d] = array_dim(g, v, 1, d);
            out[5 + t->ndim + d] = array_dim(g, v, 2, d);
        }
        return 5 + 2 * t->ndim;
    }
    if (t->kind == TY_COMPLEX || t->kind == TY_TUPLE) {
        int n = 0;
        for (int i = 0; i < (t->kind == TY_COMPLEX ? 2 : t->elem_count); i++)
            n += extern_args(g, t->kind == TY_COMPLEX ? type_float(t->bits / 2) : t->elems[i], extract(g, v, (unsigned)i, ""),
                             out + n);
        return n;
    }
    out[0] = to_extern_scalar(g, v, t);
    return 1;
}

/* The result's type as the data model holds it: a complex number as the
 * struct of its parts, None as a pointer. */
static LLVMTypeRef extern_result_type(CodeGen *g, const Type *t) {
    return t->kind == TY_COMPLEX ? llvm_type(g, t) : extern_scalar_type(g, t);
}

static LLVMValueRef extern_result(CodeGen *g, LLVMValueRef v, const Type *t) {
    if (t->kind == TY_NONE) return NULL;
    return t->kind == TY_COMPLEX ? v : from_extern_scalar(g, v, t);
}

/* The function's declaration: numba's ABI returns a status and writes the
 * result through a pointer, its first parameter; the C ABI returns the
 * result. */
static LLVMValueRef declare_extern(CodeGen *g, ExternFunc *ext) {
    bool numba = ext->abi == EXTERN_ABI_NUMBA;
    int n = numba;
    for (int i = 0; i < ext->param_count; i++) n += extern_params(g, ext->params[i], NULL);
    LLVMTypeRef *params = CG_ARRAY(g, LLVMTypeRef, n ? n : 1);
    n = 0;
    if (numba) params[n++] = cg_generic_pointer(g);
    for (int i = 0; i < ext->param_count; i++) n += extern_params(g, ext->params[i], params + n);
    LLVMTypeRef ret = numba ? i32(g) : extern_result_type(g, ext->ret);
    return LLVMAddFunction(g->mod, ext->name, LLVMFunctionType(ret, params, (unsigned)n, false));
}

/* After a call with numba's ABI: a status other than ok (0) or none (-2)
 * is an exception the callee raised, which ends the thread, as numba-cuda
 * passes it up to the kernel, which returns. */
static void extern_status(CodeGen *g, LLVMValueRef status) {
    LLVMValueRef ok0 = LLVMBuildICmp(g->b, LLVMIntEQ, status, cg_i32(g, 0), "");
    LLVMValueRef none = LLVMBuildICmp(g->b, LLVMIntEQ, status, cg_i32(g, -2), "");
    LLVMValueRef ok = LLVMBuildOr(g->b, ok0, none, "");
    LLVMBasicBlockRef raised = cg_new_block(g, "extern.raised"), next = cg_new_block(g, "extern.ok");
    LLVMBuildCondBr(g->b, ok, next, raised);
    LLVMPositionBuilderAtEnd(g->b, raised);
    end_thread(g);
    LLVMPositionBuilderAtEnd(g->b, next);
}

static LLVMValueRef gen_extern_call(CodeGen *g, Node *call, ExternFunc *ext) {
    LLVMValueRef fn = ext->cg;
    LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
    LLVMValueRef *args = CG_ARRAY(g, LLVMValueRef, LLVMCountParamTypes(fty) + 1);
    bool numba = ext->abi == EXTERN_ABI_NUMBA;
    LLVMTypeRef rt = extern_result_type(g, ext->ret);
    LLVMValueRef slot = numba ? cg_entry_alloca(g, rt, "extern.ret") : NULL;
    int n = numba;
    if (numba) {
        LLVMBuildStore(g->b, LLVMConstNull(rt), slot);
        args[0] = slot;
    }
    for (int i = 0; i < call->item_len; i++) n += extern_args(g, call->casts[i], arg_cast(g, call, i), args + n);
    LLVMValueRef r = LLVMBuildCall2(g->b, fty, fn, args, (unsigned)n, "");
    if (!numba) return extern_result(g, r, ext->ret);
    extern_status(g, r);
    return extern_result(g, LLVMBuildLoad2(g->b, rt, slot, ""), ext->ret);
}

/* ---- launches from kernels (dynamic parallelism) ------------------------------------- */

static bool fastmath_of(const Unit *u, const FuncInfo *f);

/* A launch's grid or block: an int (x), or a tuple of one to three; the
 * axes not given are 1. */
static void launch_dim3(CodeGen *g, Node *v, LLVMValueRef out[3]) {
    LLVMValueRef x = gen_expr(g, v);
    for (int i = 0; i < 3; i++) out[i] = cg_i32(g, 1);
    if (v->ty->kind != TY_TUPLE) {
        out[0] = convert(g, x, v->ty, &ty_uint32);
        return;
    }
    for (int i = 0; i < v->ty->elem_count; i++) out[i] = convert(g, extract(g, x, (unsigned)i, ""), v->ty->elems[i], &ty_uint32);
}

/* v, a kernel parameter of type t, as its parts, the values the entry
 * takes (abi_unpack's inverse), into out from *n on. */
static void abi_pack(CodeGen *g, const Type *t, LLVMValueRef v, LLVMValueRef *out, int *n) {
    if (t->kind == TY_ARRAY) {
        out[(*n)++] = extract(g, v, 0, "");
        for (int i = 0; i < t->ndim; i++) out[(*n)++] = array_dim(g, v, 1, i);
        for (int i = 0; i < t->ndim; i++) out[(*n)++] = array_dim(g, v, 2, i);
    } else if (t->kind == TY_COMPLEX || t->kind == TY_TUPLE) {
        for (int i = 0; i < (t->kind == TY_COMPLEX ? 2 : t->elem_count); i++)
            abi_pack(g, t->kind == TY_COMPLEX ? type_float(t->bits / 2) : t->elems[i], extract(g, v, (unsigned)i, ""), out, n);
    } else {
        out[(*n)++] = t->kind == TY_BOOL ? LLVMBuildZExt(g->b, v, i8(g), "") : v;
    }
}

/* kernel[grid, block, 0, shared](args): the arguments converted to the
 * kernel's parameters and passed in their parts, as a host's launch
 * passes them. */
static LLVMValueRef gen_launch(CodeGen *g, Node *call, FuncInfo *k) {
    if (!TARGET(g)->device_launch || k->cooperative) {
        cg_error(g, call->span, k->cooperative ? "kernel '%s' synchronizes its grid, which needs a cooperative launch, "
                 "and a kernel launches grids of the ordinary kind only" : "%s cannot launch kernels from kernels",
                 k->cooperative ? k->def->name : arena_printf(g->arena, "the %s target", TARGET(g)->name));
        return NULL;
    }
    Node *cfg = call->func->rhs;
    Node **items = cfg->kind == ND_TUPLE ? cfg->items : &cfg;
    LLVMValueRef grid[3], block[3];
    launch_dim3(g, items[0], grid);
    launch_dim3(g, items[1], block);
    LLVMValueRef shared = cfg->item_len == 4 ? convert(g, gen_expr(g, items[3]), items[3]->ty, &ty_uint32) : cg_i32(g, 0);
    int n = 0;
    for (int i = 0; i < k->param_count; i++) n += abi_part_count(k->params[i]->ty);
    LLVMValueRef *parts = CG_ARRAY(g, LLVMValueRef, n ? n : 1);
    n = 0;
    for (int i = 0; i < call->item_len; i++) abi_pack(g, call->casts[i], arg_cast(g, call, i), parts, &n);
    TARGET(g)->device_launch(g, k->cg[fastmath_of(g->unit, k)], grid, block, shared, parts, n);
    return NULL;
}

static LLVMValueRef gen_fma(CodeGen *g, Node *n) {
    LLVMValueRef args[] = {arg_cast(g, n, 0), arg_cast(g, n, 1), arg_cast(g, n, 2)};
    LLVMTypeRef over[] = {LLVMTypeOf(args[0])};
    return cg_intrinsic(g, "llvm.fma", over, 1, args, 3);
}

static LLVMValueRef gen_selp(CodeGen *g, Node *n) {
    LLVMValueRef c = to_bool(g, gen_expr(g, n->items[0]), n->items[0]->ty);
    return LLVMBuildSelect(g->b, c, gen_expr(g, n->items[1]), gen_expr(g, n->items[2]), "");
}

/* cuda.cg.this_grid() and its sync(), which gives cudaCGSynchronize's
 * cudaSuccess. */
static LLVMValueRef gen_grid_group(CodeGen *g, Node *n, GridOp op) {
    if (op == GRID_THIS) return TARGET(g)->grid_group(g);
    TARGET(g)->grid_sync(g, gen_expr(g, n->func->lhs));
    return const_int(g, i32(g), 0);
}

static LLVMValueRef gen_cache_store(CodeGen *g, Node *n, CacheOp op) {
    LLVMValueRef p = call_element_ptr(g, n);
    TARGET(g)->cache_store(g, op, p, arg_cast(g, n, 2), n->casts[2]);
    return NULL;
}

static LLVMValueRef gen_barrier(CodeGen *g, Node *n, BarrierOp op) {
    barrier(g, op, n->item_len ? arg_cast(g, n, 0) : NULL);
    return NULL;
}

/* ---- iterators ----------------------------------------------------------------------- */

/* A range's values: Numba's RangeType, its start, stop and step. */
static LLVMTypeRef range_struct(CodeGen *g, const Type *t) {
    LLVMTypeRef v = llvm_type(g, t->dtype);
    LLVMTypeRef fields[] = {v, v, v};
    return LLVMStructTypeInContext(g->ctx, fields, 3, false);
}

/* Numba's iterators as values. Each holds the address of its state, made
 * once in the function's entry as Numba's alloca_once makes it, so that
 * copies of an iterator share its position, as in Python:
 *   range      {ptr next value, ptr values left, step}
 *   array      {ptr index, the array}
 *   tuple      {ptr index, ptr a copy of the tuple}, as literal_unroll's
 *   enumerate  {ptr count, the iterator counted}
 *   zip        {the iterators zipped} */
static LLVMTypeRef iter_struct(CodeGen *g, const Type *t) {
    LLVMTypeRef p = cg_generic_pointer(g);
    LLVMTypeRef *fields = CG_ARRAY(g, LLVMTypeRef, t->elem_count + 3);
    int n = 0;
    switch (t->iter) {
    case ITER_RANGE: fields[n++] = p, fields[n++] = p, fields[n++] = llvm_type(g, t->dtype); break;
    case ITER_ARRAY: fields[n++] = p, fields[n++] = llvm_type(g, t->elems[0]); break;
    case ITER_TUPLE: case ITER_UNROLL: fields[n++] = p, fields[n++] = p; break;
    case ITER_ENUMERATE: fields[n++] = p, fields[n++] = llvm_type(g, t->elems[0]); break;
    case ITER_ZIP:
        for (int i = 0; i < t->elem_count; i++) fields[n++] = llvm_type(g, t->elems[i]);
        break;
    }
    return LLVMStructTypeInContext(g->ctx, fields, (unsigned)n, false);
}

static LLVMValueRef make_struct(CodeGen *g, LLVMTypeRef t, LLVMValueRef *fields, int n) {
    LLVMValueRef v = LLVMGetUndef(t);
    for (int i = 0; i < n; i++) v = LLVMBuildInsertValue(g->b, v, fields[i], (unsigned)i, "");
    return v;
}

/* An iterator's state, made where the function begins and set here. */
static LLVMValueRef iter_slot(CodeGen *g, LLVMValueRef init, const char *name) {
    LLVMValueRef p = cg_entry_alloca(g, LLVMTypeOf(init), name);
    LLVMBuildStore(g->b, init, p);
    return p;
}

/* How many values range(start, stop, step) has, as Numba's RangeIter
 * counts them before the loop: none where stop is not past start in the
 * step's direction, else (|stop - start| - 1) / |step| + 1, one unsigned
 * division (none for a step of 1). A step of 0 raises ValueError (the
 * function returns, as numba-cuda's does without debug=True). Counting
 * first keeps Python's meaning where stop is near the type's limit, and
 * tells LLVM the trip count. */
static LLVMValueRef range_count(CodeGen *g, const Type *t, LLVMValueRef start, LLVMValueRef stop, LLVMValueRef step) {
    LLVMBuilderRef B = g->b;
    LLVMTypeRef ty = LLVMTypeOf(step);
    LLVMValueRef zero = LLVMConstNull(ty), one = LLVMConstInt(ty, 1, false);
    bool known = LLVMIsAConstantInt(step), sgn = t->is_signed;
    long long k = known ? (sgn ? LLVMConstIntGetSExtValue(step) : (long long)LLVMConstIntGetZExtValue(step)) : 0;
    if (!known || k == 0) {
        LLVMBasicBlockRef bad = cg_new_block(g, "range.zero_step"), ok = cg_new_block(g, "range.count");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, step, zero, ""), bad, ok);
        LLVMPositionBuilderAtEnd(B, bad);
        gen_raise(g, NULL);
        LLVMPositionBuilderAtEnd(B, ok);
    }
    LLVMValueRef diff = LLVMBuildSub(B, stop, start, "range.diff"), ahead, span = diff, stride = step;
    if (!sgn) {
        ahead = LLVMBuildICmp(B, LLVMIntUGT, stop, start, "");
    } else if (known) { /* its direction known: stop past start in it */
        ahead = LLVMBuildICmp(B, k > 0 ? LLVMIntSGT : LLVMIntSLT, diff, zero, "");
        if (k < 0) span = LLVMBuildNeg(B, diff, ""), stride = LLVMConstInt(ty, (unsigned long long)-k, false);
    } else {
        LLVMValueRef up = LLVMBuildICmp(B, LLVMIntSGT, step, zero, "");
        ahead = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildICmp(B, LLVMIntSGT, diff, zero, ""), up, ""),
                             LLVMBuildICmp(B, LLVMIntNE, diff, zero, ""), "");
        span = LLVMBuildSelect(B, up, diff, LLVMBuildNeg(B, diff, ""), "");
        stride = LLVMBuildSelect(B, up, step, LLVMBuildNeg(B, step, ""), "");
    }
    LLVMValueRef n = span;
    if (!known || (k != 1 && k != -1))
        n = LLVMBuildAdd(B, LLVMBuildUDiv(B, LLVMBuildSub(B, span, one, ""), stride, ""), one, "range.count");
    return LLVMBuildSelect(B, ahead, n, zero, "");
}

/* len(r) of a range, counted as its iterator counts it. */
static LLVMValueRef range_len(CodeGen *g, LLVMValueRef r, const Type *t) {
    return range_count(g, t->dtype, extract(g, r, 0, ""), extract(g, r, 1, ""), extract(g, r, 2, ""));
}

/* range(stop), range(start, stop), range(start, stop, step), converted
 * to the case's type. */
static LLVMValueRef gen_range(CodeGen *g, Node *call) {
    LLVMTypeRef ty = llvm_type(g, call->ty->dtype);
    LLVMValueRef f[] = {LLVMConstNull(ty), NULL, LLVMConstInt(ty, 1, false)};
    if (call->item_len == 1) f[1] = arg_cast(g, call, 0);
    for (int i = 0; call->item_len > 1 && i < call->item_len; i++) f[i] = arg_cast(g, call, i);
    return make_struct(g, range_struct(g, call->ty), f, 3);
}

/* The iterator it of the tuple v: read by index from a copy, as Numba's
 * UniTupleIter reads it (a literal_unroll loop's versions read it so). */
static LLVMValueRef tuple_iter(CodeGen *g, LLVMValueRef v, const Type *it) {
    LLVMValueRef f[] = {iter_slot(g, i64c(g, 0), "iter.i"), iter_slot(g, v, "tuple")};
    return make_struct(g, llvm_type(g, it), f, 2);
}

/* Numba's getiter: the iterator of v, an iterable of type t, of type
 * type_getiter(t) (an iterator is its own). */
static LLVMValueRef iter_of(CodeGen *g, LLVMValueRef v, const Type *t) {
    const Type *it = type_getiter(g->arena, (Type *)t);
    LLVMValueRef f[3];
    switch (t->kind) {
    case TY_ITER: return v;
    case TY_RANGE: {
        LLVMValueRef start = extract(g, v, 0, ""), step = extract(g, v, 2, "");
        LLVMValueRef left = range_count(g, t->dtype, start, extract(g, v, 1, ""), step);
        f[0] = iter_slot(g, start, "range.i"), f[1] = iter_slot(g, left, "range.left"), f[2] = step;
        return make_struct(g, llvm_type(g, it), f, 3);
    }
    case TY_TUPLE: return tuple_iter(g, v, it);
    default:
        f[0] = iter_slot(g, i64c(g, 0), "iter.i"), f[1] = v;
        return make_struct(g, llvm_type(g, it), f, 2);
    }
}

/* Whether the iterator it, of type t, has a value left: what Numba's
 * iternext tests, without taking the value. */
static LLVMValueRef iter_more(CodeGen *g, LLVMValueRef it, const Type *t) {
    LLVMBuilderRef B = g->b;
    switch (t->iter) {
    case ITER_RANGE: {
        LLVMTypeRef ty = llvm_type(g, t->dtype);
        return LLVMBuildICmp(B, LLVMIntNE, LLVMBuildLoad2(B, ty, extract(g, it, 1, ""), ""), LLVMConstNull(ty), "");
    }
    case ITER_ARRAY: case ITER_TUPLE: case ITER_UNROLL: {
        LLVMValueRef i = LLVMBuildLoad2(B, i64(g), extract(g, it, 0, ""), "");
        const Type *of = t->elems[0];
        LLVMValueRef n = of->kind == TY_TUPLE ? i64c(g, of->elem_count) : array_dim(g, extract(g, it, 1, ""), 1, 0);
        return LLVMBuildICmp(B, LLVMIntSLT, i, n, "");
    }
    case ITER_ENUMERATE: return iter_more(g, extract(g, it, 1, ""), t->elems[0]);
    case ITER_ZIP: {
        LLVMValueRef more = LLVMConstInt(i1(g), t->elem_count > 0, false);
        for (int k = 0; k < t->elem_count; k++)
            more = k ? LLVMBuildAnd(B, more, iter_more(g, extract(g, it, (unsigned)k, ""), t->elems[k]), "")
                     : iter_more(g, extract(g, it, 0, ""), t->elems[0]);
        return more;
    }
    }
    ice("iter_more: %d", t->iter);
}

/* The next index of an array or tuple iterator, counted on. */
static LLVMValueRef take_index(CodeGen *g, LLVMValueRef slot) {
    LLVMValueRef i = LLVMBuildLoad2(g->b, i64(g), slot, "");
    LLVMBuildStore(g->b, LLVMBuildNSWAdd(g->b, i, i64c(g, 1), ""), slot);
    return i;
}

/* a[i] of an array iterator: an element, or the view of a row. */
static LLVMValueRef array_item(CodeGen *g, const Type *at, LLVMValueRef arr, LLVMValueRef i, const Type *elem) {
    const Type *it = &ty_int64;
    if (at->ndim == 1) return load_place(g, elem, element_ptr(g, at, arr, &i, &it), element_align(at));
    LLVMValueRef offset = LLVMBuildMul(g->b, i, array_dim(g, arr, 2, 0), "");
    LLVMValueRef data = LLVMBuildGEP2(g->b, i8(g), extract(g, arr, 0, ""), &offset, 1, "");
    LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, at->ndim), *strides = CG_ARRAY(g, LLVMValueRef, at->ndim);
    for (int d = 1; d < at->ndim; d++) {
        shape[d - 1] = array_dim(g, arr, 1, d);
        strides[d - 1] = array_dim(g, arr, 2, d);
    }
    return make_array(g, elem, data, shape, strides);
}

/* Numba's iternext where iter_more said there is a value: the value, the
 * iterator moved past it. A range's next value cannot overflow but after
 * its last, which no one reads: nsw (nuw unsigned) lets LLVM bound it. */
static LLVMValueRef iter_next(CodeGen *g, LLVMValueRef it, const Type *t) {
    LLVMBuilderRef B = g->b;
    switch (t->iter) {
    case ITER_RANGE: {
        LLVMTypeRef ty = llvm_type(g, t->dtype);
        LLVMValueRef at = extract(g, it, 0, ""), left = extract(g, it, 1, ""), step = extract(g, it, 2, "");
        LLVMValueRef i = LLVMBuildLoad2(B, ty, at, "");
        LLVMBuildStore(B, LLVMBuildNUWSub(B, LLVMBuildLoad2(B, ty, left, ""), LLVMConstInt(ty, 1, false), ""), left);
        LLVMBuildStore(B, t->dtype->is_signed ? LLVMBuildNSWAdd(B, i, step, "") : LLVMBuildNUWAdd(B, i, step, ""), at);
        return i;
    }
    case ITER_ARRAY: {
        LLVMValueRef i = take_index(g, extract(g, it, 0, ""));
        return array_item(g, t->elems[0], extract(g, it, 1, ""), i, t->dtype);
    }
    case ITER_TUPLE: {
        LLVMValueRef i = take_index(g, extract(g, it, 0, ""));
        LLVMValueRef p = LLVMBuildGEP2(B, llvm_type(g, t->dtype), extract(g, it, 1, ""), &i, 1, "");
        return LLVMBuildLoad2(B, llvm_type(g, t->dtype), p, "");
    }
    case ITER_UNROLL: return take_index(g, extract(g, it, 0, ""));
    case ITER_ENUMERATE: {
        LLVMValueRef c = LLVMBuildLoad2(B, i64(g), extract(g, it, 0, ""), "");
        LLVMBuildStore(B, LLVMBuildAdd(B, c, i64c(g, 1), ""), extract(g, it, 0, ""));
        LLVMValueRef pair[] = {c, iter_next(g, extract(g, it, 1, ""), t->elems[0])};
        return make_struct(g, llvm_type(g, t->dtype), pair, 2);
    }
    case ITER_ZIP: {
        LLVMValueRef *v = CG_ARRAY(g, LLVMValueRef, t->elem_count + 1);
        for (int k = 0; k < t->elem_count; k++) v[k] = iter_next(g, extract(g, it, (unsigned)k, ""), t->elems[k]);
        return make_struct(g, llvm_type(g, t->dtype), v, t->elem_count);
    }
    }
    ice("iter_next: %d", t->iter);
}

/* What Numba's iternext does to an iterator that has no value left: a zip
 * takes a value from each of its iterators up to the first that has none
 * (Python's zip), which another holder of them sees; the others keep
 * their state. */
static void iter_exhaust(CodeGen *g, LLVMValueRef it, const Type *t) {
    if (t->iter == ITER_ENUMERATE) iter_exhaust(g, extract(g, it, 1, ""), t->elems[0]);
    if (t->iter != ITER_ZIP) return;
    LLVMBasicBlockRef done = cg_new_block(g, "zip.exhausted");
    for (int k = 0; k < t->elem_count; k++) {
        LLVMValueRef src = extract(g, it, (unsigned)k, "");
        LLVMBasicBlockRef take = cg_new_block(g, "zip.take"), stop = cg_new_block(g, "zip.stop");
        LLVMBuildCondBr(g->b, iter_more(g, src, t->elems[k]), take, stop);
        LLVMPositionBuilderAtEnd(g->b, stop);
        iter_exhaust(g, src, t->elems[k]);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, take);
        iter_next(g, src, t->elems[k]);
    }
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Whether iterating over n may move an iterator that something else holds
 * (a variable, an argument): n is one, or a call of iter(), enumerate() or
 * zip() of one. Only then can a zip's partial step at its end be seen. */
static bool shares_iterator(const Node *n) {
    if (n->ty->kind != TY_ITER) return false;
    bool made = n->kind == ND_CALL && n->entity &&
                (n->entity->lower == LW_RANGE || (n->entity->lower == LW_BUILTIN && n->entity->op == BUILTIN_ITER));
    if (!made) return true;
    for (int i = 0; i < n->item_len; i++)
        if (shares_iterator(n->items[i])) return true;
    return false;
}

/* enumerate(iterable[, start]) and zip(iterable, ...): their iterators. */
static LLVMValueRef gen_iterator_call(CodeGen *g, Node *call, IterKind kind) {
    if (kind == ITER_RANGE) return gen_range(g, call);
    LLVMValueRef *f = CG_ARRAY(g, LLVMValueRef, call->item_len + 1);
    int n = 0;
    if (kind == ITER_ENUMERATE)
        f[n++] = iter_slot(g, call->item_len == 2 ? arg_cast(g, call, 1) : i64c(g, 0), "enumerate.count");
    for (int i = 0; i < (kind == ITER_ENUMERATE ? 1 : call->item_len); i++)
        f[n++] = iter_of(g, gen_expr(g, call->items[i]), call->items[i]->ty);
    return make_struct(g, llvm_type(g, call->ty), f, n);
}

/* next(it): its value; past its end, StopIteration (the function returns,
 * as a raise does), after the zip's partial step. */
static LLVMValueRef gen_next(CodeGen *g, Node *call) {
    const Type *t = call->items[0]->ty;
    LLVMValueRef it = gen_expr(g, call->items[0]);
    LLVMBasicBlockRef stop = cg_new_block(g, "next.stop"), ok = cg_new_block(g, "next.value");
    LLVMBuildCondBr(g->b, iter_more(g, it, t), ok, stop);
    LLVMPositionBuilderAtEnd(g->b, stop);
    if (shares_iterator(call->items[0])) iter_exhaust(g, it, t);
    gen_raise(g, NULL);
    LLVMPositionBuilderAtEnd(g->b, ok);
    return iter_next(g, it, t);
}

static LLVMValueRef gen_entity_call(CodeGen *g, Node *n, const Entity *e) {
    switch (e->lower) {
    case LW_GRID: return gen_grid(g, n, false);
    case LW_GRIDSIZE: return gen_grid(g, n, true);
    case LW_BARRIER: return gen_barrier(g, n, (BarrierOp)e->op);
    case LW_BLOCK_VOTE: return TARGET(g)->block_vote(g, (BlockVote)e->op, arg_cast(g, n, 0));
    case LW_SHARED_ARRAY: return alloc_array(g, n, true);
    case LW_LOCAL_ARRAY: return alloc_array(g, n, false);
    case LW_CONST_ARRAY: return gen_expr(g, n->items[0]);
    case LW_ATOMIC: return gen_atomic(g, n, e);
    case LW_MATH: return gen_math(g, n, e);
    case LW_BUILTIN: return gen_builtin(g, n, e);
    case LW_BITOP: return gen_bitop(g, n, e);
    case LW_FMA: return gen_fma(g, n);
    case LW_SELP: return gen_selp(g, n);
    case LW_WARP: return gen_warp(g, n, e);
    case LW_FP16: return gen_fp16(g, n, e);
    case LW_BF16: return gen_bf16(g, n, e);
    case LW_CACHE_LOAD: return TARGET(g)->cache_load(g, (CacheOp)e->op, call_element_ptr(g, n), n->ty);
    case LW_CACHE_STORE: return gen_cache_store(g, n, (CacheOp)e->op);
    case LW_VECTOR: return gen_vector(g, n);
    case LW_GRID_GROUP: return gen_grid_group(g, n, (GridOp)e->op);
    case LW_LIBDEVICE: return gen_libdevice(g, n, e);
    case LW_OWN: return convert(g, gen_device_call(g, n, n->sym->func), n->sym->func->ret, n->ty);
    case LW_UFUNC: return gen_ufunc(g, n, e);
    case LW_SETITEM: store_target(g, n->lhs, gen_expr(g, n->items[2]), n->items[2]->ty); return NULL;
    case LW_RANGE: return gen_iterator_call(g, n, (IterKind)e->op);
    default:
        cg_error(g, n->span, "%s is not supported by code generation yet", e->path);
        return n->ty->kind == TY_NONE ? NULL : LLVMGetUndef(llvm_type(g, n->ty));
    }
}

/* Point(x, y=...): the arguments evaluated as written, each into its
 * field (a keyword's in n->dims). */
static LLVMValueRef gen_named_tuple(CodeGen *g, Node *n) {
    LLVMValueRef t = LLVMGetUndef(llvm_type(g, n->ty));
    for (int i = 0; i < n->item_len; i++) t = LLVMBuildInsertValue(g->b, t, arg_cast(g, n, i), (unsigned)i, "");
    for (int k = 0; k < n->kwarg_len; k++) {
        Node *v = n->kwargs[k]->rhs;
        LLVMValueRef x = convert(g, gen_expr(g, v), v->ty, n->ty->elems[n->dims[k]]);
        t = LLVMBuildInsertValue(g->b, t, x, (unsigned)n->dims[k], "");
    }
    return t;
}

static LLVMValueRef gen_call(CodeGen *g, Node *n) {
    if (n->func->kind == ND_SUBSCRIPT && n->sym && n->sym->func->is_kernel) return gen_launch(g, n, n->sym->func);
    if (n->func->ty->kind == TY_CLASS) return gen_named_tuple(g, n);
    if (n->func->ty->kind == TY_FUNC || n->func->ty->kind == TY_CLOSURE)
        return gen_device_call(g, n, n->sym ? n->sym->func : n->func->ty->func->sym->func);
    if (n->func->ty->kind == TY_EXTERN) return gen_extern_call(g, n, n->func->ty->ext);
    if (n->func->ty->kind == TY_DTYPE && n->casts) /* bfloat16(x): x as the constructor's case, then rounded */
        return convert(g, gen_cast(g, n->items[0], n->casts[0]), n->casts[0], n->ty);
    if (n->func->ty->kind == TY_DTYPE) return gen_cast(g, n->items[0], n->ty);
    return gen_entity_call(g, n, n->entity);
}

static LLVMValueRef gen_expr(CodeGen *g, Node *n) {
    if (n->ty && n->ty->kind == TY_BFLOAT16) need_bfloat16(g, n);
    if (n->folded) { /* CPython folded it: the constant sema computed */
        if (n->ty->kind == TY_FLOAT) return LLVMConstReal(llvm_type(g, n->ty), n->v.f);
        if (n->ty->kind == TY_BOOL) return LLVMConstInt(i1(g), n->v.i.value != 0, false);
        return LLVMConstInt(llvm_type(g, n->ty), n->v.i.value, false);
    }
    switch (n->kind) {
    case ND_INT: return LLVMConstInt(llvm_type(g, n->ty), n->v.i.value, false);
    case ND_FLOAT: return LLVMConstReal(LLVMDoubleTypeInContext(g->ctx), n->v.f);
    case ND_IMAG: return complex_make(g, llvm_type(g, n->ty), LLVMConstReal(LLVMDoubleTypeInContext(g->ctx), 0), LLVMConstReal(LLVMDoubleTypeInContext(g->ctx), n->v.f));
    case ND_BOOL: return LLVMConstInt(i1(g), n->v.b, false);
    case ND_NONE: return LLVMGetUndef(i8(g)); /* only compared with `is` */
    case ND_NAME: return gen_name(g, n);
    case ND_ATTR: return gen_attribute(g, n);
    case ND_SUBSCRIPT: return gen_subscript(g, n);
    case ND_BINOP: return gen_binop(g, n);
    case ND_UNARY: return gen_unary(g, n);
    case ND_COMPARE: return gen_compare(g, n);
    case ND_BOOLOP: return gen_boolop(g, n);
    case ND_IFEXP: return gen_ifexp(g, n);
    case ND_CALL: return gen_call(g, n);
    case ND_TUPLE: return gen_tuple(g, n);
    case ND_LAMBDA: return make_closure(g, n->ty, n->func->captures, NULL);
    default:
        cg_error(g, n->span, "%s expressions are not supported by code generation", node_kind_name(n->kind));
        return LLVMGetUndef(i8(g));
    }
}

/* ---- debug information (-g, --lineinfo) ----------------------------------------------------- */

/* One compile unit for the .pyk file, as much as the most that any of its
 * functions asks for: full debug information (-g, debug=True), line tables
 * (--lineinfo), or only the .loc directives (lineinfo=True, as numba-cuda
 * emits it: no DWARF sections, so no PTX version of its own), so that ncu
 * and cuda-gdb show .pyk lines. The C API names no DebugDirectivesOnly:
 * it is LLVM's DICompileUnit::DebugEmissionKind 3. */
static void di_begin(CodeGen *g, DebugLevel level) {
    static const LLVMDWARFEmissionKind kinds[] = {
        [DEBUG_DIRECTIVES] = (LLVMDWARFEmissionKind)3,
        [DEBUG_LINES] = LLVMDWARFEmissionLineTablesOnly,
        [DEBUG_FULL] = LLVMDWARFEmissionFull,
    };
    const SourceFile *f = diag_file(g->diag, g->unit->module->span.file);
    const char *path = f->path, *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    g->di = LLVMCreateDIBuilder(g->mod);
    g->di_file = LLVMDIBuilderCreateFile(g->di, name, strlen(name), dir, dir_len);
    g->di_unit = LLVMDIBuilderCreateCompileUnit(
        g->di, LLVMDWARFSourceLanguagePython, g->di_file, "pykc " PYKC_VERSION, strlen("pykc " PYKC_VERSION),
        g->unit->opts->opt_level > 0, "", 0, 0, "", 0, kinds[level], 0, false, false, "", 0, "", 0);
    LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(const_int(g, i32(g), LLVMDebugMetadataVersion())));
    LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(const_int(g, i32(g), 2)));
}

/* -g and --lineinfo give every function debug information; otherwise only
 * those of debug=True or lineinfo=True have it. */
static bool has_debug_info(const CodeGen *g, const FuncInfo *f) {
    const Options *o = g->unit->opts;
    return g->di && (o->debug_info || o->lineinfo || f->debug || f->lineinfo);
}

static void di_function(CodeGen *g, FuncInfo *f) {
    g->di_scope = NULL;
    if (!has_debug_info(g, f)) return;
    int line, col;
    diag_line_col(g->diag, f->def->span.file, f->def->span.begin, &line, &col);
    LLVMMetadataRef type = LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, NULL, 0, LLVMDIFlagZero);
    const char *name = f->def->name;
    g->di_scope = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name, strlen(name), g->di_file,
                                              (unsigned)line, type, !f->is_kernel, true, (unsigned)line, LLVMDIFlagZero,
                                              g->unit->opts->opt_level > 0);
    LLVMSetSubprogram(g->llfn, g->di_scope);
}

/* The statement (or loop header, return, raise) being built: its line in
 * the debug information, and where a target's refusal points. */
static void di_location(CodeGen *g, const Node *n) {
    g->at = n;
    if (!g->di_scope) return;
    int line, col;
    diag_line_col(g->diag, n->span.file, n->span.begin, &line, &col);
    LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(g->ctx, (unsigned)line, (unsigned)col, g->di_scope, NULL);
    LLVMSetCurrentDebugLocation2(g->b, loc);
}

/* ---- statements ---------------------------------------------------------------------- */


/* Stores v (of type vt, a scalar) into every element of view from
 * dimension d on, idx holding the indices before d: one loop a dimension.
 * Or, where tuple is given (a tuple's elements in memory, as the dtype),
 * its i-th element into the i-th. */
static void fill_view(CodeGen *g, const Type *t, LLVMValueRef view, LLVMValueRef *idx, int d, LLVMValueRef v,
                      const Type *vt, LLVMValueRef tuple) {
    if (d == t->ndim) {
        const Type **tys = CG_ARRAY(g, const Type *, t->ndim);
        for (int i = 0; i < t->ndim; i++) tys[i] = &ty_uint64;
        if (tuple) {
            LLVMTypeRef et = memory_type(g, t->dtype);
            LLVMValueRef p = LLVMBuildGEP2(g->b, et, tuple, idx, 1, "");
            store_place(g, t->dtype, load_place(g, t->dtype, p, 0), element_ptr(g, t, view, idx, tys), element_align(t));
            return;
        }
        store_place(g, t->dtype, convert(g, v, vt, t->dtype), element_ptr(g, t, view, idx, tys), element_align(t));
        return;
    }
    LLVMValueRef slot = cg_entry_alloca(g, i64(g), "fill.i");
    LLVMBuildStore(g->b, i64c(g, 0), slot);
    LLVMBasicBlockRef cond = cg_new_block(g, "fill.cond"), body = cg_new_block(g, "fill.body"), done = cg_new_block(g, "fill.done");
    LLVMBuildBr(g->b, cond);
    LLVMPositionBuilderAtEnd(g->b, cond);
    idx[d] = LLVMBuildLoad2(g->b, i64(g), slot, "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, idx[d], array_dim(g, view, 1, d), ""), body, done);
    LLVMPositionBuilderAtEnd(g->b, body);
    fill_view(g, t, view, idx, d + 1, v, vt, tuple);
    LLVMBuildStore(g->b, LLVMBuildNSWAdd(g->b, LLVMBuildLoad2(g->b, i64(g), slot, ""), i64c(g, 1), ""), slot);
    LLVMBuildBr(g->b, cond);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* a[lo:hi] = v: a tuple must have the view's length (else ValueError: the
 * function returns, as numba-cuda's does without debug=True); its
 * elements convert to the dtype one by one (sema checked they do). */
static void store_slice(CodeGen *g, Node *target, LLVMValueRef v, const Type *vt) {
    const Type *t = target->ty;
    LLVMValueRef view = gen_view(g, target), tuple = NULL;
    if (vt->kind == TY_TUPLE) {
        LLVMBasicBlockRef bad = cg_new_block(g, "slice.badlen"), ok = cg_new_block(g, "slice.store");
        LLVMValueRef same = LLVMBuildICmp(g->b, LLVMIntEQ, array_dim(g, view, 1, 0), i64c(g, vt->elem_count), "");
        LLVMBuildCondBr(g->b, same, ok, bad);
        LLVMPositionBuilderAtEnd(g->b, bad);
        gen_raise(g, NULL);
        LLVMPositionBuilderAtEnd(g->b, ok);
        /* the elements, converted to the dtype, in memory to be indexed */
        tuple = cg_entry_alloca(g, LLVMArrayType2(memory_type(g, t->dtype), (unsigned)vt->elem_count), "elems");
        for (int i = 0; i < vt->elem_count; i++) {
            LLVMValueRef at = i64c(g, i), e = convert(g, extract(g, v, (unsigned)i, ""), vt->elems[i], t->dtype);
            store_place(g, t->dtype, e, LLVMBuildGEP2(g->b, memory_type(g, t->dtype), tuple, &at, 1, ""), 0);
        }
    }
    fill_view(g, t, view, CG_ARRAY(g, LLVMValueRef, t->ndim), 0, v, vt, tuple);
}

static void store_target(CodeGen *g, Node *target, LLVMValueRef v, const Type *vt) {
    switch (target->kind) {
    case ND_NAME: {
        Sym *sym = target->sym;
        if (sym->ty->kind == TY_NONE) return; /* None holds nothing to store */
        assign_version(g, sym, convert(g, v, vt, sym->ty));
        return;
    }
    case ND_SUBSCRIPT: case ND_ATTR: {
        if (target->kind == ND_SUBSCRIPT && target->ty->kind == TY_ARRAY) {
            store_slice(g, target, v, vt);
            return;
        }
        if (target->ty->kind == TY_BFLOAT16) need_bfloat16(g, target);
        unsigned align;
        LLVMValueRef p = place_ptr(g, target, &align);
        store_place(g, target->ty, convert(g, v, vt, target->ty), p, align);
        return;
    }
    case ND_TUPLE: case ND_LIST:
        for (int i = 0; i < target->item_len; i++)
            store_target(g, target->items[i], extract(g, v, (unsigned)i, ""), vt->elems[i]);
        return;
    default: ice("store_target: %s", node_kind_name(target->kind));
    }
}

/* A for loop's iterator, made where CPython evaluates the iterable (its
 * GET_ITER) and used by its FOR_ITER block and at the top of its body,
 * where the value is taken: assigning to the target in the body does not
 * change the iteration, as in Python. */
struct LoopState {
    Node *node;
    LLVMValueRef iter;
    const Type *ty;
    LLVMValueRef index;            /* an unrolled loop's: the element's index */
    LLVMValueRef start, stop, step; /* a range written in the loop, in a
                                       function with bounds checks */
};

static LoopState *loop_state(CodeGen *g, Node *n) {
    for (int i = 0; i < g->loop_count; i++)
        if (g->loops[i].node == n) return &g->loops[i];
    ARENA_GROW(g->arena, g->loops, g->loop_count, g->loop_cap, 8);
    LoopState *st = &g->loops[g->loop_count++];
    memset(st, 0, sizeof *st);
    st->node = n;
    return st;
}

static void loop_init(CodeGen *g, Node *n) {
    LoopState *st = loop_state(g, n);
    st->ty = n->ty;
    LLVMValueRef v = gen_expr(g, n->iter);
    if (n->iter->ty->kind == TY_RANGE && (g->fn->checks & CHECK_BOUNDS))
        st->start = extract(g, v, 0, ""), st->stop = extract(g, v, 1, ""), st->step = extract(g, v, 2, "");
    st->iter = n->unroll ? tuple_iter(g, v, n->ty) : iter_of(g, v, n->iter->ty);
}

/* What a checked function's bounds checks need to know of a range's
 * value i, which the count before the loop hides from LLVM: with a
 * positive step and a start not below 0, 0 <= start <= i < stop, so
 * i <u stop (unsigned: any step). LLVM folds the step's and the start's
 * signs where it knows them (cuda.gridsize, cuda.grid) and then the check
 * of a[i] against a.shape[0] in a loop over range(..., a.shape[0], ...). */
static void assume_below_stop(CodeGen *g, const LoopState *st, LLVMValueRef i) {
    LLVMBuilderRef B = g->b;
    LLVMValueRef below = LLVMBuildICmp(B, LLVMIntULT, i, st->stop, "");
    if (st->ty->dtype->is_signed) {
        LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(i));
        LLVMValueRef other = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLE, st->step, zero, ""),
                                         LLVMBuildICmp(B, LLVMIntSLT, st->start, zero, ""), "");
        below = LLVMBuildOr(B, other, below, "");
    }
    cg_intrinsic(g, "llvm.assume", NULL, 0, &below, 1);
}

/* FOR_ITER: whether the loop has another element. */
static LLVMValueRef loop_more(CodeGen *g, Node *n) {
    LoopState *st = loop_state(g, n);
    return iter_more(g, st->iter, st->ty);
}

/* The loop's end, where it ran out (not a break): a zip's partial step,
 * where another holder of its iterators can see it. */
static void loop_exhausted(CodeGen *g, Node *n) {
    LoopState *st = loop_state(g, n);
    iter_exhaust(g, st->iter, st->ty);
}

/* The top of the body: the element to the target, the iterator on. */
static void loop_target(CodeGen *g, Node *n) {
    LoopState *st = loop_state(g, n);
    if (n->unroll) { /* the version the index chooses takes the element */
        st->index = iter_next(g, st->iter, st->ty);
        return;
    }
    LLVMValueRef v = iter_next(g, st->iter, st->ty);
    if (st->stop) assume_below_stop(g, st, v);
    store_target(g, n->cond, v, st->ty->dtype);
}

static void gen_return(CodeGen *g, Node *n) {
    if (g->fn->is_kernel || g->fn->ret == &ty_none) {
        if (n->item_len) gen_expr(g, n->items[0]);
        LLVMBuildRetVoid(g->b);
        return;
    }
    LLVMBuildRet(g->b, gen_cast(g, n->items[0], g->fn->ret));
}

/* A simple statement: compound ones are blocks of their own (ssa.c). */
static void gen_statement(CodeGen *g, Node *n) {
    di_location(g, n);
    switch (n->kind) {
    case ND_ASSIGN: {
        LLVMValueRef v = gen_expr(g, n->rhs);
        for (int i = 0; i < n->item_len; i++) store_target(g, n->items[i], v, n->rhs->ty);
        return;
    }
    case ND_ANNASSIGN:
        if (n->rhs) store_target(g, n->lhs, gen_expr(g, n->rhs), n->rhs->ty);
        return;
    case ND_AUGASSIGN: {
        unsigned align = 0;
        LLVMValueRef ptr = n->lhs->kind != ND_NAME ? place_ptr(g, n->lhs, &align) : NULL;
        /* x += y reads the version before it (n->sym) and assigns the next */
        const Type *cur_ty = ptr ? n->lhs->ty : n->sym->ty;
        LLVMValueRef cur = ptr ? load_place(g, cur_ty, ptr, align) : load_version(g, n->sym);
        LLVMValueRef a = convert(g, cur, cur_ty, n->casts[0]), b = gen_cast(g, n->rhs, n->casts[1]);
        LLVMValueRef r;
        if (n->op == OP_LSHIFT || n->op == OP_RSHIFT) {
            const Type *wide = type_strip(n->ty);
            r = shift(g, n->op, convert(g, a, n->casts[0], wide), convert(g, b, n->casts[1], wide), wide);
        } else {
            const Type *rt = case_result(n);
            r = convert(g, arith(g, n, n->op, a, b, n->casts[0], n->casts[1], rt), rt, n->ty);
        }
        if (ptr) store_place(g, n->lhs->ty, convert(g, r, n->ty, n->lhs->ty), ptr, align);
        else store_target(g, n->lhs, r, n->ty);
        return;
    }
    case ND_EXPR_STMT: /* a docstring, or a name of no value (a module, a type), does nothing */
        if (n->rhs->kind != ND_STR && (n->rhs->kind == ND_CALL || is_value(n->rhs->ty))) gen_expr(g, n->rhs);
        return;
    case ND_FUNCDEF: store_target(g, n->lhs, make_closure(g, n->lhs->ty, n->captures, NULL), n->lhs->ty); return;
    default: ice("gen_statement: %s", node_kind_name(n->kind));
    }
}

/* The phi versions of the block's successors, assigned before it leaves:
 * every incoming value is read before any phi is written, as one of them
 * may be another's incoming value around a loop. */
static void gen_phi_moves(CodeGen *g, const CfgBlock *blk) {
    LLVMValueRef *vals = CG_ARRAY(g, LLVMValueRef, blk->move_count);
    for (int i = 0; i < blk->move_count; i++) {
        const PhiMove *m = &blk->moves[i];
        vals[i] = NULL;
        if (!m->phi->cg) continue; /* None holds nothing */
        if (!m->value || !m->value->ty || (!has_storage(m->value) && m->value->ty->kind != TY_NONE))
            vals[i] = LLVMConstNull(llvm_type(g, m->phi->ty)); /* no version reaches: Numba's null */
        else
            vals[i] = convert(g, load_version(g, m->value), m->value->ty, m->phi->ty);
    }
    for (int i = 0; i < blk->move_count; i++)
        if (vals[i]) LLVMBuildStore(g->b, vals[i], blk->moves[i].phi->cg);
}

/* An unrolled loop's element to version k's target: of the elements of
 * its type, the one at the index. */
static void unroll_target(CodeGen *g, Node *n, int k) {
    LoopState *st = loop_state(g, n);
    const UnrollVersion *v = &n->unroll->versions[k];
    LLVMValueRef tuple = LLVMBuildLoad2(g->b, llvm_type(g, st->ty->elems[0]), extract(g, st->iter, 1, ""), "");
    LLVMValueRef e = extract(g, tuple, (unsigned)v->indices[0], "");
    for (int j = 1; j < v->index_count; j++) {
        LLVMValueRef is = LLVMBuildICmp(g->b, LLVMIntEQ, st->index, i64c(g, v->indices[j]), "");
        e = LLVMBuildSelect(g->b, is, extract(g, tuple, (unsigned)v->indices[j], ""), e, "");
    }
    store_target(g, v->target, e, v->elem);
}

/* Whether an unrolled loop's index is one of version k's elements. */
static LLVMValueRef unroll_case(CodeGen *g, Node *n, int k) {
    const UnrollVersion *v = &n->unroll->versions[k];
    LLVMValueRef index = loop_state(g, n)->index, any = LLVMConstInt(i1(g), 0, false);
    for (int j = 0; j < v->index_count; j++)
        any = LLVMBuildOr(g->b, any, LLVMBuildICmp(g->b, LLVMIntEQ, index, i64c(g, v->indices[j]), ""), "");
    return any;
}

static void gen_item(CodeGen *g, const CfgItem *it) {
    switch (it->kind) {
    case ITEM_STMT: gen_statement(g, it->node); return;
    case ITEM_FOR_INIT: di_location(g, it->node); loop_init(g, it->node); return;
    case ITEM_FOR_TARGET: loop_target(g, it->node); return;
    case ITEM_UNROLL_TARGET: unroll_target(g, it->node, it->version); return;
    }
}

/* Whether the function's raises and asserts report to the host. */
static bool reports_raises(const FuncInfo *f) { return f->debug || (f->checks & CHECK_ASSERT); }

/* A thread that raised stops: a kernel returns, a device function's
 * thread exits (where numba-cuda's device function returns an error its
 * callers pass up). */
static void end_thread(CodeGen *g) {
    if (g->fn->is_kernel) {
        LLVMBuildRetVoid(g->b);
        return;
    }
    TARGET(g)->exit_thread(g);
    LLVMBuildUnreachable(g->b);
}

/* A failed check's values, beside the thread that failed it. */
static void record_detail(CodeGen *g, LLVMValueRef *detail) {
    LLVMTypeRef detail_t = LLVMArrayType2(i64(g), 3);
    LLVMValueRef d = LLVMGetNamedGlobal(g->mod, "pykc_exception_detail");
    if (!d) {
        d = add_global(g, MEM_GLOBAL, detail_t, "pykc_exception_detail");
        LLVMSetInitializer(d, LLVMConstNull(detail_t));
    }
    for (int i = 0; i < 3; i++) {
        LLVMValueRef at[] = {cg_i32(g, 0), cg_i32(g, i)};
        LLVMBuildStore(g->b, detail[i], LLVMBuildGEP2(g->b, detail_t, d, at, 2, ""));
    }
}

/* Where a debug=True function's raise or a checked function's failed
 * check tells the host: the first code raised in the launch, the thread
 * that raised it (threadIdx x y z, blockIdx x y z), and for a check its
 * values (detail: index, axis, extent), which libpykrt reads after the launch. */
static void record_exception(CodeGen *g, int code, LLVMValueRef *detail) {
    LLVMTypeRef i32t = LLVMInt32TypeInContext(g->ctx), thread_t = LLVMArrayType2(i32t, 6);
    LLVMValueRef flag = LLVMGetNamedGlobal(g->mod, "pykc_exception"), thread = LLVMGetNamedGlobal(g->mod, "pykc_exception_thread");
    if (!flag) {
        flag = add_global(g, MEM_GLOBAL, i32t, "pykc_exception");
        LLVMSetInitializer(flag, LLVMConstNull(i32t));
        thread = add_global(g, MEM_GLOBAL, thread_t, "pykc_exception_thread");
        LLVMSetInitializer(thread, LLVMConstNull(thread_t));
    }
    LLVMValueRef swap = LLVMBuildAtomicCmpXchg(g->b, flag, cg_i32(g, 0), cg_i32(g, code), LLVMAtomicOrderingMonotonic,
                                               LLVMAtomicOrderingMonotonic, false);
    LLVMBasicBlockRef first = cg_new_block(g, "exception.first"), done = cg_new_block(g, "exception.recorded");
    LLVMBuildCondBr(g->b, LLVMBuildExtractValue(g->b, swap, 1, ""), first, done);
    LLVMPositionBuilderAtEnd(g->b, first);
    for (int i = 0; i < 6; i++) {
        LLVMValueRef at[] = {cg_i32(g, 0), cg_i32(g, i)};
        LLVMValueRef v = TARGET(g)->special(g, i < 3 ? SV_THREAD_IDX : SV_BLOCK_IDX, i % 3);
        LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, v, i32t, ""), LLVMBuildGEP2(g->b, thread_t, thread, at, 2, ""));
    }
    if (detail) record_detail(g, detail);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* A branch to `likely` where cond holds, marked as all but always taken. */
static void branch_likely(CodeGen *g, LLVMValueRef cond, LLVMBasicBlockRef likely, LLVMBasicBlockRef unlikely) {
    LLVMValueRef br = LLVMBuildCondBr(g->b, cond, likely, unlikely);
    LLVMMetadataRef weights[] = {LLVMMDStringInContext2(g->ctx, "branch_weights", 14),
                                 LLVMValueAsMetadata(cg_i32(g, 1 << 20)), LLVMValueAsMetadata(cg_i32(g, 1))};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->ctx, "prof", 4),
                    LLVMMetadataAsValue(g->ctx, LLVMMDNodeInContext2(g->ctx, weights, 3)));
}

/* Continues where ok holds; where not, the thread records the failed
 * check of site and ends. The failure is marked unlikely. */
static void fail_unless(CodeGen *g, const Node *site, LLVMValueRef ok, LLVMValueRef *detail) {
    LLVMBasicBlockRef fail = cg_new_block(g, "check.fail"), pass = cg_new_block(g, "check.ok");
    branch_likely(g, ok, pass, fail);
    LLVMPositionBuilderAtEnd(g->b, fail);
    record_exception(g, site->exception, detail);
    end_thread(g);
    LLVMPositionBuilderAtEnd(g->b, pass);
}

/* Signed index raw of a checked subscript, wrapped around: within
 * [0, extent) it is itself, after one compare; below 0 it is wrapped on a
 * colder path, and checked again. So the compare on the index as written
 * is what later passes see, and fold where a test above decides it (`if
 * tid >= k: a[tid - k]`); a compare of the wrapped index reaches them as
 * shifts and masks they cannot reason through. */
static LLVMValueRef checked_wrap(CodeGen *g, const Node *site, LLVMValueRef raw, LLVMValueRef extent,
                                 LLVMValueRef *detail) {
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef wrap = cg_new_block(g, "check.wrap"), done = cg_new_block(g, "check.index");
    branch_likely(g, LLVMBuildICmp(g->b, LLVMIntULT, raw, extent, ""), done, wrap);
    LLVMPositionBuilderAtEnd(g->b, wrap);
    LLVMValueRef wrapped = LLVMBuildAdd(g->b, raw, extent, "");
    /* raw < 0 is implied, and said: where raw is known not to be (a
     * cuda.grid index), this path is the failure alone */
    LLVMValueRef negative = LLVMBuildICmp(g->b, LLVMIntSLT, raw, i64c(g, 0), "");
    fail_unless(g, site, LLVMBuildAnd(g->b, negative, LLVMBuildICmp(g->b, LLVMIntULT, wrapped, extent, ""), ""), detail);
    LLVMBasicBlockRef wrapped_at = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMValueRef i = LLVMBuildPhi(g->b, i64(g), "");
    LLVMValueRef vals[] = {raw, wrapped};
    LLVMBasicBlockRef blocks[] = {from, wrapped_at};
    LLVMAddIncoming(i, vals, blocks, 2);
    return i;
}

/* A checked subscript: each index within its extent after wraparound. The
 * checked index replaces the index, as an item index (uint64) that
 * element_ptr does not wrap again. */
static void check_indices(CodeGen *g, const Node *site, const Type *t, LLVMValueRef arr, LLVMValueRef *idx,
                          const Type **idx_ty) {
    if (!site->exception) return;
    for (int d = 0; d < t->ndim; d++) {
        bool is_unsigned = idx_ty[d]->kind == TY_INT && !idx_ty[d]->is_signed;
        LLVMValueRef raw = convert(g, idx[d], idx_ty[d], is_unsigned ? &ty_uint64 : &ty_int64);
        LLVMValueRef extent = array_dim(g, arr, 1, d);
        LLVMValueRef detail[] = {raw, i64c(g, d), extent};
        if (is_unsigned) fail_unless(g, site, LLVMBuildICmp(g->b, LLVMIntULT, raw, extent, ""), detail);
        else raw = checked_wrap(g, site, raw, extent, detail);
        idx[d] = raw;
        idx_ty[d] = &ty_uint64;
    }
}

/* A checked integer // or %: a divisor that is not zero. */
static void check_divisor(CodeGen *g, const Node *site, LLVMValueRef b) {
    if (!site || !site->exception) return;
    LLVMValueRef zero = i64c(g, 0), detail[] = {zero, zero, zero};
    fail_unless(g, site, LLVMBuildICmp(g->b, LLVMIntNE, b, LLVMConstNull(LLVMTypeOf(b)), ""), detail);
}

/* What Numba lowers a raise to: the function returns; without debug=True
 * nothing else. With it, the raise is recorded for the host, and the
 * thread ends: a kernel returns, a device function's thread exits (where
 * numba-cuda's device function returns an error its callers pass up). */
static void gen_raise(CodeGen *g, const Node *site) {
    if (site && site->exception && reports_raises(g->fn)) {
        record_exception(g, site->exception, NULL);
        end_thread(g);
        return;
    }
    if (g->fn->is_kernel || g->fn->ret == &ty_none) LLVMBuildRetVoid(g->b);
    else LLVMBuildRet(g->b, LLVMConstNull(llvm_type(g, g->fn->ret)));
}

static void gen_terminator(CodeGen *g, const CfgBlock *blk) {
    LLVMBasicBlockRef to[2] = {blk->succ[0] ? blk->succ[0]->cg : NULL, blk->succ[1] ? blk->succ[1]->cg : NULL};
    switch (blk->term) {
    case TERM_JUMP:
        gen_phi_moves(g, blk);
        LLVMBuildBr(g->b, to[0]);
        return;
    case TERM_BRANCH: {
        if (blk->node->kind == ND_ASSERT && !reports_raises(g->fn)) { /* checked only under debug=True, as in numba-cuda */
            gen_phi_moves(g, blk);
            LLVMBuildBr(g->b, to[0]);
            return;
        }
        di_location(g, blk->node);
        Node *test = blk->node->kind == ND_ASSERT ? blk->node->cond : blk->node;
        LLVMValueRef c = to_bool(g, gen_expr(g, test), test->ty);
        gen_phi_moves(g, blk);
        LLVMBuildCondBr(g->b, c, to[0], to[1]);
        return;
    }
    case TERM_UNROLL_CASE: {
        LLVMValueRef is = unroll_case(g, blk->node, blk->version);
        gen_phi_moves(g, blk);
        LLVMBuildCondBr(g->b, is, to[0], to[1]);
        return;
    }
    case TERM_FOR_ITER: {
        LLVMValueRef more = loop_more(g, blk->node);
        gen_phi_moves(g, blk);
        bool shared = shares_iterator(blk->node->iter);
        LLVMBasicBlockRef out = shared ? cg_new_block(g, "for.exhausted") : to[1];
        LLVMBuildCondBr(g->b, more, to[0], out);
        if (shared) {
            LLVMPositionBuilderAtEnd(g->b, out);
            loop_exhausted(g, blk->node);
            LLVMBuildBr(g->b, to[1]);
        }
        return;
    }
    case TERM_RETURN:
        if (blk->node) {
            di_location(g, blk->node);
            gen_return(g, blk->node);
        } else if (g->fn->is_kernel || g->fn->ret == &ty_none) {
            LLVMBuildRetVoid(g->b);
        } else {
            LLVMBuildUnreachable(g->b); /* sema saw every path return */
        }
        return;
    case TERM_RAISE:
        if (blk->node->kind == ND_ASSERT && !reports_raises(g->fn)) LLVMBuildUnreachable(g->b); /* never branched to: see above */
        else gen_raise(g, blk->node);
        return;
    }
}

/* The body, block by block as Numba lowers it; the first block is the
 * entry, where the slots of the versions are. */
static void gen_body(CodeGen *g, FuncInfo *f) {
    static const char *const names[] = {"jump", "branch", "for.cond", "return", "raise", "unroll.case"};
    for (int i = 0; i < f->block_count; i++)
        f->blocks[i]->cg = i == 0 ? LLVMGetInsertBlock(g->b) : cg_new_block(g, f->blocks[i]->name ? f->blocks[i]->name : names[f->blocks[i]->term]);
    for (int i = 0; i < f->block_count && !g->failed; i++) {
        CfgBlock *blk = f->blocks[i];
        /* after the blocks that the previous one's expressions made */
        if (i) LLVMMoveBasicBlockAfter(blk->cg, LLVMGetLastBasicBlock(g->llfn));
        LLVMPositionBuilderAtEnd(g->b, blk->cg);
        for (int k = 0; k < blk->item_count && !g->failed; k++) gen_item(g, &blk->items[k]);
        if (!g->failed) gen_terminator(g, blk);
    }
}

/* ---- functions and the kernel ABI -------------------------------------------------------- */

/* The entry's parameter for one part of a kernel's parameter (abi.c). */
static LLVMTypeRef part_type(CodeGen *g, AbiPart p) {
    return p.kind == PART_DATA ? ptr_in(g, TARGET(g)->address_space[MEM_GLOBAL]) : memory_type(g, p.type);
}

/* A kernel parameter of type t, rebuilt from its parts, the entry's
 * parameters from *next on. */
static LLVMValueRef abi_unpack(CodeGen *g, const Type *t, LLVMValueRef fn, unsigned *next) {
    if (t->kind == TY_ARRAY) {
        LLVMValueRef data = generic(g, LLVMGetParam(fn, (*next)++));
        LLVMValueRef *shape = CG_ARRAY(g, LLVMValueRef, t->ndim), *strides = CG_ARRAY(g, LLVMValueRef, t->ndim);
        for (int i = 0; i < t->ndim; i++) shape[i] = LLVMGetParam(fn, (*next)++);
        for (int i = 0; i < t->ndim; i++) strides[i] = LLVMGetParam(fn, (*next)++);
        return make_array(g, t, data, shape, strides);
    }
    if (t->kind == TY_COMPLEX) {
        LLVMValueRef re = LLVMGetParam(fn, (*next)++), im = LLVMGetParam(fn, (*next)++);
        return complex_make(g, llvm_type(g, t), re, im);
    }
    if (t->kind == TY_TUPLE) {
        LLVMValueRef v = LLVMGetUndef(llvm_type(g, t));
        for (int i = 0; i < t->elem_count; i++)
            v = LLVMBuildInsertValue(g->b, v, abi_unpack(g, t->elems[i], fn, next), (unsigned)i, "");
        return v;
    }
    LLVMValueRef v = LLVMGetParam(fn, (*next)++);
    return t->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(i8(g), 0, false), "") : v;
}

/* The LLVM function type of f: a kernel's entry takes its parameters in
 * their parts (abi), its body and device functions take them whole. */
static LLVMTypeRef function_type(CodeGen *g, const FuncInfo *f, bool abi) {
    int n = 0;
    for (int i = 0; i < f->param_count; i++) n += abi ? abi_part_count(f->params[i]->ty) : 1;
    LLVMTypeRef *params = ARENA_ARRAY(g->arena, LLVMTypeRef, n ? n : 1);
    n = 0;
    for (int i = 0; i < f->param_count; i++) {
        const Type *t = f->params[i]->ty;
        if (!abi) params[n++] = t->kind == TY_NONE ? i8(g) : llvm_type(g, t);
        else
            for (int j = 0; j < abi_part_count(t); j++) params[n++] = part_type(g, abi_part(t, j));
    }
    LLVMTypeRef ret = f->is_kernel ? LLVMVoidTypeInContext(g->ctx) : llvm_type(g, f->ret);
    return LLVMFunctionType(ret, params, (unsigned)n, false);
}

/* A function's own floating-point model: @cuda.jit(fastmath=True) or
 * --fastmath. */
static bool fastmath_of(const Unit *u, const FuncInfo *f) { return f->fastmath || u->opts->fastmath; }

/* Kernels of imported modules are not entries of this one, and a device
 * function without types exists only as its specialisations. */
static bool emitted(const FuncInfo *f) {
    return !f->abstract && !(f->imported && f->is_kernel) && (f->is_kernel || !f->generic || f->live);
}

enum { MODEL_PLAIN = 1, MODEL_FAST = 2 };

/* The floating-point models the unit's kernels are compiled under: NVVM
 * compiles each of Numba's kernels, with the device functions it calls, in
 * a module of its own, fastmath giving that module ftz=1, prec-div=0 and
 * prec-sqrt=0. A device function is therefore compiled under each model
 * that some kernel has (under the plain one where there are no kernels). */
static unsigned kernel_models(const Unit *u) {
    unsigned models = 0;
    for (int i = 0; i < u->func_count; i++)
        if (emitted(u->funcs[i]) && u->funcs[i]->is_kernel) models |= fastmath_of(u, u->funcs[i]) ? MODEL_FAST : MODEL_PLAIN;
    return models ? models : MODEL_PLAIN;
}

static bool compiled_under(const Unit *u, const FuncInfo *f, unsigned models, bool ftz) {
    if (!emitted(f)) return false;
    if (f->is_kernel) return fastmath_of(u, f) == ftz;
    return models & (ftz ? MODEL_FAST : MODEL_PLAIN);
}

/* Whether kernel f's parameters fit what the target passes to a kernel. */
static bool params_fit(CodeGen *g, const FuncInfo *f) {
    long bytes = 0, limit = TARGET(g)->max_param_bytes(g->cfg);
    for (int i = 0; i < f->param_count; i++)
        for (int j = 0; j < abi_part_count(f->params[i]->ty); j++) {
            AbiPart p = abi_part(f->params[i]->ty, j);
            bytes = (bytes + p.size - 1) / p.size * p.size + p.size;
        }
    if (bytes <= limit) return true;
    diag_error(g->diag, f->def->span, "kernel '%s' takes %ld bytes of parameters; %s allows %ld on %s", f->def->name,
               bytes, TARGET(g)->name, limit, g->cfg->arch);
    g->failed = true;
    return false;
}

static void add_fn_attribute(CodeGen *g, LLVMValueRef fn, const char *name) {
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->ctx, kind, 0));
}

/* forceinline=True and inline="always" inline a device function into its
 * callers, as NVVM's alwaysinline and Numba's IR inlining do; opt=False
 * leaves a function as written, as NVVM's -opt=0 does. */
static void mark_inlining(CodeGen *g, const FuncInfo *f, LLVMValueRef fn) {
    if (f->unoptimized) {
        add_fn_attribute(g, fn, "optnone");
        add_fn_attribute(g, fn, "noinline");
    } else if (!f->is_kernel && (f->forceinline || (f->inline_mode && strcmp(f->inline_mode, "always") == 0))) {
        add_fn_attribute(g, fn, "alwaysinline");
    }
}

/* Declares f's function under model ftz; a device function compiled under
 * both models names its fast copy NAME.ftz (a name no Python name clashes
 * with). */
/* A function's name in the module: a function defined inside another is
 * named after it, K.f and K.lambda. */
static const char *function_name(CodeGen *g, const FuncInfo *f) {
    if (!f->closure) return f->def->name;
    const char *own = strcmp(f->def->name, "<lambda>") ? f->def->name : "lambda";
    return arena_printf(g->arena, "%s.%s", function_name(g, f->enclosing), own);
}

static void declare_function(CodeGen *g, FuncInfo *f, bool ftz, bool both) {
    const char *base = function_name(g, f);
    const char *name = both && ftz ? arena_printf(g->arena, "%s.ftz", base) : base;
    LLVMValueRef fn = LLVMAddFunction(g->mod, name, function_type(g, f, f->is_kernel));
    if (f->is_kernel) TARGET(g)->mark_kernel(g, f, fn);
    else LLVMSetLinkage(fn, LLVMInternalLinkage);
    mark_inlining(g, f, fn);
    if (ftz) TARGET(g)->mark_fast_model(fn);
    f->cg[ftz] = fn;
}

/* f's body under model ftz; a kernel's function takes the ABI's
 * parameters. */
static void define_function(CodeGen *g, FuncInfo *f, bool ftz) {
    g->fn = f;
    g->llfn = f->cg[ftz];
    g->fastmath = fastmath_of(g->unit, f);
    g->ftz = ftz;
    g->loop_count = 0;
    LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->ctx, g->llfn, "entry"));
    di_function(g, f);
    LLVMSetCurrentDebugLocation2(g->b, NULL);
    if (g->di) di_location(g, f->def);
    unsigned next = 0;
    for (int i = 0; i < f->param_count; i++) {
        Sym *p = f->params[i];
        LLVMValueRef v = f->is_kernel ? abi_unpack(g, p->ty, g->llfn, &next) : LLVMGetParam(g->llfn, next++);
        /* a parameter is its first version, never assigned again */
        LLVMSetValueName2(v, p->name, strlen(p->name));
        p->cg = v;
        p->cg_is_value = true;
    }
    for (int i = 0; i < f->local_count; i++) {
        Sym *l = f->locals[i];
        l->cg = NULL;
        l->cg_is_value = false;
        if (l->is_phi && has_storage(l)) version_slot(g, l);
    }
    gen_body(g, f);
}

/* Deletes the insertvalues that extract() left without a use, the last of
 * a chain first: aggregates built only to be taken apart again. */
static void drop_unused_aggregates(LLVMModuleRef m) {
    for (bool dropped = true; dropped;) {
        dropped = false;
        for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
                for (LLVMValueRef i = LLVMGetLastInstruction(b), prev; i; i = prev) {
                    prev = LLVMGetPreviousInstruction(i);
                    if (LLVMIsAInsertValueInst(i) && !LLVMGetFirstUse(i)) {
                        LLVMInstructionEraseFromParent(i);
                        dropped = true;
                    }
                }
    }
}

/* Every function of the unit, in source order, declared before any is
 * defined (calls may go forward), each under the models it needs. */
static void build_functions(CodeGen *g) {
    Unit *u = g->unit;
    unsigned models = kernel_models(u);
    for (int i = 0; i < u->extern_count; i++) u->externs[i]->cg = declare_extern(g, u->externs[i]); /* first: they keep their names */
    for (int i = 0; i < u->func_count; i++)
        if (u->funcs[i]->is_kernel && emitted(u->funcs[i]) && !u->funcs[i]->contiguous_of) params_fit(g, u->funcs[i]);
    for (int i = 0; i < u->func_count && !g->failed; i++)
        for (int ftz = 0; ftz < 2; ftz++)
            if (compiled_under(u, u->funcs[i], models, ftz))
                declare_function(g, u->funcs[i], ftz, !u->funcs[i]->is_kernel && models == (MODEL_PLAIN | MODEL_FAST));
    for (int i = 0; i < u->func_count && !g->failed; i++)
        for (int ftz = 0; ftz < 2 && !g->failed; ftz++)
            if (compiled_under(u, u->funcs[i], models, ftz)) define_function(g, u->funcs[i], ftz);
}

DebugLevel cg_debug_level(const Unit *u) {
    DebugLevel level = u->opts->debug_info ? DEBUG_FULL : u->opts->lineinfo ? DEBUG_LINES : DEBUG_NONE;
    for (int i = 0; i < u->func_count; i++) {
        const FuncInfo *f = u->funcs[i];
        if (!emitted(f)) continue;
        if (f->debug) level = DEBUG_FULL;
        else if (f->lineinfo && level == DEBUG_NONE) level = DEBUG_DIRECTIVES;
    }
    return level;
}

IrModule *cg_module(Unit *u, const TargetConfig *cfg) {
    IrModule *m = ir_module_new(cfg, u->opts->input, u->diag);
    if (!m) return NULL;
    /* Names of values (not of functions and globals) matter only in IR
     * that someone reads: PTX names its registers itself. */
    LLVMContextSetDiscardValueNames(m->ctx, u->opts->emit != EMIT_LLVM);
    CodeGen g = {.ctx = m->ctx, .mod = m->mod, .cfg = cfg, .unit = u, .diag = u->diag, .arena = u->arena};
    g.b = LLVMCreateBuilderInContext(m->ctx);
    DebugLevel debug = cg_debug_level(u);
    if (debug != DEBUG_NONE) di_begin(&g, debug);
    build_functions(&g);
    if (g.di) {
        LLVMDIBuilderFinalize(g.di);
        LLVMDisposeDIBuilder(g.di);
    }
    LLVMDisposeBuilder(g.b);
    if (g.failed) {
        ir_module_free(m);
        return NULL;
    }
    drop_unused_aggregates(g.mod);
    ir_verify(g.mod, "the LLVM IR that pykc built");
    return m;
}
