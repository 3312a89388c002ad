/*
 * hostmath.c - the host target's math: Numba's math functions and
 * libdevice's (numba.cuda.libdevice) on the CPU.
 *
 * By default they are libdevice's, called as the GPU's code calls them and
 * linked in by host_link (hostlib.c lowers their intrinsics). With
 * --math=libm, what libm has is libm's (glibc: within its documented ulp bounds of the
 * exact result, where libdevice states its own). What libdevice adds to C's
 * library is built here as the PTX it compiles to computes it: integer
 * intrinsics (popc, mulhi, byte_perm ...), conversions with their
 * rounding and saturation (cvt.rni.s32.f32 ...), bit casts, and the
 * round-to-nearest forms of arithmetic. Its directed roundings (_rd, _ru,
 * _rz arithmetic), sinpi/cospi and the inverse error and normal functions
 * are refused at the call, naming the function.
 */
#include "backend.h"

#include <string.h>

static LLVMTypeRef int_type(CodeGen *g, unsigned bits) { return LLVMIntTypeInContext(g->ctx, bits); }

static LLVMValueRef intrinsic1(CodeGen *g, const char *name, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    return cg_intrinsic(g, name, &t, 1, &x, 1);
}

/* The result as the signature's type: i32 counts of i64 inputs. */
static LLVMValueRef as_ret(CodeGen *g, LLVMValueRef v, LLVMTypeRef ret) {
    unsigned have = LLVMGetIntTypeWidth(LLVMTypeOf(v)), want = LLVMGetIntTypeWidth(ret);
    return have == want ? v : have > want ? LLVMBuildTrunc(g->b, v, ret, "") : LLVMBuildZExt(g->b, v, ret, "");
}

typedef LLVMValueRef (*OwnLowering)(CodeGen *g, LLVMValueRef *args, LLVMTypeRef ret, int arg);

/* ---- integers -------------------------------------------------------------- */

/* popc, clz, brev: LLVM's intrinsic (arg: its name's index below). */
static LLVMValueRef bit_count(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int which) {
    static const char *const names[] = {"llvm.ctpop", "llvm.ctlz", "llvm.bitreverse"};
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    if (which == 1) {
        LLVMValueRef args[] = {a[0], LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 0, false)};
        return as_ret(g, cg_intrinsic(g, names[1], &t, 1, args, 2), ret);
    }
    return as_ret(g, intrinsic1(g, names[which], a[0]), ret);
}

/* ffs: the 1-based index of the lowest set bit, 0 for 0. */
static LLVMValueRef find_first_set(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    LLVMValueRef args[] = {a[0], LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 0, false)};
    LLVMValueRef tz = cg_intrinsic(g, "llvm.cttz", &t, 1, args, 2);
    LLVMValueRef one = LLVMBuildAdd(g->b, tz, LLVMConstInt(t, 1, false), "");
    LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, a[0], LLVMConstNull(t), "");
    return as_ret(g, LLVMBuildSelect(g->b, zero, LLVMConstNull(t), one, ""), ret);
}

/* hadd, rhadd (arg bit 0: rounded up) and their unsigned forms (bit 1):
 * (a + b [+ 1]) >> 1 without overflow. */
static LLVMValueRef halving_add(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int how) {
    bool is_unsigned = how & 2;
    LLVMTypeRef wide = int_type(g, 64);
    LLVMValueRef x = is_unsigned ? LLVMBuildZExt(g->b, a[0], wide, "") : LLVMBuildSExt(g->b, a[0], wide, "");
    LLVMValueRef y = is_unsigned ? LLVMBuildZExt(g->b, a[1], wide, "") : LLVMBuildSExt(g->b, a[1], wide, "");
    LLVMValueRef s = LLVMBuildAdd(g->b, LLVMBuildAdd(g->b, x, y, ""), LLVMConstInt(wide, how & 1, false), "");
    return LLVMBuildTrunc(g->b, LLVMBuildAShr(g->b, s, LLVMConstInt(wide, 1, false), ""), ret, "");
}

/* mul24, umul24: the low 32 bits of the product of the low 24 bits. */
static LLVMValueRef mul24(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int is_unsigned) {
    LLVMValueRef s = LLVMConstInt(ret, 8, false), x = LLVMBuildShl(g->b, a[0], s, ""), y = LLVMBuildShl(g->b, a[1], s, "");
    x = is_unsigned ? LLVMBuildLShr(g->b, x, s, "") : LLVMBuildAShr(g->b, x, s, "");
    y = is_unsigned ? LLVMBuildLShr(g->b, y, s, "") : LLVMBuildAShr(g->b, y, s, "");
    return LLVMBuildMul(g->b, x, y, "");
}

