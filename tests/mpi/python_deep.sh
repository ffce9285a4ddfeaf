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

# run DIR HZ PROGRAM ARGS...: the program under hprof in DIR; its
# profile's json in DIR/run.json, or one 'not ok' line and status 1.
run() {
    local dir=$1 hz=$2 rc cubes
    shift 2
    mkdir -p "$dir"
    (cd "$dir" && HPROF_SAMPLING_HZ=$hz $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP $PY \
        "$@" >run.out 2>run.err </dev/null); rc=$?
    cubes=$(cd "$dir" && ls -A | grep '\.cubex$')
    local why=""
    if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ]; then
        why="status $rc, profiles '$cubes'"
    elif ! grep -q '^done' "$dir/run.out"; then
        why="no line 'done' in its output: $(tail -c 200 "$dir/run.out" | tr '\n' '|')"
    elif ! timeout 60 "$TEST_VIEW" --json "$dir/$cubes" >"$dir/run.json" 2>"$dir/view.err"; then
        why="hprof-view --json failed: $(head -c 200 "$dir/view.err")"
    fi
    if [ -n "$why" ]; then
        notok "$NAME run" "$why; stderr: $(tail -n 4 "$dir/run.err" | tr '\n' ' ' | cut -c1-400)"
        return 1
    fi
}

for D in 400 600 3000; do
    NAME="python deep D=$D"
    run d$D 100 "$HERE/python/deep.py" $D $REPS $SPIN || continue
    python3 - d$D/run.json $D $REPS $NP "$HERE/python" <<'PYEOF'
import sys, collections
jsonf, d, reps, np_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
from view_paths import load, told
tree, path = load(jsonf)
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
          % (name, len(visits), total, reps * np_, told(bad, visits, "visits")))
else:
    print("ok - %s: the Allreduce's path keeps <module> and %s, %d visits" % (name, "every frame" if d < 511 else
          "255 outer and 255 inner frames", total))
bad = [(p, shape(p)) for p in samples if shape(p)]
if bad or sum(samples.values()) < 1:
    print("not ok - %s: the spin's samples keep their base: %d samples; %s"
          % (name, sum(samples.values()), told(bad, samples, "samples")))
else:
    print("ok - %s: the spin's %d samples keep their base" % (name, sum(samples.values())))
PYEOF
done

# Two code objects in one slot of the per-thread cache of code identities
# (py_ident.c), the outer one read anew and the inner one found in the
# cache: every other sample named the inner frames after the outer code
# (CI's '<module> x256;...;spin' at D=600, where <module> and recurse
# shared a slot in one rank). python/collide.py finds such a pair in each
# rank and spins in outer(inner): the samples under outer are in inner.
NAME="python deep: code objects sharing a cache slot"
IDENT=$HERE/../../unwind/python/py_ident
SLOTS=$(sed -n 's/^#define PY_IDENT_CACHE \([0-9]*\).*/\1/p' "$IDENT.h")
if ! grep -q 'return (unsigned)((code >> 4) \* 0x9E3779B97F4A7C15ull >> 40) & (PY_IDENT_CACHE - 1);' "$IDENT.c" ||
   [ -z "$SLOTS" ]; then
    notok "$NAME" "python/collide.py's slot of a code object is not py_ident.c's cache_index (PY_IDENT_CACHE '$SLOTS'): keep them in step"
elif run collide 1000 "$HERE/python/collide.py" 3000000 "$SLOTS"; then
    python3 - collide/run.json collide/run.out $NP "$HERE/python" <<'PYEOF'
import re, sys, collections
jsonf, outf, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
from view_paths import load, told
tree, path = load(jsonf)
name = "python deep: code objects sharing a cache slot"
said = re.findall(r"rank \d+: (?:slot \d+|no pair)", open(outf).read())  # ranks' lines may run together
pairs = sum(1 for x in said if ": slot " in x)
samples = collections.Counter()
for n in tree:
    p = path(n)
    if "outer" in p.split(";"):
        samples[p] += sum(n["exclusive"].get("samples", []))
right = ("<module>;outer;inner", "<module>;outer")  # a sample in outer's own code: rare, right
bad = [(p, "not <module>;outer;inner") for p in samples if samples[p] and p not in right]
good = samples["<module>;outer;inner"]
if pairs != np_ or bad or good < 4:
    print("not ok - %s: %d of %d ranks found a pair (%s), %d samples in inner; %s"
          % (name, pairs, np_, ", ".join(said), good, told(bad, samples, "samples")))
else:
    print("ok - %s: the %d samples in the inner code keep its name (%d ranks, a pair each)" % (name, good, pairs))
PYEOF
fi
finish
