#!/bin/sh
# record.sh RESULTS SUITE PASSED FAILED: stores one suite's counts for
# summarize.sh; exits 1 when something failed.
mkdir -p "$1"
echo "$3 $4" > "$1/$2"
[ "$4" -eq 0 ]