/* min, max and kin: LLVM's smin, smax, umin, umax, abs (by name). */
static LLVMValueRef int_intrinsic(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int which) {
    static const char *const names[] = {"llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax"};
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    if (which == 4) {
        LLVMValueRef args[] = {a[0], LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 0, false)};
        return cg_intrinsic(g, "llvm.abs", &t, 1, args, 2);
    }
    return cg_intrinsic(g, names[which], &t, 1, a, 2);
}

/* ---- bits, tests and conversions ---------------------------------------------- */

static LLVMValueRef bit_cast(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    return LLVMBuildBitCast(g->b, a[0], ret, "");
}

/* isnan, isinf, isfinite (arg 0, 1, 2), signbit (3): 1 or 0. */
static LLVMValueRef float_test(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int which) {
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    LLVMValueRef inf = LLVMConstReal(t, __builtin_inf()), r;
    if (which == 0) r = LLVMBuildFCmp(g->b, LLVMRealUNO, a[0], a[0], "");
    else if (which == 1) r = LLVMBuildFCmp(g->b, LLVMRealOEQ, intrinsic1(g, "llvm.fabs", a[0]), inf, "");
    else if (which == 2) r = LLVMBuildFCmp(g->b, LLVMRealOLT, intrinsic1(g, "llvm.fabs", a[0]), inf, "");
    else {
        LLVMTypeRef bits = int_type(g, LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32);
        r = LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildBitCast(g->b, a[0], bits, ""), LLVMConstNull(bits), "");
    }
    return LLVMBuildZExt(g->b, r, ret, "");
}

/* ---- floating point ------------------------------------------------------------- */

static LLVMValueRef half_to_float(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    return LLVMBuildFPExt(g->b, LLVMBuildBitCast(g->b, a[0], LLVMHalfTypeInContext(g->ctx), ""), ret, "");
}

/* sub.rn: never fused. */
static LLVMValueRef float_sub(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    return LLVMBuildFSub(g->b, a[0], a[1], "");
}

/* rcbrt: 1 / cbrt(x). */
static LLVMValueRef reciprocal_cbrt(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    const char *name = LLVMGetTypeKind(ret) == LLVMFloatTypeKind ? "cbrtf" : "cbrt";
    return LLVMBuildFDiv(g->b, LLVMConstReal(ret, 1.0), cg_call(g, ret, name, a, 1), "");
}

static LLVMValueRef power_int(CodeGen *g, LLVMValueRef *a, LLVMTypeRef ret, int unused) {
    LLVMTypeRef types[] = {ret, LLVMTypeOf(a[1])};
    return cg_intrinsic(g, "llvm.powi", types, 2, a, 2);
}

/* libdevice's functions that libm lacks, by libdevice's name, as LLVM's
 * own operations. */
static const struct {
    const char *name;
    OwnLowering lower;
    int arg;
} own_functions[] = {
    {"popc", bit_count, 0}, {"popcll", bit_count, 0}, {"clz", bit_count, 1}, {"clzll", bit_count, 1},
    {"brev", bit_count, 2}, {"brevll", bit_count, 2}, {"ffs", find_first_set, 0}, {"ffsll", find_first_set, 0},
    {"hadd", halving_add, 0}, {"rhadd", halving_add, 1}, {"uhadd", halving_add, 2}, {"urhadd", halving_add, 3},
    {"mul24", mul24, 0}, {"umul24", mul24, 1},
    {"min", int_intrinsic, 0}, {"llmin", int_intrinsic, 0}, {"max", int_intrinsic, 1}, {"llmax", int_intrinsic, 1},
    {"umin", int_intrinsic, 2}, {"ullmin", int_intrinsic, 2}, {"umax", int_intrinsic, 3}, {"ullmax", int_intrinsic, 3},
    {"abs", int_intrinsic, 4}, {"llabs", int_intrinsic, 4},
    {"float_as_int", bit_cast, 0}, {"int_as_float", bit_cast, 0}, {"double_as_longlong", bit_cast, 0},
    {"longlong_as_double", bit_cast, 0},
    {"isnanf", float_test, 0}, {"isnand", float_test, 0}, {"isinff", float_test, 1}, {"isinfd", float_test, 1},
    {"finitef", float_test, 2}, {"isfinited", float_test, 2}, {"signbitf", float_test, 3}, {"signbitd", float_test, 3},
    {"half2float", half_to_float, 0}, {"fsub_rn", float_sub, 0},
    {"rcbrt", reciprocal_cbrt, 0}, {"rcbrtf", reciprocal_cbrt, 0},
    {"powi", power_int, 0}, {"powif", power_int, 0},
};

