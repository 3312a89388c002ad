"""ctypes declarations of include/pykrt.h, and the search for libpykrt.so.

The library is found, in this order, at the path in $PYKRT_LIBRARY, beside
this file (a copy bundled into the package), and through the system loader
(LD_LIBRARY_PATH, the ld.so cache).
"""
import ctypes
import os

MAX_NDIM = 8

# pykrt_status, pykrt_kind, pykrt_access, pykrt_layout values.
SUCCESS = 0
KIND_SCALAR, KIND_ARRAY, KIND_TUPLE = 1, 2, 3
ACCESS_WRITE = 2
STREAM_NON_BLOCKING = 1

# pykrt_dtype, in the header's order (ORDER DTYPE).
DTYPES = ("invalid", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128", "xoroshiro128p", "record", "bfloat16")
DTYPE = {name: code for code, name in enumerate(DTYPES)}

devptr = ctypes.c_uint64
status = ctypes.c_int


class Record(ctypes.Structure):
    pass


class Field(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("offset", ctypes.c_size_t),
                ("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * MAX_NDIM), ("record", ctypes.POINTER(Record))]


Record._fields_ = [("size", ctypes.c_size_t), ("align", ctypes.c_size_t), ("nfields", ctypes.c_size_t),
                   ("fields", ctypes.POINTER(Field))]


class Array(ctypes.Structure):
    _fields_ = [("data", devptr), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int64 * MAX_NDIM), ("strides", ctypes.c_int64 * MAX_NDIM),
                ("record", ctypes.c_void_p)]


class _Value(ctypes.Union):
    _fields_ = [("bytes", ctypes.c_ubyte * 16), ("align_", ctypes.c_uint64), ("align_d_", ctypes.c_double)]


class Arg(ctypes.Structure):
    pass


Arg._fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int), ("array", ctypes.POINTER(Array)),
                ("members", ctypes.POINTER(Arg)), ("nmembers", ctypes.c_size_t), ("value", _Value)]


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", Dim3), ("block", Dim3), ("shared_bytes", ctypes.c_uint32), ("stream", ctypes.c_void_p)]


class ModuleInfo(ctypes.Structure):
    _fields_ = [("manifest", ctypes.c_char_p), ("compiler", ctypes.c_char_p), ("arch", ctypes.c_char_p),
                ("file", ctypes.c_char_p), ("cubin", ctypes.c_bool), ("nkernels", ctypes.c_size_t),
                ("nconstants", ctypes.c_size_t)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("entry", ctypes.c_char_p), ("nparams", ctypes.c_size_t),
                ("nptx_params", ctypes.c_size_t), ("shared_static", ctypes.c_size_t),
                ("shared_dynamic", ctypes.c_bool), ("cooperative", ctypes.c_bool), ("max_threads", ctypes.c_int),
                ("registers", ctypes.c_int), ("contiguous_copy", ctypes.c_bool)]


class ParamInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int),
                ("layout", ctypes.c_int), ("access", ctypes.c_int), ("record", ctypes.c_void_p),
                ("nmembers", ctypes.c_size_t)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("ordinal", ctypes.c_int), ("name", ctypes.c_char * 256), ("cc_major", ctypes.c_int),
                ("cc_minor", ctypes.c_int), ("sm_count", ctypes.c_int), ("warp_size", ctypes.c_int),
                ("max_threads_per_block", ctypes.c_int), ("max_block_dim", ctypes.c_int * 3),
                ("max_grid_dim", ctypes.c_int * 3), ("max_threads_per_sm", ctypes.c_int),
                ("max_registers_per_block", ctypes.c_int), ("clock_khz", ctypes.c_int),
                ("l2_cache_bytes", ctypes.c_int), ("max_shared_per_block", ctypes.c_size_t),
                ("max_shared_per_block_optin", ctypes.c_size_t), ("total_constant_memory", ctypes.c_size_t),
                ("total_memory", ctypes.c_size_t), ("cooperative_launch", ctypes.c_bool),
                ("host", ctypes.c_bool)]


P = ctypes.POINTER
vp = ctypes.c_void_p
# name: (argument types); every function returns a pykrt_status unless
# RESTYPES says otherwise.
PROTOTYPES = {
    "pykrt_last_error": (),
    "pykrt_status_name": (ctypes.c_int,),
    "pykrt_init": (),
    "pykrt_device_count": (P(ctypes.c_int),),
    "pykrt_context_create": (ctypes.c_int, P(vp)),
    "pykrt_context_device": (vp, P(DeviceInfo)),
    "pykrt_context_synchronize": (vp,),
    "pykrt_stream_create": (vp, ctypes.c_uint, P(vp)),
    "pykrt_stream_wrap": (vp, vp, P(vp)),
    "pykrt_stream_destroy": (vp,),
    "pykrt_stream_synchronize": (vp,),
    "pykrt_stream_handle": (vp, P(vp)),
    "pykrt_mem_alloc": (vp, ctypes.c_size_t, P(devptr)),
    "pykrt_mem_free": (vp, devptr),
    "pykrt_memcpy_htod": (vp, devptr, vp, ctypes.c_size_t),
    "pykrt_memcpy_dtoh": (vp, vp, devptr, ctypes.c_size_t),
    "pykrt_xoroshiro128p_record": (),
    "pykrt_module_load": (vp, ctypes.c_char_p, P(vp)),
    "pykrt_module_unload": (vp,),
    "pykrt_module_describe": (vp, P(ModuleInfo)),
    "pykrt_kernel_at": (vp, ctypes.c_size_t, P(vp)),
    "pykrt_kernel_describe": (vp, P(KernelInfo)),
    "pykrt_kernel_param": (vp, ctypes.c_size_t, P(ParamInfo)),
    "pykrt_kernel_param_member": (vp, ctypes.c_size_t, ctypes.c_size_t, P(ParamInfo)),
    "pykrt_kernel_get_for_args": (vp, ctypes.c_char_p, P(Arg), ctypes.c_size_t, P(vp)),
    "pykrt_launch": (vp, P(LaunchConfig), P(Arg), ctypes.c_size_t),
}
RESTYPES = {"pykrt_last_error": ctypes.c_char_p, "pykrt_status_name": ctypes.c_char_p,
            "pykrt_xoroshiro128p_record": vp}


def _candidates():
    env = os.environ.get("PYKRT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    beside = [os.path.join(here, n) for n in ("libpykrt.so.0", "libpykrt.so")]
    return [p for p in beside if os.path.exists(p)] + ["libpykrt.so.0", "libpykrt.so"]


def _open():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("pykrt: libpykrt.so not found (set PYKRT_LIBRARY to its path, or put it beside "
                      "the package or on the loader's path): " + "; ".join(tried))


def _declare(lib):
    for name, argtypes in PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = RESTYPES.get(name, status)
    return lib


lib = _declare(_open())
