#!/usr/bin/env python3
"""Generate pykc's typing oracle from numba-cuda.

    python3 tests/typing/gen_typing.py            # regenerate everything
    python3 tests/typing/gen_typing.py -v         # and say what it does

This writes, under tests/typing/cases/:

  <theme>.pyk       kernels (and a few device functions) whose body assigns each expression
                    under test to a fresh local, so that the local's type is the expression's
                    type; every function here is typed by numba-cuda without error.
  <theme>.expected  numba-cuda's typing of <theme>.pyk, in the format of `pykc --dump-types`:
                    for each function in source order a line `<func> -> <return type>`
                    (`none` for kernels; device functions add `  [device]`), then one line
                    `<func> <var> <type>` per variable (parameters included; Numba's `$`
                    temporaries and `arg.` names left out), variables in Python's sorted()
                    order, types in Numba's str() spelling.
  errors.pyk        every candidate expression numba-cuda refuses (one kernel each);
  errors.txt        one line per such kernel: `errors.pyk:<func>: <numba's error, summarised>`.

How: each theme below lists candidate functions. A candidate made of independent statements is
compiled whole; if Numba refuses it, each statement is compiled alone, the statements Numba
accepts stay in the function and each one it refuses becomes a kernel of errors.pyk. A candidate
whose statements depend on each other (unification, loops) is kept or moved whole. Finally each
<theme>.pyk is imported as a module and every function is compiled with
numba.cuda.compiler.compile_cuda(fn, ret, args, cc=(7, 5)) from its annotations (or its eager
signature), as /work/shared/tools/numba_types.py does, and the typemap written out.

Requirements: numba-cuda 0.30.4 (pip install numba-cuda==0.30.4; it pulls numba 0.68), NumPy,
the CUDA toolkit's NVVM (CUDA_HOME or /usr/local/cuda). No GPU: where numba-cuda would ask the
device for its compute capability (calls to device functions, @overload-based functions, eager
signatures) this script answers 7.5, so those cases type here too. It also writes the lit tests
tests/lit/typing/<theme>.pyk, which diff `pykc --dump-types` with each .expected file. The
output is deterministic: running the script twice gives the same files. README.md lists the
typing rules these tables show.
"""
import importlib.machinery
import importlib.util
import inspect
import itertools
import os
import re
import shutil
import sys
import tempfile
import textwrap
import warnings

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

from numba.core import types  # noqa: E402
from numba.cuda.compiler import compile_cuda  # noqa: E402
import numba.cuda.codegen  # noqa: E402
import numba.cuda.dispatcher  # noqa: E402

# Every typing here is for compute capability 7.5 (sm_75, pykc's default arch). numba-cuda asks
# the current device for its compute capability when it compiles a device function on demand (a
# call, an @overload such as int.bit_count or the float16 math functions, cmath) and when an
# eager signature compiles to PTX (and then loads it: skipped); answering 7.5 instead lets all of that type with no GPU, and
# the same on every machine.
CC = (7, 5)


class _Device:
    compute_capability = CC


numba.cuda.dispatcher.get_current_device = lambda: _Device()
_ensure_cc = numba.cuda.codegen.CUDACodeLibrary._ensure_cc
numba.cuda.codegen.CUDACodeLibrary._ensure_cc = \
    lambda self, cc: _ensure_cc(self, cc if cc is not None else CC + ("",))
numba.cuda.dispatcher._Kernel.bind = lambda self: None  # loads the cubin into a context

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
LIT = os.path.join(HERE, "..", "lit", "typing")
VERBOSE = "-v" in sys.argv[1:]

# ---------------------------------------------------------------------------------------------
# Candidate functions


class Func:
    """One candidate function.

    stmts: list of (label, source) where source is one or more lines of Python (no indentation)
    and label names the statement (for error kernels). split: the statements are independent,
    so a refused one can be dropped alone."""

    def __init__(self, name, params, stmts, ret=None, device=False, split=True, sig=None):
        self.name = name
        self.params = params  # list of (name, annotation source); annotation None: eager
        self.stmts = stmts
        self.ret = ret
        self.device = device
        self.split = split
        self.sig = sig  # an eager signature string, or None

    def like(self, name=None, stmts=None):
        return Func(name or self.name, self.params, self.stmts if stmts is None else stmts,
                    self.ret, self.device, self.split, self.sig)

    def source(self, name=None, stmts=None):
        name = name or self.name
        stmts = self.stmts if stmts is None else stmts
        opts = []
        if self.sig:
            opts.append(repr(self.sig))
        if self.device:
            opts.append("device=True")
        deco = f"@cuda.jit({', '.join(opts)})" if opts else "@cuda.jit"
        params = ", ".join(p if a is None else f"{p}: {a}" for p, a in self.params)
        ret = f" -> {self.ret}" if self.ret else ""
        lines = [deco, f"def {name}({params}){ret}:"]
        body = []
        for _, src in stmts:
            body.extend(src.split("\n"))
        if not body:
            body = ["pass"]
        lines.extend("    " + ln if ln else "" for ln in body)
        return "\n".join(lines) + "\n"


def assign(var, expr):
    return (var, f"{var} = {expr}")


# Scalar types, with their annotation in a .pyk file.
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
SCALARS = INTS + FLOATS + ["boolean"] + COMPLEX
SHORT = {
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64", "boolean": "b",
    "complex64": "c64", "complex128": "c128",
}
# A spread of types, for the cases where the full cross product would say little more.
SPREAD = ["int8", "int32", "int64", "uint8", "uint32", "uint64", "float16", "float32", "float64",
          "boolean", "complex128"]

HEADER = """\
# Generated by tests/typing/gen_typing.py from numba-cuda's typing: do not edit, re-run it.
from numba import cuda, boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from numba import float32, float64, complex64, complex128
"""
F16_IMPORT = "from numba.types import float16\n"


class Theme:
    def __init__(self, name, doc, funcs, imports="", prelude=""):
        self.name = name
        self.doc = doc
        self.funcs = funcs
        self.imports = imports
        self.prelude = prelude

    def header(self):
        h = HEADER
        if "float16" in "".join(f.source() for f in self.funcs):
            h += F16_IMPORT
        h += self.imports
        h += "\n" + textwrap.fill(self.doc, 96, initial_indent="# ",
                                  subsequent_indent="# ") + "\n"
        if self.prelude:
            h += "\n" + self.prelude
        return h


def pairs_kernel(prefix, a, b, ops):
    params = [("a", a), ("b", b)]
    return Func(f"{prefix}_{a}_{b}", params, [assign(v, e) for v, e in ops])


def theme_arith():
    ops = [("r_add", "a + b"), ("r_sub", "a - b"), ("r_mul", "a * b")]
    funcs = [pairs_kernel("arith", a, b, ops) for a, b in itertools.product(SCALARS, SCALARS)]
    return Theme("arith", "+ - * over every pair of scalar types.", funcs)


def theme_division():
    ops = [("r_truediv", "a / b"), ("r_floordiv", "a // b"), ("r_mod", "a % b"),
           ("r_pow", "a ** b")]
    funcs = [pairs_kernel("div", a, b, ops) for a, b in itertools.product(SCALARS, SCALARS)]
    return Theme("division", "/ // % ** over every pair of scalar types.", funcs)


def theme_compare():
    ops = [("r_lt", "a < b"), ("r_le", "a <= b"), ("r_gt", "a > b"), ("r_ge", "a >= b"),
           ("r_eq", "a == b"), ("r_ne", "a != b")]
    funcs = [pairs_kernel("cmp", a, b, ops) for a, b in itertools.product(SPREAD, SPREAD)]
    # chained comparisons, `is`, `in` on tuples
    funcs.append(Func("cmp_chained", [("a", "int32"), ("b", "float32"), ("c", "int64")], [
        assign("r_chain", "a < b < c"),
        assign("r_chain2", "a <= c == b"),
        assign("r_and", "a < b and b < c"),
        assign("r_is_none", "a is None"),
    ]))
    return Theme("compare", "< <= > >= == != over a spread of scalar type pairs; chains.",
                 funcs)


def theme_bitwise():
    ops = [("r_and", "a & b"), ("r_or", "a | b"), ("r_xor", "a ^ b"), ("r_shl", "a << b"),
           ("r_shr", "a >> b")]
    ints = INTS + ["boolean"]
    funcs = [pairs_kernel("bit", a, b, ops) for a, b in itertools.product(ints, ints)]
    # floats and complex with ints: refused (they land in errors.pyk)
    for a, b in [("float32", "int32"), ("int32", "float64"), ("float16", "int16"),
                 ("complex64", "int32")]:
        funcs.append(pairs_kernel("bit", a, b, ops))
    return Theme("bitwise", "& | ^ << >> over every pair of integer/bool types.", funcs)


def theme_unary():
    funcs = []
    for t in SCALARS:
        funcs.append(Func(f"unary_{t}", [("a", t)], [
            assign("r_neg", "-a"), assign("r_pos", "+a"), assign("r_inv", "~a"),
            assign("r_not", "not a"),
        ]))
    return Theme("unary", "unary - + ~ not on every scalar type.", funcs)


def theme_mixed():
    funcs = []
    for t in SCALARS:
        funcs.append(Func(f"lit_{t}", [("a", t)], [
            assign("r_add_i", "a + 1"), assign("r_radd_i", "1 + a"), assign("r_sub_neg", "a - -1"),
            assign("r_mul_f", "a * 2.0"), assign("r_mul_i", "a * 2"),
            assign("r_div_i", "a / 2"), assign("r_fdiv_i", "a // 2"), assign("r_mod_i", "a % 2"),
            assign("r_pow_i", "a ** 2"), assign("r_pow_f", "a ** 2.0"),
            assign("r_pow_neg", "a ** -1"), assign("r_rpow", "2 ** a"),
            assign("r_add_b", "a + True"), assign("r_add_c", "a + 1j"),
            assign("r_shl_i", "a << 1"), assign("r_rshl", "1 << a"), assign("r_and_i", "a & 1"),
            assign("r_big", "a + 9223372036854775808"),
        ]))
    # the thread index idiom and friends
    funcs.append(Func("mixed_idioms", [("x", "float32[:]"), ("n", "int32"), ("s", "float32")], [
        assign("i", "cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x"),
        assign("half", "n // 2"),
        assign("scaled", "x[0] * s + 1"),
        assign("scaled2", "x[0] * s + 1.0"),
        assign("avg", "(x[0] + x[1]) / 2"),
        assign("avg32", "(x[0] + x[1]) * s"),
        assign("ratio", "n / n"),
        assign("sq", "s * s"),
    ]))
    return Theme("mixed", "each scalar type against integer, float, bool and complex literals.",
                 funcs)


