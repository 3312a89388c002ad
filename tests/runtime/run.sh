#!/bin/sh
# run.sh BUILD TDIR CC MAKE SAN: runs the runtime suite and writes its
# counts ("passed failed skipped") to TDIR/counts for tests/record.sh.
#
# Each check below counts once; the C test programs count each of their
# tests. Nothing here needs a GPU: the driver is the double
# TDIR/fake/libcuda.so.1 (or none at all), chosen through PYKRT_LIBCUDA.
# A check that cannot run here (a tool missing, a sanitizer build) counts
# as skipped, never as passed.
build=$1 t=$2 cc=$3 make=$4 san=$5
fixtures=tests/runtime/fixtures
fake=$t/fake/libcuda.so.1
passed=0
failed=0
skipped=0
log=$t/log
mkdir -p "$t/empty" "$t/pykc-vadd"

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "runtime: FAIL: $1"; [ -s "$log" ] && sed 's/^/    /' "$log"; }
# skip N WHY: N checks that cannot run here.
skip() { skipped=$((skipped + $1)); echo "runtime: skipped $1: $2"; }

# counted NAME CMD...: a program that writes its own counts to $t/c.
counted() {
    name=$1
    shift
    rm -f "$t/c"
    "$@" > "$log" 2>&1
    rc=$?
    if [ -s "$t/c" ]; then
        read -r p f < "$t/c"
        # All passed but a nonzero exit: a sanitizer's report (a leak).
        [ "$f" -eq 0 ] && [ "$rc" -ne 0 ] && f=1
        passed=$((passed + p))
        failed=$((failed + f))
        [ "$f" -eq 0 ] || { echo "runtime: $name (exit $rc):"; sed 's/^/    /' "$log"; }
    else
        bad "$name crashed (exit $rc)"
    fi
}

