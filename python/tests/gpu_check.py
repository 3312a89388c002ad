"""pykrt on a GPU: kernels pykc compiled (no compiler runs here) launched
through the Python package with CuPy, PyTorch, Numba device and NumPy
arrays, each result compared with numba-cuda's run of the same .pyk (with
NumPy's where numba-cuda is missing).

    PYTHONPATH=python PYKRT_LIBRARY=build/runtime-gpu/libpykrt.so.0 \\
        python3 python/tests/gpu_check.py build/runtime-gpu

runtime/check-gpu.sh runs it. Exit status 0 when every check passed.
"""
import importlib.util
import sys

import numpy as np

import pykrt

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

DIR = sys.argv[1] if len(sys.argv) > 1 else "build/runtime-gpu"
failures = []


def check(name, got, want):
    ok = np.array_equal(np.asarray(got), np.asarray(want))
    print("%s: %s" % ("pass" if ok else "FAIL", name))
    if not ok:
        failures.append(name)
        print("    got  %r\n    want %r" % (np.asarray(got)[:8], np.asarray(want)[:8]))


def optional(name):
    try:
        return __import__(name)
    except Exception as e:  # a missing package, or one that cannot see the GPU
        print("skip: %s is not usable here (%s)" % (name, type(e).__name__))
        return None


