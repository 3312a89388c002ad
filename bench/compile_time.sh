#!/bin/sh
# compile_time.sh - how long pykc takes to compile the anchor kernels, beside
# nvcc compiling the same kernels written in CUDA C, and beside numba-cuda
# where it is installed. Each tool runs as a fresh process, as a build runs
# it; the script prints the median and the fastest of its runs, and how many
# times faster pykc is. Needs no GPU.
#
#   sh bench/compile_time.sh            # from the repository root, after make
#   RUNS=20 ARCH=sm_90 sh bench/compile_time.sh
#   sh bench/compile_time.sh FILE.pyk FILE.cu   # another module (bench/bundle.sh
#                                               # times each of bench/suite so)
#
# Variables: PYKC (build/pykc), NVCC ($CUDA_HOME/bin/nvcc, else nvcc on PATH),
# PYTHON (python3), RUNS (10; pykc runs PYKC_RUNS times, 20 * RUNS),
# ARCH (sm_75), OPT (-O3), NUMBA (1: time
# numba-cuda too, when it imports; 0: skip it), TSV (a file to append
# "MODULE<tab>compiler<tab>median<tab>min" lines to; MODULE defaults to the
# .pyk's name). Uses hyperfine (make deps installs it), else a loop over
# `date +%s%N`.
set -eu

cd "$(dirname "$0")/.."
PYKC=${PYKC:-build/pykc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$( [ -x "$CUDA_HOME/bin/nvcc" ] && echo "$CUDA_HOME/bin/nvcc" || command -v nvcc || true )}
PYTHON=${PYTHON:-python3}
RUNS=${RUNS:-10}
ARCH=${ARCH:-sm_75}
OPT=${OPT:--O3}
NUMBA=${NUMBA:-1}
# pykc runs twenty times as often as nvcc, so that both are timed over
# about the same seconds: on a VM whose speed drifts from minute to minute,
# twenty runs of pykc (a third of a second) against twenty of nvcc (seven
# seconds) sampled the drift more than the compiler.
PYKC_RUNS=${PYKC_RUNS:-$((RUNS * 20))}
PYK=${1:-samples/anchors/anchors.pyk}
CU=${2:-bench/anchors.cu}
MODULE=${MODULE:-$(basename "$PYK" .pyk)}
TSV=${TSV:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pykc-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# median FILE: the middle of the numbers in FILE (one a line), and the least.
median() {
    sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[int((NR + 1) / 2)], v[1] }'
}

# time_runs NAME N COMMAND...: runs COMMAND N times (after one warm-up run,
# which fills the file cache) and prints "NAME median min" in milliseconds.
time_runs() {
    name=$1 n=$2
    shift 2
    "$@" >/dev/null 2>&1 || { echo "$name: '$*' failed:" >&2; "$@" >&2 || true; return 1; }
    : >"$TMP/$name.times"
    if command -v hyperfine >/dev/null 2>&1; then
        hyperfine -N -r "$n" -w 1 --export-json "$TMP/$name.json" "$*" >/dev/null 2>&1
        "$PYTHON" -c 'import json, sys
for t in json.load(open(sys.argv[1]))["results"][0]["times"]: print(t * 1000)' "$TMP/$name.json" >"$TMP/$name.times"
    else
        i=0
        while [ "$i" -lt "$n" ]; do
            start=$(date +%s%N)
            "$@" >/dev/null 2>&1
            end=$(date +%s%N)
            echo "$(( (end - start) / 1000 ))" | awk '{ print $1 / 1000 }' >>"$TMP/$name.times"
            i=$((i + 1))
        done
    fi
    echo "$name $(median "$TMP/$name.times")"
}

entries() { grep -c '^\.visible \.entry' "$1" || true; }

echo "$MODULE: $PYK (pykc, numba-cuda) and $CU (nvcc); $ARCH $OPT, median of $PYKC_RUNS runs of pykc, $RUNS of the others"
printf '%-22s %10s %10s\n' "compiler" "median ms" "min ms"
results=""

if [ -x "$PYKC" ]; then
    r=$(time_runs pykc "$PYKC_RUNS" "$PYKC" "$OPT" --arch "$ARCH" "$PYK" -o "$TMP/pykc.ptx") && results="$results
$r"
    [ -f "$TMP/pykc.ptx" ] && echo "pykc: $(entries "$TMP/pykc.ptx") kernels in the PTX" >&2
else
    echo "pykc: $PYKC not built (run make), skipped" >&2
fi

if [ -n "$NVCC" ]; then
    r=$(time_runs nvcc "$RUNS" "$NVCC" -ptx "$OPT" -arch="$ARCH" "$CU" -o "$TMP/nvcc.ptx") && results="$results
$r"
    [ -f "$TMP/nvcc.ptx" ] && echo "nvcc: $(entries "$TMP/nvcc.ptx") kernels in the PTX" >&2
else
    echo "nvcc: not found in $CUDA_HOME/bin or on PATH, skipped" >&2
fi

# numba-cuda compiles in-process; bench/numba_compile.py reports the import
# of numba (paid by every fresh process) and the compilation apart.
if [ "$NUMBA" = 1 ] && "$PYTHON" -c 'import numba.cuda' >/dev/null 2>&1; then
    "$PYTHON" bench/numba_compile.py "$PYK" --arch "$ARCH" --repeat "$RUNS" >"$TMP/numba.out" 2>&1 || cat "$TMP/numba.out" >&2
    imp=$(awk '$1 == "import" { print $2 }' "$TMP/numba.out")
    first=$(awk '$1 == "first" { print $2 }' "$TMP/numba.out")
    warm=$(awk '$1 == "compile" { print $2 }' "$TMP/numba.out")
    [ -n "$warm" ] && results="$results
numba-cuda(compile) $warm $warm
numba-cuda(process) $(echo "$imp $first" | awk '{ printf "%.1f", $1 + $2 }') -"
else
    [ "$NUMBA" = 1 ] && echo "numba-cuda: does not import with $PYTHON, skipped" >&2
fi

echo "$results" | awk 'NF == 3 { printf "%-22s %10s %10s\n", $1, $2, $3 }'
[ -z "$TSV" ] || echo "$results" | awk -v m="$MODULE" 'NF == 3 { printf "%s\t%s\t%s\t%s\n", m, $1, $2, $3 }' >>"$TSV"
pykc_ms=$(echo "$results" | awk '$1 == "pykc" { print $2 }')
[ -n "$pykc_ms" ] || exit 0
echo "$results" | awk -v p="$pykc_ms" 'NF == 3 && $1 != "pykc" && $2 + 0 > 0 {
    printf "pykc is %.1fx faster than %s\n", $2 / p, $1 }'