def theme_literals():
    prelude = """\
N = 16
F = 1.5
B = True
T = (1, 2)
U = (1, 2.5)
NEG = -3
BIG = 2 ** 64 - 1
ARR = np.arange(4, dtype=np.float32)
ARR2 = np.ones((2, 2), dtype=np.int16)
NPF = np.float32(1.5)
NPI = np.int32(3)
"""
    funcs = [
        Func("consts", [], [
            assign("c_int", "1"), assign("c_neg", "-1"), assign("c_zero", "0"),
            assign("c_big", "9223372036854775807"), assign("c_huge", "9223372036854775808"),
            assign("c_float", "1.5"), assign("c_true", "True"), assign("c_false", "False"),
            assign("c_none", "None"), assign("c_complex", "1j"), assign("c_complex2", "1 + 2j"),
            assign("c_expr", "2 * 3"), assign("c_fexpr", "2 * 3.0"), assign("c_sci", "1e-3"),
            assign("c_hex", "0xff"), assign("c_under", "1_000"), assign("c_negf", "-1.5"),
            assign("c_pow", "2 ** 10"), assign("c_pow_neg", "2 ** -1"), assign("c_div", "7 / 2"),
            assign("c_fdiv", "7 // 2"), assign("c_shift", "1 << 40"), assign("c_cmp", "1 < 2"),
            assign("c_not", "not 1"), assign("c_tuple", "(1, 2.0, True)"),
        ]),
        Func("globals_", [], [
            assign("g_n", "N"), assign("g_f", "F"), assign("g_b", "B"), assign("g_t", "T"),
            assign("g_u", "U"), assign("g_n1", "N + 1"), assign("g_t0", "T[0]"),
            assign("g_arr", "ARR"), assign("g_arr0", "ARR[0]"), assign("g_arr2", "ARR2[0, 1]"),
            assign("g_np_f32", "NPF"), assign("g_np_i32", "NPI"), assign("g_neg", "NEG"),
            assign("g_big", "BIG"),
        ]),
        Func("aliases", [("a", "intp"), ("b", "uintp"), ("c", "double"), ("d", "bool_")], [
            assign("r_ab", "a + b"), assign("r_c", "c * 2"), assign("r_d", "d"),
        ]),
    ]
    return Theme("literals", "constants, module globals, type aliases.", funcs,
                 imports="import numpy as np\nfrom numba import intp, uintp, double, bool_\n",
                 prelude=prelude)


def theme_builtins():
    funcs = []
    for t in SCALARS:
        funcs.append(Func(f"conv_{t}", [("a", t)], [
            assign("r_abs", "abs(a)"), assign("r_int", "int(a)"), assign("r_float", "float(a)"),
            assign("r_bool", "bool(a)"), assign("r_complex", "complex(a)"),
            assign("r_round", "round(a)"), assign("r_round2", "round(a, 2)"),
        ]))
    minmax_pairs = [("int8", "int8"), ("int32", "int32"), ("int32", "int64"), ("uint32", "int32"),
                    ("uint64", "int64"), ("uint8", "uint16"), ("int32", "float32"),
                    ("int64", "float32"), ("int16", "float32"), ("float32", "float32"),
                    ("float32", "float64"), ("float16", "float16"), ("float16", "float32"),
                    ("boolean", "int32"), ("boolean", "boolean"), ("complex64", "complex64"),
                    ("uint64", "float64")]
    for a, b in minmax_pairs:
        funcs.append(Func(f"minmax_{a}_{b}", [("a", a), ("b", b)], [
            assign("r_min", "min(a, b)"), assign("r_max", "max(a, b)"),
            assign("r_min3", "min(a, b, a)"), assign("r_max_lit", "max(a, 0)"),
            assign("r_pow", "pow(a, b)"), assign("r_divmod", "divmod(a, b)"),
        ]))
    funcs.append(Func("complex_ctor", [("a", "float32"), ("b", "float32"), ("c", "float64"),
                                       ("i", "int32")], [
        assign("r_ff", "complex(a, b)"), assign("r_fd", "complex(a, c)"),
        assign("r_ii", "complex(i, i)"), assign("r_lit", "complex(1, 2)"),
    ]))
    funcs.append(Func("len_range", [("x", "float32[:]"), ("y", "int32[:, :]"), ("n", "int32"),
                                    ("m", "int64"), ("u", "uint64"), ("v", "uint32"),
                                    ("b8", "int8"), ("h16", "int16"), ("ub", "uint8"),
                                    ("uh", "uint16")], [
        assign("r_len", "len(x)"), assign("r_len2", "len(y)"),
        assign("r_len_t", "len((1, 2, 3))"),
        ("i", "for i in range(n):\n    pass"),
        ("j", "for j in range(m):\n    pass"),
        ("k", "for k in range(u):\n    pass"),
        ("k2", "for k2 in range(v):\n    pass"),
        ("k3", "for k3 in range(n, m):\n    pass"),
        ("k4", "for k4 in range(10, 0, -1):\n    pass"),
        ("k5", "for k5 in range(len(x)):\n    pass"),
        ("k6", "for k6 in range(u, 10):\n    pass"),
        ("k7", "for k7 in range(n, n):\n    pass"),
        ("k8", "for k8 in range(n, 10):\n    pass"),
        ("k9", "for k9 in range(n, n, n):\n    pass"),
        ("k10", "for k10 in range(b8):\n    pass"),
        ("k11", "for k11 in range(h16):\n    pass"),
        ("k12", "for k12 in range(ub):\n    pass"),
        ("k13", "for k13 in range(uh):\n    pass"),
        ("k14", "for k14 in range(0, n):\n    pass"),
        ("k15", "for k15 in range(x.size):\n    pass"),
        ("k16", "for k16 in range(u, u):\n    pass"),
        ("k17", "for k17 in range(v, n):\n    pass"),
        ("e", "for e in x:\n    pass"),
        ("row", "for row in y:\n    pass"),
        ("idx", "for idx, val in enumerate(x):\n    pass"),
        ("za", "for za, zb in zip(x, y[0]):\n    pass"),
        assign("r_range", "range(n)"),
    ]))
    for t in ["int8", "int32", "uint64", "float16", "float32", "float64", "boolean",
              "complex64"]:
        funcs.append(Func(f"cast_{t}", [("a", t)], [
            assign(f"r_{SHORT[u]}", f"{u}(a)") for u in
            ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16",
             "float32", "float64", "boolean", "complex64", "complex128"]]))
    funcs.append(Func("cast_literals", [], [
        assign("r_f32_i", "float32(1)"), assign("r_f32_f", "float32(1.5)"),
        assign("r_i32_i", "int32(7)"), assign("r_u8_neg", "uint8(-1)"),
        assign("r_b_i", "boolean(1)"),
    ]))
    funcs.append(Func("bit_count", [("a", "int32"), ("b", "uint64"), ("c", "int8")], [
        assign("r_a", "a.bit_count()"), assign("r_b", "b.bit_count()"),
        assign("r_c", "c.bit_count()"),
    ]))
    return Theme("builtins", "abs int float bool complex round min max pow divmod len range "
                 "enumerate zip bit_count.", funcs)


MATH_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh",
              "tan", "tanh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "gamma", "lgamma",
              "log", "log2", "log10", "log1p", "sqrt", "ceil", "floor", "trunc", "degrees",
              "radians", "isnan", "isinf", "isfinite", "frexp", "modf"]
MATH_BINARY = ["atan2", "hypot", "copysign", "fmod", "nextafter", "remainder", "pow", "ldexp"]
MATH_ARGS = ["int8", "int32", "int64", "uint32", "uint64", "float16", "float32", "float64",
             "boolean"]
MATH_PAIRS = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"),
              ("int32", "int32"), ("int64", "int64"), ("uint64", "uint64"), ("float32", "int32"),
              ("float64", "int32"), ("float32", "int64"), ("int32", "float32"),
              ("float16", "float16")]


def theme_math():
    funcs = []
    params = [(SHORT[t], t) for t in MATH_ARGS]
    for f in MATH_UNARY:
        funcs.append(Func(f"math_{f}", params,
                          [assign(f"r_{SHORT[t]}", f"math.{f}({SHORT[t]})") for t in MATH_ARGS]))
    for f in MATH_BINARY:
        funcs.append(Func(f"math_{f}", [("f32", "float32"), ("f64", "float64"), ("i32", "int32"),
                                         ("i64", "int64"), ("u64", "uint64"),
                                         ("f16", "float16")],
                          [assign(f"r_{SHORT[a]}_{SHORT[b]}",
                                  f"math.{f}({SHORT[a]}, {SHORT[b]})") for a, b in MATH_PAIRS]))
    funcs.append(Func("math_consts", [], [
        assign("r_pi", "math.pi"), assign("r_e", "math.e"), assign("r_inf", "math.inf"),
        assign("r_nan", "math.nan"), assign("r_tau", "math.tau"),
    ]))
    return Theme("math", "every math function Numba's CUDA target types, on a spread of "
                 "argument types.", funcs, imports="import math\n")


