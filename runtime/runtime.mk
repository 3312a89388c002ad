# runtime/runtime.mk - libpykrt: the libraries, pykrt.pc, install, the
# runtime test suite, the manifest fuzzer and the GPU-check build.
# Included by the top-level Makefile, whose BUILD, CC, CFLAGS_BASE,
# LDFLAGS_BASE, PREFIX and RESULTS it uses. Builds without src/.
#
#   make runtime             build/lib/libpykrt.{a,so} and pykrt.pc
#   make install-runtime     into $(DESTDIR)$(PREFIX)/{include,lib,lib/pkgconfig}
#   make test-runtime        the suite (driver double, no GPU needed)
#   make fuzz-manifest       libFuzzer over the manifest reader (clang-14)
#   make runtime-gpu         build/runtime-gpu/: what runtime/check-gpu.sh runs
#   make runtime-emitc       the programs of pykc's C (--emit header, c) that
#                            test-runtime runs: the one part that needs pykc

RT_VERSION := 0.1.0
RT_SOVERSION := 0
RT_SRCS := $(addprefix runtime/,error.c handle.c dtype.c driver.c file.c manifest.c module.c link.c ptx.c memory.c launch.c \
  stream.c graph.c random.c offline.c host.c host_module.c host_sched.c)
RT_HDRS := include/pykrt.h runtime/runtime.h runtime/cuda_abi.h runtime/host.h runtime/host_abi.h
RT_DIR := $(BUILD)/runtime
RT_OBJS := $(RT_SRCS:runtime/%.c=$(RT_DIR)/obj/%.o)
RT_LIBDIR := $(BUILD)/lib
RT_A := $(RT_LIBDIR)/libpykrt.a
RT_SO := $(RT_LIBDIR)/libpykrt.so.$(RT_VERSION)
RT_SO_LINKS := $(RT_LIBDIR)/libpykrt.so.$(RT_SOVERSION) $(RT_LIBDIR)/libpykrt.so
RT_PC := $(RT_LIBDIR)/pkgconfig/pykrt.pc
RT_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -Iinclude -fvisibility=hidden -pthread
RT_LIBS := -pthread -ldl
# libyaml is linked into both libraries, so programs need only libc and,
# at run time, the driver (the GPU machine has no libyaml). libyaml.a is
# not built -fPIC, but its code uses only PC-relative relocations, so it
# links into libpykrt.so; the version script keeps its symbols local.
RT_YAML_A ?= $(shell $(CC) -print-file-name=libyaml.a)

.PHONY: runtime install-runtime test-runtime fuzz-manifest runtime-gpu
all: runtime
runtime: $(RT_A) $(RT_SO_LINKS) $(RT_PC)

$(RT_DIR)/obj/%.o: runtime/%.c $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

# One relocatable object of the runtime and the libyaml members it uses,
# with every global but pykrt_* made local: the archive puts nothing else
# (no pk_* helper, no yaml_*) in its users' namespace.
$(RT_A): $(RT_OBJS)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(RT_DIR)/pykrt.o $(RT_OBJS) $(RT_YAML_A)
	objcopy --wildcard --keep-global-symbol='pykrt_*' $(RT_DIR)/pykrt.o
	rm -f $@ && $(AR) rcs $@ $(RT_DIR)/pykrt.o

$(RT_SO): $(RT_OBJS) runtime/pykrt.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpykrt.so.$(RT_SOVERSION) -Wl,--version-script=runtime/pykrt.map -Wl,-z,defs \
	  $(LDFLAGS_BASE) $(RT_OBJS) $(RT_YAML_A) $(RT_LIBS) -o $@

$(RT_SO_LINKS): $(RT_SO)
	ln -sf libpykrt.so.$(RT_VERSION) $(RT_LIBDIR)/libpykrt.so.$(RT_SOVERSION)
	ln -sf libpykrt.so.$(RT_SOVERSION) $(RT_LIBDIR)/libpykrt.so

# rt_pc PREFIX: pykrt.pc for an install under PREFIX, on stdout.
rt_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@VERSION@|$(RT_VERSION)|' runtime/pykrt.pc.in

$(RT_PC): runtime/pykrt.pc.in
	@mkdir -p $(dir $@)
	$(call rt_pc,$(PREFIX)) > $@

