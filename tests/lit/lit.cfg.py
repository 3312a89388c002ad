# lit configuration for pykc's compile tests. Inputs are .pyk files whose
# RUN and CHECK lines are Python comments, so every input stays valid Numba
# source.
import os
import lit.formats

config.name = "pykc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".pyk"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

pykc = lit_config.params.get("pykc")
bindir = lit_config.params.get("llvm_bindir")
if not pykc or not bindir:
    lit_config.fatal("run through `make test-lit`: pykc and llvm_bindir are lit parameters")
config.substitutions.append(("%pykc", pykc))
# Sanitizer builds (SAN=1) free everything at exit, as a normal build
# does not (src/main.c).
if lit_config.params.get("sanitized"):
    config.available_features.add("sanitized")
# lit's builtin `not` counts a crash (death by a signal) as a failure and so
# as success; LLVM's `not` binary does not: `%not %pykc` passes only when
# pykc exits with an error status of its own.
not_tool = os.path.join(bindir, "not")
if not os.access(not_tool, os.X_OK):
    lit_config.fatal(f"{not_tool} is missing: `make deps` installs llvm-19-tools")
config.substitutions.append(("%not", not_tool))
# FileCheck, not and count come from the LLVM that the build uses.
config.environment["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
config.environment["LC_ALL"] = "C"
