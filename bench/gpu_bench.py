#!/usr/bin/env python3
"""The benchmark suite on the GPU: pykc's, nvcc's and numba-cuda's builds of
the same kernels (bench/suite), side by side, and a report.

    python3 bench/gpu_bench.py BUNDLE [--results DIR] [--reps N] [-k PATTERN]
                               [--no-numba] [--no-compile] [--no-launch]
    python3 bench/gpu_bench.py BUNDLE --self-test [--simulate]

BUNDLE is what bench/bundle.sh made on the machine with pykc (`make bench`:
build/bench). Needs NumPy, CuPy and numba-cuda; PyYAML and matplotlib
where they import (without PyYAML a reader of the manifest's own YAML
subset stands in; without matplotlib there is no chart).

For each problem of bench/suite/cases.py, on the same inputs and the same
launch configuration:
  pykc      the `[::1]` build (pykc-C/), launched through CuPy's RawModule
            with its arguments packed from the manifest alone (the scheme of
            tests/gpu/foreign_loader.py)
  pykc[:]   the `[:]` build (pykc-A/), the same way
  checked   the `[::1]` build with `--checks=all` (pykc-checked/), the same
            way; besides its outputs, no check may have failed (the
            module's pykc_exception is read after the launch)
  nvcc      nvcc's PTX of the .cu, through RawModule, with its C arguments
  numba     numba-cuda's dispatcher on the .pyk itself (its arrays as
            numba device arrays, converted once)
Each implementation's output, on fresh output arrays, is compared with the
NumPy reference first; a wrong one is reported and not timed. Then the
implementations are timed in turn, round by round (drift hits all alike):
a round is one launch to fill the queue, then a batch of back-to-back
launches between two CUDA events; the time is the median over the rounds
of the batch's time over its size. Besides: the device-to-device copy (the
bandwidth limit), launch overhead (libpykrt's bench_launch, numba-cuda's
dispatcher, CuPy), and compile times (nvcc -ptx and numba-cuda's
compile_ptx here; pykc's from the bundle, as pykc does not run here).

Writes RESULTS/<gpu>.md (the report, with the checked build's time over
the unchecked one's per kernel, the bandwidth-bound ones against a target
of CHECKED_TARGET), <gpu>.json (every number) and <gpu>.png (the chart). The GPU work runs in a worker process; when a
kernel takes the worker down (an illegal address poisons the CUDA
context), the next worker goes on with the following problem.

--self-test runs all of it on the CPU with a mocked device: each
manifest's packing is checked against the PTX's own parameter list (and
nvcc's arguments against its PTX), every reference against its own checks,
every checked build's kernels against their checks and its PTX against the
record that is read, a failed check's report, the report written. --simulate runs the kernels under numba-cuda's
simulator where it can (slow), so that the references meet the kernels.
"""
import argparse
import datetime
import fnmatch
import importlib.machinery
import importlib.util
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "suite"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
from foreign_loader import choose  # noqa: E402  (libpykrt's choice of an entry)

IMPLS = ["pykc", "pykc[:]", "checked", "nvcc", "numba"]
VARIANT_DIR = {"pykc": "pykc-C", "pykc[:]": "pykc-A", "checked": "pykc-checked"}
PYKC_IMPLS = tuple(VARIANT_DIR)
CHECKED_TARGET = 1.3  # checked/unchecked on the bandwidth-bound kernels, at most
LAUNCH_TARGET_US = 0.2  # pykrt_launch over cuLaunchKernel, at most
PEER_TARGET = 1.02  # pykc over the faster of nvcc and numba-cuda, each kernel, at most
PEER_GEOMEAN_TARGET = 0.97  # and their geometric mean
TARGET_BATCH_MS = 3.0  # a batch lasts about this long (at most MAX_BATCH launches)
MAX_BATCH = 10


# ---------------------------------------------------------------------------
# The manifest: YAML, read with PyYAML where it imports, else with a reader
# of the subset that pykc writes (docs/manifest.md: block and flow
# collections, plain and quoted scalars, no anchors, one document).


class YamlError(Exception):
    pass


def _scalar(text):
    t = text.strip()
    if not t:
        return None
    if t[0] in "\"'":
        q = t[0]
        if len(t) < 2 or t[-1] != q:
            raise YamlError(f"unterminated string {t!r}")
        body = t[1:-1]
        if q == "'":
            return body.replace("''", "'")
        return json.loads('"' + body + '"')
    if t in ("null", "~"):
        return None
    if t == "true":
        return True
    if t == "false":
        return False
    if re.fullmatch(r"[-+]?[0-9]+", t):
        return int(t)
    if re.fullmatch(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", t):
        return float(t)
    return t


def _flow(text, i):
    """Parses the flow node at text[i:]; returns (value, next index)."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] in "[{":
        close = "]" if text[i] == "[" else "}"
        is_map = text[i] == "{"
        out = {} if is_map else []
        i += 1
        while True:
            while i < len(text) and text[i] in " ,":
                i += 1
            if i >= len(text):
                raise YamlError("unterminated flow collection")
            if text[i] == close:
                return out, i + 1
            if is_map:
                key, i = _flow_scalar(text, i, ":")
                if i >= len(text) or text[i] != ":":
                    raise YamlError(f"expected ':' in {text!r}")
                value, i = _flow(text, i + 1)
                out[key] = value
            else:
                value, i = _flow(text, i)
                out.append(value)
    return _flow_scalar(text, i, ",]}")


def _flow_scalar(text, i, stops):
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] in "\"'":
        q = text[i]
        j = i + 1
        while j < len(text):
            if q == "'" and text[j] == "'" and text[j + 1:j + 2] == "'":
                j += 2
                continue
            if q == '"' and text[j] == "\\":
                j += 2
                continue
            if text[j] == q:
                break
            j += 1
        return _scalar(text[i:j + 1]), j + 1
    j = i
    while j < len(text) and text[j] not in stops and not (text[j] == ":" and text[j + 1:j + 2] in (" ", "")):
        j += 1
    if ":" in stops:
        while j < len(text) and text[j] != ":":
            j += 1
    return _scalar(text[i:j]), j


def _strip_comment(line):
    out, q = [], None
    for k, ch in enumerate(line):
        if q:
            if ch == q:
                q = None
        elif ch in "\"'":
            q = ch
        elif ch == "#" and (k == 0 or line[k - 1] == " "):
            break
        out.append(ch)
    return "".join(out).rstrip()


def mini_yaml(text):
    """The YAML subset of pykc's manifests, as PyYAML's safe_load reads it."""
    lines = []
    for raw in text.splitlines():
        line = _strip_comment(raw)
        if line.strip() in ("", "---"):
            continue
        if line.strip() == "...":
            break
        lines.append((len(line) - len(line.lstrip(" ")), line.strip()))
    pos = 0

    def split_key(s):
        m = re.match(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:'"][^:]*?)\s*:(?:\s+(.*))?$""", s)
        if not m:
            return None
        return _scalar(m.group(1)), (m.group(2) or "")

    def value_of(rest, indent):
        if rest == "":
            if pos < len(lines) and (lines[pos][0] > indent or (lines[pos][0] == indent and lines[pos][1].startswith("- "))):
                return block(lines[pos][0])
            return None
        if rest[0] in "[{":
            v, end = _flow(rest, 0)
            if rest[end:].strip():
                raise YamlError(f"text after a flow collection: {rest!r}")
            return v
        return _scalar(rest)

    def block(indent):
        nonlocal pos
        ind, s = lines[pos]
        if s.startswith("- ") or s == "-":
            seq = []
            while pos < len(lines) and lines[pos][0] == indent and (lines[pos][1].startswith("- ") or lines[pos][1] == "-"):
                item = lines[pos][1][2:].strip()
                pos += 1
                kv = split_key(item) if item and item[0] not in "[{\"'" else None
                if kv is not None:
                    # a mapping begun on the dash's line: its keys sit at indent + 2
                    lines.insert(pos, (indent + 2, item))
                    seq.append(block(indent + 2))
                else:
                    seq.append(value_of(item, indent))
            return seq
        out = {}
        while pos < len(lines) and lines[pos][0] == indent and not lines[pos][1].startswith("- "):
            kv = split_key(lines[pos][1])
            if kv is None:
                raise YamlError(f"expected 'key: value', got {lines[pos][1]!r}")
            pos += 1
            out[kv[0]] = value_of(kv[1], indent)
        return out

    if not lines:
        return None
    value = block(lines[0][0])
    if pos != len(lines):
        raise YamlError(f"unexpected line {lines[pos][1]!r}")
    return value


