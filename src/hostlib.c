/*
 * hostlib.c - libdevice on the CPU: the host target links CUDA's libdevice,
 * as the GPU's does, and lowers the NVVM intrinsics that its functions
 * call to what the CPU computes the same way.
 *
 * Most of libdevice is arithmetic rounded to nearest (fma.rn, mul.rn,
 * add.rn), conversions and bit manipulations: lowered to LLVM's own
 * operations, they give the GPU's results bit for bit (logf, sinf, cosf,
 * the float64 functions, and so numba.cuda.random's normal draws). The
 * directed roundings (add.rz, fma.rm, cvt.rp ...) run under the rounding
 * mode they name, in a small function of their own that sets it (strict
 * floating point, so nothing moves across). What the GPU approximates in
 * hardware (ex2.approx, lg2.approx, sin.approx, rcp.approx, rsqrt.approx,
 * tanh.approx) is computed exactly here: the functions that use them
 * (expf, tanhf, erfcf, the fast_ forms) stay within libdevice's stated
 * error but not bit for bit.
 */
#include "backend.h"

#include <llvm-c/Core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lowerer {
    LLVMModuleRef mod;
    LLVMContextRef ctx;
    LLVMBuilderRef b;
} Lowerer;

/* An NVVM intrinsic's name, parsed: llvm.nvvm.OP[.ROUNDING][.ftz][.TYPE]. */
typedef struct Nvvm {
    char op[16];
    char rounding;        /* 'n', 'z', 'm', 'p', 'a' (approx), or 0 */
} Nvvm;

static void parse_nvvm(const char *name, Nvvm *n) {
    memset(n, 0, sizeof *n);
    const char *p = name + strlen("llvm.nvvm.");
    size_t len = strcspn(p, ".");
    snprintf(n->op, sizeof n->op, "%.*s", (int)(len < sizeof n->op ? len : sizeof n->op - 1), p);
    for (p += len; *p == '.'; p += len) {
        p++;
        len = strcspn(p, ".");
        if (len == 2 && p[0] == 'r' && strchr("nzmp", p[1])) n->rounding = p[1];
        else if (len == 6 && !strncmp(p, "approx", 6)) n->rounding = 'a';
    }
}

static LLVMValueRef call_intrinsic(Lowerer *l, const char *name, LLVMTypeRef *overloads, int no, LLVMValueRef *args,
                                   int n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) ice("unknown intrinsic %s", name);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(l->mod, id, overloads, (size_t)no);
    return LLVMBuildCall2(l->b, LLVMIntrinsicGetType(l->ctx, id, overloads, (size_t)no), f, args, (unsigned)n, "");
}

static LLVMValueRef unary(Lowerer *l, const char *name, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    return call_intrinsic(l, name, &t, 1, &x, 1);
}

static LLVMValueRef libm_call(Lowerer *l, const char *f64, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    char name[32];
    snprintf(name, sizeof name, "%s%s", f64, LLVMGetTypeKind(t) == LLVMFloatTypeKind ? "f" : "");
    LLVMValueRef fn = LLVMGetNamedFunction(l->mod, name);
    LLVMTypeRef fty = LLVMFunctionType(t, &t, 1, false);
    if (!fn) fn = LLVMAddFunction(l->mod, name, fty);
    return LLVMBuildCall2(l->b, fty, fn, &x, 1, "");
}

/* ---- directed rounding ----------------------------------------------------------- */

static void add_enum_attr(Lowerer *l, LLVMValueRef v, LLVMAttributeIndex at, const char *name, bool call) {
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAttributeRef a = LLVMCreateEnumAttribute(l->ctx, kind, 0);
    if (call) LLVMAddCallSiteAttribute(v, at, a);
    else LLVMAddAttributeAtIndex(v, at, a);
}

static LLVMValueRef metadata_string(Lowerer *l, const char *s) {
    return LLVMMetadataAsValue(l->ctx, LLVMMDStringInContext2(l->ctx, s, strlen(s)));
}

