#!/usr/bin/env python3
"""gen.py KIND [ARGS]: writes a test input to stdout, for the lit tests that
need one too big, too odd or too binary to commit (lit skips Inputs/).

  crlf FILE | cr FILE | bom FILE | nonl FILE   FILE with CRLF or CR line
                                             ends, a UTF-8 BOM, or without
                                             its final newline
  formfeed                                   a form feed in indentation
  garbage BYTES SEED                         random bytes
  utf8                                       invalid UTF-8 in code, a
                                             string and a comment
  nul                                        NUL bytes in code and string
  control                                    escape and other control chars
  constants MB                               a valid module of constants
  function MB                                one valid kernel of MB
  parens N | brackets N | unclosed N         N nested brackets
  blocks N                                   N nested if blocks
  prefix N TEXT                              TEXT N times before `1`
  chain N TEXT                               `a` TEXT `a` ... N times
  longline N                                 an error on a line N long
  errors N                                   N lines, each one error
  lineerrors N                               one line of N errors
"""
import random
import sys


def out(data):
    if isinstance(data, str):
        data = data.encode()
    sys.stdout.buffer.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def constants(mb):
    lines, size, i = [], 0, 0
    while size < mb * 1_000_000:
        line = f"CONST_{i} = {i * 7919 % 1000003}\n"
        lines.append(line)
        size += len(line)
        i += 1
    return "from numba import cuda, float32\n" + "".join(lines) + \
        "\n\n@cuda.jit\ndef k(a: float32[:]):\n    a[0] = CONST_0\n"


def function(mb):
    head = "from numba import cuda, float32\n\n\n@cuda.jit\ndef k(a: float32[:], b: float32[:]):\n" \
           "    i = cuda.grid(1)\n"
    body = "    if i < a.size:\n        a[i] = a[i] * 2.0 + b[i] - (a[i] // 3.0) ** 2\n"
    return head + body * (mb * 1_000_000 // len(body) + 1)


def main(argv):
    kind, args = argv[1], argv[2:]
    if kind in ("crlf", "cr", "bom", "nonl"):
        data = read(args[0])
        if kind == "crlf":
            data = data.replace(b"\n", b"\r\n")
        elif kind == "cr":
            data = data.replace(b"\n", b"\r")
        elif kind == "bom":
            data = b"\xef\xbb\xbf" + data
        else:
            data = data.rstrip(b"\n")
        out(data)
    elif kind == "formfeed":
        out("if True:\n    x = 1\n\f    y = 2\n\x0c\nz = 3\n")
    elif kind == "garbage":
        rng = random.Random(int(args[1]))
        out(bytes(rng.randrange(256) for _ in range(int(args[0]))))
    elif kind == "utf8":
        out(b"x = 1\ny\xff = 2\ns = 'caf\xe9'\n# \xc3\x28 comment\nz = \xe2\x82 + 1\n")
    elif kind == "nul":
        out(b"x = 1\x00\ny = '\x00'\n\x00\x00\x00\nz = 3\n")
    elif kind == "control":
        out(b"x = 1 \x1b\x1b + 2\ny = \x07\n")
    elif kind == "constants":
        out(constants(int(args[0])))
    elif kind == "function":
        out(function(int(args[0])))
    elif kind == "parens":
        n = int(args[0])
        out("x = " + "(" * n + "1" + ")" * n + "\n")
    elif kind == "brackets":
        n = int(args[0])
        out("x = " + "[" * n + "1" + "]" * n + "\n")
    elif kind == "unclosed":
        out("x = " + "(" * int(args[0]) + "\ny = 1\n")
    elif kind == "blocks":
        n = int(args[0])
        out("".join(" " * i + "if x:\n" for i in range(n)) + " " * n + "pass\n")
    elif kind == "prefix":
        out("x = " + args[1] * int(args[0]) + "1\n")
    elif kind == "chain":
        out("x = a" + (args[1] + "a") * int(args[0]) + "\n")
    elif kind == "longline":
        n = int(args[0])
        out("x = (" + "1, " * (n // 6) + "$, " + "2, " * (n // 6) + "3)\n")
    elif kind == "errors":
        out("".join(f"x{i} = )\n" for i in range(int(args[0]))))
    elif kind == "lineerrors":
        out("x = (" + "0777, " * int(args[0]) + ")\n")
    else:
        sys.exit(f"gen.py: unknown kind {kind}")


if __name__ == "__main__":
    main(sys.argv)
