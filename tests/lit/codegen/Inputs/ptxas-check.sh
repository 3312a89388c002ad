#!/bin/sh
# ptxas-check.sh FILE.ptx...: assembles each PTX file with the CUDA toolkit's
# ptxas for sm_75 (pykc's default target, the oldest CUDA 13 supports) and
# sm_90, as LLVM's NVPTX tests run ptxas-verify. An arch older than the
# file's own .target is skipped (ptxas refuses to assemble down). Without
# ptxas the check is skipped with a note, so the suite still runs on a
# machine without the toolkit.
ptxas=
for c in "${PTXAS:-}" "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" /usr/local/cuda/bin/ptxas; do
    if [ -n "$c" ] && [ -x "$c" ]; then ptxas=$c; break; fi
done
[ -n "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null)
if [ -z "$ptxas" ]; then
    echo "ptxas not found: PTX assembly check skipped"
    exit 0
fi
[ $# -gt 0 ] || { echo "usage: ptxas-check.sh FILE.ptx..." >&2; exit 2; }
status=0
for f in "$@"; do
    target=$(sed -n 's/^\.target[[:space:]]*sm_\([0-9]*\).*/\1/p' "$f" | head -n 1)
    for arch in 75 90; do
        if [ -n "$target" ] && [ "$arch" -lt "$target" ]; then continue; fi
        if ! "$ptxas" -arch=sm_$arch "$f" -o /dev/null; then
            echo "ptxas -arch=sm_$arch rejected $f" >&2
            status=1
        fi
    done
done
exit $status
