# tests/docs/docs.mk - the docs suite. Included by the top-level Makefile
# after runtime.mk, whose libraries and driver double the docs' commands use.

## test-docs: docs/language.md's names are pykc --list-names'; the man pages render and list every option; make install puts the docs in place; every command of the docs runs as written (or is exempt, tests/docs/exempt.txt) and prints what its page shows
TEST_SUITES += test-docs
test-docs: $(PYKC) runtime $(RT_FAKE)
	@sh tests/docs/run.sh $(RESULTS) $(abspath $(PYKC)) $(BUILD)/tests/docs "$(MAKE)" $(abspath $(RT_FAKE)) "$(SAN)"
