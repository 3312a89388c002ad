#!/bin/sh
# profile.sh PYKC OUTDIR: compiles what mk/profile-runs lists with PYKC,
# the outputs into OUTDIR. A compilation that fails does not stop the others
# (one of them is meant to fail).
set -eu
pykc=$1 out=$2
grep -v -e '^#' -e '^ *$' mk/profile-runs | while read -r line; do
    set -f
    set -- $line # the options, then the input's glob, unexpanded
    set +f
    eval "inputs=\${$#}"
    opts=""
    while [ $# -gt 1 ]; do opts="$opts $1"; shift; done
    for input in $inputs; do
        "$pykc" $opts "$input" -o "$out/out.ptx" >/dev/null 2>&1 || true
    done
done
