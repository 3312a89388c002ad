"""The benchmark problems: for each kernel of bench/suite, its inputs, its
launch, the arguments of its three forms (the .pyk's parameters, which
pykc's manifest packs and numba-cuda's dispatcher takes, and the .cu's C
parameters), its expected outputs and the work it does.

bench/gpu_bench.py runs them. Everything here is NumPy on the host: the
runner uploads the inputs, allocates fresh outputs for each implementation,
launches, and compares what comes back with `expect` before timing.

Two scales: "full" (the GPU run: every kernel takes well over 100 us on an
H100, so that numba-cuda's dispatcher does not set the pace; memory-bound
kernels move about 1 GB a launch, ~350 us at 3 TB/s) and "tiny" (the
self-test: a few blocks, for numba-cuda's simulator).
"""
import math

import numpy as np

BLOCK = 256  # threads a block of the 1-D kernels (reduce.pyk, scan.pyk, histogram.pyk's NBINS)
TPB = 16     # matmul.pyk's tile side; 2-D kernels run TPB x TPB blocks
TILE = 32    # transpose.pyk's tile side
GRID_STRIDE_BLOCKS = 1024  # blocks of the grid-stride kernels at full scale (8 a multiprocessor on an H100)


class As:
    """An array argument that numba-cuda takes as a view of another dtype
    (the xoroshiro128p state records, uploaded as uint64 pairs)."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype


class Expect:
    """What an output must hold: `ref` (NumPy's result) at `index` (all of
    the output when None), within rtol/atol, or `exact`ly."""

    def __init__(self, ref, index=None, rtol=0.0, atol=0.0, exact=False):
        self.ref, self.index, self.rtol, self.atol, self.exact = ref, index, rtol, atol, exact
        self._on = {}

    def _upload(self, xp):
        """The reference and index as arrays of xp (NumPy, or CuPy: outputs
        of a billion bytes compare in milliseconds on the GPU, not seconds
        on its host)."""
        if xp not in self._on:
            self._on[xp] = (xp.asarray(self.ref), None if self.index is None else xp.asarray(self.index))
        return self._on[xp]

    def release(self):
        self._on.clear()

    def compare(self, got, xp=np):
        """None when `got` (the whole output, an array of xp) matches, else
        a one-line account of the worst element. A slice at a time, so
        that the temporaries stay small."""
        r, idx = self._upload(xp)
        g = got if idx is None else got[idx]
        if g.shape != r.shape:
            return f"shape {g.shape}, expected {r.shape}"
        g, r = g.reshape(-1), r.reshape(-1)
        nbad, worst = 0, None  # worst: (excess, index)
        step = 1 << 24
        for lo in range(0, g.size, step):
            gs, rs = g[lo:lo + step], r[lo:lo + step]
            if self.exact:
                excess = (gs != rs).astype(xp.float64)
            else:
                gs, rs = gs.astype(xp.float64), rs.astype(xp.float64)
                excess = xp.abs(gs - rs) - (self.atol + self.rtol * xp.abs(rs))
                excess = xp.where(xp.isnan(excess), xp.inf, excess)
            k = int(xp.count_nonzero(excess > 0))
            if k:
                nbad += k
                j = int(xp.argmax(excess))
                e = float(excess[j])
                if worst is None or e > worst[0]:
                    worst = (e, lo + j)
        if not nbad:
            return None
        j = worst[1]
        tol = "exact" if self.exact else f"rtol={self.rtol:g} atol={self.atol:g}"
        return f"{nbad} of {g.size} elements off ({tol}); worst at {j}: {g[j].item()!r}, expected {r[j].item()!r}"

    def fill(self, out):
        """Writes the expected values into `out` (the self-test's stand-in
        for a kernel)."""
        if self.index is None:
            out[...] = np.asarray(self.ref).astype(out.dtype).reshape(out.shape)
        else:
            out[self.index] = np.asarray(self.ref).astype(out.dtype)


class Problem:
    """One kernel, ready to launch.

    inputs   name -> host array, uploaded once, shared by every implementation
    outputs  name -> (shape, dtype) zeroed, or a host array copied, afresh
             for each implementation
    pyk      the .pyk kernel's arguments: names of inputs/outputs and NumPy scalars
    cu       the .cu kernel's arguments, the same way
    numba    numba-cuda's arguments when they differ from pyk (As views)
    expect   output name -> Expect
    reset    outputs that accumulate (atomics): zeroed before each timed batch
    work     (amount, unit): amount / 1e9 / seconds gives the rate in unit
    sim      whether numba-cuda's simulator can run the kernel (it has no
             warp shuffles)
    bound    "bandwidth" where the work is bytes moved (GB/s): memory
             traffic sets the pace; "compute" where it is operations
    """

    def __init__(self, module, kernel, grid, block, inputs, outputs, pyk, cu, expect, work, numba=None,
                 reset=(), sim=True, note=""):
        self.module, self.kernel, self.grid, self.block = module, kernel, tuple(grid), tuple(block)
        self.inputs, self.outputs, self.pyk, self.cu, self.expect = inputs, outputs, pyk, cu, expect
        self.work, self.numba, self.reset, self.sim, self.note = work, numba, tuple(reset), sim, note

    @property
    def name(self):
        return self.kernel

    @property
    def bound(self):
        return "bandwidth" if self.work[1] == "GB/s" else "compute"


class Context:
    """What the problems are made with: the scale, a seeded generator and a
    cache of host data shared between kernels of a module."""

    def __init__(self, scale="full", seed=2024):
        assert scale in ("full", "tiny")
        self.scale = scale
        self.rng = np.random.default_rng(seed)
        self._cache = {}

    def pick(self, full, tiny):
        return full if self.scale == "full" else tiny

    def cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def uniform(self, shape, dtype=np.float32, lo=0.0, hi=1.0):
        a = self.rng.random(shape, dtype=np.float32 if dtype == np.float16 else dtype)
        if lo != 0.0 or hi != 1.0:
            a = a * (hi - lo) + lo
        return a.astype(dtype, copy=False)

    def drop(self):
        self._cache.clear()


def blocks(n, per):
    return (n + per - 1) // per


ll, f32, f64 = np.int64, np.float32, np.float64


def gbs(nbytes):
    return (nbytes, "GB/s")


# ---------------------------------------------------------------------------
# The problems, in the order of the report.


def vadd(ctx):
    n = ctx.pick(1 << 26, 3000)
    x, y = ctx.uniform(n), ctx.uniform(n)
    return Problem("vector_add", "vadd", (blocks(n, BLOCK),), (BLOCK,), dict(x=x, y=y),
                   dict(out=((n,), np.float32)), ["x", "y", "out"], ["x", "y", "out", ll(n)],
                   dict(out=Expect(x + y, exact=True)), gbs(3 * 4 * n))


def saxpy(ctx):
    n = ctx.pick(1 << 26, 5000)
    a = f32(2.5)
    x, y = ctx.uniform(n), ctx.uniform(n)
    want = (a * x).astype(np.float32).astype(np.float64) + y  # a*x+y, fused or not: within 1 ulp
    g = ctx.pick(GRID_STRIDE_BLOCKS, 4)
    return Problem("saxpy", "saxpy", (g,), (BLOCK,), dict(x=x, y=y), dict(out=((n,), np.float32)),
                   [a, "x", "y", "out"], [a, "x", "y", "out", ll(n)],
                   dict(out=Expect(want, rtol=2e-7, atol=1e-7)), gbs(3 * 4 * n))


def _matmul(ctx, kernel):
    m = ctx.pick(2048, 48)
    A = ctx.cached(("mm", "A"), lambda: ctx.uniform((m, m)))
    B = ctx.cached(("mm", "B"), lambda: ctx.uniform((m, m)))
    C = ctx.cached(("mm", "C"), lambda: A.astype(np.float64) @ B.astype(np.float64))
    g = blocks(m, TPB)
    # the naive kernel accumulates in float64 (products rounded to float32);
    # the tiled one in float32
    tol = 1e-5 if kernel == "matmul_naive" else 1e-4
    return Problem("matmul", kernel, (g, g), (TPB, TPB), dict(A=A, B=B), dict(C=((m, m), np.float32)),
                   ["A", "B", "C"], ["A", "B", "C", ll(m), ll(m), ll(m)],
                   dict(C=Expect(C, rtol=tol, atol=tol)), (2.0 * m ** 3, "GFLOP/s"))


def matmul_naive(ctx):
    return _matmul(ctx, "matmul_naive")


def matmul_tiled(ctx):
    return _matmul(ctx, "matmul_tiled")


def _reduce_input(ctx):
    g = ctx.pick(GRID_STRIDE_BLOCKS, 8)
    n = ctx.pick(1 << 28, g * BLOCK * 8)  # a multiple of the grid's threads
    a = ctx.cached(("reduce", "a"), lambda: ctx.uniform(n))
    return g, n, a


def _block_sums(ctx, a, g):
    """Each block's sum of its grid-stride slice, in float64: element i
    belongs to block (i mod (g * BLOCK)) // BLOCK."""
    return ctx.cached(("reduce", "blocks"), lambda: a.reshape(-1, g, BLOCK).sum(axis=(0, 2), dtype=np.float64))


