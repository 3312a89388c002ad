#!/usr/bin/env python3
"""Runs pykc's compiled test kernels on the GPU and checks every result twice:
against a reference computed here with NumPy, and against the same .pyk file
run by numba-cuda.

    python3 check_kernels.py DIR [-k PATTERN] [--no-numba] [--list] [-v]
    python3 check_kernels.py --host DIR [-k PATTERN]       (no GPU: the CPU)
    NUMBA_ENABLE_CUDASIM=1 python3 check_kernels.py --simulate [-k PATTERN]

DIR is what tests/gpu/build-gpu-bundle.sh wrote: for each module NAME, the
source NAME.pyk, pykc's NAME.ptx and NAME.yaml, or NAME.error when pykc
refused it. For each case registered below (a kernel of a module, its inputs,
its launch and its expected outputs) the driver

  1. builds the inputs with a seeded NumPy generator,
  2. launches pykc's kernel with CuPy's RawModule, packing every argument
     from the manifest's ptx_params list alone (as foreign_loader.py does),
  3. launches the same kernel of the same .pyk under numba-cuda, on fresh
     copies of the same inputs,
  4. compares pykc's outputs with the reference and with numba-cuda's.

Comparisons: integers and bools exactly; floats exactly (NaN equal to NaN)
unless the case names a tolerance -- it does where the arithmetic may round
differently in the last bits (libdevice transcendental functions against
NumPy's, fused multiply-adds, float atomics whose order varies), and then it
says rtol/atol; a second tolerance may apply to the numba-cuda comparison
(usually exact or 1-2 ulp, since both use libdevice and contract a*b+c).
"bits" compares the bit patterns (signed zeros count).

Cases marked xfail name a known pykc bug: they print XFAIL while they fail
and XPASS (counted as a failure, so the mark gets removed) once they pass.

The cases run in a worker process; a kernel that crashes it or leaves the
CUDA context unusable (an illegal address) fails alone and a fresh worker
goes on with the next case. The last line is `N passed, N failed`.

--host runs a bundle built with `PYKCFLAGS='--target host' PYKC_EXT=so
build-gpu-bundle.sh DIR` on libpykrt's host device (the CPU, through the
pykrt package) and checks it against the NumPy references alone: the
kernels' semantics without a GPU.

Without a GPU: --dry-run checks that every module compiled and that every
case's arguments fit pykc's manifest (and packs them); --simulate runs the
numba half in numba-cuda's simulator against the references (a check of the
test kernels and of the references themselves).
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import traceback
import warnings

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Cases


class Tol:
    """A float comparison: |got - want| <= atol + rtol * |want|, NaN == NaN."""

    def __init__(self, rtol=0.0, atol=0.0, bits=False):
        self.rtol, self.atol, self.bits = rtol, atol, bits

    def __str__(self):
        if self.bits:
            return "bits"
        if self.rtol == 0 and self.atol == 0:
            return "exact"
        parts = []
        if self.rtol:
            parts.append(f"rtol={self.rtol:g}")
        if self.atol:
            parts.append(f"atol={self.atol:g}")
        return " ".join(parts)


EXACT = Tol()
BITS = Tol(bits=True)
# one or two units in the last place: where the GPU may contract a*b+c into
# an fma or not, NVVM and LLVM choosing differently
ULP32 = Tol(rtol=2.4e-7, atol=1e-30)
ULP64 = Tol(rtol=4.5e-16, atol=1e-300)
# a float32 a*b+c of O(1) operands, fused or not: when it cancels, the
# unfused form is off by an ulp of a*b, not of the result
FMA32 = Tol(rtol=2.4e-7, atol=2e-6)
FMA64 = Tol(rtol=4.5e-16, atol=4e-15)


class View:
    """An argument that is a view of a larger array (a strided or reversed
    slice): the kernel gets base[key]; expectations refer to the whole base."""

    def __init__(self, base, key):
        self.base, self.key = base, key


class Run:
    """One launch: grid and block (ints or tuples), the kernel's arguments in
    order (NumPy arrays, Views or NumPy scalars), expected outputs by argument
    index, tolerances, dynamic shared memory in bytes."""

    def __init__(self, grid, block, args, expect, tol=EXACT, numba_tol=None, shared=0, numba_skip=None):
        self.grid = grid if isinstance(grid, tuple) else (grid,)
        self.block = block if isinstance(block, tuple) else (block,)
        self.args = args
        self.expect = expect
        self.tol = tol
        self.numba_tol = numba_tol
        self.shared = shared
        self.numba_skip = numba_skip  # why numba-cuda cannot run this launch

    def tol_for(self, idx, numba=False):
        t = self.numba_tol if numba and self.numba_tol is not None else self.tol
        return t.get(idx, EXACT) if isinstance(t, dict) else t


class Case:
    def __init__(self, module, kernel, make, label, xfail, sim):
        self.module, self.kernel, self.make = module, kernel, make
        self.label, self.xfail, self.sim = label, xfail, sim

    @property
    def name(self):
        return f"{self.module}.{self.kernel}" + (f" [{self.label}]" if self.label else "")


CASES = []


def case(module, kernel, label=None, xfail=None, sim=True):
    """Registers make(rng) -> Run as a test of kernel `kernel` of module
    `module` (the file NAME.pyk). xfail: the known pykc bug that makes it
    fail. sim=False: numba-cuda's simulator cannot model it (it runs the
    kernel as Python on NumPy scalars: NumPy's promotion of int32 and float32,
    no strided buffers, 32-bit clz/brev, no real cbrt), so --simulate skips
    it."""
    def deco(make):
        CASES.append(Case(module, kernel, make, label, xfail, sim))
        return make
    return deco


def blocks(n, tpb):
    return (n + tpb - 1) // tpb


def floor_divmod_int(a, b):
    """Python's // and % on int arrays with Numba's x // 0 == x % 0 == 0."""
    with np.errstate(all="ignore"):
        q = np.where(b == 0, 0, np.floor_divide(a, np.where(b == 0, 1, b)))
        r = np.where(b == 0, 0, np.mod(a, np.where(b == 0, 1, b)))
    return q.astype(a.dtype), r.astype(a.dtype)


def py_float_divmod(x, y):
    """Numba's real_divmod (CPython's float_divmod) step by step, with the
    numpy error model: x // 0.0 is x / 0.0 and x % 0.0 is nan."""
    x, y = np.float64(x), np.float64(y)
    with np.errstate(all="ignore"):
        if y == 0:
            return x / y, np.float64(np.nan)
        # numba-cuda's frem on the GPU is x - trunc(x / y) * y (NVVM's
        # expansion): an infinite divisor gives nan where fmod gives x
        mod = np.fmod(x, y) if np.isfinite(y) else np.float64(np.nan)
        div = (x - mod) / y
        if mod != 0 or np.isnan(mod):          # fcmp_unordered("!=")
            if (y < 0) != (mod < 0):
                mod = mod + y
                div = div - 1.0
        else:
            mod = np.copysign(np.float64(0.0), y)
        if div != 0 and not np.isnan(div):      # fcmp_ordered("!=")
            floordiv = np.floor(div)
            if div - floordiv > 0.5:
                floordiv = floordiv + 1.0
        else:
            floordiv = div * div * x / y
    return floordiv, mod


# ---- arithmetic -------------------------------------------------------------


@case("vector_add", "vadd")
def _(rng):
    n = 4099
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    return Run(blocks(n, 128), 128, [x, y, out], {2: x + y})


@case("vector_add", "vadd", "strided views", sim=False)
def _(rng):
    n = 1000
    x = rng.standard_normal(3 * n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(2 * n, np.float32)
    want = out.copy()
    want[::2] = x[::3] + y[::-1]
    return Run(blocks(n, 128), 128, [View(x, np.s_[::3]), View(y, np.s_[::-1]), View(out, np.s_[::2])], {2: want},
               numba_skip="numba-cuda refuses CuPy views with negative strides (OverflowError)")


@case("matmul_grid2", "matmul")
def _(rng):
    m, k, n = 70, 45, 33
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Run((blocks(m, 16), blocks(n, 16)), (16, 16), [a, b, c], {2: want},
               tol=Tol(rtol=1e-4, atol=1e-4), numba_tol=Tol(rtol=1e-5, atol=1e-5))


@case("reduce_atomic", "sum_f32")
def _(rng):
    n = 5000
    x = rng.random(n).astype(np.float32)
    total = np.zeros(1, np.float32)
    return Run(8, 64, [x, total], {1: np.array([x.astype(np.float64).sum()], np.float32)},
               tol=Tol(rtol=2e-5))


@case("reduce_atomic", "sum_squares_i64")
def _(rng):
    n = 5000
    x = rng.integers(-10**6, 10**6, n).astype(np.int64)
    total = np.zeros(1, np.int64)
    return Run(8, 64, [x, total], {1: np.array([(x * x).sum()], np.int64)})


@case("add_half", "add_half_f32")
def _(rng):
    a = rng.standard_normal(1000).astype(np.float32)
    return Run(blocks(1000, 128), 128, [a], {0: (a.astype(np.float64) + 0.5).astype(np.float32)})


@case("add_half", "add_half_f64")
def _(rng):
    a = rng.standard_normal(1000)
    return Run(blocks(1000, 128), 128, [a], {0: a + 0.5})


@case("add_half", "add_half_i32")
def _(rng):
    a = rng.integers(-100, 100, 1000).astype(np.int32)
    # int32 + 0.5 is a float64; stored back it truncates toward zero
    return Run(blocks(1000, 128), 128, [a], {0: np.trunc(a + 0.5).astype(np.int32)})


def _divmod_inputs(rng, dtype, n=600):
    a = rng.integers(-1000, 1000, n).astype(dtype)
    b = rng.integers(-12, 13, n).astype(dtype)
    b[:20] = 0
    a[20:40] = -a[20:40] - 1
    return a, b


@case("int_floordiv_mod", "divmod_i64")
def _(rng):
    a, b = _divmod_inputs(rng, np.int64)
    a[0], a[1] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    b[0], b[1] = 7, 7
    q, r = floor_divmod_int(a, b)
    z = np.zeros_like(a)
    return Run(blocks(a.size, 128), 128, [a, b, z, z.copy()], {2: q, 3: r})


@case("int_floordiv_mod", "divmod_i64", "INT64_MIN // -1", sim=False)
def _(rng):
    a = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).min, -7], np.int64)
    b = np.array([-1, -1, 2], np.int64)
    q = np.array([0, 0, -4], np.int64)
    r = np.array([0, 0, 1], np.int64)
    z = np.zeros(3, np.int64)
    return Run(1, 32, [a, b, z, z.copy()], {2: q, 3: r})


@case("int_floordiv_mod", "divmod_i32")
def _(rng):
    a, b = _divmod_inputs(rng, np.int32)
    q, r = floor_divmod_int(a.astype(np.int64), b.astype(np.int64))
    z = np.zeros(a.size, np.int64)
    return Run(blocks(a.size, 128), 128, [a, b, z, z.copy()], {2: q, 3: r})


@case("int_floordiv_mod", "divmod_u64")
def _(rng):
    a = rng.integers(0, 2**63, 600, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 2**20, 600, dtype=np.uint64)
    b[:10] = 0
    q, r = floor_divmod_int(a, b)
    z = np.zeros_like(a)
    return Run(blocks(a.size, 128), 128, [a, b, z, z.copy()], {2: q, 3: r})


def _float_divmod_inputs(rng, dtype):
    a = (rng.standard_normal(500) * 10).astype(dtype)
    b = (rng.standard_normal(500) * 3).astype(dtype)
    b[:5] = 0.0
    a[5:10] = 0.0
    a[10:20] = np.round(a[10:20])
    b[10:20] = np.round(b[10:20]) + 1
    a[20], b[20] = np.inf, 2
    a[21], b[21] = 5, np.inf
    a[22], b[22] = -5, np.inf
    return a, b


@case("float_floordiv_mod", "divmod_f64")
def _(rng):
    a, b = _float_divmod_inputs(rng, np.float64)
    qr = [py_float_divmod(float(x), float(y)) for x, y in zip(a, b)]
    q = np.array([t[0] for t in qr])
    r = np.array([t[1] for t in qr])
    z = np.zeros_like(a)
    return Run(blocks(a.size, 128), 128, [a, b, z, z.copy()], {2: q, 3: r})


@case("float_floordiv_mod", "divmod_f64", "signed zero quotient")
def _(rng):
    a = np.array([-0.0, -1.0, 1.0, 0.0], np.float64)
    b = np.array([3.0, -3.0, 3.0, -3.0], np.float64)
    q = np.array([py_float_divmod(x, y)[0] for x, y in zip(a, b)])
    r = np.array([py_float_divmod(x, y)[1] for x, y in zip(a, b)])
    z = np.zeros_like(a)
    return Run(1, 32, [a, b, z, z.copy()], {2: q, 3: r}, tol=BITS)


@case("float_floordiv_mod", "divmod_f32")
def _(rng):
    a, b = _float_divmod_inputs(rng, np.float32)
    # float32 // float32 stays float32 in Numba: the same algorithm in single
    # precision, checked here against the double one rounded (tolerance).
    qr = [py_float_divmod(float(x), float(y)) for x, y in zip(a, b)]
    q = np.array([t[0] for t in qr], np.float32)
    r = np.array([t[1] for t in qr], np.float32)
    z = np.zeros_like(a)
    return Run(blocks(a.size, 128), 128, [a, b, z, z.copy()], {2: q, 3: r},
               tol=Tol(rtol=1e-5, atol=1e-5), numba_tol=EXACT)


