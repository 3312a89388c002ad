"""Writes the expected xoroshiro128p states for test_memory.c's bit-exact
test, computed by numba-cuda's own create_xoroshiro128p_states under the
CUDA simulator (no GPU needed):

    NUMBA_ENABLE_CUDASIM=1 python3 tests/runtime/gen_xoroshiro.py \
        > tests/runtime/fixtures/xoroshiro128p.txt

Each case is a line "case N SEED SUBSEQUENCE_START" followed by N lines
"S0 S1" in hex. `make test` reads the committed output; it needs no numba.
"""
import os
import sys

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
import warnings

warnings.simplefilter("ignore")

import numba_cuda  # noqa: E402
from numba.cuda.random import create_xoroshiro128p_states  # noqa: E402

CASES = [
    (1, 0, 0),
    (5, 42, 0),
    (4, 12345, 3),
    (8, 2**64 - 1, 1),
    (3, 0xDEADBEEFCAFEBABE, 0),
    (32, 7, 0),
    (2, 1, 10),
]

version = getattr(numba_cuda, "__version__", "unknown")
print("# numba-cuda %s create_xoroshiro128p_states(n, seed, subsequence_start)," % version)
print("# run under NUMBA_ENABLE_CUDASIM=1 by tests/runtime/gen_xoroshiro.py")
for n, seed, sub in CASES:
    states = create_xoroshiro128p_states(n, seed, subsequence_start=sub).copy_to_host()
    print("case %d %d %d" % (n, seed, sub))
    for s in states:
        print("%016x %016x" % (int(s["s0"]), int(s["s1"])))
sys.stdout.flush()
