# pykc - ahead-of-time compiler for Numba's CUDA kernel language.
# `make help` lists the targets. Outputs go under build/.

LLVM_CONFIG ?= $(shell command -v llvm-config-19 2>/dev/null || echo /usr/lib/llvm-19/bin/llvm-config)
LLVM_BINDIR := $(shell $(LLVM_CONFIG) --bindir 2>/dev/null)
LLVM_PREFIX := $(shell $(LLVM_CONFIG) --prefix 2>/dev/null)
LIT ?= $(LLVM_PREFIX)/build/utils/lit/lit.py
CUDA_HOME ?= /usr/local/cuda
PREFIX ?= /usr/local

BUILD := build
CC ?= cc
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
WERROR ?= 1
ifeq ($(WERROR),1)
WARN += -Werror
endif
OPT ?= -O2
CFLAGS_BASE := $(CSTD) $(WARN) $(OPT) -g -fPIC
LDFLAGS_BASE :=
# SAN=1: AddressSanitizer and UndefinedBehaviorSanitizer, every allocation
# of the arena its own malloc so overruns are seen.
ifeq ($(SAN),1)
BUILD := build/san
CFLAGS_BASE += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DPYKC_ARENA_MALLOC
LDFLAGS_BASE += -fsanitize=address,undefined
endif
# generated sources: pykc's own modules as C strings (see below)
CFLAGS_BASE += -I$(BUILD)/gen

# Every src/*.c is part of the compiler: a new file needs no edit here. The
# unit tests link all of them but main.c.
COMPILER_SRCS := $(sort $(filter-out src/main.c,$(wildcard src/*.c))) src/main.c
COMPILER_OBJS := $(COMPILER_SRCS:src/%.c=$(BUILD)/obj/%.o)
PYKC := $(BUILD)/pykc
PYKC_VERSION := $(shell sed -n 's/^\#define PYKC_VERSION "\(.*\)"/\1/p' src/pykc.h)

.PHONY: all deps test clean help demo fuzz install install-docs check-gpu bench bench-host check-numba check-numba-here test-conformance
all: $(PYKC)

include mk/llvm.mk

$(BUILD)/obj/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)/obj
	$(CC) $(CFLAGS_BASE) $(LLVM_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/builtins.o: src/libdevice_funcs.def src/module_names.def $(BUILD)/gen/cmath.pyk.inc $(BUILD)/gen/random.pyk.inc $(BUILD)/gen/range.pyk.inc

# pykc's own modules in the kernel language (src/lib/NAME.pyk), as C string
# literals that builtins.c includes
$(BUILD)/gen/%.pyk.inc: src/lib/%.pyk
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@

$(PYKC): $(COMPILER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_BASE) $(LDFLAGS) $(COMPILER_OBJS) -o $@ $(COMPILER_LIBS)

$(BUILD)/obj $(BUILD)/results:
	mkdir -p $@

include tests/tests.mk
-include runtime/runtime.mk
-include tests/fuzz/fuzz.mk
include tests/cmake/cmake.mk
include tests/docs/docs.mk

## deps: install the Debian packages the build and the tests need
deps:
	@sh tools/deps.sh

## test: every test that runs without a GPU; ends with `N passed, N failed, N skipped`
test: deps
	@$(MAKE) --no-print-directory test-all

test-all: all
	@rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results
	@fail=0; for s in $(TEST_SUITES); do \
	  $(MAKE) --no-print-directory $$s RESULTS=$(BUILD)/results || fail=1; done; \
	  sh tests/summarize.sh $(BUILD)/results $$fail

## demo: build pykc and libpykrt, compile the vector-add sample for a GPU and the CPU, run it (on a GPU, else on the CPU, saying so) and check the sum
DEMO := $(BUILD)/demo
demo: deps
	@$(MAKE) --no-print-directory all runtime
	@$(MAKE) --no-print-directory demo-run

demo-run:
	@mkdir -p $(DEMO)
	$(PYKC) samples/vadd.pyk --arch sm_75 --arch x86-64-v2 -o $(DEMO)/vadd.ptx
	$(CC) $(CFLAGS_BASE) -Iinclude samples/vadd_host.c $(RT_A) -pthread -ldl -o $(DEMO)/vadd_host
	$(DEMO)/vadd_host $(DEMO)/vadd.yaml

## bench: compile times here, and the bundle that bench/run-gpu.sh runs on a GPU (build/bench; BENCH_ARCH=sm_90)
BENCH_ARCH ?= sm_90
BENCH_DIR := $(BUILD)/bench
bench: all $(RT_GPU)/bench_launch
	ARCH=$(BENCH_ARCH) PYKC=$(PYKC) sh bench/compile_time.sh
	ARCH=$(BENCH_ARCH) PYKC=$(PYKC) BENCH_LAUNCH=$(RT_GPU)/bench_launch sh bench/bundle.sh $(BENCH_DIR)
	ARCH=$(BENCH_ARCH) PYKC=$(PYKC) sh bench/run-time-bundle.sh $(BENCH_DIR)/anchors
	@echo "bench: on the GPU machine, from the repository root, with $(BENCH_DIR) carried: sh bench/run-gpu.sh $(BENCH_DIR)"

## bench-host: the suite on the CPU, pykc's host target against numba-cuda's simulator (needs NumPy and numba-cuda)
BENCH_HOST_DIR := $(BUILD)/bench-host
bench-host: all runtime
	@mkdir -p $(BENCH_HOST_DIR)
	@for f in bench/suite/*.pyk; do $(PYKC) --target host $$f -o $(BENCH_HOST_DIR)/$$(basename $$f .pyk).so || exit 1; done
	PYKRT_LIBRARY=$(abspath $(RT_SO)) python3 bench/host_bench.py $(BENCH_HOST_DIR)

## install: pykc, libpykrt, pykrt.h, pykrt.pc, the CMake package (lib/cmake/pykc), the man pages and the docs under PREFIX (default /usr/local)
install: all install-runtime install-docs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/cmake/pykc
	install -m 755 $(PYKC) $(DESTDIR)$(PREFIX)/bin/pykc
	install -m 644 cmake/pykcConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/pykc/
	sed 's|@VERSION@|$(PYKC_VERSION)|' cmake/pykcConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/pykc/pykcConfigVersion.cmake

## install-docs: man/pykc.1, man/pykrt.3 and docs/*.md under PREFIX/share/{man,doc/pykc}
install-docs:
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/doc/pykc
	install -m 644 man/pykc.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/pykrt.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/pykc/

## clean: remove build/
clean:
	rm -rf build

## help: this list
help:
	@echo "pykc make targets:"
	@grep -h '^## ' $(MAKEFILE_LIST) | sed 's/^## /  /'
	@echo "variables: LLVM_CONFIG=path  SAN=1 (sanitizers)  PREFIX=dir  WERROR=0  LLVM_LINK=shared"
