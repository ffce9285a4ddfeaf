#!/bin/bash
# hprof-view's exports: --json (parses, documented fields, exact values,
# and the Score-P samples' reference values), --folded (format, sums),
# --csv unchanged in form. Profiles from cube_tools/view_profiles.c.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
S=${CUBE_SAMPLES:-$ROOT/tests/common/data/scorep-samples}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

if [ ! -x "$VIEW" ]; then notok "export: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
GEN=$W/view_profiles
if ! build_cube_tool view_profiles.c "$GEN" 2> "$W/cc.err"; then
    notok "export: profile generator builds" "$(head -c 400 "$W/cc.err")"; exit 1
fi
D=$W/drops.cubex T=$W/threads.cubex
"$GEN" drops "$D" && "$GEN" threads "$T" || { notok "export: profiles written" "generator failed"; exit 1; }
cd "$W" || exit 1

# ---- JSON ---------------------------------------------------------------------------
"$VIEW" --json "$D" > d.json 2> err.txt; rc=$?
if [ $rc -eq 0 ] && python3 -m json.tool d.json > /dev/null 2>> err.txt; then ok "json: parses with python3 -m json.tool"
else notok "json: parse" "exit $rc: $(head -c 300 err.txt)"; fi
out=$(python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s: got %r, want %r" % (what, got, exp))
want("schema", d["schema"], "hprof-view/1")
want("command attribute", d["attributes"]["hprof::command"], "./drops --grid 64")
names = [m["name"] for m in d["metrics"]]
want("metrics", names[:3], ["time", "mpi_time", "comp_time"])
want("metric parent", d["metrics"][1]["parent"], 0)
want("aggregation of min_time", d["metrics"][names.index("min_time")]["aggregation"], "min")
want("ranks", [l["rank"] for l in d["locations"]], list(range(8)))
want("nodes", sorted({p["node"] for p in d["processes"]}), ["node-a", "node-b"])
want("total time", d["totals"]["time"], 73)
by = {}
for n in d["call_tree"]:
    path, p = [n["name"]], n["parent"]
    while p is not None:
        path.insert(0, d["call_tree"][p]["name"]); p = d["call_tree"][p]["parent"]
    by[";".join(path)] = n
ar = by["main;solve(Grid&);MPI_Allreduce"]
want("MPI_Allreduce exclusive time per location", ar["exclusive"]["time"], [0.5] + [6.5] * 7)
want("MPI_Allreduce visits", ar["exclusive"]["visits"], [100] * 8)
want("MPI_Allreduce call site", (ar["file"], ar["line"]), ("solve.cc", 42))
want("MPI_Allreduce region is MPI", d["regions"][ar["region"]]["mpi"], True)
want("main inclusive time", by["main"]["inclusive"]["time"], [9.0625] * 8)
want("write (not folded in JSON)", by["main;output;std::endl;std::ostream::flush();write"]["exclusive"]["time"], [5.5] + [0] * 7)
want("zero metrics left out", "bytes_sent" in by["main"]["exclusive"], False)
want("module", d["regions"][by["main;output;std::endl"]["region"]]["module"], "/usr/lib/x86_64-linux-gnu/libstdc++.so.6")
print("; ".join(bad) if bad else "all values as written")
sys.exit(1 if bad else 0)
PY
) && ok "json: holds the right numbers ($out)" || notok "json: values" "$out"

"$VIEW" --json "$T" > t.json
out=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
locs = [(l["rank"], l["thread"]) for l in d["locations"]]
work = [n for n in d["call_tree"] if n["name"] == "work"][0]
ok = locs == [(0, 0), (0, 1), (1, 0), (1, 1)] and work["exclusive"]["time"] == [0.5, 1.0, 1.5, 2.0]
print(locs, work["exclusive"]["time"]); sys.exit(0 if ok else 1)' t.json) \
    && ok "json: thread locations ($out)" || notok "json: threads" "$out"
"$VIEW" --json --metric visits "$D" | python3 -c '
import json, sys; d = json.load(sys.stdin); sys.exit(0 if d["values_of"] == ["visits"] else 1)' \
    && ok "json: --metric restricts values" || notok "json: --metric" "other metrics"

# JSON of the Score-P samples against their reference values
for s in call_tree_test/call_tree_test.cubex time.p4.n2000.x1.r0/profile.cubex; do
    dir=$S/$(dirname "$s")
    [ -f "$dir/incl.csv" ] || continue
    "$VIEW" --json "$S/$s" > s.json 2> err.txt || { notok "json: $s" "$(cat err.txt)"; continue; }
    out=$(python3 - s.json "$dir/incl.csv" "$dir/excl.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
byid = {n["id"]: n for n in d["call_tree"]}
bad, n = [], 0
for kind, path in (("inclusive", sys.argv[2]), ("exclusive", sys.argv[3])):
    rows = list(csv.reader(open(path)))
    head = [h.strip() for h in rows[0]]
    for r in rows[1:]:
        if not r:
            continue
        node, loc = byid[int(r[0])], int(r[1])
        for name, val in zip(head[2:], r[2:]):
            ref = float(val)
            got = node[kind].get(name, [0.0] * len(d["locations"]))[loc]
            got = 0.0 if got is None else float(got)
            n += 1
            if abs(ref - got) > 1e-5 * max(abs(ref), abs(got)) + 1e-9:
                bad.append("%s %s %s: %r vs %r" % (r[0], loc, name, ref, got))
print("%d values, %d mismatches%s" % (n, len(bad), (": " + bad[0]) if bad else ""))
sys.exit(1 if bad else 0)
PY
) && ok "json: $s matches incl.csv/excl.csv ($out)" || notok "json: $s reference" "$out"
done

