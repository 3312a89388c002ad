"""The case format of the conformance suite (docs/conformance.md), and the
comparisons.

Each area directory of tests/conformance holds kernels (*.pyk) and one
cases.py, which describes a launch of each kernel with calls of `case`:

    case("arith.add_i32", [ints("int32", 256), ints("int32", 256), zeros("int64", 256)],
         grid=4, block=64)

The first argument is MODULE.KERNEL (MODULE.pyk in the same directory); the
arguments are specs (functions of a seeded NumPy generator that make an
array, below) or plain values (NumPy scalars, tuples of them) passed as
they are. Every array argument is compared after the launch, inputs too:
integers, bools and records bit for bit, floats bit for bit (any NaN equal
to any NaN) unless `tol` states a bound in units in the last place.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------
# Tolerances


class Ulp:
    """Floats equal within n units in the last place (same sign), or both
    NaN; atol: an absolute bound as well, for results near zero where a
    contracted a*b+c cancels. Ulp(0) is bit-exact (NaN == NaN)."""

    def __init__(self, n=0, atol=0.0):
        self.n, self.atol = n, atol

    def __str__(self):
        if self.n == 0 and self.atol == 0:
            return "exact"
        return f"{self.n} ulp" + (f" or {self.atol:g}" if self.atol else "")


EXACT = Ulp(0)

# On the host target, what a case bounds in ulps may differ by this many
# more: libdevice's functions that round through the GPU's approximate
# instructions (ex2.approx, rcp.approx.ftz.f64 ...) get the exact value
# there (docs/cli.md, "The host target").
HOST_ULPS = 2


def ulp(n, atol=0.0):
    return Ulp(n, atol)


# ---------------------------------------------------------------------------
# Argument specs: each a function of the case's generator


class Spec:
    def __init__(self, make, what):
        self.make, self.what = make, what

    def __call__(self, rng):
        return self.make(rng)

    def __repr__(self):
        return self.what


class View:
    """An argument that is a view of a larger array: the kernel gets
    base[key]; the whole base is compared."""

    def __init__(self, base, key):
        self.base, self.key = base, key

    @property
    def view(self):
        return self.base[self.key]


def _shape(shape):
    return shape if isinstance(shape, tuple) else (shape,)


def ints(dtype, shape, lo=None, hi=None):
    """Uniform integers in [lo, hi) (default: -100..99 signed, 0..199 unsigned, bools 0/1)."""
    dt = np.dtype(dtype)

    def make(rng):
        a, b = lo, hi
        if a is None:
            a = 0 if dt.kind in "ub" else -100
        if b is None:
            b = 2 if dt.kind == "b" else a + 200
        return rng.integers(a, b, _shape(shape), dtype=np.int64 if b <= 2**63 else np.uint64).astype(dt)
    return Spec(make, f"ints({dt}, {shape})")


def full_range(dtype, shape):
    """Integers over the dtype's whole range, its extremes included."""
    dt = np.dtype(dtype)

    def make(rng):
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, _shape(shape), dtype=dt, endpoint=True)
        flat = a.reshape(-1)
        ext = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=np.int64 if dt.kind == "i"
                       else np.uint64).astype(dt)
        flat[:min(len(ext), flat.size)] = ext[:flat.size]
        return a
    return Spec(make, f"full_range({dt}, {shape})")


def floats(dtype, shape, lo=-10.0, hi=10.0):
    """Uniform floats in [lo, hi)."""
    dt = np.dtype(dtype)

    def make(rng):
        return (lo + (hi - lo) * rng.random(_shape(shape))).astype(dt)
    return Spec(make, f"floats({dt}, {shape}, {lo}, {hi})")


def specials(dtype, shape, lo=-10.0, hi=10.0):
    """Uniform floats with the special values first: zeros of both signs,
    infinities, NaN, the largest and smallest normals, a subnormal, 1, -1,
    0.5, -0.5, 2**k and halves of integers (ties)."""
    dt = np.dtype(dtype)

    def make(rng):
        a = (lo + (hi - lo) * rng.random(_shape(shape))).astype(dt)
        fi = np.finfo(dt)
        ext = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
                        float(fi.smallest_subnormal), 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.5, 1024.0,
                        1e-3, 7.0], dtype=dt)
        flat = a.reshape(-1)
        flat[:min(len(ext), flat.size)] = ext[:flat.size]
        return a
    return Spec(make, f"specials({dt}, {shape})")


def normal(dtype, shape, scale=1.0):
    dt = np.dtype(dtype)

    def make(rng):
        return (scale * rng.standard_normal(_shape(shape))).astype(dt)
    return Spec(make, f"normal({dt}, {shape})")