@case("true_division", "div_int")
def _(rng):
    a = rng.integers(-10**9, 10**9, 500).astype(np.int64)
    b = rng.integers(-50, 50, 500).astype(np.int64)
    a[0], b[0] = 0, 0
    b[1:4] = 0
    with np.errstate(all="ignore"):
        want = a.astype(np.float64) / b.astype(np.float64)
    return Run(blocks(500, 128), 128, [a, b, np.zeros(500)], {2: want})


@case("true_division", "div_f32")
def _(rng):
    a = rng.standard_normal(500).astype(np.float32)
    b = rng.standard_normal(500).astype(np.float32)
    b[:3] = 0
    with np.errstate(all="ignore"):
        want = a / b
    return Run(blocks(500, 128), 128, [a, b, np.zeros(500, np.float32)], {2: want})


@case("power", "pow_int")
def _(rng):
    a = rng.integers(-9, 10, 400).astype(np.int64)
    e = rng.integers(0, 70, 400).astype(np.int64)
    with np.errstate(all="ignore"):
        want = np.array([pow(int(x), int(y), 2**64) for x, y in zip(a, e)], dtype=np.uint64).view(np.int64)
    return Run(blocks(400, 128), 128, [a, e, np.zeros(400, np.int64)], {2: want})


@case("power", "pow_int", "negative exponents", sim=False)
def _(rng):
    a = np.array([1, -1, -1, 0, 5, -2, 1], np.int64)
    e = np.array([-2, -3, -2, -1, -1, -1, -7], np.int64)
    want = np.array([1, -1, 1, np.iinfo(np.int64).min, 0, 0, 1], np.int64)
    return Run(1, 32, [a, e, np.zeros(7, np.int64)], {2: want})


@case("power", "pow_float")
def _(rng):
    a = rng.random(400) * 10
    b = rng.standard_normal(400) * 3
    a[:4] = [0.0, -2.0, -2.0, 1.0]
    b[:4] = [-1.0, 3.0, 0.5, np.inf]
    with np.errstate(all="ignore"):
        want = a ** b
    return Run(blocks(400, 128), 128, [a, b, np.zeros(400)], {2: want}, tol=Tol(rtol=1e-14))


@case("power", "pow_float_int")
def _(rng):
    a = rng.standard_normal(400) * 2
    e = rng.integers(-20, 21, 400).astype(np.int64)
    with np.errstate(all="ignore"):
        want = a ** e.astype(np.float64)
    return Run(blocks(400, 128), 128, [a, e, np.zeros(400)], {2: want}, tol=Tol(rtol=1e-13))


@case("power", "pow_float_int", "exponent beyond int32")
def _(rng):
    a = np.array([2.0, 1.0, -1.0, 0.5])
    e = np.array([2**32 + 1, 2**40, 2**32 + 1, 2**33], np.int64)
    want = np.array([np.inf, 1.0, -1.0, 0.0])
    return Run(1, 32, [a, e, np.zeros(4)], {2: want})


@case("power", "pow_literal")
def _(rng):
    a = rng.standard_normal(300).astype(np.float32)
    # a ** 3 is unrolled into multiplies (static_power_impl): exactly
    # numba-cuda's result; NumPy's a * a * a is within an ulp of it
    return Run(blocks(300, 128), 128, [a, np.zeros(300, np.float32), np.zeros(300, np.float32)],
               {1: a * a, 2: a * (a * a)}, tol={2: ULP32}, numba_tol=EXACT)


@case("shifts_bitwise", "shifts_i64")
def _(rng):
    a = rng.integers(-2**62, 2**62, 640).astype(np.int64)
    s = np.tile(np.arange(64, dtype=np.int64), 10)
    return Run(blocks(640, 128), 128, [a, s, np.zeros(640, np.int64), np.zeros(640, np.int64)],
               {2: np.left_shift(a, s), 3: np.right_shift(a, s)})


@case("shifts_bitwise", "shifts_u64")
def _(rng):
    a = rng.integers(0, 2**64 - 1, 640, dtype=np.uint64)
    s = np.tile(np.arange(64, dtype=np.uint64), 10)
    return Run(blocks(640, 128), 128, [a, s, np.zeros(640, np.uint64), np.zeros(640, np.uint64)],
               {2: np.left_shift(a, s), 3: np.right_shift(a, s)})


@case("shifts_bitwise", "bitwise")
def _(rng):
    a = rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64)
    b = rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64)
    want = np.stack([a & b, a | b, a ^ b, ~a], axis=1)
    return Run(blocks(300, 128), 128, [a, b, np.zeros((300, 4), np.int64)], {2: want})


@case("shift_narrow", "shift32", sim=False)
def _(rng):
    a = rng.integers(-2**31, 2**31, 320).astype(np.int32)
    s = np.tile(np.arange(32, dtype=np.int64), 10) + 8
    u = rng.integers(0, 256, 320).astype(np.uint8)
    a64 = a.astype(np.int64)
    want = np.stack([a64 << s, u.astype(np.int64) << 8, a64 >> s], axis=1)
    return Run(blocks(320, 128), 128, [a, s, u, np.zeros((320, 3), np.int64)], {3: want})


# ---- comparisons, boolean operators, conditional expressions ------------------


@case("compare_chain", "chain")
def _(rng):
    n = 400
    a = rng.integers(-5, 15, n).astype(np.int64)
    b = rng.integers(-5, 15, n).astype(np.float64) + rng.choice([0.0, 0.5], n)
    c = rng.integers(-5, 15, n).astype(np.int64)
    b[:5] = np.nan
    af, cf = a.astype(np.float64), c.astype(np.float64)
    want = np.stack([(af < b) & (b < cf), (af <= b) & (b <= cf) & (c != 0), (c > a) & (a >= 0),
                     a == c, b != b, (0 < a) & (a < 10) & (10 < c)], axis=1)
    return Run(blocks(n, 128), 128, [a, b, c, np.zeros((n, 6), np.bool_)], {3: want})


@case("boolops", "andor")
def _(rng):
    n = 300
    a = rng.integers(-3, 4, n).astype(np.int64)
    b = rng.integers(-3, 4, n).astype(np.int64)
    f = rng.choice([0.0, 1.5, -2.25], n)
    o = np.zeros((n, 5), np.int64)
    g = np.zeros((n, 2))
    for i in range(n):
        x, y, z = int(a[i]), int(b[i]), float(f[i])
        j = x
        o[i] = [x and y, x or y, not x, (x and y) or 7, 1 if 0 <= j < n and a[j] > 0 else 0]
        g[i] = [x or z, z and x]
    return Run(blocks(n, 128), 128, [a, b, f, np.zeros_like(o), np.zeros_like(g)], {3: o, 4: g})


@case("ifexp", "select")
def _(rng):
    n = 300
    a = rng.integers(-3, 4, n).astype(np.int64)
    f = rng.standard_normal(n)
    return Run(blocks(n, 128), 128, [a, f, np.zeros(n), np.zeros(n, np.int64)],
               {2: np.where(a > 0, f, a.astype(np.float64)), 3: np.sign(a)})