def theme_cmath():
    names = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "isfinite",
             "isinf", "isnan", "log", "log10", "phase", "polar", "rect", "sin", "sinh", "sqrt",
             "tan", "tanh"]
    funcs = []
    for f in names:
        if f == "rect":
            stmts = [assign("r_f64", "cmath.rect(f64, f64)"),
                     assign("r_f32", "cmath.rect(f32, f32)")]
        else:
            stmts = [assign(f"r_{SHORT[t]}", f"cmath.{f}({SHORT[t]})")
                     for t in ["complex64", "complex128", "float64", "float32", "int32"]]
        funcs.append(Func(f"cmath_{f}", [("c64", "complex64"), ("c128", "complex128"),
                                          ("f64", "float64"), ("f32", "float32"),
                                          ("i32", "int32")], stmts))
    return Theme("cmath", "cmath functions on complex, float and int arguments.", funcs,
                 imports="import cmath\n")


def theme_cuda():
    funcs = [
        Func("positions", [], [
            assign("tx", "cuda.threadIdx.x"), assign("ty", "cuda.threadIdx.y"),
            assign("tz", "cuda.threadIdx.z"), assign("bx", "cuda.blockIdx.x"),
            assign("by", "cuda.blockIdx.y"), assign("bz", "cuda.blockIdx.z"),
            assign("dx", "cuda.blockDim.x"), assign("dy", "cuda.blockDim.y"),
            assign("dz", "cuda.blockDim.z"), assign("gx", "cuda.gridDim.x"),
            assign("gy", "cuda.gridDim.y"), assign("gz", "cuda.gridDim.z"),
            assign("lane", "cuda.laneid"), assign("ws", "cuda.warpsize"),
            assign("g1", "cuda.grid(1)"), assign("g2", "cuda.grid(2)"),
            assign("g3", "cuda.grid(3)"), assign("s1", "cuda.gridsize(1)"),
            assign("s2", "cuda.gridsize(2)"), assign("s3", "cuda.gridsize(3)"),
            ("gi", "gi, gj = cuda.grid(2)"), ("si", "si, sj, sk = cuda.gridsize(3)"),
            assign("tid", "cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x"),
            assign("stride", "cuda.blockDim.x * cuda.gridDim.x"),
        ]),
        Func("barriers", [("p", "int32"), ("q", "boolean"), ("u", "uint32"), ("w", "int64")], [
            assign("c_i32", "cuda.syncthreads_count(p)"),
            assign("a_i32", "cuda.syncthreads_and(p)"),
            assign("o_i32", "cuda.syncthreads_or(p)"),
            assign("c_i64", "cuda.syncthreads_count(w)"),
            assign("c_u32", "cuda.syncthreads_count(u)"),
            assign("c_bool", "cuda.syncthreads_count(q)"),
            assign("c_cmp", "cuda.syncthreads_count(p > 0)"),
            assign("a_bool", "cuda.syncthreads_and(q)"),
            assign("o_bool", "cuda.syncthreads_or(q)"),
            assign("sync", "cuda.syncthreads()"),
            assign("sw", "cuda.syncwarp()"), assign("sw_mask", "cuda.syncwarp(0xffffffff)"),
            assign("tf", "cuda.threadfence()"), assign("tfb", "cuda.threadfence_block()"),
            assign("tfs", "cuda.threadfence_system()"),
        ]),
        Func("warp", [("m", "uint32"), ("i", "int32"), ("l", "int64"), ("f", "float32"),
                      ("d", "float64"), ("u", "uint32"), ("h", "int16"), ("q", "boolean")], [
            assign("all_", "cuda.all_sync(m, q)"), assign("any_", "cuda.any_sync(m, i)"),
            assign("eq_", "cuda.eq_sync(m, q)"), assign("ballot", "cuda.ballot_sync(m, q)"),
            assign("ballot_i", "cuda.ballot_sync(0xffffffff, i > 0)"),
            assign("sh_i", "cuda.shfl_sync(m, i, 0)"), assign("sh_l", "cuda.shfl_sync(m, l, 0)"),
            assign("sh_f", "cuda.shfl_sync(m, f, 0)"), assign("sh_d", "cuda.shfl_sync(m, d, 0)"),
            assign("sh_u", "cuda.shfl_sync(m, u, 0)"), assign("sh_h", "cuda.shfl_sync(m, h, 0)"),
            assign("sh_b", "cuda.shfl_sync(m, q, 0)"),
            assign("up_f", "cuda.shfl_up_sync(m, f, 1)"),
            assign("down_d", "cuda.shfl_down_sync(m, d, 1)"),
            assign("xor_i", "cuda.shfl_xor_sync(m, i, 1)"),
            assign("xor_l", "cuda.shfl_xor_sync(0xffffffff, l, 16)"),
            assign("many_i", "cuda.match_any_sync(m, i)"),
            assign("many_f", "cuda.match_any_sync(m, f)"),
            assign("many_l", "cuda.match_any_sync(m, l)"),
            assign("mall_i", "cuda.match_all_sync(m, i)"),
            assign("mall_d", "cuda.match_all_sync(m, d)"),
            ("mall_v", "mall_v, mall_p = cuda.match_all_sync(m, i)"),
            assign("act", "cuda.activemask()"), assign("lt", "cuda.lanemask_lt()"),
        ]),
    ]
    bits = []
    for t in INTS + ["boolean"]:
        s = SHORT[t]
        bits += [assign(f"popc_{s}", f"cuda.popc({s})"), assign(f"clz_{s}", f"cuda.clz({s})"),
                 assign(f"ffs_{s}", f"cuda.ffs({s})"), assign(f"brev_{s}", f"cuda.brev({s})")]
    funcs.append(Func("bits", [(SHORT[t], t) for t in INTS + ["boolean"]], bits))
    fl = [assign("fma_f32", "cuda.fma(f32, f32, f32)"), assign("fma_f64", "cuda.fma(f64, f64, f64)"),
          assign("fma_mix", "cuda.fma(f32, f32, f64)"), assign("fma_i", "cuda.fma(i32, i32, i32)"),
          assign("fma_lit", "cuda.fma(f32, 2.0, 1.0)"),
          assign("cbrt_f32", "cuda.cbrt(f32)"), assign("cbrt_f64", "cuda.cbrt(f64)"),
          assign("cbrt_i32", "cuda.cbrt(i32)"), assign("cbrt_f16", "cuda.cbrt(f16)")]
    for t in ["float64", "float32", "int16", "uint16", "int32", "uint32", "int64", "uint64",
              "int8", "boolean", "float16"]:
        s = SHORT[t]
        fl.append(assign(f"selp_{s}", f"cuda.selp(q, {s}, {s})"))
    fl += [assign("selp_mix", "cuda.selp(q, i32, i64)"), assign("selp_lit", "cuda.selp(q, 1, 2)"),
           assign("selp_ipred", "cuda.selp(i32, f32, f32)"),
           assign("ns", "cuda.nanosleep(u32)")]
    funcs.append(Func("float_ops", [("f32", "float32"), ("f64", "float64"), ("i32", "int32"),
                                    ("i64", "int64"), ("u32", "uint32"), ("q", "boolean"),
                                    ("f16", "float16"), ("i16", "int16"), ("u16", "uint16"),
                                    ("u64", "uint64"), ("i8", "int8"), ("b", "boolean")], fl))
    # atomics: return the old value, of the array's dtype
    at = []
    arrays = [("ai32", "int32[:]"), ("au32", "uint32[:]"), ("ai64", "int64[:]"),
              ("au64", "uint64[:]"), ("af32", "float32[:]"), ("af64", "float64[:]"),
              ("a2f32", "float32[:, :]"), ("ai16", "int16[:]"), ("af16", "float16[:]")]
    for op in ["add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch",
               "inc", "dec"]:
        for arr, ann in arrays:
            if arr == "a2f32":
                continue
            name = f"{op.rstrip('_')}_{arr[1:]}"
            val = "1" if op not in ("inc", "dec") else "10"
            at.append(assign(name, f"cuda.atomic.{op}({arr}, 0, {val})"))
    at += [assign("add_2d", "cuda.atomic.add(a2f32, (0, 1), 1.0)"),
           assign("add_i32idx", "cuda.atomic.add(af32, i, 1.0)"),
           assign("add_tupidx", "cuda.atomic.add(af32, (i,), 1.0)"),
           assign("add_fval", "cuda.atomic.add(ai32, 0, 1.5)"),
           assign("cas_i32", "cuda.atomic.cas(ai32, 0, 1, 2)"),
           assign("cas_u64", "cuda.atomic.cas(au64, i, 1, 2)"),
           assign("cas_f32", "cuda.atomic.cas(af32, 0, 1, 2)"),
           assign("cswap_i32", "cuda.atomic.compare_and_swap(ai32, 1, 2)"),
           assign("cswap_u32", "cuda.atomic.compare_and_swap(au32, 1, 2)"),
           assign("fp16_add", "fp16.atomicAdd(af16, 0, h)")]
    funcs.append(Func("atomics", arrays + [("i", "int32"), ("h", "float16")], at))
    funcs.append(Func("memory", [("n", "int32")], [
        assign("sh1", "cuda.shared.array(16, float32)"),
        assign("sh1t", "cuda.shared.array((16,), int32)"),
        assign("sh2", "cuda.shared.array((16, 8), float64)"),
        assign("sh3", "cuda.shared.array((2, 3, 4), uint8)"),
        assign("shdyn", "cuda.shared.array(0, float32)"),
        assign("shc", "cuda.shared.array(4, complex64)"),
        assign("shg", "cuda.shared.array(TPB, float32)"),
        assign("shgt", "cuda.shared.array((TPB, TPB), float32)"),
        assign("sha", "cuda.shared.array(16, int64, alignment=16)"),
        assign("shb", "cuda.shared.array(16, boolean)"),
        assign("shh", "cuda.shared.array(16, float16)"),
        assign("lo1", "cuda.local.array(4, float32)"),
        assign("lo2", "cuda.local.array((2, 2), int16)"),
        assign("lon", "cuda.local.array(n, float32)"),
        assign("co", "cuda.const.array_like(CONST)"),
        assign("co2", "cuda.const.array_like(CONST2)"),
        ("sh_elem", "sh_x = cuda.shared.array(16, float32)\nsh_elem = sh_x[0]"),
        ("sh_row", "sh_y = cuda.shared.array((16, 8), float64)\nsh_row = sh_y[0]"),
    ]))
    funcs.append(Func("fp16_funcs", [("a", "float16"), ("b", "float16"), ("c", "float16")],
                      [assign(f"r_{n}", f"fp16.{n}(a, b)") for n in
                       ["hadd", "hsub", "hmul", "hdiv", "hmax", "hmin", "heq", "hne", "hgt",
                        "hge", "hlt", "hle"]] +
                      [assign("r_hfma", "fp16.hfma(a, b, c)")] +
                      [assign(f"r_{n}", f"fp16.{n}(a)") for n in
                       ["hneg", "habs", "hsin", "hcos", "htanh", "htanh_approx", "hlog",
                        "hlog2", "hlog10", "hexp", "hexp2", "hexp10", "hsqrt", "hrsqrt", "hrcp",
                        "hrint", "htrunc", "hceil", "hfloor"]] +
                      [assign("r_cuda_hadd", "cuda.fp16.hadd(a, b)"),
                       assign("r_f32", "float32(a)"), assign("r_from_f32", "float16(1.5)"),
                       assign("r_float", "float(a)")]))
    funcs.append(Func("vectors", [("f", "float32"), ("i", "int32")], [
        assign("v4", "cuda.float32x4(f, f, f, f)"), assign("v2", "cuda.float32x2(f, f)"),
        assign("v4b", "cuda.float32x4(v2, v2)"), assign("vi3", "cuda.int32x3(i, i, i)"),
        assign("vx", "cuda.float32x4(f, f, f, f).x"), assign("vw", "cuda.float32x4(f, f, f, f).w"),
        assign("vi", "cuda.int2(i, i)"),
    ]))
    funcs.append(Func("libdevice_", [("f", "float32"), ("d", "float64"), ("i", "int32")], [
        assign("r_sinf", "libdevice.sinf(f)"), assign("r_sin", "libdevice.sin(d)"),
        assign("r_popc", "libdevice.popc(i)"), assign("r_sincosf", "libdevice.sincosf(f)"),
        assign("r_frexp", "libdevice.frexp(d)"), assign("r_fast", "libdevice.fast_expf(f)"),
    ]))
    funcs.append(Func("cache_hints", [("x", "float32[:]"), ("y", "int32[:, :]"), ("i", "int32")], [
        assign("r_ldca", "cuda.ldca(x, i)"), assign("r_ldcg", "cuda.ldcg(x, 0)"),
        assign("r_ldcs", "cuda.ldcs(x, i)"), assign("r_ldlu", "cuda.ldlu(x, i)"),
        assign("r_ldcv", "cuda.ldcv(x, i)"), assign("r_ld2", "cuda.ldcg(y, (i, 0))"),
        assign("r_stcg", "cuda.stcg(x, i, 1.0)"), assign("r_stwb", "cuda.stwb(x, 0, x[1])"),
    ]))
    funcs.append(Func("coop", [], [assign("g", "cuda.cg.this_grid()"),
                                   assign("r_sync", "cuda.cg.this_grid().sync()")]))
    prelude = """\
TPB = 16
CONST = np.arange(8, dtype=np.float32)
CONST2 = np.zeros((2, 3), dtype=np.int64)
"""
    return Theme("cuda", "cuda.* positions, barriers, warp functions, bit functions, fma cbrt "
                 "selp, atomics, shared/local/const memory, fp16, vectors, libdevice, cache "
                 "hints.", funcs,
                 imports="import numpy as np\nfrom numba.cuda import fp16, libdevice\n",
                 prelude=prelude)


