#!/bin/sh
# run-time-bundle.sh DIR: what bench/run_time.py needs on the GPU machine,
# made here: pykc's PTX and manifest of the anchor kernels, nvcc's PTX of
# bench/anchors.cu, and the .pyk source for numba-cuda. Then, there:
#   python3 bench/run_time.py DIR
set -eu
cd "$(dirname "$0")/.."
dir=${1:?usage: run-time-bundle.sh DIR}
PYKC=${PYKC:-build/pykc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$( [ -x "$CUDA_HOME/bin/nvcc" ] && echo "$CUDA_HOME/bin/nvcc" || command -v nvcc )}
ARCH=${ARCH:-sm_75}
mkdir -p "$dir"
cp samples/anchors/anchors.pyk "$dir/"
"$PYKC" -O3 --arch "$ARCH" "$dir/anchors.pyk" -o "$dir/anchors.ptx"
"$NVCC" -ptx -O3 -arch="$ARCH" bench/anchors.cu -o "$dir/nvcc.ptx"
echo "run-time-bundle: $dir holds anchors.pyk, anchors.ptx, anchors.yaml and nvcc.ptx"