@case("optional", "values")
def _(rng):
    n = 300
    a = rng.integers(-4, 9, n).astype(np.int32)
    f = rng.standard_normal(n).astype(np.float32)
    s = np.array([k * (k - 1) // 2 for k in a], np.int64)
    o = np.where(a > 0, s + np.minimum(a, 5) + 3 * np.abs(a), 0).astype(np.int64)
    g = np.where(f > 0, f.astype(np.float64) * 2.0, -1.0)
    return Run(blocks(n, 128), 128, [a, f, np.zeros(n, np.bool_), np.zeros(n, np.int64), np.zeros(n)],
               {2: a <= 0, 3: o, 4: g})


# the simulator raises numba-cuda's TypeError where the kernel returns
@case("optional", "none_returns", sim=False)
def _(rng):
    n = 300
    a = rng.integers(-4, 9, n).astype(np.int32)
    return Run(blocks(n, 128), 128, [a, np.full(n, -7, np.int64), np.zeros(n, np.int32)],
               {1: np.where(a > 0, 2 * a.astype(np.int64), -7), 2: (a > 0).astype(np.int32)})


# ---- conversions and builtins ---------------------------------------------------


@case("conversions", "casts")
def _(rng):
    n = 300
    f = rng.uniform(-500, 500, n)
    f[:6] = [-2.7, 2.7, -0.5, 0.0, 0.99999, -127.9]
    nn = rng.integers(-10**6, 10**6, n).astype(np.int64)
    nn[:3] = [0, 255, 256]
    u = rng.integers(0, 2**64 - 1, n, dtype=np.uint64)
    outs = [np.zeros(n, np.int64), np.zeros(n, np.float32), np.zeros(n, np.uint8), np.zeros(n, np.int8),
            np.zeros(n, np.int16), np.zeros(n, np.bool_), np.zeros(n), np.zeros(n, np.uint64),
            np.zeros(n, np.int32)]
    want = {
        3: np.trunc(f).astype(np.int64),
        4: f.astype(np.float32) + nn.astype(np.float32),
        5: nn.astype(np.uint8),
        6: np.trunc(f / 4).astype(np.int8),
        7: (nn * 1000).astype(np.int16),
        8: (f != 0) & (nn != 0),
        9: u.astype(np.float64),
        10: np.trunc(np.abs(f)).astype(np.uint64),
        11: np.trunc(f * 3).astype(np.int32),
    }
    return Run(blocks(n, 128), 128, [f, nn, u] + outs, want)


@case("round_abs_minmax", "builtins")
def _(rng):
    n = 300
    f = np.round(rng.uniform(-20, 20, n) * 2) / 2
    f[:8] = [2.5, 3.5, -2.5, -0.5, 0.5, 7.25, 1.005, 2.675]
    g = rng.uniform(-20, 20, n)
    g[8:12] = np.nan
    nn = rng.integers(-10, 10, n).astype(np.int64)
    oi = np.zeros((n, 4), np.int64)
    of = np.zeros((n, 5))
    import math
    for i in range(n):
        x, y, k = float(f[i]), float(g[i]), int(nn[i])
        oi[i, 0] = round(x)
        oi[i, 1:] = [abs(k), min(k, 3, -k), max(k, 3, -k)]
        of[i, :3] = [abs(x), min(x, y), max(x, y)]
        of[i, 4] = max(y, k)
        # numba-cuda's round_to_impl: scale, round half to even, scale back
        # (so round(2.675, 2) is 2.68: 2.675 * 100 is exactly 267.5)
        of[i, 3] = float(np.round(x * 100.0)) / 100.0
    return Run(blocks(n, 128), 128, [f, g, nn, np.zeros_like(oi), np.zeros_like(of)], {3: oi, 4: of})


@case("round_abs_minmax", "builtins", "round(x, 2) overflow", sim=False)
def _(rng):
    f = np.array([1e307, -1e307, 1.5])
    g = np.zeros(3)
    nn = np.zeros(3, np.int64)
    of = np.zeros((3, 5))
    want = of.copy()
    want[:, 3] = [1e307, -1e307, 1.5]
    want[:, 0] = np.abs(f)
    want[:, 1] = np.minimum(f, 0)
    want[:, 2] = np.maximum(f, 0)
    want[:, 4] = np.maximum(f * 0, 0)
    return Run(1, 32, [f, g, nn, np.zeros((3, 4), np.int64), of], {4: want})


# ---- loops -------------------------------------------------------------------------


@case("range_loops", "ranges")
def _(rng):
    n = 200
    start = rng.integers(-20, 20, n).astype(np.int64)
    stop = rng.integers(-20, 40, n).astype(np.int64)
    step = rng.choice([-5, -2, -1, 1, 2, 3, 7], n).astype(np.int64)
    o = np.zeros((n, 5), np.int64)
    for i in range(n):
        a, b, s = int(start[i]), int(stop[i]), int(step[i])
        o[i, 0] = sum(range(b))
        o[i, 1] = sum(j * j for j in range(a, b))
        r = range(a, b, s)
        o[i, 2], o[i, 3] = sum(r), len(r)
        acc = 0
        for j in range(b, a, -3):
            acc = acc * 3 + j
        o[i, 4] = acc
    return Run(blocks(n, 64), 64, [start, stop, step, np.zeros_like(o)], {3: o})


@case("range_loops", "edge_ranges")
def _(rng):
    top, bottom = 2**63 - 1, -2**63
    starts, stops, steps = [], [], []
    for k in range(24):
        for s in (1, 2, 3, 7, 2**62):
            starts.append(top - k), stops.append(top), steps.append(s)
            starts.append(bottom + k), stops.append(bottom), steps.append(-s)
    start, stop, step = (np.array(v, np.int64) for v in (starts, stops, steps))
    n = start.size
    o = np.zeros((n, 2), np.int64)
    for i in range(n):
        r = range(int(start[i]), int(stop[i]), int(step[i]))
        o[i] = len(r), (r[-1] if len(r) else 0)
    return Run(blocks(n, 64), 64, [start, stop, step, np.zeros_like(o)], {3: o})


@case("loop_control", "control")
def _(rng):
    n, m = 200, 12
    x = rng.integers(-5, 60, (n, m)).astype(np.int64)
    x[:50] = np.abs(x[:50])
    o = np.zeros((n, 4), np.int64)
    for i in range(n):
        row = [int(v) for v in x[i]]
        neg = next((j for j, v in enumerate(row) if v < 0), -2)
        s = sum(v for v in row if v % 3 != 0)
        k = t = 0
        while k < m:
            k += 1
            if row[k - 1] == 0:
                continue
            if row[k - 1] > 50:
                break
            t += 1
        else:
            t += 1000
        o[i] = [neg, s, t, k]
    return Run(blocks(n, 64), 64, [x, np.zeros_like(o)], {1: o})


@case("ssa_versions", "versions", sim=False,
      xfail="int /= int: numba-cuda's typemap makes y.1 int64, as pykc does, but its code keeps the float64 "
            "quotient (f = 1.75 + 0.5 for a = 7 on an H100); pykc stores the int64")
def _(rng):
    n = 300
    a = rng.integers(-2**40, 2**40, n).astype(np.int64)
    a[:4] = [7, -7, 3, 2**32 + 1]
    with np.errstate(over="ignore"):
        r = a * a                       # wraps, as int64 does on the GPU
    y = np.trunc(a / 4).astype(np.int64)  # x /= 4 on an int keeps an int
    return Run(blocks(n, 128), 128, [a, np.zeros(n, np.int64), np.zeros(n)], {1: r, 2: y + 0.5})


@case("ssa_versions", "pruned")
def _(rng):
    n = 100
    a = rng.integers(-1000, 1000, n).astype(np.int64)
    return Run(blocks(n, 64), 64, [a, np.zeros(n, np.int64)], {1: 9007199254740993 + a})


@case("ssa_versions", "loop_phis")
def _(rng):
    n, m = 120, 9
    a = rng.integers(-20, 20, (n, m)).astype(np.float32)  # integers: exact in any float
    pos = np.where(a > 0, a, 0).astype(np.float64).sum(axis=1)
    k = (a <= 0).sum(axis=1)
    swaps = m + np.arange(n) % 2
    a0 = a[:, 0].astype(np.float64)
    p = np.where(swaps % 2 == 0, a0 - 3, 3 - a0)
    return Run(blocks(n, 64), 64, [a, np.zeros(n), np.zeros(n)], {1: pos + k, 2: p})


# ---- tuples, indexing, attributes, layouts -------------------------------------------


@case("tuples", "tuples")
def _(rng):
    n = 150
    m = rng.integers(-9, 10, (n, 3)).astype(np.int64)
    o = np.zeros((n, 5), np.int64)
    for i in range(n):
        a, b, c = (int(v) for v in m[i])
        o[i] = [b * 1000 + a, c - a, (a, b, c)[i % 3], a + 10 * b + 100 * c, n * 100 + 3]
    return Run(blocks(n, 64), 64, [m, np.zeros_like(o)], {1: o})


@case("tuple_iteration", "tuple_loops")
def _(rng):
    n = 100
    x = rng.integers(-3, 6, n).astype(np.int64)
    o = np.zeros((n, 6), np.int64)
    xs = set(int(v) for v in x)
    for i in range(n):
        a, b, c = int(x[i]), int(x[(i + 1) % n]), int(x[(i + 2) % n])
        w = 0 * c + 1 * b + 2 * a + a * c + b * a
        o[i] = [(a * 10 + b) * 10 + c, (a in (b, c, 3)) + 2 * (a not in (1, 2)),
                max(a, b, c) * 100 + min(a, b, c), (a + b + c) + (a + b + 100), w,
                (a in xs) + 2 * (a + 100 in xs)]
    return Run(blocks(n, 64), 64, [x, np.zeros_like(o)], {1: o})


@case("tuple_iteration", "array_folds")
def _(rng):
    x = rng.standard_normal(37)
    s = np.float64(0)
    for v in x:
        s = s + v
    return Run(1, 32, [x, np.zeros(4)], {1: np.array([x.max(), x.min(), s, s + 0.5])},
               tol={1: Tol(rtol=1e-14)})


@case("enums", "enum_ops")
def _(rng):
    n = 120
    x = rng.integers(-10, 10, n).astype(np.int32)
    o = np.zeros((n, 6), np.int64)
    for i in range(n):
        v = int(x[i])
        op = {1: 2, 2: 3}.get(v % 3, 1)
        w = 7 if v > 0 else 2
        o[i] = [{1: v + 5, 2: v * 5, 3: v - 5}[op], op * 10 + (op != 3) + 2 * (op == 1),
                w * v + w - 2, 2 * w + 1, w, (w == 7) + 2 * (w < 7) + 8 * (w > 3)]
    return Run(blocks(n, 64), 64, [x, np.zeros_like(o)], {1: o})


@case("namedtuples", "particles")
def _(rng):
    n = 100
    pos, vel = rng.standard_normal(n), rng.standard_normal(n)
    p = pos.copy()
    for _ in range(3):
        p = p + vel * 0.5
    o = np.stack([p, vel * 2.0, 0.0 + p + vel + 2.0, p - vel + 2.0], axis=1)
    return Run(blocks(n, 64), 64, [pos, vel, np.zeros_like(o)], {2: o})


@case("namedtuples", "boxes")
def _(rng):
    n = 90
    x = rng.integers(-100, 100, n).astype(np.int64)
    i = np.arange(n, dtype=np.int64)
    o = np.stack([np.full(n, 6), x + 2 + (i + 3) * 100, np.full(n, 14)], axis=1).astype(np.int64)
    return Run(blocks(n, 64), 64, [x, np.zeros_like(o)], {1: o})


@case("tuple_params", "affine")
def _(rng):
    n = 70
    x = rng.standard_normal((n, 3)).astype(np.float32)
    w = (np.float32(0.5), np.float32(-1.25), np.float32(2.0))
    shift = (np.int32(-3), 1.5)
    dot = (w[0] * x[:, 0] + w[1] * x[:, 1] + w[2] * x[:, 2]).astype(np.float32)
    want = dot.astype(np.float64) * 1.5 + -3 + 3
    return Run(blocks(n, 32), 32, [w, shift, x, np.zeros(n)], {3: want}, tol={3: Tol(rtol=1e-6)})


@case("tuple_params", "nested")
def _(rng):
    n = 50
    t = (np.int64(7), (np.int64(40), np.int64(-2)), np.complex128(3 - 4j))
    i = np.arange(n, dtype=np.int64)
    return Run(blocks(n, 32), 32, [t, np.zeros(n, np.int64)], {1: 7 * i + 42 + 300 - 4})


@case("operator_functions", "int_ops")
def _(rng):
    n = 200
    a = rng.integers(-50, 50, n).astype(np.int32)
    b = rng.integers(-6, 6, n).astype(np.int32)
    o = np.zeros((n, 8), np.int64)
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        o[i] = [x + y, (x - y) * (x * 3), x // y if y else 0, x % y if y else 0,
                ((x & 7) << 3) | (x >> 2) ^ (x & y),
                (x < y) + 2 * (x == y) + 4 * (not x) + 8 * (x in (1, 2, 3)), -x + ~y + x, x + y]
    return Run(blocks(n, 64), 64, [a, b, np.zeros_like(o)], {2: o})


@case("operator_functions", "float_ops")
def _(rng):
    n = 200
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    b[:5] = 0.0
    o = np.zeros((n, 4))
    with np.errstate(all="ignore"):
        o[:, 0] = a / b
        o[:, 1] = np.abs(a) ** 2 + a / 4.0
        o[:, 2] = (a >= b).astype(np.float64)
        o[:, 3] = a * b
    # |a|**2 + a/4 cancels near a = -1/4, where NVVM and LLVM contract a
    # different product into the FMA
    return Run(blocks(n, 64), 64, [a, b, np.zeros_like(o)], {2: o}, tol={2: FMA64})


@case("numpy_ufuncs", "ufunc_math")
def _(rng):
    n = 300
    x = rng.uniform(-4, 4, n).astype(np.float32)
    k = rng.integers(-20, 20, n).astype(np.int32)
    o32 = np.zeros((n, 5), np.float32)
    o64 = np.zeros((n, 3))
    f = np.float32
    o32[:, 0] = np.sin(x)
    o32[:, 1] = np.arctan2(x, f(0.5))
    o32[:, 2] = np.log(np.hypot(x, x) + f(1))
    o32[:, 3] = np.deg2rad(x) + np.rad2deg(x)
    o32[:, 4] = x / f(3)
    o64[:, 0] = np.cos(k.astype(np.float64))
    o64[:, 1] = np.tanh(k * 0.25) + np.arcsinh(k.astype(np.float64))
    o64[:, 2] = np.log10(np.abs(k) + 1.0) + np.log2(np.abs(k) + 1.0)
    return Run(blocks(n, 64), 64, [x, k, np.zeros_like(o32), np.zeros_like(o64)], {2: o32, 3: o64},
               tol={2: Tol(rtol=2e-6, atol=1e-6), 3: Tol(rtol=1e-14, atol=1e-15)},
               numba_tol={2: ULP32, 3: ULP64})


@case("numpy_ufuncs", "ufunc_select")
def _(rng):
    n = 256
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    x[::7] = np.nan
    y[::5] = np.nan
    x[3::11] = 0
    y[3::11] = x[3::11]
    o = np.zeros((n, 6), np.float32)
    with np.errstate(invalid="ignore"):
        o[:, 0] = np.maximum(x, y)
        o[:, 1] = np.minimum(x, y)
        o[:, 2] = np.fmax(x, y)
        o[:, 3] = np.fmin(x, y)
        o[:, 4] = np.isnan(x) + 2.0 * (x > y) + 4.0 * (x <= y) + 8.0 * (x != y)
        o[:, 5] = (np.logical_and(x, y) + 2.0 * np.logical_or(x, y) + 4.0 * np.logical_xor(x, y)
                   + 8.0 * np.logical_not(x))
    return Run(blocks(n, 64), 64, [x, y, np.zeros_like(o)], {2: o})


@case("numpy_ufuncs", "ufunc_ints")
def _(rng):
    n = 128
    p = rng.integers(-2 ** 62, 2 ** 62, n).astype(np.int64)
    q = rng.integers(0, 2 ** 63, n).astype(np.uint64)
    q[::3] = np.uint64(2 ** 64 - 5)
    p[::4] = p[::4] // 2 ** 40
    q[1::4] = p[1::4].astype(np.uint64)
    m = rng.integers(-1000, 1000, n).astype(np.int32)
    o = np.zeros((n, 4), np.int64)
    for i in range(n):
        a, b, c = int(p[i]), int(q[i]), int(m[i])
        c2 = int(m[(i + 1) % n])
        o[i] = [(a > b) + 2 * (a < b) + 4 * (a == b), max(c, c2), (c & 255) + (c ^ 7) + (c | 1),
                (c << 3) + (c >> 2) + ~c]
    return Run(blocks(n, 64), 64, [p, q, m, np.zeros_like(o)], {3: o})


@case("slice_store", "slices")
def _(rng):
    a = rng.standard_normal(30).astype(np.float32)
    m = rng.integers(-5, 5, (6, 5)).astype(np.int32)
    n = np.int32(20)
    wa, wm = a.copy(), m.copy()
    wa[1:4] = 7
    wa[10::3] = 2.5
    wa[20:22] = (wa[0], wa[1])
    wm[:, 1] = n
    wm[2] = -1
    wm[3:, 2:] = 9
    return Run(1, 32, [a, m, n], {0: wa, 1: wm})


@case("slice_store", "slice_badlen", sim=False)
def _(rng):
    a = np.zeros(8, np.float32)
    want = a.copy()
    want[0] = 1
    return Run(1, 32, [a], {0: want})


@case("negative_index", "wrap")
def _(rng):
    x = rng.standard_normal(50).astype(np.float32)
    mm = rng.standard_normal((7, 9)).astype(np.float32)
    k = rng.integers(-7, 7, 100).astype(np.int64)
    want = np.stack([np.full(100, x[-1]), x[k], mm[-1, k], mm[k, -2]], axis=1)
    return Run(blocks(100, 64), 64, [x, View(mm, np.s_[:, :]), k, np.zeros((100, 4), np.float32)], {3: want})


@case("array_attrs", "attrs", sim=False)
def _(rng):
    v = np.zeros(30, np.float32)
    m = np.zeros((6, 10))
    c = np.zeros((2, 3, 4), np.float32)
    # v[::3] (10 elements, 12-byte stride) and m[::2, 1::3] (3 x 3, strides 160 and 24)
    want = np.array([10, 10, 12, 1, 3, 3, 160, 24, 9, 3, 24, 48, 4, 3, 4], np.int64)
    return Run(1, 32, [View(v, np.s_[::3]), View(m, np.s_[::2, 1::3]), c, np.zeros(15, np.int64)], {3: want})


def _transpose_case(kind):
    def make(rng):
        a = rng.standard_normal((37, 21)).astype(np.float32)
        out = np.zeros((21, 37), np.float32)
        if kind == "f":
            a, out = np.asfortranarray(a), np.asfortranarray(out)
        want = (a + 1).T.copy()
        if kind == "any":
            big = np.zeros((74, 21), np.float32)
            big[::2] = a
            args = [View(big, np.s_[::2]), out]
        else:
            args = [a, out]
        return Run((blocks(37, 8), blocks(21, 8)), (8, 8), args, {1: want})
    return make


case("layouts_2d", "transpose_any", sim=False)(_transpose_case("any"))
case("layouts_2d", "transpose_c")(_transpose_case("c"))
case("layouts_2d", "transpose_f")(_transpose_case("f"))


@case("strided_1d", "scale", sim=False)
def _(rng):
    x = rng.standard_normal(900)
    out = np.zeros(600)
    want = out.copy()
    want[::-2] = 3 * x[::3] - np.arange(300)
    # 3 * x - i contracts into an fma on the GPU, as Numba's code does too
    return Run(blocks(300, 64), 64, [View(x, np.s_[::3]), View(out, np.s_[::-2])], {1: want}, tol=Tol(rtol=1e-15),
               numba_skip="numba-cuda refuses CuPy views with negative strides (OverflowError)")


@case("grid_3d", "fill")
def _(rng):
    v = np.zeros((5, 6, 7), np.int32)
    x, y, z = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
    return Run((2, 2, 2), (4, 4, 4), [v], {0: (x * 10000 + y * 100 + z).astype(np.int32)})


# ---- complex ---------------------------------------------------------------------------


def _complex(rng, n, dtype=np.complex128):
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


@case("complex_arith", "arith")
def _(rng):
    n = 200
    a, b = _complex(rng, n), _complex(rng, n)
    b[:3] = a[:3]
    z = np.complex128(0.5 - 2j)
    o = np.stack([a + b, a - b * z, a * b, a.imag + 1j * b.real, np.conj(a) - 1j], axis=1)
    f = np.stack([np.abs(a), a.real * b.imag, (a == b) + 2.0 * (a != a)], axis=1)
    return Run(blocks(n, 64), 64, [a, b, z, np.zeros_like(o), np.zeros_like(f)], {3: o, 4: f},
               tol=Tol(rtol=1e-14, atol=1e-14))


@case("complex_arith", "arith64")
def _(rng):
    a = _complex(rng, 200, np.complex64)
    return Run(blocks(200, 64), 64, [a, np.zeros_like(a)], {1: a * a + a},
               tol=Tol(rtol=1e-6, atol=1e-6), numba_tol=Tol(rtol=1e-6, atol=1e-6))


def _smith(a, b):
    """CPython's _Py_c_quot, which numba-cuda's complex_div_impl follows."""
    out = np.empty_like(a)
    for i, (x, y) in enumerate(zip(a, b)):
        out[i] = complex(x) / complex(y) if (y.real or y.imag) else complex(np.nan, np.nan)
    return out


@case("complex_division", "cdiv")
def _(rng):
    a, b = _complex(rng, 300), _complex(rng, 300)
    # ordinary magnitudes: any sound formula is within a few ulps of Smith's
    return Run(blocks(300, 64), 64, [a, b, np.zeros_like(a)], {2: _smith(a, b)},
               tol=Tol(rtol=1e-13, atol=1e-13))


@case("complex_division", "cdiv", "Smith's algorithm")
def _(rng):
    a = np.array([1e200 + 1e200j, 1 + 2j, 1e-200 + 1e-200j], np.complex128)
    b = np.array([1e200 + 1e200j, 3 - 1j, 1e-200 - 1e-200j], np.complex128)
    return Run(1, 32, [a, b, np.zeros_like(a)], {2: _smith(a, b)})


@case("complex_power", "cpow")
def _(rng):
    a, b = _complex(rng, 200), _complex(rng, 200) * 0.5
    return Run(blocks(200, 64), 64, [a, b, np.zeros_like(a), np.zeros_like(a)], {2: a ** b, 3: a * a},
               tol=Tol(rtol=1e-12, atol=1e-12))


@case("complex_power", "cpow", "z ** 2")
def _(rng):
    # numba-cuda computes z ** 2 by the general power, not z * z: (1+1j) ** 2
    # is 1.2246467991473532e-16+2j there, so the reference is only close
    a = np.array([1 + 1j, 3 - 2j, 0.5 + 0.25j], np.complex128)
    b = np.ones(3, np.complex128)
    return Run(1, 32, [a, b, np.zeros_like(a), np.zeros_like(a)], {3: a * a}, tol=Tol(rtol=1e-14, atol=1e-14),
               numba_tol=EXACT)


# ---- cmath ------------------------------------------------------------------------------

# The complex columns of cmath128 and cmath64, as CPython's cmath computes
# them: numba-cuda's formulas are CPython's (c_acos, c_tanh, ...) and NumPy's
# npy_csqrt, so away from special values the two differ only by rounding.
_CMATH128 = ["sqrt", "exp", "log", "log10", "log_base", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
             "tanh", "asinh", "acosh", "atanh", "rect"]
_CMATH64 = ["sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh",
            "rect"]


def _cmath_columns(z, w, names):
    import cmath

    def one(name, v, base):
        v = complex(v)
        if name == "log_base":
            return cmath.log(v, complex(base))
        if name == "rect":
            return cmath.rect(v.real, v.imag)
        return getattr(cmath, name)(v)
    return np.array([[one(name, v, b) for name in names] for v, b in zip(z, w)], np.complex128)


def _cmath_reals(z):
    import cmath
    f = np.array([[*cmath.polar(complex(v)), cmath.phase(complex(v))] for v in z])
    p = np.stack([np.isnan(z), np.isinf(z), np.isfinite(z)], axis=1)
    return f, p


def _cmath128_run(z, w, tol, numba_tol):
    n = z.size
    o, f, p = np.zeros((n, 18), np.complex128), np.zeros((n, 3)), np.zeros((n, 3), np.bool_)
    want_f, want_p = _cmath_reals(z)
    return Run(blocks(n, 64), 64, [z, w, o, f, p], {2: _cmath_columns(z, w, _CMATH128), 3: want_f, 4: want_p},
               tol=tol, numba_tol=numba_tol)


@case("cmath_c128", "cmath128")
def _(rng):
    z = _complex(rng, 300) * 2
    w = _complex(rng, 300) + 3
    # libdevice's functions are within 2 ulp of the exact ones, and a few
    # roundings compound in the longer formulas (acos, atanh); against
    # numba-cuda, which calls the same libdevice functions, an fma
    # contracted differently may move the last bit
    return _cmath128_run(z, w, Tol(rtol=1e-12, atol=1e-13), Tol(rtol=1e-15, atol=1e-15))


# Zeros of either sign, tiny and large parts, infinities with NaNs: inputs on
# which numba-cuda's special cases give what CPython's cmath gives for every
# function (it raises for overflowing ones, and some NaN signs differ).
_CMATH_SPECIALS = [complex(r, i) for r, i in [
    (0.0, 0.5), (0.0, -2.0), (0.0, 1e-300), (-0.0, 0.5), (-0.0, -2.0), (-0.0, 1e-300), (1.0, 1.0), (1.0, -1.0),
    (1.0, -2.0), (1.0, 1e-300), (-1.0, 1.0), (-1.0, -1.0), (-1.0, -2.0), (-1.0, 1e-300), (0.5, 0.0), (0.5, -0.0),
    (0.5, 0.5), (0.5, -2.0), (0.5, 1e-300), (-2.0, 0.0), (-2.0, -0.0), (-2.0, 1.0), (-2.0, -1.0), (-2.0, 0.5),
    (-2.0, -2.0), (-2.0, 1e-300), (1e-300, 0.0), (1e-300, -0.0), (1e-300, 1.0), (1e-300, -1.0), (1e-300, 0.5),
    (1e-300, -2.0), (1e-300, 1e-300), (np.inf, np.nan), (-np.inf, np.nan), (np.nan, np.inf), (np.nan, -np.inf),
    (np.nan, np.nan)]]


@case("cmath_c128", "cmath128", "special values")
def _(rng):
    z = np.array(_CMATH_SPECIALS, np.complex128)
    w = np.full(z.size, 2 + 1j, np.complex128)
    # numba-cuda and pykc run the same special cases; NVVM and LLVM contract
    # a*b+c into fma at different places, which moves a last bit (22 of 684
    # values on an H100)
    return _cmath128_run(z, w, Tol(rtol=1e-13, atol=1e-300), ULP64)


@case("cmath_c64", "cmath64")
def _(rng):
    n = 300
    z = _complex(rng, n, np.complex64) * 2
    want_o = _cmath_columns(z, z, _CMATH64).astype(np.complex64)
    want_d = _cmath_columns(z, z, ["acosh", "log10", "tanh"])
    want_f = _cmath_reals(z)[0].astype(np.float32)
    o, d, f = np.zeros((n, 14), np.complex64), np.zeros((n, 3), np.complex128), np.zeros((n, 3), np.float32)
    # float32 libdevice functions (2 ulp) in formulas of a few steps, some
    # of them in double; against numba-cuda, which computes in the same
    # precisions, a last bit of float32
    return Run(blocks(n, 64), 64, [z, o, d, f], {1: want_o, 2: want_d, 3: want_f},
               tol=Tol(rtol=2e-5, atol=2e-6), numba_tol=Tol(rtol=5e-7, atol=1e-7))


@case("cmath_c64", "cmath_reals")
def _(rng):
    import cmath
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    x[:3] = [np.nan, np.inf, -0.0]
    k = rng.integers(-50, 50, n).astype(np.int32)
    want_o = np.array([[cmath.sqrt(complex(v)), cmath.exp(complex(v))] for v in x.astype(np.float64)],
                      np.complex128).astype(np.complex64)
    want_d = np.array([[cmath.sqrt(complex(v)), cmath.atan(complex(v))] for v in k.astype(np.float64)])
    want_p = np.stack([np.isnan(x), np.ones(n, np.bool_)], axis=1)
    o, d, p = np.zeros((n, 2), np.complex64), np.zeros((n, 2), np.complex128), np.zeros((n, 2), np.bool_)
    return Run(blocks(n, 64), 64, [x, k, o, d, p], {2: want_o, 3: want_d, 4: want_p},
               tol=Tol(rtol=2e-6, atol=1e-6), numba_tol=Tol(rtol=5e-7, atol=1e-7))


# ---- the CUDA API ------------------------------------------------------------------------


@case("grid_registers", "regs")
def _(rng):
    nx, ny, bx, by = 13, 10, 4, 3
    gx, gy = blocks(nx, bx), blocks(ny, by)
    o = np.zeros((nx, ny, 8), np.int64)
    x, y = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    want = np.stack([x % bx, y % by, x // bx, y // by, np.full_like(x, bx * 100 + by),
                     np.full_like(x, gx * 100 + gy), np.full_like(x, gx * bx * 1000 + gy * by),
                     np.zeros_like(x)], axis=2)
    return Run((gx, gy), (bx, by), [o], {0: want})


@case("laneid_warpsize", "lanes")
def _(rng):
    n = 200
    want = np.stack([np.arange(n) % 64 % 32, np.full(n, 32)], axis=1).astype(np.int32)
    return Run(blocks(n, 64), 64, [np.zeros((n, 2), np.int32)], {0: want})


@case("shared_reverse", "reverse_blocks")
def _(rng):
    n = 128 * 6
    x = rng.standard_normal(n).astype(np.float32)
    return Run(6, 128, [x, np.zeros_like(x)], {1: x.reshape(6, 128)[:, ::-1].reshape(-1)})


@case("shared_transpose", "transpose")
def _(rng):
    a = rng.standard_normal((40, 27)).astype(np.float32)
    out = np.zeros((27, 40), np.float32)
    return Run((blocks(27, 16), blocks(40, 16)), (16, 16), [a, out], {1: a.T.copy()})


@case("dynamic_shared", "block_sums")
def _(rng):
    tpb, nb = 64, 9
    x = rng.integers(-100, 100, tpb * nb - 17).astype(np.float64)
    padded = np.concatenate([x, np.zeros(17)])
    return Run(nb, tpb, [x, np.zeros(nb)], {1: padded.reshape(nb, tpb).sum(axis=1)}, shared=tpb * 8)


@case("dynamic_and_static_shared", "both")
def _(rng):
    tpb = 64
    x = rng.standard_normal(tpb * 3).astype(np.float32)
    want = x.reshape(3, tpb)[:, ::-1].reshape(-1) + 1
    return Run(3, tpb, [x, np.zeros_like(x)], {1: want}, shared=tpb * 4)


@case("local_sort", "sort_rows")
def _(rng):
    m = rng.integers(-1000, 1000, (300, 8)).astype(np.int32)
    return Run(blocks(300, 64), 64, [m], {0: np.sort(m, axis=1)})


@case("atomics_int", "atomics")
def _(rng):
    n = 1000
    v = rng.integers(-10**5, 10**5, n).astype(np.int32)
    acc = np.array([0, 0, -2**31, 2**31 - 1, 0, 1, 0, 0], np.int32)
    u = np.array([0xFFFFFFFF, 0, 0, 0, 0], np.uint32)
    w = np.array([0, -2**40], np.int64)
    want_acc = acc.copy()
    want_acc[0] = n
    want_acc[1] = -int(v.astype(np.int64).sum())
    want_acc[2] = v.max()
    want_acc[3] = v.min()
    want_acc[4] = 7
    want_acc[5] = 1 + 2 * n
    want_u = u.copy()
    want_u[0] = 0 if n >= 32 else int(0xFFFFFFFF) & ~sum(1 << (i % 32) for i in range(n))
    bits = 0
    for x in v:
        bits |= 1 << (int(x) % 32)
    want_u[1] = bits
    x = 0
    for val in v.astype(np.uint32):
        x ^= int(val)
    want_u[2] = x
    c = 0
    for _ in range(n):
        c = 0 if c >= 9 else c + 1
    want_u[3] = c
    d = 0
    for _ in range(n):
        d = 9 if (d == 0 or d > 9) else d - 1
    want_u[4] = d
    want_w = np.array([v.astype(np.int64).sum(), v.max()], np.int64)
    # the old values returned by atomic.add are 0..n-1 in some order: checked
    # by the driver's permutation rule below
    return Run(blocks(n, 128), 128, [v, acc, u, w, np.zeros(n, np.int32)],
               {1: want_acc, 2: want_u, 3: want_w, 4: ("permutation", np.arange(n, dtype=np.int32))})


@case("atomics_float", "fatomics")
def _(rng):
    n = 2000
    x = rng.standard_normal(n).astype(np.float32)
    f = np.array([0, -np.inf, np.inf], np.float32)
    d = np.zeros(1)
    want_f = np.array([x.astype(np.float64).sum(), x.max(), x.min()], np.float32)
    return Run(blocks(n, 128), 128, [x, f, d], {1: want_f, 2: np.array([x.astype(np.float64).sum()])},
               tol={1: Tol(rtol=1e-4, atol=5e-3), 2: Tol(rtol=1e-12, atol=1e-10)})


@case("histogram_2d", "hist2d")
def _(rng):
    n = 3000
    a = rng.integers(0, 1000, n).astype(np.int32)
    b = rng.integers(0, 1000, n).astype(np.int32)
    h = np.zeros((8, 8), np.int32)
    np.add.at(h, (a % 8, b % 8), 1)
    return Run(blocks(n, 128), 128, [a, b, np.zeros((8, 8), np.int32), np.zeros((8, 8), np.int32)],
               {2: h, 3: h})


@case("barrier_predicates", "votes")
def _(rng):
    nb, tpb = 6, 96
    v = rng.integers(0, 2, nb * tpb).astype(np.int32)
    v[:tpb] = 1
    v[tpb:2 * tpb] = 0
    blocks_v = v.reshape(nb, tpb)
    want = np.stack([blocks_v.sum(axis=1), blocks_v.all(axis=1), blocks_v.any(axis=1)], axis=1).astype(np.int32)
    return Run(nb, tpb, [v, np.zeros((nb, 3), np.int32)], {1: want})


def _shfl_down(v, off):
    lanes = v.reshape(-1, 32)
    out = lanes.copy()
    out[:, :32 - off] = lanes[:, off:]
    return out.reshape(-1)


@case("warp_shuffle", "shuffles", sim=False)
def _(rng):
    n = 128
    x = rng.standard_normal(n).astype(np.float32)
    nn = rng.integers(-1000, 1000, n).astype(np.int32)
    d = rng.standard_normal(n)
    v = x.copy()
    off = 16
    while off:
        v = (v + _shfl_down(v, off)).astype(np.float32)
        off //= 2
    lanes = np.arange(n) % 32
    base = np.arange(n) - lanes
    o = np.stack([v, x[np.arange(n) ^ 1]], axis=1)
    up = np.where(lanes == 0, nn, np.roll(nn, 1))
    p = np.stack([nn[base + 3], up], axis=1)
    q = d[base + 31 - lanes]
    return Run(n // 64, 64, [x, nn, d, np.zeros_like(o), np.zeros_like(p), np.zeros_like(q)],
               {3: o, 4: p, 5: q})


@case("warp_vote", "votes", sim=False)
def _(rng):
    n = 128
    v = rng.integers(-3, 3, n).astype(np.int32)
    v[:32] = 1
    v[32:64] = -1
    p = (v > 0).reshape(-1, 32)
    ballot = (p * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    lanes = np.arange(n) % 32
    o = np.stack([np.repeat(ballot, 32), np.repeat(p.all(axis=1), 32), np.repeat(p.any(axis=1), 32),
                  np.repeat(p.all(axis=1) | ~p.any(axis=1), 32), np.full(n, 0xFFFFFFFF),
                  (1 << lanes) - 1], axis=1).astype(np.uint32)
    return Run(n // 64, 64, [v, np.zeros_like(o)], {1: o})


def _ffs(x, bits):
    x = int(x) & ((1 << bits) - 1)
    return (x & -x).bit_length()


@case("bit_functions", "bits", sim=False)
def _(rng):
    n = 300
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    a[:3] = [0, 1, 0x80000000]
    b[:3] = [0, 1, -1]
    o = np.zeros((n, 6), np.int64)
    r = np.zeros(n, np.uint32)
    r64 = np.zeros(n, np.uint64)
    for i in range(n):
        x, y = int(a[i]), int(b[i]) & (2**64 - 1)
        o[i] = [bin(x).count("1"), 32 - x.bit_length(), _ffs(x, 32),
                bin(y).count("1"), 64 - y.bit_length(), _ffs(y, 64)]
        r[i] = int(f"{x:032b}"[::-1], 2)
        r64[i] = int(f"{y:064b}"[::-1], 2)
    return Run(blocks(n, 128), 128, [a, b, np.zeros_like(o), np.zeros_like(r), np.zeros_like(r64)],
               {2: o, 3: r, 4: r64})


@case("fma_cbrt_selp", "fused", sim=False)
def _(rng):
    n = 300
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    d = rng.standard_normal(n) * 5
    # a*b+c rounded once: exact in float64, then rounded to float32
    fma32 = (a.astype(np.float64) * b + c).astype(np.float32)
    o = np.stack([fma32, np.cbrt(a), np.where(a > b, a, b)], axis=1)
    p = np.stack([d * d - 1.0, np.cbrt(d)], axis=1)
    return Run(blocks(n, 128), 128, [a, b, c, d, np.zeros_like(o), np.zeros_like(p)], {4: o, 5: p},
               tol={4: Tol(rtol=2e-7, atol=1e-7), 5: Tol(rtol=1e-15, atol=1e-14)},
               numba_tol=EXACT)


@case("cache_hints", "copy_hinted", sim=False)
def _(rng):
    n = 300
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.integers(-128, 128, n).astype(np.int8)
    c = rng.integers(0, 2**16, n).astype(np.uint16)
    d = rng.standard_normal((n, 2))
    o = np.stack([a] * 5, axis=1)
    q = (c.astype(np.int64) + int(c[0])).astype(np.uint16)  # uint16 + uint16 is uint64, stored truncated
    s = np.trunc(a.astype(np.float64) * 2).astype(np.int64)
    return Run(blocks(n, 128), 128,
               [a, b, c, d, np.zeros_like(o), np.zeros_like(b), np.zeros_like(c), np.zeros_like(d), np.zeros(n, np.int64)],
               {4: o, 5: b, 6: q, 7: d[:, ::-1].copy(), 8: s})


@case("vector_types", "vectors")
def _(rng):
    n = 200
    p = rng.standard_normal((n, 3)).astype(np.float32)
    q = rng.standard_normal((n, 3)).astype(np.float32)
    k = rng.integers(-1000, 1000, (n, 4)).astype(np.int32)
    d = rng.standard_normal(n) * 100
    cross = np.stack([p[:, 1] * q[:, 2] - p[:, 2] * q[:, 1], p[:, 2] * q[:, 0] - p[:, 0] * q[:, 2],
                      p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]], axis=1)
    e = np.stack([d * k[:, 0], k[:, 0]], axis=1)
    return Run(blocks(n, 64), 64,
               [p, q, k, d, np.zeros((n, 3), np.float32), np.zeros((n, 4), np.int32), np.zeros((n, 2))],
               {4: cross, 5: k[:, [3, 0, 1, 2]], 6: e}, tol={4: FMA32}, numba_tol=EXACT)


@case("vector_types", "convert_members", sim=False)
def _(rng):
    n = 200
    d = rng.standard_normal(n) * 1000
    m = np.stack([np.trunc(d), np.trunc(-d)], axis=1).astype(np.int32)
    u = np.stack([d.astype(np.float32), np.ones(n, np.float32)], axis=1)
    return Run(blocks(n, 64), 64, [d, np.zeros((n, 2), np.int32), np.zeros((n, 2), np.float32)], {1: m, 2: u})


def _popcount32(v):
    return np.array([bin(int(x) & 0xFFFFFFFF).count("1") for x in v], np.int32)


def _clz32(v):
    return np.array([32 - (int(x) & 0xFFFFFFFF).bit_length() for x in v], np.int32)


def _brev64(v):
    return np.array([int(f"{int(x) & (2**64 - 1):064b}"[::-1], 2) for x in v], np.uint64).view(np.int64)


@case("libdevice_calls", "libdevice_calls", sim=False)
def _(rng):
    n = 300
    a = (rng.standard_normal(n) * 4).astype(np.float32)
    d = rng.standard_normal(n) * 1e3
    d[:3] = [0.0, -2.5, 1e-310]
    k = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    w = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    frac, whole = np.modf(d)
    mant, ex = np.frexp(d)
    o = np.stack([np.sin(a), np.sin(a), np.cos(a), np.maximum(a, np.float32(0.5))], axis=1)
    p = np.stack([frac, whole, mant, np.hypot(d, 3.0)], axis=1)
    m = np.stack([ex.astype(np.int32), _popcount32(k), _clz32(k), np.minimum(k, 7)], axis=1)
    h = a.astype(np.float16).view(np.int16)
    return Run(blocks(n, 64), 64,
               [a, d, k, w, np.zeros((n, 4), np.float32), np.zeros((n, 4)), np.zeros((n, 4), np.int32),
                np.zeros(n, np.int16), np.zeros(n, np.int64)],
               {4: o, 5: p, 6: m, 7: h, 8: _brev64(w)},
               tol={4: Tol(rtol=4e-7, atol=4e-7), 5: ULP64}, numba_tol=EXACT)


# numba-cuda's simulator runs blocks one after another and syncs a grid as a block
@case("grid_sync", "reverse_across_blocks", sim=False)
def _(rng):
    n = 8 * 128
    a = np.zeros(n, np.float32)
    b = np.zeros(n, np.float32)
    idx = np.arange(n, dtype=np.float32)
    return Run(8, 128, [a, b], {0: idx, 1: idx[::-1] * 2})


@case("grid_sync", "rounds", sim=False)
def _(rng):
    blocks_, tpb, rounds = 6, 64, 5
    n = blocks_ * tpb
    x = rng.integers(0, 100, n).astype(np.int64)
    want = x.copy()
    for _ in range(rounds):  # each round: every element plus its right neighbour (cyclic)
        want = want + np.roll(want, -1)
    return Run(blocks_, tpb, [x, np.zeros(n, np.int64), np.array([rounds], np.int64)], {0: want})


# ---- math -----------------------------------------------------------------------------


@case("math_f32", "mathf", sim=False)
def _(rng):
    x = rng.uniform(0.1, 5, 300).astype(np.float32)
    x64 = x.astype(np.float64)
    want = np.stack([np.sin(x64), np.cos(x64), np.exp(x64), np.log(x64), np.sqrt(x64), np.tanh(x64),
                     np.arctan2(x64, 0.5), np.floor(x64) + np.ceil(-x64), x64 ** 1.5,
                     np.abs(x64) + np.trunc(x64)], axis=1).astype(np.float32)
    return Run(blocks(300, 128), 128, [x, np.zeros_like(want)], {1: want},
               tol=Tol(rtol=1e-6, atol=1e-6), numba_tol=EXACT)


@case("fastmath_kernels", "fast", sim=False)
def _(rng):
    a = rng.uniform(0.5, 4, 300).astype(np.float32)
    b = rng.uniform(0.5, 4, 300).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = np.stack([a64 / b64, a64 / b64, np.sqrt(a64), np.sin(b64), np.floor(a64 / b64), np.exp(b64)],
                    axis=1).astype(np.float32)
    # approximations good to a few ulp against the reference; numba-cuda
    # runs the same instructions
    return Run(blocks(300, 128), 128, [a, b, np.zeros_like(want)], {2: want},
               tol=Tol(rtol=2e-6, atol=2e-6), numba_tol=EXACT)


@case("fastmath_kernels", "plain")
def _(rng):
    a = rng.uniform(0.5, 4, 300).astype(np.float32)
    b = rng.uniform(0.5, 4, 300).astype(np.float32)
    want = np.stack([a / b, np.sqrt(a)], axis=1)
    return Run(blocks(300, 128), 128, [a, b, np.zeros((300, 2), np.float32)], {2: want})


@case("math_f64", "mathd")
def _(rng):
    import math
    x = rng.uniform(0.1, 5, 300)
    want = np.array([[math.sin(v) + math.cos(v), math.exp(v) - math.expm1(v),
                      math.log(v) + math.log10(v) + math.log2(v) + math.log1p(v),
                      math.sqrt(v) + math.hypot(v, 3.0), math.atan(v) + math.asinh(v) + math.acosh(v + 1.0),
                      math.erf(v) + math.erfc(v), math.gamma(v) + math.lgamma(v),
                      math.copysign(v, -1.0) + math.fmod(v, 0.7), math.degrees(v) + math.radians(v),
                      math.pow(v, 2.5) + math.floor(v * 3.3), math.pi * v + math.e] for v in x])
    return Run(blocks(300, 128), 128, [x, np.zeros_like(want)], {1: want},
               tol=Tol(rtol=1e-13, atol=1e-12), numba_tol=ULP64)


@case("math_ties", "ties", sim=False)  # the simulator's math.ldexp wants an int exponent
def _(rng):
    n = 256
    h = (rng.standard_normal(n) * 4).astype(np.float16)
    h[:4] = [0.0, -0.0, 1.0, 0.0]
    i8 = rng.integers(-128, 128, n).astype(np.int8)
    b = rng.random(n) < 0.5
    x = rng.uniform(0.5, 2.0, n).astype(np.float32)
    k = rng.integers(-6, 7, n).astype(np.int32)
    h32, prev = h.astype(np.float32), np.roll(h, 1).astype(np.float32)   # h[i - 1] wraps at i = 0
    m_h, e_h = np.frexp(h32)
    m_i, e_i = np.frexp(i8.astype(np.float32))
    m_b, e_b = np.frexp(b.astype(np.float32))
    f = np.stack([m_h, m_i, m_b, np.nextafter(h32, prev), np.ldexp(h32, np.rint(prev).astype(np.int32))], axis=1)
    e = np.stack([e_h, e_i, e_b], axis=1).astype(np.int32)
    pw = (x.astype(np.float64) ** k).astype(np.float32)
    out = [np.zeros((n, 5), np.float32), np.zeros((n, 3), np.int32), np.zeros(n, np.float32)]
    # frexp, nextafter and ldexp are exact; libdevice's powif within 2 ulp
    return Run(blocks(n, 64), 64, [h, i8, b, x, k, *out], {5: f, 6: e, 7: pw},
               tol={7: Tol(rtol=2.4e-7)}, numba_tol=EXACT)


@case("math_predicates", "preds")
def _(rng):
    x = rng.standard_normal(100)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -np.nan, 1e308]
    nn = rng.integers(-5, 5, 100).astype(np.int64)
    want = np.stack([np.isnan(x), np.isinf(x), np.isfinite(x), np.zeros(100, bool), np.ones(100, bool)], axis=1)
    return Run(blocks(100, 64), 64, [x, nn, np.zeros((100, 5), np.bool_)], {2: want})


@case("math_int_args", "mathi")
def _(rng):
    import math
    nn = rng.integers(0, 1000, 200).astype(np.int64)
    want = np.array([[math.sqrt(v), math.exp(v % 5), math.log(v + 1), math.floor(v)] for v in nn.tolist()])
    return Run(blocks(200, 64), 64, [nn, np.zeros_like(want)], {1: want}, tol=Tol(rtol=1e-15, atol=1e-15))


# ---- functions, signatures, constants, types ---------------------------------------------


@case("device_functions", "use_devices")
def _(rng):
    n = 300
    x = rng.standard_normal(n).astype(np.float32) * 4
    y = rng.standard_normal(n).astype(np.float32) * 4
    nn = rng.integers(-1000, 1000, n).astype(np.int64)
    ywant = np.clip((np.float32(2) * x + y).astype(np.float32), -10, 10).astype(np.float32)
    q, r = floor_divmod_int(nn, np.full(n, 7, np.int64))
    first = np.array([next((j for j in range(n) if nn[j] > nn[i]), -1) for i in range(n)], np.int64)
    return Run(blocks(n, 64), 64, [x, y, nn, np.zeros((n, 3), np.int64)],
               {1: ywant, 3: np.stack([q, r, first], axis=1)},
               tol={1: Tol(rtol=1e-6, atol=1e-5)}, numba_tol={1: Tol(rtol=2.4e-7, atol=1e-5)})


@case("eager_signature", "eager")
def _(rng):
    m = rng.standard_normal((100, 2))
    a = np.zeros(120, np.float32)
    want = a.copy()
    want[:100] = (m[:, 0] * 2 + m[:, 1]).astype(np.float32)
    return Run(blocks(100, 64), 64, [a, np.int32(100), m], {0: want})


@case("module_constants", "constants", sim=False)
def _(rng):
    tpb = 64
    x = rng.standard_normal(tpb * 4).astype(np.float32)
    blk = x.reshape(4, tpb)
    want = (np.roll(blk, -2, axis=1).astype(np.float64) * 1.5 + 1).astype(np.float32).reshape(-1)
    return Run(4, tpb, [x, np.zeros_like(x)], {1: want})


@case("module_constant_tuple", "offsets")
def _(rng):
    x = rng.integers(-100, 100, 90).astype(np.int64)
    return Run(blocks(90, 64), 64, [x, np.zeros_like(x)], {1: x + 3 + np.array([1, 2, 3] * 30)})


@case("bool_arrays", "logic")
def _(rng):
    n = 200
    a = rng.integers(0, 2, n).astype(np.bool_)
    b = rng.integers(0, 2, n).astype(np.bool_)
    o = np.stack([a & ~b, a != b, a ^ b, a | b], axis=1)
    return Run(blocks(n, 64), 64, [a, b, np.zeros_like(o), np.zeros(n, np.int64)],
               {2: o, 3: a.astype(np.int64) + 2 * b.astype(np.int64)})


@case("int_promotion", "promote", sim=False)
def _(rng):
    n = 200
    a = rng.integers(-2**31, 2**31, n).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n).astype(np.int32)
    u = rng.integers(0, 256, n).astype(np.uint8)
    a64, b64, u64 = a.astype(np.int64), b.astype(np.int64), u.astype(np.int64)
    with np.errstate(all="ignore"):
        prod = a64 * b64
        o = np.stack([a64 + b64, prod, u64 + u64 * u64, a64 - u64, prod * np.int64(3037000500)], axis=1)
        w = u.astype(np.uint64) * np.uint64(0xFFFFFFFFFF)
    return Run(blocks(n, 64), 64, [a, b, u, np.zeros_like(o), np.zeros(n, np.uint64)], {3: o, 4: w})


@case("float_promotion", "promote", sim=False)
def _(rng):
    n = 200
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    o = np.stack([(a64 * b64 + a64).astype(np.float32), (a64 * 0.1).astype(np.float32)], axis=1)
    d = np.stack([a64 * 0.1, (a / b).astype(np.float64), a64 + 1], axis=1)
    # a*b+a in float32 may fuse (one rounding): a tolerance against NumPy
    return Run(blocks(n, 64), 64, [a, b, np.zeros_like(o), np.zeros_like(d)], {2: o, 3: d},
               tol={2: FMA32}, numba_tol={2: FMA32})


# ---- numba.cuda.random, records, bfloat16 -----------------------------------------------

XOROSHIRO128P = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)


