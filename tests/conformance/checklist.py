#!/usr/bin/env python3
"""Checks that no name of the kernel language's checklist
(tests/conformance/NUMBA-API.md) is left untested: each cuda.*, math.*,
cmath.*, builtin, construct named in backticks (literal_unroll ...),
@cuda.jit option, numba.cuda.random function and
numba.cuda.libdevice function (from src/libdevice_funcs.def) must appear in
a conformance kernel (tests/conformance/*/*.pyk) or a lit test (tests/lit),
or be listed with a reason in tests/conformance/not-covered.txt. A name
listed there that a test uses is reported too (the list must be current).

    python3 tests/conformance/checklist.py [-v]

Prints the names missing and a line `N names: N covered, N listed as not
covered`; exits 1 when a name is missing or listed needlessly.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def words_after(text, label):
    """The words of the bullet `- LABEL: w1 w2 ...` (to the next bullet)."""
    m = re.search(r"^- " + re.escape(label) + r":(.*?)(?=^- |\Z)", text, re.S | re.M)
    if not m:
        raise SystemExit(f"checklist.py: the checklist has no bullet {label!r}")
    return [w.strip(".,`") for w in m.group(1).split() if re.fullmatch(r"[a-z0-9_]+[.,]?", w.strip("`"))]


def spans(text):
    return re.findall(r"`([^`]+)`", text)


def cuda_names(text):
    """cuda.* names: every backticked name of the section "cuda.* in kernels"
    (with its qualifier: atomic., fp16.), and every `cuda.X` of the file."""
    names = set()
    body = section(text, "cuda.* in kernels")
    for line in re.split(r"\n(?=- )", body):
        line = line.replace("\n", " ")
        qual = "atomic." if line.startswith("- Atomics") else ""
        for sp in spans(line):
            if sp.startswith("cuda."):
                continue  # below
            head = sp.split("(")[0]
            for w in head.split():
                if "/" in w:  # syncthreads_count/_and/_or
                    first, *rest = w.split("/")
                    names.add(qual + first)
                    stem = first[:first.rfind("_")]
                    names.update(qual + stem + r for r in rest)
                    continue
                if re.fullmatch(r"[A-Za-z_][\w.]*", w) and not w.startswith("."):
                    names.add(qual + w)
    for sp in spans(text):
        if not sp.startswith("cuda."):
            continue
        m = re.match(r"cuda\.(\w+)\.\{([^}]*)\}", sp)
        if m:
            names.update(f"{m.group(1)}.{w}" for w in m.group(2).split())
            continue
        m = re.match(r"cuda\.([\w.]+)", sp)
        if m and not m.group(1).endswith("."):
            names.add(m.group(1).rstrip("."))
    # not cuda.* names: the random module's functions (below), the PTX
    # instruction fma.rn, the math module (its float16 overloads are math.*)
    return {n for n in names if not n.startswith(("xoroshiro128p", "create_", "init_", "numba."))
            and n not in ("jit", "bf16", "fma.rn", "math")}


def random_names(text):
    out = set()
    for sp in spans(section(text, "cuda.* in kernels")):
        for w in sp.split("(")[0].split():
            if w.startswith("xoroshiro128p_"):
                first, *rest = w.split("/")
                out.add(first)
                stem = first[:first.rfind("_") + 1]
                out.update(stem + r for r in rest)
    return out


def option_names(text):
    body = section(text, "Decorators and options")
    m = re.search(r"^- Options:(.*?)(?=^- |\Z)", body, re.S | re.M)
    return {sp for sp in spans(m.group(1)) if re.fullmatch(r"[a-z_]+", sp)}


def checklist():
    """{name: regex that a use of it matches}."""
    with open(os.path.join(HERE, "NUMBA-API.md")) as f:
        text = f.read()
    mods = section(text, "Builtins and modules")
    want = {}
    for w in words_after(mods, "`math`"):
        want[f"math.{w}"] = rf"\bmath\.{w}\b"
    for w in words_after(mods, "`cmath`"):
        want[f"cmath.{w}"] = rf"\bcmath\.{w}\b"
    m = re.search(r"^- Builtins: `([^`]*)`", mods, re.M)
    for w in m.group(1).split():
        want[f"builtin {w}"] = rf"(?<![\w.]){w}\("
    if "int.bit_count()" in mods:
        want["int.bit_count"] = r"\.bit_count\(\)"
    # the constructs named in backticks (`literal_unroll`, `breakpoint()`, ...)
    for sp in spans(section(text, "Python constructs")):
        m = re.fullmatch(r"([a-z_]+)(\(\))?", sp)
        if m:
            want[f"construct {m.group(1)}"] = rf"\b{m.group(1)}\b"
    for n in cuda_names(text):
        want[f"cuda.{n}"] = r"\bcuda\." + re.escape(n) + r"\b"
    for n in random_names(text):
        want[f"numba.cuda.random.{n}"] = rf"\b{n}\("
    for o in option_names(text):
        want[f"@cuda.jit({o}=)"] = r"jit\([^\n]*\b" + o + r"\s*="
    with open(os.path.join(ROOT, "src", "libdevice_funcs.def")) as f:
        for name in re.findall(r"^LIBDEVICE\((\w+),", f.read(), re.M):
            want[f"libdevice.{name}"] = rf"\blibdevice\.{name}\("
    return want


def sources():
    texts = []
    for base in (HERE, os.path.join(ROOT, "tests", "lit")):
        for d, _, files in os.walk(base):
            for fn in files:
                if fn.endswith((".pyk", ".py")) and fn not in ("checklist.py", "harness.py", "run.py", "build.py", "selftest.py",
                                                                "cases.py"):
                    with open(os.path.join(d, fn), errors="replace") as f:
                        texts.append(f.read())
    return "\n".join(texts)


def not_covered():
    out = {}
    with open(os.path.join(HERE, "not-covered.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            name, _, reason = line.partition("  ")
            if not reason.strip():
                raise SystemExit(f"checklist.py: not-covered.txt: {name}: no reason given")
            out[name.strip()] = reason.strip()
    return out


def main():
    verbose = "-v" in sys.argv
    want = checklist()
    text = sources()
    listed = not_covered()
    missing, needless, covered = [], [], 0
    for name in sorted(want):
        used = re.search(want[name], text) is not None
        if used and name in listed:
            needless.append(name)
        elif used:
            covered += 1
        elif name not in listed:
            missing.append(name)
    for name in listed:
        if name not in want:
            needless.append(name + " (not a name of the checklist)")
    for n in missing:
        print(f"checklist: {n}: used by no conformance kernel or lit test, and not in not-covered.txt")
    for n in needless:
        print(f"checklist: {n}: listed in not-covered.txt but tested: take it off the list")
    if verbose:
        for n in sorted(want):
            print(f"  {n}")
    print(f"{len(want)} names: {covered} covered, {len(listed)} listed as not covered, "
          f"{len(missing)} missing")
    return 1 if missing or needless else 0


if __name__ == "__main__":
    sys.exit(main())
