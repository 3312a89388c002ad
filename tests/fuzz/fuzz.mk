# tests/fuzz/fuzz.mk - the fuzzers, included by Makefile.
#
#   make fuzz           every fuzzer for an hour each, one after another:
#                       fuzz-frontend, fuzz-backend, fuzz-mutate, then the
#                       fuzzers that other parts list in FUZZ_EXTRA
#   make fuzz-frontend  libFuzzer on lexer, parser and sema
#                       (FUZZ_FRONTEND_SECONDS, 3600)
#   make fuzz-backend   libFuzzer on the whole pipeline, the IR builder and
#                       LLVM's verifier for every input, the optimiser and
#                       PTX for some (FUZZ_BACKEND_SECONDS, 3600)
#   make fuzz-mutate    tests/fuzz/mutate.py: build/pykc itself on mutated
#                       samples and test kernels, each PTX it writes
#                       assembled by ptxas where there is one
#                       (FUZZ_MUTATE_SECONDS, 3600; FUZZ_MUTATE_SEED, 1)
#   make test-fuzz      each of the three for FUZZ_TEST_SECONDS (15), three
#                       suites of `make test` (fuzz-frontend, fuzz-backend,
#                       fuzz-mutate: 1 passed when clean, 1 skipped without
#                       clang-14 or python3)
#
# The libFuzzer targets are built with clang-14
# (-fsanitize=fuzzer,address,undefined), apart from the rest of the build:
# objects under $(BUILD)/fuzz/obj, with PYKC_ICE_ABORTS so that an internal
# error is a crash to libFuzzer. A crash, leak or timeout leaves its input
# in $(BUILD)/fuzz/artifacts-frontend/ or artifacts-backend/ (artifacts/ in
# a test run), a mutate.py finding its input and command in
# $(BUILD)/fuzz/findings/; each one becomes a regression test
# (tests/lit/badinput/fuzz-*.pyk, XFAIL until it is fixed) and a corpus
# file. The long runs go on past a crash (libFuzzer's fork mode) and fail
# at the end if they found anything; the test runs stop at the first.

FUZZ_CC ?= clang-14
FUZZ_FRONTEND_SECONDS ?= 3600
FUZZ_BACKEND_SECONDS ?= 3600
FUZZ_MUTATE_SECONDS ?= 3600
FUZZ_MUTATE_SEED ?= 1
FUZZ_TEST_SECONDS ?= 15
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_FE := $(FUZZ_DIR)/fuzz_frontend
FUZZ_BE := $(FUZZ_DIR)/fuzz_backend
# The front end only, named one by one: a wildcard over src/ would bring in
# the files that call LLVM or libyaml, which the front-end fuzzer does not
# link. The back-end fuzzer links every file but main.c.
FUZZ_FE_SRCS := src/arena.c src/diag.c src/diagfmt.c src/lexer.c src/ast.c src/parser.c src/types.c src/builtins.c src/sema.c src/ssa.c \
  src/usage.c src/abi.c src/link.c src/output.c
