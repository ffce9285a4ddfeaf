#!/usr/bin/env python3
"""check_stripped.py NAME REF.csv REF.nm OTHER.csv MODULE [--names] [--json OTHER.json]

Compares the call paths of a program profiled unstripped (REF) with those of
a stripped (or otherwise symbol-poor) copy of it (OTHER). Both are the same
code at the same addresses, so a region of OTHER named MODULE+0xSTART must be
the function that REF.nm (nm output of the unstripped file) has at START.
Every path element becomes an address (functions) or stays a name (MPI and
artificial regions); the two profiles must then have the same call paths
with the same visits, and the same number of regions. A root named after
the program (a measurement root above main) is ignored. Paths must start at
main (no start-up frames), and with --json main must have no call site
(its caller, in libc, is left out). With --names, OTHER
must name every function as REF does (its symbols came back from a debug
file or MiniDebugInfo). Prints ok / not ok lines."""
import csv, json, re, sys

name, ref_csv, ref_nm, other_csv, module = sys.argv[1:6]
want_names = "--names" in sys.argv[6:]
fails = []

addr_of = {}
for line in open(ref_nm):
    parts = line.rstrip("\n").split(" ", 2)
    if len(parts) == 3 and parts[1] in "TtWw":
        addr_of.setdefault(parts[2], int(parts[0], 16))
unknown = re.compile(re.escape(module) + r"\+0x([0-9a-f]+)$")

def canon(elem, stripped):
    m = unknown.match(elem) if stripped else None
    if m:
        return ("fn", int(m.group(1), 16))
    if elem.startswith("MPI_") or elem.startswith("("):
        return ("name", elem)
    if elem in addr_of:
        return ("fn", addr_of[elem])
    return ("unknown", elem)

def load(path, stripped):
    rows, raw = {}, set()
    for row in list(csv.reader(open(path)))[1:]:
        p, rank, thread, metric, excl = row[0], row[1], row[2], row[3], row[4]
        elems = p.split(";")
        if len(elems) > 1 and not elems[0].startswith(("main", "MPI_", "(")) and "+0x" not in elems[0] \
                and elems[0] not in addr_of:
            elems = elems[1:]           # the program's measurement root
        raw.update(elems)
        if metric == "visits":
            key = tuple(canon(e, stripped) for e in elems)
            rows[(key, rank, thread)] = rows.get((key, rank, thread), 0) + float(excl)
    return rows, raw

ref, ref_names = load(ref_csv, False)
other, other_names = load(other_csv, True)
bad = sorted(e for e in ref_names if canon(e, False)[0] == "unknown")
if bad:
    fails.append("unstripped regions not in nm: " + ", ".join(bad[:4]))
bad = sorted(e for e in other_names if canon(e, not want_names)[0] == "unknown")
if bad:
    fails.append("regions not a function start of the program: " + ", ".join(bad[:4]))
if {k for k, _, _ in ref} != {k for k, _, _ in other}:
    only_ref = sorted({k for k, _, _ in ref} - {k for k, _, _ in other})
    only_other = sorted({k for k, _, _ in other} - {k for k, _, _ in ref})
    fails.append("call paths differ: only unstripped %s; only stripped %s" % (only_ref[:2], only_other[:2]))
elif ref != other:
    diff = [k for k in ref if ref[k] != other.get(k)]
    fails.append("visits differ at %s" % (diff[:2],))
if len(ref_names) != len(other_names):
    fails.append("%d regions unstripped, %d stripped" % (len(ref_names), len(other_names)))
main = ("fn", addr_of.get("main"))
starts = {k[0] for k, _, _ in other if k and k[0][0] == "fn"}
if starts - {main}:
    fails.append("paths start at %s, not at main" % sorted(starts - {main})[:3])
if "--json" in sys.argv:
    tree = json.load(open(sys.argv[sys.argv.index("--json") + 1]))["call_tree"]
    for node in tree:
        if canon(node["name"], not want_names) == main and node.get("line") is not None:
            fails.append("main has the call site %s:%s" % (node.get("file"), node.get("line")))
            break
if fails:
    print("not ok - %s: %s" % (name, "; ".join(fails)))
else:
    print("ok - %s (%d call paths, %d regions)" % (name, len({k for k, _, _ in ref}), len(ref_names)))
