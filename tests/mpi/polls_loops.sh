#!/bin/bash
# polls_loops: polling loops (MPI_Test from one call site through two
# callers taken in turn, MPI_Iprobe, MPI_Testany, MPI_Test and MPI_Iprobe
# in turn from one frame; completed and uncompleted polls mixed) keep
# exact visits and received bytes on every call path, with
# sampling off and at 1000 Hz, while the polls that complete nothing from
# the previous call's path are added to its record without a walk
# (lib/measure.c): rank 0's count of those equals the program's own.
# One poll in N of a loop is timed, the others counted (lib/polls/poll_run.h):
# that happens here, not with HPROF_POLL_STRIDE_US=0 (visits exact either
# way), and a 40 ms wait in a tight MPI_Test loop gets MPI time that is a
# good part of the wait (its polls'; the loop's own instructions are
# computation) and never more. Against the program's own clock around each
# poll (poll_gaps.c, issue 30 point 1): a loop computing G ns between its
# polls gets its polls' time, not the computation's, at G = 0, 200 ns and
# 50 us, sampling off and at 100 Hz, and off on the clock_gettime clock and
# with the clock's part started 70 ns wrong (a loop with computation between its
# polls, gaps.c, keeps that computation out of its MPI time). With
# HPROF_POLLS=split the polls that completed nothing are metrics of their
# own, exact per call path, and the wait's time is theirs; without it the
# profile has no such metrics. A wait whose thread is descheduled half the
# time (descheduled.c) keeps most of that time as MPI time (split with the
# loop's instructions as its time on the CPU was); a callee computing once
# in a while inside a tight loop keeps its time on the CPU out of it, as
# does one 12 ms chunk 20,000 polls into a run. Polls that take turns with
# other calls (turns.c) stop opening runs that end at once.
. "$(dirname "$0")/progs/lib.sh"
require_built "polls build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "polls build" build_shared "$MPICC" "$HERE/polls/polls.c" polls -O2 || finish
build_or_fail "gaps build" build_shared "$MPICC" "$HERE/polls/gaps.c" gaps -O2 || finish

# timed_retried CMD...: runs a checking function; when the only checks it
# failed are time bounds (NAME_time), it says so and runs again, up to
# five runs, and the last run's checks count. This machine is two shared
# cores: a rank that loses its core for long can push a wait or a
# computation past its bound, and for stretches of 0.1 s and more the
# whole core runs 2-2.5 times slower, where hprof's timed polls and their
# bookkeeping slow down more than the program's own polls (a tight loop's
# polls then read up to 3 times the truth; why is not known). Visits,
# paths and every other check are never run again.
timed_retried() {
    local out run
    for run in 1 2 3 4 5; do
        out=$("$@")
        if [ "$run" = 5 ] || ! grep -q '^not ok' <<<"$out" ||
            grep '^not ok' <<<"$out" | grep -qvE '^not ok - [^ ]+ [a-z0-9_]*_time[: ]'; then
            break
        fi
        grep '^not ok' <<<"$out" | sed "s/^/# time bound missed in run $run, run again: /"
    done
    printf '%s\n' "$out"
}