/* The constrained form of `op` (fadd, fma, sitofp ...) on args, under the
 * rounding mode in force. */
static LLVMValueRef constrained(Lowerer *l, const char *op, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    char name[64];
    snprintf(name, sizeof name, "llvm.experimental.constrained.%s", op);
    bool conversion = strstr(op, "to") != NULL || !strcmp(op, "fptrunc");
    LLVMTypeRef overloads[] = {ret, LLVMTypeOf(args[0])};
    LLVMValueRef all[5];
    for (int i = 0; i < n; i++) all[i] = args[i];
    int k = n;
    if (strcmp(op, "fptosi") && strcmp(op, "fptoui")) all[k++] = metadata_string(l, "round.dynamic");
    all[k++] = metadata_string(l, "fpexcept.ignore");
    LLVMValueRef r = call_intrinsic(l, name, overloads, conversion ? 2 : 1, all, k);
    add_enum_attr(l, r, LLVMAttributeFunctionIndex, "strictfp", true);
    return r;
}

/* FLT_ROUNDS' code of a PTX rounding: toward zero 0, up 2, down 3. */
static int rounding_code(char r) { return r == 'z' ? 0 : r == 'p' ? 2 : 3; }

/* pykc.round.OP.R(args): OP under rounding R, in a function of its own
 * that sets the mode and puts it back. */
static LLVMValueRef rounded(Lowerer *l, const char *op, char r, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    char name[96], *type = LLVMPrintTypeToString(ret), *from = LLVMPrintTypeToString(LLVMTypeOf(args[0]));
    snprintf(name, sizeof name, "pykc.round.%s.r%c.%s.%s", op, r, type, from);
    LLVMDisposeMessage(type);
    LLVMDisposeMessage(from);
    LLVMTypeRef params[3];
    for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, false);
    LLVMValueRef fn = LLVMGetNamedFunction(l->mod, name);
    LLVMBuilderRef caller_b = l->b;
    if (!fn) {
        fn = LLVMAddFunction(l->mod, name, fty);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        add_enum_attr(l, fn, LLVMAttributeFunctionIndex, "strictfp", false);
        add_enum_attr(l, fn, LLVMAttributeFunctionIndex, "noinline", false);
        Lowerer own = {l->mod, l->ctx, LLVMCreateBuilderInContext(l->ctx)};
        LLVMPositionBuilderAtEnd(own.b, LLVMAppendBasicBlockInContext(l->ctx, fn, "entry"));
        l = &own;
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l->ctx);
        LLVMValueRef old = call_intrinsic(l, "llvm.get.rounding", NULL, 0, NULL, 0);
        LLVMValueRef mode = LLVMConstInt(i32, (unsigned long long)rounding_code(r), false);
        add_enum_attr(l, call_intrinsic(l, "llvm.set.rounding", NULL, 0, &mode, 1), LLVMAttributeFunctionIndex,
                      "strictfp", true);
        LLVMValueRef params_v[3];
        for (int i = 0; i < n; i++) params_v[i] = LLVMGetParam(fn, (unsigned)i);
        LLVMValueRef v = constrained(l, op, ret, params_v, n);
        add_enum_attr(l, call_intrinsic(l, "llvm.set.rounding", NULL, 0, &old, 1), LLVMAttributeFunctionIndex,
                      "strictfp", true);
        LLVMBuildRet(l->b, v);
        LLVMDisposeBuilder(own.b);
        return LLVMBuildCall2(caller_b, fty, fn, args, (unsigned)n, "");
    }
    return LLVMBuildCall2(l->b, fty, fn, args, (unsigned)n, "");
}

/* ---- the intrinsics ---------------------------------------------------------------- */

