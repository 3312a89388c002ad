#!/bin/sh
# run.sh DIR FAKE MAKE SAN: the CMake package, tested from an install.
# `make install DESTDIR=DIR/stage PREFIX=/opt/pykc`, then tests/cmake/project
# (copied to DIR, since the test edits it) is configured with
# find_package(pykc) against the staged tree, built, run against the
# driver double FAKE, rebuilt after an edit of the imported helpers.pyk
# (the depfile's work) and after an edit of scale.pyk, and not rebuilt
# when nothing changed. Once per generator: Unix Makefiles, and Ninja
# where it is installed. Writes "passed failed skipped" to DIR/counts; a
# check that cannot run here (no cmake, no ninja, SAN=1) is a skip.
dir=$1 fake=$2 make=$3 san=$4
passed=0 failed=0 skipped=0
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
case $fake in /*) ;; *) fake=$(pwd)/$fake ;; esac
log=$dir/log
rm -rf "$dir" && mkdir -p "$dir"

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "cmake: FAIL: $1"; [ -s "$log" ] && sed 's/^/    /' "$log" | tail -30; }
skip() { skipped=$((skipped + $1)); echo "cmake: skipped $1: $2"; }
check() {
    name=$1
    shift
    if "$@" > "$log" 2>&1; then ok; else bad "$name"; fi
}
finish() {
    echo "$passed $failed $skipped" > "$dir/counts"
    echo "cmake: $passed passed, $failed failed, $skipped skipped"
    exit 0
}

PER_GENERATOR=6
if ! command -v cmake > /dev/null 2>&1; then
    skip $((1 + 2 * PER_GENERATOR)) "the CMake package (no cmake: make deps installs it)"
    finish
fi
if [ -n "$san" ]; then
    skip $((1 + 2 * PER_GENERATOR)) "the CMake package (SAN=1: the install would be a sanitizer build)"
    finish
fi

prefix=/opt/pykc
stage=$dir/stage
check "make install DESTDIR=... PREFIX=$prefix" $make --no-print-directory -s install DESTDIR="$stage" PREFIX="$prefix"
installed=$stage$prefix

# built NAME: the last build's log says pykc regenerated NAME (scale.h or scale.c).
regenerated() { grep -q "pykc: $1 from" "$log"; }

# generator NAME GENERATOR: the checks of one generator, in DIR/NAME.
generator() {
    src=$dir/$1/src b=$dir/$1/build app=$dir/$1/build/scale_app
    mkdir -p "$dir/$1" && cp -R tests/cmake/project "$src"
    if ! cmake -S "$src" -B "$b" -G "$2" -DCMAKE_PREFIX_PATH="$installed" > "$log" 2>&1 ||
        ! cmake --build "$b" > "$log.build" 2>&1; then
        cat "$log.build" >> "$log" 2> /dev/null
        bad "$1: configure and build tests/cmake/project against the installed package"
        skip $((PER_GENERATOR - 1)) "$1: the rest (the build failed)"
        return
    fi
    ok
    # The program finds the installed libpykrt.so.0 itself (CMake's build
    # rpath) and launches from its embedded module on the double.
    if env -u LD_LIBRARY_PATH PYKRT_LIBCUDA="$fake" "$app" > "$log" 2>&1 &&
        grep -q "launched scale over 1000 elements from the embedded module" "$log" &&
        env -u LD_LIBRARY_PATH ldd "$app" | grep -qF "$installed/lib/libpykrt.so.0"; then
        ok
    else
        bad "$1: scale_app on the double, against the installed libpykrt.so.0"
    fi
    cmake --build "$b" > "$log" 2>&1
    if ! regenerated scale.c && ! regenerated scale.h; then ok; else bad "$1: a second build with nothing changed ran pykc"; fi
    # An edit of the module scale.pyk imports: only the depfile knows it.
    sed -i 's/FACTOR = 5.0/FACTOR = 7.0/' "$src/helpers.pyk"
    cmake --build "$b" > "$log" 2>&1
    if regenerated scale.c && regenerated scale.h && grep -aq 0f40E00000 "$app" && ! grep -aq 0f40A00000 "$app"; then
        ok
    else
        bad "$1: an edit of the imported helpers.pyk did not reach scale_app (its PTX multiplies by 7.0f now)"
    fi
    # An edit of scale.pyk itself.
    printf '\n\n@cuda.jit\ndef twice(a: float32[::1]):\n    a[0] = a[0] * 2\n' >> "$src/scale.pyk"
    cmake --build "$b" > "$log" 2>&1
    if regenerated scale.c && grep -q 'scale_twice' "$b/pykc/scale_app/scale.h" && grep -aq '.entry twice' "$app"; then
        ok
    else
        bad "$1: an edit of scale.pyk did not rebuild scale.h and scale_app"
    fi
    check "$1: scale_app still runs after the rebuilds" env PYKRT_LIBCUDA="$fake" "$app"
}

generator make "Unix Makefiles"
if command -v ninja > /dev/null 2>&1; then
    generator ninja Ninja
else
    skip $PER_GENERATOR "the CMake package with Ninja (no ninja)"
fi
finish
