#!/bin/sh
# make-corpus.sh FUZZER DIR: rebuilds DIR (tests/fuzz/corpus for the front
# end, tests/fuzz/corpus-backend for the back end), a seed corpus that
# `make test` fuzzes from, out of the tests: every .pyk test input, sample
# and GPU test kernel up to 8 KB, and small odd inputs from the bad-input
# generator. libFuzzer's -merge keeps the files that add coverage, named by
# their SHA-1, and leaves out any that crash (a known bug's reproducer).
# Run it (`make fuzz-corpus`) after adding tests, and commit.
set -e
fuzzer=$1
out=${2:-tests/fuzz/corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tests/lit/*/*.pyk tests/typing/cases/*.pyk samples/*.pyk samples/*/*.pyk tests/gpu/kernels/*.pyk; do
    [ -f "$f" ] || continue
    [ "$(wc -c < "$f")" -le 8192 ] || continue
    cp "$f" "$tmp/$(echo "$f" | tr / _)"
done
gen="python3 tests/lit/badinput/Inputs/gen.py"
$gen utf8 > "$tmp/gen-utf8"
$gen nul > "$tmp/gen-nul"
$gen control > "$tmp/gen-control"
$gen formfeed > "$tmp/gen-formfeed"
$gen garbage 512 1 > "$tmp/gen-garbage"
$gen blocks 120 > "$tmp/gen-blocks"
$gen parens 300 > "$tmp/gen-parens"
$gen prefix 300 "2**" > "$tmp/gen-power"
for f in tests/lit/lex/crlf.pyk tests/lit/lex/bom.pyk; do
    $gen "$(basename "$f" .pyk)" "$f" > "$tmp/gen-$(basename "$f")"
done
rm -rf "$out.new"
mkdir -p "$out.new"
"$fuzzer" -merge=1 -max_len=8192 "$out.new" "$tmp" >/dev/null 2>&1
rm -rf "$out"
mv "$out.new" "$out"
echo "$out: $(ls "$out" | wc -l) files"