def numba_module(path):
    """The .pyk file run by numba-cuda, or None without numba-cuda."""
    if optional("numba") is None:
        return None
    name = "pyk_" + path.split("/")[-1][:-4]
    spec = importlib.util.spec_from_loader(name, importlib.machinery.SourceFileLoader(name, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def numba_run(kernel, grid, block, *host_args):
    """Runs a numba-cuda kernel on copies of the NumPy arguments; returns them."""
    from numba import cuda
    dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in host_args]
    kernel[grid, block](*dev)
    cuda.synchronize()
    return [d.copy_to_host() if isinstance(a, np.ndarray) else a for a, d in zip(host_args, dev)]


def vadd_checks(cp, torch, nb):
    mod = pykrt.load(DIR + "/py/vadd.yaml")
    print("vadd.yaml: loaded %s on %s" % (mod.file, pykrt.context().info()["name"]))
    n = 100003
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    want = numba_run(nb.vadd, (n + 255) // 256, 256, x, y, np.zeros(n, np.float32))[2] if nb else x + y
    out = np.zeros(n, np.float32)
    mod.vadd[(n + 255) // 256, 256](x, y, out)
    check("vadd, NumPy arrays", out, want)
    if cp is not None:
        cx, cy, cout = cp.asarray(x), cp.asarray(y), cp.zeros(n, cp.float32)
        mod.vadd[(n + 255) // 256, 256](cx, cy, cout)
        check("vadd, CuPy arrays", cp.asnumpy(cout), want)
        with cp.cuda.Stream(non_blocking=True):
            cx2 = cp.asarray(x) * 1  # made on a non-blocking CuPy stream
        cout2 = cp.zeros(n, cp.float32)
        mod.vadd[(n + 255) // 256, 256](cx2, cy, cout2)
        check("vadd, a CuPy array from a non-blocking stream", cp.asnumpy(cout2), want)
        stream = pykrt.Stream(non_blocking=True)
        cout3 = cp.zeros(n, cp.float32)
        mod.vadd[(n + 255) // 256, 256, stream](cx, cy, cout3)
        stream.synchronize()
        check("vadd, CuPy arrays on a pykrt stream", cp.asnumpy(cout3), want)
        cstream = cp.cuda.Stream(non_blocking=True)
        with cstream:
            cx4, cout4 = cp.asarray(x) * 1, cp.zeros(n, cp.float32)  # queued on CuPy's stream
        mod.vadd[(n + 255) // 256, 256, cstream](cx4, cy, cout4)  # after them, on the same stream
        cstream.synchronize()
        check("vadd on a CuPy stream", cp.asnumpy(cout4), want)
    if torch is not None and torch.cuda.is_available():
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        tout = torch.zeros(n, dtype=torch.float32, device="cuda")
        mod.vadd[(n + 255) // 256, 256](tx, ty, tout)
        check("vadd, PyTorch tensors", tout.cpu().numpy(), want)
        tstream = torch.cuda.Stream()
        tout2 = torch.zeros(n, dtype=torch.float32, device="cuda")
        mod.vadd[(n + 255) // 256, 256, tstream](tx, ty, tout2)
        tstream.synchronize()
        check("vadd on a PyTorch stream", tout2.cpu().numpy(), want)
    if nb is not None:
        from numba import cuda
        dx, dy, dout = cuda.to_device(x), cuda.to_device(y), cuda.device_array(n, np.float32)
        mod.vadd[(n + 255) // 256, 256](dx, dy, dout)
        check("vadd, Numba device arrays", dout.copy_to_host(), want)
    try:
        mod.vadd[1, 32](x.astype(np.float64), y, out)
        check("vadd refuses float64", "no error", "pykrt.Error")
    except pykrt.Error as e:
        check("vadd refuses float64 with the runtime's message", "expected a 1-d float32 array" in str(e), True)


def kinds_checks(cp, nb):
    mod = pykrt.load(DIR + "/kinds.yaml")
    a = np.linspace(0, 1, 1000, dtype=np.float32)
    want = numba_run(nb.scale, 4, 256, a.copy(), np.float32(3))[0] if nb else a * np.float32(3)
    got = a.copy()
    mod.scale[4, 256](got, 3)
    check("scale, the float32[::1] specialisation, NumPy", got, want)
    if cp is not None:
        ca = cp.asarray(a)
        mod.scale[4, 256](ca, 3)
        check("scale, the float32[::1] specialisation, CuPy", cp.asnumpy(ca), want)
    b = np.linspace(0, 1, 2000)
    want = b.copy()
    want[::2] = numba_run(nb.scale, 4, 256, b[::2].copy(), 2.5)[0] if nb else b[::2] * 2.5
    mod.scale[4, 256](b[::2], 2.5)
    check("scale, the float64[:] specialisation, a strided NumPy view", b, want)
    args = (True, -5, -300, 70000, -2**40, 200, 60000, 2**32 - 1, 2**40, 1.5, 2.25, 1 + 2j, 3 - 4j, 0.5)
    out = np.zeros(2)
    mod.scalars[1, 1](out, *args)
    if nb:  # numba typed as the manifest: pykrt converted the plain Python values above
        typed = [t(v) for t, v in zip((np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                       np.uint32, np.uint64, np.float32, np.float64, np.complex64, np.complex128,
                                       np.float16), args)]
        want = numba_run(nb.scalars, 1, 1, np.zeros(2), *typed)[0]
    else:
        want = [sum(args[1:9]), 1.5 + 2.25 + 1 + 20 + 3 - 40 + 0.5]
    check("scalars, every scalar dtype", out, want)
    o = np.zeros(2)
    mod.tuples[1, 1]((7, (1.5, 2.0), 3j), (1, 2, 3), o)
    want = numba_run(nb.tuples, 1, 1, (7, (np.float32(1.5), np.float32(2.0)), np.complex64(3j)), (1, 2, 3),
                     np.zeros(2))[2] if nb else [7 + 3 + 30, 1 - 2 + 300]
    check("tuples, nested and flattened", o, want)


def main():
    cp, torch = optional("cupy"), optional("torch")
    nb_vadd, nb_kinds = numba_module("samples/vadd.pyk"), numba_module("tests/runtime/emitc/kinds.pyk")
    if nb_vadd is None:
        print("note: numba-cuda missing: results compared with NumPy's")
    vadd_checks(cp, torch, nb_vadd)
    kinds_checks(cp, nb_kinds)
    print("gpu_check.py: %s" % ("all passed" if not failures else "%d FAILED" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
