"""Writes random_expected.h for random-host-exact.pyk: what numba-cuda's own
numba.cuda.random gives for that test's kernels, run under its simulator
(which runs random.py's Python code); the states that make_states must
make are create_xoroshiro128p_states' (the simulator cannot copy a record
inside a kernel, so it does not run make_states itself):

    NUMBA_ENABLE_CUDASIM=1 python3 tests/lit/codegen/Inputs/gen_random_expected.py \\
        > tests/lit/codegen/Inputs/random_expected.h
"""
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import struct

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

here = os.path.dirname(os.path.abspath(__file__))
loader = importlib.machinery.SourceFileLoader("k", os.path.join(here, "..", "random-host-exact.pyk"))
k = importlib.util.module_from_spec(importlib.util.spec_from_loader("k", loader))
loader.exec_module(k)

# (n, seed, subsequence_start) of each set of states
SETS = [(8, 0, 0), (8, 12345, 0), (8, 2**64 - 1, 3)]


def u64s(a):
    return ", ".join("0x%016xull" % int(v) for v in a)


def bits32(a):
    return ", ".join("0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in a)


def bits64(a):
    return ", ".join("0x%016xull" % struct.unpack("<Q", struct.pack("<d", v))[0] for v in a)


print("/* numba-cuda %s under NUMBA_ENABLE_CUDASIM=1, by gen_random_expected.py */"
      % importlib.metadata.version("numba-cuda"))
print("#define N_SETS %d" % len(SETS))
print("static const struct { unsigned n; unsigned long long seed, sub; } sets[N_SETS] = {")
for n, seed, sub in SETS:
    print("    {%d, %du, %d}," % (n, seed, sub))
print("};")
for j, (n, seed, sub) in enumerate(SETS):
    states = create_xoroshiro128p_states(n, seed, subsequence_start=sub).copy_to_host()
    flat = np.stack([states["s0"], states["s1"]], axis=1).ravel()
    print("static const unsigned long long states%d[] = {%s};" % (j, u64s(flat)))
    u32 = np.zeros(4 * n, np.float32)
    u64 = np.zeros(4 * n, np.float64)
    raw = np.zeros(4 * n, np.uint64)
    k.draws[1, 1](states, u32, u64, raw)
    print("static const unsigned u32_%d[] = {%s};" % (j, bits32(u32)))
    print("static const unsigned long long u64_%d[] = {%s};" % (j, bits64(u64)))
    print("static const unsigned long long raw%d[] = {%s};" % (j, u64s(raw)))
    flat = np.stack([states["s0"], states["s1"]], axis=1).ravel()
    print("static const unsigned long long jumped%d[] = {%s};" % (j, u64s(flat)))
print("static const unsigned long long *const expected_states[] = {%s};" % ", ".join("states%d" % j for j in range(len(SETS))))
print("static const unsigned *const expected_u32[] = {%s};" % ", ".join("u32_%d" % j for j in range(len(SETS))))
print("static const unsigned long long *const expected_u64[] = {%s};" % ", ".join("u64_%d" % j for j in range(len(SETS))))
print("static const unsigned long long *const expected_raw[] = {%s};" % ", ".join("raw%d" % j for j in range(len(SETS))))
print("static const unsigned long long *const expected_jumped[] = {%s};" % ", ".join("jumped%d" % j for j in range(len(SETS))))
