#!/usr/bin/env python3
"""The conformance suite without a GPU, for `make test`:

    python3 tests/conformance/selftest.py PYKC OUT

  1. pykc compiles every module into OUT (build.py) and refuses exactly the
     kernels of known-refusals.txt (a test a module, one a listed kernel);
  2. every case parses: its module and kernel exist, every kernel has a
     case, the arguments are made (a test a case), its NumPy reference, if
     it has one, runs on them (another);
  3. every case's arguments fit pykc's manifest and pack to the PTX entry's
     parameter list (run.py --dry-run; a test a case);
  4. no name of the checklist is left untested (checklist.py; one test).

Steps 2 and 3 need NumPy, and numba-cuda for the random states; without
them their tests are reported skipped. Prints `N passed, N failed, N
skipped` last; exits 1 if something failed.
"""
import io
import os
import subprocess
import sys
import contextlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

passed = failed = skipped = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print(f"test-conformance: FAILED: {msg}")


def known_refusals():
    out = {}
    with open(os.path.join(HERE, "known-refusals.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, _, why = line.strip().partition("  ")
                out[name] = why
    return out


def comparisons(np, harness):
    """The comparison of run.py on values whose answer is known."""
    f = np.array([1.0, np.nan, -0.0, 3.0], np.float32)
    up = np.nextafter(f, np.float32(np.inf))
    nan2 = np.array([np.nan], np.float64)
    nan2.view(np.uint64)[0] |= np.uint64(1)  # another NaN payload
    checks = [
        (f, f.copy(), harness.EXACT, False, True),
        (f[[0, 3]], up[[0, 3]], harness.EXACT, False, False),
        (f[[0, 3]], up[[0, 3]], harness.ulp(1), False, True),
        (f[[0]], np.nextafter(up[[0]], np.float32(9)), harness.ulp(1), False, False),
        (np.array([-0.0]), np.array([0.0]), harness.EXACT, False, False),
        (np.array([np.nan]), nan2, harness.EXACT, False, True),
        (np.array([1e-300]), np.array([-1e-300]), harness.ulp(1, atol=1e-299), False, True),
        (np.array([1.0]), np.array([np.nan]), harness.ulp(4), False, False),
        (np.array([3, 1, 2], np.int64), np.array([1, 2, 3], np.int64), harness.EXACT, True, True),
        (np.array([3, 1, 2], np.int64), np.array([1, 2, 3], np.int64), harness.EXACT, False, False),
        (np.array([1 + 2j], np.complex64), np.array([1 + np.nextafter(np.float32(2), np.float32(3)) * 1j],
                                                    np.complex64), harness.ulp(1), False, True),
        (np.array([2.0], np.float16), np.array([2.002], np.float16), harness.EXACT, False, False),
    ]
    for k, (got, want, tol, unordered, same) in enumerate(checks):
        d = harness.compare(got, want, tol, unordered)
        if (d is None) == same:
            ok()
        else:
            bad(f"compare check {k}: {got!r} against {want!r} ({tol}): " + (d or "equal"))


def main():
    global skipped
    pykc, out = sys.argv[1], sys.argv[2]
    import build
    refused, nmod = build.build(out, pykc, quiet=True)
    known = known_refusals()
    whole = {(a, m) for (a, m, k) in refused if k is None}
    alone = {f"{a}/{m}.{k}": msg for (a, m, k), msg in refused.items() if k is not None}
    for area in build.sorted_areas():
        for module in build.modules_of(area):
            if (area, module) not in whole:
                ok()
            elif not any(n.startswith(f"{area}/{module}.") for n in alone):
                bad(f"pykc refused {area}/{module} but no kernel of it alone: {refused[(area, module, None)]}")
            else:
                ok()  # its refused kernels are counted below
    for name, msg in sorted(alone.items()):
        if name in known:
            ok()
        else:
            bad(f"pykc refuses {name} (not in known-refusals.txt): {msg}")
    for name in sorted(known):
        if name not in alone:
            bad(f"{name} is in known-refusals.txt but pykc compiles it now: take it off the list")

    # the checklist
    p = subprocess.run([sys.executable, os.path.join(HERE, "checklist.py")], capture_output=True, text=True)
    if p.returncode == 0:
        ok()
    else:
        bad("checklist.py:\n" + p.stdout + p.stderr)

    try:
        import numpy as np
        if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
            np.row_stack = np.vstack
        import numba.cuda  # noqa: F401
    except Exception as e:
        import harness
        n = sum(open(os.path.join(HERE, a, "cases.py")).read().count("\ncase(") + 1 for a in harness.areas())
        skipped += 2 * n
        print(f"test-conformance: NumPy or numba-cuda cannot be imported ({type(e).__name__}: {e}): "
              f"the {n} cases are not checked (skipped)")
        return
    import harness
    import run
    comparisons(np, harness)
    cases = harness.load_cases()
    kernels = {}
    for area in build.sorted_areas():
        for module in build.modules_of(area):
            with open(os.path.join(HERE, area, module + ".pyk")) as f:
                kernels[(area, module)] = {k for k, _, _ in build.kernels_of(f.read())}
    used = set()
    for c in cases:
        ks = kernels.get((c.area, c.module))
        if ks is None:
            bad(f"case {c.name}: no module {c.area}/{c.module}.pyk")
            continue
        if c.kernel not in ks:
            bad(f"case {c.name}: {c.module}.pyk has no kernel {c.kernel}")
            continue
        used.add((c.area, c.module, c.kernel))
        try:
            args = harness.build_args(c.args, run.case_rng(c))
            ok()
        except Exception as e:
            bad(f"case {c.name}: its arguments: {type(e).__name__}: {e}")
            continue
        if c.reference:
            try:
                run.reference_outputs(c, args)
                ok()
            except Exception as e:
                bad(f"case {c.name}: its NumPy reference: {type(e).__name__}: {e}")
    for (area, module), ks in sorted(kernels.items()):
        for k in sorted(ks):
            if (area, module, k) not in used:
                bad(f"kernel {area}/{module}.{k} has no case")
    bundle = run.Bundle(out)
    for c in cases:
        if f"{c.area}/{c.module}.{c.kernel}" in known:
            skipped += 1  # pykc refuses it, as known-refusals.txt says
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                run.dry_case(bundle, c, harness.build_args(c.args, run.case_rng(c)))
            ok()
        except Exception as e:
            bad(f"case {c.name} against pykc's manifest: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)