# rt_install DIR, PREFIX: copies the header, libraries and pykrt.pc.
define rt_install
	install -d $(1)/include $(1)/lib/pkgconfig
	install -m 644 include/pykrt.h $(1)/include/
	install -m 644 $(RT_A) $(1)/lib/
	install -m 755 $(RT_SO) $(1)/lib/
	ln -sf libpykrt.so.$(RT_VERSION) $(1)/lib/libpykrt.so.$(RT_SOVERSION)
	ln -sf libpykrt.so.$(RT_SOVERSION) $(1)/lib/libpykrt.so
	$(call rt_pc,$(2)) > $(1)/lib/pkgconfig/pykrt.pc
endef

## install-runtime: install pykrt.h, libpykrt.{a,so} and pykrt.pc under PREFIX
install-runtime: runtime
	$(call rt_install,$(DESTDIR)$(PREFIX),$(PREFIX))

# ---- tests ----

TEST_SUITES += test-runtime
RT_TDIR := $(BUILD)/tests/runtime
RT_TEST_SRCS := tests/runtime/test_main.c tests/runtime/rt_fail.c tests/runtime/rt_util.c tests/runtime/test_driver.c tests/runtime/test_manifest.c \
  tests/runtime/test_module.c tests/runtime/test_link.c tests/runtime/test_memory.c tests/runtime/test_launch.c \
  tests/runtime/test_graph.c
RT_TEST_HDRS := tests/runtime/rt_test.h tests/runtime/fake_cuda.h $(RT_HDRS)
RT_TEST_CFLAGS := $(CFLAGS_BASE) $(CFLAGS) -Iinclude -Iruntime -Itests/runtime -pthread
RT_FAKE := $(RT_TDIR)/fake/libcuda.so.1
RT_FAKE_NOLAUNCH := $(RT_TDIR)/fake-nolaunch/libcuda.so.1
RT_TEST_BINS := $(RT_TDIR)/runtime_tests $(RT_TDIR)/nodriver $(RT_TDIR)/offline $(RT_TDIR)/vadd_host $(RT_TDIR)/bench_launch \
  $(RT_TDIR)/fuzz_replay $(RT_TDIR)/doc_host $(RT_TDIR)/host_tests

$(RT_FAKE) $(RT_FAKE_NOLAUNCH): tests/runtime/fake_cuda.c tests/runtime/fake_cuda.h runtime/cuda_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) $(if $(findstring nolaunch,$@),-DFAKE_OMIT_LAUNCH) -shared \
	  -Wl,-soname,libcuda.so.1 $< $(LDFLAGS_BASE) -pthread -o $@

# The tests reach the runtime's internals (pk_manifest_parse ...), so they
# link its objects; the programs below link the installed form, libpykrt.a.
$(RT_TDIR)/runtime_tests: $(RT_TEST_SRCS) $(RT_TEST_HDRS) $(RT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) $(RT_TEST_SRCS) $(RT_OBJS) $(RT_YAML_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

# The host device's tests: the runtime's objects (pk_host_warp_vote is
# tested directly) and hand-written modules of its interface, in DIR/host:
# hostmod.so and the variants that a load must refuse (rt_hostmods DIR).
RT_HOST_TEST_SRCS := tests/runtime/test_host.c tests/runtime/rt_fail.c tests/runtime/rt_util.c
rt_hostmods = $(addprefix $(1)/host/,hostmod.so hostmod_abi2.so hostmod_noresume.so hostmod_noabi.so garbage.so \
  truncated.so)
RT_HOSTMODS := $(call rt_hostmods,$(RT_TDIR))

$(RT_TDIR)/host_tests: $(RT_HOST_TEST_SRCS) $(RT_TEST_HDRS) $(RT_OBJS) $(RT_HOSTMODS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) $(RT_HOST_TEST_SRCS) $(RT_OBJS) $(RT_YAML_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

HOSTMOD_CFLAGS = $(CFLAGS_BASE) $(CFLAGS) $(LDFLAGS_BASE)
%/host/hostmod_abi2.so: HOSTMOD_FLAGS := -DTEST_ABI=2
%/host/hostmod_noresume.so: HOSTMOD_FLAGS := -DOMIT_RESUME
%/host/hostmod_noabi.so: HOSTMOD_FLAGS := -Dpykrt_host_abi=not_the_abi_symbol

# One pattern rule a module (a rule of several patterns makes them all at once).
define rt_hostmod_rule
%/host/$(1): tests/runtime/host_kernels.c runtime/host_abi.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$(HOSTMOD_CFLAGS) -Iruntime -shared -fPIC $$(HOSTMOD_FLAGS) $$< -o $$@
endef
$(foreach m,hostmod.so hostmod_abi2.so hostmod_noresume.so hostmod_noabi.so,$(eval $(call rt_hostmod_rule,$(m))))

%/host/garbage.so:
	@mkdir -p $(dir $@)
	printf 'not a shared object\n' > $@

%/host/truncated.so: %/host/hostmod.so
	head -c 300 $< > $@

$(RT_TDIR)/nodriver: tests/runtime/nodriver.c tests/runtime/rt_fail.c tests/runtime/rt_test.h $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) $< tests/runtime/rt_fail.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

$(RT_TDIR)/offline: tests/runtime/offline.c tests/runtime/rt_fail.c tests/runtime/rt_test.h $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) $< tests/runtime/rt_fail.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

