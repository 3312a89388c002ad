#!/usr/bin/env python3
"""The conformance runner: every kernel of tests/conformance, run from the
same .pyk under numba-cuda and through pykc's PTX, outputs compared.

    python3 tests/conformance/run.py BUNDLE [-k PATTERN] [-j N] [-v]     (on a GPU)
    python3 tests/conformance/run.py BUNDLE --dry-run                    (no GPU)
    python3 tests/conformance/run.py HOST_BUNDLE --host REFS             (no GPU)
    python3 tests/conformance/run.py --numba-compile [-k PATTERN]        (no GPU)
    python3 tests/conformance/run.py --simulate [-k PATTERN]             (no GPU)
    python3 tests/conformance/run.py --list

BUNDLE is what tests/conformance/build.py wrote (`make check-numba`:
build/conformance). For each case of the areas' cases.py (harness.py and
docs/conformance.md describe the format) the runner

  1. makes the arguments with a NumPy generator seeded from the case's name,
  2. launches the kernel under numba-cuda (its dispatcher on the .pyk, the
     arrays copied with cuda.to_device) and reads every array back,
  3. launches pykc's kernel on fresh copies of the same arguments through
     CuPy's RawModule, packing them from the manifest alone,
  4. compares each array: integers, bools, records and random draws bit for
     bit, floats bit for bit (NaN equal to NaN) or within the case's stated
     bound in ulps.

A kernel that pykc refused is a failure, reported with pykc's message. A
case whose kernel numba-cuda cannot run (numba_fails) compares pykc with
the case's NumPy reference instead and is reported REF when they agree. A
case marked xfail (a difference that docs/compatibility.md documents) is
XFAIL while it fails and XPASS, a failure, once it passes. Cases run in
worker processes (-j, default 4): a kernel that takes its worker down (an
illegal address, a hang of more than --timeout seconds) fails alone and a
new worker goes on. The output ends with the counts by area and a line
`N passed, N failed` (then the xfail count, if any).

Without a GPU: --dry-run checks that every case's arguments fit pykc's
manifest and that the packing matches the PTX's parameter list;
--numba-compile has numba-cuda compile every kernel for the case's argument
types (compile_ptx: typing and NVVM, no GPU); --simulate runs every case
(sim=True) in numba-cuda's simulator (the cases are well-formed: the
arguments fit, no index is out of bounds).

On the GPU, --save-references DIR also writes numba-cuda's outputs of each
case (DIR/NAME.npz); tools/pack_references.py packs them into
tests/conformance/references.npz. --host REFS runs a bundle built with
`build.py --target host` on libpykrt's host device (the CPU) and compares
each case with those outputs, by the same rules: pykc's kernels checked
against the GPU's results without a GPU. A kernel that the host target
refuses by design (tests/gpu/host-refusals.txt) is skipped; any other refusal fails.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import time
import traceback
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import numpy as np  # noqa: E402

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

import harness  # noqa: E402
from harness import View, compare, build_args  # noqa: E402


def case_rng(c):
    return np.random.default_rng(zlib.crc32(c.name.encode()))


# ---------------------------------------------------------------------------
# pykc's side: the bundle


class Refused(Exception):
    pass


class Bundle:
    def __init__(self, directory):
        self.dir = directory
        self.manifests = {}
        self.modules = {}
        self.cp = None
        self.host = None

    def find(self, c, args=None):
        """(manifest path, manifest, kernel entry) of c's kernel: the
        module's, or the kernel's own where pykc refused the module as a
        whole; of several specialisations, the one the arguments fit."""
        d = os.path.join(self.dir, c.area)
        for base in (os.path.join(d, c.module), os.path.join(d, f"{c.module}.{c.kernel}")):
            if os.path.exists(base + ".yaml"):
                m = self.manifest(base + ".yaml")
                if any(k["name"] == c.kernel for k in m["kernels"]):
                    from check_kernels import item_for
                    from foreign_loader import kernels_named
                    k = item_for(m, c.module, c.kernel, args) if args is not None else kernels_named(m, c.kernel)[0]
                    return base + ".yaml", m, k
        for base in (os.path.join(d, f"{c.module}.{c.kernel}"), os.path.join(d, c.module)):
            if os.path.exists(base + ".error"):
                with open(base + ".error") as f:
                    lines = [ln for ln in f.read().splitlines() if ln.strip()]
                msg = next((ln for ln in lines if "error:" in ln), lines[0] if lines else "(no message)")
                raise Refused(f"pykc refused it: {msg}")
        if not os.path.isdir(d):
            raise RuntimeError(f"{d}: no such directory (run tests/conformance/build.py)")
        raise RuntimeError(f"the bundle has no kernel {c.kernel} of {c.area}/{c.module}")

    def manifest(self, path):
        if path not in self.manifests:
            from gpu_bench import load_manifest
            self.manifests[path] = load_manifest(path)
        return self.manifests[path]

    def function(self, c, args):
        path, m, k = self.find(c, args)
        if path not in self.modules:
            import cupy
            self.cp = cupy
            target = m["targets"][0]
            coop = any(x.get("cooperative") for x in m["kernels"])
            self.modules[path] = cupy.RawModule(path=os.path.join(os.path.dirname(path), target["file"]),
                                                enable_cooperative_groups=coop)
        return k, self.modules[path].get_function(k["entry"])


class DevArray:
    """A device array as pack() sees it: data.ptr, shape, strides, dtype,
    flags of the host array it mirrors."""

    class _Data:
        def __init__(self, ptr):
            self.ptr = ptr

    def __init__(self, ptr, host):
        self.data = self._Data(ptr)
        self.shape, self.strides, self.dtype = host.shape, host.strides, host.dtype
        self.ndim, self.flags, self.size = host.ndim, host.flags, host.size


def host_base(a):
    return a.base if isinstance(a, View) else a


def launch_pykc(bundle, c, args):
    from check_kernels import check_params, pack
    import cupy as cp
    bufs, dargs = {}, []
    for i, a in enumerate(args):
        if isinstance(a, (np.ndarray, View)):
            base = host_base(a)
            if not (base.flags.c_contiguous or base.flags.f_contiguous):
                raise RuntimeError(f"argument {i}: a view's base must be contiguous")
            raw = np.frombuffer(base.tobytes(order="A"), np.uint8)
            buf = cp.asarray(raw) if raw.size else cp.zeros(1, cp.uint8)
            bufs[i] = (buf, base)
            view = a.view if isinstance(a, View) else base
            off = 0
            if isinstance(a, View):
                off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
                if view.size == 0:
                    off = 0
            dargs.append(DevArray(buf.data.ptr + off, view))
        else:
            dargs.append(a)
    kernel, fn = bundle.function(c, dargs)
    check_params(kernel, dargs)
    packed = tuple(pack(kernel, dargs))
    fn(c.grid, c.block, packed, shared_mem=c.shared)
    cp.cuda.Device().synchronize()
    out = {}
    for i, (buf, base) in bufs.items():
        raw = cp.asnumpy(buf)[:base.nbytes]
        order = "F" if base.flags.f_contiguous and not base.flags.c_contiguous else "C"
        out[i] = np.frombuffer(raw.tobytes(), base.dtype).reshape(base.shape, order=order).copy(order=order)
    return out


def launch_pykc_host(bundle, c, args):
    """On the host device: the arrays are passed where they are."""
    import host_launch
    path, _, kernel = bundle.find(c, [a.view if isinstance(a, View) else a for a in args])
    if bundle.host is None:
        bundle.host = host_launch.Modules()
    grid = c.grid if isinstance(c.grid, tuple) else (c.grid,)
    block = c.block if isinstance(c.block, tuple) else (c.block,)
    bundle.host.launch(path, kernel["name"], grid, block, c.shared,
                       [a.view if isinstance(a, View) else a for a in args])
    return {i: host_base(a).copy(order="K") for i, a in enumerate(args) if isinstance(a, (np.ndarray, View))}


# ---------------------------------------------------------------------------
# numba-cuda's side


NUMBA_MODULES = {}


def numba_kernel(c):
    key = (c.area, c.module)
    if key not in NUMBA_MODULES:
        modname = f"conformance_{c.area}_{c.module}"
        loader = importlib.machinery.SourceFileLoader(modname, c.source)
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(modname, loader))
        # in sys.modules, as an import puts it: numba-cuda finds a function's
        # module there, and without it lowers a device function's call of
        # itself as a call of another function, which it cannot link
        # ('JITCUDACodegen' object has no attribute 'insert_unresolved_ref')
        sys.modules[modname] = mod
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loader.exec_module(mod)
        NUMBA_MODULES[key] = mod
    return getattr(NUMBA_MODULES[key], c.kernel)


def launch_numba(c, args, simulate=False):
    from numba import cuda
    kern = numba_kernel(c)
    dev, kargs = {}, []
    for i, a in enumerate(args):
        if isinstance(a, (np.ndarray, View)):
            base = host_base(a).copy(order="K")
            d = cuda.to_device(base)
            dev[i] = (d, base)
            kargs.append(d[a.key] if isinstance(a, View) else d)
        else:
            kargs.append(a)
    grid = c.grid if len(c.grid) > 1 else c.grid[0]
    block = c.block if len(c.block) > 1 else c.block[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern[grid, block, 0, c.shared](*kargs)
    cuda.synchronize()
    return {i: d.copy_to_host() for i, (d, base) in dev.items()}


def no_device_needed():
    """numba-cuda compiles a kernel's device functions for the current
    device: here, without one, for an sm_90 that stands in."""
    import numba.cuda.dispatcher as dispatcher

    class Device:
        compute_capability = (9, 0)
    dispatcher.get_current_device = lambda: Device()


def numba_signature(args):
    from numba import typeof
    return tuple(typeof(a.view if isinstance(a, View) else a) for a in args)


# ---------------------------------------------------------------------------
# One case


def run_case(bundle, c, mode, verbose):
    """(status, message): PASS or FAIL, before xfail."""
    args = build_args(c.args, case_rng(c))
    if mode == "dry":
        return dry_case(bundle, c, args)
    if mode == "compile":
        return compile_case(c, args)
    if mode == "sim":
        return simulate_case(c, args)
    if mode == "host":
        return host_case(bundle, c, args, verbose)
    if c.numba_fails:
        return reference_case(bundle, c, args, verbose)
    try:
        want = launch_numba(c, args)
    except Exception as e:
        if verbose:
            traceback.print_exc()
        return "FAIL", f"numba-cuda failed (a bad case): {type(e).__name__}: {first_line(e)}"
    if SAVE_REFERENCES:
        save_reference(c, want)
    try:
        got = launch_pykc(bundle, c, [copy_arg(a) for a in args])
    except Refused as e:
        return "FAIL", str(e)
    problems = differences(c, got, want)
    if c.reference:
        problems += differences(c, got, reference_outputs(c, args), against="the NumPy reference")
    if problems:
        return "FAIL", "; ".join(problems)
    tols = sorted({str(c.tol_for(i)) for i in want if want[i].dtype.kind in "fc"})
    return "PASS", ("floats: " + "/".join(tols)) if tols else "exact"


SAVE_REFERENCES = None   # --save-references DIR
HOST_REFERENCES = None   # --host REFS: {case name: {arg index: array}}


def reference_file(c):
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in c.name) + ".npz"


def save_reference(c, outputs):
    np.savez(os.path.join(SAVE_REFERENCES, reference_file(c)), **{str(i): a for i, a in outputs.items()})


def load_host_references(path):
    """{case name: {index: array, or SAME (the output is its input)}}."""
    global HOST_REFERENCES
    with np.load(path) as z:
        refs = {}
        for key in z.files:
            same = key.endswith("/same")
            name, _, i = (key[:-5] if same else key).rpartition("/")
            refs.setdefault(name, {})[int(i)] = SAME if same else z[key]
    HOST_REFERENCES = refs


SAME = "same"


def gpu_outputs(c, args):
    """The case's outputs on the GPU, the unwritten ones its inputs."""
    return {i: host_base(args[i]).copy(order="K") if a is SAME else a for i, a in HOST_REFERENCES[c.name].items()}


