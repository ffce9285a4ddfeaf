#!/usr/bin/env python3
"""Checks a profile of functions measured exactly against what the program
saw itself (tests/mpi/exact_*.sh).

    check_exact.py NAME PROFILE.csv PROFILE.json NP EXPECT_PREFIX [--sampled REGION ...]

PROFILE.csv is hprof-view --csv (path,rank,thread,metric,exclusive,inclusive),
PROFILE.json hprof-view --json (for its attributes). EXPECT_PREFIX.RANK holds
the program's lines:

  visits REGION N      calls of REGION on that rank: the visits of REGION's
                       call paths add up to N
  notvisits REGION N   REGION is not measured: no visits on its paths
  range REGION LO HI   the visits of REGION's paths lie in [LO, HI]
  wrong N              the program found N wrong results: 0 expected
  time REGION S [L]    seconds in REGION's outermost calls as the program
                       timed them, L of them in calls its thread was
                       switched out in: REGION's exact time is S, less than
                       the clock reads around its calls (2 ms + 2%) and at
                       most L less (tests/mpi/exact/timed_call.h)
  since REGION S       REGION was patched in no earlier than S seconds into
                       the run: its attribute says so (10 ms spared)
  bound REGION S       seconds of a loop around REGION's calls, and
  outside REGION O     O of them computed after a longjmp left REGION: its
                       exact time is at most S - O (2 ms + 2%), none of O

and for every path: exclusive exact_time >= 0; for every REGION measured:
an attribute hprof::exact::N names it, on NP ranks. --sampled REGION: the
samples of REGION's outermost paths are more than 0 on every rank.

REGION's exact time adds the exclusive exact_time of its paths and the
inclusive one of their children in other regions (so a recursion's levels,
some under (unwind failed) beyond 512 frames, add up to its outermost call).
Prints ok / not ok lines.
"""
import csv
import json
import re
import sys
from collections import defaultdict

name, csv_path, json_path, np_, prefix = sys.argv[1:6]
np_ = int(np_)
rest = sys.argv[6:]
sampled = [rest[i + 1] for i in range(len(rest) - 1) if rest[i] == "--sampled"]
failures = []


def fail(msg):
    failures.append(msg)


# (path, rank) -> metric -> (excl, incl), summed over threads
val = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
with open(csv_path) as f:
    for row in csv.DictReader(f):
        v = val[(row["path"], int(row["rank"]))][row["metric"]]
        v[0] += float(row["exclusive"])
        v[1] += float(row["inclusive"])


def plain(name):
    """A function's name without its parameter list, gfortran's name_ and
    __module_MOD_name as name."""
    name = name.split("(")[0]
    m = re.match(r"__\w+?_MOD_(\w+)$", name)
    if m:
        return m.group(1)
    return name[:-1] if re.match(r"[a-z]\w*_$", name) else name


def region(path):
    """The function of a path's last frame, as plain() names it."""
    return plain(path.split(";")[-1].split(" (")[0])


def paths_of(reg, rank):
    return [p for (p, r) in val if r == rank and region(p) == reg]


def metric(path, rank, m, incl=False):
    return val[(path, rank)][m][1 if incl else 0] if (path, rank) in val else 0.0


def exact_total(reg, rank):
    total = 0.0
    for p in paths_of(reg, rank):
        total += metric(p, rank, "exact_time")
        for (q, r) in val:
            if r == rank and q.startswith(p + ";") and q.count(";") == p.count(";") + 1 and region(q) != reg:
                total += metric(q, rank, "exact_time", incl=True)
    return total


def outermost(reg, rank):
    ps = paths_of(reg, rank)
    return [p for p in ps if not any(p.startswith(q + ";") for q in ps)]


expect = {}
for r in range(np_):
    try:
        expect[r] = [line.split() for line in open("%s.%d" % (prefix, r)) if line.strip()]
    except OSError as e:
        fail("rank %d wrote no expectations (%s)" % (r, e))
        expect[r] = []

measured = set()
since_min = {}
for r, lines in expect.items():
    seen = {}
    for e in lines:
        kind, reg = e[0], (plain(e[1]) if len(e) > 1 and e[0] != "wrong" else "")
        if kind == "visits":
            measured.add(reg)
            got = sum(metric(p, r, "visits") for p in paths_of(reg, r))
            if round(got) != int(e[2]):
                fail("rank %d: %s has %d visits, the program counted %s" % (r, reg, round(got), e[2]))
        elif kind == "notvisits":
            got = sum(metric(p, r, "visits") for p in paths_of(reg, r))
            if got:
                fail("rank %d: %s is not selected but has %d visits" % (r, reg, got))
        elif kind == "time":
            seen[reg] = float(e[2])
            got = exact_total(reg, r)
            s = float(e[2])
            slack = float(e[3]) if len(e) > 3 else 0.0
            if not ((s - slack) * 0.98 - 0.002 <= got <= s + 0.002):
                fail("rank %d: %s's exact time %.6f s, the program timed %.6f s (%.6f s of it in calls the thread "
                     "was switched out in)" % (r, reg, got, s, slack))
        elif kind == "range":
            measured.add(reg)
            got = round(sum(metric(p, r, "visits") for p in paths_of(reg, r)))
            if not int(e[2]) <= got <= int(e[3]):
                fail("rank %d: %s has %d visits, not in [%s, %s] as the program counted" % (r, reg, got, e[2], e[3]))
        elif kind == "wrong":
            if int(e[1]) != 0:
                fail("rank %d: %s results were wrong" % (r, e[1]))
        elif kind == "bound":
            seen[reg] = float(e[2])
        elif kind == "since":
            since_min[reg] = max(since_min.get(reg, 0.0), float(e[2]))
        elif kind == "outside":
            got = exact_total(reg, r)
            limit = seen.get(reg, 0) - float(e[2])
            if got > limit * 1.02 + 0.002:
                fail("rank %d: %s's exact time %.6f s takes in time spent after the longjmp left it "
                     "(at most %.6f s)" % (r, reg, got, limit))
    for (p, rr), ms in val.items():
        if rr == r and "exact_time" in ms and ms["exact_time"][0] < -1e-9:
            fail("rank %d: %s has exclusive exact_time %g < 0" % (r, p, ms["exact_time"][0]))
    for reg in sampled:
        got = sum(metric(p, r, "samples", incl=True) for p in outermost(reg, r))
        if got <= 0:
            fail("rank %d: no sample under %s" % (r, reg))

try:
    attrs = json.load(open(json_path)).get("attributes", {})
except (OSError, ValueError) as e:
    attrs = {}
    fail("unreadable JSON: %s" % e)
named, since = {}, {}
for k, v in attrs.items():
    if k.startswith("hprof::exact::"):
        m = re.match(r"(\d+) (\S+) (\S+) (\S+) (\S+) (.*)$", v)
        if m:
            named[plain(m.group(6))] = int(m.group(1))
            since[plain(m.group(6))] = float(m.group(2))
for reg, s in since_min.items():
    if not since.get(reg, -1) >= s - 0.01:
        fail("%s's attribute says it was patched in at %s s, but it could not be before %.3f s" % (reg, since.get(reg), s))
for reg in sorted(measured):
    if named.get(reg) != np_:
        fail("no hprof::exact attribute says %s was measured on %d ranks (%s)" % (reg, np_, named.get(reg)))

if failures:
    print("not ok - %s: %s" % (name, "; ".join(failures)[:900]))
    sys.exit(1)
print("ok - %s" % name)
