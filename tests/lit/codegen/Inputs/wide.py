#!/usr/bin/env python3
"""wide.py KIND N: a valid kernel module in which the input decides a count
that the compiler must not cap, N of it:

  params    a device function of N float32 parameters, called once
  or        one `or` of N operands
  tuple     a local tuple of N int64 values, indexed and taken apart
  consts    a module constant tuple of N ints, read by index
  slice     a slice of a constant tuple of N, indexed
  zip       a for loop over zip() of N arrays
  ndim      an array of N dimensions, indexed
  phis      N locals assigned in both arms of an if, read after it
"""
import sys

HEAD = "from numba import cuda, float32, int64\n\n"


def params(n):
    names = ", ".join(f"p{i}: float32" for i in range(n))
    args = ", ".join(f"a[{i % 4}]" for i in range(n))
    return (HEAD + f"@cuda.jit(device=True)\ndef wide({names}) -> float32:\n    return p0 * p{n - 1} + p{n // 2}\n\n\n"
            f"@cuda.jit\ndef k(a: float32[::1]):\n    a[0] = wide({args})\n")


def or_(n):
    ops = " or ".join(f"a[{i}] > {i}" for i in range(n))
    return HEAD + f"@cuda.jit\ndef k(a: float32[::1]):\n    if {ops}:\n        a[0] = 1.0\n"


def tuple_(n):
    elems = ", ".join(f"a[{i % 8}]" for i in range(n))
    return (HEAD + f"@cuda.jit\ndef k(a: int64[::1]):\n    t = ({elems},)\n"
            f"    a[0] = t[{n - 1}] + t[0] + len(t)\n")


def consts(n):
    elems = ", ".join(str(i * 3) for i in range(n))
    return (HEAD + f"TABLE = ({elems},)\n\n\n@cuda.jit\ndef k(a: int64[::1]):\n"
            f"    a[0] = TABLE[{n - 1}] + TABLE[{n // 2}]\n")


def slice_(n):
    elems = ", ".join(str(i) for i in range(n))
    return (HEAD + f"TABLE = ({elems},)\n\n\n@cuda.jit\ndef k(a: int64[::1]):\n"
            f"    odd = TABLE[1::2]\n    a[0] = odd[0] + odd[len(odd) - 1] + len(odd)\n")


def zip_(n):
    params = ", ".join(f"x{i}: float32[::1]" for i in range(n))
    names = ", ".join(f"x{i}" for i in range(n))
    targets = ", ".join(f"v{i}" for i in range(n))
    total = " + ".join(f"v{i}" for i in range(n))
    return (HEAD + f"@cuda.jit\ndef k(out: float32[::1], {params}):\n    s = float32(0)\n"
            f"    for {targets} in zip({names}):\n        s += {total}\n    out[0] = s\n")


def ndim(n):
    dims = ", ".join(":" for _ in range(n))
    idx = ", ".join("0" for _ in range(n))
    return HEAD + f"@cuda.jit\ndef k(a: float32[{dims}]):\n    a[{idx}] = a.size + a.shape[{n - 1}]\n"


def phis(n):
    assign = "\n".join(f"        v{i} = a[{i % 8}]" for i in range(n))
    other = "\n".join(f"        v{i} = a[{(i + 1) % 8}]" for i in range(n))
    total = " + ".join(f"v{i}" for i in range(n))
    return (HEAD + f"@cuda.jit\ndef k(a: float32[::1]):\n    if a[0] > 0:\n{assign}\n    else:\n{other}\n"
            f"    a[1] = {total}\n")


KINDS = {"params": params, "or": or_, "tuple": tuple_, "consts": consts, "slice": slice_, "zip": zip_,
         "ndim": ndim, "phis": phis}
sys.stdout.write(KINDS[sys.argv[1]](int(sys.argv[2])))