def cplx(dtype, shape, scale=2.0, special=False):
    """Complex numbers with normal parts (special: zeros, infinities and NaNs first)."""
    dt = np.dtype(dtype)

    def make(rng):
        s = _shape(shape)
        a = (scale * rng.standard_normal(s) + 1j * scale * rng.standard_normal(s)).astype(dt)
        if special:
            ext = np.array([0, complex(-0.0, 0.0), 1, -1, 1j, -1j, complex(np.inf, 0), complex(0, np.inf),
                            complex(np.nan, 0), complex(1, np.nan), complex(-np.inf, -np.inf)], dtype=dt)
            flat = a.reshape(-1)
            flat[:min(len(ext), flat.size)] = ext[:flat.size]
        return a
    return Spec(make, f"cplx({dt}, {shape})")


def zeros(dtype, shape):
    dt = np.dtype(dtype)
    return Spec(lambda rng: np.zeros(_shape(shape), dt), f"zeros({dt}, {shape})")


def full(dtype, shape, value):
    dt = np.dtype(dtype)
    return Spec(lambda rng: np.full(_shape(shape), value, dt), f"full({dt}, {shape}, {value})")


def arange(dtype, n, start=0, step=1):
    dt = np.dtype(dtype)
    return Spec(lambda rng: (start + step * np.arange(n)).astype(dt), f"arange({dt}, {n})")


def array(values, dtype):
    dt = np.dtype(dtype)
    return Spec(lambda rng: np.array(values, dt), f"array({dt})")


def fortran(spec):
    """The array of spec in Fortran order."""
    return Spec(lambda rng: np.asfortranarray(spec(rng)), f"fortran({spec!r})")


def view(spec, key):
    """A view base[key] of the array of spec (a strided slice, a column)."""
    return Spec(lambda rng: View(spec(rng), key), f"view({spec!r}, {key!r})")


def records(dtype, n, **fields):
    """An array of n records; each field from a spec of shape n (or zeros)."""
    def make(rng):
        a = np.zeros(n, dtype)
        for name, spec in fields.items():
            a[name] = spec(rng)
        return a
    return Spec(make, f"records({n})")


XOROSHIRO128P = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)


def xoroshiro_states(n, seed, subsequence_start=0):
    """n xoroshiro128+ states as numba-cuda's create_xoroshiro128p_states
    makes them (its init_xoroshiro128p_states_cpu, on the host)."""
    def make(rng):
        import warnings
        s = np.zeros(n, XOROSHIRO128P)
        from numba.cuda.random import init_xoroshiro128p_states_cpu
        with warnings.catch_warnings(), np.errstate(over="ignore"):
            warnings.simplefilter("ignore")  # the simulator runs it in object mode
            init_xoroshiro128p_states_cpu(s, seed, subsequence_start)
        return s
    return Spec(make, f"xoroshiro_states({n}, {seed})")


def build_args(args, rng):
    return [a(rng) if isinstance(a, Spec) else a for a in args]


# ---------------------------------------------------------------------------
# Cases


class Case:
    def __init__(self, area, module, kernel, args, grid, block, tol, shared, xfail, sim, unordered, label,
                 reference=None, numba_fails=None, host_xfail=None, host_tol=None):
        self.area, self.module, self.kernel = area, module, kernel
        self.host_xfail, self.host_tol = host_xfail, host_tol
        self.args, self.grid, self.block = args, grid, block
        self.tol, self.shared, self.xfail, self.sim = tol, shared, xfail, sim
        self.unordered, self.label = unordered, label
        self.reference, self.numba_fails = reference, numba_fails

    @property
    def name(self):
        return f"{self.area}/{self.module}.{self.kernel}" + (f"[{self.label}]" if self.label else "")

    @property
    def source(self):
        return os.path.join(HERE, self.area, self.module + ".pyk")

    def tol_for(self, idx, host=False):
        t = self.host_tol if host and self.host_tol is not None else self.tol
        if isinstance(t, dict):
            t = t.get(idx, EXACT)
        t = t or EXACT
        if host and t.n and self.host_tol is None:
            return Ulp(t.n + HOST_ULPS, t.atol)
        return t


CASES = []
_AREA = [None]


