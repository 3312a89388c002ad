#!/usr/bin/env python3
"""The docs' shell commands, taken from the pages and run as written.

Every command of a page's ```sh (```shell, ```bash) blocks, ```console
blocks (`$ COMMAND` lines, each followed by the output it shows) and
4-space-indented blocks is either run or found in tests/docs/exempt.txt,
which says why it is not run and what is run in its place. A command in
neither is run too: one that cannot run here fails, until it works or is
exempted. An exemption that no page uses any more fails as well.

A page's blocks run in order in one shell, as a reader types them, in a
scratch directory that stands for the repository: links to its top-level
files and directories (build/ among them, so make and build/pykc are the
built tree's), python/ copied, and the files the page has the reader save
(SESSIONS below). HOME is a scratch directory too, so `make install
PREFIX=$HOME/.local` installs there, the CUDA driver is absent (a GPU
machine behaves as one without), and pip reaches no package index. A
command passes when it exits with 0 and prints what its ```console block
shows; a block stops at its first failure.

In the text, every `make TARGET` names a target of the Makefile and every
`sh SCRIPT` or `python3 SCRIPT` a file of the repository.

    commands.py --work DIR [--make MAKE] [--fake LIBCUDA] [--counts FILE] [--exempt FILE] [PAGE ...]
    commands.py --list [PAGE ...]

Without PAGEs the pages are every .md of the repository but reports
(bench/results). --fake is the runtime's double of libcuda.so.1
(build/tests/runtime/fake/libcuda.so.1), --exempt another exemption list
(the test's own checks of this script), --list prints each command and
whether it runs or is exempt.
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXEMPT = os.path.join(REPO, "tests", "docs", "exempt.txt")
NOT_PAGES = ("build/", "bench/results/", "python/build/", "tests/docs/")  # reports, outputs, this test
SHELL_LANGS = ("sh", "shell", "bash")
SESSION_TIMEOUT = 600
SKIP = 77  # an exemption's check that cannot run here


# ---- reading the pages ----

class Block:
    def __init__(self, page, heading, lang, line, lines):
        self.page, self.heading, self.lang, self.line, self.lines = page, heading, lang, line, lines


class Command:
    """One command: its text as the page writes it (continuation lines
    joined by the shell), where, the output a console block shows (None:
    none shown), and its key: the text without its comment, spaces
    collapsed."""

    def __init__(self, block, line, text, output=None):
        self.block, self.line, self.text, self.output = block, line, text, output
        self.key = command_key(text)
        self.where = "%s:%d" % (block.page, line)


FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([\w+-]*)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
LIST_OR_CONTINUATION = re.compile(r"^(\s*([-*+]|\d+[.)])\s|\s{2,}\S)")


def read_blocks(page):
    """Every code block of a page: fenced (lang as written) and indented
    ("indented"), each under the heading above it."""
    with open(os.path.join(REPO, page), encoding="utf-8") as f:
        lines = f.read().split("\n")
    heading, prev, i, out = "", "", 0, []
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            end = fence_end(lines, i, m.group(2))
            indent = len(m.group(1))
            body = [(n + 1, strip_indent(lines[n], indent)) for n in range(i + 1, end)]
            out.append(Block(page, heading, m.group(3).lower(), i + 1, body))
            i, prev = end + 1, line
            continue
        h = HEADING.match(line)
        if h:
            heading = h.group(1)
        if starts_indented_block(lines, i, prev):
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            while not lines[end - 1].strip():
                end -= 1
            out.append(Block(page, heading, "indented", i + 1, [(n + 1, lines[n][4:]) for n in range(i, end)]))
            i = end
            continue
        if line.strip():
            prev = line
        i += 1
    return out


def fence_end(lines, start, fence):
    for n in range(start + 1, len(lines)):
        if lines[n].strip().startswith(fence[0] * len(fence)) and not lines[n].strip().strip(fence[0]):
            return n
    return len(lines)


def strip_indent(line, n):
    return line[n:] if line[:n].strip() == "" else line.lstrip()


def starts_indented_block(lines, i, prev):
    """A code block, not a list item's continuation: indented four spaces
    after a blank line, below a paragraph that is not part of a list."""
    return (lines[i].startswith("    ") and lines[i].strip() and i > 0 and not lines[i - 1].strip()
            and not LIST_OR_CONTINUATION.match(prev))


def commands_of(block):
    if block.lang in SHELL_LANGS or block.lang == "indented":
        return [Command(block, n, text) for n, text in shell_lines(block.lines)]
    if block.lang == "console":
        return console_commands(block)
    return []


def shell_lines(lines):
    """(first line number, text) of each command: blank and comment lines
    left out, a line ending in a backslash joined to the next."""
    out, cur, first = [], [], 0
    for n, text in lines:
        if not cur and (not text.strip() or text.lstrip().startswith("#")):
            continue
        if not cur:
            first = n
        cur.append(text)
        if not text.rstrip().endswith("\\"):
            out.append((first, "\n".join(cur)))
            cur = []
    if cur:
        out.append((first, "\n".join(cur)))
    return out


def console_commands(block):
    """`$ COMMAND` lines (a trailing backslash continues on the next line),
    each followed by the lines of its output."""
    out, cont = [], False
    for n, text in block.lines:
        if cont:
            out[-1].text += "\n" + text
            out[-1].key = command_key(out[-1].text)
            cont = text.rstrip().endswith("\\")
        elif text.startswith("$ "):
            out.append(Command(block, n, text[2:], output=[]))
            cont = text.rstrip().endswith("\\")
        elif out:
            out[-1].output.append(text)
    for c in out:
        while c.output and not c.output[-1].strip():
            c.output.pop()
    return out


def command_key(text):
    """The command without its comments and line continuations, one space
    between words."""
    words = []
    for line in text.split("\n"):
        words.append(strip_comment(line).rstrip().rstrip("\\"))
    return " ".join(" ".join(words).split())


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def all_pages():
    out = []
    for root, dirs, files in os.walk(REPO):
        rel = os.path.relpath(root, REPO)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not (os.path.join(rel, d) + "/").lstrip("./").startswith(NOT_PAGES))
        for f in sorted(files):
            if f.endswith(".md"):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)


# ---- commands named in the text ----

SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")  # a code span: a run of backticks to one as long
SCRIPT_SPAN = re.compile(r"^(?:sh|bash|python3)\s+([\w./-]+\.(?:sh|py))(?:\s|$)")


def prose(page):
    """A page's text outside its code blocks, paragraphs on one line."""
    lines = read(os.path.join(REPO, page)).split("\n")
    for b in read_blocks(page):
        end = b.lines[-1][0] + (1 if b.lang != "indented" else 0) if b.lines else b.line
        for n in range(b.line - 1, min(end, len(lines))):
            lines[n] = ""
    return " ".join(l.strip() if l.strip() else "\n" for l in lines)


