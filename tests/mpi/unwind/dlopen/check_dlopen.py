#!/usr/bin/env python3
"""Call paths through code loaded with dlopen (tests/mpi/unwind_dlopen.sh).

usage: check_dlopen.py PROFILE.json NAME EXPECT NP
EXPECT: ';'-separated paths from main to the MPI call, each frame
`name` or `name@module-basename`, then '=' and the visits a rank, joined
with ' | '. Every MPI_Allreduce path of the profile must be one of them
(matched from `main` on, whatever root lies above it), with exactly those
visits on every rank, and no frame may be named module+offset.
"""
import json
import sys

prof, name, expect, np = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
want = {}
for item in expect.split(" | "):
    path, visits = item.rsplit("=", 1)
    want[path] = int(visits)
d = json.load(open(prof))
regions = {r["index"]: r for r in d["regions"]}
nodes = {n["index"]: n for n in d["call_tree"]}


def frame(n):
    r = regions[n["region"]]
    # the viewer shows the module as the file of a region without source lines
    mod = (r.get("module") or r.get("file") or "").rsplit("/", 1)[-1]
    return r["name"], mod


def path_of(n):
    frames = []
    while n is not None:
        frames.append(frame(n))
        n = nodes.get(n["parent"]) if n["parent"] is not None else None
    frames.reverse()
    names = [f[0] for f in frames]
    if "main" in names:
        frames = frames[len(names) - 1 - names[::-1].index("main"):]
    return frames


def matches(frames, spec):
    parts = spec.split(";")
    if len(parts) != len(frames):
        return False
    for p, (n, mod) in zip(parts, frames):
        pname, _, pmod = p.partition("@")
        if pname != n or (pmod and pmod != mod):
            return False
    return True


got, problems = {}, []
for n in d["call_tree"]:
    name_, mod = frame(n)
    if "+0x" in name_:
        problems.append("frame named %s" % name_)
    if name_ != "MPI_Allreduce":
        continue
    frames = path_of(n)
    visits = n["exclusive"].get("visits", [0] * np)
    spec = next((s for s in want if matches(frames, s)), None)
    if spec is None:
        problems.append("unexpected path %s (visits %s)" % (";".join(f[0] + "@" + f[1] for f in frames), visits))
        continue
    got[spec] = [a + b for a, b in zip(got.get(spec, [0] * np), visits)]
for spec, v in want.items():
    if got.get(spec) != [v] * np:
        problems.append("%s: visits %s, want %d a rank" % (spec, got.get(spec), v))
print(("ok" if not problems else "not ok") + " - %s: %d MPI call paths through the loaded code, exact%s"
      % (name, len(want), "" if not problems else ": " + "; ".join(problems[:4])))
sys.exit(0 if not problems else 1)
