#!/usr/bin/env python3
"""Compiles every tests/conformance/AREA/MODULE.pyk with pykc into a bundle:

    python3 tests/conformance/build.py OUT [--pykc build/pykc] [--target host]

OUT/AREA/MODULE.ptx (MODULE.so for --target host) and MODULE.yaml, or MODULE.error with pykc's messages
when it refuses the module. A module that pykc refuses is compiled again one
kernel at a time (the other kernels blanked out, line numbers kept):
OUT/AREA/MODULE.KERNEL.ptx/.yaml, or MODULE.KERNEL.error, so that a refused
kernel fails alone. A module's own options come from a line
`# pykc-options: ...` of its source. Prints one line per refused kernel and
a summary; exits 0 (a refusal is a result the GPU run reports, not an error
of the build) unless pykc is missing.
"""
import argparse
import ast
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def kernels_of(source):
    """[(name, first line, last line)] of the functions decorated with
    @cuda.jit that are kernels (not device=True)."""
    tree = ast.parse(source)
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            text = ast.unparse(d)
            if "jit" not in text:
                continue
            if "device=True" in text.replace(" ", ""):
                break
            first = min([node.lineno] + [x.lineno for x in node.decorator_list])
            out.append((node.name, first, node.end_lineno))
            break
    return out


def options_of(source, keep_arch=True):
    """A module's `# pykc-options:`; a GPU's --arch left out for the host."""
    for line in source.splitlines():
        if line.startswith("# pykc-options:"):
            opts = shlex.split(line[len("# pykc-options:"):])
            return opts if keep_arch else drop_arch(opts)
    return []


def drop_arch(opts):
    out = []
    for o in opts:
        if out and out[-1] == "--arch":
            out.pop()
        elif not o.startswith("--arch="):
            out.append(o)
    return out


def compile_one(pykc, src, out_base, opts, ext=".ptx"):
    """pykc src -o out_base.EXT; True on success, else writes out_base.error."""
    for old in (ext, ".yaml", ".error"):
        if os.path.exists(out_base + old):
            os.remove(out_base + old)
    p = subprocess.run([pykc] + opts + [src, "-o", out_base + ext], capture_output=True, text=True)
    if p.returncode == 0:
        return True
    with open(out_base + ".error", "w") as f:
        f.write(p.stderr or f"pykc exited with status {p.returncode}\n")
    return False


def first_error(path):
    with open(path) as f:
        lines = [ln for ln in f.read().splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln:
            return ln
    return lines[0] if lines else "(no message)"


def sorted_areas():
    return sorted(a for a in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, a, "cases.py")))


def modules_of(area):
    return sorted(fn[:-4] for fn in os.listdir(os.path.join(HERE, area)) if fn.endswith(".pyk"))


def build(out, pykc, quiet=False, arch=None, target=None):
    """Returns {(area, module, kernel or None): error line} of what pykc
    refused. target: None for the GPU, "host" for the CPU (.so files)."""
    ext = ".so" if target == "host" else ".ptx"
    refused = {}
    nmod = 0
    for area in sorted_areas():
        adir = os.path.join(HERE, area)
        odir = os.path.join(out, area)
        if os.path.isdir(odir):
            shutil.rmtree(odir)
        os.makedirs(odir)
        for module in modules_of(area):
            src = os.path.join(adir, module + ".pyk")
            with open(src) as f:
                text = f.read()
            opts = (["--target", target] if target else []) + (["--arch", arch] if arch else []) + \
                options_of(text, keep_arch=target != "host")
            nmod += 1
            base = os.path.join(odir, module)
            # the source is compiled where it is: its messages name the file in the tree
            if compile_one(pykc, src, base, opts, ext):
                continue
            refused[(area, module, None)] = first_error(base + ".error")
            lines = text.splitlines(keepends=True)
            ks = kernels_of(text)
            for name, first, last in ks:
                keep = list(lines)
                for other, f0, f1 in ks:
                    if other != name:
                        for ln in range(f0 - 1, f1):
                            keep[ln] = "\n"
                one = os.path.join(odir, f"{module}.{name}.pyk")
                with open(one, "w") as f:
                    f.writelines(keep)
                ok = compile_one(pykc, one, os.path.join(odir, f"{module}.{name}"), opts, ext)
                os.remove(one)
                if not ok:
                    # the copy keeps the source's lines: name the source
                    err = os.path.join(odir, f"{module}.{name}.error")
                    with open(err) as f:
                        msg = f.read().replace(one, src)
                    with open(err, "w") as f:
                        f.write(msg)
                    refused[(area, module, name)] = first_error(os.path.join(odir, f"{module}.{name}.error"))
            if not quiet:
                for (a, m, k), msg in sorted(refused.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")):
                    if a == area and m == module and k is not None:
                        print(f"pykc refused {a}/{m}.{k}: {msg}")
    return refused, nmod


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--pykc", default=os.path.join(ROOT, "build", "pykc"))
    ap.add_argument("--arch", default="sm_90",
                    help="the GPU's arch (default sm_90): numba-cuda compiles for the device it runs on, and some "
                         "lowerings depend on it (tanh.approx.f16 from sm_75's PTX 7.0 on)")
    ap.add_argument("--target", choices=("nvptx", "host"), default="nvptx",
                    help="host: the CPU's shared objects, for libpykrt's host device (the --arch is the host's default)")
    args = ap.parse_args()
    if not os.access(args.pykc, os.X_OK):
        print(f"build.py: no compiler at {args.pykc} (run make)", file=sys.stderr)
        return 2
    host = args.target == "host"
    refused, nmod = build(args.out, args.pykc, arch=None if host else args.arch, target="host" if host else None)
    nk = sum(1 for k in refused if k[2] is not None)
    nm = sum(1 for k in refused if k[2] is None)
    print(f"build.py: {nmod} modules in {args.out}; {nm} refused whole, {nk} kernels refused alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