def inline_commands(pages):
    """(page, make targets, script paths) that the pages' code spans
    name: `make TARGET ...` (words with a capital, =, / or - first are
    placeholders, settings and options) and `sh|python3 SCRIPT ...`."""
    targets, scripts = {}, {}
    for page in pages:
        for _, span in SPAN.findall(prose(page)):
            words = span.split()
            if words[:1] == ["make"]:
                for w in words[1:]:
                    if not re.search(r"[A-Z=/.]|^-", w):
                        targets.setdefault(w, page)
            m = SCRIPT_SPAN.match(span.strip())
            if m:
                scripts.setdefault(m.group(1), page)
    return targets, scripts


def make_targets(make):
    """The targets make knows here, from its database."""
    r = subprocess.run([make, "-np", "help"], cwd=REPO, env=clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=False)
    out, skip = set(), False
    for line in r.stdout.split("\n"):
        m = re.match(r"^([A-Za-z0-9_./-]+):([^=]|$)", line)
        if m and not skip:
            out.add(m.group(1))
        skip = line.startswith("# Not a target:")
    return out


# ---- the exemptions ----

class Exemption:
    def __init__(self, key, line):
        self.key, self.line, self.why, self.check, self.used = key, line, None, None, False


def read_exemptions(path):
    """COMMAND lines, each followed by indented `why:` (required) and
    `check:` (optional: the shell run in its place) lines."""
    out, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            if not line[0].isspace():
                cur = Exemption(command_key(line), n)
                out[cur.key] = cur
                continue
            field, _, value = line.strip().partition(":")
            if cur is None or field not in ("why", "check"):
                raise SystemExit("%s:%d: expected 'why:' or 'check:' under a command" % (path, n))
            setattr(cur, field, value.strip())
    for e in out.values():
        if not e.why:
            raise SystemExit("%s:%d: %s: no 'why:'" % (path, e.line, e.key))
    return out


