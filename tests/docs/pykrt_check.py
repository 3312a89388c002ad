"""pykrt_check.py MANIFEST [EXAMPLE]: the pykrt package as docs/runtime.md
installs it, launching samples/vadd.pyk's vadd (MANIFEST, compiled for the
host target) on libpykrt's host device.

Checks that pykrt comes from the virtual environment's site-packages with
the libpykrt.so.0 bundled beside it (not from the source tree or
$PYKRT_LIBRARY), that vadd adds arrays passed through
__array_interface__ (no NumPy needed), chosen by $PYKRT_DEVICE=host and
by device=pykrt.HOST, and, where NumPy imports, that EXAMPLE (the page's
own Python example) runs and leaves out == x + x. Exit status 0 when all
hold.
"""
import ctypes
import os
import subprocess
import sys

N = 1000


class Floats:
    """A float32 vector through __array_interface__, as NumPy shows one."""

    def __init__(self, values):
        self.buf = (ctypes.c_float * len(values))(*values)
        self.__array_interface__ = {"shape": (len(values),), "typestr": "<f4", "version": 3,
                                    "data": (ctypes.addressof(self.buf), False)}


def fail(msg):
    print("pykrt_check: " + msg)
    sys.exit(1)


def installed():
    """pykrt and its library from the environment the page made."""
    import pykrt
    import pykrt._lib
    here = os.path.dirname(os.path.abspath(pykrt.__file__))
    if sys.prefix == sys.base_prefix:
        fail("python3 is not a virtual environment's (%s): the page's venv is not active" % sys.executable)
    if not here.startswith(os.path.realpath(sys.prefix) + os.sep) and not here.startswith(sys.prefix + os.sep):
        fail("pykrt comes from %s, not from the environment %s" % (here, sys.prefix))
    lib = os.path.abspath(pykrt._lib.lib._name)
    if os.path.dirname(lib) != here:
        fail("libpykrt comes from %s, not from beside the package (%s)" % (lib, here))
    return pykrt


def launch(pykrt, manifest, device):
    mod = pykrt.load(manifest) if device is None else pykrt.load(manifest, device=device)
    x, y, out = Floats(range(N)), Floats([2.0 * i for i in range(N)]), Floats([0.0] * N)
    mod.vadd[(N + 127) // 128, 128](x, y, out)
    bad = [i for i in range(N) if out.buf[i] != 3.0 * i]
    if bad:
        fail("vadd: out[%d] = %g, expected %g" % (bad[0], out.buf[bad[0]], 3.0 * bad[0]))


def example(path):
    try:
        import numpy as np
    except ImportError:
        return "the page's example not run (no NumPy)"
    scope = {}
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), path, "exec"), scope)
    if not np.array_equal(scope["out"], scope["x"] + scope["x"]):
        fail("the page's example: out is not x + x")
    return "the page's example gave x + x"


def main():
    manifest = sys.argv[1]
    pykrt = installed()
    if sys.argv[2:3] == ["--device-host"]:
        launch(pykrt, manifest, pykrt.HOST)
        return
    if os.environ.get("PYKRT_DEVICE") != "host":
        fail("run with PYKRT_DEVICE=host")
    launch(pykrt, manifest, None)
    said = example(sys.argv[2]) if len(sys.argv) > 2 else ""
    env = {k: v for k, v in os.environ.items() if k != "PYKRT_DEVICE"}
    r = subprocess.run([sys.executable, __file__, manifest, "--device-host"], env=env, check=False)
    if r.returncode != 0:
        fail("pykrt.load(..., device=pykrt.HOST) without PYKRT_DEVICE failed")
    print("pykrt_check: vadd on the host device through %s (PYKRT_DEVICE=host and device=pykrt.HOST); %s"
          % (os.path.dirname(pykrt.__file__), said))


if __name__ == "__main__":
    main()
