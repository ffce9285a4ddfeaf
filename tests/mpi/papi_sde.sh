#!/bin/bash
# HPROF_METRICS (PAPI) tested for real with Software Defined Events: a
# program (papi/sde_app.c) increments SDE counters by amounts it knows, in
# known functions and inside known MPI calls (a user-defined MPI_Op). The
# profile must hold them exactly on MPI call paths, within sampling error on
# sampled paths, and exactly summed per rank; events that cannot be counted
# get one line and the run goes on; libhprof.a linked without -lpapi.
# Built without PAPI: HPROF_METRICS says so in one line and the run goes on.
. "$(dirname "$0")/progs/lib.sh"
require_built papi_sde
PAPI_DIR=$PROGS/../papi
CHECK="python3 $PAPI_DIR/check_papi.py"
EV="sde:::hproftest::WORK, sde:::hproftest::IN_OP,sde:::hproftest::UNUSED"
BAD="PAPI_NO_SUCH_PRESET,nosuchcomponent:::X"
TOL=0.10   # sampling error allowed on the sampled paths (1000 Hz, ~1 s)

if ! ldd "$TEST_LIBDIR/libhprof.so" | grep -q libpapi; then
    # No PAPI in this build (no libpapi-dev when it was built).
    build_or_fail "papi_sde: build without PAPI" build_shared "$MPICC" "$PAPI_DIR/sde_app.c" nosde -DNO_SDE \
        || finish
    HPROF_METRICS=PAPI_TOT_CYC profile_run "papi_sde: built without PAPI" nosde nosde.cubex nosde.csv 2 ./nosde 2 5 5 \
        || finish
    n=$(grep -c 'HPROF_METRICS is set, but this hprof was built without PAPI' nosde.err)
    check "papi_sde: built without PAPI, HPROF_METRICS gets one line and the run goes on" \
        "$n such lines: $(oneline nosde.err)" test "$n" -eq 1
    finish
fi

# ---- shared library (the usual link), 2 ranks, 1000 Hz ------------------------
if ! $MPICC $CFLAGS_TEST "$PAPI_DIR/sde_app.c" -o app "${HPROF_SHARED[@]}" -lsde \
        >app.build.log 2>&1; then
    notok "papi_sde: build" "$(oneline app.build.log 300)"
    finish
fi
if HPROF_METRICS="$EV,$BAD" HPROF_SAMPLING_HZ=1000 \
        profile_run "papi_sde: run" run run.cubex run.csv 2 ./app 20 30 15; then
    $CHECK "papi_sde" run.cubex run.csv run.out 2 $TOL
    # A derived ratio: IN_OP per MPI_Reduce_local call is exactly 3 + rank.
    "$TEST_VIEW" --csv --metric sde:::hproftest::IN_OP/visits run.cubex >ratio.csv 2>ratio.err
    check "papi_sde: --metric A/B gives the ratio per call path (IN_OP per MPI_Reduce_local = 3 + rank)" \
        "$(oneline ratio.csv 300) $(oneline ratio.err)" \
        awk -F, '$1 == "main;reduce_locally;MPI_Reduce_local" && $4 == "sde:::hproftest::IN_OP/visits" {
                     n++; if ($5 != 3 + $2) bad = 1 } END { exit !(n == 2 && !bad) }' ratio.csv
    "$TEST_VIEW" --metric sde:::hproftest::IN_OP/visits --threshold 0 run.cubex >ratio.txt 2>&1
    check "papi_sde: the tree view shows the ratio column" "$(oneline ratio.txt 300)" \
        grep -q 'sde:::hproftest::IN_OP/visits' ratio.txt
    lines=$(grep -c 'HPROF_METRICS' run.err)
    line=$(grep 'HPROF_METRICS' run.err | head -n 1)
    good=1
    for e in sde:::hproftest::WORK sde:::hproftest::IN_OP sde:::hproftest::UNUSED PAPI_NO_SUCH_PRESET \
             nosuchcomponent:::X; do
        grep -qF "$e" <<<"$line" || good=0
    done
    grep -qE '^hprof: HPROF_METRICS: counting sde:::hproftest::WORK, sde:::hproftest::IN_OP, sde:::hproftest::UNUSED; cannot count PAPI_NO_SUCH_PRESET \(.*\), nosuchcomponent:::X \(.*\)$' \
        <<<"$line" || good=0
    check "papi_sde: events that cannot be counted: one line naming what is counted and what is not" \
        "$lines lines: $line" test "$lines" -eq 1 -a "$good" -eq 1
    check "papi_sde: events that cannot be counted are no metrics" "found in the csv" \
        bash -c "! grep -qE 'PAPI_NO_SUCH_PRESET|nosuchcomponent' run.csv"
fi

# ---- nothing countable: the run goes on without event metrics -------------------
if HPROF_METRICS="$BAD" HPROF_SAMPLING_HZ=100 profile_run "papi_sde: only bad events" bad bad.cubex bad.csv 2 ./app 2 5 5; then
    check "papi_sde: no countable event: one line, profile written, no event metrics" \
        "$(oneline bad.err)" bash -c "grep -q '^hprof: HPROF_METRICS: counting nothing; cannot count' bad.err && ! grep -q 'sde:::\|PAPI_NO' bad.csv"
fi

# ---- threads: SDE counters are process-wide, per-rank totals stay exact ----------
if $MPICC $CFLAGS_TEST "$PAPI_DIR/sde_threads.c" -o thr "${HPROF_SHARED[@]}" \
        -lsde -lpthread >thr.build.log 2>&1; then
    if HPROF_METRICS="sde:::hprofthr::WORK,sde:::hprofthr::IN_OP" HPROF_SAMPLING_HZ=1000 \
            profile_run "papi_sde: threads run" thr thr.cubex thr.csv 2 ./thr; then
        python3 - thr.csv thr.out <<'PY'
import csv, sys
from collections import defaultdict
got = defaultdict(float)
for row in csv.DictReader(open(sys.argv[1])):
    if row["metric"].startswith("sde:::hprofthr::"):
        got[(int(row["rank"]), row["metric"].split("::")[-1])] += float(row["exclusive"])
want = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4 and f[0] == "total":
        want[(int(f[1]), "WORK")], want[(int(f[1]), "IN_OP")] = float(f[2]), float(f[3])
good = len(want) == 4 and all(got[k] == v for k, v in want.items())
print("%s - papi_sde: 3 threads per rank in MPI: SDE totals per rank exact (want %s, got %s)"
      % ("ok" if good else "not ok", dict(want), {k: got[k] for k in want}))
PY
    fi
else
    notok "papi_sde: build sde_threads.c" "$(oneline thr.build.log 300)"
fi

# ---- static library, linked without -lpapi (libpapi is opened at MPI_Init) -------
if $MPICC $CFLAGS_TEST "$PAPI_DIR/sde_app.c" -o app_static "${HPROF_STATIC[@]}" -lm -lsde \
        >app_static.build.log 2>&1; then
    if HPROF_METRICS="$EV" HPROF_SAMPLING_HZ=1000 \
            profile_run "papi_sde: static run" st st.cubex st.csv 2 ./app_static 20 30 15; then
        $CHECK "papi_sde static" st.cubex st.csv st.out 2 $TOL | grep -E 'summed|exact on the MPI|not ok'
    fi
else
    notok "papi_sde: static build (libhprof.a, no -lpapi)" "$(oneline app_static.build.log 300)"
fi
finish
