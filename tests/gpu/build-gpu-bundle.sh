#!/bin/sh
# build-gpu-bundle.sh [OUT]: compiles every tests/gpu/kernels/*.pyk and the
# samples (samples/*.pyk, samples/*/*.pyk) with pykc into OUT (default
# .gpu/kernels): NAME.ptx and NAME.yaml beside a copy of NAME.pyk, or
# NAME.error with pykc's messages when it refuses one (check_kernels.py
# reports that case as failed and goes on). Run it where pykc and LLVM are;
# carry OUT to the GPU machine and run tests/gpu/check-gpu.sh OUT there.
# PYKC selects the compiler (default build/pykc), PYKCFLAGS adds options;
# PYKC_EXT names the code's extension (default ptx; so with --target host).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.gpu/kernels}
pykc=${PYKC:-$root/build/pykc}
ext=${PYKC_EXT:-ptx}
[ -x "$pykc" ] || { echo "build-gpu-bundle.sh: no compiler at $pykc (run make)" >&2; exit 2; }
mkdir -p "$out"
ok=0 bad=0
for src in "$root"/tests/gpu/kernels/*.pyk "$root"/samples/*.pyk "$root"/samples/*/*.pyk; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .pyk)
    if [ -e "$out/.seen.$name" ]; then
        echo "build-gpu-bundle.sh: two sources named $name.pyk; $src skipped" >&2
        bad=$((bad + 1))
        continue
    fi
    : > "$out/.seen.$name"
    rm -f "$out/$name.$ext" "$out/$name.yaml" "$out/$name.error"
    cp "$src" "$out/$name.pyk"
    # a module's own options, from its `# pykc-options: ...` line (bfloat16
    # needs --arch sm_80)
    own=$(sed -n 's/^# pykc-options: //p' "$src" | head -n 1)
    # a GPU's arch means nothing to the host target
    [ "$ext" = so ] && own=$(printf '%s\n' "$own" | sed 's/--arch[= ][^ ]*//g')
    # ${PYKCFLAGS} and $own are split into words on purpose
    # shellcheck disable=SC2086
    if "$pykc" ${PYKCFLAGS:-} $own "$src" -o "$out/$name.$ext" 2> "$out/$name.error"; then
        rm -f "$out/$name.error"
        ok=$((ok + 1))
    else
        echo "pykc failed on $src:" >&2
        sed 's/^/    /' "$out/$name.error" >&2
        bad=$((bad + 1))
    fi
done
rm -f "$out"/.seen.*
echo "build-gpu-bundle.sh: $ok modules compiled, $bad refused, in $out"
