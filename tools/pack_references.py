#!/usr/bin/env python3
"""Packs the conformance cases' GPU outputs into one file:

    python3 tools/pack_references.py [--update] DIR [OUT]

DIR is what `tests/conformance/run.py BUNDLE --save-references DIR` wrote on
the GPU (one NAME.npz a case: numba-cuda's outputs, by argument index); OUT
(default tests/conformance/references.npz) holds them all, keyed
"CASE NAME/INDEX", compressed, in the order of the cases' names, for
`run.py --host`. An output that is its input, bit for bit (the kernel did
not write it), is kept as an empty "CASE NAME/INDEX/same": run.py makes the
input again from the case's seed. With --update, the cases that DIR lacks
keep what OUT has (run.py -k CASE --save-references DIR saves some).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "bench"))


def same_bytes(a, b):
    return isinstance(a, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes(order="A") == b.tobytes(order="A")


def kept(out, name):
    """OUT's arrays of case `name`."""
    with np.load(out) as z:
        return {k: z[k] for k in z.files if k.removesuffix("/same").rpartition("/")[0] == name}


def main():
    args = sys.argv[1:]
    update = args[:1] == ["--update"]
    args = args[1:] if update else args
    if len(args) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    src = args[0]
    out = args[1] if len(args) > 1 else os.path.join(ROOT, "tests", "conformance", "references.npz")
    import harness
    import run
    arrays, missing = {}, []
    for c in sorted(harness.load_cases(), key=lambda c: c.name):
        path = os.path.join(src, run.reference_file(c))
        if not os.path.exists(path):
            if update and os.path.exists(out):
                arrays.update(kept(out, c.name))
            missing.append(c.name)
            continue
        inputs = harness.build_args(c.args, run.case_rng(c))
        with np.load(path) as z:
            for i in sorted(z.files, key=int):
                if same_bytes(run.host_base(inputs[int(i)]), z[i]):
                    arrays[f"{c.name}/{i}/same"] = np.zeros(0, np.uint8)
                else:
                    arrays[f"{c.name}/{i}"] = z[i]
    np.savez_compressed(out, **arrays)
    print(f"pack_references.py: {len(arrays)} arrays of {len({k.removesuffix('/same').rpartition('/')[0] for k in arrays})} cases "
          f"into {out} ({os.path.getsize(out)} bytes); {len(missing)} cases without outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
