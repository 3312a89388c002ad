# tests/cmake/cmake.mk - the CMake package tested for real: `make install`
# into a scratch directory, tests/cmake/project built from it with cmake
# (Makefiles and, where present, Ninja) and run against the runtime's
# driver double. Included by the top-level Makefile after runtime.mk.

TEST_SUITES += test-cmake

## test-cmake: find_package(pykc) and pykc_add_module from an installed tree, rebuilt after .pyk edits (skipped without cmake)
test-cmake: all $(RT_FAKE)
	@sh tests/cmake/run.sh $(BUILD)/tests/cmake $(RT_FAKE) "$(MAKE)" "$(SAN)"
	@sh tests/record.sh $(RESULTS) cmake $$(cat $(BUILD)/tests/cmake/counts)
