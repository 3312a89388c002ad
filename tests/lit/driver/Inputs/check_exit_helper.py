"""check_exit_helper.py PYKC SOURCE: pykc hands the teardown of its address
space to a helper process at its exit (src/main.c). This script, a child
subreaper so that the orphaned helper comes to it, runs PYKC on SOURCE with
a pipe for its output and prints what it saw: whether the pipe ended as
pykc did (the helper holds no file), and how each process left behind
ended. The helper should end once pykc is gone: killed by its parent-death
signal, or, when pykc was gone before it could ask for one, by itself."""
import ctypes
import os
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36
WALL = 0x40000000  # __WALL: reap children whatever their exit signal

pykc, source = sys.argv[1:3]
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
signal.alarm(20)  # a helper that never dies fails the test, not hangs it
read_end, write_end = os.pipe()
pykc_run = subprocess.Popen([pykc, source, "--emit", "manifest", "-o", "-"], stdout=write_end)
os.close(write_end)
status = pykc_run.wait()
print("pykc exit status %d" % status)
with os.fdopen(read_end, "rb") as pipe:
    print("pipe ended after %d bytes" % len(pipe.read()))
helpers = []
while True:
    try:
        _, wait_status = os.waitpid(-1, WALL)
    except ChildProcessError:
        break
    helpers.append(wait_status)
for wait_status in helpers:
    if os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) == signal.SIGKILL:
        print("helper ended: killed as pykc died")
    elif os.WIFEXITED(wait_status) and os.WEXITSTATUS(wait_status) == 0:
        print("helper ended: pykc was gone")
    else:
        print("helper ended badly: wait status %#x" % wait_status)
print("%d process(es) left behind" % len(helpers))