/* add, mul, div, fma, sqrt, rcp: rounded to nearest, or as r says. */
static LLVMValueRef arithmetic(Lowerer *l, const Nvvm *n, LLVMValueRef call, LLVMValueRef *a) {
    LLVMTypeRef t = LLVMTypeOf(call);
    LLVMValueRef one = LLVMConstReal(t, 1.0);
    const char *op = n->op;
    if (n->rounding == 'z' || n->rounding == 'm' || n->rounding == 'p') {
        static const struct { const char *nvvm, *llvm; } ops[] = {
            {"add", "fadd"}, {"mul", "fmul"}, {"div", "fdiv"}, {"fma", "fma"}, {"sqrt", "sqrt"}, {"rcp", "fdiv"},
        };
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (!strcmp(op, ops[i].nvvm)) {
                LLVMValueRef rcp[] = {one, a[0]};
                int arity = !strcmp(op, "fma") ? 3 : !strcmp(op, "sqrt") ? 1 : 2;
                return rounded(l, ops[i].llvm, n->rounding, t, !strcmp(op, "rcp") ? rcp : a, arity);
            }
    }
    if (!strcmp(op, "add")) return LLVMBuildFAdd(l->b, a[0], a[1], "");
    if (!strcmp(op, "mul")) return LLVMBuildFMul(l->b, a[0], a[1], "");
    if (!strcmp(op, "div") && n->rounding == 'a') { /* a * rcp.approx(b): 0 once 1/b is subnormal */
        LLVMValueRef big = LLVMBuildFCmp(l->b, LLVMRealOGT, unary(l, "llvm.fabs", a[1]), LLVMConstReal(t, 0x1p126), "");
        LLVMValueRef signed_zero[] = {LLVMConstReal(t, 0.0), a[1]};
        LLVMValueRef z = call_intrinsic(l, "llvm.copysign", &t, 1, signed_zero, 2);
        return LLVMBuildSelect(l->b, big, LLVMBuildFMul(l->b, a[0], z, ""), LLVMBuildFDiv(l->b, a[0], a[1], ""), "");
    }
    if (!strcmp(op, "div")) return LLVMBuildFDiv(l->b, a[0], a[1], "");
    if (!strcmp(op, "fma")) return call_intrinsic(l, "llvm.fma", &t, 1, a, 3);
    if (!strcmp(op, "sqrt")) return unary(l, "llvm.sqrt", a[0]);
    if (!strcmp(op, "rcp")) return LLVMBuildFDiv(l->b, one, a[0], "");
    return LLVMBuildFDiv(l->b, one, unary(l, "llvm.sqrt", a[0]), ""); /* rsqrt */
}

/* x (already integral) to integer type t as the GPU's cvt.rzi does it:
 * saturated; NaN to 0 from float32 to 32 bits, else to the top bit alone
 * (0x80000000..., as an H100 gives it). */
static LLVMValueRef gpu_to_integer(Lowerer *l, LLVMValueRef x, LLVMTypeRef t, bool to_unsigned) {
    LLVMTypeRef types[] = {t, LLVMTypeOf(x)};
    LLVMValueRef v = call_intrinsic(l, to_unsigned ? "llvm.fptoui.sat" : "llvm.fptosi.sat", types, 2, &x, 1);
    LLVMTypeRef scalar = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    LLVMTypeRef from = LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind ? LLVMGetElementType(LLVMTypeOf(x))
                                                                              : LLVMTypeOf(x);
    unsigned bits = LLVMGetIntTypeWidth(scalar);
    if (bits == 32 && LLVMGetTypeKind(from) == LLVMFloatTypeKind) return v;
    LLVMValueRef top = LLVMConstInt(scalar, 1ull << (bits - 1), false);
    if (scalar != t) {
        unsigned lanes = LLVMGetVectorSize(t);
        LLVMValueRef *each = malloc(sizeof *each * lanes);
        if (!each) ice("out of memory");
        for (unsigned k = 0; k < lanes; k++) each[k] = top;
        top = LLVMConstVector(each, lanes);
        free(each);
    }
    return LLVMBuildSelect(l->b, LLVMBuildFCmp(l->b, LLVMRealUNO, x, x, ""), top, v, "");
}

