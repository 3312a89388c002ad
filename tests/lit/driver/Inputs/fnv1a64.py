# fnv1a64.py TEXT: "fnv1a64:" and the 16 hex digits of FNV-1a over TEXT,
# its "\n" made newlines (docs/manifest.md, Digests).
import sys

h = 0xcbf29ce484222325
for b in sys.argv[1].replace("\\n", "\n").encode():
    h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
print(f"fnv1a64:{h:016x}")
