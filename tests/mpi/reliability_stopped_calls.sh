#!/bin/bash
# Partial profiles that tell the truth (issue 37.5), under hprof-run, 4
# ranks (reliability/stopped.c). A hung job: ranks 0-2 in MPI_Barrier, rank
# 3 in MPI_Recv from a rank that never sends; each rank notes when it
# entered its call; once every rank has been in there a second by its own
# clock, each gets SIGTERM (the launcher stopped meanwhile, as in
# jobs_killed.sh). Each rank's call is booked on its path, one visit
# with its time up to the signal, not as computation. An aborted job: rank
# 1 calls MPI_Abort from give_up; the merged profile holds that call on
# rank 1's path, and its header names MPI_Abort on rank 1. Before the hung
# job is stopped, hprof-snapshot takes it as it hangs (issue 37.3):
# hprof-view --now places every rank on its path with the seconds it has
# waited by its own clock, rank 3's MPI_Recv with its source as a world
# rank (2, though it is rank 1 of the communicator it receives on) and its
# tag, and names the wait-for cycle of ranks 0-3, as text and as JSON.
. "$(dirname "$0")/progs/lib.sh"
require_built reliability_stopped_calls
use_hprof_run
export HPROF_SAMPLING_HZ=100 # a sample inside the call under way finds its path for the snapshot
NP=4
build_or_fail "stopped calls: build" build_plain "$MPICC" "$ROOT/tests/mpi/reliability/stopped.c" stopped -O1 || finish
mono() { python3 -c 'import time; print("%.6f" % time.monotonic())'; }
# What a rank's wait may read short of the time since it noted that it
# entered its call: the wrapper reads its clock after the rank's, and on a
# loaded machine (both MPIs' suites side by side, 4 busy ranks on 2 cores)
# the rank can be preempted between the two for tens of ms (25 ms seen).
SLACK=0.1

# start NAME ARGS...: hprof-run in a process group of its own, in folder NAME
start() { local dir=$1; shift
    mkdir -p "$dir" && cd "$dir" || return 1
    $CLEAN_ENV setsid "$HPROF_RUN" $MPIRUN -np $NP ../stopped "$@" >out 2>err </dev/null &
    runner=$!
    after 150 kill -KILL -- "-$runner"; watchdog=$AFTER_PID
}
finish_run() { wait $runner; rc=$?; cancel_after $watchdog; }
# all_entered: every rank noted that it entered its call (60 s at most),
# then a second more by the ranks' own clock; 1 when they did not
all_entered() {
    local last
    for _ in $(seq 600); do [ "$(ls entered.* 2>/dev/null | wc -l)" = $NP ] && break; sleep 0.1; done
    [ "$(ls entered.* 2>/dev/null | wc -l)" = $NP ] || return 1
    last=$(awk '{ print $2 }' entered.* | sort -n | tail -n 1)
    while awk -v now="$(mono)" -v t="$last" 'BEGIN { exit !(now < t + 1) }'; do sleep 0.1; done
}
prof=hprof-stopped-${NP}p.cubex

start hung
if ! all_entered; then
    notok "stopped calls: every rank enters its call" "$(oneline err)"; kill -KILL -- -$runner
