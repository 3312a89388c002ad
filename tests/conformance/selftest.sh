#!/bin/sh
# selftest.sh RESULTS PYKC OUT: `make test`'s part of the conformance suite
# (selftest.py), its counts recorded for summarize.sh. Without python3 the
# suite is one test, skipped.
results=$1 pykc=$2 out=$3
here=$(dirname "$0")
if ! command -v python3 > /dev/null 2>&1; then
    echo "test-conformance: no python3: skipped"
    sh "$here/../record.sh" "$results" conformance 0 0 1
    exit 0
fi
mkdir -p "$(dirname "$out")"
python3 "$here/selftest.py" "$pykc" "$out" > "$out.log" 2>&1
status=$?
grep -v '^[0-9]* passed, ' "$out.log"
last=$(tail -n 1 "$out.log")
set -- $(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
if [ $# -ne 3 ]; then
    echo "test-conformance: selftest.py ended without its counts (status $status): $last"
    sh "$here/../record.sh" "$results" conformance 0 1 0
    exit 1
fi
[ "$status" -eq 0 ] || [ "$2" -gt 0 ] || set -- "$1" 1 "$3"
sh "$here/../record.sh" "$results" conformance "$1" "$2" "$3"
