#!/usr/bin/env python3
"""Launches pykc's kernels with a loader that is not libpykrt: CuPy's RawModule.

    python3 foreign_loader.py MANIFEST.yaml

Reads only the manifest (and the PTX it names), picks the entry for the
arguments and packs every argument from the manifest's ptx_params list,
launches each kernel it knows how to feed (vadd: three float32 vectors) and
checks the result against NumPy and, where numba-cuda is installed, against
the same .pyk file run by numba-cuda. Exits non-zero on any mismatch.
`choose` and `pack` are the two steps of any loader (docs/manifest.md).
"""
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

PACK = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
        "f32": np.float32, "f64": np.float64, "b16": np.uint16}


def flatten(t):
    """A tuple's scalars, nested tuples flattened in order."""
    return [x for e in t for x in flatten(e)] if isinstance(t, tuple) else [t]


def c_contiguous(a):
    """Whether array a is C-contiguous (NumPy's rule)."""
    return bool(a.flags.c_contiguous)


def kernels_named(manifest, name):
    """The items of kernel `name` a loader chooses among: one, or one per
    specialisation (--sig), never another's `contiguous` copy."""
    items = [k for k in manifest["kernels"] if k["name"] == name]
    copies = {k["contiguous"] for k in items if k.get("contiguous")}
    return [k for k in items if k["entry"] not in copies]


def with_copy(manifest, kernel, args):
    """kernel, or its copy for contiguous arrays where every argument of a
    parameter that the copy takes C-contiguous is so, as libpykrt picks."""
    copy = next((k for k in manifest["kernels"] if k["entry"] == kernel.get("contiguous")), None)
    if copy is None:
        return kernel
    for p, q, a in zip(kernel["params"], copy["params"], args):
        if p.get("layout") != q.get("layout") and not c_contiguous(a):
            return kernel
    return copy


def choose(manifest, name, args):
    """The item of kernel `name` to launch with args, for a kernel of one
    signature."""
    return with_copy(manifest, kernels_named(manifest, name)[0], args)


def pack(kernel, args):
    """One NumPy scalar per PTX parameter, from the manifest alone."""
    out = []
    for p in kernel["ptx_params"]:
        arg = args[p["param"]]
        part = p["part"]
        if part.startswith("["):  # a tuple's scalar: [j], [j].real, [j].imag
            arg = flatten(arg)[int(part[1:part.index("]")])]
            part = part[part.index("]") + 2:] or "value"
        if part == "data":
            value = arg.data.ptr
        elif part.startswith("shape["):
            value = arg.shape[int(part[6:-1])]
        elif part.startswith("strides["):
            value = arg.strides[int(part[8:-1])]
        elif part == "real":
            value = arg.real
        elif part == "imag":
            value = arg.imag
        else:
            value = arg
        out.append(PACK[p["type"]](value))
    return out


def main():
    import cupy as cp
    import yaml
    manifest_path = sys.argv[1]
    with open(manifest_path) as f:
        m = yaml.safe_load(f)
    base = os.path.dirname(manifest_path)
    target = m["targets"][0]
    module = cp.RawModule(path=os.path.join(base, target["file"]))
    n = 1_000_003
    x = cp.arange(n, dtype=cp.float32)
    y = cp.arange(n, dtype=cp.float32) * 2
    out = cp.zeros(n, dtype=cp.float32)
    k = choose(m, "vadd", [x, y, out])
    fn = module.get_function(k["entry"])
    fn(((n + 255) // 256,), (256,), tuple(pack(k, [x, y, out])))
    cp.cuda.Device().synchronize()
    want = cp.asnumpy(x) + cp.asnumpy(y)
    got = cp.asnumpy(out)
    ok = np.array_equal(got, want)
    print(f"foreign loader: vadd n={n} {'matches NumPy' if ok else 'MISMATCH'}")
    try:
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("vadd_numba", os.path.join(base, m["source"]["path"]))
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("vadd_numba", loader))
        loader.exec_module(mod)
        ref = cp.zeros(n, dtype=cp.float32)
        mod.vadd[(n + 255) // 256, 256](x, y, ref)
        same = np.array_equal(cp.asnumpy(ref), got)
        print(f"numba-cuda: vadd {'identical to pykc' if same else 'DIFFERS from pykc'}")
        ok = ok and same
    except (ImportError, AttributeError) as e:
        print(f"numba-cuda not available: {e}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
