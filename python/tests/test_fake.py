"""pykrt against the driver double (tests/runtime/fake_cuda.c), no GPU.

    python3 python/tests/test_fake.py FAKE_LIBCUDA VADD_YAML KINDS_YAML

with PYTHONPATH naming python/ and PYKRT_LIBRARY libpykrt.so. The double
runs vadd on the CPU and keeps the bytes of the last launch, laid out as
the PTX's parameters, which these tests read through its hooks.
"""
import ctypes
import os
import struct
import subprocess
import sys
import unittest

import numpy as np

import pykrt

FAKE, VADD, KINDS = sys.argv[1:4]


class FakeLaunch(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char * 128), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p), ("cooperative", ctypes.c_int),
                ("nparams", ctypes.c_int), ("offset", ctypes.c_size_t * 64), ("size", ctypes.c_size_t * 64),
                ("bytes", ctypes.c_ubyte * 4096)]


fake = ctypes.CDLL(FAKE)  # the instance libpykrt opened: same path
fake.fake_cuda_launch_count.restype = ctypes.c_long
fake.fake_cuda_live_allocations.restype = ctypes.c_long


def last_launch():
    out = FakeLaunch()
    fake.fake_cuda_last_launch(ctypes.byref(out))
    return out


def param_bytes(launch, index):
    """The bytes of the launch's index-th PTX parameter."""
    start = launch.offset[index]
    return bytes(launch.bytes[start:start + launch.size[index]])


def param_u64(launch, index):
    return struct.unpack("<Q", param_bytes(launch, index))[0]


class DeviceArray:
    """A device array as CuPy or PyTorch present one: memory of the
    double (host memory there), described by __cuda_array_interface__."""

    def __init__(self, host, stream=None):
        self.ctx = pykrt.context()
        self.host = np.ascontiguousarray(host)
        self.ptr = self.ctx.alloc(max(self.host.nbytes, 1))
        ctypes.memmove(self.ptr, self.host.ctypes.data, self.host.nbytes)
        self.__cuda_array_interface__ = {"shape": self.host.shape, "typestr": self.host.dtype.str,
                                         "data": (self.ptr, False), "strides": None, "version": 3,
                                         "stream": stream}

    def get(self):
        out = np.empty_like(self.host)
        ctypes.memmove(out.ctypes.data, self.ptr, out.nbytes)
        return out