one_run() {
    local label=$1 hz=$2 gap=${3:-20} split=${4:-together} rc
    local prof=$PWD/$label.cubex
    rm -f "$prof" polls.expect.*
    HPROF_POLLS=$split HPROF_POLL_STRIDE_US=$gap HPROF_SAMPLING_HZ=$hz HPROF_VERBOSE=1 HPROF_OUTPUT=$prof \
        run_mpi "$label" 2 ./polls; rc=$?
    profile_run_check "$label run" "$label" "$prof" "$label.csv" "$rc" || return
    ok "$label run"
    # each rank's expectations in a file of its own: in a CI run rank 0's lines
    # (its repeats) were lost or spliced on the way through the launcher
    cat polls.expect.0 polls.expect.1 > "$label.lines" 2>/dev/null
    grep -E $'^(via_x|via_y|iprobe|testany|mixed_test|mixed_probe|long_wait|long_wait_time|received)\t' "$label.lines" > "$label.expect"
    local ranks
    ranks=$(cut -f3 "$label.expect" | sort -u | tr -d '\n')
    check "$label: both ranks' expectations" "ranks with visits expectations: ${ranks:-none}" [ "$ranks" = 01 ]
    if [ "$split" = split ]; then
        grep -E $'^split_(polls|time)\t' "$label.lines" >> "$label.expect"
    else
        check "$label: no unsuccessful-poll metrics without HPROF_POLLS=split" "polls_unsuccessful in the csv" \
            bash -c '! grep -q ",polls_unsuccessful" "$1"' _ "$label.csv"
    fi
    # timed alone, each poll leaves the loop's own instructions out
    [ "$gap" != 0 ] || sed -i $'/^long_wait_time\t.*\t>=\t/d' "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 2 --no-failed
    local want got
    want=$(sed -n 's/^repeats 0 \([0-9]*\)$/\1/p' "$label.lines")
    got=$(sed -n 's/^hprof: thread 0: \([0-9]*\) polls that completed nothing.*/\1/p' "$label.err")
    # with sampling, a sample's walk may put the caller's thunk anew (its
    # node unchanged) or not: most repeats, never more
    local min=$want
    [ "$hz" = 0 ] || min=$(( ${want:-0} * 9 / 10 ))
    check "$label: repeated polls recorded without a walk" \
        "program counts ${want:-none} repeats on rank 0, hprof ${got:-none} (want >= $min)" \
        python3 -c 'import sys; w, g, m = map(int, sys.argv[1:]); sys.exit(0 if w > 100 and m <= g <= w else 1)' \
        "${want:-0}" "${got:-0}" "${min:-0}"
    local inloops timed
    inloops=$(sed -n 's/^hprof: thread 0: \([0-9]*\) polls in polling loops.*/\1/p' "$label.err")
    timed=$(sed -n 's/^hprof: thread 0: [0-9]* polls in polling loops, \([0-9]*\) of them timed.*/\1/p' "$label.err")
    if [ "$gap" = 0 ]; then
        check "$label: no polling loop (every poll timed alone)" "hprof says ${inloops:-none}" [ -z "$inloops" ]
    else
        # long_wait's tight loop times one poll in many (N adapts to a timed
        # poll about every 20 us of the loop)
        check "$label: one poll in N timed in polling loops" \
            "rank 0: ${timed:-no} of ${inloops:-no} polls in loops timed (want some, fewer than one in 8)" \
            [ "${timed:-0}" -gt 0 -a "$(( ${timed:-0} * 8 ))" -lt "${inloops:-0}" ]
    fi
}
timed_retried one_run polls-nosampling 0
timed_retried one_run polls-1000hz 1000
# At 10 kHz samples land everywhere in the polls: between a poll's join
# check and its entering MPI (where a sample must not end the run under
# it, or the poll's visit is lost), in MPI_Finalize's barrier (the thread
# counts as in MPI there, so UCX's progress code is never walked), and in
# poll_some's epilogue after its pop of rbp (walked as unwind_epilogue.sh
# checks).
timed_retried one_run polls-10khz 10000
timed_retried one_run polls-nochain 0 0
timed_retried one_run polls-split 1000 20 split

# turns.c: a poll and a probe that take turns with a barrier from one
# frame open polling runs that end after one poll; after a few, polls open
# none and are timed alone (poll_rules_ended): few polls in runs (with
# every run: one a round), every visit and, with HPROF_POLLS=split, every
# poll that completed nothing on its path.
build_or_fail "turns build" build_shared "$MPICC" "$HERE/polls/turns.c" turns -O2 || finish
turns_run() { # LABEL HZ POLLS
    local label=$1 hz=$2 split=$3 rc rounds=20000
    local prof=$PWD/$label.cubex
    rm -f "$prof" turns.expect.*
    HPROF_POLLS=$split HPROF_SAMPLING_HZ=$hz HPROF_VERBOSE=1 HPROF_OUTPUT=$prof \
        run_mpi "$label" 2 ./turns $rounds; rc=$?
    profile_run_check "$label run" "$label" "$prof" "$label.csv" "$rc" || return
    ok "$label run"
    cat turns.expect.0 turns.expect.1 2>/dev/null | grep -E $'^turns\t' > "$label.expect"
    [ "$split" != split ] || cat turns.expect.0 turns.expect.1 2>/dev/null | grep -E $'^turns_split\t' >> "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 2 --no-failed
    local inloops
    inloops=$(sed -n 's/^hprof: thread 0: \([0-9]*\) polls in polling loops.*/\1/p' "$label.err")
    check "$label: polls that take turns with other calls open few polling runs" \
        "rank 0: ${inloops:-0} of $((2 * rounds)) polls in runs (want fewer than $((rounds / 20)))" \
        [ "${inloops:-0}" -lt $((rounds / 20)) ]
}
turns_run turns-nosampling 0 together
turns_run turns-split 1000 split

# expect_run LABEL HZ PROG PATTERN: PROG on 2 ranks sampled at HZ; the
# expectations it printed that match PATTERN are checked
expect_run() {
    local label=$1 hz=$2 prog=$3 pattern=$4 rc
    local prof=$PWD/$label.cubex
    rm -f "$prof"
    HPROF_SAMPLING_HZ=$hz HPROF_OUTPUT=$prof run_mpi "$label" 2 "./$prog"; rc=$?
    profile_run_check "$label run" "$label" "$prof" "$label.csv" "$rc" || return
    ok "$label run"
    grep -E "$pattern" "$label.out" > "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 2
}

