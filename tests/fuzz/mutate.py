#!/usr/bin/env python3
"""mutate.py - a mutation fuzzer over the pykc binary itself.

Runs build/pykc, as a user would, on mutated copies of the samples and the
GPU test kernels (samples/*.pyk, samples/*/*.pyk, tests/gpu/kernels/*.pyk),
with random options. The mutations work on tokens and lines, so that most
inputs still parse and reach sema, the IR builder and LLVM: dtype and layout
swaps in annotations, extreme literals, deleted, duplicated and swapped
lines, deep nesting, long expressions, kernels spliced in from a second
file, swapped operators, names and decorators, inserted statements, and -D
overrides of module constants; the options are -O0..-O3, --arch
sm_75/sm_80/sm_90 (one or two), -g, --lineinfo, --fastmath and --emit
ptx/llvm/manifest.

Each run has a limit on its CPU time (RLIMIT_CPU, so that a busy machine
makes no false timeouts; the wall clock gets three times as long) and on its
memory (RLIMIT_AS), in a directory of its own. A finding is a run that ends by a signal (a crash), with an exit
status other than 0, 1 or 2, with "internal compiler error" (or LLVM's "LLVM
ERROR", or a sanitizer's report) in its output, with status 1 and no
diagnostic, past the time limit, or out of memory. With --ptxas, a PTX that
pykc wrote (status 0) and ptxas refuses is one too.

Case I of seed S is always the same input and options, whatever ran before
it: `--seed S --replay I` runs it again. Each distinct finding (its kind and
message, numbers and names taken out; for a crash, where gdb sees it, if gdb
is installed) is saved once under --findings, as
DIR/NAME/input.pyk and DIR/NAME/cmd (the command, to run in DIR/NAME),
minimised by deleting lines and dropping options while the finding stays the
same, beside the input as it was found (found.pyk) and pykc's output. A
finding whose signature matches a line of --known (a regular expression, a
known bug with a reproducer under tests/lit/badinput) is counted apart and
fails nothing.

The last line printed is the summary; the exit status is 1 if there was a
finding not known, else 0.
"""
import argparse
import hashlib
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED_GLOBS = ["samples", "samples/*", "tests/gpu/kernels"]

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "boolean", "complex64", "complex128", "intp", "uintp", "float_", "double", "bool_"]
LAYOUTS = ["", "[:]", "[::1]", "[:, :]", "[:, ::1]", "[::1, :]", "[:, :, :]", "[:, :, ::1]", "[::1, :, :]"]
BAD_LAYOUTS = ["[:, :, :, :]", "[::2]", "[1:]", "[:, 1]", "[::1, ::1]", "[]"]
# Every name a mutation may bring in is imported, so that a swap reaches
# sema and the back end instead of stopping at an undefined name.
PRELUDE = ("from numba import cuda, " + ", ".join(d for d in DTYPES if d != "float16") + "\n"
           "from numba.types import float16\nimport math\nimport cmath\nimport numpy as np\n")
