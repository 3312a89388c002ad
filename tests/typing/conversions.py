#!/usr/bin/env python3
"""Prints numba-cuda's conversion kind between every pair of scalar types, the
matrix that tests/unit/test_types.c pins (E exact, P promote, S safe, U unsafe,
- none; rows convert from, columns to)."""
import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack
from numba.cuda import types  # noqa: E402
from numba.cuda.descriptor import cuda_target  # noqa: E402

ORDER = [types.boolean, types.int8, types.int16, types.int32, types.int64, types.uint8, types.uint16,
         types.uint32, types.uint64, types.float16, types.float32, types.float64, types.complex64,
         types.complex128]
LETTER = {1: "E", 2: "P", 3: "S", 4: "U", None: "-"}
ctx = cuda_target.typing_context
for a in ORDER:
    row = "".join(LETTER[None if ctx.can_convert(a, b) is None else int(ctx.can_convert(a, b))] for b in ORDER)
    print(f'        "{row}", /* {a} */')