# gaps: computation between polls stays computation (time: generous bound)
timed_retried expect_run gaps-nosampling 0 gaps $'^gaps(_time)?\t'
timed_retried expect_run gaps-100hz 100 gaps $'^gaps(_time)?\t'

# poll_gaps.c: MPI time of a loop with G ns of computation between its
# polls against the program's clock around each poll (less that clock's
# own part, measured around an empty function in blocks alternated with the
# polling ones, and with the time its thread was off the CPU given to the
# polls as their share of its time on it: poll_gaps.c). Visits exact; the
# time within 50% plus 1 ms a second (the polls of this loop take 10-100 ns:
# on this shared VM a few ns a poll and the scheduler's lumps move it;
# bench section 1d has the table). Before issue 30 the loops at 0-200 ns read
# 10-30 times their polls' time (the whole loop), and the one at 50 us half.
build_or_fail "poll_gaps build" build_shared "$MPICC" "$HERE/polls/poll_gaps.c" poll_gaps -O2 || finish
gaps_run() { # LABEL HZ [GAP...: 0 200 50000]
    local label=$1 hz=$2 rc
    shift 2
    local gaps=("$@") prof=$PWD/$label.cubex
    [ ${#gaps[@]} -gt 0 ] || gaps=(0 200 50000)
    rm -f "$prof"
    HPROF_VERBOSE=1 HPROF_SAMPLING_HZ=$hz HPROF_OUTPUT=$prof run_mpi "$label" 1 ./poll_gaps 300 0.5 "${gaps[@]}"; rc=$?
    profile_run_check "$label run" "$label" "$prof" "$label.csv" "$rc" || return
    ok "$label run"
    grep -E $'^case_[0-9]+(_time)?\t' "$label.out" > "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 1
    if [ -n "${HPROFTEST_CLOCK_PART:-}" ]; then
        local part
        part=$(sed -n "s/.*the clock's part in a timed poll \([0-9.]*\) ns (${HPROFTEST_CLOCK_PART} ns first.*/\1/p" "$label.err")
        # a time bound: it follows what the reads cost when the run ends, and
        # in the host's slow stretches that is 2-3 times as much (95 ns once
        # in a make check, 15-19 ns quiet on an Intel Xeon VM)
        check "$label clock_part_time (the clock's part, started at ${HPROFTEST_CLOCK_PART} ns, tracked to what its reads cost)" \
            "tracked part ${part:-not printed} ns (want 1-40)" \
            python3 -c 'import sys; sys.exit(0 if 1 <= float(sys.argv[1] or 0) <= 40 else 1)' "$part"
    fi
    note "$label: $(grep -h '^case ' "$label.out" | awk '{printf "G=%s truth %s s (%s ns a poll +- %s); ", $2, $6, $8, $10}')"
}
timed_retried gaps_run poll-gaps-nosampling 0
timed_retried gaps_run poll-gaps-100hz 100
# the same where the clock is not the TSC (a timed poll's stamps are then
# nanoseconds, clock.h; clock_gettime on kvm-clock costs 20 or 30 ns
# between reads, a step of the TSC, 26 on average: the clock's part is
# the mean)
HPROFTEST_CLOCK=gettime timed_retried gaps_run poll-gaps-gettime 0
# a clock's part measured far off at the start (80 ns where the TSC's
# reads cost about 10) is corrected by the part tracked after each timed
# poll's end: kept, it would leave the loops at 0 and 200 ns about no MPI
# time (at 50 us a poll takes 130 ns and more, the runs above check it)
HPROFTEST_CLOCK_PART=80 timed_retried gaps_run poll-gaps-part80 0 0 200

# descheduled.c: a tight loop whose thread shares its CPU with a spinning
# thread keeps most of the time it was descheduled as the loop's MPI time
# (the thread's CPU clock tells how much), and a callee's computation once
# in a while in a tight loop stays out of it, sampling off and at 1000 Hz
build_or_fail "descheduled build" build_shared "$MPICC" "$HERE/polls/descheduled.c" descheduled -O2 -pthread || finish
timed_retried expect_run descheduled-nosampling 0 descheduled $'^(desched|chunked|late)(_time)?\t'
timed_retried expect_run descheduled-1000hz 1000 descheduled $'^(desched|chunked|late)(_time)?\t'
note "descheduled: $(grep -hE '^(descheduled|chunk_spun|late_spun) ' descheduled-*.out | tr '\n' ' ')"
finish
