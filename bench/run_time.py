#!/usr/bin/env python3
"""Run time of each anchor kernel as pykc, nvcc and numba-cuda built it, on
the same inputs and the same launch, on the GPU (SPEC section 6).

    python3 bench/run_time.py DIR [--reps N] [--no-numba]

DIR holds what bench/run-time-bundle.sh wrote on the machine with pykc:
anchors.pyk, pykc's anchors.ptx and anchors.yaml, and nvcc's nvcc.ptx of
bench/anchors.cu. pykc's kernels are launched from the manifest alone
(tests/gpu/foreign_loader.py's packing), nvcc's with the C signatures of
anchors.cu, numba-cuda's through its dispatcher after a warm-up launch (so
that neither Numba's compilation nor the driver's PTX JIT is timed). Each
time is the median of --reps batches of back-to-back launches timed with
CUDA events, divided by the batch (median_ms); where a kernel takes less
time than numba-cuda's dispatcher needs to launch it, the numba column
shows the dispatcher's rate. Each output is checked against a NumPy reference first, so
that a fast wrong kernel does not count. Prints one line a kernel and the
ratios pykc/nvcc and pykc/numba-cuda (below 1: pykc is faster).
"""
import argparse
import importlib.machinery
import importlib.util
import os
import sys

import numpy as np
import cupy as cp
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
from foreign_loader import choose, pack  # noqa: E402

BLOCK, TPB, TILE, RADIUS = 256, 16, 32, 3
BATCH = 10  # launches timed together (median_ms)


