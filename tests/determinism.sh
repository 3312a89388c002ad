#!/bin/sh
# determinism.sh RESULTS PYKC: the same input and options give the same
# bytes out. Every kernel file of the samples and the GPU tests is compiled
# twice, each time in a copy of the tree at another path, and every output
# (PTX, manifest, LLVM IR, make dependencies, debug PTX, two archs, the C
# of --emit header and --emit c) of the two runs is compared with cmp. One
# test a file; a file that does not compile fails too.
results=$1 pykc=$2
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# compile_all DIR: every output of every file, under DIR/out.
compile_all() {
    mkdir -p "$1"
    (cd "$top" && tar cf - samples tests/gpu/kernels) | (cd "$1" && tar xf -)
    cd "$1" || exit 1
    for f in $(find samples tests/gpu/kernels -name '*.pyk' | sort); do
        o=out/$(echo "$f" | tr / _)
        mkdir -p "$o"
        # a module's own options (`# pykc-options: --arch sm_80` for bfloat16)
        own=$(sed -n 's/^# pykc-options: //p' "$f" | head -n 1)
        # $own is split into words on purpose
        # shellcheck disable=SC2086
        { "$pykc" $own -MD "$f" -o "$o/k.ptx" &&
          "$pykc" $own --emit llvm "$f" -o "$o/k.ll" &&
          "$pykc" $own -g "$f" -o "$o/g.ptx" &&
          "$pykc" ${own:---arch sm_75} --arch sm_90 "$f" -o "$o/two.ptx" &&
          "$pykc" $own --emit header -MD "$f" -o "$o/k.h" &&
          "$pykc" ${own:---arch sm_75} --arch sm_90 --emit c "$f" -o "$o/k.c"; } >/dev/null 2>&1 || echo failed > "$o/status"
    done
}

(compile_all "$work/a")
(compile_all "$work/b/elsewhere")
passed=0 failed=0
for o in "$work"/a/out/*; do
    name=$(basename "$o")
    if [ -f "$o/status" ]; then
        echo "determinism: $name does not compile"
        failed=$((failed + 1))
    elif diff -r "$o" "$work/b/elsewhere/out/$name" >/dev/null; then
        passed=$((passed + 1))
    else
        echo "determinism: $name: outputs differ between two runs"
        failed=$((failed + 1))
    fi
done
echo "determinism: $passed passed, $failed failed"
sh "$top/tests/record.sh" "$results" determinism "$passed" "$failed"
