# lit configuration for pykc's compile tests. Inputs are .pyk files whose
# RUN and CHECK lines are Python comments, so every input stays valid Numba
# source.
import os
import shutil
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
# The LLVM that pykc was built with decides which archs it knows: tests of
# the newer ones say `REQUIRES: llvm-21` (LLVM 21 or newer) or
# `UNSUPPORTED: llvm-21`, read from `pykc --version`.
import re
import subprocess
try:
    version = subprocess.run([pykc, "--version"], capture_output=True, text=True).stdout
    llvm_major = int(re.search(r"^LLVM (\d+)", version, re.M).group(1))
except (OSError, AttributeError):
    lit_config.fatal(f"{pykc} --version names no LLVM")
for v in range(19, llvm_major + 1):
    config.available_features.add(f"llvm-{v}")
# lit's builtin `not` counts a crash (death by a signal) as a failure and so
# as success; LLVM's `not` binary does not: `%not %pykc` passes only when
# pykc exits with an error status of its own.
not_tool = os.path.join(bindir, "not")
if not os.access(not_tool, os.X_OK):
    lit_config.fatal(f"{not_tool} is missing: `make deps` installs llvm-19-tools")
config.substitutions.append(("%not", not_tool))
# ptxas, from the CUDA toolkit, assembles the PTX that the codegen tests
# write (Inputs/ptxas-check.sh, or %ptxas-check): those tests say
# `REQUIRES: ptxas`, so that without it they are unsupported (run-lit.sh
# counts them as skipped), never passed unchecked. The parameter ptxas=PATH
# names it, and ptxas= with no path hides it, to see the suite without it
# (LIT_OPTS='--param ptxas=' make test); otherwise it is the first of
# $PTXAS, $CUDA_HOME/bin/ptxas, /usr/local/cuda/bin/ptxas and PATH's.
def find_ptxas():
    if "ptxas" in lit_config.params:
        candidates = [lit_config.params["ptxas"]]
    else:
        candidates = [os.environ.get("PTXAS")]
        if os.environ.get("CUDA_HOME"):
            candidates.append(os.path.join(os.environ["CUDA_HOME"], "bin", "ptxas"))
        candidates += ["/usr/local/cuda/bin/ptxas", shutil.which("ptxas")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


# pykc finds libdevice through CUDA_HOME too, which lit does not pass on.
if os.environ.get("CUDA_HOME"):
    config.environment["CUDA_HOME"] = os.environ["CUDA_HOME"]
ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.environment["PTXAS"] = ptxas
    lit_config.note(f"ptxas: {ptxas}")
else:
    where = ("--param ptxas=" + lit_config.params["ptxas"] if "ptxas" in lit_config.params
             else "PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH")
    lit_config.note(f"no ptxas ({where}): the tests that assemble PTX are unsupported, counted as skipped")
config.substitutions.append(
    ("%ptxas-check", "sh " + os.path.join(config.test_source_root, "codegen", "Inputs", "ptxas-check.sh")))
# FileCheck, not and count come from the LLVM that the build uses.
config.environment["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
config.environment["LC_ALL"] = "C"