def reduce_atomic(ctx):
    g, n, a = _reduce_input(ctx)
    total = _block_sums(ctx, a, g).sum()
    return Problem("reduce", "reduce_atomic", (g,), (BLOCK,), dict(a=a), dict(total=((1,), np.float32)),
                   ["a", "total"], ["a", "total", ll(n)],
                   dict(total=Expect(np.array([total]), rtol=1e-3)), gbs(4 * n), reset=["total"])


def reduce_tree_f32(ctx):
    g, n, a = _reduce_input(ctx)
    return Problem("reduce", "reduce_tree_f32", (g,), (BLOCK,), dict(a=a), dict(partial=((g,), np.float32)),
                   ["a", "partial"], ["a", "partial", ll(n)],
                   dict(partial=Expect(_block_sums(ctx, a, g), rtol=1e-4)), gbs(4 * n))


def reduce_tree_f64(ctx):
    g, n, a = _reduce_input(ctx)
    return Problem("reduce", "reduce_tree_f64", (g,), (BLOCK,), dict(a=a), dict(partial=((g,), np.float64)),
                   ["a", "partial"], ["a", "partial", ll(n)],
                   dict(partial=Expect(_block_sums(ctx, a, g), rtol=1e-12)), gbs(4 * n),
                   sim=False)  # the simulator adds in NumPy's float32 + float, not Numba's float64


