#!/bin/sh
# record.sh RESULTS SUITE PASSED FAILED [SKIPPED]: stores one suite's counts
# for summarize.sh; exits 1 when something failed. SKIPPED counts the tests
# that did not run because what they need is missing here (ptxas, clang-14).
mkdir -p "$1"
echo "$3 $4 ${5:-0}" > "$1/$2"
[ "$4" -eq 0 ]