def random_states(rng, n):
    """n xoroshiro128+ states (any nonzero ones will do for the draws)."""
    s = np.zeros(n, XOROSHIRO128P)
    s["s0"] = rng.integers(1, 2**63, n, dtype=np.uint64)
    s["s1"] = rng.integers(1, 2**63, n, dtype=np.uint64)
    return s


def xoroshiro_next(s0, s1):
    """numba-cuda's xoroshiro128p_next on arrays of states: the draw and the
    next states."""
    with np.errstate(over="ignore"):
        result = s0 + s1
        s1 = s1 ^ s0
        rot = lambda x, k: (x << np.uint64(k)) | (x >> np.uint64(64 - k))  # noqa: E731
        return result, rot(s0, 55) ^ s1 ^ (s1 << np.uint64(14)), rot(s1, 36)


def unit_float64(r):
    return (r >> np.uint64(11)).astype(np.float64) * (1.0 / 2.0**53)


@case("random_draws", "draws")
def _(rng):
    n = 256
    states = random_states(rng, n)
    s0, s1 = states["s0"].copy(), states["s1"].copy()
    draws = []
    for _ in range(4 * 6):
        r, s0, s1 = xoroshiro_next(s0, s1)
        draws.append(r)
    d = np.stack(draws, axis=1).reshape(n, 4, 6)
    u32 = unit_float64(d[:, :, 0]).astype(np.float32).reshape(-1)
    u64 = unit_float64(d[:, :, 1]).reshape(-1)
    a1, a2 = unit_float64(d[:, :, 2]).astype(np.float32), unit_float64(d[:, :, 3]).astype(np.float32)
    n32 = (np.sqrt(np.float32(-2.0) * np.log(a1)) * np.cos(np.float32(2 * np.pi) * a2)).astype(np.float32).reshape(-1)
    b1, b2 = unit_float64(d[:, :, 4]).astype(np.float32), unit_float64(d[:, :, 5]).astype(np.float32)
    n64 = (np.sqrt(-2.0 * np.log(b1).astype(np.float64)) * np.cos(2 * np.pi * b2.astype(np.float64))).reshape(-1)
    outs = [np.zeros(4 * n, np.float32), np.zeros(4 * n, np.float64), np.zeros(4 * n, np.float32),
            np.zeros(4 * n, np.float64)]
    # uniforms are exact; normals go through libdevice's log, sqrt and cos
    return Run(blocks(n, 64), 64, [states] + outs, {1: u32, 2: u64, 3: n32, 4: n64},
               tol={1: EXACT, 2: EXACT, 3: Tol(rtol=1e-5, atol=1e-5), 4: Tol(rtol=1e-6, atol=1e-6)}, numba_tol=BITS)