def reduce_warp(ctx):
    g, n, a = _reduce_input(ctx)
    total = _block_sums(ctx, a, g).sum()
    return Problem("reduce", "reduce_warp", (g,), (BLOCK,), dict(a=a), dict(total=((1,), np.float32)),
                   ["a", "total"], ["a", "total", ll(n)],
                   dict(total=Expect(np.array([total]), rtol=1e-3)), gbs(4 * n), reset=["total"], sim=False)


def histogram(ctx):
    n = ctx.pick(1 << 29, 10000)
    g = ctx.pick(GRID_STRIDE_BLOCKS, 4)
    data = np.frombuffer(ctx.rng.bytes(n), dtype=np.uint8)
    want = sum(np.bincount(data[i:i + (1 << 24)], minlength=256) for i in range(0, n, 1 << 24))
    return Problem("histogram", "histogram", (g,), (BLOCK,), dict(data=data), dict(bins=((256,), np.int32)),
                   ["data", "bins"], ["data", "bins", ll(n)], dict(bins=Expect(want, exact=True)), gbs(n),
                   reset=["bins"])


def _stencil(ctx, kernel):
    rows, cols = ctx.pick((16384, 8192), (37, 53))
    u = ctx.cached(("stencil", "u"), lambda: ctx.uniform((rows, cols)))

    def ref():
        s = (u[1:-1, 1:-1] + u[:-2, 1:-1]) + u[2:, 1:-1]
        s = (s + u[1:-1, :-2]) + u[1:-1, 2:]  # float32 sums in the kernel's order
        want = np.zeros((rows, cols), np.float32)
        want[1:-1, 1:-1] = 0.2 * s.astype(np.float64)
        return want

    want = ctx.cached(("stencil", "want"), ref)
    if kernel == "stencil_ij":  # x along the rows
        grid = (blocks(rows, TPB), blocks(cols, TPB))
    else:
        grid = (blocks(cols, TPB), blocks(rows, TPB))
    return Problem("stencil", kernel, grid, (TPB, TPB), dict(u=u), dict(out=((rows, cols), np.float32)),
                   ["u", "out"], ["u", "out", ll(rows), ll(cols)],
                   dict(out=Expect(want, rtol=1e-6, atol=1e-7)), gbs(2 * 4 * rows * cols))


def stencil_ij(ctx):
    return _stencil(ctx, "stencil_ij")


