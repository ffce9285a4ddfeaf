#!/bin/bash
# python_rate: no sampling rate livelocks a Python program (issue 30,
# point 2). python/rate.py (numpy imported after MPI, then pure Python 150
# frames deep with Allreduce calls) at HPROF_SAMPLING_HZ=10000 with Python
# frames named must end about as soon as with HPROF_PYTHON=0, measured in
# this test: within 4 times that run's time plus 30 s (it ran 60-900 s
# without ending: every sample read every Python frame, one system call
# each, and took longer than the interval). The profile names the Python
# functions, the spin's samples are there, the Allreduce visits exact. The
# rate a thread is sampled at may go down where the handler's cost passes
# a quarter of its time; when it does, one line says so and the profile
# holds hprof::sampling_lowest_hz. Debian's python3 with mpi4py (skipped
# with one line where mpi4py is not built for this MPI library).
. "$(dirname "$0")/progs/lib.sh"
require_built "python rate build"
use_hprof_run
PY=/usr/bin/python3 NP=2 DEPTH=100 WORK=2000000
HERE=$(cd "$(dirname "$0")" && pwd)
require_mpi4py "python rate" $PY

run() { # NAME PYTHON TIMEOUT: one run at 10 kHz; prints its wall time in ms
    local name=$1 python=$2 limit=$3 t0 rc
    mkdir -p "$name"
    t0=$(date +%s%N)
    (cd "$name" && HPROF_PYTHON=$python HPROF_SAMPLING_HZ=10000 $CLEAN_ENV timeout -k 5 "$limit" "$HPROF_RUN" \
        $MPIRUN -np $NP $PY "$HERE/python/rate.py" $DEPTH $WORK >run.out 2>run.err </dev/null); rc=$?
    echo $(( ($(date +%s%N) - t0) / 1000000 ))
    return $rc
}

base_ms=$(run cframes 0 300); rc=$?
if [ "$rc" -ne 0 ] || ! grep -q '^done' cframes/run.out; then
    notok "python rate: the run with HPROF_PYTHON=0" "status $rc after $base_ms ms; $(tail -n 3 cframes/run.err | tr '\n' ' ' | cut -c1-300)"
    finish
fi
limit=$(( (4 * base_ms + 30000) / 1000 ))
named_ms=$(run named 1 $limit); rc=$?
cubes=$(cd named && ls -A | grep '\.cubex$')
if [ "$rc" -ne 0 ] || ! grep -q '^done' named/run.out || [ "$(wc -w <<<"$cubes")" -ne 1 ]; then
    notok "python rate: 10 kHz with Python frames named ends within ${limit} s (HPROF_PYTHON=0: $base_ms ms)" \
        "status $rc (124: killed at the limit) after $named_ms ms, profiles '$cubes'; $(tail -n 3 named/run.err | tr '\n' ' ' | cut -c1-300)"
    finish
fi
ok "python rate: 10 kHz with Python frames named ends in $named_ms ms (HPROF_PYTHON=0: $base_ms ms; limit ${limit} s)"
if timeout 60 "$TEST_VIEW" --json "named/$cubes" >named/run.json 2>named/view.err; then
    python3 - named/run.json $DEPTH $NP <<'PYEOF'
import json, sys
tree = json.load(open(sys.argv[1]))["call_tree"]  # the json: csv paths are cut short past 64 frames
depth, np_ = int(sys.argv[2]), int(sys.argv[3])
ids = {n["id"]: n for n in tree}
def path(n):
    out = []
    while n["parent"] is not None:  # up to the program's root, left out
        out.append(n["name"])
        n = ids[n["parent"]]
    return list(reversed(out))
python = ["<module>"] + ["c%d" % k for k in range(51)] + ["recurse"] * (depth + 1)
visits = samples = 0
for n in tree:
    p = path(n)
    if n["name"] == "MPI_Allreduce" and p[:len(python)] == python:
        visits += sum(n["exclusive"].get("visits", []))
    if n["name"] == "spin" and p == python + ["spin"]:
        samples += sum(n["exclusive"].get("samples", []))
print(("ok - python rate: %d Allreduce visits under the chain of 51 functions and the recursion" % visits)
      if visits == 10 * np_ else "not ok - python rate: %d Allreduce visits under the Python frames, want %d" % (visits, 10 * np_))
print(("ok - python rate: %d samples in spin at the bottom" % samples) if samples >= 1 else
      "not ok - python rate: no sample in spin at the bottom of the Python frames")
PYEOF
else
    notok "python rate: the profile's json" "$(head -c 300 named/view.err)"
fi
slowed=$(grep -c '^hprof: sampling slowed down on .* thread(s), to [0-9.]* Hz at the lowest' named/run.err)
attr=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["attributes"].get("hprof::sampling_lowest_hz", ""))' named/run.json 2>/dev/null)
if { [ "$slowed" -eq 1 ] && [ -n "$attr" ]; } || { [ "$slowed" -eq 0 ] && [ -z "$attr" ]; }; then
    ok "python rate: a slower rate is said once and kept in the profile (${attr:-not slowed} Hz)"
else
    notok "python rate: a slower rate is said once and kept in the profile" "$slowed lines, attribute '$attr'"
fi
finish