# ---- where each block runs ----

def doc_block(page, marker, lang):
    """A file the page has the reader save: the first ```LANG block after
    the first line that contains MARKER."""
    return ("doc", page, marker, lang)


def repo_file(path):
    return ("repo", path)


COMPLETE_HOST = doc_block("docs/runtime.md", "## A complete host program", "c")
VADD_PYK = doc_block("docs/runtime.md", "## A complete host program", "python")
PYKRT_CHECK = ("build/pykc --target host samples/vadd.pyk -o vadd.so && "
               "PYKRT_DEVICE=host python3 tests/docs/pykrt_check.py vadd.yaml .docs/example.py")
FROM_PYTHON = doc_block("docs/runtime.md", "## From Python", "python")


class Session:
    """Blocks of PAGE that run together, apart from the page's others:
    those under HEADING (all its blocks, or only its BLOCK-th), or the
    whole page when HEADING is None. FILES are written into the scratch
    directory first; INSTALLED (all but the pages that install pykc
    themselves) puts an install of pykc (make install PREFIX=...) on PATH
    and PKG_CONFIG_PATH, as the docs assume; DRIVER "double" gives
    libpykrt the runtime's double of the CUDA driver; PYTHON runs python3
    as one that can make a virtual environment: "index" with the wheels of
    /usr/share/python-wheels (Debian's setuptools and wheel) as pip's
    package index, "system" with setuptools and wheel of its own; AFTER
    is shell run after the blocks, in the same shell, as a command of the
    page."""

    def __init__(self, page, heading=None, block=None, files=None, installed=True, driver=None,
                 python=False, after=None):
        self.page, self.heading, self.block = page, heading, block
        self.files = files or {}
        self.installed, self.driver, self.python, self.after = installed, driver, python, after
        self.blocks = []

    def claims(self, block, index):
        if block.page != self.page:
            return False
        if self.heading is None:
            return True
        return block.heading == self.heading and (self.block is None or self.block == index)


SESSIONS = [
    # README's first example: vadd.pyk above it, host.c docs/runtime.md's program.
    Session("README.md", "pykc", files={"vadd.pyk": doc_block("README.md", "# pykc", "python"),
                                        "host.c": COMPLETE_HOST}),
    Session("docs/build.md", installed=False, files={
        "scale_app/CMakeLists.txt": doc_block("docs/build.md", "# Building programs", "cmake"),
        "scale_app/main.c": repo_file("tests/cmake/project/main.c"),
        "scale_app/scale.pyk": repo_file("tests/cmake/project/scale.pyk"),
        "scale_app/helpers.pyk": repo_file("tests/cmake/project/helpers.pyk")}),
    Session("docs/cli.md", "Make dependencies", files={
        "x.pyk": repo_file("tests/cmake/project/scale.pyk"),
        "lib/helpers.pyk": repo_file("tests/cmake/project/helpers.pyk")}),
    Session("docs/runtime.md", "Building and linking", installed=False, files={"host.c": COMPLETE_HOST}),
    Session("docs/runtime.md", "Typed launchers", files={
        "vadd.pyk": VADD_PYK, "host.c": doc_block("docs/runtime.md", "## Typed launchers", "c")}),
    Session("docs/runtime.md", "From Python", 0, python="index", after=PYKRT_CHECK,
            files={".docs/example.py": FROM_PYTHON}),
    Session("docs/runtime.md", "From Python", 1, python="system", after=PYKRT_CHECK,
            files={".docs/example.py": FROM_PYTHON}),
    # The tutorial's GPU run on the driver double, as test-runtime runs it.
    Session("docs/tutorial.md", driver="double", files={
        "add_arrays.pyk": doc_block("docs/tutorial.md", "Save this as `add_arrays.pyk`", "python"),
        "host.c": doc_block("docs/tutorial.md", "## 3. The host program", "c")}),
]


