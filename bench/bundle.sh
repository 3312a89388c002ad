#!/bin/sh
# bundle.sh DIR: everything the GPU machine needs to run the benchmark
# suite (bench/suite), made here where pykc is; `make bench` runs it into
# build/bench. Then, on the GPU machine, from the repository root:
#   sh bench/run-gpu.sh DIR
#
#   DIR/suite/NAME.pyk NAME.cu    the sources (numba-cuda runs the .pyk there,
#                                 nvcc's compile time is taken there)
#   DIR/pykc-A/NAME.{pyk,ptx,yaml} pykc's build of the source as written
#                                 (`float32[:]`: layout A)
#   DIR/pykc-C/NAME.{pyk,ptx,yaml} pykc's build of the same source with every
#                                 array annotation made C-contiguous (`[::1]`,
#                                 `[:, ::1]`), generated here by sed
#   DIR/pykc-checked/NAME.{pyk,ptx,yaml} pykc-C's source built with
#                                 `--checks=all` (bounds, div0, assert): what
#                                 the checks cost
#                                 NAME.error instead of .ptx and .yaml where
#                                 pykc refuses the module
#   DIR/nvcc/NAME.ptx             nvcc -ptx -O3 -arch=$ARCH of NAME.cu
#   DIR/launch/                   bench_launch (libpykrt's launch overhead,
#                                 linked statically) and its empty kernel
#   DIR/compile_here.tsv          compile times here, per module (COMPILE=1):
#                                 module, compiler, median ms, fastest ms
#   DIR/bundle.json               commit, date, arch, tool versions, modules
#
# Variables: PYKC (build/pykc), NVCC, ARCH (sm_90), COMPILE (1: time pykc and
# nvcc on each module with bench/compile_time.sh; 0: skip), RUNS (3: nvcc
# runs a module; pykc runs 20 times as often), BENCH_LAUNCH (the bench_launch
# program, build/runtime-gpu/bench_launch; empty: none). Exit status 0 when every module
# went through nvcc and pykc refused none but those it is known not to
# support yet (bench/gpu_bench.py, EXPECTED_UNSUPPORTED).
set -eu
cd "$(dirname "$0")/.."
dir=${1:?usage: bundle.sh DIR}
PYKC=${PYKC:-build/pykc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$( [ -x "$CUDA_HOME/bin/nvcc" ] && echo "$CUDA_HOME/bin/nvcc" || command -v nvcc || true )}
ARCH=${ARCH:-sm_90}
COMPILE=${COMPILE:-1}
RUNS=${RUNS:-3}
BENCH_LAUNCH=${BENCH_LAUNCH-build/runtime-gpu/bench_launch}
[ -x "$PYKC" ] || { echo "bundle.sh: no pykc at $PYKC (run make)" >&2; exit 2; }
[ -n "$NVCC" ] || { echo "bundle.sh: no nvcc (\$CUDA_HOME/bin, PATH)" >&2; exit 2; }

variants="A C checked"
rm -rf "$dir/suite" "$dir/pykc-A" "$dir/pykc-C" "$dir/pykc-checked" "$dir/nvcc" "$dir/launch" \
    "$dir/compile_here.tsv" "$dir/bundle.json"
mkdir -p "$dir/suite" "$dir/nvcc" "$dir/launch"
for v in $variants; do mkdir -p "$dir/pykc-$v"; done

# [:] -> [::1], [:, :] -> [:, ::1] ... after a type name: the C-contiguous
# variant of an annotation. The suite has no slices in its kernels.
contiguous() {
    sed -E 's/([A-Za-z0-9_]*(int|float|complex|bool|boolean|double|intp|_type)[0-9]*)\[((:, )*):\]/\1[\3::1]/g' "$1"
}

modules="" refused="" bad=0
for src in bench/suite/*.pyk; do
    name=$(basename "$src" .pyk)
    modules="$modules $name"
    cp "$src" "$dir/suite/"
    cp "bench/suite/$name.cu" "$dir/suite/"
    cp "$src" "$dir/pykc-A/$name.pyk"
    contiguous "$src" > "$dir/pykc-C/$name.pyk"
    cp "$dir/pykc-C/$name.pyk" "$dir/pykc-checked/$name.pyk"
    for v in $variants; do
        out=$dir/pykc-$v/$name
        checks=
        [ "$v" = checked ] && checks=--checks=all
        if "$PYKC" -O3 --arch "$ARCH" $checks "$out.pyk" -o "$out.ptx" 2> "$out.error"; then
            rm -f "$out.error"
        else
            rm -f "$out.ptx" "$out.yaml"
            echo "bundle.sh: pykc refused $name ($v): $(grep -m1 'error:' "$out.error" || head -n1 "$out.error")" >&2
            case " $refused " in *" $name "*) ;; *) refused="$refused $name" ;; esac
        fi
    done
    if ! "$NVCC" -ptx -O3 -arch="$ARCH" "bench/suite/$name.cu" -o "$dir/nvcc/$name.ptx"; then
        echo "bundle.sh: nvcc failed on bench/suite/$name.cu" >&2
        bad=1
    fi
done

cp bench/launch/empty.ptx bench/launch/empty.yaml "$dir/launch/"
if [ -z "$BENCH_LAUNCH" ]; then
    :
elif [ -x "$BENCH_LAUNCH" ]; then
    cp "$BENCH_LAUNCH" "$dir/launch/bench_launch"
else
    echo "bundle.sh: no $BENCH_LAUNCH (make runtime-gpu): the launch overhead of pykrt will be missing" >&2
fi

if [ "$COMPILE" = 1 ]; then
    tsv=$dir/compile_here.tsv
    printf 'module\tcompiler\tmedian_ms\tmin_ms\n' > "$tsv"
    for name in $modules; do
        echo "== compile time: $name" >&2
        MODULE=$name TSV=$tsv NUMBA=0 RUNS=$RUNS ARCH=$ARCH PYKC=$PYKC NVCC=$NVCC \
            sh bench/compile_time.sh "$dir/pykc-C/$name.pyk" "bench/suite/$name.cu" >&2 || true
    done
fi

# bundle.json
esc() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr -d '\n'; }
list() { first=1; printf '['; for x in $1; do [ $first = 1 ] || printf ', '; printf '"%s"' "$x"; first=0; done; printf ']'; }
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- 2>/dev/null || commit="$commit (modified)"
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)
cat > "$dir/bundle.json" <<JSON
{
  "commit": "$(esc "$commit")",
  "date": "$(date -u '+%Y-%m-%d %H:%M UTC')",
  "arch": "$ARCH",
  "pykc": "$(esc "$("$PYKC" --version | head -n1)")",
  "nvcc": "nvcc $(esc "$("$NVCC" --version | grep -m1 -o "release [0-9.]*, V[0-9.]*")")",
  "host": "$(esc "$(nproc) CPUs${cpu:+, $cpu}")",
  "modules": $(list "$modules"),
  "refused": $(list "$refused")
}
JSON
echo "bundle.sh: $dir: $(echo $modules | wc -w) modules;${refused:+ pykc refused:$refused;} arch $ARCH"
exit $bad
