#!/usr/bin/env python3
"""order_file.py - writes mk/pykc.order, the order in which the link lays out
the functions that a compilation runs.

pykc links 26 MB of LLVM's code, and a compilation runs about 7 MB of it,
spread over all of it: each 64 KB piece of code it touches costs a page
fault, and the static constructors alone touch two hundred. lld, given this
file, puts the functions it names first and together, in its order.

The functions are the ones that callgrind sees run while pykc compiles what
mk/profile-runs lists (one thread and two, libdevice, debug info, an error),
ordered as the plain link placed them, which keeps each source file's
functions in their order and neighbours: ordered by cost instead, the same
functions ran 2% slower.

    python3 tools/order_file.py          # from the repository root

Needs valgrind. Builds an unordered pykc under build/order first (LINK_ORDER=
and BOLT= empty), so the result does not depend on the order file it
replaces. The file also tells BOLT which functions to profile (mk/bolt.mk).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

BUILD = "build/order"
PYKC = BUILD + "/pykc"
OUT = "mk/pykc.order"
RUNS = "mk/profile-runs"


def compilations(tmp):
    """The pykc command lines the profile is taken from: mk/profile-runs."""
    out = os.path.join(tmp, "out.ptx")
    runs = []
    with open(RUNS) as f:
        for line in f:
            words = line.split()
            if words and not words[0].startswith("#"):
                runs += [words[:-1] + [path] for path in sorted(glob.glob(words[-1]))]
    return [[PYKC] + r + ["-o", out] for r in runs]


def executed(profile):
    """The functions with instructions in a callgrind profile (names
    uncompressed, not demangled)."""
    names, current, after_call = set(), None, False
    with open(profile, errors="replace") as f:
        for line in f:
            if line.startswith("fn="):
                current = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif current and (line[:1].isdigit() or line[:1] in "+-*"):
                if after_call:
                    after_call = False
                else:
                    names.add(current)
    return names


def functions(binary):
    """Each function symbol of binary: its lowest address and its size."""
    text = subprocess.run(["nm", "-S", binary], check=True, capture_output=True, text=True).stdout
    where = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            addr = int(parts[0], 16)
            if addr < where.get(parts[3], (addr + 1, 0))[0]:
                where[parts[3]] = (addr, int(parts[1], 16))
    return where


def listed(order, where):
    """The functions that the order file names and `where` (functions()'s
    answer) has, in the file's order; exits when fewer than 90% are there:
    the file is stale."""
    with open(order) as f:
        named = [n.strip() for n in f if n.strip()]
    found = [n for n in named if n in where]
    if len(found) < 0.9 * len(named):
        sys.exit("%s: only %d of its %d functions are in pykc: run tools/order_file.py" %
                 (order, len(found), len(named)))
    return found


def main():
    if not shutil.which("valgrind"):
        sys.exit("order_file.py: needs valgrind (apt-get install valgrind)")
    subprocess.run(["make", "-s", "BUILD=" + BUILD, "LINK_ORDER=", "BOLT=", PYKC], check=True)
    names = set()
    with tempfile.TemporaryDirectory() as tmp:
        for i, cmd in enumerate(compilations(tmp)):
            profile = os.path.join(tmp, "cg.%d" % i)
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                            "--callgrind-out-file=" + profile] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            names |= executed(profile)
    where = functions(PYKC)
    ordered = sorted((n for n in names if n in where), key=lambda n: where[n][0])
    with open(OUT, "w") as f:
        f.write("".join(n + "\n" for n in ordered))
    print("%s: %d functions" % (OUT, len(ordered)))


if __name__ == "__main__":
    main()
