/*
 * bolt-exit.c - linked into the build that BOLT's instrumentation profiles
 * (mk/bolt.mk), with --wrap=_exit: pykc leaves through _exit, which skips
 * the process's finalisers, and the instrumentation writes its profile in
 * one of them.
 */
#include <stdlib.h>

void __wrap__exit(int status);

void __wrap__exit(int status) {
    exit(status);
}