/* libdevice's functions that are one NVVM intrinsic, which hostlib.c
 * lowers as the PTX instruction computes (mulhi, prmt, cvt.rni, add.rm
 * ...), by libdevice's name. */
static const struct {
    const char *name, *intrinsic;
} nvvm_functions[] = {
    {"mulhi", "llvm.nvvm.mulhi.i"}, {"umulhi", "llvm.nvvm.mulhi.ui"}, {"mul64hi", "llvm.nvvm.mulhi.ll"},
    {"umul64hi", "llvm.nvvm.mulhi.ull"}, {"sad", "llvm.nvvm.sad.i"}, {"usad", "llvm.nvvm.sad.ui"},
    {"byte_perm", "llvm.nvvm.prmt"}, {"saturatef", "llvm.nvvm.saturate.f"},
    {"double2hiint", "llvm.nvvm.d2i.hi"}, {"double2loint", "llvm.nvvm.d2i.lo"},
    {"hiloint2double", "llvm.nvvm.lohi.i2d"}, {"float2half_rn", "llvm.nvvm.f2h.rn"},
#define NVVM_ROUNDINGS(lib, nvvm)                                                                              \
    {lib "_rn", "llvm.nvvm." nvvm ".rn"}, {lib "_rd", "llvm.nvvm." nvvm ".rm"}, {lib "_ru", "llvm.nvvm." nvvm ".rp"}, \
        {lib "_rz", "llvm.nvvm." nvvm ".rz"}
    NVVM_ROUNDINGS("float2int", "f2i"), NVVM_ROUNDINGS("float2uint", "f2ui"), NVVM_ROUNDINGS("float2ll", "f2ll"),
    NVVM_ROUNDINGS("float2ull", "f2ull"), NVVM_ROUNDINGS("double2int", "d2i"), NVVM_ROUNDINGS("double2uint", "d2ui"),
    NVVM_ROUNDINGS("double2ll", "d2ll"), NVVM_ROUNDINGS("double2ull", "d2ull"),
    NVVM_ROUNDINGS("double2float", "d2f"), NVVM_ROUNDINGS("int2float", "i2f"), NVVM_ROUNDINGS("uint2float", "ui2f"),
    NVVM_ROUNDINGS("ll2float", "ll2f"), NVVM_ROUNDINGS("ull2float", "ull2f"), NVVM_ROUNDINGS("ll2double", "ll2d"),
    NVVM_ROUNDINGS("ull2double", "ull2d"), {"int2double_rn", "llvm.nvvm.i2d.rn"}, {"uint2double_rn", "llvm.nvvm.ui2d.rn"},
#define NVVM_ARITH(lib, nvvm, type)                                                                             \
    {lib "_rn", "llvm.nvvm." nvvm ".rn." type}, {lib "_rd", "llvm.nvvm." nvvm ".rm." type},                       \
        {lib "_ru", "llvm.nvvm." nvvm ".rp." type}, {lib "_rz", "llvm.nvvm." nvvm ".rz." type}
    NVVM_ARITH("fadd", "add", "f"), NVVM_ARITH("dadd", "add", "d"), NVVM_ARITH("fmul", "mul", "f"),
    NVVM_ARITH("dmul", "mul", "d"), NVVM_ARITH("fdiv", "div", "f"), NVVM_ARITH("ddiv", "div", "d"),
    NVVM_ARITH("fmaf", "fma", "f"), NVVM_ARITH("fma", "fma", "d"), NVVM_ARITH("fsqrt", "sqrt", "f"),
    NVVM_ARITH("dsqrt", "sqrt", "d"), NVVM_ARITH("frcp", "rcp", "f"), NVVM_ARITH("drcp", "rcp", "d"),
    {"frsqrt_rn", "llvm.nvvm.rsqrt.approx.f"}, {"rsqrtf", "llvm.nvvm.rsqrt.approx.f"},
    {"rsqrt", "llvm.nvvm.rsqrt.approx.d"}, {"fdividef", "llvm.nvvm.div.approx.f"},
};