/* Every fptosi and fptoui of m as the GPU's cvt.rzi computes them: LLVM
 * leaves NaN and out of range undefined, and the CPU's instructions give
 * the most negative integer where the GPU saturates. */
static void gpu_conversions(Lowerer *l) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(l->mod); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                LLVMOpcode op = LLVMGetInstructionOpcode(i);
                if (op != LLVMFPToSI && op != LLVMFPToUI) continue;
                LLVMPositionBuilderBefore(l->b, i);
                LLVMReplaceAllUsesWith(i, gpu_to_integer(l, LLVMGetOperand(i, 0), LLVMTypeOf(i), op == LLVMFPToUI));
                LLVMInstructionEraseFromParent(i);
            }
}

/* f2i, d2ll, i2f, ull2d, d2f, f2h ...: conversions as cvt rounds them,
 * to integers saturated (NaN to 0). */
static LLVMValueRef conversion(Lowerer *l, const Nvvm *n, LLVMValueRef call, LLVMValueRef *a) {
    static const char *const to_integer[] = {['n'] = "llvm.rint", ['m'] = "llvm.floor", ['p'] = "llvm.ceil"};
    LLVMTypeRef t = LLVMTypeOf(call);
    const char *to = strchr(n->op, '2') + 1;
    bool from_int = strchr("iul", n->op[0]) != NULL, is_unsigned = n->op[0] == 'u';
    char r = n->rounding ? n->rounding : 'n';
    if (!strcmp(to, "h")) { /* f2h.rn: half bits, NaN canonical (0x7fff) */
        LLVMTypeRef i16 = LLVMInt16TypeInContext(l->ctx);
        LLVMValueRef h = LLVMBuildBitCast(l->b, LLVMBuildFPTrunc(l->b, a[0], LLVMHalfTypeInContext(l->ctx), ""), i16, "");
        LLVMValueRef nan = LLVMBuildFCmp(l->b, LLVMRealUNO, a[0], a[0], "");
        return LLVMBuildZExt(l->b, LLVMBuildSelect(l->b, nan, LLVMConstInt(i16, 0x7fff, false), h, ""), t, "");
    }
    if (from_int) {
        if (r == 'n') return is_unsigned ? LLVMBuildUIToFP(l->b, a[0], t, "") : LLVMBuildSIToFP(l->b, a[0], t, "");
        return rounded(l, is_unsigned ? "uitofp" : "sitofp", r, t, a, 1);
    }
    if (!strcmp(to, "f")) return r == 'n' ? LLVMBuildFPTrunc(l->b, a[0], t, "") : rounded(l, "fptrunc", r, t, a, 1);
    LLVMValueRef x = r == 'z' ? a[0] : unary(l, to_integer[(unsigned char)r], a[0]);
    return gpu_to_integer(l, x, t, to[0] == 'u');
}

/* d2i.hi, d2i.lo, lohi.i2d: a double's halves. */
static LLVMValueRef halves(Lowerer *l, const Nvvm *n, LLVMValueRef call, LLVMValueRef *a, bool high) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(l->ctx);
    if (!strcmp(n->op, "lohi")) {
        LLVMValueRef hi = LLVMBuildShl(l->b, LLVMBuildZExt(l->b, a[1], i64, ""), LLVMConstInt(i64, 32, false), "");
        return LLVMBuildBitCast(l->b, LLVMBuildOr(l->b, hi, LLVMBuildZExt(l->b, a[0], i64, ""), ""), LLVMTypeOf(call), "");
    }
    LLVMValueRef bits = LLVMBuildBitCast(l->b, a[0], i64, "");
    if (high) bits = LLVMBuildLShr(l->b, bits, LLVMConstInt(i64, 32, false), "");
    return LLVMBuildTrunc(l->b, bits, LLVMTypeOf(call), "");
}

