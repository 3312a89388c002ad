"""Python launch arguments to pykrt_arg: arrays through
__cuda_array_interface__ (device) or __array_interface__ (NumPy, staged in
device memory for the launch), scalars and tuples converted to the dtypes
the manifest gives the kernel's parameters."""
import ctypes
import numbers
import operator
import struct

from . import _lib

# typestr kind and itemsize -> pykrt dtype name (NumPy's array-interface
# codes; byte order is checked apart).
_TYPESTR = {("b", 1): "bool", ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
            ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
            ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64", ("c", 8): "complex64",
            ("c", 16): "complex128"}
# numba.cuda.random's state record, as NumPy describes it.
_XOROSHIRO_DESCR = [("s0", "<u8"), ("s1", "<u8")]

_INT_FORMAT = {"int8": "b", "int16": "h", "int32": "i", "int64": "q",
               "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q"}


def _fits_typestr(typestr):
    """(dtype name, itemsize) of an array-interface typestr, else None."""
    order, kind, size = typestr[0], typestr[1], int(typestr[2:] or 0)
    if order == ">" and size > 1:
        return None
    name = _TYPESTR.get((kind, size))
    return (name, size) if name else None


# Records made from array-interface descrs, kept alive by their descr.
_RECORDS = {}


def _field_size(typestr, shape):
    if isinstance(typestr, list):
        size = _record(typestr)[0].size
    else:
        size = int(typestr[2:])
    for n in shape:
        size *= n
    return size


def _record(descr):
    """(pykrt_record, what keeps its parts alive) for an array interface's
    descr: [(name, typestr or descr[, shape])...], padding named ''. The
    offsets are where NumPy puts the fields, one after another."""
    key = repr(descr)
    if key in _RECORDS:
        return _RECORDS[key]
    fields, keep, offset = [], [], 0
    for entry in descr:
        name, typ = entry[0], entry[1]
        shape = tuple(entry[2]) if len(entry) > 2 else ()
        if isinstance(name, tuple):  # (title, name)
            name = name[1]
        if name:
            f = _lib.Field(name=name.encode(), offset=offset, ndim=len(shape))
            for i, n in enumerate(shape):
                f.shape[i] = n
            if isinstance(typ, list):
                sub = _record(typ)
                f.dtype, f.record = _lib.DTYPE["record"], ctypes.pointer(sub[0])
                keep.append(sub)
            else:
                found = _fits_typestr(typ)
                if not found:
                    raise TypeError("pykrt: record field %r of dtype %r is not supported" % (name, typ))
                f.dtype = _lib.DTYPE[found[0]]
            fields.append(f)
        offset += _field_size(typ, shape)
    array = (_lib.Field * max(len(fields), 1))(*fields)
    rec = _lib.Record(size=offset, align=1, nfields=len(fields), fields=array)
    _RECORDS[key] = (rec, array, keep)
    return _RECORDS[key]


def _dtype_of(iface):
    typestr = iface["typestr"]
    if typestr[1] == "V" and [tuple(d[:2]) for d in iface.get("descr", [])] == _XOROSHIRO_DESCR:
        return "xoroshiro128p", 16, _lib.lib.pykrt_xoroshiro128p_record()
    if typestr[1:] == "V2" and iface.get("descr", [("", typestr)]) == [("", typestr)]:
        return "bfloat16", 2, None  # ml_dtypes.bfloat16's arrays describe themselves so
    if typestr[1] == "V" and iface.get("descr") and iface["descr"] != [("", typestr)]:
        rec = _record(iface["descr"])[0]
        if rec.size != int(typestr[2:]):
            raise TypeError("pykrt: record dtype %r: its fields cover %d bytes" % (typestr, rec.size))
        return "record", rec.size, ctypes.cast(ctypes.pointer(rec), ctypes.c_void_p)
    found = _fits_typestr(typestr)
    if not found:
        raise TypeError("pykrt: arrays of dtype %r (%s) are not supported" % (typestr, iface.get("descr")))
    return found[0], found[1], None


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= max(extent, 1)
    return strides


def _contiguous(shape, strides, itemsize):
    """Whether the array is C- or F-contiguous (NumPy's rule: extents of 1
    and empty arrays do not matter)."""
    if 0 in shape:
        return True
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    for order in (dims[::-1], dims):
        step, ok = itemsize, True
        for n, s in order:
            ok = ok and s == step
            step *= n
        if ok:
            return True
    return False


