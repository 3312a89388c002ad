#!/bin/sh
# cpu-limit.sh SECONDS CMD...: runs CMD with at most SECONDS of CPU time
# (ulimit -t, which lit's own shell lacks), so that a test of how fast pykc
# is does not depend on how busy the machine is. Past the limit the kernel
# kills CMD (SIGXCPU) and this fails.
ulimit -t "$1" || exit 1
shift
exec "$@"
