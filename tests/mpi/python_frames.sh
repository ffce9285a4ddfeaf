#!/bin/bash
# python_frames: Python functions in call paths (issue 14, item 3). Under
# hprof-run, Debian's python3 (CPython 3.11) runs progs/pyframes_script.py,
# whose functions call MPI at known counts: the MPI call paths name the
# Python functions (nested, a method, a generator, recursion 21 deep, code
# compiled at run time and freed before MPI_Finalize), with
# mpi4py's own C frames kept and no interpreter frame left; exact visits per
# path, call sites at the script's lines, regions with the function's file
# and first line; samples of pure-Python loops land under the loop's
# function, on the main thread and on a threading.Thread. With
# HPROF_PYTHON=0 the paths keep the interpreter's C frames. On both MPI
# libraries, MPI through ctypes (progs/pyframes_ctypes.py): from Debian's
# python3 the path names the Python function; from another CPython (3.10
# or 3.12 from pyenv, skipped with one line where there is none) it keeps
# the C frames and HPROF_VERBOSE=1 says so. The mpi4py part is skipped with
# one line where mpi4py for this MPI library is not installed (Debian's is
# built for Open MPI).
. "$(dirname "$0")/progs/lib.sh"
require_built "python frames build"
use_hprof_run
PY=/usr/bin/python3 NP=2
OUTER=5 INNER=7 STEPS=11 ITEMS=13 DEPTH=20 SPIN=2000000
SCRIPT=$PROGS/pyframes_script.py

# ---- any MPI library: MPI through ctypes, from a Python function
case $TEST_MPI in openmpi) LIBMPI=libmpi.so.40 ;; *) LIBMPI=libmpich.so.12 ;; esac
ctypes_run() { # NAME PYTHON: one run in folder NAME, its profile as NAME/run.csv
    local name=$1 py=$2 cubes rc
    mkdir -p "$name"
    (cd "$name" && HPROF_VERBOSE=1 $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP "$py" \
        "$PROGS/pyframes_ctypes.py" $LIBMPI >run.out 2>run.err </dev/null); rc=$?
    cubes=$(cd "$name" && ls -A | grep '\.cubex$')
    if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ] || ! to_csv "$name/$cubes" "$name/run.csv"; then
        notok "python frames $name run" "status $rc, profiles '$cubes'; stderr: $(tail -n 6 "$name/run.err" | tr '\n' ' ' | cut -c1-400)"
        return 1
    fi
}
if [ -x $PY ] && ctypes_run ctypes311 $PY; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "MPI_Init from init_and_finalize" 'glob:<module>;init_and_finalize;?*;MPI_Init' \
        '*' visits == 1 > ctypes311/expect
    csv_check "python frames ($PY, ctypes)" ctypes311/run.csv ctypes311/expect $NP --ranks
fi
# another CPython: C frames, and one line that says so
OTHER=$(ls -d "$HOME"/.pyenv/versions/3.1[02]*/bin/python3.1[02] 2>/dev/null | head -n 1)
if [ -z "$OTHER" ]; then
    echo "ok - python frames, other versions # skip: no CPython 3.10 or 3.12 (pyenv) here"
elif ctypes_run other "$OTHER"; then
    v=$("$OTHER" -c 'import platform; print(platform.python_version())')
    check "python frames: Python $v says it keeps C frames" "$(grep -i python other/run.err | head -n 2 | tr '\n' ' ')" \
        grep -q "Python $v: call paths keep the interpreter's C frames" other/run.err
    check "python frames: Python $v's paths keep C frames" "$(grep MPI_Init, other/run.csv | head -n 2)" \
        bash -c "grep -q '^[^,]*_PyEval_EvalFrameDefault[^,]*;MPI_Init,' other/run.csv && ! grep -q init_and_finalize other/run.csv"
fi

# ---- mpi4py
require_mpi4py "python frames" $PY

run() { # NAME ARGS...: one run in folder NAME, its profile as NAME/run.csv and run.json
    local name=$1; shift
    mkdir -p "$name"
    (cd "$name" && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP $PY "$SCRIPT" "$@" \
        >run.out 2>run.err </dev/null); local rc=$?
    local cubes; cubes=$(cd "$name" && ls -A | grep '\.cubex$')
    if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ] || ! grep -q '^done ' "$name/run.out"; then
        notok "python frames $name run" "status $rc, profiles '$cubes'; stderr: $(tail -n 6 "$name/run.err" | tr '\n' ' ' | cut -c1-400)"
        return 1
    fi
    to_csv "$name/$cubes" "$name/run.csv" && timeout 60 "$TEST_VIEW" --json "$name/$cubes" >"$name/run.json" 2>/dev/null ||
        { notok "python frames $name views" "$(head -c 300 "$name/run.csv.err")"; return 1; }
}

# ---- Python functions named (sampling on, for the loops)
HPROF_SAMPLING_HZ=100 HPROF_VERBOSE=1 run named $OUTER $INNER $STEPS $ITEMS $DEPTH $SPIN || finish
check "python frames: the interpreter was recognised" "$(grep -i python named/run.err | head -n 3 | tr '\n' ' ')" \
    grep -q 'Python 3.11: call paths name Python functions' named/run.err