@case("random_draws", "monte_carlo_pi")
def _(rng):
    n, iterations = 128, 500
    states = random_states(rng, n)
    s0, s1 = states["s0"].copy(), states["s1"].copy()
    inside = np.zeros(n, np.int64)
    for _ in range(iterations):
        r, s0, s1 = xoroshiro_next(s0, s1)
        x = unit_float64(r).astype(np.float32)
        r, s0, s1 = xoroshiro_next(s0, s1)
        y = unit_float64(r).astype(np.float32)
        inside += (x * x + y * y).astype(np.float32) <= 1.0
    out = np.zeros(n, np.float32)
    want = (4.0 * inside / iterations).astype(np.float32)
    return Run(blocks(n, 64), 64, [states, np.int64(iterations), out], {2: want}, numba_tol=BITS)


RECORD_PACKED = np.dtype([("x", np.float32), ("y", np.int32), ("flag", np.bool_), ("tag", np.int8)])
RECORD_ALIGNED = np.dtype([("w", np.float64), ("k", np.int8), ("v", np.float32, (3,)), ("p", RECORD_PACKED)],
                          align=True)


def packed_records(rng, n):
    a = np.zeros(n, RECORD_PACKED)
    a["x"] = rng.standard_normal(n).astype(np.float32)
    a["y"] = rng.integers(-1000, 1000, n)
    a["tag"] = rng.integers(-100, 100, n)
    return a


