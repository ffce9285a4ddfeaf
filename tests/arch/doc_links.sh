#!/bin/bash
# Every relative link of the project's Markdown (README.md, docs/, and
# every other *.md outside build/) resolves: [text](path), [text](path#anchor),
# [text](#anchor) and reference definitions "[name]: path". The path must
# exist, relative to the linking file; an anchor must be a heading of the
# target Markdown file, as GitHub makes it (lower case, punctuation dropped,
# spaces to '-', "-1", "-2" for repeats). Links with a scheme (https:,
# mailto:) and links in code are not checked.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

python3 - <<'PY'
import os, re

def markdown_files():
    for d, dirs, files in os.walk("."):
        dirs[:] = [x for x in dirs if not (d == "." and x in (".git", "build"))]
        for f in files:
            if f.endswith(".md"):
                yield os.path.normpath(os.path.join(d, f))

def without_code(text):
    text = re.sub(r"^\s*```.*?^\s*```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)

def slug(title):
    title = re.sub(r"[`*]|<[^>]+>", "", title).strip().lower()
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link's text
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")

anchors_of = {}
def anchors(path):
    if path not in anchors_of:
        seen, out = {}, set()
        for line in without_code(open(path, errors="replace").read()).splitlines():
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else "%s-%d" % (s, n))
        anchors_of[path] = out
    return anchors_of[path]

LINK = re.compile(r"!?\[(?:[^\]]|\n)*?\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
bad = checked = files = 0
for md in sorted(markdown_files()):
    files += 1
    text = without_code(open(md, errors="replace").read())
    for target in LINK.findall(text) + REF.findall(text):
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue  # https:, mailto:, ...
        checked += 1
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        if not os.path.exists(dest):
            print("not ok - doc links: %s links to %s: no such file or folder" % (md, target))
            bad += 1
        elif anchor and dest.endswith(".md") and anchor.lower() not in anchors(dest):
            print("not ok - doc links: %s links to %s: %s has no heading #%s" % (md, target, dest, anchor))
            bad += 1
if not bad:
    print("ok - doc links: the %d relative links of %d Markdown files resolve" % (checked, files))
PY