/* mulhi.{i,ui,ll,ull}: the high half of the double-width product. */
static LLVMValueRef mul_high(Lowerer *l, const char *name, LLVMValueRef call, LLVMValueRef *a) {
    LLVMTypeRef t = LLVMTypeOf(call);
    unsigned bits = LLVMGetIntTypeWidth(t);
    LLVMTypeRef wide = LLVMIntTypeInContext(l->ctx, 2 * bits);
    bool u = strstr(name, ".u") != NULL;
    LLVMValueRef x = u ? LLVMBuildZExt(l->b, a[0], wide, "") : LLVMBuildSExt(l->b, a[0], wide, "");
    LLVMValueRef y = u ? LLVMBuildZExt(l->b, a[1], wide, "") : LLVMBuildSExt(l->b, a[1], wide, "");
    LLVMValueRef p = LLVMBuildLShr(l->b, LLVMBuildMul(l->b, x, y, ""), LLVMConstInt(wide, bits, false), "");
    return LLVMBuildTrunc(l->b, p, t, "");
}

/* sad.{i,ui}: |a - b| + c. */
static LLVMValueRef abs_diff(Lowerer *l, const char *name, LLVMValueRef *a) {
    bool u = strstr(name, ".ui") != NULL;
    LLVMValueRef lt = LLVMBuildICmp(l->b, u ? LLVMIntULT : LLVMIntSLT, a[0], a[1], "");
    LLVMValueRef d = LLVMBuildSelect(l->b, lt, LLVMBuildSub(l->b, a[1], a[0], ""), LLVMBuildSub(l->b, a[0], a[1], ""), "");
    return LLVMBuildAdd(l->b, d, a[2], "");
}

/* prmt, default mode: byte i is byte s[4i+2:4i] of b:a, or its sign
 * everywhere where s[4i+3]. */
static LLVMValueRef permute(Lowerer *l, LLVMValueRef *a) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(l->ctx), i64 = LLVMInt64TypeInContext(l->ctx);
    LLVMValueRef both = LLVMBuildOr(l->b, LLVMBuildZExt(l->b, a[0], i64, ""),
                                    LLVMBuildShl(l->b, LLVMBuildZExt(l->b, a[1], i64, ""), LLVMConstInt(i64, 32, false), ""), "");
    LLVMValueRef r = LLVMConstNull(i32);
    for (unsigned i = 0; i < 4; i++) {
        LLVMValueRef nib = LLVMBuildAnd(l->b, LLVMBuildLShr(l->b, a[2], LLVMConstInt(i32, 4 * i, false), ""),
                                        LLVMConstInt(i32, 15, false), "");
        LLVMValueRef at = LLVMBuildZExt(l->b, LLVMBuildMul(l->b, LLVMBuildAnd(l->b, nib, LLVMConstInt(i32, 7, false), ""),
                                                           LLVMConstInt(i32, 8, false), ""), i64, "");
        LLVMValueRef byte = LLVMBuildTrunc(l->b, LLVMBuildAnd(l->b, LLVMBuildLShr(l->b, both, at, ""),
                                                              LLVMConstInt(i64, 255, false), ""), i32, "");
        LLVMValueRef neg = LLVMBuildICmp(l->b, LLVMIntUGE, byte, LLVMConstInt(i32, 128, false), "");
        LLVMValueRef sign = LLVMBuildSelect(l->b, neg, LLVMConstInt(i32, 255, false), LLVMConstNull(i32), "");
        LLVMValueRef rep = LLVMBuildICmp(l->b, LLVMIntUGE, nib, LLVMConstInt(i32, 8, false), "");
        byte = LLVMBuildSelect(l->b, rep, sign, byte, "");
        r = LLVMBuildOr(l->b, r, LLVMBuildShl(l->b, byte, LLVMConstInt(i32, 8 * i, false), ""), "");
    }
    return r;
}

/* min.f32 and max.f32: the number of a NaN and a number, and of -0.0 and
 * 0.0 the less (more) by sign, which LLVM's minnum leaves open. */
