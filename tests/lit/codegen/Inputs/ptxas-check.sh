#!/bin/sh
# ptxas-check.sh [-c] FILE.ptx...: assembles each PTX file with the CUDA
# toolkit's ptxas for sm_75 (pykc's default target, the oldest CUDA 13
# supports) and sm_90, as LLVM's NVPTX tests run ptxas-verify; with -c, as
# relocatable code (ptxas -c), for PTX that calls functions linked in later. An arch older than the
# file's own .target is skipped (ptxas refuses to assemble down). ptxas is
# $PTXAS, which lit.cfg.py sets where it finds one; a test that runs this
# check says `REQUIRES: ptxas`, so without ptxas it does not run. Run here
# without ptxas, the check fails: it never passes unchecked.
ptxas=${PTXAS:-}
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
    echo "ptxas-check.sh: no ptxas (PTXAS='$ptxas'): cannot assemble $*; a test that runs this check needs 'REQUIRES: ptxas'" >&2
    exit 1
fi
relocatable=
if [ "${1:-}" = -c ]; then relocatable=-c; shift; fi
[ $# -gt 0 ] || { echo "usage: ptxas-check.sh [-c] FILE.ptx..." >&2; exit 2; }
status=0
for f in "$@"; do
    target=$(sed -n 's/^\.target[[:space:]]*sm_\([0-9]*\).*/\1/p' "$f" | head -n 1)
    for arch in 75 90; do
        if [ -n "$target" ] && [ "$arch" -lt "$target" ]; then continue; fi
        if ! "$ptxas" $relocatable -arch=sm_$arch "$f" -o /dev/null; then
            echo "ptxas -arch=sm_$arch rejected $f" >&2
            status=1
        fi
    done
done
exit $status
