#!/usr/bin/env python3
"""Checked kernels on the host target: tests/runtime/fixtures/checks.pyk
(boundscheck=True, --checks=div0) compiled with pykc --target host and run
on libpykrt's host device, as gpu_check.c runs it on a GPU: an index out
of bounds and a division by zero are each reported as a diagnostic with
the kernel's line and column, the thread and its values, and the
elements before the failing one are written.

    python3 tests/gpu/host_checks.py PYKC OUTDIR

Prints one line a check and `N passed, N failed`.
"""
import os
import subprocess
import sys

import host_launch

host_launch.use_host_device()

import numpy as np  # noqa: E402

ROOT = host_launch.ROOT


def main():
    pykc, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    src = os.path.join(ROOT, "tests", "runtime", "fixtures", "checks.pyk")
    subprocess.run([pykc, "--target", "host", "--checks=div0", src, "-o", os.path.join(out, "checks.so")], check=True)
    import pykrt
    mod = pykrt.load(os.path.join(out, "checks.yaml"))
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f": {detail}" if not ok else ""))

    a = np.arange(64, dtype=np.int64) * 3
    out_a = np.zeros(64, np.int64)
    try:
        mod.scaled[1, 65](host_launch.InPlace(a), host_launch.InPlace(out_a), 3)
        check("index out of bounds reported", False, "no error")
    except pykrt.Error as e:
        want = "checks.pyk:10:14: error: index 64 out of bounds for axis 0 with size 64"
        check("index out of bounds reported", want in str(e), str(e))
        check("the elements before it written", (out_a == np.arange(64)).all(), str(out_a[:8]))
    try:
        mod.scaled[1, 8](host_launch.InPlace(a), host_launch.InPlace(out_a), 0)
        check("division by zero reported", False, "no error")
    except pykrt.Error as e:
        check("division by zero reported", "checks.pyk:10:14: error: integer division or modulo by zero (thread "
              in str(e), str(e))
    mod.scaled[1, 64](host_launch.InPlace(a), host_launch.InPlace(out_a), 3)
    check("a launch that passes its checks", (out_a == np.arange(64)).all())
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