/* libm's functions that Numba's math names and libdevice's share, by
 * their float64 name (the float32 one adds f). */
static const char *const libm_names[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh", "erf",
    "erfc", "exp", "exp10", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot",
    "ilogb", "j0", "j1", "jn", "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "modf",
    "nearbyint", "nextafter", "pow", "remainder", "remquo", "rint", "round", "scalbn", "sin", "sincos", "sinh", "sqrt",
    "tan", "tanh", "tgamma", "trunc", "y0", "y1", "yn",
};

/* Whether `symbol` (sin, sinf) is libm's. */
static bool in_libm(const char *symbol) {
    size_t n = strlen(symbol);
    for (size_t i = 0; i < sizeof libm_names / sizeof libm_names[0]; i++) {
        size_t k = strlen(libm_names[i]);
        if (strncmp(symbol, libm_names[i], k) == 0 && (n == k || (n == k + 1 && symbol[k] == 'f'))) return true;
    }
    return false;
}

/* libdevice's __nv_<symbol>: libm's function of that name (its fast_
 * forms are the same functions here), or one of own_functions. */
LLVMValueRef host_math_symbol(CodeGen *g, const char *symbol, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    if (!g->cfg->libm) return cg_call(g, ret, arena_printf(g->arena, "__nv_%s", symbol), args, n);
    const char *name = strncmp(symbol, "fast_", 5) == 0 ? symbol + 5 : symbol;
    for (size_t i = 0; i < sizeof own_functions / sizeof own_functions[0]; i++)
        if (!strcmp(own_functions[i].name, name)) return own_functions[i].lower(g, args, ret, own_functions[i].arg);
    for (size_t i = 0; i < sizeof nvvm_functions / sizeof nvvm_functions[0]; i++)
        if (!strcmp(nvvm_functions[i].name, name)) return cg_intrinsic(g, nvvm_functions[i].intrinsic, NULL, 0, args, n);
    if (!in_libm(name)) {
        cg_refuse(g, arena_printf(g->arena, "the host target has no libdevice function __nv_%s", symbol));
        return LLVMGetUndef(ret);
    }
    return cg_call(g, ret, name, args, n);
}

/* Numba's fastmath forms: libdevice's fast_ functions (libm has none). */
static bool has_fast_form(const char *name) {
    static const char *const fast[] = {"sin", "cos", "tan", "exp", "log", "log2", "log10", "pow"};
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++)
        if (!strcmp(name, fast[i])) return true;
    return false;
}

LLVMValueRef host_math(CodeGen *g, const char *name, const Type *t, LLVMValueRef *args, int n) {
    LLVMTypeRef ft = cg_type(g, t);
    if (!g->cfg->libm) {
        bool f32 = t->bits == 32, fast = g->fastmath && f32 && has_fast_form(name);
        return host_math_symbol(g, arena_printf(g->arena, "%s%s%s", fast ? "fast_" : "", name, f32 ? "f" : ""), ft,
                                args, n);
    }
    if (!strcmp(name, "powi")) {
        LLVMTypeRef types[] = {ft, LLVMTypeOf(args[1])};
        return cg_intrinsic(g, "llvm.powi", types, 2, args, 2);
    }
    return host_math_symbol(g, t->bits == 32 ? arena_printf(g->arena, "%sf", name) : name, ft, args, n);
}

/* The half functions whose float32 form libm lacks; the others are the
 * float32 function rounded, as the caller does. */
LLVMValueRef host_half_math(CodeGen *g, const char *name, LLVMValueRef x) {
    bool rcp = !strcmp(name, "rcp"), rsqrt = !strcmp(name, "rsqrt");
    if (!strcmp(name, "tanh_approx")) name = "tanh";
    else if (!rcp && !rsqrt) return NULL;
    LLVMTypeRef f = LLVMFloatTypeInContext(g->ctx);
    LLVMValueRef wide = LLVMBuildFPExt(g->b, x, f, "");
    const char *fn = rsqrt ? "sqrtf" : "tanhf";
    LLVMValueRef r = rcp ? wide : cg_call(g, f, g->cfg->libm ? fn : arena_printf(g->arena, "__nv_%s", fn), &wide, 1);
    if (rcp || rsqrt) r = LLVMBuildFDiv(g->b, LLVMConstReal(f, 1.0), r, "");
    return LLVMBuildFPTrunc(g->b, r, LLVMTypeOf(x), "");
}

