#!/bin/bash
# view_exports: hprof-view --hatchet, --speedscope and --perfetto on
# profiles of MPI test programs (app.c; timeline/phases.c with MPI_Pcontrol
# phases; threads/multiple.c, 4 threads a rank). Hatchet's
# GraphFrame.from_json of --hatchet must give the values pyCubexR reads
# from the .cubex per (call path, rank, thread) for every metric, print
# its tree, and hprof_hatchet.read must set the run's metadata (with the
# MPI library's name) as Thicket takes it; --speedscope validates against speedscope's schema with one
# profile per rank (and thread) weighing the rank's time, and evented
# profiles of the heaviest paths over time, well nested; --perfetto is
# trace-event JSON with a track per rank. Hatchet and pyCubexR are
# optional clients from ../shared/clients beside the checkout (or
# TEST_HATCHET, TEST_PYCUBEXR), skipped with one line where absent.
. "$(dirname "$0")/progs/lib.sh"
require_built "exports build"
here=$(cd "$(dirname "$0")" && pwd)
CHECK="/usr/bin/python3 $here/exports/check_exports.py"
SCHEMA=$here/exports/speedscope-file-format-schema.json
HATCHET=${TEST_HATCHET:-$ROOT/../shared/clients/hatchet}
PYC=${TEST_PYCUBEXR:-$ROOT/../shared/clients/pycubexr}
build_or_fail "exports build app" build_shared "$MPICC" "$PROGS/app.c" app || finish
build_or_fail "exports build phases" build_shared "$MPICC" "$here/timeline/phases.c" phases -O1 || finish
build_or_fail "exports build threads" build_shared "$MPICC" "$here/threads/multiple.c" multiple -pthread || finish

have_pycubexr=1 have_hatchet=1 have_jsonschema=1
if [ ! -d "$PYC/pycubexr" ] || ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    have_pycubexr=0; echo "ok - exports: values against pyCubexR # skip: no pyCubexR at $PYC (or no python3-numpy)"
fi
if [ ! -d "$HATCHET/hatchet" ] || ! PYTHONPATH=$HATCHET /usr/bin/python3 -c 'import hatchet' 2>/dev/null; then
    have_hatchet=0; echo "ok - exports: Hatchet reads --hatchet # skip: no Hatchet at $HATCHET (or its Debian packages: tools/install-deps)"
fi
if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
    have_jsonschema=0; echo "ok - exports: speedscope schema # skip: Debian's python3-jsonschema is not installed"
fi
export PYTHONPATH=$HATCHET:$PYC:$ROOT/tools/python
MPI_NAME=$([ "$TEST_MPI" = openmpi ] && echo "Open MPI" || echo MPICH)  # how the library names itself

# exports NAME PROFILE PROGRAM NP: the three exports of one profile, checked
exports() { local n=$1 prof=$2 prog=$3 np=$4 f
    for f in hatchet speedscope perfetto; do
        if ! timeout 60 "$TEST_VIEW" --$f "$prof" > "$n.$f.json" 2> "$n.$f.err"; then
            notok "$n: hprof-view --$f" "exit $?: $(head -c 300 "$n.$f.err")"; return
        fi
    done
    if [ $have_hatchet = 1 ] && [ $have_pycubexr = 1 ]; then
        $CHECK hatchet "$n" "$prof" "$n.hatchet.json" "$prog" "$np" "$MPI_NAME" || N_FAILED=$((N_FAILED + 1))
    fi
    if [ $have_jsonschema = 1 ] && [ $have_pycubexr = 1 ]; then
        $CHECK speedscope "$n" "$prof" "$n.speedscope.json" "$SCHEMA" "$np" || N_FAILED=$((N_FAILED + 1))
    fi
    $CHECK perfetto "$n" "$n.perfetto.json" "$np" || N_FAILED=$((N_FAILED + 1))
}

profile_run "exports app run" app app.cubex app.csv 2 ./app 20 && exports "exports app" app.cubex app 2
if profile_run "exports phases run" phases phases.cubex phases.csv 2 ./phases 10 5 2 5; then
    exports "exports phases" phases.cubex phases 2
    # --phase 2: the counters start at rank 0's MPI_Pcontrol(2), to the bucket
    "$TEST_VIEW" --perfetto --phase 2 phases.cubex > phase2.json 2> phase2.err
    out=$(/usr/bin/python3 - "exports phases.perfetto.json" phase2.json <<'PY'
import json, sys
full, part = (json.load(open(f)) for f in sys.argv[1:3])
mark = min(e["ts"] for e in full["traceEvents"] if e["ph"] == "i" and e["pid"] == 0 and e["name"] == "MPI_Pcontrol(2)")
width = full["otherData"]["bucket_seconds"] * 1e6
first = min(e["ts"] for e in part["traceEvents"] if e["ph"] == "C")
print("first counter %.0f us, mark %.0f us, bucket %.0f us" % (first, mark, width))
sys.exit(0 if abs(first - mark) <= width else 1)
PY
    ) && ok "exports phases: --perfetto --phase 2 starts at MPI_Pcontrol(2) ($out)" ||
        notok "exports phases: --perfetto --phase 2" "$out $(head -c 200 phase2.err)"
fi
if profile_run "exports threads run" multiple multiple.cubex multiple.csv 2 ./multiple; then
    exports "exports threads" multiple.cubex multiple 2
    check "exports threads: a record per call path, rank and thread" "$(head -c 200 "exports threads.hatchet.json.err" 2>/dev/null)" \
        grep -q '"dataframe_indices": \["node", "rank", "thread"\]' "exports threads.hatchet.json"
fi

# A profile without a timeline: --perfetto says so in one line and exits 2.
HPROF_TIME_BUCKETS=0 profile_run "exports no timeline run" notl app0.cubex app0.csv 2 ./app 3 && {
    "$TEST_VIEW" --perfetto app0.cubex > notl.json 2> notl.err; rc=$?
    check "exports: --perfetto without a timeline: one line, exit 2" "exit $rc: $(oneline notl.err 300)" \
        test "$rc" = 2 -a "$(wc -l < notl.err)" = 1 -a ! -s notl.json
}
finish
