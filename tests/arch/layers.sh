#!/bin/bash
# Layers (issue 18, issue 28): hprof is a house of floors, one folder each,
# from low to high:
#   1 core         core/ (tree, clock, config, log, time line, path log,
#                  hash map, id set, the selection language) and the
#                  generated function table (gen/fn_table.c, gen/fn_ids.h)
#   2 unwind       unwind/ and unwind/python/: call-path capture
#   3 cube         report/cube/writer/ and report/cube/reader/: the CUBE4 format
#   4 profile      report/profile/ (one rank's profile) and the generated
#                  gen/remapping_spec.c
#   5 merge        report/merge/: the ranks' merge
#   6 lib          lib/ (the runtime; lib/exact/, lib/interpose/)
#   7 wrappers     wrappers/ and the generated wrappers (gen/wrappers_*.c)
#   -  view        tools/hprof-view/ (and its generated gen/view_html_template.c):
#                  may use report/cube/reader/ only
# A file depends on another when it includes it, or when it takes a symbol
# the other defines: in the objects of the build (build/<mpi>/obj and
# build/tools/obj after make all, read with nm), a symbol undefined in X
# and defined in Y is an arrow X -> Y. A .c file and its own .h (same path
# but for the suffix) are one file. Every arrow runs within a floor or
# downwards, and no files depend on each other, directly or around a
# circle (strongly connected components of the arrows). Nothing is exempt:
# each arrow upwards and each circle is one "not ok" line, with what makes
# it (the include, the symbols).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

objdirs=()
for d in build/openmpi/obj build/mpich/obj build/tools/obj; do [ -d "$d" ] && objdirs+=("$d"); done
if [ ${#objdirs[@]} -eq 0 ]; then
    notok "layers: the build's objects" "no build/<mpi>/obj: run make all first"
    exit 0
fi
gendir=""
for d in build/openmpi/gen build/mpich/gen; do [ -d "$d" ] && { gendir=$d; break; }; done

# "object-folder relative-object-path" per line, then nm -P -A of them all:
# the objects of today's sources (a moved or deleted file's stays behind in
# the build folder) and the generated ones
nm_lines() {
    local d o
    for d in "${objdirs[@]}"; do
        (cd "$d" && find . -name '*.o' | sed 's|^\./||' | sort | while read -r o; do
            case $o in gen/*) echo "$o" ;; *) [ -f "$ROOT/${o%.o}.c" ] && echo "$o" ;; esac
        done | xargs nm -P -A 2> /dev/null | sed "s|^|$d |")
    done
}

python3 - "$gendir" <(nm_lines) <<'PY'
import os, re, sys
from collections import defaultdict

gendir, nmfile = sys.argv[1], sys.argv[2]
FLOORS = ["core", "unwind", "cube", "profile", "merge", "lib", "wrappers", "view"]
RANK = {f: i for i, f in enumerate(FLOORS)}

def floor(path):
    for pre, f in (("gen/fn_table", "core"), ("gen/fn_ids", "core"), ("gen/remapping_spec", "profile"),
                   ("gen/view_", "view"), ("gen/", "wrappers"), ("core/", "core"), ("unwind/", "unwind"), ("report/cube/", "cube"),
                   ("report/profile/", "profile"), ("report/merge/", "merge"), ("lib/", "lib"),
                   ("wrappers/", "wrappers"), ("tools/hprof-view/", "view")):
        if path.startswith(pre):
            return f
    return None

def node(path):  # a .c and its own .h are one file
    return re.sub(r"\.[ch]$", "", path)

def allowed(a, b):
    fa, fb = floor(a), floor(b)
    if fa == "view":  # the viewer reads profiles with the CUBE reader only
        return fb == "view" or b.startswith("report/cube/reader/")
    return RANK[fb] <= RANK[fa]

arrows = defaultdict(set)  # (from, to) -> what makes it
def arrow(a, b, why):
    a, b = node(a), node(b)
    if a != b and floor(a) and floor(b):
        arrows[(a, b)].add(why)

# includes: "path/from/the/root.h", or a generated gen/ header
sources = []
for top in ("core", "unwind", "report", "lib", "wrappers", "tools/hprof-view"):
    for d, _, fs in os.walk(top):
        sources += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
if gendir:
    sources += ["gen/" + f for f in os.listdir(gendir) if f.endswith((".c", ".h"))]
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
nincludes = 0
for f in sorted(sources):
    real = os.path.join(gendir, f[4:]) if f.startswith("gen/") else f
    for inc in inc_re.findall(open(real, errors="replace").read()):
        if os.path.exists(inc) or (inc.startswith("gen/") and gendir and os.path.exists(os.path.join(gendir, inc[4:]))):
            nincludes += 1
            arrow(f, inc, "includes " + inc)

# symbols: per object folder, which object defines a name, which take it
defs = defaultdict(lambda: defaultdict(set))
uses = defaultdict(list)
for line in open(nmfile):
    parts = line.split()
    if len(parts) < 3:
        continue
    d, obj, name, t = parts[0], parts[1].rstrip(":"), parts[2], parts[3] if len(parts) > 3 else ""
    src = obj[:-2] + ".c"
    if t == "U":
        uses[d].append((src, name))
    elif t in ("T", "D", "B", "R", "V", "W", "C", "G", "S", "i", "u"):
        defs[d][name].add(src)
nsyms = set()
for d, us in uses.items():
    for src, name in us:
        for definer in defs[d].get(name, ()):
            if definer != src:
                nsyms.add((src, name))
                arrow(src, definer, name)

def says(whys):
    inc = sorted(w for w in whys if w.startswith("includes "))
    sym = sorted(w for w in whys if not w.startswith("includes "))
    out = inc[:2] + (["takes " + ", ".join(sym[:4]) + (" (+%d)" % (len(sym) - 4) if len(sym) > 4 else "")] if sym else [])
    return "; ".join(out)

bad = 0
up = sorted((a, b) for (a, b) in arrows if not allowed(a, b))
for a, b in up:
    print("not ok - layers: %s (%s) -> %s (%s) runs upwards: %s" % (a, floor(a), b, floor(b), says(arrows[(a, b)])))
    bad += 1
if not up:
    print("ok - layers: %d includes and %d symbols taken across files run within a floor or downwards "
          "(core < unwind < cube < profile < merge < lib < wrappers; hprof-view: the reader)" % (nincludes, len(nsyms)))

# circles: Tarjan's strongly connected components, iteratively
succ = defaultdict(set)
for a, b in arrows:
    succ[a].add(b)
index, low, on, stack, comps, n = {}, {}, set(), [], [], 0
for root in sorted(succ):
    if root in index:
        continue
    work = [(root, iter(sorted(succ[root])))]
    index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(succ[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))
for comp in sorted(comps):
    inside = set(comp)
    why = ["%s -> %s: %s" % (a, b, says(arrows[(a, b)])) for a in comp for b in sorted(succ[a] & inside)]
    why = "; ".join(why)
    if len(why) > 1500:
        why = why[:1500] + " ..."
    print("not ok - layers: circle of %d files: %s (%s)" % (len(comp), " <-> ".join(comp), why))
    bad += 1
if not comps:
    print("ok - layers: no files depend on each other, directly or around a circle (%d files)" % len(
        {x for e in arrows for x in e}))
PY
