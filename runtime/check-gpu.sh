#!/bin/sh
# check-gpu.sh [DIR]: libpykrt on a machine with an NVIDIA GPU, from the
# programs `make runtime-gpu` built into DIR (default build/runtime-gpu),
# run from the repository root (they read tests/runtime/fixtures and
# bench/launch). They need only libc and the driver there: libyaml is
# linked into libpykrt.
#
#   1. gpu_check: every runtime feature against the real driver (streams
#      waiting on events, occupancy, graphs captured and replayed among them)
#   2. vadd_host on the vadd fixture, linked with libpykrt.a, and
#      vadd_host_shared, linked with libpykrt.so (found beside it); and on
#      pykc's own vadd.yaml when $VADD_YAML names one
#   3. pykc's typed launchers (--emit header, --emit c): kinds_host
#      launches a kernel of every kind of parameter through them, from the
#      module embedded in it and from kinds.yaml, and checks what each
#      kernel wrote; doc_launchers, docs/runtime.md's program, runs vadd
#      from its embedded module, and doc_tutorial, docs/tutorial.md's
#      program, add_arrays_cuda from its
#   4. python/tests/gpu_check.py: the pykrt Python package launches
#      py/vadd.yaml and kinds.yaml with CuPy, PyTorch, Numba and NumPy
#      arrays and compares with numba-cuda's runs of the same .pyk files
#      ($PYTHON, default python3; skipped without NumPy)
#   5. bench_launch: microseconds per launch, raw cuLaunchKernel against
#      pykrt_launch_unchecked and pykrt_launch
#
# Exit status 0 when every step passed.
set -u
dir=${1:-build/runtime-gpu}
status=0

step() {
    echo "== $*"
    "$@"
    rc=$?
    [ "$rc" -eq 0 ] || { echo "== FAILED (exit $rc): $*"; status=1; }
}

command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L
for p in gpu_check vadd_host vadd_host_shared kinds_host doc_launchers doc_tutorial bench_launch; do
    [ -x "$dir/$p" ] || { echo "check-gpu: $dir/$p is missing: run 'make runtime-gpu' first"; exit 1; }
done
[ -f "$dir/py/vadd.yaml" ] || { echo "check-gpu: $dir/py/vadd.yaml is missing: run 'make runtime-gpu' first"; exit 1; }
step "$dir/gpu_check" tests/runtime/fixtures
step "$dir/vadd_host" tests/runtime/fixtures/vadd.yaml
step "$dir/vadd_host_shared" tests/runtime/fixtures/vadd.yaml
if [ -n "${VADD_YAML:-}" ]; then
    step "$dir/vadd_host" "$VADD_YAML"
fi
step "$dir/kinds_host" "$dir/kinds.yaml" tests/runtime/fixtures/vadd.yaml
step "$dir/doc_launchers"
step "$dir/doc_tutorial"
python=${PYTHON:-python3}
if "$python" -c 'import numpy' > /dev/null 2>&1; then
    step env PYTHONPATH=python PYKRT_LIBRARY="$dir/libpykrt.so.0" "$python" python/tests/gpu_check.py "$dir"
else
    echo "== skipped: python/tests/gpu_check.py ($python with NumPy is missing)"
fi
step "$dir/bench_launch" bench/launch/empty.yaml 2000 256
[ "$status" -eq 0 ] && echo "check-gpu: all passed" || echo "check-gpu: FAILED"
exit $status
