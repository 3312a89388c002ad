#!/bin/sh
# run.sh BUILD TDIR FAKE SAN: the pykrt package's tests against the driver
# double, counts ("passed failed skipped") to TDIR/counts for
# tests/record.sh. Without python3 or NumPy the suite counts as skipped,
# and with SAN=1 too (a sanitizer build of libpykrt.so cannot be loaded
# into an uninstrumented python3).
build=$1 t=$2 fake=$3 san=$4
tests=$(grep -c '    def test_' python/tests/test_fake.py)
mkdir -p "$t"
why=
[ -n "$san" ] && why="libpykrt.so is a sanitizer build (SAN=1)"
python3 -c 'import numpy' > /dev/null 2>&1 || why="python3 with NumPy is missing"
if [ -n "$why" ]; then
    echo "python: skipped $tests: $why"
    echo "0 0 $tests" > "$t/counts"
    exit 0
fi
PYTHONPATH=python PYTHONDONTWRITEBYTECODE=1 PYKRT_LIBRARY="$build/lib/libpykrt.so.0" PYKRT_LIBCUDA="$fake" \
    python3 python/tests/test_fake.py "$fake" tests/runtime/fixtures/vadd.yaml "$t/kinds.yaml" > "$t/log" 2>&1
rc=$?
line=$(grep '^python: .* passed' "$t/log")
if [ -z "$line" ]; then
    cat "$t/log"
    echo "0 1 0" > "$t/counts"
    exit 0
fi
# the log ends with the counts line: shown alone when all passed
if [ "$rc" -eq 0 ]; then echo "$line"; else cat "$t/log"; fi
echo "$line" | sed 's/python: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/' > "$t/counts"