def case(name, args, grid=1, block=64, tol=None, shared=0, xfail=None, sim=True, unordered=(), label=None,
         reference=None, numba_fails=None, host_xfail=None, host_tol=None):
    """Registers one launch of kernel KERNEL of MODULE.pyk (name
    "MODULE.KERNEL") of the area being loaded. grid, block: ints or tuples
    of 1-3 ints; tol: an Ulp for every float argument or {argument index:
    Ulp}; shared: dynamic shared memory in bytes; xfail: the documented
    difference (docs/compatibility.md) that makes it fail; sim=False: the
    simulator of numba-cuda cannot run it (warp functions it lacks ...);
    unordered: indices of arguments compared as sorted multisets (values an
    atomic returns, whose order is the hardware's); label: tells apart two
    cases of one kernel; reference: a NumPy model of the kernel, called with
    host copies of the arguments (views as views) and storing what the
    kernel stores, which pykc's outputs are compared with too;
    numba_fails: why numba-cuda cannot run the kernel (it then needs a
    reference, and only that is compared); host_xfail: the documented
    difference (docs/cli.md, "The host target") that makes it fail on the
    host target (run.py --host); host_tol: the bound there, where libdevice
    rounds through the GPU's approximate instructions, which the host
    computes exactly (a case's float bound in ulps is widened by
    HOST_ULPS on the host anyway)."""
    module, _, kernel = name.partition(".")
    if not kernel:
        raise ValueError(f"case {name!r}: the name is MODULE.KERNEL")
    if numba_fails and not reference:
        raise ValueError(f"case {name!r}: numba_fails needs a reference to compare pykc with")
    g = grid if isinstance(grid, tuple) else (grid,)
    b = block if isinstance(block, tuple) else (block,)
    CASES.append(Case(_AREA[0], module, kernel, list(args), g, b, tol, shared, xfail, sim, tuple(unordered), label,
                      reference, numba_fails, host_xfail, host_tol))


def blocks(n, tpb=64):
    return (n + tpb - 1) // tpb


def areas():
    return sorted(d for d in os.listdir(HERE)
                  if os.path.isfile(os.path.join(HERE, d, "cases.py")))


def load_cases():
    """Every area's cases.py, in the order of the areas' names."""
    if CASES:
        return CASES
    for area in areas():
        _AREA[0] = area
        path = os.path.join(HERE, area, "cases.py")
        with open(path) as f:
            code = compile(f.read(), path, "exec")
        env = {"__name__": f"conformance_{area}", "__file__": path}
        env.update({k: v for k, v in globals().items() if not k.startswith("_")})
        exec(code, env)
    return CASES


# ---------------------------------------------------------------------------
# Comparisons


def _ordered(bits, width):
    """Float bit patterns mapped to integers in the order of the floats (so
    that the difference of two is their distance in ulps)."""
    b = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    sign = np.int64(1) << np.int64(width - 1)
    if width < 64:
        neg = b >= sign
        mag = b & (sign - 1)
    else:
        neg = b < 0
        mag = b & np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(neg, -mag, mag)


def _float_bad(got, want, tol):
    width = got.dtype.itemsize * 8
    ut = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    g = np.ascontiguousarray(got).view(ut)
    w = np.ascontiguousarray(want).view(ut)
    with np.errstate(all="ignore"):
        both_nan = np.isnan(got) & np.isnan(want)
        bad = (g != w) & ~both_nan
        if tol.n or tol.atol:
            og, ow = _ordered(g, width), _ordered(w, width)
            # the larger less the smaller: exact, and no overflow (as floats, 64-bit orders lost their low bits)
            ug, uw = og.astype(np.uint64), ow.astype(np.uint64)
            dist = np.where(og >= ow, ug - uw, uw - ug)
            near = dist <= np.uint64(tol.n)
            if tol.atol:
                near |= np.abs(got.astype(np.float64) - want.astype(np.float64)) <= tol.atol
            bad &= ~(near & ~np.isnan(got) & ~np.isnan(want))
    return bad


def compare(got, want, tol, unordered=False, against="numba-cuda", mine="pykc"):
    """None if got (pykc's, or what mine names) equals want (numba-cuda's,
    or what against names) under tol, else a description of the first
    difference."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype}, {against}'s {want.shape} {want.dtype}"
    if unordered:
        got, want = np.sort(got.reshape(-1)), np.sort(want.reshape(-1))
    if got.dtype.names:  # records: each field byte for byte (padding is no value)
        bad = np.zeros(got.shape, bool)
        for name in got.dtype.names:
            g, w = np.ascontiguousarray(got[name]), np.ascontiguousarray(want[name])
            g, w = g.view(np.uint8).reshape(got.shape + (-1,)), w.view(np.uint8).reshape(want.shape + (-1,))
            bad |= (g != w).any(axis=-1)
    elif got.dtype.kind in "biu":
        bad = got != want
    elif got.dtype.kind == "c":
        bad = _float_bad(got.real, want.real, tol) | _float_bad(got.imag, want.imag, tol)
    elif got.dtype.kind == "f":
        bad = _float_bad(got, want, tol)
    else:
        bad = got != want
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ; first at {list(where)}: "
            f"{mine} {got[where]!r}, {against} {want[where]!r}")
