# The test suites that run without a GPU. Each suite target records its
# counts under $(RESULTS) for tests/summarize.sh.
RESULTS ?= $(BUILD)/results
TEST_SUITES += test-unit test-lit

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BIN := $(BUILD)/tests/unit

$(UNIT_BIN): $(UNIT_SRCS) $(filter-out $(BUILD)/obj/main.o,$(COMPILER_OBJS)) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(LLVM_CFLAGS) -Isrc $(LDFLAGS_BASE) $(UNIT_SRCS) $(filter-out $(BUILD)/obj/main.o,$(COMPILER_OBJS)) -o $@ $(COMPILER_LIBS)

## test-unit: the C unit tests
test-unit: $(UNIT_BIN)
	@$(UNIT_BIN) $(RESULTS)

## test-lit: the compile tests (lit + FileCheck) under tests/lit
test-lit: $(PYKC)
	@sh tests/run-lit.sh $(RESULTS) $(LIT) $(abspath $(PYKC)) $(LLVM_BINDIR) tests/lit

## test-determinism: every sample and GPU test kernel compiled twice, in two places, outputs compared
TEST_SUITES += test-determinism
test-determinism: $(PYKC)
	@sh tests/determinism.sh $(RESULTS) $(abspath $(PYKC))

## test-bench: bench/suite through pykc (both layouts and checked, then ptxas) and nvcc -ptx; bench/gpu_bench.py --self-test
TEST_SUITES += test-bench
test-bench: $(PYKC)
	@sh tests/bench-suite.sh $(RESULTS) $(abspath $(PYKC)) $(BUILD)/tests/bench

## test-conformance: the conformance suite without a GPU: pykc compiles every tests/conformance kernel (refusing only those of known-refusals.txt), every case parses and fits pykc's manifest, the checklist is covered
TEST_SUITES += test-conformance
test-conformance: $(PYKC)
	@sh tests/conformance/selftest.sh $(RESULTS) $(abspath $(PYKC)) $(BUILD)/tests/conformance

## test-host: the test kernels, the samples and the conformance cases on the host target (libpykrt's host device) against their references and the GPU's outputs
TEST_SUITES += test-host
test-host: $(PYKC) runtime
	@sh tests/host.sh $(RESULTS) $(abspath $(PYKC)) $(BUILD)/tests/host $(abspath $(RT_SO))

## check-gpu: builds the test kernels and samples (.gpu/kernels) and build/runtime-gpu, and prints the command that checks them on a GPU machine
check-gpu: $(PYKC) runtime-gpu
	@rm -rf .gpu/kernels && PYKC=$(PYKC) sh tests/gpu/build-gpu-bundle.sh .gpu/kernels
	@echo "check-gpu: on the GPU machine, from the repository root, with .gpu/kernels and build/runtime-gpu carried:"
	@echo "    sh tests/gpu/check-gpu.sh .gpu/kernels && sh runtime/check-gpu.sh build/runtime-gpu"

## check-numba: builds the conformance bundle (build/conformance) and prints the command that runs it on a GPU machine
CONFORMANCE_DIR := $(BUILD)/conformance
CONFORMANCE_ARCH ?= sm_90
check-numba: $(PYKC)
	@python3 tests/conformance/build.py --pykc $(PYKC) --arch $(CONFORMANCE_ARCH) $(CONFORMANCE_DIR)
	@echo "check-numba: on the GPU machine, from the repository root, with $(CONFORMANCE_DIR) carried:"
	@echo "    python3 tests/conformance/run.py $(CONFORMANCE_DIR) -q"

## check-numba-here: the conformance cases without a GPU: numba-cuda compiles every kernel for its case (compile_ptx), every case runs in numba-cuda's simulator
check-numba-here:
	python3 tests/conformance/run.py --numba-compile -q
	python3 tests/conformance/run.py --simulate -q