def theme_arrays():
    funcs = []
    anns = ["float32[:]", "float64[::1]", "int32[:, :]", "int64[:, ::1]", "uint8[::1, :]",
            "int16[:, :, :]", "complex64[:]", "boolean[:]", "float16[:]", "uint64[:, :, ::1]"]
    for k, ann in enumerate(anns):
        ndim = ann.count(",") + 1
        idx = ", ".join(["i"] * ndim)
        stmts = [assign("r_shape", "a.shape"), assign("r_size", "a.size"),
                 assign("r_ndim", "a.ndim"), assign("r_strides", "a.strides"),
                 assign("r_shape0", "a.shape[0]"), assign("r_len", "len(a)"),
                 assign("r_elem", f"a[{idx}]"), assign("r_first", "a[0]"),
                 assign("r_last", "a[-1]"), assign("r_slice", "a[1:]"),
                 assign("r_slice_step", "a[::2]"), assign("r_itemsize", "a.itemsize"),
                 assign("r_nbytes", "a.nbytes"), assign("r_T", "a.T"),
                 assign("r_elem_add", f"a[{idx}] + a[{idx}]"),
                 assign("r_elem_i", f"a[{idx}] + 1"),
                 ]
        if ndim >= 2:
            stmts += [assign("r_row", "a[i]"), assign("r_col", "a[:, 0]"),
                      assign("r_u64idx", f"a[{', '.join(['u'] * ndim)}]"),
                      assign("r_tupidx", f"a[({', '.join(['0'] * ndim)})]"),
                      assign("r_shape1", "a.shape[1]")]
        else:
            stmts += [assign("r_u64idx", "a[u]"), assign("r_i8idx", "a[j]"),
                      assign("r_boolidx", "a[q]")]
        dt = ann.split("[")[0]
        funcs.append(Func(f"arr_{ndim}d_{dt}_{k}", [("a", ann), ("i", "int32"), ("u", "uint64"),
                                                     ("j", "int8"), ("q", "boolean")], stmts))
    funcs.append(Func("arr_complex", [("c", "complex64[:]"), ("d", "complex128[:, :]")], [
        assign("r_real", "c.real"), assign("r_imag", "c.imag"), assign("r_re0", "c[0].real"),
        assign("r_im0", "d[0, 0].imag"), assign("r_dreal", "d.real"),
        assign("r_conj", "c[0].conjugate()"),
    ]))
    funcs.append(Func("arr_stores", [("a", "float32[:]"), ("b", "int32[:]"), ("f", "float64")], [
        ("s1", "a[0] = f"), ("s2", "b[0] = f"), ("s3", "a[0] += 1"), ("s4", "b[0] += f"),
        ("s5", "a[0] = True"), ("s6", "a[0], a[1] = f, b[0]"),
        assign("r_after", "a[0]"),
    ]))
    return Theme("arrays", "array attributes, indexing and slicing of 1-3d arrays of various "
                 "dtypes and layouts.", funcs)


def theme_complex():
    funcs = []
    for t in SCALARS:
        funcs.append(Func(f"parts_{t}", [("a", t)], [
            assign("r_real", "a.real"), assign("r_imag", "a.imag"),
            assign("r_conj", "a.conjugate()"), assign("r_abs", "abs(a)"),
        ]))
    funcs.append(Func("complex_mix", [("c", "complex64"), ("d", "complex128"), ("f", "float32"),
                                      ("g", "float64"), ("i", "int32")], [
        assign("r_cf", "c * f"), assign("r_cg", "c * g"), assign("r_ci", "c + i"),
        assign("r_cd", "c + d"), assign("r_c2", "c * 2"), assign("r_cj", "c * 1j"),
        assign("r_fj", "f * 1j"), assign("r_cdiv", "c / c"), assign("r_cpow", "c ** 2"),
        assign("r_ceq", "c == d"), assign("r_mag", "(c * c.conjugate()).real"),
    ]))
    return Theme("complex", ".real .imag .conjugate() abs() on every scalar type; complex "
                 "arithmetic with real operands.", funcs)


def theme_tuples():
    funcs = [
        Func("tuples", [("a", "int32"), ("b", "float32"), ("c", "int64"), ("x", "float32[:, :]")], [
            assign("t_ab", "(a, b)"), assign("t_aa", "(a, a)"), assign("t_ac", "(a, c)"),
            assign("t_lit", "(1, 2, 3)"), assign("t_mixlit", "(1, 2.0)"),
            assign("t_nested", "((a, b), c)"), assign("t_one", "(a,)"),
            assign("t_get0", "(a, b)[0]"), assign("t_get1", "(a, b)[1]"),
            assign("t_neg", "(a, c)[-1]"), assign("t_len", "len((a, b, c))"),
            ("u1", "u1, u2 = a, b"), ("v1", "v1, (v2, v3) = c, (a, b)"),
            ("s0", "s0, s1 = x.shape"), ("st0", "st0, st1 = x.strides"),
            ("gi", "gi, gj = cuda.grid(2)"),
            assign("t_add", "(a, b) + (c,)"),
            assign("t_slice", "(a, b, c)[1:]"),
            assign("t_eq", "(a, b) == (a, b)"),
            assign("t_shape_i", "x.shape[a]"),
        ]),
        Func("swap", [("a", "int32"), ("b", "float32")], [
            ("p", "p = a\nq = b\np, q = q, p"),
        ], split=False),
    ]
    return Theme("tuples", "tuple construction, indexing, unpacking.", funcs)