class Vadd(unittest.TestCase):
    def setUp(self):
        self.mod = pykrt.load(VADD)
        self.n = 1000
        self.x = np.arange(self.n, dtype=np.float32)
        self.y = np.full(self.n, 0.5, dtype=np.float32)

    def test_numpy_arrays_are_copied_in_and_back(self):
        out = np.zeros(self.n, dtype=np.float32)
        allocs = fake.fake_cuda_live_allocations()
        self.mod.vadd[(self.n + 127) // 128, 128](self.x, self.y, out)
        np.testing.assert_array_equal(out, self.x + self.y)
        launch = last_launch()
        self.assertEqual((launch.entry, list(launch.grid), list(launch.block)), (b"vadd", [8, 1, 1], [128, 1, 1]))
        self.assertEqual((param_u64(launch, 1), param_u64(launch, 2)), (self.n, 4))  # x's shape, strides
        self.assertEqual(fake.fake_cuda_live_allocations(), allocs)  # the staging memory is freed

    def test_strided_numpy_arrays_go_through_a_contiguous_copy(self):
        x2, out2 = np.arange(2 * self.n, dtype=np.float32), np.zeros(2 * self.n, dtype=np.float32)
        self.mod.vadd[8, 128](x2[::2], self.y, out2[1::2])
        np.testing.assert_array_equal(out2[1::2], x2[::2] + self.y)
        self.assertFalse(out2[::2].any())
        self.assertEqual(param_u64(last_launch(), 8), 4)  # out's strides in the staging copy

    def test_device_arrays_are_passed_as_they_are(self):
        x, y, out = DeviceArray(self.x), DeviceArray(self.y), DeviceArray(np.zeros(self.n, np.float32), stream=7)
        self.mod.vadd[8, 128](x, y, out)
        np.testing.assert_array_equal(out.get(), self.x + self.y)
        self.assertEqual(param_u64(last_launch(), 6), out.ptr)

    def test_read_only_input_accepted_read_only_output_refused(self):
        x = self.x.copy()
        x.setflags(write=False)
        out = np.zeros(self.n, dtype=np.float32)
        self.mod.vadd[8, 128](x, self.y, out)
        np.testing.assert_array_equal(out, x + self.y)
        before = fake.fake_cuda_launch_count()
        with self.assertRaisesRegex(TypeError, r"vadd\(out\): the kernel writes this parameter"):
            self.mod.vadd[8, 128](self.x, self.y, x)
        self.assertEqual(fake.fake_cuda_launch_count(), before)

    def test_wrong_dtype_raises_the_runtimes_message(self):
        out = np.zeros(self.n, dtype=np.float32)
        with self.assertRaises(pykrt.Error) as cm:
            self.mod.vadd[8, 128](self.x.astype(np.float64), self.y, out)
        self.assertEqual(cm.exception.status, "PYKRT_ERROR_BAD_LAUNCH")
        self.assertEqual(str(cm.exception),
                         "pykrt_launch(vadd): argument 0 (x): expected a 1-d float32 array, got a 1-d float64 array")

    def test_wrong_count_and_shape_raise_the_runtimes_message(self):
        with self.assertRaisesRegex(pykrt.Error, r"pykrt_launch\(vadd\): .*3"):
            self.mod.vadd[8, 128](self.x, self.y)
        with self.assertRaisesRegex(pykrt.Error, r"pykrt_launch\(vadd\): .*block"):
            self.mod.vadd[8, 4096](self.x, self.y, self.y.copy())
        with self.assertRaisesRegex(ValueError, "grid"):
            self.mod.vadd[-1, 128](self.x, self.y, self.y.copy())

    def test_streams_and_shared_memory(self):
        stream = pykrt.Stream()
        out = np.zeros(self.n, dtype=np.float32)
        self.mod.vadd[8, 128, stream, 256](self.x, self.y, out)
        launch = last_launch()
        self.assertEqual((launch.stream, launch.shared), (stream.cuda_stream, 256))
        np.testing.assert_array_equal(out, self.x + self.y)
        with self.assertRaisesRegex(TypeError, "pykrt.Stream"):
            self.mod.vadd[8, 128, object()]

    def test_other_libraries_streams(self):
        """A CUstream as an int, CuPy's (ptr), PyTorch's (cuda_stream) and
        Numba's (handle.value) streams are wrapped, not destroyed."""
        owner = pykrt.Stream()
        cu = owner.cuda_stream

        class Like:
            def __init__(self, **attrs):
                self.__dict__.update(attrs)
        for stream in (cu, Like(ptr=cu), Like(cuda_stream=cu), Like(handle=ctypes.c_void_p(cu))):
            out = np.zeros(self.n, dtype=np.float32)
            self.mod.vadd[8, 128, stream](self.x, self.y, out)
            self.assertEqual(last_launch().stream, cu)
            np.testing.assert_array_equal(out, self.x + self.y)
        owner.synchronize()
        wrapped = pykrt.Stream.wrap(cu)
        wrapped.close()
        owner.synchronize()  # the owner's stream lives on
        owner.close()

    def test_load_failures_raise_the_runtimes_status(self):
        fixtures = os.path.dirname(VADD)
        for name, status in (("nonexistent.yaml", "PYKRT_ERROR_IO"), ("stale.yaml", "PYKRT_ERROR_STALE")):
            with self.assertRaises(pykrt.Error) as cm:
                pykrt.load(os.path.join(fixtures, name))
            self.assertEqual(cm.exception.status, status)
            self.assertIn(name, str(cm.exception))

    def test_unknown_kernel(self):
        with self.assertRaisesRegex(KeyError, "no kernel 'vsub'"):
            self.mod["vsub"]
        with self.assertRaises(AttributeError):
            self.mod.vsub


class Kinds(unittest.TestCase):
    """kinds.pyk (tests/runtime/emitc): every kind of parameter."""

    @classmethod
    def setUpClass(cls):
        cls.mod = pykrt.load(KINDS)

    def test_scalars_converted_to_the_manifests_dtypes(self):
        out = np.zeros(2)
        self.mod.scalars[1, 1](out, True, -5, -300, 70000, -2**40, 200, 60000, 2**32 - 1, 2**64 - 1, 1.5,
                               np.float32(2.25), 1 + 2j, 3 - 4j, 0.5)
        launch = last_launch()
        want = [b"\x01", struct.pack("<b", -5), struct.pack("<h", -300), struct.pack("<i", 70000),
                struct.pack("<q", -2**40), b"\xc8", struct.pack("<H", 60000), b"\xff" * 4, b"\xff" * 8,
                struct.pack("<f", 1.5), struct.pack("<d", 2.25), struct.pack("<f", 1), struct.pack("<f", 2),
                struct.pack("<d", 3), struct.pack("<d", -4), struct.pack("<e", 0.5)]
        self.assertEqual([param_bytes(launch, 3 + i) for i in range(len(want))], want)

    def test_scalar_conversion_errors(self):
        args = [np.zeros(2), True, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, 0j, 0j, 0.0]
        for index, value, error, text in ((2, 300, OverflowError, r"scalars\(i8\): 300 does not fit int8"),
                                          (4, 1.5, TypeError, r"scalars\(int\) takes an integer \(int32\)"),
                                          (10, "1", TypeError, r"scalars\(f32\) takes a real number")):
            bad = list(args)
            bad[index] = value
            with self.assertRaisesRegex(error, text):
                self.mod.scalars[1, 1](*bad)

    def test_tuples_flattened_and_converted(self):
        o = np.zeros(2)
        self.mod.tuples[1, 1]((7, (1.5, 2), 3j), (1, 2, 3), o)
        launch = last_launch()
        got = [param_bytes(launch, i) for i in range(7)]
        self.assertEqual(got, [struct.pack("<h", 7), struct.pack("<f", 1.5), struct.pack("<f", 2),
                               struct.pack("<f", 0), struct.pack("<f", 3)] + [struct.pack("<q", v) for v in (1, 2)])
        with self.assertRaisesRegex(pykrt.Error, "tuple"):
            self.mod.tuples[1, 1]((7, (1.5, 2)), (1, 2, 3), o)

    def test_layouts_checked_by_the_runtime(self):
        f = np.zeros((2, 2), np.int16, order="F")
        any3 = np.zeros((2, 2, 2), np.uint8)[:, :, ::-1]
        pts = np.zeros(2, dtype=[("x", np.float32), ("y", np.int32)])
        transposed = DeviceArray(np.zeros((4, 3), np.float32))  # a.T of a C-contiguous (3, 4)
        transposed.__cuda_array_interface__.update(shape=(3, 4), strides=(4, 12))
        with self.assertRaisesRegex(pykrt.Error, r"pykrt_launch\(arrays\): argument 0 \(a\).*contiguous"):
            self.mod.arrays[1, 1](transposed, f, any3, np.zeros(2, np.complex128), np.zeros(2, np.complex128))
        self.mod.arrays[1, 1](np.zeros((3, 4), np.float32), f, any3, pts, np.zeros(2, np.complex128))
        swapped = np.zeros(2, dtype=[("y", np.int32), ("x", np.float32)])
        with self.assertRaisesRegex(pykrt.Error, r"argument 3 \(pts\): expected records \{x: float32 at 0"):
            self.mod.arrays[1, 1](np.zeros((3, 4), np.float32), f, any3, swapped, np.zeros(2, np.complex128))

    def test_specialisations_dispatched_by_the_arguments(self):
        a32, a64 = np.ones(4, np.float32), np.ones(8)[::2]
        self.mod.scale[1, 4](a32, 3)
        self.assertEqual((last_launch().entry, param_bytes(last_launch(), 3)), (b"scale", struct.pack("<f", 3)))
        self.mod.scale[1, 4](a64, 3)
        launch = last_launch()
        self.assertNotEqual(launch.entry, b"scale")
        self.assertEqual((param_u64(launch, 2), param_bytes(launch, 3)), (8, struct.pack("<d", 3)))
        with self.assertRaisesRegex(pykrt.Error, r"scale") as cm:
            self.mod.scale[1, 4](np.ones(4, np.int32), 3)
        self.assertEqual(cm.exception.status, "PYKRT_ERROR_NOT_FOUND")
        self.assertEqual(len(self.mod.scale.signatures), 2)


class Records(unittest.TestCase):
    """Structured dtypes become pykrt_record layouts, field by field where
    NumPy puts them."""

    def layout(self, dtype):
        from pykrt import _args
        name, size, ptr = _args._dtype_of(np.zeros(2, dtype).__array_interface__)
        rec = _args._record(np.zeros(2, dtype).__array_interface__["descr"])[0]
        fields = [(rec.fields[i].name.decode(), pykrt._lib.DTYPES[rec.fields[i].dtype], rec.fields[i].offset,
                   tuple(rec.fields[i].shape[:rec.fields[i].ndim])) for i in range(rec.nfields)]
        return name, size, fields, rec

    def test_aligned_record_with_array_and_nested_fields(self):
        d = np.dtype([("x", "f4"), ("y", "i8"), ("v", "f4", (3,)), ("p", [("a", "u1"), ("b", "f8")])], align=True)
        name, size, fields, rec = self.layout(d)
        self.assertEqual((name, size), ("record", d.itemsize))
        self.assertEqual(fields, [("x", "float32", 0, ()), ("y", "int64", 8, ()), ("v", "float32", 16, (3,)),
                                  ("p", "record", 32, ())])
        nested = rec.fields[3].record.contents
        self.assertEqual((nested.size, nested.fields[1].name, nested.fields[1].offset), (16, b"b", 8))

    def test_packed_record(self):
        name, size, fields, _ = self.layout(np.dtype([("a", "u1"), ("b", "f8"), ("c", "?")]))
        self.assertEqual((size, fields), (10, [("a", "uint8", 0, ()), ("b", "float64", 1, ()), ("c", "bool", 9, ())]))

    def test_unsupported_field_refused(self):
        from pykrt import _args
        with self.assertRaisesRegex(TypeError, "record field 's' of dtype"):
            _args._dtype_of(np.zeros(2, [("s", "U4")]).__array_interface__)


class Process(unittest.TestCase):
    """What needs a fresh process: no driver, no library."""

    def run_python(self, code, **env):
        full = dict(os.environ, **env)
        return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True)

    def test_no_driver(self):
        r = self.run_python("import pykrt\ntry:\n pykrt.load(%r)\nexcept pykrt.Error as e:\n print(e.status, e)"
                            % VADD, PYKRT_LIBCUDA="/nonexistent/libcuda.so.1")
        self.assertIn("PYKRT_ERROR_NO_DRIVER", r.stdout, r.stderr)

    def test_host_device_where_no_driver(self):
        r = self.run_python("import pykrt\ni = pykrt.context(pykrt.HOST).info()\n"
                            "print(i['host'], i['name'], i['warp_size'], pykrt.device_count())",
                            PYKRT_LIBCUDA="/nonexistent/libcuda.so.1")
        self.assertRegex(r.stdout, r"^True host CPU \(.*\) 32 1$", r.stderr)

    def test_gpu_is_not_the_host(self):
        r = self.run_python("import pykrt\nprint(pykrt.context().info()['host'])")
        self.assertEqual("False\n", r.stdout, r.stderr)

    def test_library_not_found(self):
        r = self.run_python("import pykrt", PYKRT_LIBRARY="/nonexistent/libpykrt.so.0")
        self.assertIn("libpykrt.so not found (set PYKRT_LIBRARY", r.stderr)


if __name__ == "__main__":
    del sys.argv[1:4]
    result = unittest.main(exit=False, verbosity=1).result
    skipped = len(result.skipped)
    failed = len(result.failures) + len(result.errors)
    print("python: %d passed, %d failed, %d skipped" % (result.testsRun - failed - skipped, failed, skipped))
    sys.exit(1 if failed else 0)
