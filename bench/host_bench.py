#!/usr/bin/env python3
"""The benchmark suite on the CPU: pykc's host target (pykc --target host,
run by libpykrt's host device) against numba-cuda's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1), the two ways to run these kernels without a GPU.

    python3 bench/host_bench.py DIR [--results DIR] [--reps N] [-k PATTERN]
    python3 bench/host_bench.py DIR --scale full --gpu bench/results/GPU.json

DIR holds the suite's modules built for the host (`make bench-host`:
build/bench-host/NAME.so and NAME.yaml). For each problem of
bench/suite/cases.py at the "tiny" scale (a few blocks: the simulator runs
every thread as Python) both run the same .pyk on the same inputs; each
output is checked against the NumPy reference before it is timed. pykc's
time is the median of --reps launches (the launch waits for the kernel),
the simulator's the median of three. The ratio is the simulator's time
over pykc's; kernels the simulator cannot run (warp shuffles) have pykc's
time alone. Writes RESULTS/host-<cpu>.md and .json (default bench/results)
and prints the table; the last line gives the geometric mean of the ratios.

--scale full runs the GPU benchmark's own problems (about 1 GB moved a
launch) on the CPU alone, for the record: --gpu names a report of
bench/gpu_bench.py, whose pykc time of each kernel on the GPU stands beside
the CPU's (host-<cpu>-full.md).
"""
import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "suite"))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported
import host_launch  # noqa: E402

host_launch.use_host_device()

import numpy as np  # noqa: E402

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

import cases  # noqa: E402


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fresh_io(prob):
    io = {k: v.copy() for k, v in prob.inputs.items()}
    for k, spec in prob.outputs.items():
        io[k] = spec.copy() if hasattr(spec, "shape") else np.zeros(spec[0], spec[1])
    return io


def numba_args(prob, io):
    """The .pyk's arguments, As views as their dtype (the random states
    as numba.cuda.random's records): numba-cuda's, and pykrt's."""
    out = []
    for a in (prob.numba or prob.pyk):
        if isinstance(a, cases.As):
            out.append(io[a.name].view(a.dtype))
        else:
            out.append(io[a] if isinstance(a, str) else a)
    return out


def check(prob, io):
    for name, expect in prob.expect.items():
        why = expect.compare(io[name])
        if why:
            return f"{name}: {why}"
    return None


def timed(prepare, run, reps):
    """The median time of run(prepare()): the inputs made before the clock
    starts (fresh outputs, copies of the inputs)."""
    times = []
    for _ in range(reps):
        io = prepare()
        t0 = time.perf_counter()
        run(io)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_pykc(modules, dir_, prob, reps):
    manifest = os.path.join(dir_, prob.module + ".yaml")
    if not os.path.exists(manifest):
        return None, "not built for the host"
    io = fresh_io(prob)
    modules.launch(manifest, prob.kernel, prob.grid, prob.block, 0, numba_args(prob, io))
    why = check(prob, io)
    if why:
        return None, "wrong: " + why

    def launch(io2):
        modules.launch(manifest, prob.kernel, prob.grid, prob.block, 0, numba_args(prob, io2))
    return timed(lambda: fresh_io(prob), launch, reps), None


def numba_kernel(prob, loaded):
    if prob.module not in loaded:
        import importlib.machinery
        import importlib.util
        path = os.path.join(HERE, "suite", prob.module + ".pyk")
        loader = importlib.machinery.SourceFileLoader("sim_" + prob.module, path)
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("sim_" + prob.module, loader))
        loader.exec_module(mod)
        loaded[prob.module] = mod
    return getattr(loaded[prob.module], prob.kernel)


