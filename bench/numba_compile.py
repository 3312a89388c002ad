"""numba_compile.py FILE.pyk [--arch sm_75] [--repeat N] [--out DIR]

Compiles every kernel of a .pyk module to PTX with numba-cuda, no GPU needed
(cuda.compile_ptx uses the toolkit's NVVM), and prints the time it took, so
that bench/compile_time.sh can set Numba beside pykc and nvcc.

A .pyk file is Numba source whose kernels carry their types as annotations:
the signature of each kernel is read from them. Timings (ms, one line each):
  import   importing numba and the module (what every fresh process pays)
  first    compiling all kernels the first time (Numba's caches cold)
  compile  the median of --repeat further compilations of all kernels
"""
import argparse
import importlib.machinery
import importlib.util
import os
import statistics
import sys
import time


def load_module(path):
    name = os.path.splitext(os.path.basename(path))[0]
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def kernels(module):
    """(name, python function, signature) of each @cuda.jit kernel."""
    from numba import types
    from numba.cuda.dispatcher import CUDADispatcher

    found = []
    for name, obj in vars(module).items():
        if not isinstance(obj, CUDADispatcher) or obj.targetoptions.get("device"):
            continue
        fn = obj.py_func
        args = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        sig = types.void(*[fn.__annotations__[a] for a in args])
        found.append((name, fn, sig))
    return found


def compile_all(found, cc, out_dir=None):
    from numba import cuda

    for name, fn, sig in found:
        ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
        if out_dir:
            with open(os.path.join(out_dir, name + ".ptx"), "w") as f:
                f.write(ptx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--arch", default="sm_75")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", help="write each kernel's PTX into this directory")
    opts = ap.parse_args()
    arch = opts.arch.removeprefix("sm_").rstrip("a")
    cc = (int(arch[:-1]), int(arch[-1]))

    t0 = time.perf_counter()
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
        np.row_stack = np.vstack
    module = load_module(opts.file)
    found = kernels(module)
    t1 = time.perf_counter()
    compile_all(found, cc, opts.out)
    t2 = time.perf_counter()
    times = []
    for _ in range(opts.repeat):
        start = time.perf_counter()
        compile_all(found, cc)
        times.append(time.perf_counter() - start)
    print(f"kernels {len(found)}")
    print(f"import {1000 * (t1 - t0):.1f}")
    print(f"first {1000 * (t2 - t1):.1f}")
    if times:
        print(f"compile {1000 * statistics.median(times):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
