#!/bin/sh
# run.sh RESULTS PYKC TDIR MAKE FAKE SAN: the docs suite. docs/language.md's
# generated list of names is what pykc --list-names gives (and the check
# fails on a doc that differs); the man pages render without a warning and
# pykc.1 names every option of pykc --help; make install installs the man
# pages and the docs; every command of the docs runs as written or is
# exempt (tests/docs/commands.py and exempt.txt; FAKE is the runtime's
# double of libcuda.so.1), and commands.py fails a page whose command
# fails, prints other than its page shows, or lost an exemption's command.
# A check whose tool is missing (groff, python3) is skipped, and so are the
# commands under SAN=1 (they build and run the plain build).
results=$1 pykc=$2 t=$3 make=$4 fake=$5 san=$6
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

# 4. The docs' commands, run as written or exempt (tests/docs/commands.py).
if ! command -v python3 > /dev/null 2>&1; then
    skipped=$((skipped + 1))
    echo "docs: skipped 1: the docs' commands (no python3)"
elif [ -n "$san" ]; then
    n=$(python3 tests/docs/commands.py --list | wc -l)
    skipped=$((skipped + n))
    echo "docs: skipped $n: the docs' commands (SAN=1: they build and run the plain build)"
else
    python3 tests/docs/commands.py --work "$t/commands" --make "$make" --fake "$fake" --counts "$t/counts"
    if read -r p q k < "$t/counts"; then
        passed=$((passed + p)) failed=$((failed + q)) skipped=$((skipped + k))
    else
        bad "tests/docs/commands.py wrote no counts"
    fi
fi

# 5. commands.py on a page of its own (tests/docs/selftest): it takes the
# commands of sh, console and indented blocks alone, and passes the page as
# it is; a command neither runnable here nor exempt fails, as do output
# other than the page shows, an exemption whose check fails or that no page
# uses, and a make target or script named in the text that does not exist.
st=tests/docs/selftest
if command -v python3 > /dev/null 2>&1 && [ -z "$san" ]; then
    commands() { python3 tests/docs/commands.py --work "$t/self" --make "$make" --exempt "$@"; }
    # fails NAME MESSAGE ARGS...: commands.py fails and says MESSAGE
    fails() {
        name=$1 want=$2
        shift 2
        if commands "$@" > "$log" 2>&1; then
            bad "$name (it passed)"
        elif grep -qF -- "$want" "$log"; then
            ok
        else
            bad "$name (not saying '$want')"
        fi
    }
    python3 tests/docs/commands.py --list --exempt $st/exempt.txt $st/page.md | cut -d: -f2,3 | tr '\n' ' ' > "$t/list"
    check "commands.py takes the commands of sh, console and indented blocks alone" \
        grep -qx '3: run 10: run 12: run 23: exempt ' "$t/list"
    check "a page whose commands run or are exempt passes" commands $st/exempt.txt $st/page.md
    : > "$t/none.txt"
    fails "a command neither run here nor exempt fails" \
        "page.md:23: sh runtime/check-gpu.sh build/no-such-bundle: exit status 1" "$t/none.txt" $st/page.md
    sed 's/^three$/four/' $st/page.md > "$t/shows.md"
    fails "a command that prints other than its page shows fails" \
        "shows.md:12: printf 'one\ntwo\nthree\n': its output is not what the page shows" $st/exempt.txt "$t/shows.md"
    sed 's/check: sh -n /check: sh -n no-such-script.sh \&\& sh -n /' $st/exempt.txt > "$t/badcheck.txt"
    fails "an exemption whose check fails fails" "(the check in its place: sh -n no-such-script.sh" \
        "$t/badcheck.txt" $st/page.md
    { cat $st/exempt.txt; printf 'make no-such-target\n    why: gone\n'; } > "$t/stale.txt"
    fails "an exemption that no page uses fails" "exempts 'make no-such-target', which no page has any more" \
        "$t/stale.txt" $st/page.md
    fails "a make target that the text names must exist" "make has no target no-such-target" \
        "$t/none.txt" $st/inline.md
    fails "a script that the text names must exist" "names the script tools/no-such-script.sh" \
        "$t/none.txt" $st/inline.md
else
    skipped=$((skipped + 8))
    echo "docs: skipped 8: commands.py's own checks (no python3, or SAN=1)"
fi

echo "docs: $passed passed, $failed failed, $skipped skipped"
sh tests/record.sh "$results" docs "$passed" "$failed" "$skipped"
