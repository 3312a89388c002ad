# tests/fuzz/fuzz.mk - libFuzzer over the front end, included by Makefile.
#
#   make fuzz         the front end for FUZZ_FRONTEND_SECONDS (300), then the
#                     fuzzers that other parts list in FUZZ_EXTRA
#   make test-fuzz    FUZZ_TEST_SECONDS (20) over the committed corpus, one
#                     suite of `make test` (1 passed when clean, 1 skipped
#                     without clang-14)
#
# Built with clang-14 (-fsanitize=fuzzer,address,undefined), apart from the
# rest of the build: objects under $(BUILD)/fuzz/obj. A crash, leak or
# timeout leaves its input in $(BUILD)/fuzz/artifacts/; each one becomes a
# regression test (tests/lit/badinput/fuzz-*.pyk) and a corpus file.

FUZZ_CC ?= clang-14
FUZZ_FRONTEND_SECONDS ?= 300
FUZZ_TEST_SECONDS ?= 20
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_FE := $(FUZZ_DIR)/fuzz_frontend
# The front end only, named one by one: a wildcard over src/ would bring in
# the files that call LLVM or libyaml, which the fuzzer does not link.
FUZZ_FE_SRCS := src/arena.c src/diag.c src/lexer.c src/ast.c src/parser.c src/types.c src/builtins.c src/sema.c src/ssa.c \
  src/usage.c src/abi.c
FUZZ_FE_OBJS := $(FUZZ_FE_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_CFLAGS := $(CSTD) -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -DPYKC_ARENA_MALLOC -Isrc -I$(BUILD)/gen
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=8192 -dict=tests/fuzz/fuzz_frontend.dict \
  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/

.PHONY: fuzz fuzz-frontend fuzz-corpus test-fuzz
TEST_SUITES += test-fuzz

$(FUZZ_DIR)/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/builtins.o: src/libdevice_funcs.def $(BUILD)/gen/cmath.pyk.inc

$(FUZZ_FE): tests/fuzz/fuzz_frontend.c $(FUZZ_FE_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ -lm

# FUZZ_EXTRA may be set after this file is read: expand it late.
.SECONDEXPANSION:
## fuzz: libFuzzer on the front end for 5 minutes, then the FUZZ_EXTRA fuzzers
fuzz: fuzz-frontend $$(FUZZ_EXTRA)

## fuzz-frontend: libFuzzer on lexer, parser and sema for FUZZ_FRONTEND_SECONDS
fuzz-frontend: $(FUZZ_FE)
	@mkdir -p $(FUZZ_DIR)/corpus-frontend $(FUZZ_DIR)/artifacts
	$(FUZZ_FE) $(FUZZ_OPTS) -max_total_time=$(FUZZ_FRONTEND_SECONDS) $(FUZZ_DIR)/corpus-frontend tests/fuzz/corpus

## test-fuzz: the front-end fuzzer for 20 s from the committed corpus
test-fuzz:
	@if ! command -v $(FUZZ_CC) >/dev/null 2>&1; then \
	  echo "fuzz: skipped ($(FUZZ_CC) not found)"; sh tests/record.sh $(RESULTS) fuzz 0 0 1; exit 0; fi; \
	mkdir -p $(FUZZ_DIR); \
	if ! $(MAKE) --no-print-directory $(FUZZ_FE) >$(FUZZ_DIR)/build.log 2>&1; then \
	  cat $(FUZZ_DIR)/build.log; sh tests/record.sh $(RESULTS) fuzz 0 1; exit 1; fi; \
	rm -rf $(FUZZ_DIR)/test-corpus && mkdir -p $(FUZZ_DIR)/test-corpus $(FUZZ_DIR)/artifacts; \
	if $(FUZZ_FE) $(FUZZ_OPTS) -max_total_time=$(FUZZ_TEST_SECONDS) $(FUZZ_DIR)/test-corpus tests/fuzz/corpus \
	    >$(FUZZ_DIR)/test.log 2>&1; then \
	  echo "fuzz: clean, $$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) .*/\1 runs in \2 s/p' $(FUZZ_DIR)/test.log)"; \
	  sh tests/record.sh $(RESULTS) fuzz 1 0; \
	else \
	  tail -n 60 $(FUZZ_DIR)/test.log; sh tests/record.sh $(RESULTS) fuzz 0 1; exit 1; fi

## fuzz-corpus: rebuild tests/fuzz/corpus from the tests (then commit it)
fuzz-corpus: $(FUZZ_FE)
	sh tests/fuzz/make-corpus.sh $(FUZZ_FE)
