# embedded.py FILE.c DIR: writes the arrays of bytes that `pykc --emit c`
# embedded in FILE.c into DIR, each to a file named as its array
# (NAME_image_0, NAME_embedded_manifest), so tests can compare them with
# the files --emit ptx writes.
import os
import re
import sys

text = open(sys.argv[1]).read()
for name, body in re.findall(r"unsigned char (\w+)\[\] = \{([^}]*)\};", text):
    data = bytes(int(b) for b in body.replace("\n", "").split(",") if b.strip())
    with open(os.path.join(sys.argv[2], name), "wb") as f:
        f.write(data)
