#!/bin/bash
# docs/architecture.md stays true to the code: every name it gives in
# backticks exists in the sources, and every path exists. A backticked span
# is read as
#   a path        it holds a '/' (core/cct.h, lib/exact/, tests/mpi/*.sh):
#                 the file, folder or glob exists; build/<mpi>/ stands for
#                 build/openmpi/ and is checked once the build exists;
#                 absolute paths are the system's, not checked
#   an identifier hprof_call_begin, hprof_call_begin(), MPI_Test* (a prefix),
#                 HPROF_VERBOSE=1 (the name): a word of some source file
#   a call        name(args): the name and each argument that is a word
#   a file name   libhprof.so, mpi.h: named in some source file
#   a node name   (call tree full): that text is in some source file
# and anything else (flags such as -fvisibility=hidden, suffixes such as
# .cubex, commands with spaces) is prose, not checked. The sources are the
# tree's text files but for docs/, *.md and build/, plus the generated
# build/openmpi/gen/ (the wrappers' names, HPROF_FN_MPI_Send) once built.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
DOC=${ARCH_DOC:-docs/architecture.md}

python3 - "$DOC" <<'PY'
import glob, os, re, sys

doc = sys.argv[1]
SKIP_DIRS = {".git", "build", "docs"}
GEN = "build/openmpi/gen"

texts = []
for d, dirs, files in os.walk("."):
    dirs[:] = [x for x in dirs if not (d == "." and x in SKIP_DIRS)]
    for f in files:
        p = os.path.join(d, f)
        if f.endswith(".md") or os.path.getsize(p) > 4 << 20:
            continue
        texts.append(open(p, "rb").read().decode("utf-8", "replace"))
built = os.path.isdir(GEN)
if built:
    for f in os.listdir(GEN):
        if f.endswith((".c", ".h")):
            texts.append(open(os.path.join(GEN, f), errors="replace").read())
corpus = "\n".join(texts)
words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", corpus))

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
FILENAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*\.[A-Za-z0-9]+$")

def word_exists(w):
    if w.endswith("*"):
        pre = w[:-1]
        return any(x.startswith(pre) for x in words)
    return w in words

def check(span):
    """(kind, problem or None); kind None: prose, not checked"""
    s = span.strip()
    m = re.match(r'#\s*include\s+"([^"]+)"$', s)
    if m:
        s = m.group(1)
    if "/" in s and " " not in s:
        if s.startswith("/"):
            return None, None
        p = s.replace("<mpi>", "openmpi")
        if "<" in p:
            return "path", "a placeholder other than <mpi>"
        if p.startswith("build/") and not os.path.isdir("build/openmpi"):
            return "path", None  # nothing built yet: layers.sh says so
        return "path", None if glob.glob(p.rstrip("/") or p) else "no such file or folder"
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$", s)
    if m:
        names = [m.group(1)] + [a.strip().lstrip("&*") for a in m.group(2).split(",") if a.strip()]
        missing = [n for n in names if IDENT.match(n) and not word_exists(n)]
        return "identifier", ("not in the sources: " + ", ".join(missing)) if missing else None
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*\*?)(=\S*)?$", s)
    if m:
        return "identifier", None if word_exists(m.group(1)) else "not in the sources"
    if FILENAME.match(s):
        return "file name", None if s in corpus else "named in no source file"
    if s.startswith("(") and s.endswith(")") and " " in s:
        return "node name", None if s in corpus else "not in the sources"
    return None, None

text = open(doc).read()
text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # code blocks are examples
spans = re.findall(r"`([^`\n]+)`", text)
counts, bad = {}, []
for span in dict.fromkeys(spans):
    kind, problem = check(span)
    if kind:
        counts[kind] = counts.get(kind, 0) + 1
    if problem:
        bad.append((span, problem))
for span, problem in bad:
    print("not ok - architecture doc: `%s` (%s): %s" % (span, doc, problem))
if not bad:
    what = ", ".join("%d %ss" % (n, k) for k, n in sorted(counts.items()))
    print("ok - architecture doc: every name and path %s gives in backticks exists (%s%s)" %
          (doc, what, "" if built else "; not built: the generated names and build/ paths unchecked"))
PY