else
    asked=$(mono)
    "$ROOT/tools/hprof-snapshot" $runner >snap.out 2>snap.err
    answered=$(mono)
    snap=$(tail -n 1 snap.out)
    if [ -s "$snap" ] && "$TEST_VIEW" --now "$snap" >now.txt 2>now.err && "$TEST_VIEW" --now --json "$snap" >now.json; then
        check "stopped calls, hung job: hprof-view --now places rank 3 in MPI_Recv and ranks 0-2 in MPI_Barrier" \
            "$(tr '\n' '|' <now.txt)" eval 'grep -qE "^rank  3 +main > wait_for_peer > MPI_Recv \(source 2, tag 7, on a communicator of 4 ranks\)   [0-9.]+ s$" now.txt &&
                grep -qE "^ranks 0-2 +main > wait_all > MPI_Barrier   [0-9.]+(-[0-9.]+)? s$" now.txt'
        check "stopped calls, hung job: hprof-view --now names the wait-for cycle of ranks 0-3" "$(tr '\n' '|' <now.txt)" \
            eval 'grep -q "^wait-for cycle: ranks 0-3 wait for each other" now.txt &&
                grep -qE "^  rank  3 +in MPI_Recv waits for rank 2$" now.txt &&
                grep -qE "^  ranks 0-2 +in MPI_Barrier waits for rank 3$" now.txt'
        out=$(python3 - "$asked" "$answered" now.json "$SLACK" entered.* <<'PY'
import json, sys
asked, answered, groups = float(sys.argv[1]), float(sys.argv[2]), json.load(open(sys.argv[3]))
slack = float(sys.argv[4])
entered = {int(f.split(".")[1]): float(open(f).read().split()[1]) for f in sys.argv[5:]}
want = {(3,): ["main", "wait_for_peer", "MPI_Recv"], (0, 1, 2): ["main", "wait_all", "MPI_Barrier"]}
got = {tuple(g["ranks"]): g for g in groups}
bad = [f"ranks {r}: {got.get(r, {}).get('path')}" for r, p in want.items() if got.get(r, {}).get("path") != p]
for r, g in got.items():
    lo = max(asked - entered[k] for k in r) - slack
    hi = min(answered - entered[k] for k in r) + 0.05
    if not (lo <= g["seconds_least"] <= g["seconds"] <= hi):
        bad.append(f"ranks {r}: {g['seconds_least']:.3f}-{g['seconds']:.3f} s, not within {lo:.3f}-{hi:.3f}")
recv = got.get((3,), {})
if recv.get("mpi") != {"function": "MPI_Recv", "comm": "size4", "source": 2, "tag": 7}:
    bad.append(f"rank 3's call: {recv.get('mpi')}")
if not all(g.get("in_cycle") for g in groups):
    bad.append("not every group in the cycle")
print("ok" if not bad and len(groups) == 2 else "; ".join(bad) or f"{len(groups)} groups")
PY
)
        check "stopped calls, hung job: --now --json groups, paths, peers, the cycle, and seconds as each rank waited by its own clock" \
            "$out" test "$out" = ok
    else
        notok "stopped calls, hung job: a snapshot read by --now" "$(oneline snap.err) $(oneline now.err 200)"
    fi
    ranks=$(awk '{ print $1 }' entered.* | tr '\n' ' ')
    parents=$(for p in $ranks; do ps -o ppid= -p "$p"; done | sort -u | tr '\n' ' ')
    launcher=$(pgrep -P $runner 2>/dev/null | tr '\n' ' ')
    # shellcheck disable=SC2086 # one pid a word
    kill -STOP $parents $launcher 2>/dev/null
    stop_at=$(mono)
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
    finish_run
    check "stopped calls, hung job: hprof-run merged all $NP ranks" "$(grep '^hprof' err | tr '\n' '|' | cut -c1-400)" \
        grep -q "merged the partial profiles of $NP ranks into $prof" err
    if to_csv $prof hung.csv; then
        bad=0 said=""
        for r in $(seq 0 $((NP - 1))); do
            if [ $r = $((NP - 1)) ]; then path="main;wait_for_peer;MPI_Recv"; else path="main;wait_all;MPI_Barrier"; fi
            waited=$(awk -v s="$stop_at" '{ printf "%.3f", s - $2 }' entered.$r)
            v=$(awk -F, -v p="$path" -v r=$r '$1 == p && $2 == r && $4 == "visits" { print $5 }' hung.csv)
            t=$(awk -F, -v p="$path" -v r=$r '$1 == p && $2 == r && $4 == "time" { print $5 }' hung.csv)
            said="$said rank $r: ${path##*;} $v visits ${t}s of ${waited}s;"
            [ "$v" = 1 ] && awk -v t="${t:-0}" -v w="$waited" -v s=$SLACK 'BEGIN { exit !(t >= w - s) }' || bad=1
        done
        check "stopped calls, hung job: each rank's wait booked to its call, on its path, up to the signal" "$said" \
            test $bad = 0
    else
        notok "stopped calls, hung job: the merged profile" "$(oneline hung.csv.err) $(ls | tr '\n' ' ')"
    fi
fi
cd ..

# A call under way on a thread the kill does not land on: each rank's
# second thread waits in MPI_Recv while its main thread computes; SIGTERM
# to the group (hprof-run passes it to the ranks). The writer books that
# thread's call: one visit, its time up to the kill, on its path, which a
# sample in the call found (its walk needs the C library's thread start,
# which the learner learns when the first sample misses it: at idle
# priority, with 8 busy threads on 2 cores, 4 of 44 such calls were never
# found and went under "(not unwound)").
start thread thread
if ! all_entered; then
    notok "stopped calls, a thread's call: every rank's thread enters MPI_Recv" "$(oneline err)"; kill -KILL -- -$runner
else
    stop_at=$(mono)
    kill -TERM -- -$runner
    finish_run
    if to_csv $prof thread.csv; then
        bad=0 said=""
        for r in $(seq 0 $((NP - 1))); do
            waited=$(awk -v s="$stop_at" '{ printf "%.3f", s - $2 }' entered.$r)
            v=$(awk -F, -v r=$r '$1 ~ /(^|;)MPI_Recv$/ && $2 == r && $3 == 1 && $4 == "visits" { print $1 "=" $5 }' thread.csv)
            t=$(awk -F, -v r=$r '$1 == "wait_in_thread;MPI_Recv" && $2 == r && $3 == 1 && $4 == "time" { print $5 }' thread.csv)
            said="$said rank $r: ${v//$'\n'/ } visits ${t}s of ${waited}s;"
            [ "$v" = "wait_in_thread;MPI_Recv=1" ] &&
                awk -v t="${t:-0}" -v w="$waited" -v s=$SLACK 'BEGIN { exit !(t >= w - s) }' || bad=1
        done
        check "stopped calls, a thread's call: booked to its MPI_Recv, on its path, one visit, its time up to the kill" "$said" \
            test $bad = 0
    else
        notok "stopped calls, a thread's call: the merged profile" "$(grep '^hprof' err | tr '\n' '|' | cut -c1-300)"
    fi
fi
cd ..

start aborted abort
finish_run
check "stopped calls, MPI_Abort: the job's status is MPI_Abort's" "status $rc" test "$rc" -ne 0
if to_csv $prof abort.csv; then
    v=$(awk -F, '$1 == "main;give_up;MPI_Abort" && $2 == 1 && $4 == "visits" { print $5 }' abort.csv)
    check "stopped calls, MPI_Abort: rank 1's call is in the profile on its path" \
        "visits '$v': $(grep MPI_Abort abort.csv | head -3 | tr '\n' ' ')" test "$v" = 1
    "$TEST_VIEW" $prof >view.txt 2>&1
    check "stopped calls, MPI_Abort: the header names MPI_Abort on rank 1" "$(grep -m1 '^partial' view.txt)" \
        grep -qE "^partial .*MPI_Abort on rank 1(;|$)" view.txt
else
    notok "stopped calls, MPI_Abort: the merged profile" "$(grep '^hprof' err | tr '\n' '|' | cut -c1-300) $(ls | tr '\n' ' ')"
fi
finish
