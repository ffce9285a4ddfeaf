"""reduced_check.py JSON PROFILE P K: a profile of progs/reduce.c written
with HPROF_LOCATIONS=reduced (merge_reduced.sh) against the program's own
counts, each real rank r standing for ranks r*K..r*K+K-1: the processes'
names, the visits of sum, min, max and key ranks, and the ranks of min and
max in the hprof.locations.z member. Prints what is wrong, nothing if all
is right."""
import json
import struct
import sys
import tarfile
import zlib

d = json.load(open(sys.argv[1]))
prof, p, k = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
n = p * k
bad = []
names = [q["name"] for q in sorted(d["processes"], key=lambda q: q["index"])]
if names[:4] != ["sum of %d ranks" % n, "min", "max", "rank 0"] or len(names) != 6 \
        or not names[4].endswith(": least time") or not names[5].endswith(": most time"):
    bad.append("processes %r" % names)
if d["attributes"].get("hprof::locations") != "reduced":
    bad.append("hprof::locations = %r" % d["attributes"].get("hprof::locations"))
nodes = {c["id"]: c for c in d["call_tree"]}


def path(c):
    parts = []
    while c is not None:
        parts.append(c["name"])
        c = nodes.get(c["parent"]) if c["parent"] is not None else None
    return ";".join(reversed(parts[:-1]))  # without the program's root


by_path = {path(c): c for c in d["call_tree"]}
metric = [m["name"] for m in d["metrics"]].index("visits")
with tarfile.open(prof) as t:
    raw = zlib.decompress(t.extractfile("hprof.locations.z").read())
magic, version, nmetrics, nrows, nranks = struct.unpack_from("<8sIIIQ", raw)
if (magic, version, nranks) != (b"HPROFLOC", 1, n) or len(raw) != 28 + 8 * nmetrics * nrows:
    bad.append("member head %r, %d bytes" % ((magic, version, nmetrics, nrows, nranks), len(raw)))


def at(cnode):
    return struct.unpack_from("<ii", raw, 28 + 8 * (metric * nrows + cnode))


def key_rank(name):
    return int(name.split(":")[0].split()[1])


# rank r calls per_rank r+1 times; only rank 1 calls only_one, twice.
# Visits are counts: the same at each of a real rank's K ranks, and a tie
# goes to the lowest rank.
least, most = key_rank(names[4]), key_rank(names[5])
want = {
    "main;per_rank;to_nobody;MPI_Sendrecv":
        ([k * p * (p + 1) // 2, 1, p, 1, least // k + 1, most // k + 1], (0, (p - 1) * k)),
    "main;only_one;to_nobody;MPI_Sendrecv": ([2 * k, 0, 2, 0, 2 if least // k == 1 else 0,
                                              2 if most // k == 1 else 0], (0, k)),
}
for pth, (vals, ranks) in want.items():
    c = by_path.get(pth)
    if c is None:
        bad.append("no call path %s" % pth)
        continue
    got = c["exclusive"].get("visits", [0] * 6)
    if got != vals:
        bad.append("%s visits %r, want %r" % (pth, got, vals))
    if at(c["id"]) != ranks:
        bad.append("%s visits: min and max at ranks %r, want %r" % (pth, at(c["id"]), ranks))
    shown = c.get("min_max_ranks", {}).get("visits")
    if shown != list(ranks):
        bad.append("%s: hprof-view --json's min_max_ranks of visits %r, want %r" % (pth, shown, list(ranks)))
# times: min <= each key rank <= max, the sum at least the max
for pth in want:
    c = by_path.get(pth)
    t = c["exclusive"].get("time", [0] * 6) if c else [0] * 6
    if not (t[1] <= min(t[3:]) and max(t[3:]) <= t[2] <= t[0]):
        bad.append("%s time %r: min, keys, max, sum out of order" % (pth, t))
print("; ".join(bad[:3]) + (" (%d in all)" % len(bad) if len(bad) > 3 else ""))
