#!/bin/sh
# run.sh RESULTS PYKC TDIR MAKE: the docs suite. docs/language.md's
# generated list of names is what pykc --list-names gives (and the check
# fails on a doc that differs); the man pages render without a warning and
# pykc.1 names every option of pykc --help; make install installs the man
# pages and the docs. A check whose tool is missing (groff) is skipped.
results=$1 pykc=$2 t=$3 make=$4
passed=0 failed=0 skipped=0
rm -rf "$t" && mkdir -p "$t"
log=$t/log
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "docs: FAIL: $1"; [ -s "$log" ] && sed 's/^/    /' "$log" | head -20; }
check() { name=$1; shift; if "$@" > "$log" 2>&1; then ok; else bad "$name"; fi; }
refuse() { name=$1; shift; if "$@" > "$log" 2>&1; then bad "$name (accepted)"; else ok; fi; }

# 1. The generated list of names, and a doc that differs is caught.
check "docs/language.md lists pykc --list-names (run: sh tools/gen_language_doc.sh build/pykc)" \
    env CHECK=1 sh tools/gen_language_doc.sh "$pykc" docs/language.md
sed 's/`syncthreads`, //' docs/language.md > "$t/stale.md"
refuse "a language.md without cuda.syncthreads" env CHECK=1 sh tools/gen_language_doc.sh "$pykc" "$t/stale.md"
check "pykc --list-names lists cuda.grid and a refusal" sh -c \
    "'$pykc' --list-names | grep -q '\`grid\`' && '$pykc' --list-names | grep -qF '\`sqrt\` (use math.sqrt)'"

# 2. The man pages: no warning from groff, every --help option in pykc.1.
if command -v groff > /dev/null 2>&1; then
    for page in man/pykc.1 man/pykrt.3; do
        check "$page renders without warnings" sh -c "groff -man -ww -z $page 2>&1 | tee /dev/stderr | [ \$(wc -c) -eq 0 ]"
    done
    groff -man -rHY=0 -Tascii -P-cbu man/pykc.1 > "$t/pykc.txt" 2>/dev/null
    # each option of --help's first column: -o, --arch, -O0 ... -DNAME=VALUE
    "$pykc" --help | sed -n 's/^  \(-[^ ]*\( -[^ ]*\)*\).*/\1/p' | tr ' ,' '\n\n' | sed 's/=.*//' | grep '^-' | sort -u > "$t/options"
    missing=$(while read -r o; do grep -qF -- "$o" "$t/pykc.txt" || echo "$o"; done < "$t/options")
    check "pykc.1 names every option of pykc --help ($(wc -l < "$t/options") options)" \
        sh -c "[ -z '$missing' ] || { echo 'missing from man/pykc.1: $missing'; exit 1; }"
    check "the option list is read (-o, --arch, --sig, -Wfp64-promotion)" sh -c \
        "grep -qx -- -o $t/options && grep -qx -- --arch $t/options && grep -qx -- --sig $t/options && grep -qx -- -Wfp64-promotion $t/options"
else
    skipped=$((skipped + 4))
    echo "docs: skipped 4: the man pages (no groff)"
fi

# 3. make install: the man pages and the docs in place.
dest=$t/dest
check "make install DESTDIR=..." $make --no-print-directory -s install DESTDIR="$dest" PREFIX=/usr
for f in bin/pykc share/man/man1/pykc.1 share/man/man3/pykrt.3 share/doc/pykc/language.md \
         share/doc/pykc/cli.md share/doc/pykc/runtime.md; do
    check "make install wrote $f" test -s "$dest/usr/$f"
done
if command -v man > /dev/null 2>&1; then
    check "man -l reads the installed pykc.1" sh -c "man -l '$dest/usr/share/man/man1/pykc.1' 2>/dev/null | grep -q 'explain-types'"
else
    skipped=$((skipped + 1))
    echo "docs: skipped 1: the installed man page (no man)"
fi

echo "docs: $passed passed, $failed failed, $skipped skipped"
sh tests/record.sh "$results" docs "$passed" "$failed" "$skipped"
