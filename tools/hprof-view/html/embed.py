#!/usr/bin/env python3
"""Turns html/report.html into view_html_template.c (C string literals).

usage: embed.py report.html view_html_template.c
The page is split at the placeholder /*HPROF_DATA*/: view_html.c prints
the part before it, the profile's data as JSON, then the part after it.
The Makefile runs it at build time (build/tools/gen/view_html_template.c).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from embed_text import literal  # noqa: E402  (tools/embed_text.py)

MARK = "/*HPROF_DATA*/"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    page = open(src, encoding="utf-8").read()
    if page.count(MARK) != 1:
        sys.exit("embed.py: %s must hold %s exactly once" % (src, MARK))
    head, tail = page.split(MARK)
    c = ("/* Generated from html/report.html by html/embed.py: do not edit. */\n"
         "#include \"tools/hprof-view/view_html.h\"\n\n"
         "const char view_html_head[] =\n%s;\n\n"
         "const char view_html_tail[] =\n%s;\n") % (literal(head), literal(tail))
    with open(dst, "w", encoding="utf-8") as f:
        f.write(c)


if __name__ == "__main__":
    main()
