#!/bin/sh
# sass_diff.sh OLD NEW [ARCH]: assembles each OLD/NAME.ptx and NEW/NAME.ptx
# with ptxas for ARCH (default sm_90), counts the SASS instructions of each
# with cuobjdump, and prints the files whose counts differ and the totals.
# For judging a change to codegen or to the pass pipeline by what the GPU
# runs rather than by the PTX, which ptxas rewrites. Needs the CUDA toolkit
# (CUDA_HOME, default /usr/local/cuda), as on the GPU machine.
set -u
old=$1 new=$2 arch=${3:-sm_90}
bin=${CUDA_HOME:-/usr/local/cuda}/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sass_count PTX: the SASS instructions ptxas makes of it, or "error".
sass_count() {
    "$bin/ptxas" -arch="$arch" "$1" -o "$tmp/x.cubin" 2>/dev/null || { echo error; return; }
    "$bin/cuobjdump" -sass "$tmp/x.cubin" | grep -cE '^ +/\*[0-9a-f]{4}\*/'
}

total_old=0 total_new=0 files=0 changed=0
for p in "$old"/*.ptx; do
    name=$(basename "$p")
    [ -f "$new/$name" ] || continue
    a=$(sass_count "$p")
    b=$(sass_count "$new/$name")
    files=$((files + 1))
    if [ "$a" != "$b" ]; then
        echo "$name: $a -> $b"
        changed=$((changed + 1))
    fi
    case "$a$b" in *error*) continue ;; esac
    total_old=$((total_old + a))
    total_new=$((total_new + b))
done
echo "sass_diff.sh: $files files, $changed changed; $arch SASS instructions $total_old -> $total_new"
