#!/bin/sh
# bench-suite.sh RESULTS PYKC OUT: the benchmark suite without a GPU.
#   - bench/bundle.sh into OUT (no timing): every bench/suite module through
#     pykc in both layouts and checked (--checks=all), and through nvcc -ptx
#   - ptxas on every PTX that pykc wrote; pykc refuses no module but those
#     of bench/suite/unsupported.txt
#   - bench/gpu_bench.py --self-test on OUT: the GPU runner against a mocked
#     device (packing against the PTX parameter lists, references against
#     their checks, the report)
# Without nvcc (the CUDA toolkit) only pykc's part runs; without NumPy and
# numba-cuda the self-test is skipped. Records its counts for summarize.sh.
set -u
results=$1 pykc=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "test-bench: FAILED: $*"; }
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$( [ -x "$cuda/bin/nvcc" ] && echo "$cuda/bin/nvcc" || command -v nvcc || true )
ptxas=$( [ -x "$cuda/bin/ptxas" ] && echo "$cuda/bin/ptxas" || command -v ptxas || true )
unsupported=$(grep -v '^#' bench/suite/unsupported.txt | awk 'NF { print $1 }')
arch=sm_90
rm -rf "$out"
mkdir -p "$out"

if [ -n "$nvcc" ]; then
    if COMPILE=0 BENCH_LAUNCH= PYKC=$pykc NVCC=$nvcc ARCH=$arch sh bench/bundle.sh "$out" > "$out.log" 2>&1; then ok
    else bad "bench/bundle.sh: $(tail -n 3 "$out.log")"; fi
else
    # pykc alone, as bundle.sh would run it
    for v in A C checked; do mkdir -p "$out/pykc-$v"; done
    for src in bench/suite/*.pyk; do
        name=$(basename "$src" .pyk)
        cp "$src" "$out/pykc-A/$name.pyk"
        sed -E 's/([A-Za-z0-9_]*(int|float|complex|bool|boolean|double|intp|_type)[0-9]*)\[((:, )*):\]/\1[\3::1]/g' \
            "$src" > "$out/pykc-C/$name.pyk"
        cp "$out/pykc-C/$name.pyk" "$out/pykc-checked/$name.pyk"
        for v in A C checked; do
            checks=
            [ $v = checked ] && checks=--checks=all
            "$pykc" --arch $arch $checks "$out/pykc-$v/$name.pyk" -o "$out/pykc-$v/$name.ptx" 2> /dev/null ||
                rm -f "$out/pykc-$v/$name.ptx"
        done
    done
    echo "test-bench: no nvcc: the .cu files, ptxas and the self-test are skipped"
fi

for src in bench/suite/*.pyk; do
    name=$(basename "$src" .pyk)
    expected=ok
    for u in $unsupported; do [ "$u" = "$name" ] && expected=refused; done
    for v in A C checked; do
        ptx=$out/pykc-$v/$name.ptx
        if [ ! -f "$ptx" ]; then
            if [ $expected = refused ]; then ok; else bad "pykc refused $name ($v): $(head -n 1 "$out/pykc-$v/$name.error" 2> /dev/null)"; fi
        elif [ $expected = refused ]; then
            echo "test-bench: note: pykc now compiles $name: take it out of bench/suite/unsupported.txt"
            ok
        elif [ -z "$ptxas" ]; then
            ok  # compiled; not assembled
            skip=$((skip + 1))
        elif "$ptxas" -arch=$arch "$ptx" -o "$out/check.cubin" 2> "$out/ptxas.log"; then ok
        else bad "ptxas on pykc's $name ($v): $(head -n 3 "$out/ptxas.log")"; fi
    done
    if [ -n "$nvcc" ]; then
        if [ -f "$out/nvcc/$name.ptx" ]; then ok; else bad "nvcc -ptx bench/suite/$name.cu"; fi
    else
        skip=$((skip + 1))
    fi
done

if [ -z "$nvcc" ]; then
    skip=$((skip + 1))
elif python3 -c 'import numpy, numba.cuda' > /dev/null 2>&1; then
    if python3 bench/gpu_bench.py "$out" --self-test --compile-runs 1 --compile-modules vector_add > "$out/self-test.log" 2>&1
    then ok
    else bad "bench/gpu_bench.py --self-test: $(grep -E 'FAILED|Error' "$out/self-test.log" | head -n 5)"; fi
else
    echo "test-bench: NumPy or numba-cuda does not import: the runner's self-test is skipped"
    skip=$((skip + 1))
fi
sh tests/record.sh "$results" bench "$pass" "$fail" "$skip"
