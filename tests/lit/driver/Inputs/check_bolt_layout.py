"""check_bolt_layout.py PYKC ORDER: pykc was laid out by BOLT from a profile
(mk/bolt.mk): its hot text holds nearly all the functions that ORDER names
(those a compilation runs, and which BOLT profiles), their cold blocks were
split off, and ORDER is not stale (most of its functions are in pykc).
Prints what is wrong and exits 1."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "tools"))
from order_file import functions, listed as listed_functions  # noqa: E402

binary, order = sys.argv[1], sys.argv[2]
symbols = subprocess.run(["nm", binary], check=True, capture_output=True, text=True).stdout
bounds = {}
for line in symbols.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[2] in ("__hot_start", "__hot_end"):
        bounds[parts[2]] = int(parts[0], 16)
if len(bounds) != 2:
    sys.exit("%s: no __hot_start and __hot_end: not laid out by BOLT" % binary)
start, end = bounds["__hot_start"], bounds["__hot_end"]
where = functions(binary)
listed = listed_functions(order, where)
hot = [n for n in listed if start <= where[n][0] < end]
if len(hot) < 0.9 * len(listed):
    sys.exit("%s: only %d of the %d functions that %s names are in its hot text: was the profile taken?" %
             (binary, len(hot), len(listed), order))
cold = sum(1 for n in where if ".cold." in n)
if cold == 0:
    sys.exit("%s: no function was split into hot and cold parts" % binary)
print("bolt layout: %d of %d functions in %d KB of hot text, %d cold parts" %
      (len(hot), len(listed), (end - start) // 1024, cold))