def theme_tupleops():
    funcs = [
        Func("tuple_iter", [("a", "float32[:]"), ("b", "int32")], [
            ("s", "s = 0\nfor x in (b, b, b):\n    s += x\na[0] = s"),
        ], split=False),
        Func("tuple_iter_lits", [("a", "float32[:]")], [
            ("s", "t = (1, 2, 3)\ns = 0\nfor x in t:\n    s += x\na[0] = s"),
        ], split=False),
        Func("tuple_iter_floats", [("a", "float32[:]")], [
            ("s", "s = a[0]\nfor x in (a[1], a[2]):\n    s = s * x\na[0] = s"),
        ], split=False),
        Func("tuple_enumerate", [("a", "float32[:]"), ("b", "int32")], [
            ("i", "for i, x in enumerate((b, b)):\n    a[i] = x"),
        ], split=False),
        Func("tuple_zip", [("a", "float32[:]"), ("b", "int32")], [
            ("x", "for x, y in zip((a[0], a[1]), (1, 2)):\n    a[0] += x * y"),
        ], split=False),
        Func("tuple_iter_mixed", [("a", "float32[:]"), ("b", "int32")], [
            ("s", "s = 0\nfor x in (1, 2.5, b):\n    s += x"),
        ], split=False),
        Func("tuple_in", [("a", "float32[:]"), ("b", "int32"), ("c", "float64")], [
            assign("r_in", "b in (1, 2, 3)"), assign("r_not_in", "b not in (1, 2)"),
            assign("r_in_f", "c in (b, b)"), assign("r_in_empty", "b in ()"),
            assign("r_not_in_empty", "b not in ()"), assign("r_in_tuples", "(b, 1) in ((1, 2), (3, 4))"),
            assign("r_in_mixed", "b in (1, 2.5)"), assign("r_in_array", "b in a"),
        ]),
        Func("tuple_minmax", [("a", "float32[:]"), ("b", "int32"), ("q", "boolean")], [
            assign("m_lit", "max((1, 2, b))"), assign("m_f32", "min((a[0], a[1]))"),
            assign("m_mixed", "max((b, a[0], 2))"), assign("m_one", "min((b,))"),
            assign("m_bools", "max((q, q))"), assign("m_bools3", "max((q, q, q))"),
            assign("m_empty", "max(())"), assign("m_scalar", "max(b)"),
        ]),
        Func("tuple_sum", [("a", "float32[:]"), ("b", "int32"), ("q", "boolean"), ("z", "complex64")], [
            assign("s_f32", "sum((a[0], a[1]))"), assign("s_i32", "sum((b, b))"),
            assign("s_c64", "sum((z, z))"), assign("s_bool", "sum((q, q))"),
            assign("s_start", "sum((b, a[0]), 1.5)"), assign("s_lits", "sum((1, 2, 3))"),
            assign("s_mixed", "sum((q, b, 2.5))"), assign("s_empty", "sum(())"),
        ]),
        Func("array_folds", [("a", "float32[:]"), ("b", "int32[::1]"), ("m", "float64[:, :]")], [
            assign("r_max", "max(a)"), assign("r_min", "min(b)"), assign("r_sum", "sum(a)"),
            assign("r_sum_i", "sum(b)"), assign("r_sum_start", "sum(b, 0.5)"),
            assign("r_max_2d", "max(m)"), assign("r_sum_2d", "sum(m)"),
        ]),
    ]
    return Theme("tupleops", "tuples at run time: for loops over them, `in`, min, max and sum.", funcs)


OPERATOR_BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_",
                   "or_", "xor", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "ilshift",
                   "irshift", "iand", "ior", "ixor", "lt", "le", "eq", "ne", "gt", "ge", "is_", "is_not"]
OPERATOR_UNARY = ["neg", "pos", "invert", "not_", "abs", "truth"]


def theme_operator():
    pairs = [("int32", "int32"), ("float32", "int64"), ("uint8", "uint8"), ("boolean", "boolean"),
             ("uint64", "int32"), ("complex64", "float32")]
    funcs = [Func(f"op_{SHORT[a]}_{SHORT[b]}", [("a", a), ("b", b)],
                  [assign(f"r_{f.strip('_')}", f"operator.{f}(a, b)") for f in OPERATOR_BINARY])
             for a, b in pairs]
    funcs += [Func(f"op1_{SHORT[a]}", [("a", a)],
                   [assign(f"r_{f.strip('_')}", f"operator.{f}(a)") for f in OPERATOR_UNARY])
              for a in ["int32", "uint16", "float32", "boolean", "complex128"]]
    funcs += [
        Func("op_items", [("a", "float32[:]"), ("b", "int32"), ("t", "float64")], [
            assign("r_getitem", "operator.getitem(a, b)"), assign("r_getitem_t", "operator.getitem((1, 2), 0)"),
            assign("r_contains", "operator.contains((1, 2), b)"), assign("r_contains_a", "operator.contains(a, t)"),
            ("setitem", "operator.setitem(a, b, t)"), assign("r_setitem", "operator.setitem(a, 0, 1)"),
            assign("r_lits", "operator.add(1, 2)"), assign("r_not_lit", "operator.not_(True)"),
            assign("r_concat", "operator.add((1,), (t,))"), assign("r_index", "operator.index(b)"),
            assign("r_names", "add(b, b) + sub(t, b)"), assign("r_iadd_array", "operator.iadd(a, a)"),
        ]),
    ]
    return Theme("operator", "the operator module's functions, typed as the operators they are.", funcs,
                 imports="import operator\nfrom operator import add, sub\n")


UFUNC_UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
               "arccosh", "arctanh", "deg2rad", "radians", "rad2deg", "degrees", "log", "log2", "log10",
               "logical_not", "invert", "bitwise_not", "isnan", "conjugate", "conj", "acos", "asinh",
               "sqrt", "exp", "absolute", "abs", "floor", "isinf", "isfinite", "sign"]
UFUNC_BINARY = ["arctan2", "hypot", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal",
                "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "fmax", "fmin",
                "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "divide",
                "true_divide", "atan2", "power", "fmod", "add"]


def theme_ufuncs():
    # pykc has not the complex loops of the math, division and ordering ufuncs (NumPy's own
    # algorithms): complex operands here take the others
    complex_ok = ["logical_not", "isnan", "conjugate", "conj", "equal", "not_equal", "logical_and",
                  "logical_or", "logical_xor"]

    def names(fs, a):
        return [f for f in fs if "complex" not in a or f in complex_ok]
    funcs = [Func(f"uf_{SHORT[a]}", [("a", a)],
                  [assign(f"r_{f}", f"np.{f}(a)") for f in names(UFUNC_UNARY, a)])
             for a in SPREAD + ["int16", "uint16", "complex64"]]
    pairs = [("int32", "int32"), ("float32", "int64"), ("float32", "float32"), ("uint8", "int16"),
             ("boolean", "boolean"), ("uint64", "int64"), ("int64", "uint64"), ("int8", "float32"),
             ("float64", "int32"), ("complex64", "complex64"), ("int32", "uint32"), ("float16", "float32")]
    funcs += [Func(f"uf2_{SHORT[a]}_{SHORT[b]}", [("a", a), ("b", b)],
                   [assign(f"r_{f}", f"np.{f}(a, b)") for f in names(UFUNC_BINARY, a + b)])
              for a, b in pairs]
    funcs += [
        Func("uf_literals", [("a", "float32"), ("x", "float32[:]")], [
            assign("r_sin_int", "np.sin(1)"), assign("r_sin_float", "np.sin(1.0)"),
            assign("r_max_lit", "np.maximum(a, 1)"), assign("r_max_lits", "np.maximum(1, 2.5)"),
            assign("r_pi", "np.pi"), assign("r_e", "np.e"), assign("r_inf", "np.inf"), assign("r_nan", "np.nan"),
            assign("r_array", "np.sin(x)"),
        ]),
    ]
    return Theme("ufuncs", "NumPy's ufuncs on scalars: the loop NumPy would choose, as numba-cuda picks "
                 "it, where its CUDA target implements the ufunc.", funcs, imports="import numpy as np\n")


def theme_slicestore():
    funcs = [
        Func("slice_store", [("a", "float32[:]"), ("m", "int64[:, ::1]"), ("b", "int32"), ("c", "float64")], [
            ("s_scalar", "a[1:4] = 0"), ("s_step", "a[::2] = c"), ("s_var", "a[b:] = b"),
            ("s_col", "m[:, 1] = 2"), ("s_row", "m[0] = c"), ("s_all", "m[:] = b"),
            ("s_tuple", "a[0:2] = (1.0, 2.0)"), ("s_tuple_i", "a[2:4] = (b, b)"),
            ("s_tuple_mixed", "a[2:4] = (b, c)"), ("s_array", "a[:] = a[::-1]"),
            ("s_tuple_2d", "m[0:1] = (b,)"), ("bp", "breakpoint()"),
        ]),
    ]
    return Theme("slicestore", "stores into slices of arrays, and breakpoint().", funcs)


ENUM_PRELUDE = """\
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Shape(IntEnum):
    CIRCLE = 1
    SQUARE = 2


class Ratio(Enum):
    HALF = 0.5
    TWICE = 2.0


class Flag(Enum):
    ON = True
    OFF = False


class Big(IntEnum):
    HUGE = 2 ** 63


class Het(Enum):
    ONE = 1
    ONE_AND_A_HALF = 1.5
"""


