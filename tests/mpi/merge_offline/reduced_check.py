"""reduced_check.py REDUCED.json REDUCED.cubex ALL.json COUNTS: hprof-merge
--locations reduced's profile of a killed job's partial profiles
(merge_offline.sh) against the same inputs merged with --locations all,
reduced by hand, and against the program's own counts of MPI_Pack
(COUNTS: "rank count" a line). Prints what is wrong, nothing if all is
right."""
import json
import math
import struct
import sys
import tarfile
import zlib

red, all_ = json.load(open(sys.argv[1])), json.load(open(sys.argv[3]))
counts = {}
for line in open(sys.argv[4]):
    r, n = line.split()
    counts[int(r)] = int(n)
bad = []
ranks = sorted({q["rank"] for q in all_["processes"]})
names = [q["name"] for q in sorted(red["processes"], key=lambda q: q["index"])]
if names[:4] != ["sum of %d ranks" % len(ranks), "min", "max", "rank %d" % ranks[0]] or len(names) != 6 \
        or not names[4].endswith(": least time") or not names[5].endswith(": most time"):
    bad.append("processes %r" % names)
if red["attributes"].get("hprof::locations") != "reduced":
    bad.append("hprof::locations = %r" % red["attributes"].get("hprof::locations"))
if "hprof::locations" in all_["attributes"]:
    bad.append("--locations all's file says hprof::locations")

with tarfile.open(sys.argv[2]) as t:
    raw = zlib.decompress(t.extractfile("hprof.locations.z").read())
magic, version, nmetrics, nrows, nranks = struct.unpack_from("<8sIIIQ", raw)
if (magic, version, nranks) != (b"HPROFLOC", 1, len(ranks)) or len(raw) != 28 + 8 * nmetrics * nrows:
    bad.append("member head %r, %d bytes" % ((magic, version, nmetrics, nrows, nranks), len(raw)))
red_metric = {m["name"]: m["index"] for m in red["metrics"]}


def member(metric, cnode):
    return struct.unpack_from("<ii", raw, 28 + 8 * (red_metric[metric] * nrows + cnode))


def key_rank(name):
    return int(name.split(":")[0].split()[1])


# --locations all's rows reduced by hand: a rank's threads summed (their
# min or max, 0 = not visited, for a MINDOUBLE or MAXDOUBLE metric), then
# sum, min, max over the ranks, ties to the lower rank, and the key ranks.
proc_of = [loc["rank"] for loc in sorted(all_["locations"], key=lambda l: l["index"])]
dtype = {m["name"]: m["dtype"] for m in all_["metrics"]}
time_of = {r: 0.0 for r in ranks}
for c in all_["call_tree"]:
    for l, v in enumerate(c["exclusive"].get("time", [])):
        time_of[proc_of[l]] += v
least = min(ranks, key=lambda r: (time_of[r], r))
most = min(ranks, key=lambda r: (-time_of[r], r))
keys = [ranks[0], least, most]
if (key_rank(names[4]), key_rank(names[5])) != (least, most):
    bad.append("key ranks %r, --locations all's times say %d and %d" % (names[4:], least, most))


def per_rank(metric, vals):
    kind = {"MINDOUBLE": min, "MAXDOUBLE": max}.get(dtype[metric])
    out = {}
    for r in ranks:
        xs = [v for l, v in enumerate(vals) if proc_of[l] == r]
        if kind is None:
            out[r] = sum(xs)
        else:
            xs = [x for x in xs if x != 0]
            out[r] = kind(xs) if xs else None
    return out


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


red_tree = {c["id"]: c for c in red["call_tree"]}
checked = 0
for c in all_["call_tree"]:
    rc = red_tree.get(c["id"])
    if rc is None or rc["name"] != c["name"]:
        bad.append("call path %d (%s) not in the reduced file" % (c["id"], c["name"]))
        continue
    for metric in dtype:
        v = per_rank(metric, c["exclusive"].get(metric, [0] * len(proc_of)))
        held = {r: x for r, x in v.items() if x is not None}
        if held:
            lo = min(held, key=lambda r: (held[r], r))
            hi = min(held, key=lambda r: (-held[r], r))
            mn, mx = held[lo], held[hi]
            total = {"MINDOUBLE": mn, "MAXDOUBLE": mx}.get(dtype[metric], sum(held.values()))
        else:
            lo = hi = -1
            mn = mx = total = 0
        want = [total, mn, mx] + [v[k] or 0 for k in keys]
        got = rc["exclusive"].get(metric, [0] * 6)
        if not all(close(a, b) for a, b in zip(got, want)):
            bad.append("%s %s: %r, --locations all's rows say %r" % (c["name"], metric, got, want))
        if member(metric, c["id"]) != (lo, hi):
            bad.append("%s %s: min and max at ranks %r, want %r" % (c["name"], metric, member(metric, c["id"]),
                                                                    (lo, hi)))
        checked += 1

# The program's own counts: each rank's calls of MPI_Pack up to the signal.
pack = [c for c in red["call_tree"] if c["name"] == "MPI_Pack"]
if len(pack) != 1:
    bad.append("%d call paths of MPI_Pack" % len(pack))
else:
    lo = min(counts, key=lambda r: (counts[r], r))
    hi = min(counts, key=lambda r: (-counts[r], r))
    want = [sum(counts.values()), counts[lo], counts[hi]] + [counts[k] for k in keys]
    got = pack[0]["exclusive"].get("visits")
    if got != want:
        bad.append("MPI_Pack visits %r, the program's counts say %r" % (got, want))
    if pack[0].get("min_max_ranks", {}).get("visits") != [lo, hi]:
        bad.append("MPI_Pack: hprof-view --json's min_max_ranks of visits %r, want %r"
                   % (pack[0].get("min_max_ranks", {}).get("visits"), [lo, hi]))
if checked == 0:
    bad.append("no value compared")
print("; ".join(bad[:3]) + (" (%d in all)" % len(bad) if len(bad) > 3 else ""))
