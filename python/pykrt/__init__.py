"""pykrt: launch kernels compiled by pykc from Python, over libpykrt.

    import pykrt
    mod = pykrt.load("vadd.yaml")          # the manifest pykc wrote beside vadd.ptx
    mod.vadd[blocks, threads](x, y, out)   # CuPy, PyTorch, Numba or NumPy arrays

Arrays with __cuda_array_interface__ (CuPy, PyTorch, Numba device arrays)
are passed as they are; NumPy arrays are copied to the device for the
launch and back afterwards when the kernel writes the parameter (the
manifest's access), as Numba does. Scalars and tuples are converted to the
dtypes of the manifest's parameters. A kernel compiled for several --sig
is dispatched by the arguments (pykrt_kernel_get_for_args). Failures of
libpykrt raise pykrt.Error with its message. docs/runtime.md, "From
Python", is the guide.
"""
import ctypes
import numbers
import threading

from . import _args, _lib

__all__ = ["Error", "Context", "Stream", "Module", "Kernel", "load", "context", "device_count", "HOST"]
__version__ = "0.1.0"

_lib_ = _lib.lib


class Error(RuntimeError):
    """A libpykrt failure: str() is pykrt_last_error()'s message, `status`
    the pykrt_status name (e.g. "PYKRT_ERROR_BAD_LAUNCH")."""

    def __init__(self, code):
        self.code = code
        self.status = _lib_.pykrt_status_name(code).decode()
        super().__init__(_lib_.pykrt_last_error().decode(errors="replace"))


def check(code):
    if code != _lib.SUCCESS:
        raise Error(code)


def _quietly(release):
    """A release from __del__: at interpreter exit the library's globals
    may already be gone, and a finalizer must not raise."""
    try:
        release()
    except Exception:
        pass


# The device that is the CPU (PYKRT_DEVICE_HOST): context(pykrt.HOST) runs
# the modules of `pykc --target host` on it, also where no GPU is.
HOST = -2


def device_count():
    """The number of CUDA devices (pykrt.Error without a driver)."""
    n = ctypes.c_int()
    check(_lib_.pykrt_device_count(ctypes.byref(n)))
    return n.value


class Context:
    """The primary context of one device (the one CuPy, PyTorch and Numba
    use, so their device pointers are valid here). Made once per device by
    pykrt.context() and kept for the life of the process."""

    def __init__(self, device):
        self.device = device
        self.handle = ctypes.c_void_p()
        check(_lib_.pykrt_context_create(device, ctypes.byref(self.handle)))

    check = staticmethod(check)

    def synchronize(self):
        check(_lib_.pykrt_context_synchronize(self.handle))

    def alloc(self, nbytes):
        ptr = _lib.devptr()
        check(_lib_.pykrt_mem_alloc(self.handle, nbytes, ctypes.byref(ptr)))
        return ptr.value

    def info(self):
        """The device's name, compute capability and limits (a dict)."""
        d = _lib.DeviceInfo()
        check(_lib_.pykrt_context_device(self.handle, ctypes.byref(d)))
        out = {f: getattr(d, f) for f, _ in _lib.DeviceInfo._fields_}
        out["name"] = d.name.decode(errors="replace")
        for f in ("max_block_dim", "max_grid_dim"):
            out[f] = tuple(out[f])
        return out


_contexts = {}
_contexts_lock = threading.Lock()


def context(device=0):
    """The Context of device `device`, made on first use."""
    with _contexts_lock:
        if device not in _contexts:
            _contexts[device] = Context(device)
        return _contexts[device]


class Stream:
    """A pykrt stream: kernel[grid, block, stream](...) queues on it.
    Stream.wrap(s) takes another library's stream (a CuPy or PyTorch
    stream, a Numba one, or a CUstream as an int) on the same device."""

    def __init__(self, device=0, non_blocking=False, _wrap=None):
        self.context = context(device)
        self.handle = ctypes.c_void_p()
        if _wrap is not None:
            check(_lib_.pykrt_stream_wrap(self.context.handle, ctypes.c_void_p(_wrap), ctypes.byref(self.handle)))
            return
        flags = _lib.STREAM_NON_BLOCKING if non_blocking else 0
        check(_lib_.pykrt_stream_create(self.context.handle, flags, ctypes.byref(self.handle)))

    @classmethod
    def wrap(cls, stream, device=0):
        """A pykrt.Stream for another library's stream, which stays its
        owner's: closing the wrapper leaves it be."""
        return cls(device, _wrap=_custream(stream))

    def synchronize(self):
        check(_lib_.pykrt_stream_synchronize(self.handle))

    @property
    def cuda_stream(self):
        """The CUstream as an int, for libraries that take one."""
        cu = ctypes.c_void_p()
        check(_lib_.pykrt_stream_handle(self.handle, ctypes.byref(cu)))
        return cu.value or 0

    def close(self):
        if self.handle:
            check(_lib_.pykrt_stream_destroy(self.handle))
            self.handle = None

    def __del__(self):
        _quietly(self.close)