$(RT_TDIR)/vadd_host: samples/vadd_host.c $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

$(RT_TDIR)/bench_launch: bench/launch/launch.c $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

# The complete host program of docs/runtime.md, so the guide's code is
# known to build and run: its first ```c block after the heading.
$(RT_TDIR)/doc_host: docs/runtime.md $(RT_A)
	@mkdir -p $(dir $@)
	awk '/^## A complete host program/ { h = 1 } h && /^```$$/ && c { exit } c { print } h && /^```c$$/ { c = 1 }' \
	  $< > $@.c
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $@.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

RT_FUZZ_SRCS := runtime/manifest.c runtime/error.c runtime/dtype.c

$(RT_TDIR)/fuzz_replay: tests/fuzz/fuzz_manifest.c tests/runtime/fuzz_replay.c $(RT_FUZZ_SRCS) $(RT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TEST_CFLAGS) tests/fuzz/fuzz_manifest.c tests/runtime/fuzz_replay.c $(RT_FUZZ_SRCS) \
	  $(RT_YAML_A) $(LDFLAGS_BASE) -o $@

# The thread tests again under ThreadSanitizer: the tests, the runtime and
# the double built with -fsanitize=thread, apart from the rest (it does not
# mix with SAN=1's sanitizers). run.sh builds these itself and records a
# skip where the build or TSan cannot run.
RT_TSAN := $(RT_TDIR)/tsan
RT_TSAN_CFLAGS := $(CSTD) $(WARN) -O1 -g -fPIC -fsanitize=thread -Iinclude -Iruntime -Itests/runtime -pthread

$(RT_TSAN)/runtime_tests: $(RT_TEST_SRCS) $(RT_TEST_HDRS) $(RT_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TSAN_CFLAGS) $(RT_TEST_SRCS) $(RT_SRCS) $(RT_YAML_A) -fsanitize=thread $(RT_LIBS) -o $@

$(RT_TSAN)/libcuda.so.1: tests/runtime/fake_cuda.c tests/runtime/fake_cuda.h runtime/cuda_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_TSAN_CFLAGS) -shared -Wl,-soname,libcuda.so.1 $< -fsanitize=thread -pthread -o $@

# The host device's tests too (its worker pool is thread code), with
# modules of their own: a TSan process loads no SAN=1 module.
RT_TSAN_HOSTMODS := $(call rt_hostmods,$(RT_TSAN))
$(RT_TSAN_HOSTMODS): HOSTMOD_CFLAGS = $(RT_TSAN_CFLAGS)

$(RT_TSAN)/host_tests: $(RT_HOST_TEST_SRCS) $(RT_TEST_HDRS) $(RT_SRCS) $(RT_TSAN_HOSTMODS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_TSAN_CFLAGS) $(RT_HOST_TEST_SRCS) $(RT_SRCS) $(RT_YAML_A) -fsanitize=thread $(RT_LIBS) -o $@

.PHONY: runtime-tsan
runtime-tsan: $(RT_TSAN)/runtime_tests $(RT_TSAN)/libcuda.so.1 $(RT_TSAN)/host_tests

## test-runtime: the runtime's tests, against a test double of libcuda.so.1
test-runtime: runtime $(RT_TEST_BINS) $(RT_FAKE) $(RT_FAKE_NOLAUNCH)
	@sh tests/runtime/run.sh $(BUILD) $(RT_TDIR) "$(CC)" "$(MAKE)" "$(SAN)"
	@sh tests/record.sh $(RESULTS) runtime $$(cat $(RT_TDIR)/counts)

