# mk/llvm.mk - how the compiler builds against LLVM and libyaml. Included by
# the Makefile once LLVM_CONFIG is set; defines
#   LLVM_CFLAGS    for the files that include llvm-c/ (target.c, codegen.c,
#                  and the unit tests that drive them)
#   COMPILER_LIBS  for every link of compiler code (pykc, the unit tests)
#
# LLVM_LINK=static (the default) links only the LLVM components pykc uses,
# from LLVM's static archives, into an ordinary PIE that needs only libc,
# libm, libz and libzstd at run time: a process linked to libLLVM.so spends
# ~10 ms starting (relocating and constructing all of LLVM, every target),
# this one ~2 ms, and a module compiles in a few ms. The link takes about
# 1.5 s. Linked fully statically and without PIE, pykc started 0.7 ms
# sooner, for a link that needed every system library's archive and warned
# about glibc's NSS. LLVM_LINK=shared links libLLVM.so instead (0.5 s). Any
# LLVM from 19 to 22 works: LLVM_CONFIG=llvm-config-20 make.

LLVM_LINK ?= static
# nvptx and x86: the back ends (--target nvptx, host); passes: the new pass manager's pipelines; bitreader
# and linker: libdevice. They bring in core, analysis, ipo, target and the rest.
LLVM_COMPONENTS := nvptx x86 passes bitreader linker

LLVM_VERSION := $(shell $(LLVM_CONFIG) --version 2>/dev/null)
LLVM_MAJOR := $(firstword $(subst ., ,$(LLVM_VERSION)))
ifeq ($(LLVM_VERSION),)
$(warning $(LLVM_CONFIG) not found: install llvm-19-dev (make deps) or set LLVM_CONFIG)
else ifeq ($(filter 19 20 21 22,$(LLVM_MAJOR)),)
$(warning pykc is tested with LLVM 19 to 22; $(LLVM_CONFIG) is LLVM $(LLVM_VERSION))
endif

# Headers as system headers, so that our warning flags stay on our code, and
# without llvm-config's -D_GNU_SOURCE, which would hide GNU-isms in C11 code.
LLVM_CFLAGS := $(patsubst -I%,-isystem %,$(filter-out -D_GNU_SOURCE,$(shell $(LLVM_CONFIG) --cflags 2>/dev/null)))
LLVM_LIBDIR := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null)

ifeq ($(LLVM_LINK),static)
LLVM_STATIC_LIBS := $(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_COMPONENTS) 2>/dev/null)
ifeq ($(LLVM_STATIC_LIBS),)
$(warning LLVM's static libraries are not installed; linking libLLVM.so (LLVM_LINK=shared))
LLVM_LINK := shared
endif
endif

ifeq ($(LLVM_LINK),static)
# LLVM's system libraries, shared: Debian 12 ships libzstd.so.1 without the
# development symlink unless libzstd-dev is installed, so name the file when
# the symlink is missing. z3 and xml2 are left out: the components above
# never call them. --as-needed drops the others that they never call.
LLVM_ZSTD := $(if $(filter /%,$(shell $(CC) -print-file-name=libzstd.so)),-lzstd,-l:libzstd.so.1)
LLVM_SYSTEM_LIBS := $(patsubst -lzstd,$(LLVM_ZSTD),$(filter-out %libz3.so -lz3 -lxml2,\
                    $(shell $(LLVM_CONFIG) --link-static --system-libs 2>/dev/null)))
# libstdc++ statically where its archive is installed (g++ has it): the
# loader would otherwise load libstdc++.so and bind pykc to it at each start.
LLVM_STDCXX := $(if $(filter /%,$(shell $(CC) -print-file-name=libstdc++.a)),-l:libstdc++.a,-lstdc++)
# --gc-sections drops the unused parts of the archives (~15% smaller, no
# slower to link).
LLVM_LIBS := -L$(LLVM_LIBDIR) $(LLVM_STATIC_LIBS) -Wl,--as-needed $(LLVM_SYSTEM_LIBS) $(LLVM_STDCXX) -Wl,--no-as-needed \
             -Wl,--gc-sections
else
LLVM_LIBS := -L$(LLVM_LIBDIR) -Wl,-rpath,$(LLVM_LIBDIR) $(shell $(LLVM_CONFIG) --link-shared --libs $(LLVM_COMPONENTS) 2>/dev/null)
endif

# libyaml statically where its archive is installed (libyaml-dev has it), so
# that pykc itself needs no libyaml at run time.
YAML_LIBS := $(if $(filter /%,$(shell $(CC) -print-file-name=libyaml.a)),-l:libyaml.a,-lyaml)

COMPILER_LIBS := $(LLVM_LIBS) $(YAML_LIBS) -lm -pthread
