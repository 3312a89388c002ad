#!/bin/sh
# scaling.sh [MB...]: how pykc's time and peak memory grow with the source.
# For each size (default 1 2 4 8 MB), one valid kernel of that many MB of
# statements (tests/lit/badinput/Inputs/gen.py function MB) is checked with
# -fsyntax-only (lexer, parser, SSA, typing); prints seconds and peak
# resident memory, and memory per MB of source, which stays flat where both
# grow linearly. Needs GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
PYKC=${PYKC:-build/pykc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pykc-scaling-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
printf '%-22s %8s %10s %10s %12s\n' input MB seconds "peak MB" "peak MB/MB"
for mb in ${*:-1 2 4 8}; do
    python3 tests/lit/badinput/Inputs/gen.py function "$mb" > "$TMP/f.pyk"
    size=$(wc -c < "$TMP/f.pyk")
    /usr/bin/time -f '%e %M' -o "$TMP/t" "$PYKC" -fsyntax-only "$TMP/f.pyk"
    read -r secs kb < "$TMP/t"
    awk -v n="function $mb MB" -v b="$size" -v s="$secs" -v k="$kb" \
        'BEGIN { mb = b / 1e6; printf "%-22s %8.2f %10.2f %10.0f %12.0f\n", n, mb, s, k / 1024, k / 1024 / mb }'
done