FUZZ_FE_OBJS := $(FUZZ_FE_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BE_OBJS := $(filter-out $(FUZZ_DIR)/obj/main.o,$(COMPILER_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o))
FUZZ_CFLAGS := $(CSTD) -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -DPYKC_ARENA_MALLOC -DPYKC_ICE_ABORTS -Isrc -I$(BUILD)/gen
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
FUZZ_FE_OPTS := $(FUZZ_OPTS) -dict=tests/fuzz/fuzz_frontend.dict
FUZZ_BE_OPTS := $(FUZZ_OPTS) -dict=tests/fuzz/fuzz_backend.dict
# A test run follows one fixed path (-seed), so that `make test` gives the
# same answer each time on one machine.
FUZZ_TEST_OPTS := -seed=1 -max_total_time=$(FUZZ_TEST_SECONDS) -artifact_prefix=$(FUZZ_DIR)/artifacts/
# The long runs: one worker that libFuzzer restarts after a crash, a leak or
# a timeout, each artifact kept.
FUZZ_LONG_OPTS := -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
PYTHON ?= python3
MUTATE := $(PYTHON) tests/fuzz/mutate.py --pykc $(PYKC)

.PHONY: fuzz fuzz-frontend fuzz-backend fuzz-mutate fuzz-corpus test-fuzz test-fuzz-frontend \
  test-fuzz-backend test-fuzz-mutate
TEST_SUITES += test-fuzz-frontend test-fuzz-backend test-fuzz-mutate

$(FUZZ_DIR)/obj/%.o: src/%.c $(wildcard src/*.h) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(LLVM_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/builtins.o: src/libdevice_funcs.def $(BUILD)/gen/cmath.pyk.inc

$(FUZZ_FE): tests/fuzz/fuzz_frontend.c $(FUZZ_FE_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ -lm

# LLVM's archives are built by gcc against libstdc++: COMPILER_LIBS names
# it, and clang links it as gcc would.
$(FUZZ_BE): tests/fuzz/fuzz_backend.c $(FUZZ_BE_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(COMPILER_LIBS)

## fuzz: every fuzzer, an hour each (FUZZ_FRONTEND/BACKEND/MUTATE_SECONDS), then the FUZZ_EXTRA ones
# Each runs even when one before it found something; FUZZ_EXTRA
# (runtime.mk's) is read when the recipe runs, after every makefile.
fuzz:
	@fail=0; for t in fuzz-frontend fuzz-backend fuzz-mutate $(FUZZ_EXTRA); do \
	  $(MAKE) --no-print-directory $$t || fail=1; done; exit $$fail

# fuzz_long NAME BINARY CORPUS OPTIONS SECONDS: libFuzzer for SECONDS into
# $(FUZZ_DIR)/corpus-NAME, from CORPUS, artifacts into
# $(FUZZ_DIR)/artifacts-NAME; fails if this run left one there.
define fuzz_long
@mkdir -p $(FUZZ_DIR)/corpus-$(1) $(FUZZ_DIR)/artifacts-$(1); touch $(FUZZ_DIR)/started-$(1)
	$(2) $(4) $(FUZZ_LONG_OPTS) -artifact_prefix=$(FUZZ_DIR)/artifacts-$(1)/ -max_total_time=$(5) \
	  $(FUZZ_DIR)/corpus-$(1) $(3)
	@n=$$(find $(FUZZ_DIR)/artifacts-$(1) -type f -newer $(FUZZ_DIR)/started-$(1) | wc -l); [ "$$n" -eq 0 ] || { \
	  echo "fuzz-$(1): $$n new artifacts in $(FUZZ_DIR)/artifacts-$(1)/ (replay one: $(2) FILE)"; exit 1; }
endef

## fuzz-frontend: libFuzzer on lexer, parser and sema for FUZZ_FRONTEND_SECONDS (3600), on past crashes
fuzz-frontend: $(FUZZ_FE)
	$(call fuzz_long,frontend,$(FUZZ_FE),tests/fuzz/corpus,$(FUZZ_FE_OPTS),$(FUZZ_FRONTEND_SECONDS))

## fuzz-backend: libFuzzer on the whole pipeline for FUZZ_BACKEND_SECONDS (3600), on past crashes
fuzz-backend: $(FUZZ_BE)
	$(call fuzz_long,backend,$(FUZZ_BE),tests/fuzz/corpus-backend,$(FUZZ_BE_OPTS),$(FUZZ_BACKEND_SECONDS))

## fuzz-mutate: build/pykc on mutated samples and test kernels for FUZZ_MUTATE_SECONDS (3600)
fuzz-mutate: $(PYKC)
	$(MUTATE) --seed $(FUZZ_MUTATE_SEED) --seconds $(FUZZ_MUTATE_SECONDS) --findings $(FUZZ_DIR)/findings --ptxas -v

# test-fuzz-*: each fuzzer for FUZZ_TEST_SECONDS, recorded as its own suite.
# fuzz_test SUITE BINARY CORPUS OPTIONS: builds BINARY (a skip without
# clang-14), fuzzes from CORPUS, records 1 passed or 1 failed.
define fuzz_test
@if ! command -v $(FUZZ_CC) >/dev/null 2>&1; then \
	  echo "$(1): skipped ($(FUZZ_CC) not found)"; sh tests/record.sh $(RESULTS) $(1) 0 0 1; exit 0; fi; \
	mkdir -p $(FUZZ_DIR); \
	if ! $(MAKE) --no-print-directory $(2) >$(FUZZ_DIR)/build-$(1).log 2>&1; then \
	  cat $(FUZZ_DIR)/build-$(1).log; sh tests/record.sh $(RESULTS) $(1) 0 1; exit 1; fi; \
	rm -rf $(FUZZ_DIR)/test-corpus-$(1) && mkdir -p $(FUZZ_DIR)/test-corpus-$(1) $(FUZZ_DIR)/artifacts; \
	if $(2) $(4) $(FUZZ_TEST_OPTS) $(FUZZ_DIR)/test-corpus-$(1) $(3) >$(FUZZ_DIR)/test-$(1).log 2>&1; then \
	  echo "$(1): clean, $$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) .*/\1 runs in \2 s/p' $(FUZZ_DIR)/test-$(1).log)"; \
	  sh tests/record.sh $(RESULTS) $(1) 1 0; \
	else \
	  tail -n 60 $(FUZZ_DIR)/test-$(1).log; sh tests/record.sh $(RESULTS) $(1) 0 1; exit 1; fi
endef

## test-fuzz: the three fuzzers for FUZZ_TEST_SECONDS (15) each
test-fuzz: test-fuzz-frontend test-fuzz-backend test-fuzz-mutate

test-fuzz-frontend:
	$(call fuzz_test,fuzz-frontend,$(FUZZ_FE),tests/fuzz/corpus,$(FUZZ_FE_OPTS))

test-fuzz-backend:
	$(call fuzz_test,fuzz-backend,$(FUZZ_BE),tests/fuzz/corpus-backend,$(FUZZ_BE_OPTS))

test-fuzz-mutate: $(PYKC)
	@if ! command -v $(PYTHON) >/dev/null 2>&1; then \
	  echo "fuzz-mutate: skipped ($(PYTHON) not found)"; sh tests/record.sh $(RESULTS) fuzz-mutate 0 0 1; exit 0; fi; \
	mkdir -p $(FUZZ_DIR); rm -rf $(FUZZ_DIR)/findings-test; \
	if $(MUTATE) --seed 1 --seconds $(FUZZ_TEST_SECONDS) --findings $(FUZZ_DIR)/findings-test \
	    >$(FUZZ_DIR)/test-fuzz-mutate.log 2>&1; then \
	  echo "fuzz-mutate: clean, $$(sed -n 's/^mutate: \([0-9]*\) cases .* in \([0-9]*\) s.*/\1 cases in \2 s/p' $(FUZZ_DIR)/test-fuzz-mutate.log)"; \
	  sh tests/record.sh $(RESULTS) fuzz-mutate 1 0; \
	else \
	  tail -n 30 $(FUZZ_DIR)/test-fuzz-mutate.log; sh tests/record.sh $(RESULTS) fuzz-mutate 0 1; exit 1; fi

## fuzz-corpus: rebuild tests/fuzz/corpus and tests/fuzz/corpus-backend from the tests (then commit them)
fuzz-corpus: $(FUZZ_FE) $(FUZZ_BE)
	sh tests/fuzz/make-corpus.sh $(FUZZ_FE) tests/fuzz/corpus
	sh tests/fuzz/make-corpus.sh $(FUZZ_BE) tests/fuzz/corpus-backend