rec=$(printf 'recurse;%.0s' $(seq 0 $DEPTH))
E=named/expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
t "outer -> inner -> Allreduce" 'glob:<module>;main;outer;inner;?*;MPI_Allreduce' '*' visits == $((OUTER * INNER))
t "Stepper.step -> Barrier" 'glob:<module>;main;Stepper.step;?*;MPI_Barrier' '*' visits == $STEPS
t "main -> Barrier (step's and its own)" 'glob:<module>;main;*MPI_Barrier' '*' visits == $((STEPS + 1))
t "generator produce -> Bcast" 'glob:<module>;main;produce;?*;MPI_Bcast' '*' visits == $ITEMS
t "recurse x $((DEPTH + 1)) -> Allreduce" "glob:<module>;main;${rec}?*;MPI_Allreduce" '*' visits == 1
t "code freed before finalize: transient -> Allreduce" 'glob:<module>;main;make_and_drop;transient;?*;MPI_Allreduce' '*' visits == 3
t "Allreduce in all" 'glob:*MPI_Allreduce' '*' visits == $((OUTER * INNER + 1 + 3))
t "MPI_Init_thread at import" 'glob:<module>;*;MPI_Init_thread' '*' visits == 1
t "spin sampled" '<module>;main;spin' '*' samples '>=' 1
t "worker_spin sampled on its thread" 'glob:Thread._bootstrap;*;worker_spin' '*' samples '>=' 1
csv_check "python frames" named/run.csv $E $NP --ranks --no-failed

# No interpreter frame on any MPI call path; call sites and regions from
# the script (lines marked '# @name'); samples in the evaluation loop's
# C frames, if any (a walk that could not match them), far fewer than in
# the loops' Python functions.
line() { grep -n "# @$1\$" "$SCRIPT" | cut -d: -f1; }
python3 - named/run.csv named/run.json "$SCRIPT" "$(line def_inner)" "$(line call_inner)" "$(line allreduce)" \
    "$(line bcast)" <<'PYEOF'
import csv, json, sys
csvf, jsonf, script, def_inner, call_inner, allreduce, bcast = sys.argv[1:8]
bad, eval_samples, loop_samples = [], 0, 0
for p, rank, th, m, ex, inc in list(csv.reader(open(csvf)))[1:]:
    if m == "visits" and float(ex) > 0 and "MPI_" in p.split(";")[-1] and not p.startswith("(not unwound)"):
        if "_PyEval_EvalFrameDefault" in p or "python3.11+" in p or "Py_BytesMain" in p:
            bad.append(p)
    if m == "samples" and float(ex) > 0:
        if "_PyEval_EvalFrameDefault" in p:
            eval_samples += float(ex)
        if p.endswith(";spin") or p.endswith(";worker_spin"):
            loop_samples += float(ex)
print(("not ok - python frames: MPI paths free of interpreter frames: %s" % bad[:2]) if bad else
      "ok - python frames: MPI paths free of interpreter frames")
print(("ok - python frames: samples in the loops' functions (%d), not in the interpreter's loop (%d)"
       if loop_samples > 4 * eval_samples else
       "not ok - python frames: samples in the loops' functions: %d, in the interpreter's loop: %d")
      % (loop_samples, eval_samples))
d = json.load(open(jsonf))
tree = d["call_tree"]
nodes = {n["id"]: n for n in tree}
def path(n):
    out = []
    while n["parent"] is not None:   # up to the program root, left out
        out.append(n["name"])
        n = nodes[n["parent"]]
    return ";".join(reversed(out))
by_path = {path(n): n for n in tree}
def site(n):
    return n and "%s:%s" % ((n["file"] or "").rsplit("/", 1)[-1], n["line"])
def only_child(n):
    kids = [c for c in tree if n and c["parent"] == n["id"]]
    return kids[0] if len(kids) == 1 else None
name = script.rsplit("/", 1)[-1]
inner = by_path.get("<module>;main;outer;inner")
got = (site(inner), site(only_child(inner)), site(only_child(by_path.get("<module>;main;produce"))))
want = tuple("%s:%s" % (name, l) for l in (call_inner, allreduce, bcast))
print(("ok - python frames: call sites at the script's lines" if got == want else
       "not ok - python frames: call sites of inner, its extension frame, produce's: %s, want %s" % (got, want)))
regs = [r for r in d["regions"] if r["name"] == "inner"]
ok = len(regs) == 1 and (regs[0]["file"] or "").endswith("/" + name) and str(regs[0]["begin_line"]) == def_inner
print(("ok - python frames: region inner has the script's file and first line" if ok else
       "not ok - python frames: region inner: %s (want file %s, line %s)" % (regs, name, def_inner)))
regs = [r for r in d["regions"] if r["name"] == "transient"]
ok = regs and all(r["file"] == "<generated>" and r["begin_line"] == 1 for r in regs)
print(("ok - python frames: freed code's region keeps its file and first line" if ok else
       "not ok - python frames: region transient: %s (want file <generated>, line 1)" % regs))
PYEOF

# ---- HPROF_PYTHON=0: the interpreter's C frames, as before
HPROF_PYTHON=0 run cframes 1 3 1 1 2 1000 || finish
E=cframes/expect
: > $E
t "Allreduce through the evaluation loop" 'glob:*_PyEval_EvalFrameDefault*;MPI_Allreduce' '*' visits == 7
t "no Python function named" 'glob:*inner*' '*' visits absent
csv_check "python frames off" cframes/run.csv $E $NP --ranks
finish
