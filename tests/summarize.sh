#!/bin/sh
# Adds up the suites' results (each file under DIR holds "passed failed")
# and prints the closing line. Exits 1 if a test or a suite failed.
dir=$1
suite_failed=${2:-0}
passed=0
failed=0
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    read -r p q < "$f"
    passed=$((passed + p))
    failed=$((failed + q))
    printf '  %-14s %s passed, %s failed\n' "$(basename "$f")" "$p" "$q"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$suite_failed" -eq 0 ]