def host_case(bundle, c, args, verbose):
    """pykc's kernel on the host device against numba-cuda's outputs on
    the GPU (or, where numba-cuda cannot run it, the NumPy reference)."""
    try:
        got = launch_pykc_host(bundle, c, [copy_arg(a) for a in args])
    except Refused as e:
        import host_launch
        if host_launch.refused_by_design(str(e)):
            return "SKIP", f"the host target refuses it: {str(e).split('error: ')[-1]}"
        return "FAIL", str(e)
    if c.numba_fails:
        want, against = reference_outputs(c, args), "the NumPy reference"
    elif c.name in HOST_REFERENCES:
        want, against = gpu_outputs(c, args), "numba-cuda on the GPU"
    else:
        return "FAIL", "no GPU reference for this case: run.py --save-references on the GPU, then " \
                       "tools/pack_references.py"
    problems = differences(c, got, want, against=against, mine="pykc on the host", host=True)
    if problems:
        return "FAIL", "; ".join(problems)
    return "PASS", f"as {against}"


def differences(c, got, want, against="numba-cuda", mine="pykc", host=False):
    """What differs between two sets of outputs, an entry an argument."""
    problems = []
    for i in sorted(want):
        tol = c.tol_for(i, host=host)
        d = compare(got[i], want[i], tol, unordered=i in c.unordered, against=against, mine=mine)
        if d:
            problems.append(f"arg {i} ({tol}): {d}")
    return problems


