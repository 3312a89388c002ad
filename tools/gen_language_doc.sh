#!/bin/sh
# gen_language_doc.sh PYKC [DOC]: writes `PYKC --list-names` (every name of
# the entity table and every cuda.jit option) into DOC (docs/language.md)
# between its BEGIN/END GENERATED markers. With CHECK=1 it writes nothing
# and exits 1 when DOC's part differs from what pykc gives (the docs test).
set -e
pykc=$1 doc=${2:-docs/language.md}
begin='<!-- BEGIN GENERATED: pykc --list-names; tools/gen_language_doc.sh writes it -->'
end='<!-- END GENERATED -->'
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || { echo "$doc: no generated-part markers" >&2; exit 2; }
tmp=$(mktemp) names=$(mktemp)
trap 'rm -f "$tmp" "$names"' EXIT
"$pykc" --list-names > "$names"
awk -v b="$begin" -v e="$end" -v f="$names" '
    $0 == b { print; print ""; while ((getline l < f) > 0) print l; print ""; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$doc" > "$tmp"
if [ "${CHECK:-0}" = 1 ]; then
    diff -u "$doc" "$tmp" > /dev/null || {
        echo "$doc: its list of names differs from pykc --list-names; run: sh tools/gen_language_doc.sh $pykc $doc" >&2
        diff -u "$doc" "$tmp" | head -20 >&2
        exit 1
    }
else
    cp "$tmp" "$doc"
fi