@case("records", "packed_fields")
def _(rng):
    n = 777
    a = packed_records(rng, n)
    want = a.copy()
    want["y"] += 1
    want["flag"] = a["x"] > 0
    want["tag"] = np.arange(n) % 100
    out = np.zeros(n, np.float64)
    return Run(blocks(n, 128), 128, [a, out], {0: want, 1: a["x"].astype(np.float64) * 2 + a["y"]},
               numba_tol=BITS)


def aligned_records(rng, n):
    b = np.zeros(n, RECORD_ALIGNED)
    b["w"] = rng.standard_normal(n)
    b["k"] = rng.integers(-100, 100, n)
    b["v"] = rng.standard_normal((n, 3)).astype(np.float32)
    b["p"] = packed_records(rng, n)
    return b


@case("records", "aligned_fields", sim=False)  # the simulator cannot copy a whole record
def _(rng):
    n = 500
    b = aligned_records(rng, n)
    v = b["v"].astype(np.float64)
    out = np.zeros(n, np.float64)
    want_out = b["w"] + v[:, 0] + (b["v"][:, 1] * b["v"][:, 2]).astype(np.float64) + b["p"]["x"]
    want = exact_copy(b)
    want["v"][:, 1] = b["k"]
    want["p"]["y"] += 7
    c = np.zeros(n, RECORD_ALIGNED)
    return Run(blocks(n, 128), 128, [b, c, out], {0: want, 1: want, 2: want_out}, tol={2: ULP64},
               numba_tol=BITS)


@case("records", "field_view")
def _(rng):
    n = 1000
    b = aligned_records(rng, n)
    out = np.zeros(n, np.float64)
    return Run(4, 64, [b, out], {1: b["w"] * 0.5}, numba_tol=BITS)


def bf16_from_float32_bits(u):
    """cvt.rn.bf16.f32 on float32 bits: to nearest even, NaN canonical."""
    u = u.astype(np.uint32)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FFF), r)


def bf16_from_float64(x):
    """__double2bfloat16: rounded to odd in float32, then to nearest even."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        f = x.astype(np.float32)
        back = f.astype(np.float64)
        u = f.view(np.uint32).copy()
        u -= (((x > 0) & (back > x)) | ((x < 0) & (back < x))).astype(np.uint32)
        u |= ((back != x) & ~np.isnan(x)).astype(np.uint32)
    return bf16_from_float32_bits(u)


def bf16_to_float32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def bf16_from_int(n):
    """An integer rounded to bfloat16's 8 significant bits, to nearest even."""
    out = []
    for v in n.tolist():
        m, sign = abs(v), -1 if v < 0 else 1
        shift = max(m.bit_length() - 8, 0)
        q, r = m >> shift, m & ((1 << shift) - 1)
        if shift and (r > 1 << (shift - 1) or (r == 1 << (shift - 1) and q & 1)):
            q += 1
        out.append(np.float32(sign * (q << shift)))
    return np.array(out, np.float32)


class Bf16:
    """A bfloat16 array, held as its bits: pykc's kernel takes the device
    memory as it is; numba-cuda needs ml_dtypes' bfloat16 to type it."""

    def __init__(self, bits):
        self.bits = bits


@case("bfloat16_ops", "arith", sim=False)
def _(rng):
    n = 1000
    a = bf16_from_float64(rng.standard_normal(n) * 4)
    b = bf16_from_float64(rng.standard_normal(n) * 4)
    b[b == 0] = 0x3F80
    x, y = bf16_to_float32(a).astype(np.float64), bf16_to_float32(b).astype(np.float64)
    want = np.stack([bf16_from_float64(x + y), bf16_from_float64(x - y), bf16_from_float64(x * y),
                     bf16_from_float64(x / y), bf16_from_float64(x * y + x),
                     bf16_from_float64(np.maximum(x, y)), a ^ np.uint16(0x8000)], axis=1)
    out = np.zeros((n, 7), np.float32)
    return Run(blocks(n, 128), 128, [Bf16(a), Bf16(b), out], {2: bf16_to_float32(want)}, tol=BITS,
               numba_skip="numba-cuda takes no bfloat16 array from the host: NumPy's buffer protocol has no format "
                          "for ml_dtypes' bfloat16 (ValueError: cannot include dtype 'E' in a buffer)")


@case("bfloat16_ops", "convert", sim=False)
def _(rng):
    n = 1000
    f = (rng.standard_normal(n) * 1e3).astype(np.float32)
    d = rng.standard_normal(n) * 1e5 + rng.standard_normal(n) * 1e-9
    k = rng.integers(-2**62, 2**62, n, dtype=np.int64) >> rng.integers(0, 62, n)
    want = np.stack([bf16_to_float32(bf16_from_float32_bits(f.view(np.uint32))),
                     bf16_to_float32(bf16_from_float64(d)), bf16_from_int(k)], axis=1)
    out = np.zeros((n, 3), np.float32)
    return Run(blocks(n, 128), 128, [f, d, k, out], {3: want}, tol=BITS)


# ---- samples ----------------------------------------------------------------------------


@case("anchors", "empty")
def _(rng):
    return Run(1, 32, [], {})


@case("vadd", "vadd")
def _(rng):
    n = 10_007
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    return Run(blocks(n, 256), 256, [x, y, np.zeros(n, np.float32)], {2: x + y})


