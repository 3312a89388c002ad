#!/bin/sh
# Adds up the suites' results (each file under DIR holds "passed failed
# [skipped]") and prints the closing line, `N passed, N failed, N skipped`.
# Exits 1 if a test or a suite failed.
dir=$1
suite_failed=${2:-0}
passed=0
failed=0
skipped=0
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    read -r p q k < "$f"
    k=${k:-0}
    passed=$((passed + p))
    failed=$((failed + q))
    skipped=$((skipped + k))
    printf '  %-14s %s passed, %s failed, %s skipped\n' "$(basename "$f")" "$p" "$q" "$k"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$suite_failed" -eq 0 ]