# ---- folded ---------------------------------------------------------------------------
"$VIEW" --folded "$D" > d.folded
if grep -Evq '^[^ ;][^;]*(;[^;]+)* [0-9]+$' d.folded; then
    notok "folded: every line 'a;b;c COUNT'" "$(grep -Evm1 '^[^ ;][^;]*(;[^;]+)* [0-9]+$' d.folded)"
else ok "folded: every line 'a;b;c COUNT' ($(wc -l < d.folded) lines)"; fi
sum=$(awk '{ s += $NF } END { printf "%d", s }' d.folded)
[ "$sum" = 73000000 ] && ok "folded: lines sum to the total (73 s = $sum us)" || notok "folded: sum" "$sum, want 73000000"
for l in 'main;solve(Grid&);MPI_Allreduce 46000000' 'main;output;std::endl 6000000' 'main 2000000' '(not unwound);MPI_Comm_rank 500000'; do
    grep -qxF "$l" d.folded || { notok "folded: line '$l'" "missing: $(tr '\n' '|' < d.folded)"; continue; }
    ok "folded: line '$l'"
done
"$VIEW" --folded --no-hide --rank 0 "$D" > r0.folded
sum=$(awk '{ s += $NF } END { printf "%d", s }' r0.folded)
grep -qxF 'main;output;std::endl;std::ostream::flush();write 5500000' r0.folded && [ "$sum" = 9125000 ] \
    && ok "folded: --no-hide --rank 0 (sum $sum)" || notok "folded: --rank 0" "sum $sum: $(tr '\n' '|' < r0.folded)"
"$VIEW" --folded --metric bytes_sent "$D" > b.folded
[ "$(cat b.folded | tr '\n' '|')" = "main;solve(Grid&);MPI_Allreduce 6400|main;solve(Grid&);MPI_Send 327680|" ] \
    && ok "folded: --metric bytes_sent" || notok "folded: bytes" "$(tr '\n' '|' < b.folded)"
"$VIEW" --folded --focus MPI_Send "$D" > f.folded
[ "$(cat f.folded)" = "main;solve(Grid&);MPI_Send 500000" ] && ok "folded: --focus" || notok "folded: --focus" "$(cat f.folded)"
# names with ';' stay one frame
"$VIEW" --folded "$S/time.p4.n2000.x1.r0/profile.cubex" > s.folded &&
    awk '{ s += $NF } END { exit !(s > 3.3e6 && s < 3.5e6) }' s.folded \
    && ok "folded: Score-P sample sums to its total time" || notok "folded: sample" "$(tail -n 2 s.folded)"

# ---- CSV: the contract is unchanged ----------------------------------------------------------
"$VIEW" --csv "$D" > d.csv
head=$(head -n 1 d.csv)
row=$(grep -F 'main;solve(Grid&);MPI_Allreduce,0,0,time,' d.csv)
if [ "$head" = "path,rank,thread,metric,exclusive,inclusive" ] && [ "$row" = "main;solve(Grid&);MPI_Allreduce,0,0,time,0.5,0.5" ]; then
    ok "csv: header and rows as before"
else notok "csv: form" "$head / $row"; fi

# ---- Hatchet: another tool's profile, without a "time" metric -----------------------------
# hprof_hatchet.read makes its first metric the tree's default (Hatchet's
# is "time", which gf.tree() would fail on). Hatchet is an optional client
# (../shared/clients/hatchet beside the checkout, or TEST_HATCHET).
HATCHET=${TEST_HATCHET:-$ROOT/../shared/clients/hatchet}
if ! PYTHONPATH=$HATCHET /usr/bin/python3 -c 'import hatchet' 2>/dev/null; then
    ok "hatchet: a profile without time # skip: no Hatchet at $HATCHET (or its Debian packages)"
else
    "$VIEW" --hatchet "$S/test_only_files/cube-values_example.cubex" > v.hatchet.json 2> /dev/null
    out=$(cd /tmp && PYTHONPATH=$HATCHET:$ROOT/tools/python /usr/bin/python3 -c '
import sys, hprof_hatchet
gf = hprof_hatchet.read(sys.argv[1])
tree = gf.tree()
print("default %s, %d records" % (gf.default_metric, len(gf.dataframe)))
sys.exit(0 if "main" in tree and "foo" in tree else 1)' "$W/v.hatchet.json" 2>&1) &&
        ok "hatchet: Score-P test file without time: gf.tree() prints ($out)" ||
        notok "hatchet: a profile without time" "$(tail -n 1 <<<"$out")"
fi
exit 0