@case("anchors", "saxpy")
def _(rng):
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(1.75)
    return Run(blocks(n, 256), 256, [a, x, y, np.zeros(n, np.float32)],
               {3: (np.float64(a) * x + y).astype(np.float32)}, tol=FMA32)


def _matmul_case(kernel, tiled):
    def make(rng):
        m, k, n = 50, 37, 45
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        want = (a.astype(np.float64) @ b).astype(np.float32)
        return Run((blocks(n, 16), blocks(m, 16)), (16, 16), [a, b, np.zeros((m, n), np.float32)], {2: want},
                   tol=Tol(rtol=1e-4, atol=1e-4), numba_tol=Tol(rtol=1e-5, atol=1e-5))
    return make


case("anchors", "matmul_naive")(_matmul_case("matmul_naive", False))
case("anchors", "matmul_tiled")(_matmul_case("matmul_tiled", True))


@case("anchors", "reduce_tree")
def _(rng):
    n = 256 * 5 - 100
    x = rng.integers(-50, 50, n).astype(np.float32)
    padded = np.concatenate([x, np.zeros(100, np.float32)])
    return Run(5, 256, [x, np.zeros(5, np.float32)], {1: padded.reshape(5, 256).sum(axis=1)})


@case("anchors", "reduce_atomic")
def _(rng):
    x = rng.integers(-50, 50, 7000).astype(np.float32)
    return Run(10, 128, [x, np.zeros(1, np.float32)], {1: np.array([x.sum()], np.float32)})


@case("anchors", "histogram")
def _(rng):
    x = rng.uniform(-1, 11, 4000).astype(np.float32)
    lo, hi = np.float32(0), np.float32(10)
    binsn = 16
    idx = ((x - lo) / (hi - lo) * np.float32(binsn)).astype(np.float64)
    b = np.trunc(idx).astype(np.int64)
    want = np.bincount(b[(b >= 0) & (b < binsn)], minlength=binsn).astype(np.int32)
    return Run(blocks(4000, 256), 256, [x, lo, hi, np.zeros(binsn, np.int32)], {3: want},
               tol={3: EXACT})


@case("anchors", "stencil_1d")
def _(rng):
    x = rng.integers(-20, 20, 1000).astype(np.float32)
    want = np.zeros(1000, np.float32)
    for i in range(3, 997):
        want[i] = np.float32(x[i - 3:i + 4].astype(np.float64).sum()) / np.float32(7)
    return Run(blocks(1000, 256), 256, [x, np.zeros(1000, np.float32)], {1: want})


@case("anchors", "stencil_2d")
def _(rng):
    u = rng.integers(-20, 20, (30, 41)).astype(np.float32)
    want = np.zeros_like(u)
    want[1:-1, 1:-1] = np.float32(0.25) * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return Run((blocks(41, 16), blocks(30, 16)), (16, 16), [u, np.zeros_like(u)], {1: want})


@case("anchors", "transpose")
def _(rng):
    a = rng.standard_normal((70, 45)).astype(np.float32)
    return Run((blocks(45, 32), blocks(70, 32)), (32, 32), [a, np.zeros((45, 70), np.float32)], {1: a.T.copy()})


@case("add_arrays", "add_arrays_cuda", sim=False)
def _(rng):
    n = 3001
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    return Run(blocks(n, 128), 128, [x, y, np.zeros(n, np.float32)], {2: x + y})


@case("cudakernel0", "cudakernel0")
def _(rng):
    # one thread walks the whole array (launched [1, 1], as in the tutorial)
    a = rng.standard_normal(500).astype(np.float32)
    return Run(1, 1, [a], {0: (a.astype(np.float64) + 0.5).astype(np.float32)})


@case("cudakernel1", "cudakernel1")
def _(rng):
    # no bounds check: the grid covers the array exactly
    a = rng.standard_normal(1024).astype(np.float32)
    return Run(4, 256, [a], {0: (a.astype(np.float64) + 0.5).astype(np.float32)})


@case("gpu_add", "gpu_add")
def _(rng):
    x = rng.standard_normal(2048).astype(np.float32)
    y = rng.standard_normal(2048).astype(np.float32)
    return Run(16, 128, [x, y, np.zeros(2048, np.float32)], {2: x + y})


@case("gpu_matmul", "gpu_matmul", sim=False)
def _(rng):
    m, k, n = 40, 33, 29
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    # tmp_sum = 0.0 is a float64: each float32 product is rounded, then added
    # in double, in k order
    acc = np.zeros((m, n))
    for j in range(k):
        acc = acc + (a[:, j:j + 1] * b[j:j + 1, :]).astype(np.float64)
    return Run((blocks(m, 16), blocks(n, 16)), (16, 16), [a, b, np.zeros((m, n), np.float32)],
               {2: acc.astype(np.float32)}, tol=ULP32)


@case("gpu_reduce", "gpu_reduce")
def _(rng):
    x = rng.random(6000).astype(np.float32)
    return Run(12, 64, [x, np.zeros(1, np.float32)], {1: np.array([x.astype(np.float64).sum()], np.float32)},
               tol=Tol(rtol=2e-5))


@case("grid_stride", "scale")
def _(rng):
    a = rng.standard_normal(1000).astype(np.float32)
    return Run(blocks(1000, 128), 128, [a, np.float32(1.5), np.int64(900)],
               {0: np.concatenate([a[:900] * np.float32(1.5), a[900:]])})


@case("grid_stride", "scale_strided")
def _(rng):
    a = rng.standard_normal(5000).astype(np.float32)
    return Run(4, 64, [a, np.float32(-0.75)], {0: a * np.float32(-0.75)})


@case("shared_memory", "reverse_tiles")
def _(rng):
    tpb, n = 128, 128 * 3 + 50
    a = rng.standard_normal(n).astype(np.float32)
    w = np.array([0.5, 1.0, 2.0, 1.0], np.float32)
    out = np.zeros(n, np.float32)
    for i in range(n):
        blk, tx = divmod(i, tpb)
        j = blk * tpb + (tpb - 1 - tx)
        if j < n:
            out[i] = a[j] * w[tx % 4]
    return Run(blocks(n, tpb), tpb, [a, np.zeros(n, np.float32)], {1: out})


# ---------------------------------------------------------------------------
# Running


class Skip(Exception):
    pass


def compare(got, want, tol):
    """None if equal under tol, else a description of the first difference."""
    if isinstance(want, tuple) and want[0] == "permutation":
        if np.array_equal(np.sort(got.reshape(-1)), np.sort(want[1].reshape(-1))):
            return None
        return "is not a permutation of the expected values"
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.dtype.names:  # records: byte for byte
        got = np.ascontiguousarray(got).view(np.uint8).reshape(got.shape + (-1,))
        want = np.ascontiguousarray(want).view(np.uint8).reshape(want.shape + (-1,))
    if got.dtype.kind in "biu" or want.dtype.kind in "biu" and got.dtype.kind != "f":
        bad = got != want.astype(got.dtype)
    elif tol.bits:
        g = np.ascontiguousarray(got)
        w = np.ascontiguousarray(want.astype(got.dtype))
        bad = g.view(f"u{g.itemsize}") != w.view(f"u{w.itemsize}") if g.dtype.kind == "f" else g != w
        if g.dtype.kind == "c":
            bad = (g.real.view(np.uint64) != w.real.view(np.uint64)) | (g.imag.view(np.uint64) != w.imag.view(np.uint64))
    else:
        w = want.astype(got.dtype) if want.dtype != got.dtype else want
        with np.errstate(all="ignore"):
            both_nan = np.isnan(got) & np.isnan(w)
            close = (got == w) | both_nan
            if tol.rtol or tol.atol:
                close |= np.abs(got - w) <= tol.atol + tol.rtol * np.abs(w)
        bad = ~close
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{int(bad.sum())} of {bad.size} elements differ; first at {list(where)}: got {got[where]!r}, expected {want[where]!r}"


class Bundle:
    """The compiled modules of DIR, loaded on demand."""

    def __init__(self, directory, use_numba=True, simulate=False, dry=False, host=False):
        self.dir = directory
        self.host = host
        self.host_modules = None
        self.use_numba = use_numba and not dry
        self.simulate = simulate
        self.dry = dry
        self.manifests, self.modules, self.numba_modules = {}, {}, {}
        self.numba_error = None
        self.cp = None

    def cupy(self):
        if self.cp is None:
            import cupy
            self.cp = cupy
        return self.cp

    def manifest(self, name):
        if name not in self.manifests:
            import yaml
            err = os.path.join(self.dir, name + ".error")
            path = os.path.join(self.dir, name + ".yaml")
            if not os.path.exists(path):
                msg = "no manifest " + path
                if os.path.exists(err):
                    with open(err) as f:
                        lines = [ln for ln in f.read().splitlines() if ln.strip()]
                    msg = "pykc did not compile it: " + (lines[0] if lines else "(no message)")
                raise RuntimeError(msg)
            with open(path) as f:
                self.manifests[name] = yaml.safe_load(f)
        return self.manifests[name]

    def function(self, name, kernel, args):
        """The manifest's item of kernel for args, and its CuPy function."""
        m = self.manifest(name)
        if name not in self.modules:
            target = m["targets"][0]
            # CuPy launches every kernel of a module cooperatively or none:
            # cooperatively where one needs it (cuda.cg.this_grid().sync())
            coop = any(k.get("cooperative") for k in m["kernels"])
            self.modules[name] = self.cupy().RawModule(path=os.path.join(self.dir, target["file"]),
                                                      enable_cooperative_groups=coop)
        k = item_for(m, name, kernel, args)
        return k, self.modules[name].get_function(k["entry"])

    def numba_kernel(self, name, kernel):
        if name not in self.numba_modules:
            import numba.cuda  # noqa: F401  (fails here when numba-cuda is missing)
            path = os.path.join(self.dir, name + ".pyk")
            if not os.path.exists(path):
                path = find_source(name)
            modname = "pyk_" + name
            loader = importlib.machinery.SourceFileLoader(modname, path)
            mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(modname, loader))
            loader.exec_module(mod)
            self.numba_modules[name] = mod
        return getattr(self.numba_modules[name], kernel)


def find_source(name):
    for d in (os.path.join(HERE, "kernels"), os.path.join(HERE, "..", "..", "samples"),
              os.path.join(HERE, "..", "..", "samples", "anchors")):
        p = os.path.join(d, name + ".pyk")
        if os.path.exists(p):
            return p
    raise FileNotFoundError(name + ".pyk")


NP_DTYPES = {"bool": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
             "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
             "float16": np.float16, "float32": np.float32, "float64": np.float64,
             "complex64": np.complex64, "complex128": np.complex128}


def check_record(p, dtype):
    """A structured dtype against the layout the manifest gives."""
    layout = p["record"]
    fields = [(f["name"], f["offset"]) for f in layout["fields"]]
    have = [(name, dtype.fields[name][1]) for name in dtype.names]
    if layout["size"] != dtype.itemsize or fields != have:
        raise RuntimeError(f"parameter {p['name']} has records {fields} of {layout['size']} bytes, "
                           f"the case passes {have} of {dtype.itemsize}")


def item_for(manifest, module, kernel, args):
    """The manifest's item that a loader launches kernel with for args: of
    its specialisations the first whose parameters take them, then its copy
    for contiguous arrays where they are (foreign_loader.with_copy)."""
    from foreign_loader import kernels_named, with_copy
    ks = kernels_named(manifest, kernel)
    if not ks:
        names = ", ".join(sorted({k["name"] for k in manifest["kernels"]}))
        raise RuntimeError(f"the manifest of {module} has no kernel {kernel} (it has {names})")
    for k in ks[:-1]:
        try:
            check_params(k, args)
            return with_copy(manifest, k, args)
        except RuntimeError:
            pass
    return with_copy(manifest, ks[-1], args)


def check_params(kernel, args):
    """The arguments against the manifest's source parameters: a clear
    message rather than a bad launch."""
    params = kernel["params"]
    if len(params) != len(args):
        raise RuntimeError(f"{len(args)} arguments for {len(params)} parameters "
                           f"({', '.join(p['name'] for p in params)})")
    for p, a in zip(params, args):
        if p["kind"] == "tuple" and len(flatten(a)) != len(p["members"]):
            raise RuntimeError(f"parameter {p['name']} is a tuple of {len(p['members'])} scalars, "
                               f"the case passes {a!r}")
        if p["kind"] == "array":
            if not hasattr(a, "shape") or not hasattr(a, "data"):
                raise RuntimeError(f"parameter {p['name']} is an array, the case passes {type(a).__name__}")
            want = "bool" if a.dtype == np.bool_ else "record" if a.dtype.names else str(a.dtype)
            if p["dtype"] == "bfloat16" and a.dtype == np.uint16:
                want = "bfloat16"  # a Bf16's bits
            if p["dtype"] == "record" and want == "record":
                check_record(p, a.dtype)
            if want != p["dtype"] or a.ndim != p["ndim"]:
                raise RuntimeError(f"parameter {p['name']} is {p['dtype']}[{p['ndim']}d], "
                                   f"the case passes {want}[{a.ndim}d]")
            if p["layout"] == "C" and not a.flags.c_contiguous:
                raise RuntimeError(f"parameter {p['name']} is C-contiguous, the array passed is not")
            if p["layout"] == "F" and not a.flags.f_contiguous:
                raise RuntimeError(f"parameter {p['name']} is F-contiguous, the array passed is not")


def flatten(t):
    """A tuple argument's scalars, nested tuples flattened in order, as the
    manifest's members list them."""
    if not isinstance(t, tuple):
        return [t]
    return [x for e in t for x in flatten(e)]