def run_simulator(prob, loaded, scale):
    if scale == "full":
        return None, None
    if not prob.sim:
        return None, "the simulator cannot run it"
    kern = numba_kernel(prob, loaded)
    grid = prob.grid if len(prob.grid) > 1 else prob.grid[0]
    block = prob.block if len(prob.block) > 1 else prob.block[0]

    def launch(io):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kern[grid, block](*numba_args(prob, io))
    io = fresh_io(prob)
    launch(io)
    why = check(prob, io)
    if why:
        return None, "wrong: " + why
    return timed(lambda: fresh_io(prob), launch, 3), None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def write_report(path, rows, cpu, threads, scale, gpu):
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    with open(path + ".json", "w") as f:
        json.dump({"cpu": cpu, "threads": threads, "scale": scale, "gpu": gpu, "cases": rows,
                   "geomean_ratio": geomean(ratios)}, f, indent=1)
    with open(path + ".md", "w") as f:
        if scale == "full":
            f.write("# The suite on the CPU and on the GPU: pykc's host target against its GPU code\n\n")
            f.write(f"{cpu}, {threads} worker threads, against {gpu or 'no GPU report'}; the GPU benchmark's "
                    f"problems (bench/host_bench.py --scale full).\n\n")
            f.write("| kernel | pykc host (ms) | pykc GPU (ms) | host / GPU |\n|---|---:|---:|---:|\n")
        else:
            f.write("# The suite on the CPU: pykc's host target against numba-cuda's simulator\n\n")
            f.write(f"{cpu}, {threads} worker threads; the suite's \"tiny\" problems (bench/host_bench.py).\n\n")
            f.write("| kernel | pykc host (ms) | simulator (ms) | simulator / pykc |\n|---|---:|---:|---:|\n")
        for r in rows:
            other = r.get("gpu_ms") if scale == "full" else r.get("sim_ms")
            f.write(f"| {r['kernel']} | {fmt(r.get('pykc_ms'))} | {fmt(other)} | "
                    f"{fmt(r.get('ratio'), '.0f')} |\n")
        g = geomean(ratios)
        f.write(f"\nGeometric mean of the ratios: {fmt(g, '.0f')} ({len(ratios)} kernels).\n")
        notes = [f"- {r['kernel']}: {r['note']}" for r in rows if r.get("note")]
        if notes:
            f.write("\n" + "\n".join(notes) + "\n")


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the suite built for the host (make bench-host: build/bench-host)")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("-k", default=None, help="only the kernels whose name contains this")
    ap.add_argument("--scale", choices=("tiny", "full"), default="tiny")
    ap.add_argument("--gpu", default=None, help="with --scale full: a GPU report's JSON (bench/results/GPU.json)")
    opts = ap.parse_args()
    warnings.simplefilter("ignore")
    gpu_ms = {}
    if opts.gpu:
        with open(opts.gpu) as f:
            gpu_ms = {c["kernel"]: c["ms"].get("pykc") for c in json.load(f)["cases"]}
    ctx = cases.Context(opts.scale)
    modules, loaded, rows, failed = host_launch.Modules(), {}, [], 0
    for make in cases.PROBLEMS:
        prob = make(ctx)
        if opts.k and opts.k not in prob.kernel:
            continue
        row = {"kernel": prob.kernel, "module": prob.module}
        pykc_s, why = run_pykc(modules, opts.dir, prob, opts.reps)
        sim_s, sim_why = run_simulator(prob, loaded, opts.scale)
        notes = [w for w in (why and "pykc: " + why, sim_why and "simulator: " + sim_why) if w]
        if why:
            failed += 1
        row.update(pykc_ms=pykc_s and pykc_s * 1e3, sim_ms=sim_s and sim_s * 1e3, note="; ".join(notes))
        if opts.scale == "full":
            row["gpu_ms"] = gpu_ms.get(prob.kernel)
            row["ratio"] = row["pykc_ms"] / row["gpu_ms"] if row["pykc_ms"] and row["gpu_ms"] else None
        else:
            row["ratio"] = sim_s / pykc_s if pykc_s and sim_s else None
        rows.append(row)
        other = "GPU" if opts.scale == "full" else "simulator"
        print(f"{prob.kernel:18} pykc {fmt(row['pykc_ms']):>9} ms   {other} "
              f"{fmt(row.get('gpu_ms') if opts.scale == 'full' else row['sim_ms']):>10} ms   "
              f"x{fmt(row['ratio'], '.0f'):>7}   {row['note']}", flush=True)
    threads = int(os.environ.get("PYKRT_HOST_THREADS") or os.cpu_count())
    cpu = cpu_name()
    os.makedirs(opts.results, exist_ok=True)
    slug = "host-" + "".join(ch if ch.isalnum() else "-" for ch in cpu).strip("-") + \
        ("-full" if opts.scale == "full" else "")
    write_report(os.path.join(opts.results, slug), rows, cpu, threads, opts.scale,
                 opts.gpu and os.path.basename(opts.gpu)[:-5])
    g = geomean([r["ratio"] for r in rows if r.get("ratio")])
    what = "host / GPU" if opts.scale == "full" else "simulator / pykc"
    print(f"host_bench: geometric mean of {what}: {fmt(g, '.0f')}; {failed} kernels failed; "
          f"report in {os.path.join(opts.results, slug)}.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
