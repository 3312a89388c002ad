"""kill_midway.py PYKC SOURCE DIR RUNS: runs `pykc SOURCE -o DIR/k.ptx
-DSCALE=N` for N = 1..RUNS (each N a different PTX), each run killed after
a delay that grows from 0 to the time a whole run takes, SIGKILL and
SIGTERM in turn, and checks after each that every file is whole: k.ptx and
k.yaml are each the old version or the new one, never a part of one. After
SIGTERM both are old or both new, and no temporary file is left; SIGKILL cannot be
caught, so between the renames of k.ptx and k.yaml it may leave the new
code beside the old manifest, whose digest then tells a loader so."""
import os
import re
import signal
import subprocess
import sys
import time


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "fnv1a64:%016x" % h


def digests(out_dir):
    with open(os.path.join(out_dir, "k.ptx"), "rb") as f:
        ptx = fnv1a64(f.read())
    with open(os.path.join(out_dir, "k.yaml")) as f:
        named = re.search(r'file: k\.ptx\s+digest: "?(fnv1a64:[0-9a-f]{16})', f.read())
    return ptx, named.group(1) if named else None


def main():
    pykc, source, out_dir, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    scratch = os.path.join(out_dir, "scratch")
    os.makedirs(scratch, exist_ok=True)
    want = []
    for n in range(runs + 1):
        subprocess.run([pykc, source, "-o", os.path.join(scratch, "k.ptx"), "-DSCALE=%d" % n], check=True)
        want.append(digests(scratch)[0])
    cmd = [pykc, source, "-o", os.path.join(out_dir, "k.ptx")]
    start = time.monotonic()
    subprocess.run(cmd + ["-DSCALE=0"], check=True)
    whole = time.monotonic() - start
    ptx_was = named_was = want[0]
    for i in range(runs):
        sig = signal.SIGTERM if i % 2 else signal.SIGKILL
        p = subprocess.Popen(cmd + ["-DSCALE=%d" % (i + 1)])
        time.sleep(whole * i / runs)
        p.send_signal(sig)
        p.wait()
        ptx, named = digests(out_dir)
        if ptx not in (ptx_was, want[i + 1]) or named not in (named_was, want[i + 1]):
            sys.exit("run %d (%s): a torn file (k.ptx %s, k.yaml names %s; was %s %s, new %s)" % (i + 1, sig, ptx, named, ptx_was, named_was, want[i + 1]))
        if sig == signal.SIGTERM and (ptx, named) not in ((ptx_was, named_was), (want[i + 1], want[i + 1])):
            sys.exit("run %d: SIGTERM left half of the outputs renamed" % (i + 1))
        left = [n for n in os.listdir(out_dir) if n.startswith(".")]
        if sig == signal.SIGTERM and left:
            sys.exit("temporary files left after SIGTERM: %s" % left)
        for n in left:
            os.unlink(os.path.join(out_dir, n))
        ptx_was, named_was = ptx, named
    print("every file whole after %d killed runs" % runs)


main()
