#!/bin/sh
# Installs the Debian packages that building and testing pykc need, and
# nothing when they are all present. Without root it prints the command.
# It also says whether the CUDA toolkit's ptxas is there (not a Debian
# package, and optional: without it the tests that assemble PTX are
# skipped), looking where tests/lit/lit.cfg.py looks.
set -eu
ptxas=
for c in "${PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas || true)"; do
    if [ -n "$c" ] && [ -f "$c" ] && [ -x "$c" ]; then ptxas=$c; break; fi
done
if [ -n "$ptxas" ]; then
    echo "deps: ptxas: $ptxas"
else
    echo "deps: no ptxas (PTXAS, \$CUDA_HOME/bin, /usr/local/cuda/bin, PATH): the tests that assemble PTX will be skipped"
fi
# pkg-config and the Python packaging ones for the docs' commands (a C
# program built with pkg-config; the pykrt package installed offline into
# a virtual environment: tests/docs/commands.py)
pkgs="llvm-19-dev llvm-19-tools libyaml-dev libzstd-dev zlib1g-dev \
clang-14 libclang-rt-14-dev make cmake python3 hyperfine \
pkg-config python3-venv python3-setuptools python3-wheel python3-wheel-whl"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all present ($pkgs)"
    exit 0
fi
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing:$missing"
    echo "deps: run as root: apt-get update && $cmd"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