# ---- pykc's C: typed launchers (--emit header), embedded modules (--emit c) ----

# kinds.pyk, a kernel of every kind of parameter, through pykc into DIR:
# kinds.h, kinds.c (the module embedded, PTX for sm_75 and sm_90) and
# kinds.yaml with its PTX; kinds_host launches them (tests/runtime/emitc).
RT_KINDS := tests/runtime/emitc/kinds.pyk
RT_KINDS_FLAGS := --sig 'scale(float32[::1], float32)' --sig 'scale(float64[:], float64)'
RT_KINDS_ARCHS := --arch sm_75 --arch sm_90
RT_KINDS_DIRS := $(RT_TDIR)/emitc $(BUILD)/runtime-gpu

$(addsuffix /kinds.h,$(RT_KINDS_DIRS)): $(RT_KINDS) $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) $(RT_KINDS) $(RT_KINDS_FLAGS) --emit header -o $@

$(addsuffix /kinds.c,$(RT_KINDS_DIRS)): $(RT_KINDS) $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) $(RT_KINDS) $(RT_KINDS_FLAGS) $(RT_KINDS_ARCHS) --emit c -o $@

$(addsuffix /kinds.yaml,$(RT_KINDS_DIRS)): $(RT_KINDS) $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) $(RT_KINDS) $(RT_KINDS_FLAGS) $(RT_KINDS_ARCHS) -o $(@:.yaml=.ptx)

$(addsuffix /kinds_host,$(RT_KINDS_DIRS)): %/kinds_host: tests/runtime/emitc/kinds_host.c %/kinds.h %/kinds.c \
  %/kinds.yaml tests/runtime/fake_cuda.h $(RT_A)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude -Itests/runtime -I$* $< $*/kinds.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) \
	  -o $@

# The typed-launcher program of docs/runtime.md, with vadd.h and vadd.c
# from samples/vadd.pyk: its first ```c block after the heading.
$(addsuffix /vadd.h,$(RT_KINDS_DIRS)): samples/vadd.pyk $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) samples/vadd.pyk --emit header -o $@

$(addsuffix /vadd.c,$(RT_KINDS_DIRS)): samples/vadd.pyk $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) samples/vadd.pyk $(RT_KINDS_ARCHS) --emit c -o $@

$(addsuffix /doc_launchers,$(RT_KINDS_DIRS)): %/doc_launchers: docs/runtime.md %/vadd.h %/vadd.c $(RT_A)
	awk '/^## Typed launchers/ { h = 1 } h && /^```$$/ && c { exit } c { print } h && /^```c$$/ { c = 1 }' \
	  $< > $@.c
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude -I$* $@.c $*/vadd.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

# docs/tutorial.md's kernel and host program, taken from the page: the
# ```python block after "Save this as `add_arrays.pyk`", through pykc into
# add_arrays.h and add_arrays.c, and the ```c block of step 3 built on them.
rt_doc_block = awk '/$(1)/ { h = 1 } h && /^```$$/ && c { exit } c { print } h && /^```$(2)$$/ { c = 1 }' $(3)

$(addsuffix /add_arrays.pyk,$(RT_KINDS_DIRS)): docs/tutorial.md
	@mkdir -p $(dir $@)
	$(call rt_doc_block,Save this as `add_arrays.pyk`,python,$<) > $@

%/add_arrays.h: %/add_arrays.pyk $(PYKC)
	$(PYKC) $< --emit header -o $@

%/add_arrays.c: %/add_arrays.pyk $(PYKC)
	$(PYKC) $< $(RT_KINDS_ARCHS) --emit c -o $@

