#!/bin/sh
# run-lit.sh RESULTS LIT PYKC LLVM_BINDIR [TESTS...]: runs the lit suite and
# records its counts: passed (lit's Passed and Expectedly Failed), failed,
# and skipped (Unsupported: a test that REQUIRES what is missing here, such
# as ptxas; and Skipped). lit.cfg.py's notes, such as which ptxas it found,
# are printed.
results=$1 lit=$2 pykc=$3 bindir=$4
shift 4
log=$(mktemp)
python3 "$lit" -sv --param pykc="$pykc" --param llvm_bindir="$bindir" "$@" > "$log" 2>&1
status=$?
grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT):|\*\*\*\*\*\*\*\*' "$log" >/dev/null && cat "$log"
sed -n 's/^lit[.a-z]*: .*lit\.cfg\.py:[0-9]*: \(note\|warning\): /lit: /p' "$log"
# count LABEL...: the sum of lit's summary lines "LABEL: N".
count() {
    sum=0
    for k in "$@"; do
        n=$(sed -n "s/^ *$k *: *\([0-9]*\).*/\1/p" "$log" | head -n1)
        sum=$((sum + ${n:-0}))
    done
    echo "$sum"
}
passed=$(count Passed 'Expectedly Failed')
failed=$(count Failed Unresolved 'Timed Out' 'Unexpectedly Passed')
skipped=$(count Unsupported Skipped)
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && { cat "$log"; failed=1; }
tail -n 4 "$log"
rm -f "$log"
sh "$(dirname "$0")/record.sh" "$results" lit "$passed" "$failed" "$skipped"
