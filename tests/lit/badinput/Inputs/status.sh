#!/bin/sh
# status.sh WANT CMD...: runs CMD, passing on its output, and succeeds only
# if it exits with status WANT (so a test tells 1 from 2, and both from a
# crash).
want=$1
shift
"$@"
got=$?
[ "$got" -eq "$want" ] && exit 0
echo "status.sh: '$*' exited with $got, not $want" >&2
exit 1