def theme_enums():
    funcs = [
        Func("enum_members", [("a", "int64[:]"), ("x", "int32"), ("f", "float32")], [
            assign("r_member", "Color.RED"), assign("r_eq", "Color.RED == Color.GREEN"),
            assign("r_ne", "Color.RED != Color.BLUE"), assign("r_is", "Color.RED is Color.RED"),
            assign("r_is_not", "Color.RED is not Color.BLUE"), assign("r_value", "Color.GREEN.value"),
            assign("r_getitem", 'Color["BLUE"]'), assign("r_float", "Ratio.HALF"),
            assign("r_float_value", "Ratio.TWICE.value"), assign("r_bool", "Flag.ON"),
            assign("r_bool_value", "Flag.OFF.value"), assign("r_tuple", "(Color.RED, Shape.CIRCLE)"),
            assign("r_ifexp", "Color.RED if x > 0 else Color.GREEN"),
            assign("r_lt", "Color.RED < Color.GREEN"), assign("r_eq_int", "Color.RED == 1"),
            assign("r_eq_other", "Color.RED == Shape.CIRCLE"), assign("r_name", "Color.RED.name"),
            assign("r_call", "Color(2)"), assign("r_not", "not Color.RED"), assign("r_bool_call", "bool(Color.RED)"),
            assign("r_het", "Het.ONE"), assign("r_missing", "Color.PURPLE"),
        ]),
        Func("int_enum_members", [("a", "int64[:]"), ("fa", "float32[:]"), ("x", "int32"), ("f", "float32")], [
            assign("r_member", "Shape.SQUARE"), assign("r_add", "Shape.SQUARE + 1"), assign("r_mul", "Shape.SQUARE * x"),
            assign("r_eq_int", "Shape.SQUARE == 2"), assign("r_lt", "Shape.SQUARE < Shape.CIRCLE"),
            assign("r_eq", "Shape.CIRCLE == Shape.SQUARE"), assign("r_is", "Shape.CIRCLE is Shape.SQUARE"),
            assign("r_value", "Shape.SQUARE.value"), assign("r_div", "Shape.SQUARE / 2"), assign("r_neg", "-Shape.SQUARE"),
            assign("r_pow", "Shape.SQUARE ** 2"), assign("r_and", "Shape.SQUARE & 1"), assign("r_shift", "Shape.SQUARE << 1"),
            assign("r_abs", "abs(Shape.SQUARE)"), assign("r_bool_add", "Shape.SQUARE + True"),
            assign("r_not", "not Shape.CIRCLE"), assign("r_cast", "int32(Shape.CIRCLE)"),
            assign("r_range", "range(Shape.SQUARE)"), assign("r_unify_lit", "Shape.SQUARE if x > 0 else 3"),
            assign("r_big", "Big.HUGE"), assign("r_big_add", "Big.HUGE + 1"), ("store", "a[0] = Shape.SQUARE"),
            assign("r_float", "Shape.SQUARE + f"), assign("r_float_cast", "float32(Shape.CIRCLE)"),
            assign("r_index", "a[Shape.CIRCLE]"), assign("r_int", "int(Shape.SQUARE)"),
            assign("r_max", "max(Shape.SQUARE, x)"), assign("r_max_lit", "max(Shape.SQUARE, 3)"),
            ("store_float", "fa[0] = Shape.SQUARE"), assign("r_unify_float", "Shape.SQUARE if x > 0 else 1.5"),
            ("print", "print(Shape.SQUARE)"),
        ]),
        Func("enum_loop", [("a", "int64[:]")], [
            ("y", "y = Shape.CIRCLE\nfor i in range(3):\n    y = Shape.SQUARE\na[0] = y"),
        ], split=False),
    ]
    return Theme("enums", "Enum and IntEnum members in kernels: comparisons, .value, IntEnum members as ints.",
                 funcs, imports="from enum import Enum, IntEnum\n", prelude=ENUM_PRELUDE)


NAMEDTUPLE_PRELUDE = """\
Point = namedtuple("Point", ["x", "y"])
P3 = namedtuple("P3", "x y z")
Pair = namedtuple("Pair", ("first", "second"))


class Particle(NamedTuple):
    pos: float
    mass: float
"""


def theme_namedtuples():
    funcs = [
        Func("namedtuples", [("a", "float32[:]"), ("x", "int32"), ("f", "float32")], [
            assign("r_lits", "Point(1, 2)"), assign("r_mixed", "Point(x, f)"), assign("r_keywords", "Point(x=f, y=f)"),
            assign("r_some_keywords", "Point(f, y=x)"), assign("r_field", "Point(x, f).x"),
            assign("r_index", "Point(x, f)[1]"), assign("r_string_fields", "P3(1, 2, 3)"),
            assign("r_tuple_fields", "Pair(f, x)"), assign("r_class", "Particle(f, 2.0)"),
            assign("r_class_field", "Particle(x, f).mass"), assign("r_len", "len(Point(x, f))"),
            assign("r_var_index", "Point(x, x)[x]"), assign("r_eq", "Point(x, x) == Point(x, x)"),
            assign("r_nested", "Pair(Point(x, x), (f, f))"), assign("r_nested_field", "Pair(Point(x, x), f).first.y"),
            assign("r_missing", "Point(x)"), assign("r_too_many", "Point(1, 2, 3)"),
            assign("r_unknown_kw", "Point(x, z=f)"), assign("r_replace", "Point(x, f)._replace(x=2)"),
            assign("r_fields", "Point._fields"), assign("r_concat", "Point(x, f) + (1,)"),
            assign("r_no_field", "Point(x, f).z"),
        ]),
        Func("namedtuple_iter", [("a", "float32[:]"), ("x", "int32")], [
            ("s", "p = Point(x, x)\ns = 0\nfor v in p:\n    s += v\na[0] = s"),
        ], split=False),
        Func("namedtuple_unpack", [("a", "float32[:]"), ("x", "int32"), ("f", "float32")], [
            ("u", "p = Point(x, f)\nu, w = p\na[0] = u + w"),
        ], split=False),
    ]
    return Theme("namedtuples", "collections.namedtuple and typing.NamedTuple classes: construction, fields, "
                 "indexing, iteration and calls.", funcs,
                 imports="from collections import namedtuple\nfrom typing import NamedTuple\n",
                 prelude=NAMEDTUPLE_PRELUDE)


def theme_tupleparams():
    funcs = [
        Func("tuple_params", [("t", "UniTuple(float32, 3)"), ("u", "Tuple((int32, float64))"),
                              ("v", "Tuple((int16, UniTuple(int64, 2)))"), ("o", "float64[:]")], [
            assign("r_index", "t[0] + t[2]"), ("b", "b, c = u"), assign("r_sum", "u[0] + u[1]"),
            assign("r_nested", "v[1][0] * v[0]"), assign("r_len", "len(t)"), assign("r_iter_max", "max(t)"),
            assign("r_var_index", "t[v[0]]"),
        ]),
        Func("tuple_sig", [("t", None), ("o", None)], [assign("r_first", "t[0] * 2")],
             sig="void(UniTuple(float32, 2), float64[:])"),
    ]
    return Theme("tupleparams", "tuples as kernel parameters, annotated with numba.types' UniTuple and Tuple or "
                 "given by an eager signature.", funcs, imports="from numba.types import Tuple, UniTuple\n")


def unify_pair(a, b):
    # x takes a's value, then (on a branch) b's: the merged x, and r, are a ⊔ b.
    return Func(f"unify_{a}_{b}", [("a", a), ("b", b), ("c", "boolean")], [
        ("x", "x = a\nif c:\n    x = b\nr = x"),
    ], split=False)


def theme_unify():
    pairs = [("int32", "int64"), ("int64", "int32"), ("int64", "float64"), ("int32", "float64"),
             ("int32", "float32"), ("int64", "float32"), ("float32", "float64"),
             ("int8", "int16"), ("uint32", "int32"), ("uint64", "int64"), ("uint32", "uint64"),
             ("uint8", "int8"), ("boolean", "int32"), ("boolean", "int64"), ("boolean", "float64"),
             ("int32", "complex128"), ("float32", "complex64"), ("float64", "complex64"),
             ("float16", "float32"), ("float16", "int32"), ("int64", "int64"), ("int16", "uint16"),
             ("int8", "float16"), ("uint8", "float16"), ("int16", "float32"),
             ("complex64", "complex128")]
    funcs = [unify_pair(a, b) for a, b in pairs]
    funcs += [
        Func("unify_lit_then_float", [("c", "boolean")], [
            ("x", "x = 0\nif c:\n    x = 1.5\nr = x"),
        ], split=False),
        Func("unify_lits", [("c", "boolean")], [
            ("x", "x = 0\nif c:\n    x = 1\nr = x"),
        ], split=False),
        Func("unify_float_then_int", [("a", "float32"), ("n", "int32"), ("c", "boolean")], [
            ("x", "x = a\nif c:\n    x = n\nr = x"),
        ], split=False),
        Func("unify_loop_f32", [("a", "float32[:]"), ("out", "float32[:]")], [
            ("s", "s = 0\nfor i in range(a.size):\n    s += a[i]\nout[0] = s"),
        ], split=False),
        Func("unify_loop_f32_float", [("a", "float32[:]"), ("out", "float32[:]")], [
            ("s", "s = 0.0\nfor i in range(a.size):\n    s += a[i]\nout[0] = s"),
        ], split=False),
        Func("unify_loop_i32", [("a", "int32[:]"), ("out", "int32[:]")], [
            ("s", "s = 0\nfor i in range(a.size):\n    s += a[i]\nout[0] = s"),
        ], split=False),
        Func("unify_loop_nested", [("a", "float32[:, :]"), ("out", "float64[:]")], [
            ("s", "s = 0\nfor i in range(a.shape[0]):\n    for j in range(a.shape[1]):\n"
                  "        s += a[i, j]\nout[0] = s"),
        ], split=False),
        Func("unify_elif", [("a", "int32"), ("b", "float32"), ("n", "int64")], [
            ("x", "if a > 0:\n    x = a\nelif a < 0:\n    x = b\nelse:\n    x = n\nr = x"),
        ], split=False),
        Func("unify_loop_f32_typed", [("a", "float32[:]"), ("out", "float32[:]")], [
            ("s", "s = float32(0)\nfor i in range(a.size):\n    s += a[i]\nout[0] = s"),
        ], split=False),
        Func("unify_while", [("n", "int32"), ("out", "int32[:]")], [
            ("j", "j = 0\nwhile j < n:\n    j += 1\nout[0] = j"),
        ], split=False),
        Func("unify_tuple", [("a", "int32"), ("b", "int64"), ("c", "boolean")], [
            ("t", "t = (a, a)\nif c:\n    t = (b, b)\nr = t"),
        ], split=False),
        Func("unify_tuple_mixed", [("a", "int32"), ("b", "float32"), ("c", "boolean")], [
            ("t", "t = (a, b)\nif c:\n    t = (b, a)\nr = t"),
        ], split=False),
        Func("unify_tuple_len", [("a", "int32"), ("c", "boolean")], [
            ("t", "t = (a, a)\nif c:\n    t = (a, a, a)\nr = t"),
        ], split=False),
        Func("unify_array", [("a", "float32[:]"), ("b", "float64[:]"), ("c", "boolean")], [
            ("t", "t = a\nif c:\n    t = b\nr = t"),
        ], split=False),
        Func("unify_array_layout", [("a", "float32[:]"), ("b", "float32[::1]"), ("c", "boolean")], [
            ("t", "t = a\nif c:\n    t = b\nr = t"),
        ], split=False),
        Func("unify_array_ndim", [("a", "float32[:]"), ("b", "float32[:, :]"), ("c", "boolean")], [
            ("t", "t = a\nif c:\n    t = b\nr = t"),
        ], split=False),
        Func("unify_none", [("a", "int32"), ("c", "boolean")], [
            ("t", "t = None\nif c:\n    t = a\nr = t"),
        ], split=False),
    ]
    return Theme("unify", "a local assigned values of two types (on two branches, or in a "
                 "loop): Numba's SSA names the versions x, x.1, x.2, the merged one carries the "
                 "unified type.", funcs)


