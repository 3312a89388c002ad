# mk/bolt.mk - pykc's code laid out by BOLT from a profile of pykc's own
# compilations. Included by the Makefile after mk/llvm.mk; defines
#   PYKC_LINKED    what the link writes: pykc itself, or with BOLT the
#                  binary that BOLT rewrites into pykc
#
# Linked in the order of mk/pykc.order, the functions that a compilation
# runs lie together, but each whole, its cold paths (error handling, the
# cases kernels never meet) among the hot ones. BOLT (bolt-19) lays out each
# function's blocks in the order they run, moves the cold ones out, and
# packs the hot parts, 3.9 MB instead of 7: the anchors compile in 12 to
# 19% less time on two threads, 13% on one (bench/README.md).
#
# The profile is taken at each build, so it matches the code exactly:
# BOLT instruments a copy of pykc that links the shared libc (the
# instrumentation writes its profile only at the exit of a dynamically
# linked process), only in the functions that mk/pykc.order names (all of
# them would take 50 s and 7 GB), and that copy compiles what
# mk/profile-runs lists. About 30 s a link; `make BOLT=` skips it, for
# quick edit-build cycles. Static non-sanitizer builds only.
BOLT ?= $(wildcard $(LLVM_BINDIR)/llvm-bolt)
# what the instrumented copy links (libbolt-19-dev)
BOLT_RUNTIME := $(wildcard $(LLVM_LIBDIR)/libbolt_rt_instr.a)
MERGE_FDATA := $(LLVM_BINDIR)/merge-fdata
BOLT_DIR := $(BUILD)/bolt
BOLT_LAYOUT := -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold -use-gnu-stack

PYKC_LINKED := $(PYKC)
ifneq ($(SAN),1)
ifneq ($(and $(BOLT),$(BOLT_RUNTIME),$(LINK_ORDER),$(filter static,$(LLVM_LINK))),)
PYKC_LINKED := $(BOLT_DIR)/pykc.relocs
PYKC_LDFLAGS += -Wl,--emit-relocs
PYKC_LAYOUT := bolt

# BOLT's messages (hundreds of warnings about glibc's hand-written
# functions, which it leaves as they are) go to a log, shown if it fails.
BOLT_RUN = $(BOLT) $(1) >$@.log 2>&1 || { cat $@.log >&2; exit 1; }

$(PYKC): $(PYKC_LINKED) $(BOLT_DIR)/profile.fdata
	$(call BOLT_RUN,$< -o $@ -data=$(BOLT_DIR)/profile.fdata $(BOLT_LAYOUT))

$(BOLT_DIR)/profile.fdata: $(BOLT_DIR)/pykc.instrumented mk/profile-runs mk/profile.sh
	rm -rf $(BOLT_DIR)/runs && mkdir -p $(BOLT_DIR)/runs
	sh mk/profile.sh $< $(BOLT_DIR)/runs
	$(MERGE_FDATA) -q -o $@ $(BOLT_DIR)/runs/profile.*.fdata 2>/dev/null

$(BOLT_DIR)/pykc.instrumented: $(BOLT_DIR)/pykc.dynamic $(BOLT_DIR)/functions
	$(call BOLT_RUN,$< -o $@ -instrument -funcs-file-no-regex=$(BOLT_DIR)/functions \
	  -instrumentation-file=$(abspath $(BOLT_DIR))/runs/profile -instrumentation-file-append-pid)

# BOLT names a local function NAME/N, N counting the locals so named.
$(BOLT_DIR)/functions: $(LINK_ORDER) | $(BOLT_DIR)
	sed -e p -e 's|$$|/1|p' -e 's|/1$$|/2|' $< > $@

$(BOLT_DIR)/pykc.dynamic: $(COMPILER_OBJS) $(BOLT_DIR)/bolt-exit.o
	$(CC) $(LDFLAGS_BASE) $(PYKC_LDFLAGS) $(LDFLAGS) -Wl,--wrap=_exit $^ -o $@ $(COMPILER_LIBS)

$(BOLT_DIR)/bolt-exit.o: mk/bolt-exit.c | $(BOLT_DIR)
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -c $< -o $@

$(BOLT_DIR):
	mkdir -p $@
endif
endif