$(addsuffix /doc_tutorial,$(RT_KINDS_DIRS)): %/doc_tutorial: docs/tutorial.md %/add_arrays.h %/add_arrays.c $(RT_A)
	$(call rt_doc_block,^## 3. The host program,c,$<) > $@.c
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude -I$* $@.c $*/add_arrays.c $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

.PHONY: runtime-emitc
runtime-emitc: $(RT_TDIR)/emitc/kinds_host $(RT_TDIR)/emitc/doc_launchers $(RT_TDIR)/emitc/doc_tutorial

# ---- fuzzing ----

FUZZ_MANIFEST_SECONDS ?= 3600
RT_FUZZER := $(BUILD)/fuzz/fuzz_manifest
RT_CORPUS := $(BUILD)/fuzz/corpus-manifest

$(RT_FUZZER): tests/fuzz/fuzz_manifest.c $(RT_FUZZ_SRCS) $(RT_HDRS)
	@mkdir -p $(dir $@)
	clang-14 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	  -Iinclude -Iruntime tests/fuzz/fuzz_manifest.c $(RT_FUZZ_SRCS) $(RT_YAML_A) -o $@

## fuzz-manifest: libFuzzer on the manifest reader for FUZZ_MANIFEST_SECONDS (3600)
FUZZ_EXTRA += fuzz-manifest
fuzz-manifest: $(RT_FUZZER)
	@mkdir -p $(RT_CORPUS)
	cp tests/runtime/fixtures/*.yaml bench/launch/empty.yaml $(RT_CORPUS)/
	$(RT_FUZZER) -max_total_time=$(FUZZ_MANIFEST_SECONDS) -dict=tests/fuzz/fuzz_manifest.dict -max_len=4096 $(RT_CORPUS)

# The sample host program for `make demo`: $(RT_DEMO_HOST) MANIFEST.
RT_DEMO_HOST := $(BUILD)/demo/vadd_host

$(RT_DEMO_HOST): samples/vadd_host.c $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

# ---- the GPU check (runtime/check-gpu.sh) ----

RT_GPU := $(BUILD)/runtime-gpu

## runtime-gpu: build/runtime-gpu/, the programs runtime/check-gpu.sh runs on a GPU machine
runtime-gpu: $(RT_GPU)/gpu_check $(RT_GPU)/vadd_host $(RT_GPU)/vadd_host_shared $(RT_GPU)/bench_launch \
  $(RT_GPU)/kinds_host $(RT_GPU)/doc_launchers $(RT_GPU)/doc_tutorial $(RT_GPU)/py/vadd.yaml

# samples/vadd.pyk for python/tests/gpu_check.py (with kinds.yaml and the
# libpykrt.so.0 that vadd_host_shared puts beside it).
$(RT_GPU)/py/vadd.yaml: samples/vadd.pyk $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) samples/vadd.pyk $(RT_KINDS_ARCHS) -o $(@:.yaml=.ptx)

$(RT_GPU)/gpu_check: tests/runtime/gpu_check.c tests/runtime/rt_util.c tests/runtime/rt_test.h $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude -Itests/runtime tests/runtime/gpu_check.c tests/runtime/rt_util.c $(RT_A) \
	  $(LDFLAGS_BASE) $(RT_LIBS) -o $@

$(RT_GPU)/vadd_host: samples/vadd_host.c $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

$(RT_GPU)/bench_launch: bench/launch/launch.c $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< $(RT_A) $(LDFLAGS_BASE) $(RT_LIBS) -o $@

# The same sample against libpykrt.so, found beside it through $ORIGIN.
$(RT_GPU)/vadd_host_shared: samples/vadd_host.c $(RT_SO_LINKS)
	@mkdir -p $(dir $@)
	cp $(RT_SO) $(RT_GPU)/libpykrt.so.$(RT_SOVERSION)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -Iinclude $< -L$(RT_LIBDIR) -lpykrt -Wl,-rpath,'$$ORIGIN' $(LDFLAGS_BASE) \
	  -o $@

# ---- the Python package (python/pykrt) ----

TEST_SUITES += test-python
PY_TDIR := $(BUILD)/tests/python

# kinds.pyk with its two --sig, for the package's argument tests.
$(PY_TDIR)/kinds.yaml: $(RT_KINDS) $(PYKC)
	@mkdir -p $(dir $@)
	$(PYKC) $(RT_KINDS) $(RT_KINDS_FLAGS) -o $(@:.yaml=.ptx)

## test-python: the pykrt Python package against the driver double (skipped without NumPy)
test-python: runtime $(RT_FAKE) $(PY_TDIR)/kinds.yaml
	@sh python/tests/run.sh $(BUILD) $(PY_TDIR) $(RT_FAKE) "$(SAN)"
	@sh tests/record.sh $(RESULTS) python $$(cat $(PY_TDIR)/counts)

## python-lib: copy libpykrt.so into python/pykrt/, so `pip install ./python` bundles it
.PHONY: python-lib
python-lib: $(RT_SO)
	cp $(RT_SO) python/pykrt/libpykrt.so.$(RT_SOVERSION)