static LLVMValueRef min_max(Lowerer *l, bool is_min, LLVMValueRef *a) {
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    LLVMValueRef r = call_intrinsic(l, is_min ? "llvm.minnum" : "llvm.maxnum", &t, 1, a, 2);
    LLVMTypeRef bits = LLVMIntTypeInContext(l->ctx, LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32);
    LLVMValueRef x = LLVMBuildBitCast(l->b, a[0], bits, ""), y = LLVMBuildBitCast(l->b, a[1], bits, "");
    LLVMValueRef zeros = LLVMBuildBitCast(l->b, is_min ? LLVMBuildOr(l->b, x, y, "") : LLVMBuildAnd(l->b, x, y, ""), t, "");
    return LLVMBuildSelect(l->b, LLVMBuildFCmp(l->b, LLVMRealOEQ, a[0], a[1], ""), zeros, r, "");
}

/* saturate: [0, 1], NaN to 0. */
static LLVMValueRef saturate(Lowerer *l, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef lo[] = {x, LLVMConstReal(t, 0.0)};
    LLVMValueRef v = call_intrinsic(l, "llvm.maxnum", &t, 1, lo, 2);
    LLVMValueRef hi[] = {v, LLVMConstReal(t, 1.0)};
    return call_intrinsic(l, "llvm.minnum", &t, 1, hi, 2);
}

/* The approximations of the GPU's special function unit, computed exactly. */
static LLVMValueRef approximation(Lowerer *l, const Nvvm *n, LLVMValueRef *a) {
    static const struct { const char *op, *llvm; } unit[] = {
        {"ex2", "llvm.exp2"}, {"lg2", "llvm.log2"}, {"sin", "llvm.sin"}, {"cos", "llvm.cos"},
    };
    for (size_t i = 0; i < sizeof unit / sizeof unit[0]; i++)
        if (!strcmp(n->op, unit[i].op)) return unary(l, unit[i].llvm, a[0]);
    return !strcmp(n->op, "tanh") ? libm_call(l, "tanh", a[0]) : NULL;
}

/* The generic operation for one call of an NVVM intrinsic, or NULL. */
static LLVMValueRef lower_call(Lowerer *l, const char *name, LLVMValueRef call, LLVMValueRef *a) {
    static const struct { const char *op, *llvm; } same[] = {
        {"fabs", "llvm.fabs"}, {"floor", "llvm.floor"}, {"ceil", "llvm.ceil"}, {"trunc", "llvm.trunc"},
        {"round", "llvm.rint"},
    };
    Nvvm n;
    parse_nvvm(name, &n);
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (!strcmp(n.op, same[i].op)) return unary(l, same[i].llvm, a[0]);
    if (!strcmp(n.op, "fmin") || !strcmp(n.op, "fmax")) return min_max(l, n.op[2] == 'i', a);
    if (!strcmp(n.op, "saturate")) return saturate(l, a[0]);
    if (!strcmp(n.op, "d2i") && n.rounding == 0) return halves(l, &n, call, a, strstr(name, ".hi") != NULL);
    if (!strcmp(n.op, "lohi")) return halves(l, &n, call, a, false);
    if (!strcmp(n.op, "mulhi")) return mul_high(l, name, call, a);
    if (!strcmp(n.op, "sad")) return abs_diff(l, name, a);
    if (!strcmp(n.op, "prmt")) return permute(l, a);
    if (n.rounding == 'a' && strcmp(n.op, "rcp") && strcmp(n.op, "rsqrt") && strcmp(n.op, "div") &&
        strcmp(n.op, "sqrt"))
        return approximation(l, &n, a);
    if (strchr(n.op, '2')) return conversion(l, &n, call, a);
    static const char *const arith[] = {"add", "mul", "div", "fma", "sqrt", "rcp", "rsqrt"};
    for (size_t i = 0; i < sizeof arith / sizeof arith[0]; i++)
        if (!strcmp(n.op, arith[i])) return arithmetic(l, &n, call, a);
    return NULL;
}

