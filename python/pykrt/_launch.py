"""One launch: the arguments staged and converted, the entry chosen, the
launch, and NumPy arrays copied back."""
import ctypes
import numbers
import sys

from . import Error, _args, _lib, check

_lib_ = _lib.lib
# The producer streams __cuda_array_interface__ names that the default
# stream needs no wait for: none given, and the legacy default stream.
_ORDERED = (None, 1)


def _natural_dtype(value):
    """The dtype Numba gives a Python scalar, for an argument no scalar
    parameter receives (the runtime then says what the kernel takes)."""
    for kind, dtype in ((bool, "bool"), (numbers.Integral, "int64"), (numbers.Real, "float64"),
                        (numbers.Complex, "complex128")):
        if isinstance(value, kind):
            return dtype
    raise TypeError("pykrt: cannot pass a %s to a kernel (arrays need __cuda_array_interface__ or "
                    "__array_interface__)" % type(value).__name__)


def _numpy_scalar(value):
    """NumPy's scalars (np.float32(1)) have __array_interface__ too."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.generic)


class _Packed:
    """The pykrt_arg array of a launch and the tuple members it points to."""

    def __init__(self, args, members):
        self.args, self.members = args, members


class _Launch:
    def __init__(self, kernel, grid, block, stream, shared):
        self.kernel = kernel
        self.config = _lib.LaunchConfig(grid=grid, block=block, shared_bytes=shared,
                                        stream=stream.handle if stream else None)
        self.stream = stream

    def __call__(self, *args):
        ctx = self.kernel.module.context
        host = []
        try:
            arrays = self._arrays(ctx, args, host)
            entry, packed = self._choose(args, arrays)
            self._check_writable(entry, host)
            check(_lib_.pykrt_launch(entry.handle, ctypes.byref(self.config), packed.args, len(args)))
            if host:
                (self.stream or ctx).synchronize()
                for i, staged in host:
                    if i < len(entry.params) and entry.params[i]["access"] & _lib.ACCESS_WRITE:
                        staged.copy_back()
        finally:
            for _, staged in host:
                staged.free()

    def _arrays(self, ctx, args, host):
        """The descriptors of the array arguments by position; NumPy arrays
        are staged (and listed in `host`, to be freed by the caller)."""
        arrays, wait = {}, False
        for i, a in enumerate(args):
            if hasattr(a, "__cuda_array_interface__"):
                iface = a.__cuda_array_interface__
                if iface.get("mask") is not None:
                    raise TypeError("pykrt: argument %d: masked arrays are not supported" % i)
                arrays[i] = _args.describe(iface, iface["data"][0] or 0)
                wait = wait or self.stream is not None or iface.get("stream") not in _ORDERED
            elif hasattr(a, "__array_interface__") and not _numpy_scalar(a):
                host.append((i, _args.HostArray(ctx, a)))
                arrays[i] = host[-1][1].desc
        if wait:
            # The producer's stream is not ordered before this launch: wait
            # for all work of the (shared, primary) context.
            ctx.synchronize()
        return arrays

    def _choose(self, args, arrays):
        """The entry to launch and its packed arguments: the one entry, or
        among several (--sig) the one pykrt_kernel_get_for_args picks for
        the arguments converted to each entry's scalar dtypes in turn."""
        entries = self.kernel.entries
        if len(entries) == 1:
            return entries[0], self._pack(entries[0], args, arrays)
        failure = None
        for entry in entries:
            try:
                packed = self._pack(entry, args, arrays)
            except (TypeError, OverflowError) as e:
                failure = failure or e
                continue
            found = ctypes.c_void_p()
            code = _lib_.pykrt_kernel_get_for_args(self.kernel.module.handle, self.kernel.name.encode(), packed.args,
                                                   len(args), ctypes.byref(found))
            if code == _lib.SUCCESS:
                chosen = next(e for e in entries if e.handle.value == found.value)
                return chosen, self._pack(chosen, args, arrays)
            failure = Error(code)
        raise failure

    def _pack(self, entry, args, arrays):
        packed = (_lib.Arg * max(len(args), 1))()
        packed_members = []
        for i, a in enumerate(args):
            param = entry.params[i] if i < len(entry.params) else None
            what = "%s(%s)" % (entry.name, param["name"]) if param else "%s argument %d" % (entry.name, i)
            if i in arrays:
                packed[i] = _lib.Arg(kind=_lib.KIND_ARRAY, dtype=arrays[i].dtype, array=ctypes.pointer(arrays[i]))
            elif isinstance(a, tuple):
                packed[i] = self._tuple(param, a, what, packed_members)
            else:
                dtype = param["dtype"] if param and param["kind"] == _lib.KIND_SCALAR else _natural_dtype(a)
                packed[i] = _args.scalar_arg(dtype, a, what)
        return _Packed(packed, packed_members)

    def _tuple(self, param, value, what, keep):
        leaves = _args.flatten(value)
        dtypes = param["members"] if param and param["kind"] == _lib.KIND_TUPLE else []
        members = (_lib.Arg * max(len(leaves), 1))()
        for m, leaf in enumerate(leaves):
            dtype = dtypes[m] if m < len(dtypes) else _natural_dtype(leaf)
            members[m] = _args.scalar_arg(dtype, leaf, "%s[%d]" % (what, m))
        keep.append(members)
        return _lib.Arg(kind=_lib.KIND_TUPLE, members=members, nmembers=len(leaves))

    def _check_writable(self, entry, host):
        for i, staged in host:
            param = entry.params[i] if i < len(entry.params) else None
            if param and staged.readonly and param["access"] & _lib.ACCESS_WRITE:
                raise TypeError("pykrt: %s(%s): the kernel writes this parameter, and the NumPy array is "
                                "read-only" % (entry.name, param["name"]))