# expect NAME STATUS TEXT CMD...: exit status STATUS and TEXT in the output.
expect() {
    name=$1 want=$2 text=$3
    shift 3
    "$@" > "$log" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$log"; then ok; else bad "$name (exit $rc, wanted $want and \"$text\")"; fi
}

# check NAME CMD...: the command succeeds.
check() {
    name=$1
    shift
    if "$@" > "$log" 2>&1; then ok; else bad "$name"; fi
}

# 1. The unit tests, against the driver double.
counted runtime_tests env PYKRT_LIBCUDA="$fake" "$t/runtime_tests" "$fixtures" "$t/c"

# 2. No driver, no device, a driver without an entry point.
counted "nodriver (missing file)" env LD_LIBRARY_PATH="$t/empty" PYKRT_LIBCUDA="$t/empty/libcuda.so.1" \
    "$t/nodriver" nodriver "$t/c"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    skip 1 "the default-path no-driver test (a system libcuda.so.1 exists)"
else
    counted "nodriver (default path)" env -u PYKRT_LIBCUDA LD_LIBRARY_PATH="$t/empty" "$t/nodriver" nodriver "$t/c"
fi
# Offline validation: a manifest opened and launches checked, no driver.
counted offline env LD_LIBRARY_PATH="$t/empty" PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/offline" "$fixtures" "$t/c"
counted nodevice env FAKE_CUDA_DEVICES=0 PYKRT_LIBCUDA="$fake" "$t/nodriver" nodevice "$t/c"
counted nolaunch env PYKRT_LIBCUDA="$t/fake-nolaunch/libcuda.so.1" "$t/nodriver" nolaunch "$t/c"

# 2b. The host device, with the hand-written modules of host_kernels.c
# (RT_TDIR/host): chosen by $PYKRT_DEVICE=host (with the CPUs' count of
# workers, one, and several), and by PYKRT_DEVICE_HOST where no driver or
# no device is; a wrong $PYKRT_DEVICE or $PYKRT_HOST_THREADS is reported.
# Under SAN=1, LeakSanitizer's scan of dynamic TLS (gcc 12's) crashes on
# what a worker kept of an unloaded module's TLS: TLS is left out of its
# roots there, which can only report more leaks, never hide one.
h=$t/host
lsan=
[ -n "$san" ] && lsan=LSAN_OPTIONS=use_tls=0
counted "host device" env $lsan PYKRT_DEVICE=host "$t/host_tests" env "$h" "$fixtures" "$t/c"
counted "host device, 1 worker" env $lsan PYKRT_DEVICE=host PYKRT_HOST_THREADS=1 "$t/host_tests" env "$h" \
    "$fixtures" "$t/c"
counted "host device, 5 workers" env $lsan PYKRT_DEVICE=host PYKRT_HOST_THREADS=5 "$t/host_tests" env "$h" \
    "$fixtures" "$t/c"
counted "host device after no driver" env $lsan PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/host_tests" fallback \
    "$h" "$fixtures" "$t/c"
counted "host device after no device" env $lsan FAKE_CUDA_DEVICES=0 PYKRT_LIBCUDA="$fake" "$t/host_tests" fallback \
    "$h" "$fixtures" "$t/c"
counted "a wrong PYKRT_DEVICE" env PYKRT_DEVICE=gpu "$t/host_tests" badenv "$h" "$fixtures" "$t/c"
counted "a wrong PYKRT_HOST_THREADS" env PYKRT_DEVICE=host PYKRT_HOST_THREADS=0 "$t/host_tests" badthreads "$h" \
    "$fixtures" "$t/c"
expect "vadd_host on the host device, PTX only" 2 "compile it with pykc --target host to run on the CPU" \
    env PYKRT_DEVICE=host "$t/vadd_host" "$fixtures/vadd.yaml"

# 3. The sample and the benchmark, without a driver and with the double.
expect "vadd_host without a driver, PTX only" 2 "no GPU, and nothing the CPU runs" \
    env PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/vadd_host" "$fixtures/vadd.yaml"
expect "vadd_host without a device, PTX only" 2 "no GPU to run on: no CUDA device" \
    env FAKE_CUDA_DEVICES=0 PYKRT_LIBCUDA="$fake" "$t/vadd_host" "$fixtures/vadd.yaml"
expect "vadd_host on the double" 0 "result checked on the CPU, all equal" \
    env PYKRT_LIBCUDA="$fake" "$t/vadd_host" "$fixtures/vadd.yaml" 100000
expect "vadd_host with a stale manifest" 1 "does not match" \
    env PYKRT_LIBCUDA="$fake" "$t/vadd_host" "$fixtures/stale.yaml"
expect "docs/runtime.md's program without a driver" 2 "context: no CUDA driver" \
    env PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/doc_host" "$fixtures/vadd.yaml"
expect "docs/runtime.md's program on the double" 0 "vadd: 100000 elements checked" \
    env PYKRT_LIBCUDA="$fake" "$t/doc_host" "$fixtures/vadd.yaml"
expect "bench_launch without a driver" 2 "bench_launch: no GPU to run on: no CUDA driver" \
    env PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/bench_launch"
expect "bench_launch on the double" 0 "pykrt_launch (checked)" \
    env PYKRT_LIBCUDA="$fake" "$t/bench_launch" bench/launch/empty.yaml 5 64

# pykc's own output, when pykc is built: the runtime must read the manifest
# the compiler writes (src/manifest.c) and launch its vadd.
if [ ! -x "$build/pykc" ]; then
    skip 1 "loading pykc's vadd.yaml (pykc is not built)"
elif "$build/pykc" samples/vadd.pyk -o "$t/pykc-vadd/vadd.ptx" > "$log" 2>&1 &&
     "$build/pykc" samples/vadd.pyk --arch sm_75 --arch x86-64-v2 -o "$t/pykc-vadd/both.ptx" > "$log" 2>&1; then
    expect "vadd_host on pykc's vadd.yaml" 0 "all equal" \
        env PYKRT_LIBCUDA="$fake" "$t/vadd_host" "$t/pykc-vadd/vadd.yaml" 5000
    expect "vadd_host without a driver runs on the CPU" 0 "on the CPU, host CPU" \
        env $lsan PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/vadd_host" "$t/pykc-vadd/both.yaml" 300000
    expect "vadd_host on the GPU double of a GPU and CPU manifest" 0 "result checked on the CPU, all equal" \
        env PYKRT_LIBCUDA="$fake" "$t/vadd_host" "$t/pykc-vadd/both.yaml" 5000
else
    bad "pykc on samples/vadd.pyk"
fi

# 3b. pykc's C (--emit header, --emit c) for tests/runtime/emitc/kinds.pyk
# and samples/vadd.pyk: it compiles as strict C11 and as C++, the C
# compiler refuses a launch with the wrong array type, and the programs
# built on it launch every kind of parameter against the double (which
# checks the bytes) from the embedded module and from the files, refuse a
# stale module, and run docs/runtime.md's typed-launcher program and
# docs/tutorial.md's kernel and program.
e=$t/emitc
if [ ! -x "$build/pykc" ]; then
    skip 11 "pykc's C (pykc is not built)"
elif ! $make --no-print-directory -s runtime-emitc SAN="$san" > "$log" 2>&1; then
    bad "make runtime-emitc"
    skip 10 "pykc's C (its build failed)"
else
    strict="-std=c11 -pedantic -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror -Iinclude -I$e -fsyntax-only"
    check "kinds.h and vadd.h compile as strict C11" sh -c \
        "printf '#include \"kinds.h\"\n#include \"vadd.h\"\n' | $cc $strict -x c - && $cc $strict $e/kinds.c $e/vadd.c"
    # clang warns of a source's unused static functions: kinds.c silences
    # it for its own only
    if command -v clang > /dev/null 2>&1; then
        check "kinds.c compiles with clang, which still warns of the includer's unused functions" sh -c \
            "clang $strict $e/kinds.c && printf '#include \"kinds.c\"\nstatic void unused(void) {}\n' > $e/unused.c && \
             clang $strict $e/unused.c 2>&1 | grep -q \"unused function 'unused'\""
    else
        skip 1 "pykc's C with clang (no clang)"
    fi
    if command -v c++ > /dev/null 2>&1; then
        check "kinds.h and kinds.c compile as C++" sh -c \
            "c++ -Wall -Wextra -Werror -Iinclude -I$e -fsyntax-only -x c++ $e/kinds.c && \
             printf '#include \"kinds.h\"\n#include \"kinds.c\"\n' | c++ -Wall -Wextra -Werror -Iinclude -I$e -fsyntax-only -x c++ -"
    else
        skip 1 "pykc's C as C++ (no c++)"
    fi
    printf '#include "kinds.h"\nint f(const kinds_module *m, pykc_float64_1d a);\nint f(const kinds_module *m, pykc_float64_1d a) { return kinds_scale(m, 0, a, 1.0f); }\n' > "$e/wrong.c"
    expect "a launch with the wrong array type does not compile" 1 "pykc_float32_1d" \
        sh -c "if $cc -std=c11 -Iinclude -I$e -fsyntax-only $e/wrong.c 2>&1; then exit 0; else exit 1; fi"
    expect "kinds_host on the double" 0 "all passed, the bytes of each launch checked" \
        env PYKRT_LIBCUDA="$fake" "$e/kinds_host" "$e/kinds.yaml" "$fixtures/vadd.yaml"
    expect "kinds_host without a driver" 2 "no GPU to run on" \
        env PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$e/kinds_host"
    expect "docs/runtime.md's typed launchers, embedded module" 0 "vadd: 100000 elements checked through vadd.h" \
        env PYKRT_LIBCUDA="$fake" "$e/doc_launchers"
    "$build/pykc" samples/vadd.pyk -o "$e/vadd.ptx" > "$log" 2>&1 || bad "pykc samples/vadd.pyk -o vadd.ptx"
    expect "docs/runtime.md's typed launchers, from vadd.yaml" 0 "vadd: 100000 elements checked" \
        env PYKRT_LIBCUDA="$fake" "$e/doc_launchers" "$e/vadd.yaml"
    expect "docs/runtime.md's typed launchers refuse another module" 1 "not the ones the header was generated for" \
        env PYKRT_LIBCUDA="$fake" "$e/doc_launchers" "$e/kinds.yaml"
    expect "docs/tutorial.md's program on the double" 0 "add_arrays_cuda: 100000 elements checked" \
        env PYKRT_LIBCUDA="$fake" "$e/doc_tutorial"
    expect "docs/tutorial.md's program without a driver" 2 "context: no CUDA driver" \
        env PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$e/doc_tutorial"
fi

# 4. The libraries export pykrt_* only; libyaml is inside, not needed.
so=$build/lib/libpykrt.so.0.1.0
check "libpykrt.so exports only pykrt_*" sh -c \
    "nm -D --defined-only '$so' | awk '\$2 != \"A\" && \$3 !~ /^pykrt_/ { print; bad = 1 } END { exit bad }'"
check "libpykrt.so has soname libpykrt.so.0" sh -c "readelf -d '$so' | grep -q 'SONAME.*\\[libpykrt.so.0\\]'"
check "libpykrt.so needs no libyaml" sh -c "! readelf -d '$so' | grep -q 'NEEDED.*yaml'"
check "libpykrt.a defines only pykrt_* globals" sh -c \
    "nm -g --defined-only '$build/lib/libpykrt.a' | awk 'NF == 3 && \$3 !~ /^pykrt_/ { print; bad = 1 } END { exit bad }'"
check "the runtime never aborts, exits or prints" sh -c \
    "nm -u $build/runtime/obj/*.o | grep -wE 'abort|exit|_exit|printf|fprintf|vfprintf|puts|fputs|fwrite|perror|putchar|__assert_fail|stderr|stdout' && exit 1 || exit 0"

# 5. The header alone, as strict C11 and as C++.
check "pykrt.h compiles alone as C11" sh -c \
    "echo '#include \"pykrt.h\"' | $cc -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c -"
if command -v c++ > /dev/null 2>&1; then
    check "pykrt.h compiles as C++" sh -c \
        "echo '#include \"pykrt.h\"' | c++ -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ -"
else
    skip 1 "pykrt.h as C++ (no c++)"
fi

# 6. make install-runtime, then a program built the documented way.
case $t in /*) prefix=$t/prefix ;; *) prefix=$(pwd)/$t/prefix ;; esac
rm -rf "$prefix"
check "make install-runtime" $make --no-print-directory -s install-runtime PREFIX="$prefix" SAN="$san"
if command -v pkg-config > /dev/null 2>&1 && [ -z "$san" ]; then
    flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs pykrt)
    static=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --static --cflags --libs pykrt)
    check "build against the installed libpykrt.so" sh -c \
        "$cc samples/vadd_host.c $flags -o $t/installed_shared"
    # pkg-config's rpath finds the installed libpykrt.so.0: no LD_LIBRARY_PATH
    # (no driver: the program says so and tries the CPU, where x.yaml is not)
    expect "run against the installed libpykrt.so" 1 "no CUDA driver" \
        env -u LD_LIBRARY_PATH PYKRT_LIBCUDA="$t/empty/libcuda.so.1" "$t/installed_shared" x.yaml
    expect "the installed libpykrt.so on the double, found through the rpath" 0 "all equal" \
        env -u LD_LIBRARY_PATH PYKRT_LIBCUDA="$fake" "$t/installed_shared" "$fixtures/vadd.yaml" 1000
    check "the program uses the installed libpykrt.so.0" sh -c \
        "env -u LD_LIBRARY_PATH ldd $t/installed_shared | grep -qF '$prefix/lib/libpykrt.so.0'"
    check "build against the installed libpykrt.a" sh -c \
        "$cc samples/vadd_host.c -static-libgcc $(echo "$static" | sed 's/-lpykrt/-l:libpykrt.a/') -o $t/installed_static"
    expect "the installed libpykrt.a on the double" 0 "all equal" \
        env PYKRT_LIBCUDA="$fake" "$t/installed_static" "$fixtures/vadd.yaml" 1000
elif [ -n "$san" ]; then
    skip 6 "building against the installed libraries (SAN=1: they are sanitizer builds)"
else
    skip 6 "building against the installed libraries (no pkg-config)"
fi

# 7. The fuzz harness over the fixtures' manifests (prefixes and flips).
check "fuzz harness replay" "$t/fuzz_replay" "$fixtures"/*.yaml bench/launch/empty.yaml

# 8. The thread tests under ThreadSanitizer: a report fails them (counted
# treats a nonzero exit after passing tests as one). Where the TSan build
# fails or TSan cannot start here (its runtime refuses some kernels' memory
# layouts), that is a skip, not a pass.
tsan=$t/tsan
if ! $make --no-print-directory -s runtime-tsan SAN="$san" > "$log" 2>&1; then
    skip 2 "the thread tests under ThreadSanitizer: the build failed:"
    sed 's/^/    /' "$log" | tail -5
elif "$tsan/runtime_tests" > "$log" 2>&1; [ $? -ne 2 ] || ! grep -q '^usage:' "$log"; then
    skip 2 "the thread tests under ThreadSanitizer: it cannot run here:"
    sed 's/^/    /' "$log" | tail -5
else
    counted "thread tests under ThreadSanitizer" env PYKRT_LIBCUDA="$tsan/libcuda.so.1" \
        TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/runtime_tests" "$fixtures" "$t/c" \
        test_threads test_threads_and_messages test_context_destroy_in_use
    counted "host device under ThreadSanitizer" env PYKRT_DEVICE=host PYKRT_HOST_THREADS=4 \
        TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/host_tests" env "$tsan/host" "$fixtures" "$t/c"
fi

echo "$passed $failed $skipped" > "$t/counts"
echo "runtime: $passed passed, $failed failed, $skipped skipped"