def load_manifest(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import yaml
    except ImportError:
        return mini_yaml(text)
    return yaml.safe_load(text)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


def choose_target(manifest, cc):
    """docs/manifest.md's rule: among the targets that run on a device of
    compute capability cc (major, minor), the highest arch; a cubin over PTX."""
    best = None
    for t in manifest["targets"]:
        m = re.fullmatch(r"sm_(\d+?)(\d)([af]?)", t["arch"])
        if not m:
            continue
        major, minor, suffix = int(m.group(1)), int(m.group(2)), m.group(3)
        if suffix == "a":
            ok = (major, minor) == cc
        elif suffix == "f" or t["kind"] == "cubin":
            ok = major == cc[0] and minor <= cc[1]
        else:
            ok = (major, minor) <= cc
        key = ((major, minor), t["kind"] == "cubin")
        if ok and (best is None or key > best[0]):
            best = (key, t)
    return None if best is None else best[1]


# ---------------------------------------------------------------------------
# Packing pykc's arguments: one NumPy scalar per PTX parameter, from the
# manifest's ptx_params alone (tests/gpu/foreign_loader.py's scheme; a
# float16 scalar passes its bits, signed values keep their sign).

def _np():
    import numpy as np
    return np


SCALAR_DTYPES = {"bool": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
                 "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
                 "float16": "float16", "float32": "float32", "float64": "float64",
                 "complex64": "complex64", "complex128": "complex128"}


def data_ptr(arr):
    d = getattr(arr, "data", None)
    if hasattr(d, "ptr"):
        return d.ptr
    return arr.ctypes.data


def pack(kernel, args):
    np = _np()
    params = kernel["params"]
    if len(args) != len(params):
        raise ValueError(f"{kernel['name']}: {len(args)} arguments for {len(params)} parameters")
    shapes = [getattr(a, "shape", None) for a in args]
    strides = [getattr(a, "strides", None) for a in args]
    for i, (p, a) in enumerate(zip(params, args)):
        if p["kind"] == "array" and p["dtype"] in ("record", "xoroshiro128p"):
            # records travel as the bytes of a contiguous 1-d array (the
            # xoroshiro128p states uploaded as uint64 pairs)
            size = p["record"]["size"] if "record" in p else 16
            if p["ndim"] != 1 or not a.flags.c_contiguous or a.nbytes % size:
                raise ValueError(f"{kernel['name']}: parameter {p['name']} takes contiguous {size}-byte records")
            shapes[i], strides[i] = (a.nbytes // size,), (size,)
            continue
        if p["kind"] == "array":
            if not hasattr(a, "shape"):
                raise ValueError(f"{kernel['name']}: parameter {p['name']} is an array, given {type(a).__name__}")
            dt = "bool" if a.dtype == np.bool_ else str(a.dtype)
            if dt != p["dtype"]:
                raise ValueError(f"{kernel['name']}: parameter {p['name']} is {p['dtype']}, given {dt}")
            if a.ndim != p["ndim"]:
                raise ValueError(f"{kernel['name']}: parameter {p['name']} has {p['ndim']} dimensions, given {a.ndim}")
            if p.get("layout") == "C" and not a.flags.c_contiguous:
                raise ValueError(f"{kernel['name']}: parameter {p['name']} must be C-contiguous")
    out = []
    for p in kernel["ptx_params"]:
        arg, part = args[p["param"]], p["part"]
        if part == "data":
            value = np.uint64(data_ptr(arg))
        elif part.startswith("shape["):
            value = np.int64(shapes[p["param"]][int(part[6:-1])])
        elif part.startswith("strides["):
            value = np.int64(strides[p["param"]][int(part[8:-1])])
        elif part in ("real", "imag"):
            ft = np.float32 if p["type"] == "f32" else np.float64
            value = ft(np.real(arg) if part == "real" else np.imag(arg))
        else:
            dt = params[p["param"]]["dtype"]
            value = np.dtype(SCALAR_DTYPES[dt]).type(arg)
            if dt == "float16":
                value = value.view(np.uint16)
        if value.dtype.itemsize != p["size"]:
            raise ValueError(f"{kernel['name']}: PTX parameter {part} of {params[p['param']]['name']} packs "
                             f"{value.dtype.itemsize} bytes, the manifest says {p['size']}")
        out.append(value)
    return out


def ptx_entry_params(ptx_text, entry):
    """The byte size of each parameter of `.entry entry(...)` in a PTX file."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    if not m:
        return None
    sizes = []
    for decl in m.group(1).split(","):
        decl = decl.strip()
        if not decl:
            continue
        arr = re.search(r"\.b8\s+\S+\[(\d+)\]", decl)
        if arr:
            sizes.append(int(arr.group(1)))
            continue
        t = re.search(r"\.param\s+(?:\.align\s+\d+\s+)?(?:\.ptr\s+\S+\s+)?\.([usbf])(\d+)", decl)
        if not t:
            raise ValueError(f"cannot read PTX parameter {decl!r}")
        sizes.append(int(t.group(2)) // 8)
    return sizes


# ---------------------------------------------------------------------------
# The bundle (bench/bundle.sh's layout)


class Bundle:
    def __init__(self, directory):
        self.dir = directory
        info = os.path.join(directory, "bundle.json")
        if not os.path.exists(info):
            raise SystemExit(f"{directory}: no bundle.json; make it with `make bench` (bench/bundle.sh)")
        with open(info) as f:
            self.info = json.load(f)
        self._numba = {}
        self._manifests = {}

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def pykc(self, impl, module):
        """(manifest, ptx path) of a pykc build, or (None, message) where
        pykc refused the module."""
        key = (impl, module)
        if key not in self._manifests:
            d = self.path(VARIANT_DIR[impl])
            yml = os.path.join(d, module + ".yaml")
            if not os.path.exists(yml):
                err = os.path.join(d, module + ".error")
                msg = "no manifest"
                if os.path.exists(err):
                    with open(err) as f:
                        first = [ln for ln in f.read().splitlines() if ": error: " in ln or ln.strip()]
                    msg = first[0] if first else "pykc refused it"
                    msg = re.sub(r"^.*?/(\w+\.pyk:)", r"\1", msg)
                self._manifests[key] = (None, msg)
            else:
                self._manifests[key] = (load_manifest(yml), d)
        return self._manifests[key]

    def nvcc_ptx(self, module):
        p = self.path("nvcc", module + ".ptx")
        return p if os.path.exists(p) else None

    def numba_module(self, module):
        if module not in self._numba:
            path = self.path("suite", module + ".pyk")
            name = "pyk_" + module
            loader = importlib.machinery.SourceFileLoader(name, path)
            mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
            loader.exec_module(mod)
            self._numba[module] = mod
        return self._numba[module]


def check_failure(manifest, record, dims=1):
    """A checked kernel's recorded failure as libpykrt words it
    (docs/runtime.md): record is (code, detail, thread) as
    exception_record reads it; the site is the manifest's exception of that
    code, with the index, axis and extent (detail) of a failed bounds check
    and the thread (threadIdx, blockIdx: x, y, z) of a launch of dims
    dimensions."""
    code, detail, thread = record
    site = next((e for e in manifest.get("exceptions") or [] if e.get("code") == code), None)
    if site is None:
        return f"a check failed with code {code}, which the manifest does not list"
    where = f"{site.get('file', '?')}:{site.get('line', '?')}" + (f":{site['column']}" if "column" in site else "")
    kind = site.get("kind")
    if kind == "bounds" and detail:
        what = f"index {detail[0]} out of bounds for axis {detail[1]} with size {detail[2]}"
    elif kind == "div0":
        what = "integer division or modulo by zero"
    else:
        what = site.get("type", "exception") + (f": {site['message']}" if site.get("message") else "")
    if thread:
        t, b = thread[:3], thread[3:]
        form = (lambda v: str(v[0])) if dims == 1 else (lambda v: "(" + ", ".join(map(str, v[:dims])) + ")")
        what += f" (thread {form(t)} of block {form(b)})"
    return f"{where}: error: {what}"


def bind(names, io):
    """An argument list with the names of arrays replaced by the arrays."""
    return [io[a] if isinstance(a, str) else a for a in names]


# ---------------------------------------------------------------------------
# Devices: CuPy on a GPU, or a mock for the self-test


class CupyDevice:
    mock = False

    def __init__(self):
        import cupy as cp
        self.cp = cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.sm_count = int(props["multiProcessorCount"])
        self.cc = (int(props["major"]), int(props["minor"]))
        self._modules = {}

    def env(self):
        cp = self.cp
        info = {"gpu": self.name, "cc": f"{self.cc[0]}.{self.cc[1]}", "sms": self.sm_count}
        v = cp.cuda.runtime.driverGetVersion()
        info["cuda_driver_api"] = f"{v // 1000}.{v % 1000 // 10}"
        v = cp.cuda.runtime.runtimeGetVersion()
        info["cuda_runtime"] = f"{v // 1000}.{v % 1000 // 10}"
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,memory.total",
                                  "--format=csv,noheader", "-i", "0"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0:
                drv, clk, mem = [s.strip() for s in out.stdout.strip().split(",")]
                info.update(driver=drv, max_sm_clock=clk, memory=mem)
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
        return info

    def array(self, host):
        return self.cp.asarray(host)

    def zeros(self, shape, dtype):
        return self.cp.zeros(shape, dtype)

    def host(self, a):
        return self.cp.asnumpy(a)

    def compare(self, expect, out):
        return expect.compare(out, self.cp)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def free(self):
        self.sync()
        self.cp.get_default_memory_pool().free_all_blocks()

    def healthy(self):
        """Whether the CUDA context still works after an error: some
        (an illegal address, a trap) poison it for good."""
        try:
            self.sync()
            return float((self.cp.ones(4, self.cp.float32) * 2).sum()) == 8.0
        except Exception:  # noqa: BLE001
            return False

    def _module(self, path):
        if path not in self._modules:
            self._modules[path] = self.cp.RawModule(path=path)
        return self._modules[path]

    def exception_record(self, ptx, clear=False):
        """(code, [index, axis, extent], [threadIdx, blockIdx]) that a
        checked module recorded (docs/manifest.md, Exceptions): code 0
        where no check failed; the record cleared after reading where
        `clear`."""
        cp, mod = self.cp, self._module(ptx)

        def read(name, n, dtype):
            return [int(x) for x in cp.ndarray((n,), dtype, memptr=mod.get_global(name)).get()]

        flag = cp.ndarray((1,), cp.int32, memptr=mod.get_global("pykc_exception"))
        code = int(flag.get()[0])
        detail = thread = None
        if code:
            thread = read("pykc_exception_thread", 6, cp.uint32)
            try:
                detail = read("pykc_exception_detail", 3, cp.int64)
            except cp.cuda.driver.CUDADriverError:
                pass  # a module whose sites are all raises has no detail
        if clear:
            flag.fill(0)
            self.sync()
        return code, detail, thread

    def pykc_launcher(self, ptx, kernel, grid, block, args, fallback=None):
        fn = self._module(ptx).get_function(kernel["entry"])
        packed = tuple(pack(kernel, args))
        return lambda: fn(grid, block, packed)

    def nvcc_launcher(self, ptx, name, grid, block, args, fallback=None):
        np = _np()
        fn = self._module(ptx).get_function(name)
        cargs = tuple(np.uint64(a.data.ptr) if hasattr(a, "data") and hasattr(a.data, "ptr") else a for a in args)
        return lambda: fn(grid, block, cargs)

    def numba_args(self, args, views):
        from numba import cuda
        out = []
        for a, v in zip(args, views):
            if hasattr(a, "__cuda_array_interface__"):
                a = cuda.as_cuda_array(a)
                if v is not None:
                    a = a.view(v)
            out.append(a)
        return out

    def numba_launcher(self, dispatcher, grid, block, args, views, fallback=None):
        kern = dispatcher[grid, block]
        nargs = self.numba_args(args, views)
        return lambda: kern(*nargs)

    def one_launch_ms(self, launch):
        cp = self.cp
        start, end = cp.cuda.Event(), cp.cuda.Event()
        launch()
        start.record()
        launch()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    def time_rounds(self, launches, resets, reps, batch):
        """{impl: [ms a launch, one per round]}, the implementations taking
        turns round by round."""
        cp = self.cp
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = {k: [] for k in launches}
        for _ in range(reps):
            for k, launch in launches.items():
                resets[k]()
                launch()  # keeps the GPU busy while the batch is queued
                start.record()
                for _ in range(batch):
                    launch()
                end.record()
                end.synchronize()
                times[k].append(cp.cuda.get_elapsed_time(start, end) / batch)
        return times

    def copy_bandwidth(self, nbytes, reps):
        """GB/s of a device-to-device copy (bytes read plus bytes written)."""
        cp = self.cp
        src = cp.ones(nbytes // 4, cp.float32)
        dst = cp.empty_like(src)
        kind = cp.cuda.runtime.memcpyDeviceToDevice
        stream = cp.cuda.get_current_stream().ptr

        def launch():
            cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes, kind, stream)

        t = statistics.median(self.time_rounds({"copy": launch}, {"copy": lambda: None}, reps, 5)["copy"])
        ok = bool((dst[:1024] == 1).all())
        src = dst = None
        self.free()
        return {"bytes": nbytes, "ms": t, "gbs": 2 * nbytes / t / 1e6, "ok": ok}


class MockDevice:
    """The self-test's device: NumPy arrays; a launch checks its packed
    arguments against the PTX's parameter list, then runs the kernel under
    numba-cuda's simulator (--simulate, where it can) or writes the
    expected outputs."""
    mock = True

    def __init__(self, simulate):
        self.simulate = simulate
        self.name = "Mock GPU (self-test)"
        self.sm_count = 4
        self.cc = (9, 0)
        self.checked = 0
        self.records = 0
        self.fake_code = 0  # the code exception_record reports (the self-test's failing check)
        self._ptx = {}

    def env(self):
        return {"gpu": self.name, "cc": "9.0", "sms": self.sm_count, "driver": "none", "cuda_driver_api": "-",
                "cuda_runtime": "-", "simulated": self.simulate}

    def array(self, host):
        return _np().array(host, copy=True)

    def zeros(self, shape, dtype):
        return _np().zeros(shape, dtype)

    def host(self, a):
        return _np().array(a, copy=True)

    def compare(self, expect, out):
        return expect.compare(out)

    def sync(self):
        pass

    def free(self):
        pass

    def healthy(self):
        return True

    def _entry(self, ptx, entry):
        if ptx not in self._ptx:
            with open(ptx) as f:
                self._ptx[ptx] = f.read()
        if entry is None:
            return None
        sizes = ptx_entry_params(self._ptx[ptx], entry)
        if sizes is None:
            raise RuntimeError(f"{os.path.basename(ptx)} has no .entry {entry}")
        return sizes

    def _compare(self, what, sizes, values):
        got = [v.dtype.itemsize if hasattr(v, "dtype") and getattr(v, "ndim", 0) == 0 else 8 for v in values]
        if got != sizes:
            raise RuntimeError(f"{what}: argument sizes {got} do not match the PTX parameters {sizes}")
        self.checked += 1

    def exception_record(self, ptx, clear=False):
        """The PTX must hold the record that a loader reads."""
        self._entry(ptx, None)
        if not re.search(r"^\.visible \.global \.align 4 \.u32 pykc_exception;", self._ptx[ptx], re.M):
            raise RuntimeError(f"{os.path.basename(ptx)} declares no pykc_exception")
        self.records += 1
        return self.fake_code, [7, 0, 5] if self.fake_code else None, [3, 0, 0, 1, 0, 0] if self.fake_code else None

    def pykc_launcher(self, ptx, kernel, grid, block, args, fallback=None):
        self._compare(f"pykc {kernel['name']}", self._entry(ptx, kernel["entry"]), pack(kernel, args))
        return fallback

    def nvcc_launcher(self, ptx, name, grid, block, args, fallback=None):
        np = _np()
        vals = [np.uint64(0) if isinstance(a, np.ndarray) else a for a in args]
        for a in vals:
            if not isinstance(a, np.generic):
                raise RuntimeError(f"nvcc {name}: argument {a!r} is not a NumPy scalar (CuPy needs its size)")
        self._compare(f"nvcc {name}", self._entry(ptx, name), vals)
        return fallback

    def numba_launcher(self, dispatcher, grid, block, args, views, fallback=None):
        nargs = [a.view(v) if v is not None else a for a, v in zip(args, views)]
        if self.simulate and fallback.sim:
            kern = dispatcher[grid, block]
            return lambda: kern(*nargs)
        return fallback

    def time_rounds(self, launches, resets, reps, batch):
        times = {}
        for k in launches:
            resets[k]()
            base = 0.3 + (sum(map(ord, k)) % 7) * 0.01
            times[k] = [base * (1 + 0.001 * (r % 3)) for r in range(reps)]
        return times

    def copy_bandwidth(self, nbytes, reps):
        return {"bytes": nbytes, "ms": 0.4, "gbs": 2 * nbytes / 0.4 / 1e6, "ok": True}


class Fallback:
    """What a mock launch does without the simulator: the expected outputs."""

    def __init__(self, problem, io):
        self.problem, self.io, self.sim = problem, io, problem.sim

    def __call__(self):
        for name, e in self.problem.expect.items():
            e.fill(self.io[name])


# ---------------------------------------------------------------------------
# One problem on one device


def run_problem(dev, bundle, prob, opts, log):
    np = _np()
    res = {"kernel": prob.kernel, "module": prob.module, "work": prob.work[0], "unit": prob.work[1], "bound": prob.bound,
           "grid": list(prob.grid), "block": list(prob.block), "note": prob.note, "status": {}, "detail": {},
           "ms": {}, "min_ms": {}, "times": {}}
    inputs = {k: dev.array(v) for k, v in prob.inputs.items()}
    views = [getattr(a, "dtype", None) if type(a).__name__ == "As" else None for a in (prob.numba or prob.pyk)]
    nb_names = [a.name if type(a).__name__ == "As" else a for a in (prob.numba or prob.pyk)]

    def fresh():
        io = dict(inputs)
        for k, spec in prob.outputs.items():
            io[k] = dev.array(spec) if hasattr(spec, "shape") else dev.zeros(*spec)
        return io

    makers, records = {}, {}
    for impl in PYKC_IMPLS:
        manifest, where = bundle.pykc(impl, prob.module)
        if manifest is None:
            res["status"][impl] = "unsupported"
            res["detail"][impl] = where
            continue
        ks = {k["name"]: k for k in manifest["kernels"]}  # which kernels there are; choose picks the entry
        if prob.kernel not in ks:
            res["status"][impl] = "error"
            res["detail"][impl] = f"the manifest has no kernel {prob.kernel}"
            continue
        target = choose_target(manifest, dev.cc)
        if target is None:
            res["status"][impl] = "error"
            res["detail"][impl] = f"no target for sm_{dev.cc[0]}{dev.cc[1]}"
            continue
        ptx = os.path.join(where, target["file"])
        with open(ptx, "rb") as f:
            digest = fnv1a64(f.read())
        if digest != target["digest"]:
            res["status"][impl] = "error"
            res["detail"][impl] = f"{target['file']} does not match its manifest: rebuild the bundle"
            continue
        if impl == "checked":
            if not ks[prob.kernel].get("checks") or not manifest.get("exceptions"):
                res["status"][impl] = "error"
                res["detail"][impl] = "the checked build has no checks: rebuild the bundle (pykc --checks=all)"
                continue
            records[impl] = (ptx, manifest)
        def pykc_maker(io, ptx=ptx, manifest=manifest):
            args = bind(prob.pyk, io)
            return dev.pykc_launcher(ptx, choose(manifest, prob.kernel, args), prob.grid, prob.block, args,
                                     Fallback(prob, io))
        makers[impl] = pykc_maker
    ptx = bundle.nvcc_ptx(prob.module)
    if ptx is None:
        res["status"]["nvcc"] = "error"
        res["detail"]["nvcc"] = "no PTX from nvcc in the bundle"
    else:
        makers["nvcc"] = lambda io: dev.nvcc_launcher(ptx, prob.kernel, prob.grid, prob.block, bind(prob.cu, io),
                                                      Fallback(prob, io))
    if opts.no_numba:
        res["status"]["numba"] = "skipped"
    else:
        def numba_maker(io):
            disp = getattr(bundle.numba_module(prob.module), prob.kernel)
            return dev.numba_launcher(disp, prob.grid, prob.block, bind(nb_names, io), views, Fallback(prob, io))
        makers["numba"] = numba_maker

    launches, resets, ios = {}, {}, {}
    for impl in IMPLS:
        if impl not in makers:
            continue
        try:
            io = fresh()
            launch = makers[impl](io)
            if impl in records:
                dev.exception_record(records[impl][0], clear=True)  # the module's other kernels ran before
            launch()  # numba-cuda compiles here: neither this nor the JIT of the PTX is timed
            dev.sync()
            bad = []
            if impl in records:
                rec = dev.exception_record(records[impl][0])
                if rec[0]:
                    bad.append(check_failure(records[impl][1], rec, len(prob.grid)))
            for name, e in prob.expect.items():
                msg = dev.compare(e, io[name])
                if msg:
                    bad.append(f"{name}: {msg}")
            if bad:
                res["status"][impl] = "wrong"
                res["detail"][impl] = "; ".join(bad)
                log(f"  {prob.kernel} {impl}: WRONG OUTPUT: {'; '.join(bad)}")
                continue
            if dev.mock:
                # the checks must also catch a wrong output
                name, e = next(iter(prob.expect.items()))
                out = dev.host(io[name])
                flat = out.reshape(-1)
                k = 0 if e.index is None else int(np.asarray(e.index).reshape(-1)[0]) * (flat.size // out.shape[0])
                flat[k] = flat[k] + (1 if out.dtype.kind in "iu" else 0.5 + abs(float(flat[k])))
                if e.compare(out) is None:
                    raise RuntimeError(f"the check of {name} let a wrong value through")
            res["status"][impl] = "ok"
            launches[impl] = launch
            ios[impl] = io
            resets[impl] = (lambda io=io: [io[r].fill(0) for r in prob.reset])
        except Exception as e:  # noqa: BLE001 - reported per implementation
            res["status"][impl] = "error"
            res["detail"][impl] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            log(f"  {prob.kernel} {impl}: ERROR {res['detail'][impl]}")
            if opts.verbose:
                traceback.print_exc()
            if not dev.healthy():
                raise  # the CUDA context is gone (an illegal address ...): the next worker goes on
    if launches:
        batch = 1
        if not dev.mock:
            for launch in launches.values():
                launch()  # warm-up
            dev.sync()
            t1 = dev.one_launch_ms(next(iter(launches.values())))
            batch = max(1, min(MAX_BATCH, int(TARGET_BATCH_MS / max(t1, 1e-3))))
        res["batch"] = batch
        times = dev.time_rounds(launches, resets, opts.reps, batch)
        for impl in records:
            rec = dev.exception_record(records[impl][0], clear=True) if impl in launches else (0, None, None)
            if rec[0]:
                res["status"][impl] = "wrong"
                res["detail"][impl] = "during the timed launches: " + check_failure(records[impl][1], rec, len(prob.grid))
                log(f"  {prob.kernel} {impl}: A CHECK FAILED: {res['detail'][impl]}")
        for impl, ts in times.items():
            res["ms"][impl] = statistics.median(ts)
            res["min_ms"][impl] = min(ts)
            res["times"][impl] = [round(t, 6) for t in ts]
    launches.clear()
    ios.clear()
    inputs.clear()
    for e in prob.expect.values():
        e.release()
    dev.free()
    return res


# ---------------------------------------------------------------------------
# Launch overhead


def launch_overhead(dev, bundle, log):
    out = {}
    exe = bundle.path("launch", "bench_launch")
    if not dev.mock and os.path.exists(exe):
        try:
            p = subprocess.run([exe, bundle.path("launch", "empty.yaml"), "2000", "256"], capture_output=True,
                               text=True, timeout=120)
            out["bench_launch_output"] = p.stdout + p.stderr
            for line in p.stdout.splitlines():
                m = re.match(r"\s+(raw cuLaunchKernel|pykrt_launch_unchecked|pykrt_launch \(checked\))\s+"
                             r"([0-9.]+) us/launch\s+\(mean ([0-9.]+), best round ([0-9.]+)\)", line)
                if m:
                    out[m.group(1)] = {"median_us": float(m.group(2)), "mean_us": float(m.group(3)),
                                       "best_us": float(m.group(4))}
        except (OSError, subprocess.SubprocessError) as e:
            out["bench_launch_output"] = f"bench_launch failed: {e}"
    elif not dev.mock:
        out["bench_launch_output"] = f"{exe} missing"
    if dev.mock:
        return out
    np = _np()
    cp = dev.cp
    n = 1024
    x, y, o = cp.zeros(n, cp.float32), cp.zeros(n, cp.float32), cp.zeros(n, cp.float32)

    def host_us(launch, rounds=40, size=256):
        launch()
        dev.sync()
        per = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(size):
                launch()
            per.append((time.perf_counter() - t0) * 1e6 / size)
            dev.sync()
        return {"median_us": statistics.median(per), "mean_us": statistics.mean(per), "best_us": min(per)}

    try:
        from numba import cuda

        @cuda.jit
        def empty(x, y, out, n):
            pass

        k = empty[1, 32]
        nx, ny, no = (cuda.as_cuda_array(a) for a in (x, y, o))
        out["numba dispatcher (numba arrays)"] = host_us(lambda: k(nx, ny, no, np.int64(n)))
        out["numba dispatcher (CuPy arrays)"] = host_us(lambda: k(x, y, o, np.int64(n)))
    except Exception as e:  # noqa: BLE001
        log(f"launch overhead: numba-cuda: {e}")
    try:
        m = load_manifest(bundle.path("launch", "empty.yaml"))
        kern = choose(m, m["kernels"][0]["name"], [x, y, o, n])
        fn = dev._module(bundle.path("launch", m["targets"][0]["file"])).get_function(kern["entry"])
        packed = tuple(pack(kern, [x, y, o, n]))
        out["CuPy RawKernel (pykc's packing)"] = host_us(lambda: fn((1,), (32,), packed))
    except Exception as e:  # noqa: BLE001
        log(f"launch overhead: CuPy: {e}")
    return out


# ---------------------------------------------------------------------------
# Compile times here (nvcc -ptx, numba-cuda's compile_ptx); pykc's come
# from the bundle


def find_nvcc():
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    c = os.path.join(home, "bin", "nvcc")
    return c if os.access(c, os.X_OK) else shutil.which("nvcc")


def compile_times(bundle, modules, runs, log):
    arch = bundle.info.get("arch", "sm_90")
    out = {"arch": arch, "runs": runs, "nvcc": {}, "numba": {}, "numba_first": {}, "here": {}}
    tsv = bundle.path("compile_here.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 4 and parts[0] != "module":
                    out["here"].setdefault(parts[0], {})[parts[1]] = None if parts[2] == "-" else float(parts[2])
    nvcc = find_nvcc()
    tmp = tempfile.mkdtemp(prefix="pykc-bench-")
    try:
        if nvcc:
            v = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
            m = re.search(r"release [0-9.]+, V[0-9.]+", v)
            out["nvcc_version"] = "nvcc " + (m.group(0) if m else "?")
            for m in modules:
                cu = bundle.path("suite", m + ".cu")
                cmd = [nvcc, "-ptx", "-O3", f"-arch={arch}", cu, "-o", os.path.join(tmp, m + ".ptx")]
                ts = []
                for r in range(runs + 1):  # the first run fills the file cache
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd, capture_output=True, text=True)
                    if p.returncode != 0:
                        log(f"compile: nvcc failed on {m}: {p.stderr.strip()[:200]}")
                        ts = []
                        break
                    if r:
                        ts.append((time.perf_counter() - t0) * 1000)
                if ts:
                    out["nvcc"][m] = statistics.median(ts)
        else:
            log("compile: no nvcc here")
        try:
            import numba_compile
            am = re.fullmatch(r"sm_(\d+)(\d)[af]?", arch)
            cc = (int(am.group(1)), int(am.group(2))) if am else (9, 0)
            for m in modules:
                try:
                    mod = numba_compile.load_module(bundle.path("pykc-C", m + ".pyk"))
                    found = numba_compile.kernels(mod)
                    t0 = time.perf_counter()
                    numba_compile.compile_all(found, cc)
                    out["numba_first"][m] = (time.perf_counter() - t0) * 1000
                    ts = []
                    for _ in range(runs):
                        t0 = time.perf_counter()
                        numba_compile.compile_all(found, cc)
                        ts.append((time.perf_counter() - t0) * 1000)
                    out["numba"][m] = statistics.median(ts)
                except Exception as e:  # noqa: BLE001
                    log(f"compile: numba-cuda on {m}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        except ImportError as e:
            log(f"compile: numba-cuda does not import: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------
# The report


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def ratio(res, a, b):
    ta, tb = res["ms"].get(a), res["ms"].get(b)
    return ta / tb if ta and tb else None


def fmt(x, spec=".3f", missing="-"):
    return missing if x is None else format(x, spec)


def cell(res, impl):
    st = res["status"].get(impl)
    if st == "ok" and impl in res["ms"]:
        return fmt(res["ms"][impl])
    return st or "-"


def slug(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "gpu"


def versions():
    from importlib import metadata
    out = {"python": platform.python_version()}
    for pkg in ("numpy", "cupy-cuda13x", "cupy-cuda12x", "cupy", "numba", "numba-cuda", "matplotlib", "PyYAML"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def write_report(results_dir, data, chart):
    env, bundle = data["env"], data["bundle"]
    cases = data["cases"]
    lines = []
    w = lines.append
    w(f"# pykc, nvcc and numba-cuda on {env['gpu']}")
    w("")
    w(f"- GPU: {env['gpu']} (compute capability {env['cc']}, {env['sms']} multiprocessors"
      + (f", max SM clock {env['max_sm_clock']}, {env['memory']}" if env.get("max_sm_clock") else "") + ")")
    w(f"- driver: {env.get('driver', '?')} (CUDA {env.get('cuda_driver_api', '?')}); CUDA runtime "
      f"{env.get('cuda_runtime', '?')}" + (f"; {data['compile']['nvcc_version']}" if data.get("compile", {})
                                           .get("nvcc_version") else ""))
    v = data["versions"]
    w("- Python " + v.get("python", "?") + ", " + ", ".join(f"{k} {v[k]}" for k in v if k != "python"))
    w(f"- date: {data['date']}; commit {bundle.get('commit', '?')} (bundle built {bundle.get('date', '?')} with "
      f"{bundle.get('pykc', 'pykc')}, {bundle.get('nvcc', 'nvcc')}, arch {bundle.get('arch', '?')})")
    w(f"- method: median of {data['reps']} rounds after warm-up; each round one launch, then a batch of "
      f"back-to-back launches between two CUDA events (batch size in the JSON); outputs checked against NumPy first")
    cp = data.get("copy")
    if cp:
        w(f"- device-to-device copy (cudaMemcpyAsync, {cp['bytes'] / 2**30:.0f} GiB): {cp['ms']:.3f} ms, "
          f"{cp['gbs']:.0f} GB/s counting bytes read and written: the bandwidth limit of the GB/s column")
    w("")
    w("Times in ms a launch. Ratios are times: below 1, pykc is faster. `pykc` is the `[::1]` build, "
      "`[:]/[::1]` the `[:]` build's time over it.")
    w("")
    w("| kernel | pykc ms | nvcc ms | numba ms | pykc rate | of copy | pykc/nvcc | pykc/numba | [:]/[::1] |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    r_nvcc, r_numba, r_layout = [], [], []
    for r in cases:
        if r.get("crashed"):
            w(f"| {r['kernel']} | crashed | | | | | | | |")
            continue
        t = r["ms"].get("pykc")
        rate = r["work"] / (t * 1e-3) / 1e9 if t else None
        of_copy = f"{100 * rate / cp['gbs']:.0f}%" if rate and r["unit"] == "GB/s" and cp else ""
        a, b, c = ratio(r, "pykc", "nvcc"), ratio(r, "pykc", "numba"), ratio(r, "pykc[:]", "pykc")
        r_nvcc.append(a)
        r_numba.append(b)
        r_layout.append(c)
        w(f"| {r['kernel']} | {cell(r, 'pykc')} | {cell(r, 'nvcc')} | {cell(r, 'numba')} | "
          f"{fmt(rate, '.1f', '')} {r['unit'] if rate else ''} | {of_copy} | {fmt(a)} | {fmt(b)} | {fmt(c)} |")
    g = [geomean(r_nvcc), geomean(r_numba), geomean(r_layout)]
    w(f"| **geometric mean** | | | | | | **{fmt(g[0])}** | **{fmt(g[1])}** | **{fmt(g[2])}** |")
    w("")
    data["geomeans"] = {"pykc/nvcc": g[0], "pykc/numba": g[1], "[:]/[::1]": g[2]}
    slow = [(r["kernel"], x) for r, x in zip(cases, r_layout) if x and x > 1.02]
    w(f"`[:]` within 2% of `[::1]`: {len([x for x in r_layout if x]) - len(slow)} of {len([x for x in r_layout if x])} "
      f"kernels" + (": not " + ", ".join(f"{k} ({x:.3f})" for k, x in slow) if slow else "") + ".")
    peer = [max(x for x in (a, b) if x) if a or b else None for a, b in zip(r_nvcc, r_numba)]
    g_peer = geomean(peer)
    data["geomeans"]["pykc/faster peer"] = g_peer
    over = [(r["kernel"], x) for r, x in zip(cases, peer) if x and x > PEER_TARGET]
    w("")
    w(f"Over the faster of nvcc and numba-cuda, kernel by kernel: geometric mean {fmt(g_peer)} (target at most "
      f"{PEER_GEOMEAN_TARGET}); at most {PEER_TARGET}: {len([x for x in peer if x]) - len(over)} of "
      f"{len([x for x in peer if x])} kernels" + (": not " + ", ".join(f"{k} ({x:.3f})" for k, x in over) if over
                                                  else "") + ".")
    short = [r["kernel"] for r in cases if r.get("ms") and min(r["ms"].values()) < 0.1]
    if short:
        w("")
        w(f"Under 100 us (numba-cuda's dispatcher may set its pace there, not its kernel): {', '.join(short)}.")
    notes = []
    for r in cases:
        for impl in IMPLS:
            st = r["status"].get(impl)
            if st and st not in ("ok", "skipped"):
                notes.append(f"- {r['kernel']}, {impl}: {st}" + (f": {r['detail'][impl]}" if r['detail'].get(impl) else ""))
        if r.get("crashed"):
            notes.append(f"- {r['kernel']}: the worker died running it ({r.get('detail', {}).get('crash', '')})")
    if notes:
        w("")
        w("Not timed:")
        w("")
        lines.extend(notes)
    w("")
    if chart:
        w(f"![pykc's time over nvcc's and numba-cuda's, and its builds' times over its own, per kernel]({chart})")
    else:
        w(f"No chart: {data.get('chart_error', 'matplotlib did not import')} "
          "(bench/README.md says how to carry its wheels).")
    checked_section(data, w)
    lo = data.get("launch", {})
    if any(isinstance(v, dict) for v in lo.values()):
        w("")
        w("## Launch overhead")
        w("")
        w("Host time a launch call of an empty kernel with three float32 arrays and an int64 (10 PTX parameters "
          "in pykc's ABI), one block of 32 threads; bench_launch: 2000 rounds of 256, the methods interleaved; "
          "the others: 40 rounds of 256.")
        w("")
        w("| method | us a launch (median round) | mean | best round |")
        w("| --- | ---: | ---: | ---: |")
        for k, v in lo.items():
            if isinstance(v, dict):
                w(f"| {k} | {v['median_us']:.3f} | {v['mean_us']:.3f} | {v['best_us']:.3f} |")
        raw = lo.get("raw cuLaunchKernel")
        over = [(k, lo[k]["median_us"] - raw["median_us"]) for k in ("pykrt_launch_unchecked", "pykrt_launch (checked)")
                if raw and isinstance(lo.get(k), dict)]
        if over:
            w("")
            w("Over raw cuLaunchKernel, median against median: " + ", ".join(f"{k} {d:+.3f} us" for k, d in over) +
              f" (target: checked at most +{LAUNCH_TARGET_US} us).")
    ct = data.get("compile")
    if ct:
        w("")
        w("## Compile time")
        w("")
        w(f"Milliseconds to compile each module to PTX for {ct['arch']}, the median of {ct['runs']} run(s) after a "
          "warm-up. pykc does not run on the GPU machine (no LLVM there): its column, and nvcc's beside it, come "
          f"from the machine that built the bundle ({bundle.get('host', '?')}). numba-cuda: compile_ptx of every "
          "kernel of the module in one process, warm (first: its first compilation).")
        w("")
        w("| module | pykc (bundle host) | nvcc (bundle host) | nvcc (here) | numba-cuda (here) | numba-cuda first |")
        w("| --- | ---: | ---: | ---: | ---: | ---: |")
        for m in data["modules"]:
            here = ct["here"].get(m, {})
            pk = here.get("pykc")
            w(f"| {m} | {fmt(pk, '.1f', 'refused' if m in data.get('refused', []) else '-')} | "
              f"{fmt(here.get('nvcc'), '.1f')} | {fmt(ct['nvcc'].get(m), '.1f')} | {fmt(ct['numba'].get(m), '.1f')} | "
              f"{fmt(ct['numba_first'].get(m), '.1f')} |")
        pairs = [(ct["here"][m]["pykc"], ct["here"][m]["nvcc"]) for m in data["modules"]
                 if ct["here"].get(m, {}).get("pykc") and ct["here"][m].get("nvcc")]
        if pairs:
            w("")
            w(f"On the bundle host pykc compiles {geomean([b / a for a, b in pairs]):.1f} times as fast as nvcc "
              f"(geometric mean over {len(pairs)} modules).")
    w("")
    return "\n".join(lines) + "\n"


def checked_section(data, w):
    """What the checks cost: the checked build's time over the unchecked
    one's, per kernel, against CHECKED_TARGET on the bandwidth-bound ones."""
    rows = [r for r in data["cases"] if not r.get("crashed")]
    ratios = {r["kernel"]: ratio(r, "checked", "pykc") for r in rows}
    band = [r for r in rows if r.get("bound") == "bandwidth"]
    g_band = geomean([ratios[r["kernel"]] for r in band])
    g_all = geomean(list(ratios.values()))
    data["geomeans"].update({"checked/unchecked": g_all, "checked/unchecked bandwidth-bound": g_band})
    w("")
    w("## Checked kernels")
    w("")
    w("`pykc --checks=all` (every index against its extent, every integer `//` and `%` against zero, asserts) "
      "of the `[::1]` source, beside the unchecked `[::1]` build (`pykc`), timed in the same rounds; its outputs "
      "are checked as the others', and no check may have failed (the module's `pykc_exception`, read after the "
      "launch). Bandwidth-bound: the kernels whose work is bytes moved (the GB/s ones). The target: checked/"
      f"unchecked at most {CHECKED_TARGET} on those.")
    w("")
    w("| kernel | bound | pykc ms | checked ms | checked/unchecked |")
    w("| --- | --- | ---: | ---: | ---: |")
    for r in rows:
        x = ratios[r["kernel"]]
        over = x is not None and r.get("bound") == "bandwidth" and x > CHECKED_TARGET
        w(f"| {r['kernel']} | {r.get('bound', '?')} | {cell(r, 'pykc')} | {cell(r, 'checked')} | "
          + (f"**{fmt(x)}**" if over else fmt(x)) + " |")
    w(f"| **geometric mean, bandwidth-bound** | | | | **{fmt(g_band)}** |")
    w(f"| **geometric mean, all** | | | | **{fmt(g_all)}** |")
    timed = [(r["kernel"], ratios[r["kernel"]]) for r in band if ratios[r["kernel"]]]
    over = [(k, x) for k, x in timed if x > CHECKED_TARGET]
    w("")
    w(f"Bandwidth-bound kernels within {CHECKED_TARGET}: {len(timed) - len(over)} of {len(timed)}"
      + (": not " + ", ".join(f"{k} ({x:.3f})" for k, x in over) if over else "") + ".")


def write_chart(path, cases, title):
    """Bars from 1 to each ratio, on a log scale: left of 1, pykc is faster."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    rows = [r for r in cases if not r.get("crashed")]
    series = [("pykc / nvcc", "pykc", "nvcc"), ("pykc / numba-cuda", "pykc", "numba"),
              ("pykc [:] / [::1]", "pykc[:]", "pykc"), ("pykc checked / unchecked", "checked", "pykc")]
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(rows) + 1.8))
    h = 0.8 / len(series)
    vals = []
    for k, (label, a, b) in enumerate(series):
        v = [ratio(r, a, b) for r in rows]
        vals += [x for x in v if x]
        ax.barh([i + (k - (len(series) - 1) / 2) * h for i in range(len(rows))], [(x - 1) if x else 0 for x in v],
                left=1, height=h, label=label)
    ax.set_xscale("log")
    lo = min([0.5] + [0.9 * x for x in vals])
    hi = max([2.0] + [1.1 * x for x in vals])
    ax.set_xlim(lo, hi)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["kernel"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("time ratio (log scale; left of 1: the first named is faster)")
    ax.set_title(title, fontsize=10)
    ticks = [t for t in (0.25, 0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 4.0) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2, fontsize=9, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------
# Worker and driver


def select(problems, pattern):
    return [p for p in problems if not pattern or fnmatch.fnmatch(p.__name__, pattern)]


def worker(opts):
    """Runs the problems from opts.start on, writing one JSON line a result
    to opts.out, flushed as it goes."""
    import cases
    warnings.simplefilter("ignore")
    if opts.device == "mock":
        dev = MockDevice(opts.simulate)
    else:
        dev = CupyDevice()
    bundle = Bundle(opts.bundle)
    ctx = cases.Context("tiny" if dev.mock else "full")
    probs = select(cases.PROBLEMS, opts.k)
    out = open(opts.out, "a", buffering=1)

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def log(msg):
        print(msg, flush=True)

    if opts.start == 0:
        emit({"kind": "env", "env": dev.env()})
        if not opts.no_copy:
            emit({"kind": "copy", "copy": dev.copy_bandwidth(1 << 30, opts.reps)})
    module = None
    for i in range(opts.start, len(probs)):
        emit({"kind": "start", "index": i, "kernel": probs[i].__name__})
        t0 = time.time()
        prob = probs[i](ctx)
        if module is not None and prob.module != module:
            ctx.drop()
        module = prob.module
        res = run_problem(dev, bundle, prob, opts, log)
        res["index"] = i
        res["wall_s"] = round(time.time() - t0, 2)
        emit({"kind": "case", "case": res})
        st = " ".join(f"{k}={fmt(res['ms'][k]) if k in res['ms'] else res['status'].get(k)}" for k in IMPLS)
        log(f"[{i + 1}/{len(probs)}] {res['kernel']:<16} {st}  ({res['wall_s']} s)")
    if not opts.no_launch:
        emit({"kind": "launch", "launch": launch_overhead(dev, bundle, log)})
    if dev.mock:
        emit({"kind": "mockstats", "checked": dev.checked, "records": dev.records})
    emit({"kind": "done"})
    out.close()


def drive(opts):
    """Runs workers until every problem has a result, then the compile
    times, then the report."""
    import cases
    bundle = Bundle(opts.bundle)
    probs = select(cases.PROBLEMS, opts.k)
    tmp = tempfile.mkdtemp(prefix="pykc-bench-")
    lines_path = os.path.join(tmp, "results.jsonl")
    start, attempts = 0, 0
    env = dict(os.environ)
    if opts.simulate:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    deadline = time.time() + opts.timeout
    while attempts < 6:
        attempts += 1
        cmd = [sys.executable, os.path.abspath(__file__), opts.bundle, "--worker", "--start", str(start),
               "--out", lines_path, "--reps", str(opts.reps), "--device", opts.device]
        for flag in ("no_numba", "no_launch", "simulate", "verbose", "no_copy"):
            if getattr(opts, flag):
                cmd.append("--" + flag.replace("_", "-"))
        if opts.k:
            cmd += ["-k", opts.k]
        try:
            rc = subprocess.run(cmd, env=env, timeout=max(30, deadline - time.time())).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        records = read_lines(lines_path)
        if any(r["kind"] == "done" for r in records):
            break
        # the worker died: the problem it had started gets a crash record,
        # and the next worker starts after it
        started = [r for r in records if r["kind"] == "start"]
        finished = {r["case"]["index"] for r in records if r["kind"] == "case"}
        if started and started[-1]["index"] not in finished:
            last = started[-1]
            with open(lines_path, "a") as f:
                f.write(json.dumps({"kind": "case", "case": {
                    "index": last["index"], "kernel": last["kernel"], "crashed": True, "status": {}, "ms": {},
                    "detail": {"crash": f"exit status {rc}"}}}) + "\n")
            print(f"worker died on {last['kernel']} (exit status {rc}); going on after it", flush=True)
            nxt = last["index"] + 1
        else:
            print(f"worker died after the problems (exit status {rc})", flush=True)
            nxt = len(probs) + 1  # in the launch overhead: no retry
        if rc == "timeout" or nxt > len(probs) or nxt <= start:
            break
        start = nxt
    records = read_lines(lines_path)
    shutil.rmtree(tmp, ignore_errors=True)
    data = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "reps": opts.reps,
            "bundle": bundle.info, "versions": versions(), "modules": [m for m in cases.MODULES if m in bundle.info.get("modules", cases.MODULES)],
            "cases": [], "env": {}}
    data["refused"] = bundle.info.get("refused", [])
    byindex = {}
    for r in records:
        if r["kind"] == "env":
            data["env"] = r["env"]
        elif r["kind"] == "copy":
            data["copy"] = r["copy"]
        elif r["kind"] == "case":
            byindex[r["case"]["index"]] = r["case"]
        elif r["kind"] == "launch":
            data["launch"] = r["launch"]
        elif r["kind"] == "mockstats":
            data["mockstats"] = {"checked": r["checked"], "records": r["records"]}
    data["cases"] = [byindex[i] for i in sorted(byindex)]
    if not data["env"]:
        data["env"] = {"gpu": "unknown GPU", "cc": "?", "sms": "?"}
    if not opts.no_compile:
        print("compile times ...", flush=True)
        mods = data["modules"] if not opts.k else [m for m in data["modules"]
                                                   if any(c.get("module") == m for c in data["cases"])]
        if opts.compile_modules:
            mods = [m for m in mods if m in opts.compile_modules.split(",")]
        data["compile"] = compile_times(bundle, mods, opts.compile_runs, lambda m: print(m, flush=True))
    os.makedirs(opts.results, exist_ok=True)
    base = os.path.join(opts.results, slug(data["env"]["gpu"]))
    chart = None
    try:
        write_chart(base + ".png", data["cases"], f"pykc, nvcc and numba-cuda on {data['env']['gpu']} "
                    f"({data['date'][:10]}, {bundle.info.get('commit', '?')})")
        chart = os.path.basename(base) + ".png"
    except ImportError as e:
        data["chart_error"] = f"matplotlib did not import ({e})"
    except Exception as e:  # noqa: BLE001 - the chart is optional
        data["chart_error"] = f"the chart failed: {type(e).__name__}: {e}"
    report = write_report(opts.results, data, chart)
    with open(base + ".md", "w") as f:
        f.write(report)
    with open(base + ".json", "w") as f:
        json.dump(data, f, indent=1)
    print(report)
    print(f"wrote {base}.md, {base}.json" + (f", {base}.png" if chart else " (no chart)"))
    return data


def read_lines(path):
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass  # a line cut short by a dying worker
    return out


# ---------------------------------------------------------------------------
# Self-test (no GPU)


def self_test(opts):
    """The runner's logic on a mocked device: bundle, manifests (the
    fallback YAML reader against PyYAML), packing against each PTX's
    parameter list, references against their checks, the report."""
    import cases
    failures = []
    passed = 0

    def check(cond, what):
        nonlocal passed
        if cond:
            passed += 1
        else:
            failures.append(what)
            print(f"self-test: FAILED: {what}", flush=True)

    bundle = Bundle(opts.bundle)
    # the YAML reader, against PyYAML where it imports
    manifests = []
    for d in ("pykc-A", "pykc-C", "pykc-checked", "launch"):
        for name in sorted(os.listdir(bundle.path(d))) if os.path.isdir(bundle.path(d)) else []:
            if name.endswith(".yaml"):
                manifests.append(bundle.path(d, name))
    check(len(manifests) > 0, "the bundle has manifests")
    try:
        import yaml
    except ImportError:
        yaml = None
    for p in manifests:
        with open(p) as f:
            text = f.read()
        try:
            mine = mini_yaml(text)
        except YamlError as e:
            check(False, f"{p}: the fallback YAML reader failed: {e}")
            continue
        if yaml is not None:
            check(mine == yaml.safe_load(text), f"{p}: the fallback YAML reader disagrees with PyYAML")
        ptx = os.path.join(os.path.dirname(p), mine["targets"][0]["file"])
        with open(ptx, "rb") as f:
            check(fnv1a64(f.read()) == mine["targets"][0]["digest"], f"{ptx}: digest")
    sample = ("format: 1\nkernels:\n  - name: k  # c\n    params: [{a: 'x''y', b: \"q\\n\"}, []]\n"
              "    n: -3\nlist:\n- 1\n- {x: [1, 2]}\nempty: []\n")
    want = {"format": 1, "kernels": [{"name": "k", "params": [{"a": "x'y", "b": "q\n"}, []], "n": -3}],
            "list": [1, {"x": [1, 2]}], "empty": []}
    check(mini_yaml(sample) == want, "the fallback YAML reader on a sample")
    site = {"exceptions": [{"code": 1, "kind": "bounds", "type": "IndexError", "file": "v.pyk", "line": 6, "column": 9},
                           {"code": 2, "kind": "div0", "type": "ZeroDivisionError", "file": "v.pyk", "line": 7},
                           {"code": 3, "kind": "raise", "type": "AssertionError", "message": "m", "file": "v.pyk",
                            "line": 8}]}
    check(check_failure(site, (1, [1000, 0, 1000], [64, 0, 0, 3, 0, 0]))
          == "v.pyk:6:9: error: index 1000 out of bounds for axis 0 with size 1000 (thread 64 of block 3)"
          and check_failure(site, (2, [0, 0, 0], [1, 2, 0, 3, 4, 0]), 2)
          == "v.pyk:7: error: integer division or modulo by zero (thread (1, 2) of block (3, 4))"
          and check_failure(site, (3, None, None)) == "v.pyk:8: error: AssertionError: m"
          and "does not list" in check_failure(site, (9, None, None)), "a failed check's message")
    check(choose_target({"targets": [{"arch": "sm_75", "kind": "ptx"}, {"arch": "sm_90", "kind": "ptx"},
                                     {"arch": "sm_100", "kind": "ptx"}]}, (9, 0))["arch"] == "sm_90", "target choice")
    # every module compiled, but those pykc does not support yet
    refused = set(bundle.info.get("refused", []))
    for m in cases.MODULES:
        for impl in PYKC_IMPLS:
            manifest, where = bundle.pykc(impl, m)
            if m in EXPECTED_UNSUPPORTED:
                if manifest is not None:
                    print(f"self-test: note: pykc now compiles {m}: take it out of bench/suite/unsupported.txt", flush=True)
            else:
                check(manifest is not None, f"pykc compiled {m} ({impl}): {where}")
            if manifest is not None:
                checks = {tuple(k.get("checks") or ()) for k in manifest["kernels"]}
                want = {("bounds", "div0", "assert")} if impl == "checked" else {()}
                check(checks == want, f"{m} ({impl}): the kernels check {sorted(checks)}, expected {sorted(want)}")
        check(bundle.nvcc_ptx(m) is not None, f"nvcc compiled {m}")
    check(refused == EXPECTED_UNSUPPORTED or not refused - EXPECTED_UNSUPPORTED,
          f"pykc refused only {sorted(EXPECTED_UNSUPPORTED)} (refused: {sorted(refused)})")
    # the run, mocked
    results = tempfile.mkdtemp(prefix="pykc-bench-results-")
    try:
        opts.results = results
        opts.device = "mock"
        opts.no_compile = opts.no_compile
        data = drive(opts)
        probs = select(cases.PROBLEMS, opts.k)
        check(len(data["cases"]) == len(probs), f"a result for each of {len(probs)} problems")
        for r in data["cases"]:
            for impl in IMPLS:
                st = r["status"].get(impl)
                expected = "unsupported" if impl in PYKC_IMPLS and r["module"] in EXPECTED_UNSUPPORTED else "ok"
                if opts.no_numba and impl == "numba":
                    expected = "skipped"
                check(st == expected, f"{r['kernel']} {impl}: {st}, expected {expected}: {r['detail'].get(impl, '')}")
        stats = data.get("mockstats", {})
        check(stats.get("checked", 0) > 0, "launches checked against the PTX parameter lists")
        check(stats.get("records", 0) >= 2 * len([r for r in data["cases"] if r["status"].get("checked") == "ok"]),
              "the checked kernels' records read before and after their timing")
        # a check that fails on the GPU makes the checked kernel's output wrong
        dev = MockDevice(False)
        dev.fake_code = 1
        r = run_problem(dev, bundle, cases.vadd(cases.Context("tiny")), opts, lambda msg: None)
        check(r["status"].get("checked") == "wrong"
              and "error: index 7 out of bounds for axis 0 with size 5 (thread 3 of block 1)" in r["detail"].get("checked", "")
              and r["status"].get("pykc") == "ok", f"a failed check is reported: {r['status']} {r['detail']}")
        lines = []
        fake = {"geomeans": {}, "cases": [
            {"kernel": "kb", "bound": "bandwidth", "status": {"pykc": "ok", "checked": "ok"}, "ms": {"pykc": 1.0, "checked": 1.5}},
            {"kernel": "kc", "bound": "compute", "status": {"pykc": "ok", "checked": "ok"}, "ms": {"pykc": 1.0, "checked": 2.0}},
            {"kernel": "kd", "bound": "bandwidth", "status": {"pykc": "ok", "checked": "ok"}, "ms": {"pykc": 1.0, "checked": 1.1}}]}
        checked_section(fake, lines.append)
        check("| kb | bandwidth | 1.000 | 1.500 | **1.500** |" in lines and "| kc | compute | 1.000 | 2.000 | 2.000 |" in lines
              and "Bandwidth-bound kernels within 1.3: 1 of 2: not kb (1.500)." in lines
              and abs(fake["geomeans"]["checked/unchecked bandwidth-bound"] - math.sqrt(1.5 * 1.1)) < 1e-12,
              "the checked table marks the bandwidth-bound kernels over the target")
        band = {r["kernel"] for r in data["cases"] if r.get("bound") == "bandwidth"}
        ran = {r["kernel"] for r in data["cases"]}
        check({"vadd", "saxpy", "stencil_ji", "transpose"} & ran <= band and not {"matmul_tiled", "nbody_step"} & band,
              f"the bandwidth-bound kernels: {sorted(band)}")
        check(data["geomeans"].get("checked/unchecked bandwidth-bound") is not None, "checked/unchecked geometric mean")
        md = os.path.join(results, slug(data["env"]["gpu"]) + ".md")
        check(os.path.exists(md), "the report is written")
        if os.path.exists(md):
            with open(md) as f:
                text = f.read()
            r = data["cases"][0]
            check("geometric mean" in text and f"| {r['kernel']} |" in text, "the report has its table")
            row = (f"| {r['kernel']} | {r['bound']} | {cell(r, 'pykc')} | {cell(r, 'checked')} | "
                   f"{fmt(ratio(r, 'checked', 'pykc'))} |")
            check("## Checked kernels" in text and row in text and "Bandwidth-bound kernels within 1.3:" in text,
                  "the report has the checked/unchecked table")
    finally:
        shutil.rmtree(results, ignore_errors=True)
    print(f"self-test: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


def expected_unsupported():
    """The modules that pykc does not compile yet (bench/suite/unsupported.txt)."""
    with open(os.path.join(HERE, "suite", "unsupported.txt")) as f:
        return {ln.split()[0] for ln in f if ln.strip() and not ln.startswith("#")}


EXPECTED_UNSUPPORTED = expected_unsupported()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", help="the directory bench/bundle.sh wrote (build/bench)")
    ap.add_argument("--results", default=os.path.join(HERE, "results"), help="where the report goes (bench/results)")
    ap.add_argument("--reps", type=int, default=25, help="timed rounds a kernel (at least 20 for the report)")
    ap.add_argument("-k", metavar="PATTERN", help="only the problems whose name matches (fnmatch)")
    ap.add_argument("--no-numba", action="store_true", help="leave numba-cuda's kernels out")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile times")
    ap.add_argument("--no-launch", action="store_true", help="skip the launch overhead")
    ap.add_argument("--no-copy", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--compile-runs", type=int, default=3, help="timed compilations a module (3)")
    ap.add_argument("--compile-modules", help="time the compilation of these modules only (comma-separated)")
    ap.add_argument("--timeout", type=float, default=360, help="seconds for all the GPU work (360)")
    ap.add_argument("--self-test", action="store_true", help="no GPU: the runner against a mocked device")
    ap.add_argument("--simulate", action="store_true", help="with --self-test: kernels under numba-cuda's simulator")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--device", default="cupy", choices=["cupy", "mock"], help=argparse.SUPPRESS)
    opts = ap.parse_args()
    opts.bundle = os.path.abspath(opts.bundle)
    try:
        import numpy as np
        if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
            np.row_stack = np.vstack
    except ImportError:
        raise SystemExit("gpu_bench.py needs NumPy")
    if opts.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if opts.worker:
        worker(opts)
        return 0
    if opts.self_test:
        return self_test(opts)
    if opts.reps < 20:
        print(f"note: {opts.reps} rounds; the report asks for at least 20", file=sys.stderr)
    data = drive(opts)
    bad = [r["kernel"] for r in data["cases"] if r.get("crashed") or any(
        s in ("wrong", "error") for s in r["status"].values())]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
