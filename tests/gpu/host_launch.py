"""pykc's host modules (pykc --target host) run through libpykrt's host
device, for the runners' --host mode (check_kernels.py, the conformance
run.py): the same launches as on a GPU, through the pykrt package.

The host device's memory is the process's, so an argument array is passed
where it is, with its strides (a view stays a view), as a device array
would be; the kernel writes it in place.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def use_host_device(library=None):
    """Before pykrt is imported: the host device, and the libpykrt built
    here (build/lib/libpykrt.so.0, or `library`)."""
    os.environ["PYKRT_DEVICE"] = "host"
    lib = library or os.environ.get("PYKRT_LIBRARY") or os.path.join(ROOT, "build", "lib", "libpykrt.so.0")
    os.environ["PYKRT_LIBRARY"] = lib
    sys.path.insert(0, os.path.join(ROOT, "python"))


def refused_by_design(message):
    """Whether pykc's refusal is one that host-refusals.txt lists."""
    with open(os.path.join(HERE, "host-refusals.txt")) as f:
        reasons = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    return any(r in message for r in reasons)


class InPlace:
    """A NumPy array as a device array of the host device: its own memory,
    shape and strides."""

    def __init__(self, a):
        self.array = a
        iface = a.__array_interface__
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": iface["typestr"], "descr": iface["descr"],
                                         "data": (iface["data"][0], False), "strides": a.strides,
                                         "version": 3, "stream": None}


class Bfloat16(InPlace):
    """uint16 bits as bfloat16 elements: 2-byte elements without fields,
    as ml_dtypes.bfloat16's arrays describe themselves."""

    def __init__(self, bits):
        super().__init__(bits)
        self.__cuda_array_interface__.update(typestr="<V2", descr=[("", "<V2")])


def as_argument(a):
    import numpy as np
    return a if isinstance(a, InPlace) else InPlace(a) if isinstance(a, np.ndarray) else a


class Modules:
    """Manifests loaded on the host device, by path."""

    def __init__(self):
        self.loaded = {}

    def kernel(self, manifest, name):
        import pykrt
        if manifest not in self.loaded:
            self.loaded[manifest] = pykrt.load(manifest)
        return self.loaded[manifest][name]

    def launch(self, manifest, name, grid, block, shared, args):
        """Runs kernel `name` and waits for it; arrays are read in place."""
        import pykrt
        k = self.kernel(manifest, name)
        k[tuple(grid), tuple(block), None, shared](*[as_argument(a) for a in args])
        pykrt.context().synchronize()
