#!/bin/bash
# A merged profile of a running job, on demand (issue 37.1, 37.2): hprof-run
# runs merge_offline/killed.c on 4 ranks for a set number of MPI_Pack
# calls, each rank counting its own; hprof-snapshot asks twice while it
# runs, by hprof-run's pid and without one. Each snapshot is one merged
# profile (last line of hprof-snapshot's output), marked as a snapshot,
# whose MPI_Pack visits on each rank lie between the rank's own count read
# before the request and after the answer, grow from the first snapshot to
# the second, and stay at or below the final profile's, which is the
# program's count exactly; the job ends as without hprof (status 0) and no
# rank's file or request is left behind. HPROF_SNAPSHOT_EVERY=1 leaves a
# snapshot of its own. The snapshots are kept for the other readers
# (tests/interop.sh reads every profile a script leaves).
. "$(dirname "$0")/progs/lib.sh"
require_built jobs_snapshot
use_hprof_run
export HPROF_SAMPLING_HZ=200
NP=4 N=100000
SNAP=$ROOT/tools/hprof-snapshot
build_or_fail "snapshot: build" build_plain "$MPICC" "$ROOT/tests/mpi/merge_offline/killed.c" killed -O1 || finish
counts() { for r in $(seq 0 $((NP - 1))); do awk '{ print $2 }' count.$r; done | tr '\n' ' '; }
visits() { # PROFILE -> MPI_Pack visits of ranks 0..NP-1
    "$TEST_VIEW" --csv "$1" | awk -F, '$1 == "main;pack_once;MPI_Pack" && $4 == "visits" { v[$2] = $5 }
        END { for (r = 0; r < '$NP'; r++) printf "%s ", (r in v ? v[r] : "none") }'
}
# between LOW MID HIGH (word lists): LOW[i] <= MID[i] <= HIGH[i] for every i
between() {
    awk -v lo="$1" -v mid="$2" -v hi="$3" 'BEGIN { n = split(lo, a); split(mid, b); split(hi, c)
        for (i = 1; i <= n; i++) if (!(a[i] + 0 <= b[i] + 0 && b[i] + 0 <= c[i] + 0) || b[i] == "none") exit 1 }'
}
prof=hprof-killed-${NP}p.cubex

mkdir -p job && cd job || finish
$CLEAN_ENV "$HPROF_RUN" $MPIRUN -np $NP ../killed $N >out 2>err </dev/null &
runner=$!
after 300 kill -KILL $runner; watchdog=$AFTER_PID
if ! wait_counts $NP 200; then
    notok "snapshot: the ranks get going" "$(oneline err)"; kill -TERM $runner; finish
fi
before1=$(counts)
"$SNAP" $runner >snap1.out 2>snap1.err; rc1=$?
after1=$(counts)
path1=$(tail -n 1 snap1.out)
if [ $rc1 = 0 ] && [ -s "$path1" ]; then
    cp "$path1" first.cubex
    v1=$(visits first.cubex)
    check "snapshot 1 (by pid): each rank's visits between its count before and after: $v1" \
        "before $before1, snapshot $v1, after $after1" between "$before1" "$v1" "$after1"
    "$TEST_VIEW" first.cubex >view1.txt 2>&1
    check "snapshot 1: marked a snapshot of $NP ranks in hprof-view's header" "$(grep -m1 '^partial' view1.txt)" \
        grep -q "^partial    merged by hprof-merge from $NP profiles of $NP ranks; snapshot asked for at .* on ranks 0-$((NP - 1))$" view1.txt
else
    notok "snapshot 1 (by pid)" "status $rc1: $(oneline snap1.err) $(oneline snap1.out)"
fi
before2=$(counts)
"$SNAP" >snap2.out 2>snap2.err; rc2=$?
after2=$(counts)
path2=$(tail -n 1 snap2.out)
if [ $rc2 = 0 ] && [ "$path2" = "$path1" ] && [ -s "$path2" ]; then
    v2=$(visits "$path2")
    check "snapshot 2 (no pid): between the counts, and at or above snapshot 1's" \
        "snapshot 1 ${v1:-?}, before $before2, snapshot 2 $v2, after $after2" \
        eval 'between "$before2" "$v2" "$after2" && between "${v1:-x}" "$v2" "$after2"'
else
    notok "snapshot 2 (no pid), at the same name" "status $rc2, path '$path2' (first '$path1'): $(oneline snap2.err)"
fi
wait $runner; rc=$?
cancel_after $watchdog
check "snapshot: the job ends with status 0" "status $rc: $(oneline err)" test $rc = 0
vf=$(visits $prof)
want=$(for r in $(seq 1 $NP); do printf '%s ' $N; done)
check "snapshot: the final profile has each rank's $N calls, at or above the snapshots'" \
    "final $vf, snapshot 2 ${v2:-?}" eval '[ "$vf" = "$want" ] && between "${v2:-x}" "$vf" "$vf"'
left=$(ls ./*.snapshot-*.cubex .hprof-run.* 2>/dev/null | tr '\n' ' ')
check "snapshot: no rank's file, request or hprof-run folder left" "left: $left" test -z "$left"
cd ..

mkdir -p timer && cd timer || finish
HPROF_SNAPSHOT_EVERY=1 $CLEAN_ENV timeout -k 5 120 "$HPROF_RUN" $MPIRUN -np $NP ../killed 60000 >out 2>err </dev/null
rc=$?
check "snapshot every 1 s: the job ends with status 0 and a snapshot is there" \
    "status $rc, files: $(ls | tr '\n' ' ') $(oneline err)" eval '[ $rc = 0 ] && [ -s hprof-killed-${NP}p.snapshot.cubex ]'
cd ..
finish
