#!/bin/sh
# host.sh RESULTS PYKC OUT LIBPYKRT: `make test`'s run of the kernels on the
# host target (pykc --target host, libpykrt's host device): every test
# kernel and sample against its NumPy reference (tests/gpu/check_kernels.py
# --host), then every conformance case against numba-cuda's outputs on the
# GPU (tests/conformance/run.py --host tests/conformance/references.npz),
# and a checked kernel's diagnostics (tests/gpu/host_checks.py).
# Needs python3 and NumPy: without them the suite is one test, skipped.
results=$1 pykc=$2 out=$3 lib=$4
root=$(cd "$(dirname "$0")/.." && pwd)
if ! python3 -c "import numpy" > /dev/null 2>&1; then
    echo "test-host: no python3 with NumPy: skipped"
    sh "$root/tests/record.sh" "$results" host 0 0 1
    exit 0
fi
rm -rf "$out" && mkdir -p "$out"
export PYKRT_LIBRARY="$lib"
PYKC="$pykc" PYKCFLAGS="--target host" PYKC_EXT=so sh "$root/tests/gpu/build-gpu-bundle.sh" "$out/kernels" \
    > "$out/build.log" 2>&1
python3 "$root/tests/conformance/build.py" --pykc "$pykc" --target host "$out/conformance" >> "$out/build.log" 2>&1
python3 "$root/tests/gpu/check_kernels.py" --host "$out/kernels" > "$out/kernels.log" 2>&1
python3 "$root/tests/conformance/run.py" "$out/conformance" --host "$root/tests/conformance/references.npz" -q \
    -j 2 > "$out/conformance.log" 2>&1
python3 "$root/tests/gpu/host_checks.py" "$pykc" "$out/checks" > "$out/checks.log" 2>&1
pass=0 fail=0 skip=0
for log in "$out/kernels.log" "$out/conformance.log" "$out/checks.log"; do
    grep -E '^(FAIL|XPASS|SKIP) ' "$log" | cut -c1-200
    grep -E '^Traceback' -A20 "$log" | tail -n 5
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$last" ]; then
        echo "test-host: $(basename "$log" .log) ended without its counts:"
        tail -n 5 "$log"
        fail=$((fail + 1))
        continue
    fi
    p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    f=$(echo "$last" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
    s=$(echo "$last" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + ${s:-0}))
    echo "test-host: $(basename "$log" .log): $last"
done
sh "$root/tests/record.sh" "$results" host "$pass" "$fail" "$skip"
