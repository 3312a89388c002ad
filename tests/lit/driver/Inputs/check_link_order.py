"""check_link_order.py PYKC ORDER: the functions that ORDER names lie
together in pykc's code, in ORDER's order, and ORDER is not stale (most of
its functions are in pykc). Prints what is wrong and exits 1."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "tools"))
from order_file import functions, listed  # noqa: E402

binary, order = sys.argv[1], sys.argv[2]
where = functions(binary)
names = listed(order, where)
found = [where[n][0] for n in names]
backwards = sum(1 for a, b in zip(found, found[1:]) if b < a)
if backwards > 0.01 * len(found):
    sys.exit("%s: %d of %d functions out of order in pykc" % (order, backwards, len(found)))
span = max(sum(where[n]) for n in names) - min(found)
code = sum(where[n][1] for n in names)
if span > 1.5 * code:
    sys.exit("%s: its functions (%d KB) spread over %d KB of pykc: was it linked with the order file?" %
             (order, code // 1024, span // 1024))
print("link order: %d functions, %d KB in %d KB" % (len(names), code // 1024, span // 1024))