def describe(iface, data):
    """A pykrt_array for an array interface whose elements start at `data`."""
    name, itemsize, record = _dtype_of(iface)
    shape = tuple(iface["shape"])
    if len(shape) > _lib.MAX_NDIM:
        raise TypeError("pykrt: %d-dimensional arrays are not supported (at most %d)" % (len(shape), _lib.MAX_NDIM))
    strides = iface.get("strides") or _c_strides(shape, itemsize)
    desc = _lib.Array(data=data, dtype=_lib.DTYPE[name], ndim=len(shape), record=record)
    for i, (n, s) in enumerate(zip(shape, strides)):
        desc.shape[i], desc.strides[i] = n, s
    return desc


class HostArray:
    """A NumPy array staged in device memory for one launch: copied in
    before, copied back after when the kernel writes the parameter."""

    def __init__(self, ctx, obj):
        iface = obj.__array_interface__
        self.obj, self.staging = obj, None
        itemsize = _dtype_of(iface)[1]
        if iface.get("strides") and not _contiguous(iface["shape"], iface["strides"], itemsize):
            import numpy
            self.staging = numpy.ascontiguousarray(obj)
            iface = self.staging.__array_interface__
        self.readonly = iface["data"][1]
        self.host = iface["data"][0]
        self.nbytes = itemsize
        for n in iface["shape"]:
            self.nbytes *= n
        self.ctx, self.dev = ctx, 0
        self.desc = describe(iface, 0)
        if self.nbytes:
            self.dev = self.desc.data = ctx.alloc(self.nbytes)
            try:
                ctx.check(_lib.lib.pykrt_memcpy_htod(ctx.handle, self.dev, self.host, self.nbytes))
            except Exception:
                self.free()
                raise

    def copy_back(self):
        if self.nbytes:
            self.ctx.check(_lib.lib.pykrt_memcpy_dtoh(self.ctx.handle, self.host, self.dev, self.nbytes))
        if self.staging is not None:
            import numpy
            numpy.copyto(self.obj, self.staging)

    def free(self):
        if self.dev:
            self.ctx.check(_lib.lib.pykrt_mem_free(self.ctx.handle, self.dev))
            self.dev = 0


def _real(value, what):
    if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Real):
        raise TypeError("pykrt: %s takes a real number, not %s" % (what, type(value).__name__))
    return float(value)


def _bfloat16_bits(value):
    bits = struct.unpack("<I", bytes(ctypes.c_float(value)))[0]
    if (bits & 0x7FFFFFFF) > 0x7F800000:
        return (bits >> 16) | 0x40  # a NaN stays a quiet NaN
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def scalar_bytes(dtype, value, what):
    """The little-endian bytes of `value` as a scalar of pykrt dtype `dtype`."""
    if dtype in _INT_FORMAT:
        if isinstance(value, float) or not hasattr(value, "__index__"):
            raise TypeError("pykrt: %s takes an integer (%s), not %s" % (what, dtype, type(value).__name__))
        try:
            return struct.pack("<" + _INT_FORMAT[dtype], operator.index(value))
        except struct.error:
            raise OverflowError("pykrt: %s: %d does not fit %s" % (what, operator.index(value), dtype)) from None
    if dtype == "bool":
        if isinstance(value, float) or not (isinstance(value, bool) or hasattr(value, "__index__")):
            raise TypeError("pykrt: %s takes a bool, not %s" % (what, type(value).__name__))
        return b"\x01" if value else b"\x00"
    if dtype in ("complex64", "complex128"):
        if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Complex):
            raise TypeError("pykrt: %s takes a complex number, not %s" % (what, type(value).__name__))
        c, part = complex(value), (ctypes.c_float if dtype == "complex64" else ctypes.c_double)
        return bytes(part(c.real)) + bytes(part(c.imag))
    real = _real(value, what)
    if dtype == "float16":
        return struct.pack("<e", real)
    if dtype == "bfloat16":
        return struct.pack("<H", _bfloat16_bits(real))
    if dtype == "float32":
        return bytes(ctypes.c_float(real))
    if dtype == "float64":
        return bytes(ctypes.c_double(real))
    raise TypeError("pykrt: %s has dtype %s, which pykrt cannot pass from Python" % (what, dtype))


def scalar_arg(dtype, value, what):
    arg = _lib.Arg(kind=_lib.KIND_SCALAR, dtype=_lib.DTYPE.get(dtype, 0))
    raw = scalar_bytes(dtype, value, what)
    ctypes.memmove(arg.value.bytes, raw, len(raw))
    return arg


def flatten(value):
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]