def theme_annotated():
    funcs = [
        Func("ann_f32_zero", [("out", "float32[:]")], [("x", "x: float32 = 0\nout[0] = x")],
             split=False),
        Func("ann_f32_aug", [("out", "float32[:]")], [("x", "x: float32 = 0\nx += 1\nout[0] = x")],
             split=False),
        Func("ann_i32_from_i64", [("a", "int64"), ("out", "int32[:]")],
             [("y", "y: int32 = a\nout[0] = y")], split=False),
        Func("ann_loop", [("a", "float32[:]"), ("out", "float32[:]")],
             [("s", "s: float32 = 0\nfor i in range(a.size):\n    s += a[i]\nout[0] = s")],
             split=False),
        Func("ann_cast", [("a", "int64"), ("out", "float32[:]")],
             [("x", "x = float32(0)\ny = int32(a)\nz = float32(a) + 1\nout[0] = x + y + z")],
             split=False),
    ]
    return Theme("annotated", "annotated locals: Python does not keep a local's annotation, so "
                 "Numba never sees it.", funcs)


def theme_augassign():
    pairs = [("int32", "int32"), ("int32", "int64"), ("int32", "float32"), ("float32", "int32"),
             ("float32", "float64"), ("float32", "float32"), ("uint32", "int32"),
             ("int8", "int8"), ("float16", "float16"), ("boolean", "boolean"),
             ("complex64", "float32"), ("float64", "complex128"), ("uint32", "uint32"),
             ("uint8", "int64"), ("int64", "float64"), ("boolean", "int32")]
    funcs = []
    for a, b in pairs:
        stmts = []
        for op, name in [("+=", "add"), ("-=", "sub"), ("*=", "mul"), ("/=", "div"),
                         ("//=", "fdiv"), ("%=", "mod"), ("**=", "pow"), ("&=", "and"),
                         ("|=", "or"), ("^=", "xor"), ("<<=", "shl"), (">>=", "shr")]:
            stmts.append((f"x_{name}", f"x_{name} = a\nx_{name} {op} b"))
        funcs.append(Func(f"aug_{a}_{b}", [("a", a), ("b", b)], stmts))
    funcs.append(Func("aug_literal", [("a", "float32"), ("n", "int32")], [
        ("x", "x = a\nx += 1"), ("y", "y = a\ny *= 2.0"), ("z", "z = n\nz += 1"),
        ("w", "w = n\nw /= 2"), ("v", "v = n\nv <<= 1"),
    ]))
    return Theme("augassign", "augmented assignment: `x = a; x op= b` gives x (a's type) and "
                 "x.1 (a op b's type).", funcs)


def theme_condexpr():
    pairs = [("int32", "int64"), ("int32", "float32"), ("int64", "float64"), ("float32", "float64"),
             ("int32", "int32"), ("uint64", "int64"), ("boolean", "int32"), ("float32", "int64"),
             ("int8", "uint8"), ("complex64", "float64"), ("float16", "float32")]
    funcs = []
    for a, b in pairs:
        funcs.append(Func(f"cond_{a}_{b}", [("a", a), ("b", b), ("c", "boolean")], [
            assign("r_ifexp", "a if c else b"), assign("r_and", "a and b"),
            assign("r_or", "a or b"), assign("r_not", "not a"),
            assign("r_ifexp_lit", "a if c else 0"), assign("r_ifexp_flit", "a if c else 0.0"),
            assign("r_cmpand", "a > 0 and b > 0"),
        ]))
    return Theme("condexpr", "conditional expressions, and/or/not with mixed operand types.",
                 funcs)


def theme_device():
    funcs = [
        Func("dev_f32", [("x", "float32"), ("y", "float32")], [("ret", "return x * y")],
             ret="float32", device=True),
        Func("dev_narrow", [("a", "int32"), ("b", "int32")], [
            assign("s", "a + b"), ("ret", "return s")], ret="int32", device=True, split=False),
        Func("dev_widen", [("a", "float32")], [assign("t", "a * 2"), ("ret", "return t")],
             ret="float64", device=True, split=False),
        Func("dev_bool", [("a", "int64")], [("ret", "return a > 0")], ret="boolean",
             device=True),
        Func("dev_int_from_float", [("a", "float64")], [("ret", "return a")], ret="int64",
             device=True),
        Func("dev_array", [("a", "float32[:]"), ("i", "int64")], [assign("v", "a[i]"),
                                                                   ("ret", "return v + 1")],
             ret="float32", device=True, split=False),
        Func("dev_clamp", [("x", "float32"), ("lo", "float32"), ("hi", "float32")],
             [("ret", "return min(max(x, lo), hi)")], ret="float32", device=True),
        Func("dev_void", [("a", "float32[:]")], [("s", "a[0] = 1")], device=True),
        Func("dev_early", [("a", "int32"), ("c", "boolean")],
             [("ret", "if c:\n    return a\nreturn 0")], ret="int32", device=True, split=False),
    ]
    return Theme("device", "device functions with return annotations (not called: a call "
                 "needs a GPU to type, see README).", funcs)


def theme_calls():
    devs = [
        Func("twice", [("x", "float32")], [("ret", "return x * 2")], ret="float32", device=True),
        Func("same", [("x", "float32")], [("ret", "return x")], ret="float32", device=True),
        Func("add_i32", [("a", "int32"), ("b", "int32")], [("ret", "return a + b")], ret="int32",
             device=True),
        Func("clampf", [("x", "float32"), ("lo", "float32"), ("hi", "float32")],
             [("ret", "return min(max(x, lo), hi)")], ret="float32", device=True),
        Func("store", [("a", "float32[:]"), ("v", "float32")], [("s", "a[0] = v")], device=True),
        Func("edev", [("x", None), ("n", None)], [("ret", "return x * n")], device=True,
             sig="float32(float32, int32)"),
    ]
    calls = Func("calls", [("f", "float32"), ("d", "float64"), ("i", "int32"), ("l", "int64"),
                           ("a", "float32[:]")], [
        assign("r_twice_f", "twice(f)"), assign("r_twice_d", "twice(d)"),
        assign("r_twice_i", "twice(i)"), assign("r_same_f", "same(f)"),
        assign("r_same_i", "same(i)"), assign("r_same_lit", "same(1.5)"),
        assign("r_add_ii", "add_i32(i, i)"), assign("r_add_ll", "add_i32(l, l)"),
        assign("r_add_lit", "add_i32(1, 2)"), assign("r_clamp_f", "clampf(f, 0, 1)"),
        assign("r_clamp_fff", "clampf(f, f, f)"), assign("r_store", "store(a, f)"),
        assign("r_edev_fi", "edev(f, i)"), assign("r_edev_dl", "edev(d, l)"),
        assign("r_nested", "twice(same(f))"),
    ])
    return Theme("calls", "kernels calling device functions: Numba types a call by compiling "
                 "the callee for the argument types at the call; annotations do not count "
                 "there, an eager signature does.", devs + [calls])


def theme_eager():
    funcs = [
        Func("eager_add", [("x", None), ("y", None), ("out", None)], [
            assign("i", "cuda.grid(1)"), ("s", "if i < out.size:\n    out[i] = x[i] + y[i]"),
            assign("v", "x[0] + y[0]")], sig="void(float32[:], float32[:], float32[:])",
            split=False),
        Func("eager_layouts", [("x", None), ("y", None), ("n", None)], [
            assign("a", "x[0]"), assign("b", "y[0, 0]"), assign("c", "n * 2"),
            assign("d", "x[0] * n")], sig="void(float32[::1], float32[:, ::1], int64)"),
        Func("eager_dev", [("x", None), ("n", None)], [("ret", "return x * n")], device=True,
             sig="float32(float32, int32)"),
        Func("eager_dev_infer", [("x", None), ("n", None)], [assign("t", "x + n"),
                                                            ("ret", "return t")],
             device=True, sig="float64(int32, int64)", split=False),
    ]
    return Theme("eager", "eager signatures (`@cuda.jit(\"void(float32[:])\")`): parameter "
                 "types come from the signature.", funcs)