def problems():
    """(kernel, grid, block, make) with make() -> (pykc args, nvcc args,
    outputs to check (index into the pykc args), reference outputs)."""
    rng = np.random.default_rng(7)
    n = 1 << 24
    x = cp.asarray(rng.random(n, dtype=np.float32))
    y = cp.asarray(rng.random(n, dtype=np.float32))
    m = 2048
    a = cp.asarray(rng.random((m, m), dtype=np.float32))
    b = cp.asarray(rng.random((m, m), dtype=np.float32))
    ll, f32 = np.int64, np.float32
    blocks = (n + BLOCK - 1) // BLOCK
    mm_grid = ((m + TPB - 1) // TPB, (m + TPB - 1) // TPB)
    ab64 = cp.asnumpy(a).astype(np.float64) @ cp.asnumpy(b).astype(np.float64)

    def vadd():
        out = cp.zeros(n, cp.float32)
        return [x, y, out], [x, y, out, ll(n)], {2: cp.asnumpy(x + y)}

    def saxpy():
        out = cp.zeros(n, cp.float32)
        return [f32(2.5), x, y, out], [f32(2.5), x, y, out, ll(n)], {3: cp.asnumpy(f32(2.5) * x + y)}

    def matmul():
        c = cp.zeros((m, m), cp.float32)
        return [a, b, c], [a, b, c, ll(m), ll(m), ll(m)], {2: ab64}

    def reduce_tree():
        partial = cp.zeros(blocks, cp.float32)
        want = cp.asnumpy(x).astype(np.float64).reshape(blocks, BLOCK).sum(axis=1)
        return [x, partial], [x, partial, ll(n)], {1: want}

    def reduce_atomic():
        total = cp.zeros(1, cp.float32)
        return [x, total], [x, total, ll(n)], {1: np.array([cp.asnumpy(x).astype(np.float64).sum()])}

    def histogram():
        bins = cp.zeros(64, cp.int32)
        # the kernels' own float32 binning: int(x * 64), x in [0, 1)
        want = np.bincount((cp.asnumpy(x) * np.float32(64)).astype(np.int64), minlength=65)[:64]
        return [x, f32(0), f32(1), bins], [x, ll(n), f32(0), f32(1), bins, ll(64)], {3: want}

    def stencil_1d():
        out = cp.zeros(n, cp.float32)
        h = cp.asnumpy(x).astype(np.float64)
        want = np.zeros(n)
        want[RADIUS:n - RADIUS] = np.convolve(h, np.ones(2 * RADIUS + 1), "valid") / (2 * RADIUS + 1)
        return [x, out], [x, out, ll(n)], {1: want}

    def stencil_2d():
        out = cp.zeros((m, m), cp.float32)
        h = cp.asnumpy(a).astype(np.float64)
        want = np.zeros((m, m))
        want[1:-1, 1:-1] = 0.25 * (h[:-2, 1:-1] + h[2:, 1:-1] + h[1:-1, :-2] + h[1:-1, 2:])
        return [a, out], [a, out, ll(m), ll(m)], {1: want}

    def transpose():
        out = cp.zeros((m, m), cp.float32)
        return [a, out], [a, out, ll(m), ll(m)], {1: cp.asnumpy(a).T}

    return [
        ("vadd", (blocks,), (BLOCK,), vadd, 1e-6),
        ("saxpy", (blocks,), (BLOCK,), saxpy, 1e-6),
        ("matmul_naive", mm_grid, (TPB, TPB), matmul, 1e-4),
        ("matmul_tiled", mm_grid, (TPB, TPB), matmul, 1e-4),
        ("reduce_tree", (blocks,), (BLOCK,), reduce_tree, 1e-5),
        ("reduce_atomic", (1024,), (BLOCK,), reduce_atomic, 1e-3),
        ("histogram", (blocks,), (BLOCK,), histogram, 0),
        ("stencil_1d", (blocks,), (BLOCK,), stencil_1d, 1e-5),
        ("stencil_2d", (m // TPB, m // TPB), (TPB, TPB), stencil_2d, 1e-5),
        ("transpose", (m // TILE, m // TILE), (TILE, TILE), transpose, 0),
    ]


def median_ms(launch, reps):
    """The median over reps of the time a launch takes in a batch of
    back-to-back launches. The launch before the start event keeps the
    GPU busy while the host queues the batch: timed one by one, a kernel
    of 25 us also counted the host's packing of its arguments, which
    grows with their number (pykc's arrays pass shapes and strides)."""
    launch()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        launch()
        start.record()
        for _ in range(BATCH):
            launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / BATCH)
    return float(np.median(times))


def check(name, who, args, want, rtol):
    for idx, ref in want.items():
        got = cp.asnumpy(args[idx]).astype(np.float64)
        if not np.allclose(got, ref, rtol=rtol, atol=rtol):
            raise SystemExit(f"{name}: {who}'s output differs from the reference")


def measure(name, who, launch, outputs, want, rtol, reps):
    """Checks one launch on fresh outputs, then times `reps` more."""
    launch()
    cp.cuda.Device().synchronize()
    check(name, who, outputs, want, rtol)
    return median_ms(launch, reps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-numba", action="store_true")
    opts = ap.parse_args()
    manifest = yaml.safe_load(open(os.path.join(opts.dir, "anchors.yaml")))
    pykc_mod = cp.RawModule(path=os.path.join(opts.dir, manifest["targets"][0]["file"]))
    nvcc_mod = cp.RawModule(path=os.path.join(opts.dir, "nvcc.ptx"))
    numba_mod = None
    if not opts.no_numba:
        spec = importlib.util.spec_from_file_location("anchors", os.path.join(opts.dir, "anchors.pyk"),
                                                      loader=importlib.machinery.SourceFileLoader(
                                                          "anchors", os.path.join(opts.dir, "anchors.pyk")))
        numba_mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(numba_mod)
    print(f"{'kernel':<15}{'pykc ms':>10}{'nvcc ms':>10}{'numba ms':>10}{'pykc/nvcc':>11}{'pykc/numba':>12}")
    for name, grid, block, make, rtol in problems():
        pargs, _, want = make()
        k = choose(manifest, name, pargs)
        fn = pykc_mod.get_function(k["entry"])
        packed = tuple(pack(k, pargs))
        t_pykc = measure(name, "pykc", lambda: fn(grid, block, packed), pargs, want, rtol, opts.reps)
        pargs, nargs, want = make()  # nargs holds the same arrays as pargs
        nfn = nvcc_mod.get_function(name)
        t_nvcc = measure(name, "nvcc", lambda: nfn(grid, block, tuple(nargs)), pargs, want, rtol, opts.reps)
        t_numba = float("nan")
        if numba_mod is not None:
            pargs, _, want = make()
            kern = getattr(numba_mod, name)[grid, block]
            kern(*pargs)  # compiles: not timed, not checked
            pargs, _, want = make()
            t_numba = measure(name, "numba-cuda", lambda: kern(*pargs), pargs, want, rtol, opts.reps)
        print(f"{name:<15}{t_pykc:>10.3f}{t_nvcc:>10.3f}{t_numba:>10.3f}{t_pykc / t_nvcc:>11.3f}"
              f"{t_pykc / t_numba:>12.3f}", flush=True)


if __name__ == "__main__":
    main()
