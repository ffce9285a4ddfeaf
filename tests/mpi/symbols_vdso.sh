#!/bin/bash
# symbols_vdso: the vDSO is one module for every rank. libdwfl reads each
# process's vDSO from that process ("[vdso: PID]"), but the profile names
# it "[vdso]", so that 4 ranks sampled in clock_gettime (and MPI_Wtime)
# share one region per vDSO function and one call path per caller, instead
# of one each a rank (definitions growing as P squared). The program reads
# the clock for 1 s of its own time at 1000 samples a second: every rank
# has samples in the vDSO, or the check could not tell.
. "$(dirname "$0")/progs/lib.sh"
require_built "vdso build"
export HPROF_SAMPLING_HZ=1000
NP=4
build_or_fail "vdso build" build_shared "$MPICC" "$(dirname "$0")/symbols/vdso_clock.c" vdso_clock || finish
profile_run "vdso run" vdso "$PWD/vdso.cubex" vdso.csv "$NP" ./vdso_clock || finish
timeout 60 "$TEST_VIEW" --json vdso.cubex >vdso.json 2>vdso.json.err ||
    { notok "vdso json" "$(oneline vdso.json.err 300)"; finish; }
python3 - "$NP" vdso.json <<'PY'
import collections, json, sys
np, d = int(sys.argv[1]), json.load(open(sys.argv[2]))
vdso = {r["index"]: r for r in d["regions"] if (r["file"] or "").startswith("[vdso")}
files = sorted(set(r["file"] for r in vdso.values()))
names = collections.Counter(r["name"] for r in vdso.values())
nodes = [n for n in d["call_tree"] if n["region"] in vdso]
paths = collections.Counter((n["parent"], n["name"]) for n in nodes)
sampled = [0] * np
for n in nodes:
    for r, s in enumerate(n["exclusive"].get("samples", [])):
        sampled[r] += s
def check(name, good, why):
    print(("ok - " if good else "not ok - ") + "vdso: " + name + ("" if good else ": " + why))
check("every rank sampled in the vDSO", vdso and all(sampled),
      "samples a rank in vDSO regions: %s (regions %s)" % (sampled, files))
check("one module name, [vdso]", files == ["[vdso]"], "vDSO files %s" % files)
check("one region per vDSO function", names and max(names.values()) == 1,
      "regions by name %s" % dict(names))
check("one call path per caller and vDSO function", paths and max(paths.values()) == 1,
      "%d call paths for %d (caller, function)" % (len(nodes), len(paths)))
PY
[ $? -eq 0 ] || notok "vdso check" "the checker failed"
finish
