#!/bin/bash
# python_codes: Python code objects named right however they come and go
# (issue 30, point 3), Debian's python3 with mpi4py (skipped with one line
# where mpi4py is not built for this MPI library).
#  - python/exec_reuse.py: 20,000 functions compiled, called once (a
#    Sendrecv of i+1 bytes from f_<i>) and dropped, each new code object at
#    its predecessor's address: every path named f_<i> carries i+1 bytes a
#    visit (with code objects known by address, 922-1,355 held another
#    function's call); the first 16,384 code objects met are named (it
#    stopped at ~5,400), the rest keep the interpreter's C frames, all
#    20,000 calls counted, and one line says the table is full.
#  - python/room.py: 1,100 functions with line tables over 16 KiB (code
#    objects made with code.replace from one): every one named (once the
#    room for copies filled they were lumped under '(python)'); call sites
#    at the Barrier's line (3) until the line tables' room is used up, then
#    at the function's first line, and one line says so.
. "$(dirname "$0")/progs/lib.sh"
require_built "python codes build"
use_hprof_run
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
require_mpi4py "python codes" $PY
MPI_TIMEOUT=${PY_CODES_TIMEOUT:-180}

run() { # NAME SCRIPT ARGS...: one rank, its profile as NAME/run.csv and run.json
    local name=$1 script=$2 rc cubes; shift 2
    mkdir -p "$name"
    (cd "$name" && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 1 $PY "$HERE/python/$script" "$@" \
        >run.out 2>run.err </dev/null); rc=$?
    cubes=$(cd "$name" && ls -A | grep '\.cubex$')
    if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ] || ! grep -q '^done ' "$name/run.out"; then
        notok "python codes $name run" "status $rc, profiles '$cubes'; stderr: $(tail -n 4 "$name/run.err" | tr '\n' ' ' | cut -c1-400)"
        return 1
    fi
    to_csv "$name/$cubes" "$name/run.csv" && timeout 60 "$TEST_VIEW" --json "$name/$cubes" >"$name/run.json" 2>/dev/null ||
        { notok "python codes $name views" "$(head -c 300 "$name/run.csv.err")"; return 1; }
}

# ---- exec in a loop: addresses reused
N=20000
if run reuse exec_reuse.py $N; then
    python3 - reuse/run.csv $N <<'PYEOF'
import csv, re, sys, collections
rows, n = list(csv.reader(open(sys.argv[1])))[1:], int(sys.argv[2])
vis, byt, cframes = collections.Counter(), collections.Counter(), 0
for p, rank, th, m, ex, inc in rows:
    if not p.endswith(";MPI_Sendrecv") or float(ex) == 0:
        continue
    f = re.search(r"(?:^|;)f_(\d+);", p)
    if not f:
        cframes += float(ex) if m == "visits" else 0
        continue
    i = int(f.group(1))
    if m == "visits": vis[i] += float(ex)
    if m == "bytes_sent": byt[i] += float(ex)
wrong = sorted((i, vis[i], byt[i]) for i in vis if byt[i] != vis[i] * (i + 1))
print(("ok - python codes: %d paths named f_<i>, each with f_<i>'s own bytes" % len(vis)) if not wrong else
      "not ok - python codes: %d of %d paths named f_<i> hold another function's call, e.g. %s"
      % (len(wrong), len(vis), ["f_%d: %d visits, %d bytes (its own: %d)" % (i, v, b, i + 1) for i, v, b in wrong[:3]]))
print(("ok - python codes: %d functions named before the table of 16,384 filled" % len(vis)) if len(vis) >= 16000 else
      "not ok - python codes: only %d functions named (the table holds 16,384)" % len(vis))
total = sum(vis.values()) + cframes
print(("ok - python codes: all %d calls counted (%d under the interpreter's C frames)" % (n, cframes)) if total == n else
      "not ok - python codes: %d calls counted, %d made" % (total, n))
PYEOF
    check "python codes: one line says the table is full" "$(grep -c 'table of code objects met is full' reuse/run.err) lines" \
        test "$(grep -c 'hprof: Python: the table of code objects met is full (16384)' reuse/run.err)" -eq 1
fi

# ---- line tables over 16 KiB: the room for their copies used up
N=1100 L=3300
if run room room.py $N $L; then
    python3 - room/run.csv room/run.json $N $L <<'PYEOF'
import csv, json, re, sys
csvf, jsonf, n, lines = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
named, lumped = set(), 0
for p, rank, th, m, ex, inc in list(csv.reader(open(csvf)))[1:]:
    if m != "visits" or float(ex) == 0 or not p.endswith(";MPI_Barrier"):
        continue
    g = re.match(r"<module>;g_(\d+);[^;]*;MPI_Barrier$", p)
    if g:
        named.add(int(g.group(1)))
    elif "(python)" in p:
        lumped += float(ex)
print(("ok - python codes: all %d functions named" % n) if len(named) == n and not lumped else
      "not ok - python codes: %d of %d functions named, %d calls under (python)" % (len(named), n, lumped))
tree = json.load(open(jsonf))["call_tree"]
ids = {t["id"]: t for t in tree}
site = {}
for t in tree:
    parent = ids.get(t["parent"]) if t["parent"] is not None else None
    if parent and re.fullmatch(r"g_\d+", parent["name"]) and t["name"] != "MPI_Barrier":
        site[int(parent["name"][2:])] = (t["file"], t["line"])
first, last = site.get(0), site.get(n - 1)
ok = first == ("<room>", 3) and last == ("<room>", 1)
print("ok - python codes: call sites at the Barrier's line, at the first line once line tables' room is used up" if ok else
      "not ok - python codes: call sites of g_0 and g_%d: %s, %s (want <room>:3, then <room>:1)" % (n - 1, first, last))
PYEOF
    check "python codes: one line says the line tables' room is used up" "$(grep -c 'line tables' room/run.err) lines" \
        test "$(grep -c "hprof: Python: the 16 MiB for copies of line tables are used up" room/run.err)" -eq 1
fi
finish