/* ---- libdevice's inline PTX -------------------------------------------------------- */

/* The asm text without white space, for matching. */
static void squeeze(const char *text, size_t len, char *out, size_t size) {
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < size; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n') out[k++] = text[i];
    out[k] = '\0';
}

static LLVMValueRef pair(Lowerer *l, LLVMValueRef call, LLVMValueRef wide) {
    LLVMTypeRef t = LLVMTypeOf(call), half = LLVMStructGetTypeAtIndex(t, 0);
    unsigned bits = LLVMGetIntTypeWidth(half);
    LLVMValueRef lo = LLVMBuildTrunc(l->b, wide, half, "");
    LLVMValueRef hi = LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, wide, LLVMConstInt(LLVMTypeOf(wide), bits, false), ""),
                                     half, "");
    LLVMValueRef r = LLVMBuildInsertValue(l->b, LLVMGetUndef(t), lo, 0, "");
    return LLVMBuildInsertValue(l->b, r, hi, 1, "");
}

static LLVMValueRef widen(Lowerer *l, LLVMValueRef lo, LLVMValueRef hi, LLVMTypeRef wide) {
    unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(lo));
    LLVMValueRef h = LLVMBuildShl(l->b, LLVMBuildZExt(l->b, hi, wide, ""), LLVMConstInt(wide, bits, false), "");
    return LLVMBuildOr(l->b, h, LLVMBuildZExt(l->b, lo, wide, ""), "");
}

/* The wide multiply-adds and carries of libdevice's multi-word integer
 * arithmetic (mad.lo.cc ... madc.hi): the whole sum in one wide integer. */
static LLVMValueRef multiword(Lowerer *l, const char *s, LLVMValueRef call, LLVMValueRef *a) {
    LLVMTypeRef half = LLVMStructGetTypeAtIndex(LLVMTypeOf(call), 0);
    LLVMTypeRef wide = LLVMIntTypeInContext(l->ctx, 2 * LLVMGetIntTypeWidth(half));
    if (strstr(s, "sub.cc.u32") || strstr(s, "add.cc.u32")) {
        LLVMValueRef x = widen(l, a[0], a[1], wide), y = widen(l, a[2], a[3], wide);
        return pair(l, call, strstr(s, "sub.cc") ? LLVMBuildSub(l->b, x, y, "") : LLVMBuildAdd(l->b, x, y, ""));
    }
    LLVMValueRef p = LLVMBuildMul(l->b, LLVMBuildZExt(l->b, a[0], wide, ""), LLVMBuildZExt(l->b, a[1], wide, ""), "");
    bool adds = strstr(s, "{clo,chi}") || !strstr(s, ".reg");
    return pair(l, call, adds ? LLVMBuildAdd(l->b, p, LLVMBuildZExt(l->b, a[2], wide, ""), "") : p);
}

/* Each inline PTX instruction of libdevice as the CPU computes it, or NULL. */
static LLVMValueRef lower_asm(Lowerer *l, LLVMValueRef asm_, LLVMValueRef call, LLVMValueRef *a) {
    size_t len;
    const char *text = LLVMGetInlineAsmAsmString(asm_, &len);
    char s[1024];
    squeeze(text, len, s, sizeof s);
    LLVMTypeRef t = LLVMTypeOf(call);
    if (strstr(s, "rcp.approx.ftz.f32")) return LLVMBuildFDiv(l->b, LLVMConstReal(t, 1.0), a[0], "");
    if (strstr(s, "rsqrt.approx.ftz.f64"))
        return LLVMBuildFDiv(l->b, LLVMConstReal(t, 1.0), unary(l, "llvm.sqrt", a[0]), "");
    if (!strncmp(s, "sub.r", 5)) {
        if (s[5] == 'n') return LLVMBuildFSub(l->b, a[0], a[1], "");
        return rounded(l, "fsub", s[5], t, a, 2);
    }
    if (strstr(s, "setp.equ.f64")) return LLVMBuildSelect(l->b, LLVMBuildFCmp(l->b, LLVMRealUEQ, a[0], a[1], ""), a[2], a[3], "");
    if (strstr(s, "bfind.shiftamt.u32")) {
        LLVMValueRef args[] = {a[0], LLVMConstInt(LLVMInt1TypeInContext(l->ctx), 0, false)};
        LLVMValueRef clz = call_intrinsic(l, "llvm.ctlz", &t, 1, args, 2);
        LLVMValueRef zero = LLVMBuildICmp(l->b, LLVMIntEQ, a[0], LLVMConstNull(t), "");
        return LLVMBuildSelect(l->b, zero, LLVMConstAllOnes(t), clz, "");
    }
    if (strstr(s, "mad.lo.cc.u32") || strstr(s, "add.cc.u32") || strstr(s, "sub.cc.u32") || strstr(s, "mul.lo.u32"))
        return multiword(l, s, call, a);
    return NULL;
}