def _param(info, kernel, index, member=None):
    return {"name": info.name.decode(), "kind": info.kind, "dtype": _lib.DTYPES[info.dtype], "ndim": info.ndim,
            "layout": chr(info.layout) if info.layout else None, "access": info.access,
            "members": [_member(kernel, index, m) for m in range(info.nmembers)]}


def _member(kernel, index, member):
    info = _lib.ParamInfo()
    check(_lib_.pykrt_kernel_param_member(kernel, index, member, ctypes.byref(info)))
    return _lib.DTYPES[info.dtype]


class _Entry:
    """One manifest entry: a kernel of one signature."""

    def __init__(self, handle):
        self.handle = handle
        info = _lib.KernelInfo()
        check(_lib_.pykrt_kernel_describe(handle, ctypes.byref(info)))
        self.name, self.entry = info.name.decode(), info.entry.decode()
        self.contiguous_copy = info.contiguous_copy
        self.params = []
        for i in range(info.nparams):
            p = _lib.ParamInfo()
            check(_lib_.pykrt_kernel_param(handle, i, ctypes.byref(p)))
            self.params.append(_param(p, handle, i))


class Module:
    """A module loaded from its manifest (pykrt_module_load): its kernels
    are attributes (mod.vadd) and items (mod["vadd"])."""

    def __init__(self, manifest, device=0):
        self.context = context(device)
        self.handle = ctypes.c_void_p()
        check(_lib_.pykrt_module_load(self.context.handle, str(manifest).encode(), ctypes.byref(self.handle)))
        info = _lib.ModuleInfo()
        check(_lib_.pykrt_module_describe(self.handle, ctypes.byref(info)))
        self.arch, self.file = info.arch.decode(), info.file.decode()
        self._kernels = {}
        for i in range(info.nkernels):
            k = ctypes.c_void_p()
            check(_lib_.pykrt_kernel_at(self.handle, i, ctypes.byref(k)))
            entry = _Entry(k)
            if not entry.contiguous_copy:  # launched through its kernel, where the arrays are contiguous
                self._kernels.setdefault(entry.name, []).append(entry)

    @property
    def kernels(self):
        """The kernels' names, in manifest order."""
        return list(self._kernels)

    def __getitem__(self, name):
        if name not in self._kernels:
            raise KeyError("pykrt: the module has no kernel %r (it has %s)" % (name, ", ".join(self._kernels)))
        return Kernel(self, name, self._kernels[name])

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get("_kernels", {}):
            raise AttributeError(name)
        return self[name]

    def close(self):
        if self.handle:
            check(_lib_.pykrt_module_unload(self.handle))
            self.handle = None

    def __del__(self):
        _quietly(self.close)


def load(manifest, device=0):
    """Loads the module a pykc manifest describes, on device `device`."""
    return Module(manifest, device)


def _dim3(value, what):
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(dims) <= 3:
        raise ValueError("pykrt: %s has 1 to 3 dimensions, not %d" % (what, len(dims)))
    for d in dims:
        if not isinstance(d, numbers.Integral) or not 0 <= d < 2**32:
            raise ValueError("pykrt: %s %r: each dimension is an integer in [0, 2**32)" % (what, value))
    dims = dims + (1,) * (3 - len(dims))
    return _lib.Dim3(*dims)


def _custream(stream):
    """The CUstream of another library's stream: an int, CuPy's `ptr`,
    PyTorch's `cuda_stream`, Numba's `handle` (a ctypes value)."""
    if isinstance(stream, numbers.Integral):
        return int(stream)
    for attr in ("cuda_stream", "ptr"):
        value = getattr(stream, attr, None)
        if isinstance(value, numbers.Integral):
            return int(value)
    handle = getattr(stream, "handle", None)
    value = getattr(handle, "value", handle)
    if isinstance(value, numbers.Integral):
        return int(value)
    raise TypeError("pykrt: the stream is a pykrt.Stream, None or 0 (the default stream), a CUstream as an int, "
                    "or another library's stream (CuPy, PyTorch, Numba), not %s" % type(stream).__name__)


class Kernel:
    """A kernel of a module, launched as in Numba:
    kernel[grid, block](*args) or kernel[grid, block, stream, shared_bytes]."""

    def __init__(self, module, name, entries):
        self.module, self.name, self.entries = module, name, entries

    @property
    def signatures(self):
        """Each entry's parameters (name, kind, dtype, ndim, layout, access)."""
        return [e.params for e in self.entries]

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("pykrt: launch as kernel[grid, block] or kernel[grid, block, stream, shared_bytes]")
        grid, block = config[0], config[1]
        stream = config[2] if len(config) > 2 else None
        shared = config[3] if len(config) > 3 else 0
        if isinstance(stream, numbers.Integral) and stream == 0:
            stream = None
        if stream is not None and not isinstance(stream, Stream):
            stream = Stream.wrap(stream, self.module.context.device)
        return _Launch(self, _dim3(grid, "grid"), _dim3(block, "block"), stream, shared)

    def __call__(self, *args):
        raise TypeError("pykrt: give the launch shape first: %s[grid, block](...)" % self.name)


from ._launch import _Launch  # noqa: E402  (needs the classes above)