def plan(pages):
    """The sessions that run the pages' commands: SESSIONS first, then one
    for each page's remaining blocks; a SESSIONS entry whose page is read
    but which claims nothing is an error of this table."""
    sessions, problems = [], []
    for page in pages:
        own = [s for s in SESSIONS if s.page == page]
        rest = Session(page)
        index = {}
        for b in read_blocks(page):
            if not commands_of(b):
                continue
            i = index[b.heading] = index.get(b.heading, -1) + 1
            owner = next((s for s in own if s.claims(b, i)), rest)
            owner.blocks.append(b)
        for s in own:
            if not s.blocks:
                problems.append("%s: the session for '%s' finds no command block there" % (page, s.heading))
        sessions += sorted((s for s in own + [rest] if s.blocks), key=lambda s: s.blocks[0].line)
    return sessions, problems


# ---- running ----

class Runner:
    def __init__(self, args, exemptions):
        self.args, self.exemptions = args, exemptions
        self.passed = self.failed = self.skipped = 0
        self.prefix = None
        self.sessions = 0
        self.pythons = {}

    def fail(self, what, log=""):
        self.failed += 1
        print("docs: FAIL: %s" % what)
        for line in log.rstrip("\n").split("\n")[-25:] if log.strip() else []:
            print("    " + line)

    def skip(self, n, why):
        self.skipped += n
        print("docs: skipped %d: %s" % (n, why))

    def run(self, sessions):
        for s in sessions:
            self.run_session(s)

    def run_session(self, s):
        cmds = [c for b in s.blocks for c in commands_of(b)]
        for c in cmds:
            e = self.exemptions.get(c.key)
            if e:
                e.used = True
        why = self.unavailable(s)
        if why:
            self.skip(len(cmds) + (1 if s.after else 0), "%s: %s" % (s.page, why))
            return
        self.sessions += 1
        d = os.path.join(self.args.work, "s%02d-%s" % (self.sessions, slug(s.page)))
        steps = self.prepare(s, d, cmds)
        if steps is None:
            return
        script = self.script(d, steps)
        p = subprocess.Popen(["sh", script], cwd=os.path.join(d, "work"), env=self.env(s, d),
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            p.wait(timeout=SESSION_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the shell and what it started
            p.wait()
            self.fail("%s: still running after %d s, stopped" % (d, SESSION_TIMEOUT))
        self.judge(d, steps)

    def unavailable(self, s):
        if s.python and not self.python_for(s.python):
            return ("no python3 that makes a virtual environment%s (Debian: python3-venv%s)"
                    % (("", "") if s.python == "index" else
                       (" and has setuptools and wheel", " python3-setuptools python3-wheel")))
        if s.python == "index" and not debian_wheels():
            return ("no setuptools and wheel wheels in /usr/share/python-wheels "
                    "(python3-setuptools-whl python3-wheel-whl)")
        return None

    def python_for(self, mode):
        """The python3 the Python pages run: Debian's, which its packages
        (make deps) equip and whose wheels /usr/share/python-wheels holds
        ("index" takes no other: Debian's setuptools wheel needs Debian's
        Python), else PATH's; None when it lacks what MODE needs."""
        need = "import venv, ensurepip" + (", setuptools, wheel" if mode == "system" else "")
        candidates = ["/usr/bin/python3"] + ([shutil.which("python3")] if mode == "system" else [])
        if mode not in self.pythons:
            self.pythons[mode] = next((py for py in candidates
                                       if py and os.path.exists(py) and subprocess.run(
                                           [py, "-c", need], stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL).returncode == 0), None)
        return self.pythons[mode]

    def prepare(self, s, d, cmds):
        """The scratch directory and the steps: (label, shell, command or
        None, exemption or None)."""
        shutil.rmtree(d, ignore_errors=True)
        work = os.path.join(d, "work")
        os.makedirs(os.path.join(d, "home"))
        os.makedirs(os.path.join(d, "out"))
        farm(work)
        missing = write_files(s.files, work)
        if missing:
            self.fail("%s: the file %s to save comes from %s, which has no such block"
                      % (s.page, missing, s.files[missing]))
            return None
        if s.python:
            os.makedirs(os.path.join(d, "bin"))
            os.symlink(self.python_for(s.python), os.path.join(d, "bin", "python3"))
        if s.installed and not self.install():
            return None
        steps = []
        for c in cmds:
            e = self.exemptions.get(c.key)
            steps.append((c.where + ": " + c.key, (e.check or ":") if e else c.text, c, e))
        if s.after:
            steps.append(("%s: after its commands: %s" % (s.page, s.after), s.after, None, None))
        return steps

    def install(self):
        if self.prefix is None:
            self.prefix = os.path.join(self.args.work, "installed")
            r = subprocess.run([self.args.make, "--no-print-directory", "-s", "install", "PREFIX=" + self.prefix],
                               cwd=REPO, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, check=False)
            if r.returncode != 0:
                self.fail("make install PREFIX=%s, for the pages that assume an install" % self.prefix, r.stdout)
                self.prefix = ""
        return bool(self.prefix)

    def env(self, s, d):
        env = clean_env()
        env["HOME"] = os.path.join(d, "home")
        env["PYKRT_LIBCUDA"] = self.args.fake if s.driver == "double" else os.path.join(d, "no-driver", "libcuda.so.1")
        path = env.get("PATH", "/usr/bin:/bin")
        if s.installed:
            path = os.path.join(self.prefix, "bin") + ":" + path
            env["PKG_CONFIG_PATH"] = os.path.join(self.prefix, "lib", "pkgconfig")
        if s.python:
            path = os.path.join(d, "bin") + ":" + path
        if s.python == "index":
            env["PIP_FIND_LINKS"] = "/usr/share/python-wheels"
        env["PATH"] = path
        return env

    def script(self, d, steps):
        """The blocks as one shell script: each step's status into
        d/status, its output into d/out/N; the first failure ends it (a
        check's SKIP does not)."""
        lines = ["exec 3>'%s/status'" % d]
        for n, (_, text, _, e) in enumerate(steps):
            # a command in the shell itself (cd, export, . venv/bin/activate
            # last), a check in a subshell of its own
            opening, closing = ("(", ")") if e else ("{", "}")
            lines += ["%s %s" % (opening, text), "%s > '%s/out/%d' 2>&1" % (closing, d, n),
                      "set -- $?; echo \"%d $1\" >&3" % n,
                      '[ "$1" -eq 0 ] || %s exit 0' % ('[ "$1" -eq %d ] ||' % SKIP if e else "")]
        path = os.path.join(d, "script.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def judge(self, d, steps):
        status = {}
        if os.path.exists(os.path.join(d, "status")):
            with open(os.path.join(d, "status")) as f:
                for line in f:
                    n, rc = line.split()
                    status[int(n)] = int(rc)
        not_run = [label for n, (label, _, _, _) in enumerate(steps) if n not in status]
        for n, step in enumerate(steps):
            if n in status:
                self.verdict(step, status[n], read(os.path.join(d, "out", str(n))))
        if not_run:
            self.skip(len(not_run), "not run after the failure above: " + "; ".join(not_run))

    def verdict(self, step, rc, out):
        label, _, c, e = step
        if e and not e.check:
            self.skip(1, "%s (exempt: %s)" % (label, e.why))
        elif e and rc == SKIP:
            self.skip(1, "%s (exempt: %s; its check cannot run here: %s)" % (label, e.why, out.strip()[-200:]))
        elif rc != 0:
            self.fail("%s: exit status %d%s" % (label, rc, " (the check in its place: %s)" % e.check if e else ""),
                      out)
        elif c is not None and c.output is not None and e is None and not output_matches(c.output, out):
            self.fail("%s: its output is not what the page shows" % label,
                      "the page shows:\n" + "\n".join(c.output) + "\nit printed:\n" + out)
        else:
            self.passed += 1

    def inline(self, pages):
        """Every make target and script the text names exists."""
        targets, scripts = inline_commands(pages)
        known = make_targets(self.args.make)
        for t, page in sorted(targets.items()):
            if t in known:
                self.passed += 1
            else:
                self.fail("%s: names `make %s`, and make has no target %s" % (page, t, t))
        for path, page in sorted(scripts.items()):
            if os.path.isfile(os.path.join(REPO, path)):
                self.passed += 1
            else:
                self.fail("%s: names the script %s, which does not exist" % (page, path))


def output_matches(shown, out):
    """The output is the lines shown, trailing spaces aside; a line `...`
    stands for any lines."""
    got = "".join(l.rstrip() + "\n" for l in out.rstrip("\n").split("\n")) if out.strip() else ""
    pattern = "".join("(?:.*\n)*?" if l.strip() == "..." else re.escape(l.rstrip()) + "\n" for l in shown)
    return re.fullmatch(pattern, got) is not None


def farm(work):
    """The repository as links, python/ copied (pip builds in it), without
    its dot directories (.gpu/, which a page's command writes, stays the
    scratch directory's)."""
    os.makedirs(work)
    for name in sorted(os.listdir(REPO)):
        if name.startswith("."):
            continue
        src = os.path.join(REPO, name)
        if name == "python":
            shutil.copytree(src, os.path.join(work, name),
                            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "libpykrt.so*"))
        else:
            os.symlink(src, os.path.join(work, name))


def write_files(files, work):
    """Writes FILES into WORK; the name of one whose source is missing."""
    for name, src in files.items():
        text = file_text(src)
        if text is None:
            return name
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return None


def file_text(src):
    if src[0] == "repo":
        return read(os.path.join(REPO, src[1]))
    _, page, marker, lang = src
    lines = read(os.path.join(REPO, page)).split("\n")
    start = next((n for n, l in enumerate(lines) if marker in l), None)
    if start is None:
        return None
    for b in read_blocks(page):
        if b.line > start and b.lang == lang:
            return "\n".join(t for _, t in b.lines) + "\n"
    return None


def debian_wheels():
    return all(glob.glob("/usr/share/python-wheels/%s-*.whl" % p) for p in ("setuptools", "wheel"))


def clean_env():
    """The environment a reader's shell has: nothing of the make that runs
    the tests, no install, driver or Python settings of this machine's."""
    drop = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "DESTDIR", "PREFIX", "PKG_CONFIG_PATH",
            "LD_LIBRARY_PATH", "PYTHONPATH", "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES")
    env = {k: v for k, v in os.environ.items()
           if k not in drop and not k.startswith(("PYKRT_", "PIP_"))}
    env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
               PYTHONDONTWRITEBYTECODE="1")
    return env


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def slug(page):
    return re.sub(r"[^A-Za-z0-9]+", "-", page).strip("-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*")
    ap.add_argument("--list", action="store_true", help="list the commands, each run or exempt, and run nothing")
    ap.add_argument("--exempt", default=EXEMPT)
    ap.add_argument("--make", default="make")
    ap.add_argument("--fake", help="the runtime's double of libcuda.so.1")
    ap.add_argument("--work", help="the scratch directory")
    ap.add_argument("--counts", help="write 'passed failed skipped' here")
    args = ap.parse_args()
    if not args.list and not args.work:
        ap.error("--work DIR is needed")
    pages = args.pages or all_pages()
    exemptions = read_exemptions(args.exempt)
    sessions, problems = plan(pages)
    if args.list:
        for s in sessions:
            for b in s.blocks:
                for c in commands_of(b):
                    e = exemptions.get(c.key)
                    print("%s: %s: %s" % (c.where, "exempt" if e else "run", c.key))
        return 0
    args.work = os.path.abspath(args.work)
    runner = Runner(args, exemptions)
    for p in problems:
        runner.fail(p)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    runner.run(sessions)
    runner.inline(pages)
    if not args.pages or args.exempt != EXEMPT:
        for e in exemptions.values():
            if not e.used:
                runner.fail("%s:%d: exempts '%s', which no page has any more" % (args.exempt, e.line, e.key))
    print("commands: %d passed, %d failed, %d skipped" % (runner.passed, runner.failed, runner.skipped))
    if args.counts:
        with open(args.counts, "w") as f:
            f.write("%d %d %d\n" % (runner.passed, runner.failed, runner.skipped))
    return 1 if runner.failed else 0


if __name__ == "__main__":
    sys.exit(main())