/* Each call of an inline asm in m lowered; false, naming it, where one
 * cannot be. */
static bool lower_asm_calls(Lowerer *l, Diag *d) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(l->mod); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                if (!LLVMIsACallInst(i) || !LLVMIsAInlineAsm(LLVMGetCalledValue(i))) continue;
                LLVMValueRef args[6];
                unsigned n = LLVMGetNumArgOperands(i);
                for (unsigned k = 0; k < n && k < 6; k++) args[k] = LLVMGetOperand(i, k);
                LLVMPositionBuilderBefore(l->b, i);
                LLVMValueRef v = lower_asm(l, LLVMGetCalledValue(i), i, args);
                if (!v) {
                    size_t len;
                    diag_plain(d, DIAG_ERROR, "the host target cannot compute the PTX '%s' of libdevice's %s",
                               LLVMGetInlineAsmAsmString(LLVMGetCalledValue(i), &len), LLVMGetValueName2(fn, &len));
                    return false;
                }
                LLVMReplaceAllUsesWith(i, v);
                LLVMInstructionEraseFromParent(i);
            }
    return true;
}

/* Every call of fn replaced; false (fn named) if one cannot be. */
static bool lower_intrinsic(Lowerer *l, LLVMValueRef fn, Diag *d) {
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(fn))) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMValueRef args[4];
        unsigned n = LLVMGetNumArgOperands(call);
        for (unsigned i = 0; i < n && i < 4; i++) args[i] = LLVMGetOperand(call, i);
        LLVMPositionBuilderBefore(l->b, call);
        LLVMValueRef v = LLVMIsACallInst(call) ? lower_call(l, name, call, args) : NULL;
        if (!v) {
            diag_plain(d, DIAG_ERROR, "the host target cannot compute %s, which libdevice's %s calls", name,
                       LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)), &len));
            return false;
        }
        LLVMReplaceAllUsesWith(call, v);
        LLVMInstructionEraseFromParent(call);
    }
    return true;
}

void hostlib_conversions(LLVMModuleRef m) {
    Lowerer l = {m, LLVMGetModuleContext(m), LLVMCreateBuilderInContext(LLVMGetModuleContext(m))};
    gpu_conversions(&l);
    LLVMDisposeBuilder(l.b);
}

bool hostlib_lower(LLVMModuleRef m, Diag *d) {
    Lowerer l = {m, LLVMGetModuleContext(m), LLVMCreateBuilderInContext(LLVMGetModuleContext(m))};
    bool ok = lower_asm_calls(&l, d);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m), next; fn && ok; fn = next) {
        next = LLVMGetNextFunction(fn);
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (strncmp(name, "llvm.nvvm.", 10) != 0 || !strncmp(name, "llvm.nvvm.reflect", 17)) continue;
        ok = lower_intrinsic(&l, fn, d);
        if (ok) LLVMDeleteFunction(fn);
    }
    LLVMDisposeBuilder(l.b);
    return ok;
}
