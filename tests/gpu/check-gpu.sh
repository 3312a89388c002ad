#!/bin/sh
# check-gpu.sh DIR [check_kernels.py options]: runs every test kernel that
# build-gpu-bundle.sh compiled into DIR on the GPU, through CuPy, and checks
# the results against NumPy references and numba-cuda (check_kernels.py).
# Builds nothing: DIR comes from the machine where pykc is.
here=$(dirname "$0")
if [ $# -lt 1 ]; then
    echo "usage: check-gpu.sh DIR [-k PATTERN] [--no-numba] [-v]   (DIR from tests/gpu/build-gpu-bundle.sh)" >&2
    exit 2
fi
exec "${PYTHON:-python3}" "$here/check_kernels.py" "$@"
