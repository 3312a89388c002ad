#!/bin/sh
# run-gpu.sh BUNDLE [RESULTS] [gpu_bench.py options]: the whole benchmark on
# a GPU machine, from the repository root, in one command. BUNDLE is what
# `make bench` made on the machine with pykc (build/bench), carried over;
# RESULTS (default bench/results) gets <gpu>.md, <gpu>.json and, where
# matplotlib imports, <gpu>.png. Needs python3 with NumPy, CuPy and
# numba-cuda; builds nothing. Wheels in .whl/ (bench/README.md) are
# installed aside first and put on the path. Exit status 0 when every
# kernel that ran gave the right output.
set -u
if [ $# -lt 1 ]; then
    echo "usage: sh bench/run-gpu.sh BUNDLE [RESULTS] [gpu_bench.py options]   (BUNDLE from make bench)" >&2
    exit 2
fi
bundle=$1
shift
results=bench/results
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    results=$1
    shift
fi
PYTHON=${PYTHON:-python3}
[ -f "$bundle/bundle.json" ] || { echo "run-gpu.sh: $bundle is not a bundle (make bench makes one)" >&2; exit 2; }
if ls .whl/*.whl > /dev/null 2>&1; then
    site=${TMPDIR:-/tmp}/pykc-bench-site
    if "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl; then
        PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
        export PYTHONPATH
        echo "run-gpu.sh: installed $(ls .whl/*.whl | wc -l) wheels from .whl into $site"
    else
        echo "run-gpu.sh: the wheels in .whl did not install; going on without them" >&2
    fi
fi
[ -f "$bundle/launch/bench_launch" ] && chmod +x "$bundle/launch/bench_launch" 2> /dev/null
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L
PYTHONUNBUFFERED=1
export PYTHONUNBUFFERED
exec "$PYTHON" bench/gpu_bench.py "$bundle" --results "$results" "$@"
