#!/bin/bash
# A killed job merges itself (issue 37.4): hprof-run runs
# merge_offline/killed.c on 4 ranks, which calls MPI_Pack and counts its own
# calls until it is killed. 1) Each rank gets SIGTERM while the launcher is
# stopped (so that it cannot SIGKILL a rank before that rank, on a busy
# machine, handled its own SIGTERM), then the launcher goes on: hprof-run
# waits for the ranks' partial profiles, merges them at the name the job's
# profile would have had, says so in one line and exits with the
# launcher's status; each rank's MPI_Pack visits equal its own count. 2) A
# scheduler's kill, SIGTERM to the whole process group (SIGKILL 10 s later):
# hprof-run, whose launcher has a group of its own without a terminal,
# passes the signal to the ranks first, so every rank writes its partial
# profile before the launcher's kill: all ranks merged, visits exact.
. "$(dirname "$0")/progs/lib.sh"
require_built jobs_killed
use_hprof_run
NP=4
build_or_fail "killed job: build" build_plain "$MPICC" "$ROOT/tests/mpi/merge_offline/killed.c" killed -O1 || finish

# start NAME: hprof-run in a process group of its own, in folder NAME;
# waits until every rank made 200 calls. Sets runner, ranks.
start() {
    mkdir -p "$1" && cd "$1" || return 1
    # no timeout(1) in between: one that gets SIGTERM kills its command 5 s
    # later (-k), before hprof-run is done; a watchdog of our own instead
    $CLEAN_ENV setsid "$HPROF_RUN" $MPIRUN -np $NP ../killed >out 2>err </dev/null &
    runner=$!
    after 150 kill -KILL -- "-$runner"; watchdog=$AFTER_PID
    local going
    wait_counts $NP 200; going=$?
    ranks=$(awk '{ print $1 }' count.* 2>/dev/null | tr '\n' ' ')
    [ $going = 0 ] || { notok "killed job ($1): the ranks get going" "$(oneline err)"; kill -TERM -- -$runner; return 1; }
}
# check_own_counts NAME CSV: each rank's MPI_Pack visits in CSV equal its
# own count of calls (count.<rank>)
check_own_counts() {
    local bad=0 said="" r own v
    for r in $(seq 0 $((NP - 1))); do
        own=$(awk '{ print $2 }' count.$r)
        v=$(awk -F, -v r=$r '$1 == "main;pack_once;MPI_Pack" && $2 == r && $4 == "visits" { print $5 }' "$2")
        said="$said rank $r: $v of $own;"
        [ "$v" = "$own" ] || bad=1
    done
    check "$1" "$said" test $bad = 0
}
# merged_line: hprof-run's line, its rank count and file
merged_line() { grep '^hprof-run: the job ended without MPI_Finalize' err | head -n 1; }

if start termed; then
    parents=$(for p in $ranks; do ps -o ppid= -p "$p"; done | sort -u | tr '\n' ' ')
    launcher=$(pgrep -P $runner 2>/dev/null | tr '\n' ' ')
    # shellcheck disable=SC2086 # one pid a word
    kill -STOP $parents $launcher 2>/dev/null
    # shellcheck disable=SC2086
    kill -TERM $ranks
    for _ in $(seq 100); do
        alive=0
        for p in $ranks; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -CONT $parents $launcher 2>/dev/null
    wait $runner; rc=$?
    cancel_after $watchdog
    line=$(merged_line)
    check "killed job: hprof-run exits with the launcher's status (not 0)" "status $rc" test "$rc" -ne 0
    check "killed job: one line says the partial profiles of all $NP ranks were merged into the job's name" \
        "$(grep -c '^hprof-run' err) lines: $(grep '^hprof' err | tr '\n' '|' | cut -c1-500)" \
        eval '[ "$(grep -c "^hprof-run" err)" -eq 1 ] && [[ "$line" == *"(status $rc): merged the partial profiles of $NP ranks into hprof-killed-${NP}p.cubex" ]]'
    if to_csv hprof-killed-${NP}p.cubex run.csv; then
        check_own_counts "killed job: each rank's MPI_Pack visits are its own count of calls" run.csv
        "$TEST_VIEW" hprof-killed-${NP}p.cubex >view.txt 2>&1
        check "killed job: hprof-view's header says the profile is partial, merged from $NP ranks" \
            "$(grep -m1 '^partial' view.txt)" grep -q "^partial    merged by hprof-merge from $NP profiles of $NP ranks; Terminated on ranks 0-$((NP - 1))$" view.txt
    else
        notok "killed job: the merged profile" "$(oneline run.csv.err) $(ls | tr '\n' ' ')"
    fi
    cd ..
fi

if start group; then
    pg=$(ps -o pgid= -p $runner | tr -d ' ')
    kill -TERM -- "-$pg"
    after 10 kill -KILL -- "-$pg"; killer=$AFTER_PID
    wait $runner; rc=$?
    cancel_after $killer; cancel_after $watchdog
    line=$(merged_line)
    files=$(ls hprof-killed-${NP}p.rank*.cubex 2>/dev/null | wc -l)
    # hprof-run, alone in the group the scheduler signals, passes SIGTERM to
    # the ranks before the launcher, whose own kill follows within ms
    check "killed job, SIGTERM to the group: hprof-run merged every rank's partial profile" \
        "$files of $NP ranks wrote theirs; $line" \
        eval '[[ "$line" == *"(status $rc): merged the partial profiles of $NP ranks into hprof-killed-${NP}p.cubex" ]]'
    if to_csv hprof-killed-${NP}p.cubex group.csv; then
        check_own_counts "killed job, SIGTERM to the group: each rank's visits are its own count" group.csv
    else
        notok "killed job, SIGTERM to the group: the merged profile" "$(oneline group.csv.err) $(oneline err)"
    fi
    cd ..
fi
finish
