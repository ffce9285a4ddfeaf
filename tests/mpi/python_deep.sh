#!/bin/bash
# python_deep: deep Python stacks keep their base (issue 30, point 3).
# python/deep.py recurses D frames deep, then calls comm.Allreduce REPS
# times and spins in pure Python (samples). A path holds at most 512 Python
# frames: at D = 400 all of them; at D = 600 and 3,000 the MPI call's path
# and the spin's samples still start at <module>;recurse (at D >= 511 they
# lost <module> and every Python frame: _PyEval_EvalFrameDefault at the
# top), hold 510 of the recursion's frames with one '(python frames left
# out)' between the outer and the inner ones, and the visits are exact.
# Debian's python3 with mpi4py (skipped with one line where mpi4py is not
# built for this MPI library).
. "$(dirname "$0")/progs/lib.sh"
require_built "python deep build"
use_hprof_run
PY=/usr/bin/python3 NP=2 REPS=5 SPIN=1000000
HERE=$(cd "$(dirname "$0")" && pwd)
require_mpi4py "python deep" $PY
MPI_TIMEOUT=${PY_DEEP_TIMEOUT:-120}

for D in 400 600 3000; do
    mkdir -p d$D
    (cd d$D && HPROF_SAMPLING_HZ=100 $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP $PY \
        "$HERE/python/deep.py" $D $REPS $SPIN >run.out 2>run.err </dev/null); rc=$?
    cubes=$(cd d$D && ls -A | grep '\.cubex$')
    if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ] || ! grep -q '^done ' d$D/run.out ||
       ! timeout 60 "$TEST_VIEW" --json "d$D/$cubes" >d$D/run.json 2>d$D/view.err; then
        notok "python deep D=$D run" "status $rc, profiles '$cubes'; stderr: $(tail -n 4 d$D/run.err | tr '\n' ' ' | cut -c1-400)"
        continue
    fi
    python3 - d$D/run.json $D $REPS $NP <<'PYEOF'
import json, sys, collections
jsonf, d, reps, np_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tree = json.load(open(jsonf))["call_tree"]  # the json: csv paths are cut short past 64 frames
ids = {n["id"]: n for n in tree}
def path(n):
    out = []
    while n["parent"] is not None:  # up to the program's root, left out
        out.append(n["name"])
        n = ids[n["parent"]]
    return ";".join(reversed(out))
visits, samples = collections.Counter(), collections.Counter()
for n in tree:
    if n["name"] == "MPI_Allreduce":
        visits[path(n)] += sum(n["exclusive"].get("visits", []))
    if n["name"] == "spin":
        samples[path(n)] += sum(n["exclusive"].get("samples", []))
gap = "(python frames left out)"
def shape(p):
    """What a path must look like: <module>, then its Python frames (the
    recursion, spin at the bottom of the samples'): all of them, or 255
    outer ones, the gap, 255 inner ones."""
    f = p.split(";")
    if f[:2] != ["<module>", "recurse"]:
        return "starts %s" % f[:3]
    rec = f.count("recurse")
    if d + 1 < 511:
        return None if rec == d + 1 and gap not in f else "%d recurse frames (want %d), gap %s" % (rec, d + 1, gap in f)
    inner = f[257:]
    inner = inner[:next((i for i, x in enumerate(inner) if x not in ("recurse", "spin")), len(inner))]
    if f.count(gap) != 1 or f.index(gap) != 256 or f[1:256] != ["recurse"] * 255 or len(inner) != 255:
        return "gap at %s (want 256), %d outer recurse frames, %d inner Python frames (want 255)" % (
            f.index(gap) if gap in f else None, f[1:256].count("recurse"), len(inner))
    return None
name = "python deep D=%d" % d
bad = [(p, shape(p)) for p in visits if shape(p)]
total = sum(visits.values())
if bad or total != reps * np_ or len(visits) != 1:
    print("not ok - %s: the Allreduce's path keeps its base: %d paths, %d visits (want 1 path, %d); %s"
          % (name, len(visits), total, reps * np_, [(p[:120] + "...", why) for p, why in bad[:2]]))
else:
    print("ok - %s: the Allreduce's path keeps <module> and %s, %d visits" % (name, "every frame" if d < 511 else
          "255 outer and 255 inner frames", total))
bad = [(p, shape(p)) for p in samples if shape(p)]
if bad or sum(samples.values()) < 1:
    print("not ok - %s: the spin's samples keep their base: %d samples; %s"
          % (name, sum(samples.values()), [(p[:120] + "...", why) for p, why in bad[:2]]))
else:
    print("ok - %s: the spin's %d samples keep their base" % (name, sum(samples.values())))
PYEOF
done
finish