EXTREMES = ["0", "-1", "1", "2", "-2", "2**31", "2**31 - 1", "-2**31", "2**32", "2**63 - 1", "2**63", "-2**63",
            "-2**63 - 1", "2**64", "2**64 - 1", "9223372036854775807", "9223372036854775808",
            "18446744073709551616", "0xFFFFFFFFFFFFFFFF", "1e308", "1e309", "-1e308", "5e-324", "1e-45",
            "-0.0", "0.0", "math.nan", "math.inf", "-math.inf", "float('nan')", "float('inf')", "True", "False",
            "1j", "(1e308 + 1e308j)", "0b1", "0o777", "1_000_000", "3.5", "-7"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"]
CMPOPS = ["<", "<=", "==", "!=", ">", ">=", "is", "is not", "in"]
DECORATORS = ["@cuda.jit", "@cuda.jit(device=True)", "@cuda.jit(fastmath=True)", "@cuda.jit(inline=True)",
              "@cuda.jit(debug=True, opt=False)", "@cuda.jit(lineinfo=True)", "@cuda.jit(device=True, inline=True)",
              "@cuda.jit(\"void(float32[:], int64)\")", "@cuda.jit(\"float64(float64)\", device=True)",
              "@cuda.jit(max_registers=8)", "@cuda.jit()", ""]
VOCAB = ["cuda.threadIdx.x", "cuda.blockIdx.y", "cuda.blockDim.z", "cuda.gridDim.x", "cuda.laneid",
         "cuda.warpsize", "cuda.grid(1)", "cuda.grid(2)", "cuda.grid(3)", "cuda.gridsize(1)", "cuda.gridsize(2)",
         "a.shape", "a.shape[0]", "a.size", "a.ndim", "a.strides", "a.T", "a.real", "a.imag", "len(a)",
         "cuda.syncthreads_count(1)", "cuda.activemask()", "cuda.lanemask_lt()", "cuda.popc(7)", "cuda.brev(1)",
         "cuda.clz(0)", "cuda.ffs(0)", "cuda.fma(1.0, 2.0, 3.0)", "cuda.cbrt(8.0)", "cuda.selp(True, 1, 2)",
         "math.sqrt(2.0)", "math.pow(2, 3)", "math.floor(-0.5)", "math.isnan(1.0)", "math.atan2(1, 0)",
         "cmath.exp(1j)", "abs(-1)", "min(1, 2.0)", "max(1, 2, 3)", "round(2.5)", "round(2.5, 1)", "int(3.9)",
         "float(3)", "bool(0)", "complex(1, 2)", "pow(2, -1)", "range(3)", "(1, 2)", "(1, 2.0, True)", "()",
         "cuda.shared.array(0, dtype=float32)", "cuda.local.array((2, 3), dtype=int32)",
         "cuda.shared.array(2**40, dtype=float64)", "cuda.local.array(-1, dtype=int8)",
         "cuda.const.array_like(np.zeros(3))", "cuda.atomic.add(a, 0, 1)", "cuda.atomic.cas(a, 0, 1, 2)",
         "cuda.atomic.max(a, (0, 0), 1)", "cuda.atomic.inc(a, 0, 5)", "cuda.atomic.exch(a, 0, 1.5)",
         "cuda.shfl_sync(0xFFFFFFFF, 1, 0)", "cuda.ballot_sync(0xFFFFFFFF, True)",
         "cuda.match_any_sync(0xFFFFFFFF, 1.0)", "cuda.fp16.hadd(float16(1), float16(2))",
         "cuda.cg.this_grid()", "float32(1)", "int8(300)", "uint64(-1)", "complex64(1)", "boolean(2)",
         "float16(65504)", "np.float32(1)", "None", "'s'", "[1, 2]", "a[::-1]", "a[1:2]", "a[...]",
         "a[0, 0, 0]", "a[-1]", "a[2**63]", "x if x else x", "not x", "-x", "~x", "x and x or x",
         "lambda: 0", "print(1)", "math.pi", "math.e"]
STATEMENTS = ["return", "return 0", "return (1, 2)", "break", "continue", "pass", "cuda.syncthreads()",
              "cuda.syncwarp()", "cuda.threadfence()", "assert False", "assert x, 'msg'", "print(x)",
              "print('x =', x, 1.5)", "x = x", "x += 1", "x = None", "x, y = 1, 2", "x, y = y, x", "del x",
              "global x", "x: float32 = 0", "raise ValueError", "cuda.cg.this_grid().sync()",
              "for _q in range(10, 0, -3):\n    pass", "while x:\n    x -= 1", "if x:\n    return",
              "x = a[0]", "a[0] = x", "a[0] += 1", "a[:] = 0", "x = a", "a = x"]

# A mutant larger than this is dropped: it would cost the fuzzer more time
# than pykc (most mutations are linear in the text), and the front end's
# limits on size are the business of the lit tests in tests/lit/badinput.
MAX_TEXT = 200_000

BLOCK_HEADERS = ["if True:", "if False:", "for _n{k} in range(2):", "for _n{k} in range(0, 9, -1):",
                 "while False:", "if x > 0:", "for _n{k} in range(3, 0, -1):"]

NUMBER_RE = re.compile(r"(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?j?|\.\d+(?:[eE][+-]?\d+)?)"
                       r"(?![\w.])")
TYPE_RE = re.compile(r"\b(" + "|".join(DTYPES) + r")\b(\[[^\]\n]*\])?")
NAME_RE = re.compile(r"\b[A-Za-z_]\w*\b")
BINOP_RE = re.compile(r"(?<=[\w)\]] )(\*\*|//|<<|>>|[-+*/%&|^])(?= [\w(\-])")
CMPOP_RE = re.compile(r"(?<= )(<=|>=|==|!=|<|>)(?= )")
ASSIGN_RE = re.compile(r"^(\s+)([\w\[\], .]+?) (=|\+=|-=|\*=) (.+)$")
DECORATOR_RE = re.compile(r"^@cuda\.jit.*$")
CONST_RE = re.compile(r"^([A-Z_][A-Z0-9_]*) = (.+)$")
KEYWORDS = {"def", "if", "else", "elif", "for", "while", "in", "return", "and", "or", "not", "is", "True",
            "False", "None", "import", "from", "as", "pass", "break", "continue", "range", "cuda", "lambda",
            "assert", "print", "global"}


# ---- seeds --------------------------------------------------------------------------------------------------------

def seed_files():
    files = []
    for d in SEED_GLOBS:
        base = os.path.join(ROOT, d)
        dirs = sorted(os.path.join(ROOT, "samples", e) for e in os.listdir(os.path.join(ROOT, "samples"))
                      if os.path.isdir(os.path.join(ROOT, "samples", e))) if d == "samples/*" else [base]
        for dd in dirs:
            files += sorted(os.path.join(dd, f) for f in os.listdir(dd) if f.endswith(".pyk"))
    return files


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def functions(lines):
    """(start, end) line ranges of the top-level decorated functions."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("@"):
            j = i + 1
            while j < len(lines) and lines[j].startswith("@"):
                j += 1
            if j < len(lines) and lines[j].startswith("def "):
                j += 1
                while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
                    j += 1
                out.append((i, j))
                i = j
                continue
        i += 1
    return out


def indent_of(line):
    return line[:len(line) - len(line.lstrip())]


def body_lines(lines):
    """Indices of simple statements inside functions (not block headers)."""
    return [i for i, l in enumerate(lines)
            if l.startswith((" ", "\t")) and l.strip() and not l.strip().startswith("#")
            and not l.rstrip().endswith(":")]


# ---- mutations: each takes (rng, lines, ctx) and returns new lines or None ----------------------------------------

def pick_match(rng, regex, lines, only=None):
    spots = [(i, m) for i, l in enumerate(lines) if only is None or i in only
             for m in regex.finditer(l) if not l.lstrip().startswith("#")]
    return rng.choice(spots) if spots else None


def splice_at(lines, i, m, text, group=0):
    l = lines[i]
    return lines[:i] + [l[:m.start(group)] + text + l[m.end(group):]] + lines[i + 1:]


def m_annotation(rng, lines, ctx):
    spot = pick_match(rng, TYPE_RE, lines)
    if not spot:
        return None
    i, m = spot
    layout = rng.choice(LAYOUTS if rng.random() < 0.95 else BAD_LAYOUTS)
    if rng.random() < 0.3 and m.group(2):
        text = m.group(1) + layout                        # layout only
    elif rng.random() < 0.3:
        text = rng.choice(DTYPES) + (m.group(2) or "")    # dtype only
    else:
        text = rng.choice(DTYPES) + layout
    return splice_at(lines, i, m, text)


def m_literal(rng, lines, ctx):
    spot = pick_match(rng, NUMBER_RE, lines)
    if not spot:
        return None
    i, m = spot
    v = rng.choice(EXTREMES)
    if not re.fullmatch(r"[\w.]+", v):
        v = "(" + v + ")"
    return splice_at(lines, i, m, v)


def m_delete(rng, lines, ctx):
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines))
    n = rng.choice([1, 1, 1, 2, 3])
    return lines[:i] + lines[i + n:]


def m_duplicate(rng, lines, ctx):
    if not lines:
        return None
    i = rng.randrange(len(lines))
    n = rng.choice([1, 1, 2, 10, 300])
    return lines[:i + 1] + [lines[i]] * n + lines[i + 1:]


def m_swap_lines(rng, lines, ctx):
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines) - 1)
    j = i + 1 if rng.random() < 0.7 else rng.randrange(len(lines))
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def m_nest_blocks(rng, lines, ctx):
    body = body_lines(lines)
    if not body:
        return None
    i = rng.choice(body)
    depth = rng.choice([2, 5, 20, 60, 95, 120])          # the lexer's limit is 100
    ind = indent_of(lines[i])
    out = []
    for k in range(depth):
        out.append(ind + "    " * k + rng.choice(BLOCK_HEADERS).format(k=k))
    out.append(ind + "    " * depth + lines[i].strip())
    return lines[:i] + out + lines[i + 1:]


def m_nest_expr(rng, lines, ctx):
    spots = [i for i in body_lines(lines) if ASSIGN_RE.match(lines[i])]
    if not spots:
        return None
    i = rng.choice(spots)
    m = ASSIGN_RE.match(lines[i])
    e, depth = m.group(4), rng.choice([3, 30, 90, 190, 300])  # the parser's limit is 200
    wrap = rng.choice(["(%s)", "-(%s)", "abs(%s)", "(%s if True else %s)", "min(%s, %s)", "(%s) * 1",
                       "float32(%s)", "int64(%s)", "(%s,)[0]"])
    for _ in range(depth):
        e = wrap.replace("%s", e)
        if len(e) > MAX_TEXT // 4:
            break
    return lines[:i] + [f"{m.group(1)}{m.group(2)} {m.group(3)} {e}"] + lines[i + 1:]


def m_long_expr(rng, lines, ctx):
    spots = [i for i in body_lines(lines) if ASSIGN_RE.match(lines[i])]
    if not spots:
        return None
    i = rng.choice(spots)
    m = ASSIGN_RE.match(lines[i])
    n = rng.choice([10, 100, 400, 990, 3000])             # the parser's limit is 1000
    ops = [rng.choice(BINOPS + ["<", "and", "or"]) for _ in range(n)] if rng.random() < 0.5 else \
        [rng.choice(BINOPS)] * n
    e = "(" + m.group(4) + ")"
    parts = [e]
    for op in ops:
        parts += [op, e]
    return lines[:i] + [f"{m.group(1)}{m.group(2)} {m.group(3)} {' '.join(parts)}"] + lines[i + 1:]


def m_splice(rng, lines, ctx):
    """A decorated function of another file, with its module constants."""
    other = read(rng.choice(ctx["seeds"])).split("\n")
    funcs = functions(other)
    if not funcs:
        return None
    s, e = rng.choice(funcs)
    consts = [l for l in other if CONST_RE.match(l)]
    mine = functions(lines)
    at = rng.choice([f[0] for f in mine] + [len(lines)])
    return lines[:at] + consts + [""] + other[s:e] + [""] + lines[at:]


def m_splice_body(rng, lines, ctx):
    """Lines of another file's function body into one of this file's."""
    other = read(rng.choice(ctx["seeds"])).split("\n")
    obody = body_lines(other)
    body = body_lines(lines)
    if not obody or not body:
        return None
    s = rng.choice(obody)
    chunk = [l.strip() for l in other[s:s + rng.choice([1, 2, 4])] if l.strip() and not l.rstrip().endswith(":")]
    i = rng.choice(body)
    return lines[:i] + [indent_of(lines[i]) + c for c in chunk] + lines[i:]


def m_name(rng, lines, ctx):
    spot = pick_match(rng, NAME_RE, lines, set(body_lines(lines)))
    if not spot:
        return None
    i, m = spot
    if m.group(0) in KEYWORDS:
        return None
    names = sorted({n for l in lines for n in NAME_RE.findall(l) if n not in KEYWORDS})
    if rng.random() < 0.5 or not names:
        v = rng.choice(VOCAB)
        if rng.random() < 0.5:      # on the name it replaces: x.shape, not a.shape
            v = re.sub(r"\b[ax]\b", m.group(0), v)
    else:
        v = rng.choice(names)
    return splice_at(lines, i, m, v)


def m_operator(rng, lines, ctx):
    if rng.random() < 0.6:
        spot, choices = pick_match(rng, BINOP_RE, lines), BINOPS
    else:
        spot, choices = pick_match(rng, CMPOP_RE, lines), CMPOPS
    if not spot:
        return None
    i, m = spot
    return splice_at(lines, i, m, rng.choice(choices), 1)


def m_decorator(rng, lines, ctx):
    spots = [i for i, l in enumerate(lines) if DECORATOR_RE.match(l)]
    if not spots:
        return None
    i = rng.choice(spots)
    return lines[:i] + [rng.choice(DECORATORS)] + lines[i + 1:]


def m_statement(rng, lines, ctx):
    body = body_lines(lines)
    if not body:
        return None
    i = rng.choice(body)
    names = [n for n in NAME_RE.findall(lines[i]) if n not in KEYWORDS] or ["x"]
    stmt = rng.choice(STATEMENTS).replace("x", rng.choice(names)).replace("y", rng.choice(names))
    if " a" in stmt or "a[" in stmt:
        stmt = re.sub(r"\ba\b", rng.choice(names), stmt)
    ind = indent_of(lines[i])
    return lines[:i] + [ind + s for s in stmt.split("\n")] + lines[i:]


def m_define(rng, lines, ctx):
    consts = [m.group(1) for l in lines for m in [CONST_RE.match(l)] if m]
    if not consts:
        return None
    ctx["defines"].append(f"-D{rng.choice(consts)}={rng.choice(EXTREMES + ['abc', '', '1.5.5', '(1, 2)'])}")
    return lines


MUTATIONS = [(m_annotation, 6), (m_literal, 6), (m_delete, 4), (m_duplicate, 3), (m_swap_lines, 2),
             (m_nest_blocks, 2), (m_nest_expr, 2), (m_long_expr, 2), (m_splice, 2), (m_splice_body, 2),
             (m_name, 5), (m_operator, 4), (m_decorator, 2), (m_statement, 4), (m_define, 1)]


def make_case(seed, index, seeds):
    """Case `index` of `seed`: (source text, pykc options, seed file, mutations)."""
    rng = random.Random(f"{seed}:{index}")
    path = rng.choice(seeds)
    lines = read(path).split("\n")
    prelude = rng.random() < 0.9
    ctx = {"seeds": seeds, "defines": []}
    done = []
    funcs, weights = zip(*MUTATIONS)
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4, 6])):
        f = rng.choices(funcs, weights)[0]
        new = f(rng, lines, ctx)
        if new is not None and sum(map(len, new)) <= MAX_TEXT:
            lines = new
            done.append(f.__name__[2:])
    if prelude:
        lines = PRELUDE.split("\n") + lines
    opts = []
    if rng.random() < 0.8:
        opts.append(f"-O{rng.randrange(4)}")
    for arch in rng.sample(["sm_75", "sm_80", "sm_90"], rng.choice([0, 1, 1, 1, 2])):
        opts += ["--arch", arch]
    for flag, p in [("-g", 0.15), ("--lineinfo", 0.15), ("--fastmath", 0.3)]:
        if rng.random() < p:
            opts.append(flag)
    emit = rng.choice([None, "ptx", "llvm", "manifest"])
    if emit:
        opts += ["--emit", emit]
    return "\n".join(lines), opts + ctx["defines"], path, done


# ---- running pykc -------------------------------------------------------------------------------------------------

class Runner:
    def __init__(self, args):
        self.pykc = os.path.abspath(args.pykc)
        self.timeout = args.timeout
        self.memory = args.memory_mb << 20
        self.ptxas = args.ptxas
        self.gdb = shutil.which("gdb")
        self.work = tempfile.mkdtemp(prefix="pykc-mutate-")
        self.runs = 0
        self.statuses = {}

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def _limits(self):
        cpu = int(self.timeout + 0.999)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
        os.setsid()

    def command(self, opts, include):
        return [self.pykc] + opts + ["-I", include, "k.pyk", "-o", "out.ptx"]

    def run(self, text, opts, include):
        """The finding's signature (None when pykc behaved) and pykc's output."""
        self.runs += 1
        d = os.path.join(self.work, "run")
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        with open(os.path.join(d, "k.pyk"), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        p = subprocess.Popen(self.command(opts, include), cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, preexec_fn=self._limits)
        try:
            out, _ = p.communicate(timeout=self.timeout * 3 + 5)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            return "timeout: wall clock", out.decode(errors="replace")
        out = out.decode(errors="replace")
        self.statuses[p.returncode] = self.statuses.get(p.returncode, 0) + 1
        sig = classify(p.returncode, out)
        if sig and p.returncode < 0 and p.returncode != -signal.SIGXCPU and self.gdb:
            where = self.crash_site(opts, include, d)
            if where:
                sig += " in " + where
        if sig is None and p.returncode == 0 and self.ptxas:
            sig, out = self.check_ptx(d, opts, out)
        return sig, out

    def crash_site(self, opts, include, d):
        """Where pykc crashes, from gdb's backtrace: the innermost frame and
        the innermost of pykc's own (its src/ files), `f <- g`; or None."""
        try:
            r = subprocess.run([self.gdb, "-batch", "-nx", "-q", "-ex", "run", "-ex", "bt", "--args"]
                               + self.command(opts, include), cwd=d, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=self.timeout * 3 + 30)
        except subprocess.TimeoutExpired:
            return None
        frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?([^ (]+) \(.*?\)(?: at (\S+):\d+)?$",
                            r.stdout.decode(errors="replace"), re.M)
        if not frames:
            return None
        own = next((f for f, at in frames if at and at.startswith("src/")), None)
        return frames[0][0] + (f" <- {own}" if own and own != frames[0][0] else "")

    def check_ptx(self, d, opts, out):
        emit = opts[opts.index("--emit") + 1] if "--emit" in opts else "ptx"
        if emit != "ptx":
            return None, out
        ptx = sorted(f for f in os.listdir(d) if f.endswith(".ptx"))
        for f in ptx:
            arch = f.split(".")[-2] if f.count(".") == 2 else (opts[opts.index("--arch") + 1] if "--arch" in opts
                                                                  else "sm_75")
            try:
                r = subprocess.run([self.ptxas, "-O0", "--gpu-name", arch, f, "-o", os.devnull], cwd=d,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
            except subprocess.TimeoutExpired:
                return "ptxas: timeout", out
            if r.returncode != 0:
                msg = r.stdout.decode(errors="replace")
                first = next((l for l in msg.splitlines() if "error" in l), msg.strip()[:200])
                if r.returncode < 0:    # ptxas itself crashed
                    first = signal.Signals(-r.returncode).name
                return "ptxas: " + normalise(first.split(": error", 1)[-1]), out + "\n--- ptxas\n" + msg
        return None, out


def normalise(msg):
    """A message with the parts that vary from input to input taken out."""
    msg = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'_'", msg)
    msg = re.sub(r"%[\w.]+|@[\w.]+|0x[0-9a-fA-F]+|\d+", "N", msg)
    return re.sub(r"\s+", " ", msg).strip()[:160]


def first_line(out, marker):
    for l in out.splitlines():
        if marker in l:
            return l[l.index(marker) + len(marker):]
    return None


def classify(status, out):
    """The finding's signature, or None when this is how pykc should end."""
    ice = first_line(out, "internal compiler error:")
    llvm = first_line(out, "LLVM ERROR:")
    san = first_line(out, "runtime error:") or first_line(out, "ERROR: AddressSanitizer:")
    what = ice or llvm or san
    memory = re.search(r"out of memory|bad_alloc|Cannot allocate memory|allocation-size-too-big", out)
    if status == -signal.SIGXCPU:
        return "timeout"
    if status < 0:
        name = signal.Signals(-status).name if -status in signal.Signals._value2member_map_ else str(-status)
        kind = "memory " + name if memory else name
        return f"{kind}: {normalise(what)}" if what else kind
    if memory and (status not in (0, 1, 2) or what):
        return "memory: " + normalise(what or memory.group(0))
    if ice is not None:
        return "ice: " + normalise(ice)
    if llvm is not None:
        return "llvm error: " + normalise(llvm)
    if san is not None:
        return "sanitizer: " + normalise(san)
    if status not in (0, 1, 2):
        return f"status {status}"
    if status == 1 and "error" not in out:
        return "status 1 without a diagnostic"
    return None


# ---- minimising and saving ----------------------------------------------------------------------------------------

def paren_groups(line):
    """The (start, end) spans of the balanced parenthesised groups of line."""
    spans, stack = [], []
    for i, c in enumerate(line):
        if c == "(":
            stack.append(i)
        elif c == ")" and stack:
            spans.append((stack.pop(), i + 1))
    return spans


def shrink_line(line, keeps):
    """A long expression made smaller while keeps(line) holds: a group
    replaced by a group inside it (((a if c else b) if c else d) -> (a if c
    else b)), then runs of `op (group)` dropped from a chain (a / (b) / (c)
    -> a / (c))."""
    changed = True
    while changed and len(line) > 80 and keeps.budget():
        changed = False
        spans = paren_groups(line)
        for s0, e0 in sorted(spans, key=lambda g: g[0] - g[1])[:8]:
            inner = [g for g in spans if s0 < g[0] and g[1] < e0]
            outer = [g for g in inner if not any(h[0] < g[0] and g[1] < h[1] for h in inner)]
            for s1, e1 in outer[:2]:
                trial = line[:s0] + line[s1:e1] + line[e0:]
                if keeps(trial):
                    line, changed = trial, True
                    break
            if changed or not keeps.budget():
                break
    units = list(re.finditer(r" (?:\*\*|//|<<|>>|[-+*/%&|^<>]|and|or) \([^()]*(?:\([^()]*\)[^()]*)*\)", line))
    chunk = len(units) // 2
    while chunk >= 1 and keeps.budget():
        i, changed = 0, False
        while i < len(units) and keeps.budget():
            drop = units[i:i + chunk]
            trial = line[:drop[0].start()] + line[drop[-1].end():]
            if keeps(trial):
                line, changed = trial, True
                units = list(re.finditer(units[0].re, line))
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return line


def minimise(runner, text, opts, include, sig, budget):
    """Shrinks long lines (first: they make each run slow), deletes chunks
    of lines, then drops options, while the signature stays."""
    deadline = time.monotonic() + budget
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if len(line) > 200 and time.monotonic() < deadline:
            def keeps(trial, n=n):
                return runner.run("\n".join(lines[:n] + [trial] + lines[n + 1:]), opts, include)[0] == sig
            keeps.budget = lambda: time.monotonic() < deadline
            lines[n] = shrink_line(line, keeps)
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i, changed = 0, False
        while i < len(lines) and time.monotonic() < deadline:
            trial = lines[:i] + lines[i + chunk:]
            if trial and runner.run("\n".join(trial), opts, include)[0] == sig:
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    i = 0
    while i < len(opts) and time.monotonic() < deadline:
        n = 2 if opts[i] in ("--arch", "--emit") else 1
        trial = opts[:i] + opts[i + n:]
        if runner.run("\n".join(lines), trial, include)[0] == sig:
            opts = trial
        else:
            i += n
    return "\n".join(lines), opts


def slug(sig):
    s = re.sub(r"[^a-z0-9]+", "-", sig.lower()).strip("-")[:60]
    return s + "-" + hashlib.sha1(sig.encode()).hexdigest()[:8]


def save(findings_dir, sig, case, found, minimal, runner, out, seed, index):
    d = os.path.join(findings_dir, slug(sig))
    os.makedirs(d, exist_ok=True)
    text, opts = minimal
    with open(os.path.join(d, "input.pyk"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    with open(os.path.join(d, "found.pyk"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(found[0])
    cmd = runner.command(opts, case["include"])
    cmd[-3] = "input.pyk"
    with open(os.path.join(d, "cmd"), "w") as f:
        f.write(f"# {sig}\n# case {index} of seed {seed}: seed file {os.path.relpath(case['path'], ROOT)}, "
                f"mutations {' '.join(case['mutations'])}\n"
                f"# again: python3 tests/fuzz/mutate.py --seed {seed} --replay {index}\n"
                f"# as found: {' '.join(runner.command(found[1], case['include']))[:2000]}\n"
                + " ".join(cmd) + "\n")
    with open(os.path.join(d, "output"), "w") as f:
        f.write(out[-20000:])
    return d


def load_known(path):
    known = []
    if path and os.path.exists(path):
        for line in read(path).splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                known.append(re.compile(line))
    return known


# ---- main ---------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pykc", default=os.path.join(ROOT, "build", "pykc"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=60, help="time budget (default 60)")
    ap.add_argument("--runs", type=int, default=0, help="stop after this many cases (0: no limit)")
    ap.add_argument("--timeout", type=float, default=10, help="CPU seconds a run may take (default 10)")
    ap.add_argument("--memory-mb", type=int, default=2048, help="RLIMIT_AS of a run (default 2048)")
    ap.add_argument("--findings", default=os.path.join(ROOT, "build", "fuzz", "findings"))
    ap.add_argument("--known", default=os.path.join(ROOT, "tests", "fuzz", "known-findings.txt"),
                    help="regular expressions of known findings, one a line")
    ap.add_argument("--minimise-seconds", type=float, default=30)
    ap.add_argument("--ptxas", nargs="?", const="auto", help="also assemble each PTX written (PATH or auto)")
    ap.add_argument("--replay", type=int, help="run case N only, print its input, command and output")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per finding as it is found")
    args = ap.parse_args()
    if not os.access(args.pykc, os.X_OK):
        sys.exit(f"mutate: no pykc at {args.pykc} (make first)")
    if args.ptxas == "auto":
        cands = [os.environ.get("PTXAS"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin",
                                                        "ptxas"), shutil.which("ptxas")]
        args.ptxas = next((c for c in cands if c and os.access(c, os.X_OK)), None)
    seeds = seed_files()
    known = load_known(args.known)
    runner = Runner(args)
    try:
        if args.replay is not None:
            text, opts, path, done = make_case(args.seed, args.replay, seeds)
            sig, out = runner.run(text, opts, os.path.dirname(path))
            print(text)
            print("# " + " ".join(runner.command(opts, os.path.dirname(path))))
            print(f"# from {os.path.relpath(path, ROOT)} by {' '.join(done)}")
            print(out, end="")
            print(f"mutate: case {args.replay} of seed {args.seed}: {sig or 'clean'}")
            return 1 if sig else 0
        return campaign(args, seeds, known, runner)
    finally:
        runner.close()


def campaign(args, seeds, known, runner):
    start = time.monotonic()
    seen, known_hits, new_hits, index = {}, 0, 0, 0
    while time.monotonic() - start < args.seconds and (not args.runs or index < args.runs):
        text, opts, path, done = make_case(args.seed, index, seeds)
        include = os.path.dirname(path)
        sig, out = runner.run(text, opts, include)
        if sig is not None:
            is_known = any(k.search(sig) for k in known)
            known_hits += is_known
            new_hits += not is_known
            if sig not in seen:
                case = {"include": include, "path": path, "mutations": done}
                if is_known:
                    seen[sig] = None
                else:
                    minimal = minimise(runner, text, opts, include, sig, args.minimise_seconds)
                    seen[sig] = save(args.findings, sig, case, (text, opts), minimal, runner, out, args.seed, index)
                if args.verbose:
                    print(f"mutate: case {index}: {sig}{' (known)' if is_known else ''}"
                          + (f" -> {seen[sig]}" if seen[sig] else ""), flush=True)
        index += 1
    elapsed = time.monotonic() - start
    new_sigs = [s for s, d in seen.items() if d]
    print(f"mutate: {index} cases ({runner.runs} runs of pykc) in {elapsed:.0f} s, seed {args.seed}: "
          f"{new_hits} findings ({len(new_sigs)} distinct), {known_hits} known; pykc exited "
          + ", ".join(f"{n}x{s}" for s, n in sorted(runner.statuses.items()))
          + (f"; saved under {args.findings}" if new_sigs else ""))
    for s in new_sigs:
        print(f"  {s}: {seen[s]}", file=sys.stderr)
    return 1 if new_sigs else 0


if __name__ == "__main__":
    sys.exit(main())