def stencil_ji(ctx):
    return _stencil(ctx, "stencil_ji")


def transpose(ctx):
    rows, cols = ctx.pick((16384, 8192), (70, 45))
    a = ctx.uniform((rows, cols))
    return Problem("transpose", "transpose", (blocks(cols, TILE), blocks(rows, TILE)), (TILE, TILE), dict(a=a),
                   dict(out=((cols, rows), np.float32)), ["a", "out"], ["a", "out", ll(rows), ll(cols)],
                   dict(out=Expect(a.T, exact=True)), gbs(2 * 4 * rows * cols))


def scan_block(ctx):
    n = ctx.pick(1 << 27, 5 * BLOCK + 17)
    g = blocks(n, BLOCK)
    a = ctx.uniform(n)
    padded = np.zeros(g * BLOCK, np.float64)
    padded[:n] = a
    scans = np.cumsum(padded.reshape(g, BLOCK), axis=1)
    return Problem("scan", "scan_block", (g,), (BLOCK,), dict(a=a),
                   dict(out=((n,), np.float32), sums=((g,), np.float32)), ["a", "out", "sums"],
                   ["a", "out", "sums", ll(n)],
                   dict(out=Expect(scans.ravel()[:n], rtol=1e-5, atol=1e-4),
                        sums=Expect(scans[:, -1], rtol=1e-5, atol=1e-4)), gbs(2 * 4 * n))


def nbody_step(ctx):
    n = ctx.pick(32768, 300)
    dt, eps2 = f32(0.01), f32(0.01)
    pos = np.empty((n, 4), np.float32)
    pos[:, :3] = ctx.uniform((n, 3), lo=-1.0, hi=1.0)
    pos[:, 3] = ctx.uniform(n, lo=0.5, hi=1.5) / n
    vel = ctx.uniform((n, 3), lo=-0.1, hi=0.1)
    # the reference for a sample of bodies (all pairs of every body would
    # take NumPy minutes): float32 differences and squared distance, the
    # rest in float64, as the kernel computes them
    rows = np.unique(np.concatenate([[0, n - 1], ctx.rng.choice(n, size=min(n, 256), replace=False)]))
    d = pos[None, :, :3] - pos[rows, None, :3]  # float32
    d2 = (d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]) + d[..., 2] * d[..., 2] + eps2
    inv = 1.0 / np.sqrt(d2).astype(np.float64)
    s = pos[None, :, 3].astype(np.float64) * inv * inv * inv
    acc = (s[..., None] * d.astype(np.float64)).sum(axis=1)
    v = vel[rows].astype(np.float64) + acc * np.float64(dt)
    p = pos[rows].astype(np.float64)
    p[:, :3] = pos[rows, :3].astype(np.float64) + v * np.float64(dt)
    # the work: 20 floating-point operations an interaction, the usual count
    return Problem("nbody", "nbody_step", (blocks(n, BLOCK),), (BLOCK,), dict(pos=pos, vel=vel),
                   dict(new_pos=((n, 4), np.float32), new_vel=((n, 3), np.float32)),
                   ["pos", "vel", "new_pos", "new_vel", dt, eps2], ["pos", "vel", "new_pos", "new_vel", dt, eps2, ll(n)],
                   dict(new_pos=Expect(p, index=rows, rtol=1e-5, atol=1e-6),
                        new_vel=Expect(v, index=rows, rtol=1e-4, atol=1e-6)),
                   (20.0 * n * n, "GFLOP/s"), note="20 flops an interaction")


def black_scholes(ctx):
    n = ctx.pick(1 << 25, 1000)
    r, v = f64(0.02), f64(0.30)
    S = ctx.uniform(n, np.float64, 5.0, 30.0)
    K = ctx.uniform(n, np.float64, 1.0, 100.0)
    T = ctx.uniform(n, np.float64, 0.25, 10.0)
    idx = np.unique(np.concatenate([[0, n - 1], ctx.rng.choice(n, size=min(n, 4096), replace=False)]))
    erf = np.frompyfunc(math.erf, 1, 1)

    def cnd(d):
        return 0.5 * (1.0 + erf(d * 0.7071067811865476).astype(np.float64))

    s, k, t = S[idx], K[idx], T[idx]
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    disc = np.exp(-r * t)
    call = s * cnd(d1) - k * disc * cnd(d2)
    put = k * disc * cnd(-d2) - s * cnd(-d1)
    return Problem("black_scholes", "black_scholes", (blocks(n, BLOCK),), (BLOCK,), dict(S=S, K=K, T=T),
                   dict(call=((n,), np.float64), put=((n,), np.float64)),
                   ["call", "put", "S", "K", "T", r, v], ["call", "put", "S", "K", "T", r, v, ll(n)],
                   dict(call=Expect(call, index=idx, rtol=1e-9, atol=1e-9),
                        put=Expect(put, index=idx, rtol=1e-9, atol=1e-9)), gbs(5 * 8 * n))