def reference_outputs(c, args):
    """Every array argument after the case's NumPy reference ran on copies."""
    ref = [copy_arg(a) for a in args]
    c.reference(*[a.view if isinstance(a, View) else a for a in ref])
    return {i: host_base(a).copy(order="K") for i, a in enumerate(ref) if isinstance(a, (np.ndarray, View))}


def reference_case(bundle, c, args, verbose):
    """A kernel that numba-cuda cannot run (the case's numba_fails): pykc's
    outputs against the NumPy reference, reported as REF, neither a pass
    against numba-cuda nor a failure of pykc. Should numba-cuda run it, the
    case fails until numba_fails comes off."""
    try:
        launch_numba(c, args)
    except Exception as e:
        if verbose:
            traceback.print_exc()
        failure = f"{type(e).__name__}: {first_line(e)}"
    else:
        return "FAIL", f"numba-cuda runs it: compare with it and take off numba_fails ({c.numba_fails})"
    got = launch_pykc(bundle, c, [copy_arg(a) for a in args])
    problems = differences(c, got, reference_outputs(c, args), against="the NumPy reference")
    if problems:
        return "FAIL", "; ".join(problems)
    return "REF", f"matches the NumPy reference; numba-cuda cannot run it ({failure})"


def compile_case(c, args):
    """numba-cuda's compile_ptx of the kernel for the case's argument types."""
    from numba import cuda
    from numba.cuda.cudadrv.error import CudaSupportError
    try:
        kern = numba_kernel(c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cuda.compile_ptx(kern.py_func, numba_signature(args), cc=(9, 0))
    except CudaSupportError:
        return "SKIP", "numba-cuda needs a GPU to compile it"
    except Exception as e:
        if c.numba_fails:
            return "SKIP", f"numba-cuda cannot compile it, as the case says: {type(e).__name__}: {first_line(e)}"
        raise
    return "PASS", "numba-cuda compiles it"


def simulate_case(c, args):
    """The case in numba-cuda's simulator; against the case's NumPy
    reference where it has one, which checks the reference."""
    try:
        sim = launch_numba(c, args, simulate=True)
    except AttributeError as e:
        if not (str(e).startswith("tid=") and "'Fake" in str(e)):
            raise
        return "SKIP", f"the simulator lacks it: {first_line(e)}"
    except (ValueError, OverflowError, ZeroDivisionError, TypeError) as e:
        if not str(e).startswith("tid="):
            raise
        # the simulator runs the kernel as Python: math.log(-1) raises there
        return "SKIP", f"the simulator's Python semantics: {first_line(e)}"
    if c.reference:
        problems = differences(c, sim, reference_outputs(c, args), against="the NumPy reference", mine="the simulator")
        if problems:
            return "FAIL", "; ".join(problems)
        return "PASS", "runs in the simulator as the NumPy reference says"
    return "PASS", "runs in the simulator"


def exact_copy(a):
    """A copy of every byte: NumPy copies a record array field by field,
    leaving its padding as the new memory had it."""
    c = np.empty_like(a, order="K")
    if c.nbytes and c.flags.c_contiguous and a.flags.c_contiguous:
        c.view(np.uint8)[...] = a.view(np.uint8)
    else:
        np.copyto(c, a)
    return c


def copy_arg(a):
    if isinstance(a, View):
        return View(exact_copy(a.base), a.key)
    if isinstance(a, np.ndarray):
        return exact_copy(a)
    return a


def dry_case(bundle, c, args):
    from check_kernels import check_params, pack
    from gpu_bench import ptx_entry_params
    dargs = []
    for a in args:
        if isinstance(a, (np.ndarray, View)):
            h = a.view if isinstance(a, View) else a
            dargs.append(DevArray(h.__array_interface__["data"][0], h))
        else:
            dargs.append(a)
    path, m, kernel = bundle.find(c, dargs)
    check_params(kernel, dargs)
    packed = pack(kernel, dargs)
    with open(os.path.join(os.path.dirname(path), m["targets"][0]["file"])) as f:
        sizes = ptx_entry_params(f.read(), kernel["entry"])
    if sizes is None:
        raise RuntimeError(f"the PTX has no entry {kernel['entry']}")
    have = [v.dtype.itemsize for v in packed]
    if have != sizes:
        raise RuntimeError(f"packed {have} bytes, the PTX entry takes {sizes}")
    threads = int(np.prod(c.block))
    if threads > 1024:
        raise RuntimeError(f"{threads} threads a block")
    return "PASS", f"{len(packed)} PTX parameters packed"


def first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else ""


STICKY = ("illegal", "ILLEGAL", "LAUNCH_FAILED", "launch failure", "MISALIGNED", "misaligned",
          "unspecified launch", "HARDWARE_STACK", "TRAP", "context is destroyed", "UNKNOWN")


# ---------------------------------------------------------------------------
# Workers and the supervisor


def selected(cases, args):
    out = []
    for idx, c in enumerate(cases):
        if args.k and not any(k in c.name for k in args.k):
            continue
        if args.simulate and not c.sim:
            continue
        out.append(idx)
    return out


def worker(args, mode):
    cases = harness.load_cases()
    if mode == "compile":
        no_device_needed()
    bundle = Bundle(args.bundle) if args.bundle else None
    todo = [int(x) for x in args.cases.split(",")] if args.cases else selected(cases, args)
    for idx in todo:
        c = cases[idx]
        print("@@ " + json.dumps({"start": idx}), flush=True)
        sticky = False
        try:
            status, msg = run_case(bundle, c, mode, args.verbose)
        except Refused as e:
            status, msg = "FAIL", str(e)
        except Exception as e:
            if args.verbose:
                traceback.print_exc()
            status, msg = "FAIL", f"{type(e).__name__}: {first_line(e)}"
            sticky = mode == "gpu" and any(s in str(e) or s in type(e).__name__ for s in STICKY)
        print("@@ " + json.dumps({"idx": idx, "status": status, "msg": msg}), flush=True)
        if sticky:
            return 3
    return 0


def final_status(c, status, msg, mode):
    # the host is compared with numba-cuda on the GPU: its known differences hold there too
    xfail = (c.host_xfail or c.xfail) if mode == "host" else c.xfail if mode == "gpu" else None
    if xfail and status != "SKIP":
        if status == "FAIL":
            return "XFAIL", f"known difference: {xfail} ({msg})"
        return "XPASS", f"passes: take off its xfail ({xfail})"
    return status, msg


def supervise(args, mode, passthrough):
    cases = harness.load_cases()
    idxs = selected(cases, args)
    # shards: whole modules, dealt out by case count
    by_module = {}
    for i in idxs:
        by_module.setdefault((cases[i].area, cases[i].module), []).append(i)
    jobs = max(1, args.jobs)
    shards = [[] for _ in range(jobs)]
    for key in sorted(by_module, key=lambda k: -len(by_module[k])):
        min(shards, key=len).extend(by_module[key])
    shards = [sorted(s) for s in shards if s]
    results = {}
    lock = threading.Lock()
    events = queue.Queue()

    def report(idx, status, msg):
        c = cases[idx]
        status, msg = final_status(c, status, msg, mode)
        with lock:
            results[idx] = status
            if status != "PASS" or not args.quiet:
                print(f"{status:5} {c.name:56} {msg}", flush=True)

    def drive(shard):
        left = list(shard)
        while left:
            cmd = [sys.executable, os.path.abspath(__file__)] + passthrough + \
                ["--worker", "--cases", ",".join(map(str, left))]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
            current = None
            last_seen = [time.monotonic()]
            timed_out = [False]

            def watchdog():
                while proc.poll() is None:
                    if time.monotonic() - last_seen[0] > args.timeout:
                        timed_out[0] = True
                        proc.kill()
                        return
                    time.sleep(1)
            threading.Thread(target=watchdog, daemon=True).start()
            for line in proc.stdout:
                last_seen[0] = time.monotonic()
                if line.startswith("@@ "):
                    r = json.loads(line[3:])
                    if "start" in r:
                        current = r["start"]
                    else:
                        report(r["idx"], r["status"], r["msg"])
                        left.remove(r["idx"])
                        current = None
                else:
                    with lock:
                        sys.stdout.write(line)
                        sys.stdout.flush()
            proc.wait()
            if current is not None and current in left:
                why = (f"no result in {args.timeout} s (a hang?)" if timed_out[0]
                       else f"the worker process died (exit status {proc.returncode})")
                report(current, "FAIL", why)
                left.remove(current)
            elif left and proc.returncode not in (0, 3):
                for i in left:
                    report(i, "FAIL", f"the worker process failed (exit status {proc.returncode})")
                left = []

    threads = [threading.Thread(target=drive, args=(s,)) for s in shards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return summary(cases, results, mode)


def summary(cases, results, mode):
    by_area = {}
    for idx, status in results.items():
        a = by_area.setdefault(cases[idx].area, {})
        a[status] = a.get(status, 0) + 1
    print()
    print(f"{'area':16} {'cases':>5} {'pass':>5} {'fail':>5} {'xfail':>5} {'skip':>5} {'ref':>5}")
    for area in sorted(by_area):
        a = by_area[area]
        print(f"{area:16} {sum(a.values()):5} {a.get('PASS', 0):5} {a.get('FAIL', 0) + a.get('XPASS', 0):5} "
              f"{a.get('XFAIL', 0):5} {a.get('SKIP', 0):5} {a.get('REF', 0):5}")
    counts = {}
    for s in results.values():
        counts[s] = counts.get(s, 0) + 1
    passed = counts.get("PASS", 0)
    failed = counts.get("FAIL", 0) + counts.get("XPASS", 0)
    line = f"{passed} passed, {failed} failed"
    if counts.get("SKIP"):
        line += f", {counts['SKIP']} skipped"
    if counts.get("XFAIL"):
        line += f", {counts['XFAIL']} xfail (known differences)"
    if counts.get("REF"):
        line += f", {counts['REF']} matched NumPy references only (numba-cuda cannot run them)"
    if counts.get("XPASS"):
        line += f" ({counts['XPASS']} of the failures passed but are marked xfail)"
    print(line)
    return 0 if failed == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", nargs="?", default=None, help="what tests/conformance/build.py wrote")
    ap.add_argument("-k", action="append", help="only the cases whose name contains this (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=4, help="worker processes (default 4)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds a case may take (default 120)")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: arguments against pykc's manifests and PTX")
    ap.add_argument("--numba-compile", action="store_true",
                    help="no GPU: numba-cuda compiles every kernel for its case's argument types")
    ap.add_argument("--simulate", action="store_true", help="no GPU: every case in numba-cuda's simulator")
    ap.add_argument("--save-references", metavar="DIR", default=None,
                    help="on the GPU: numba-cuda's outputs of each case into DIR/NAME.npz")
    ap.add_argument("--host", metavar="REFS", default=None,
                    help="no GPU: a --target host bundle on libpykrt's host device, against the GPU's outputs "
                         "(tests/conformance/references.npz)")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the cases that do not pass")
    ap.add_argument("-v", "--verbose", action="store_true", help="tracebacks")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    mode = "dry" if args.dry_run else "compile" if args.numba_compile else "sim" if args.simulate else \
        "host" if args.host else "gpu"
    global SAVE_REFERENCES
    SAVE_REFERENCES = args.save_references
    if SAVE_REFERENCES:
        os.makedirs(SAVE_REFERENCES, exist_ok=True)
    if mode == "host":
        import host_launch
        host_launch.use_host_device()
        load_host_references(args.host)
    if args.list:
        cases = harness.load_cases()
        for idx in selected(cases, args):
            c = cases[idx]
            print(c.name + (f"   (xfail: {c.xfail})" if c.xfail else ""))
        return 0
    if mode == "sim":
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if mode in ("gpu", "dry", "host") and not args.bundle:
        ap.error("give the bundle directory (tests/conformance/build.py; make check-numba writes build/conformance)")
    if args.bundle and not os.path.isdir(args.bundle):
        ap.error(f"{args.bundle}: no such directory")
    if args.worker:
        return worker(args, mode)
    if mode == "gpu" and importlib.util.find_spec("cupy") is None:
        print("run.py: cupy is not installed (it launches pykc's kernels)", file=sys.stderr)
        return 2
    passthrough = [a for a in sys.argv[1:]]
    return supervise(args, mode, passthrough)


if __name__ == "__main__":
    sys.exit(main())
