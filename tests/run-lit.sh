#!/bin/sh
# run-lit.sh RESULTS LIT PYKC LLVM_BINDIR [TESTS...]: runs the lit suite and
# records its counts.
results=$1 lit=$2 pykc=$3 bindir=$4
shift 4
log=$(mktemp)
python3 "$lit" -sv --param pykc="$pykc" --param llvm_bindir="$bindir" "$@" > "$log" 2>&1
status=$?
grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT):|\*\*\*\*\*\*\*\*' "$log" >/dev/null && cat "$log"
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | head -n1)
failed=0
for k in Failed Unresolved Timed\ Out Unexpectedly\ Passed; do
    n=$(sed -n "s/^ *$k *: *\([0-9]*\).*/\1/p" "$log" | head -n1)
    failed=$((failed + ${n:-0}))
done
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && { cat "$log"; failed=1; }
tail -n 4 "$log"
rm -f "$log"
sh "$(dirname "$0")/record.sh" "$results" lit "${passed:-0}" "$failed"