def _xoroshiro_states(n, seed):
    """Numba's own CPU initialisation (what create_xoroshiro128p_states
    runs before copying to the device), as uint64 pairs (s0, s1)."""
    from numba.cuda.random import init_xoroshiro128p_states_cpu, xoroshiro128p_dtype
    states = np.empty(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(states, seed, 0)
    return states.view(np.uint64).copy()


def _pi_reference(states, rows, iterations):
    """numba.cuda.random's xoroshiro128+ and uint64 -> float32 conversion,
    vectorised over the sampled threads."""
    s0 = states[2 * rows].copy()
    s1 = states[2 * rows + 1].copy()
    inside = np.zeros(rows.size, np.int64)

    def rotl(x, k):
        return (x << np.uint64(k)) | (x >> np.uint64(64 - k))

    def uniform():
        nonlocal s0, s1
        result = s0 + s1
        t = s1 ^ s0
        s0 = rotl(s0, 55) ^ t ^ (t << np.uint64(14))
        s1 = rotl(t, 36)
        return ((result >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)).astype(np.float32)

    with np.errstate(over="ignore"):
        for _ in range(iterations):
            x = uniform()
            y = uniform()
            inside += (x * x + y * y) <= 1.0
    return 4.0 * inside / iterations


def monte_carlo_pi(ctx):
    from numba.cuda.random import xoroshiro128p_dtype
    n = ctx.pick(1 << 20, BLOCK)
    iterations = ctx.pick(256, 8)
    states = _xoroshiro_states(n, 1234)
    rows = np.unique(np.concatenate([[0, n - 1], ctx.rng.choice(n, size=min(n, 2048), replace=False)]))
    want = _pi_reference(states, rows, iterations)
    # a fused x*x + y*y may decide a point on the circle the other way:
    # allow two such points a thread
    tol = 2 * 4.0 / iterations
    return Problem("monte_carlo_pi", "monte_carlo_pi", (blocks(n, BLOCK),), (BLOCK,), {},
                   dict(states=states, out=((n,), np.float32)), ["states", ll(iterations), "out"],
                   ["states", ll(iterations), "out", ll(n)], dict(out=Expect(want, index=rows, atol=tol)),
                   (2.0 * n * iterations, "Gdraw/s"), numba=[As("states", xoroshiro128p_dtype), ll(iterations), "out"],
                   note="states advance at every launch")


def axpy_f16(ctx):
    n = ctx.pick(1 << 27, 3000)
    a = np.float16(1.5)
    x, y = ctx.uniform(n, np.float16), ctx.uniform(n, np.float16)
    # float16 products and sums, each rounded to float16 (the product is
    # exact in float32; NumPy's own float16 arithmetic takes seconds here)
    ax = (np.float32(a) * x.astype(np.float32)).astype(np.float16)
    want = (ax.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
    return Problem("half", "axpy_f16", (blocks(n, BLOCK),), (BLOCK,), dict(x=x, y=y),
                   dict(out=((n,), np.float16)), [a, "x", "y", "out"], [a.view(np.uint16), "x", "y", "out", ll(n)],
                   dict(out=Expect(want, rtol=1e-3, atol=1e-3)), gbs(3 * 2 * n))


PROBLEMS = [vadd, saxpy, matmul_naive, matmul_tiled, reduce_atomic, reduce_tree_f32, reduce_tree_f64, reduce_warp,
            histogram, stencil_ij, stencil_ji, transpose, scan_block, nbody_step, black_scholes, monte_carlo_pi,
            axpy_f16]

MODULES = ["vector_add", "saxpy", "matmul", "reduce", "histogram", "stencil", "transpose", "scan", "nbody",
           "black_scholes", "monte_carlo_pi", "half"]
