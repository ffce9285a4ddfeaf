#!/bin/bash
# merge_phases: HPROF_VERBOSE=1 shows where MPI_Finalize's time goes (issue
# 30, point 8): the merge's phases with the time line's own ("values X s,
# time line X s"), and the finalize's ("waiting for every rank, run
# attributes, merge and write"), whose parts add up to no more than
# merge+write says. On 8 ranks, with the time line and without it
# (HPROF_TIME_BUCKETS=0: no hprof.timeline.z member), and the number of
# collectives it made, each a round every rank waits for (issue 41: at
# most 9 and 7, what can agree in one reduction agreed so); the profile's values
# and the member's content are what they were (exact visits per rank,
# every rank's rows and offsets; tests/mpi/timeline.sh checks the rows
# against the profile). The speed of the merge on many ranks is a
# benchmark (make bench, section 6), not a test.
. "$(dirname "$0")/progs/lib.sh"
require_built "merge phases build"
export HPROF_SAMPLING_HZ=0
NP=8 M_ITER=5
build_or_fail "merge phases build" build_shared "$MPICC" "$PROGS/merge.c" merge || finish
num='[0-9]+\.[0-9]+'
for buckets in 256 0; do
    n="merge phases, HPROF_TIME_BUCKETS=$buckets"
    prof=$PWD/phases$buckets.cubex
    HPROF_VERBOSE=1 HPROF_TIME_BUCKETS=$buckets HPROF_OUTPUT=$prof run_mpi run$buckets $NP ./merge; rc=$?
    profile_run_check "$n: run" run$buckets "$prof" run$buckets.csv "$rc" || continue
    m=$(grep -cE "^hprof: merge: local profile $num s, unified definitions $num s, written $num s, values $num s, time line $num s \(this rank's CPU time $num, $num, $num, $num, $num s\), [0-9]+ collectives$" run$buckets.err)
    f=$(grep -cE "^hprof: finalize: waiting for every rank $num s, run attributes $num s, merge and write $num s$" run$buckets.err)
    check "$n: one line of the merge's phases with the time line's, one of the finalize's" \
        "merge lines $m, finalize lines $f: $(grep -E '^hprof: (merge|finalize):' run$buckets.err | tr '\n' '|')" \
        test "$m" -eq 1 -a "$f" -eq 1
    # each collective is a round every rank waits for, naps long where ranks
    # outnumber cores: the merge agrees on what it can in one (with the
    # time line: 9, its paths' reduce and broadcast among them; without: 7)
    most=$([ "$buckets" = 0 ] && echo 7 || echo 9)
    made=$(sed -nE 's/^hprof: merge: .*, ([0-9]+) collectives$/\1/p' run$buckets.err)
    check "$n: the merge makes at most $most collectives" "it made ${made:-?}" test "${made:-99}" -le "$most"
    # the phases are parts of the merge: no more than merge+write (printed to the ms)
    total=$(wrote_field run$buckets.err merge)
    parts=$(sed -nE "s/^hprof: merge: local profile ($num) s, unified definitions ($num) s, written ($num) s, values ($num) s, time line ($num) s.*/\1 \2 \3 \4 \5/p" run$buckets.err)
    check "$n: the phases add up to no more than merge+write ($total s)" "phases: $parts" \
        awk -v t="$total" -v p="$parts" 'BEGIN { split(p, x, " "); s = 0; for (i in x) s += x[i]; exit !(s <= t + 0.006) }'
    member=$(tar tf "$prof" | grep -c '^hprof.timeline.z$')
    if [ "$buckets" = 0 ]; then
        check "$n: no time line member" "members: $(tar tf "$prof" | tr '\n' ' ')" test "$member" -eq 0
    else
        timeline_text "$prof" > member.txt
        rows=$(grep -cE '^rank [0-9]+ (mpi_ns|comp_ns|visits|bytes_sent|bytes_received)( [0-9]+){256}$' member.txt)
        offsets=$(grep -cE '^offset [0-9]+ -?[0-9]+$' member.txt)
        check "$n: the time line has every rank's rows and offset" \
            "rows $rows (want $((NP * 5))), offsets $offsets (want $NP); head: $(head -c 200 member.txt)" \
            test "$member" -eq 1 -a "$rows" -eq $((NP * 5)) -a "$offsets" -eq $NP \
                -a "$(sed -n 4p member.txt)" = "ranks $NP"
        # each rank's visits over time: its MPI calls (merge.c) in MPI_Init..MPI_Finalize
        vis=$(awk '$1 == "rank" && $3 == "visits" { s = 0; for (i = 4; i <= NF; i++) s += $i; printf "%s:%d ", $2, s }' member.txt)
        want=$(awk -F, '$4 == "visits" { v[$2] += $5 } END { for (r in v) printf "%s:%d\n", r, v[r] }' run$buckets.csv | sort -n | tr '\n' ' ')
        check "$n: each rank's visits over time add up to its visits in the profile" "time line: $vis; profile: $want" \
            test "$(tr ' ' '\n' <<<"$vis" | grep . | sort -n | tr '\n' ' ')" = "$want"
    fi
    E=run$buckets.expect; : > $E
    t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
    t "values" "main;common;MPI_Allreduce" '*' visits == $M_ITER
    csv_check "$n" run$buckets.csv $E $NP --ranks --no-failed
done
finish