def theme_iterators():
    funcs = [
        Func("ranges", [("n", "int64[::1]"), ("m", "int32"), ("u", "uint64")], [
            assign("r", "range(2, n[0], 3)"), assign("r32", "range(m)"), assign("ru", "range(u)"),
            assign("r_mixed", "range(m, n[0])"), assign("l", "len(r)"), assign("l32", "len(r32)"),
            assign("lu", "len(ru)"), assign("l_lit", "len(range(5))"), assign("start", "r.start"),
            assign("stop32", "r32.stop"), assign("step_u", "ru.step"), assign("s", "r.start + r32.stop"),
            assign("c_int", "5 in r"), assign("c_float", "5.5 not in r"), assign("c_complex", "1j in r"),
            assign("c_bool", "True in r32"), assign("c_tuple", "(1, 2) in r"), assign("c_chain", "0 < m in r32"),
            assign("t", "(r, r32)"), assign("t0", "t[0]"),
        ]),
        Func("iterators", [("n", "int64[::1]"), ("o", "float32[::1]"), ("f", "float32[:, :]")], [
            assign("it", "iter(range(3))"), assign("ia", "iter(n)"), assign("it2", "iter(f)"),
            assign("itt", "iter((1, 2, 3))"), assign("same", "iter(ia)"), assign("e", "enumerate(n)"),
            assign("e5", "enumerate(o, 5)"), assign("ee", "enumerate(enumerate(f), 3)"),
            assign("z", "zip(n, o, range(4))"), assign("z0", "zip()"), assign("z1", "zip(n)"),
            assign("ze", "zip(enumerate(n), zip(o, (1.5, 2.5)))"), assign("x", "next(ia)"),
            assign("row", "next(it2)"), assign("pair", "next(ee)"), assign("triple", "next(z)"),
            assign("nested", "next(ze)"), assign("t", "(e, z0)"),
        ]),
        Func("loops", [("n", "int64[::1]"), ("c", "float32[:, ::1]"), ("g", "float32[::1, :]")], [
            ("rows", "for row in c:\n    n[0] += 1"),
            ("frows", "for frow in g:\n    n[0] += 1"),
            ("enum", "for i, (j, v) in enumerate(enumerate(n)):\n    n[0] += i + j + v"),
            ("zips", "for (k, w), (p, q) in zip(enumerate(c), zip(range(2), n)):\n    n[0] += k + p + q"),
            ("shared", "e = enumerate(n)\nfor a, b in e:\n    break\nfor a2, b2 in e:\n    n[0] += a2"),
        ], split=False),
    ]
    return Theme("iterators", "ranges and iterators as values: range states of three types, their len, "
                 "members and `in`; getiter's iterators, iter(), next(), enumerate() and zip() nested; "
                 "for loops over them.", funcs)


THEMES = [theme_arith, theme_division, theme_compare, theme_bitwise, theme_unary, theme_mixed,
          theme_literals, theme_builtins, theme_math, theme_cmath, theme_cuda, theme_arrays,
          theme_complex, theme_tuples, theme_tupleops, theme_operator, theme_ufuncs, theme_slicestore, theme_enums,
          theme_namedtuples, theme_tupleparams, theme_unify, theme_annotated, theme_augassign,
          theme_condexpr, theme_device, theme_calls, theme_eager, theme_iterators]

# ---------------------------------------------------------------------------------------------
# Typing through numba-cuda


def load(path, name):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    loader.exec_module(mod)
    return mod


def signature(obj):
    """(return type, argument types): from the annotations, as pykc reads them, or else from
    the eager signature the dispatcher was compiled for."""
    fn = obj.py_func
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if params and all(p.annotation is inspect.Parameter.empty for p in params) or \
            (not params and getattr(obj, "overloads", None)):
        overloads = list(obj.overloads.items())
        if len(overloads) != 1:
            raise SystemExit(f"{fn.__name__}: no annotations and not one eager signature")
        args, compiled = overloads[0]
        ret = compiled.signature.return_type if is_device(obj) else types.void
        return ret, tuple(args)
    args = []
    for p in params:
        if p.annotation is inspect.Parameter.empty:
            raise SystemExit(f"{fn.__name__}: parameter {p.name} has no annotation")
        args.append(p.annotation)
    ret = sig.return_annotation
    return (types.void if ret in (inspect.Signature.empty, None) else ret), tuple(args)


def is_device(obj):
    targetoptions = getattr(obj, "targetoptions", {})
    return bool(getattr(obj, "_device", False) or targetoptions.get("device"))


def type_function(obj):
    """numba-cuda's typing of one dispatcher: the lines numba_types.py prints."""
    fn = obj.py_func
    ret, args = signature(obj)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cres = compile_cuda(fn, ret, args, cc=CC, fastmath=False)
    name = fn.__name__
    lines = [f"{name} -> {cres.signature.return_type}{'  [device]' if is_device(obj) else ''}"]
    for var, ty in sorted(cres.type_annotation.typemap.items(), key=lambda kv: str(kv[0])):
        if not str(var).startswith("$") and not str(var).startswith("arg."):
            lines.append(f"{name} {var} {ty}")
    return lines


def summarize(exc):
    """A short, stable, one-line summary of a Numba error."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # colours
    keep = []
    for ln in text.splitlines():
        ln = ln.strip()
        if not ln or ln.startswith(("Failed in ", "- Resolution failure")):
            continue
        if ln.startswith(("File \"", "During:", "There are ", "raised from")):
            break
        keep.append(ln)
        if ln.startswith(">>>") or len(keep) >= 3:
            break
    s = " ".join(keep)
    s = re.sub(r",? defined at \S+ \(\d+\)", "", s)
    s = re.sub(r" at \S+\.pyk \(\d+\)", "", s)
    s = re.sub(r"0x[0-9a-fA-F]+", "0x?", s)
    s = re.sub(r": %\S+ = .*", "", s)  # LLVM IR quoted in a lowering error
    s = re.sub(r"\s+", " ", s).strip()
    if len(s) > 300:
        s = s[:297] + "..."
    return f"{type(exc).__name__}: {s}"


class Typer:
    """Compiles candidate functions in scratch modules."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.count = 0

    def try_compile(self, theme, funcs, context=()):
        """Types each of funcs, in a module that defines context too (the functions they may
        call). Returns {name: typemap lines or the exception}."""
        self.count += 1
        modname = f"_pykc_typing_{self.count}"
        path = os.path.join(self.tmp, modname + ".pyk")
        with open(path, "w") as f:
            f.write(theme.header() + "\n\n" + "\n\n".join(fn.source() for fn in
                                                         list(context) + list(funcs)))
        mod = load(path, modname)
        out = {}
        for fn in funcs:
            try:
                out[fn.name] = type_function(getattr(mod, fn.name))
            except Exception as e:  # noqa: BLE001 - every Numba refusal is data
                out[fn.name] = e
        del sys.modules[modname]
        return out


def resolve_theme(typer, theme, errors):
    """Decides which functions/statements stay; refused ones go to errors."""
    kept = []
    res = typer.try_compile(theme, theme.funcs)
    for f in theme.funcs:
        r = res[f.name]
        if not isinstance(r, Exception):
            kept.append(f)
            continue
        if not f.split or len(f.stmts) == 1:
            label = f.stmts[0][0] if len(f.stmts) == 1 and f.split else None
            errors.append((f, f.stmts, label, r))
            continue
        singles = [f.like(f"{f.name}__{k}", [s]) for k, s in enumerate(f.stmts)]
        res1 = typer.try_compile(theme, singles, context=theme.funcs)
        good = []
        for s, single in zip(f.stmts, singles):
            rk = res1[single.name]
            if isinstance(rk, Exception):
                errors.append((f, [s], s[0], rk))
            else:
                good.append(s)
        if good:
            kept.append(f.like(stmts=good))
    return kept


def write_theme(theme, funcs):
    path = os.path.join(CASES, theme.name + ".pyk")
    with open(path, "w") as f:
        f.write(theme.header() + "\n\n" + "\n\n".join(fn.source() for fn in funcs))
    mod = load(path, "pykc_typing_" + theme.name)
    lines = []
    for fn in funcs:
        lines += type_function(getattr(mod, fn.name))  # a refusal here is this script's bug
    with open(os.path.join(CASES, theme.name + ".expected"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(funcs), sum(1 for ln in lines if " -> " not in ln)


def write_errors(errors):
    srcs, txt, imports, prelude, names = [], [], "", "", set()
    for theme, f, stmts, label, exc in errors:
        ename = f"{f.name}_{label.strip('_')}" if label else f.name
        assert ename not in names, ename
        names.add(ename)
        srcs.append(f.like(ename, stmts).source())
        txt.append(f"errors.pyk:{ename}: {summarize(exc)}")
        for ln in theme.imports.splitlines(keepends=True):
            if ln not in imports:
                imports += ln
        for ln in theme.prelude.splitlines(keepends=True):
            if ln not in prelude:
                prelude += ln
    head = (HEADER + F16_IMPORT + imports +
            "\n# Every function here is refused by numba-cuda: errors.txt says why.\n" +
            ("\n" + prelude if prelude else ""))
    with open(os.path.join(CASES, "errors.pyk"), "w") as f:
        f.write(head + "\n\n" + "\n\n".join(srcs))
    with open(os.path.join(CASES, "errors.txt"), "w") as f:
        f.write("\n".join(txt) + "\n")


def write_lit(theme):
    with open(os.path.join(LIT, theme.name + ".pyk"), "w") as f:
        about = textwrap.fill(f"Generated by tests/typing/gen_typing.py: pykc's typing of "
                              f"tests/typing/cases/{theme.name}.pyk ({theme.doc}) must be "
                              f"numba-cuda's, as recorded in {theme.name}.expected.", 96,
                              initial_indent="# ", subsequent_indent="# ")
        f.write(f"""\
{about}
# RUN: %pykc --dump-types %S/../../typing/cases/{theme.name}.pyk | diff -u %S/../../typing/cases/{theme.name}.expected -
from numba import cuda  # noqa: F401
""")


def main():
    os.makedirs(CASES, exist_ok=True)
    os.makedirs(LIT, exist_ok=True)
    for d in (CASES, LIT):
        for old in os.listdir(d):
            if old.endswith((".pyk", ".expected", ".txt")):
                os.remove(os.path.join(d, old))
    tmp = tempfile.mkdtemp(prefix="pykc-typing-")
    typer = Typer(tmp)
    errors = []  # (theme, func, stmts, label, exc)
    total_funcs = total_lines = 0
    names = set()
    try:
        for make in THEMES:
            theme = make()
            for f in theme.funcs:
                assert f.name not in names, f"duplicate function name {f.name}"
                names.add(f.name)
            theme_errors = []
            kept = resolve_theme(typer, theme, theme_errors)
            errors += [(theme,) + e for e in theme_errors]
            nf, nl = write_theme(theme, kept)
            write_lit(theme)
            total_funcs += nf
            total_lines += nl
            if VERBOSE:
                print(f"{theme.name}: {nf} functions, {nl} variables, "
                      f"{len(theme_errors)} refused", file=sys.stderr)
        write_errors(errors)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total_funcs} functions, {total_lines} typed variables in {len(THEMES)} files; "
          f"{len(errors)} refused cases in errors.pyk")


if __name__ == "__main__":
    main()