def pack(kernel, args):
    """One NumPy scalar per PTX parameter, from the manifest's ptx_params
    (foreign_loader.pack's scheme, with signed scalars and strides kept
    signed so that negative values pack to the same bits). A tuple's part
    [j] is its j-th scalar, [j].real and [j].imag its parts."""
    out = []
    params = kernel["params"]
    for p in kernel["ptx_params"]:
        arg = args[p["param"]]
        part = p["part"]
        dt = params[p["param"]]["dtype"]
        if part.startswith("["):
            j = int(part[1:part.index("]")])
            arg, dt = flatten(arg)[j], params[p["param"]]["members"][j]
            part = part[part.index("]") + 2:] or "value"
        if part == "data":
            value = np.uint64(arg.data.ptr if hasattr(arg.data, "ptr") else arg.ctypes.data)
        elif part.startswith("shape["):
            value = np.int64(arg.shape[int(part[6:-1])])
        elif part.startswith("strides["):
            value = np.int64(arg.strides[int(part[8:-1])])
        elif part in ("real", "imag"):
            ft = np.float32 if p["type"] == "f32" else np.float64
            value = ft(np.real(arg) if part == "real" else np.imag(arg))
        else:
            value = NP_DTYPES[dt](arg)
            if dt == "float16":
                value = value.view(np.uint16)
        size = np.dtype(type(value)).itemsize
        if size != p["size"]:
            raise RuntimeError(f"PTX parameter {part} of {params[p['param']]['name']}: "
                               f"{size} bytes packed, the manifest says {p['size']}")
        out.append(value)
    return out


def to_device(cp, a, numba=False):
    """The device array an argument is, and the one to read back. numba-cuda
    takes records and bfloat16 as its own device arrays (CuPy's interface
    describes neither); pykc's kernels take any device memory."""
    if isinstance(a, Bf16) and numba:
        import ml_dtypes  # noqa: F401  (numba-cuda types ml_dtypes.bfloat16 arrays as bfloat16)
        from numba import cuda
        d = cuda.to_device(a.bits.view(ml_dtypes.bfloat16))
        return d, d
    if isinstance(a, Bf16):
        d = cp.array(a.bits)
        return d, d
    if numba and isinstance(a, np.ndarray) and a.dtype.names:
        from numba import cuda
        d = cuda.to_device(a)
        return d, d
    if isinstance(a, View):
        base = cp.array(a.base, order="K")
        return base[a.key], base
    if isinstance(a, np.ndarray):
        d = cp.array(a, order="K")
        return d, d
    return a, None


def exact_copy(a):
    """A copy of every byte: NumPy copies a record array field by field,
    leaving its padding as the new memory had it."""
    c = np.empty_like(a, order="K")
    if c.nbytes:
        np.copyto(c.view(np.uint8) if c.flags.c_contiguous else c, a.view(np.uint8) if c.flags.c_contiguous else a)
    return c


def to_host_view(a):
    if isinstance(a, Bf16):
        return a.bits.copy(), None
    if isinstance(a, View):
        base = exact_copy(a.base)
        return base[a.key], base
    if isinstance(a, np.ndarray):
        c = exact_copy(a)
        return c, c
    return a, None


def dry_run(bundle, c, run):
    """No GPU: the case's arguments against pykc's manifest, packed as they
    would be launched (host arrays stand in for device ones)."""
    args = [to_host_view(a)[0] for a in run.args]
    kernel = item_for(bundle.manifest(c.module), c.module, c.kernel, args)
    check_params(kernel, args)
    packed = pack(kernel, args)
    return f"{len(packed)} PTX parameters packed"


def launch_pykc_host(bundle, c, run):
    """On the host device: the arrays are passed where they are."""
    import host_launch
    if bundle.host_modules is None:
        bundle.host_modules = host_launch.Modules()
    bundle.manifest(c.module)
    pairs = [(a.bits.copy(),) * 2 if isinstance(a, Bf16) else to_host_view(a) for a in run.args]
    args = [host_launch.Bfloat16(p[0]) if isinstance(a, Bf16) else p[0] for a, p in zip(run.args, pairs)]
    bundle.host_modules.launch(os.path.join(bundle.dir, c.module + ".yaml"), c.kernel, run.grid, run.block,
                               run.shared, args)
    return {i: pairs[i][1] for i in run.expect}


def launch_pykc(bundle, c, run):
    if bundle.host:
        return launch_pykc_host(bundle, c, run)
    cp = bundle.cupy()
    pairs = [to_device(cp, a) for a in run.args]
    dargs = [p[0] for p in pairs]
    kernel, fn = bundle.function(c.module, c.kernel, dargs)
    check_params(kernel, dargs)
    fn(run.grid, run.block, tuple(pack(kernel, dargs)), shared_mem=run.shared)
    cp.cuda.Device().synchronize()
    return {i: cp.asnumpy(pairs[i][1]) for i in run.expect}


def launch_numba(bundle, c, run):
    kern = bundle.numba_kernel(c.module, c.kernel)
    if bundle.simulate:
        pairs = [to_host_view(a) for a in run.args]
    else:
        cp = bundle.cupy()
        pairs = [to_device(cp, a, numba=True) for a in run.args]
    args = [p[0] for p in pairs]
    grid = run.grid if len(run.grid) > 1 else run.grid[0]
    block = run.block if len(run.block) > 1 else run.block[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern[grid, block, 0, run.shared](*args)
    if bundle.simulate:
        return {i: np.array(pairs[i][1]) for i in run.expect}
    from numba import cuda
    cuda.synchronize()
    cp = bundle.cupy()
    return {i: pairs[i][1].copy_to_host() if hasattr(pairs[i][1], "copy_to_host") else cp.asnumpy(pairs[i][1])
            for i in run.expect}


STICKY = ("illegal", "ILLEGAL", "LAUNCH_FAILED", "launch failure", "MISALIGNED", "misaligned",
          "unspecified launch", "HARDWARE_STACK", "TRAP", "context is destroyed", "UNKNOWN")


def run_case(bundle, c, rng, verbose):
    """Returns (status, message, sticky): status PASS or FAIL before xfail."""
    run = c.make(rng)
    if bundle.dry:
        return "PASS", dry_run(bundle, c, run)
    notes = []
    problems = []
    pykc_out = None
    if not bundle.simulate:
        pykc_out = launch_pykc(bundle, c, run)
        for i, want in run.expect.items():
            d = compare(pykc_out[i], want, run.tol_for(i))
            if d:
                problems.append(f"arg {i} vs reference ({run.tol_for(i)}): {d}")
    numba_out = None
    if bundle.use_numba and run.numba_skip:
        print(f"      numba-cuda not compared: {run.numba_skip}")
    elif bundle.use_numba:
        try:
            numba_out = launch_numba(bundle, c, run)
        except Exception as e:  # numba-cuda refused or crashed on the kernel
            if verbose:
                traceback.print_exc()
            problems.append(f"numba-cuda failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    if numba_out is not None:
        for i, want in run.expect.items():
            if bundle.simulate:
                d = compare(numba_out[i], want, run.tol_for(i))
                if d:
                    problems.append(f"arg {i}: numba (simulator) vs reference ({run.tol_for(i)}): {d}")
            else:
                t = run.tol_for(i, numba=True)
                d = compare(pykc_out[i], numba_out[i], t) if not (isinstance(want, tuple)) else \
                    compare(numba_out[i], want, t)
                if d:
                    problems.append(f"arg {i} vs numba-cuda ({t}): {d}")
    tols = sorted({str(run.tol_for(i)) for i in run.expect})
    ntols = sorted({str(run.tol_for(i, numba=True)) for i in run.expect})
    notes.append("ref: " + "/".join(tols))
    notes.append("numba: " + ("/".join(ntols) if numba_out is not None else
                              ("not compared" if not bundle.use_numba else "failed")))
    return ("FAIL" if problems else "PASS"), "; ".join(problems) if problems else "  ".join(notes)


def selected(args):
    out = []
    for idx, c in enumerate(CASES):
        if args.k and not any(k in c.name for k in args.k):
            continue
        if args.simulate and not c.sim:
            continue
        out.append(idx)
    return out


def numba_available():
    try:
        import numba.cuda  # noqa: F401
        return None
    except Exception as e:  # ImportError, or numba-cuda failing to initialise
        return f"{type(e).__name__}: {e}"


def worker(args):
    use_numba = not args.no_numba and not args.dry_run and not args.host
    if args.host:
        import host_launch
        host_launch.use_host_device()
    if use_numba:
        why = numba_available()
        if why:
            print(f"note: numba-cuda cannot be imported ({why}): results are checked against the "
                  f"NumPy references only", flush=True)
            use_numba = False
    bundle = Bundle(args.dir, use_numba=use_numba, simulate=args.simulate, dry=args.dry_run, host=args.host)
    idxs = selected(args)
    for idx in idxs:
        if idx < args.start:
            continue
        c = CASES[idx]
        rng = np.random.default_rng(12345 + idx)
        sticky = False
        try:
            status, msg = run_case(bundle, c, rng, args.verbose)
        except Exception as e:
            if args.verbose:
                traceback.print_exc()
            text = str(e).strip().splitlines()
            status, msg = "FAIL", f"{type(e).__name__}: {text[0] if text else ''}"
            sticky = any(s in str(e) or s in type(e).__name__ for s in STICKY)
        # a known bug makes a case fail on the GPU; in --simulate the case
        # checks the reference itself, in --dry-run only that pykc compiled
        # the module and that its arguments fit the manifest
        if args.host and status == "FAIL" and "pykc did not compile it" in msg:
            import host_launch
            if host_launch.refused_by_design(msg):
                status, msg = "SKIP", "the host target refuses it: " + msg.split("error: ")[-1]
        # --host compares with the references alone: the known bugs are
        # differences from numba-cuda's results
        if c.xfail and not args.simulate and not args.host and not (args.dry_run and status == "PASS"):
            status = "XFAIL" if status == "FAIL" else "XPASS"
            msg = f"known bug: {c.xfail}" + (f" ({msg})" if status == "XFAIL" and args.verbose else "")
        print(f"{status:5} {c.name:48} {msg}", flush=True)
        print("@@ " + json.dumps({"idx": idx, "status": status}), flush=True)
        if sticky:
            print(f"      (the CUDA context is unusable after this error: a new worker goes on)", flush=True)
            return 3
    return 0


def supervise(args, passthrough):
    idxs = selected(args)
    results = {}
    start = 0
    while True:
        todo = [i for i in idxs if i >= start and i not in results]
        if not todo:
            break
        cmd = [sys.executable, os.path.abspath(__file__)] + passthrough + ["--worker", "--start", str(todo[0])]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        last = None
        for line in proc.stdout:
            if line.startswith("@@ "):
                r = json.loads(line[3:])
                results[r["idx"]] = r["status"]
                last = r["idx"]
            else:
                sys.stdout.write(line)
                sys.stdout.flush()
        proc.wait()
        remaining = [i for i in idxs if i not in results]
        if not remaining:
            break
        pos = idxs.index(last) + 1 if last is not None else idxs.index(todo[0])
        if proc.returncode != 3 and pos < len(idxs) and idxs[pos] not in results:
            # the worker died inside this case
            c = CASES[idxs[pos]]
            status = "XFAIL" if c.xfail else "FAIL"
            print(f"{status:5} {c.name:48} the worker process died (exit status {proc.returncode})", flush=True)
            results[idxs[pos]] = status
            pos += 1
        if pos >= len(idxs):
            break
        start = idxs[pos]
    counts = {}
    for s in results.values():
        counts[s] = counts.get(s, 0) + 1
    passed = counts.get("PASS", 0)
    failed = counts.get("FAIL", 0) + counts.get("XPASS", 0)
    extra = []
    if counts.get("XFAIL"):
        extra.append(f"{counts['XFAIL']} expected failures (known bugs)")
    if counts.get("XPASS"):
        extra.append(f"{counts['XPASS']} unexpectedly passed (remove their xfail)")
    if extra:
        print("(" + ", ".join(extra) + ")")
    skipped = f", {counts['SKIP']} skipped" if counts.get("SKIP") else ""
    print(f"{passed} passed, {failed} failed{skipped}")
    return 0 if failed == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", default=None, help="directory of compiled modules (build-gpu-bundle.sh)")
    ap.add_argument("-k", action="append", help="run only the cases whose name contains this (repeatable)")
    ap.add_argument("--no-numba", action="store_true", help="check against the reference only")
    ap.add_argument("--simulate", action="store_true",
                    help="no GPU: run the numba half in numba-cuda's simulator against the references "
                         "(NUMBA_ENABLE_CUDASIM=1); checks the test kernels and references themselves")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: check every case's arguments against pykc's manifests and pack them")
    ap.add_argument("--host", action="store_true",
                    help="no GPU: a --target host bundle on libpykrt's host device, against the NumPy references")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("-v", "--verbose", action="store_true", help="tracebacks and details of expected failures")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.list:
        for idx in selected(args):
            c = CASES[idx]
            print(c.name + (f"   (xfail: {c.xfail})" if c.xfail else ""))
        return 0
    if args.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        if args.dir is None:
            args.dir = os.path.join(HERE, "kernels")
    elif args.dir is None:
        ap.error("give the directory of compiled modules (tests/gpu/build-gpu-bundle.sh writes .gpu/kernels)")
    if not args.simulate and not args.dry_run and not args.worker and not args.host:
        if not os.path.isdir(args.dir):
            ap.error(f"{args.dir}: no such directory (run tests/gpu/build-gpu-bundle.sh first)")
        if importlib.util.find_spec("cupy") is None:
            print("cupy is not installed: it launches pykc's kernels (pip install cupy-cuda12x or "
                  "cupy-cuda13x); --dry-run checks the cases without a GPU", file=sys.stderr)
            return 2
    if args.worker:
        return worker(args)
    passthrough = [a for a in sys.argv[1:]]
    return supervise(args, passthrough)


if __name__ == "__main__":
    sys.exit(main())
