#!/usr/bin/env python3
"""Turns a text file into a C file holding it as one string, for data the
library or a tool carries (the Makefile runs it at build time, into the
build folder).

usage: embed_text.py SRC DST NAME HEADER
DST defines `const char NAME[]` (the text, NUL-terminated) and includes
HEADER, which declares it.
"""
import os
import sys


def literal(text):
    """C string literal lines for text (no trigraphs)."""
    out = []
    for line in text.splitlines(keepends=True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        esc = esc.replace("??", "?\\?")
        out.append('    "%s"' % esc)
    return "\n".join(out) if out else '    ""'


def main():
    src, dst, name, header = sys.argv[1:5]
    text = open(src, encoding="utf-8").read()
    c = ("/* Generated from %s by tools/embed_text.py: do not edit. */\n"
         "#include \"%s\"\n\n"
         "const char %s[] =\n%s;\n") % (os.path.basename(src), header, name, literal(text))
    with open(dst, "w", encoding="utf-8") as f:
        f.write(c)


if __name__ == "__main__":
    main()
