#!/bin/bash
# mpi_sessions: an MPI-4 sessions program (MPI_Session_init, no MPI_Init)
# is measured like an MPI_Init one: the first session opens the measurement,
# the last MPI_Session_finalize merges (over a communicator hprof derives
# from a session of its own) and writes one profile with exact visits and
# bytes per call path on the program's session communicator. A program that
# mixes MPI_Init and a session, in either order, is measured once. Where
# the library refuses hprof's communicator (a preloaded shim refuses
# MPI_Comm_create_from_group), the process is not measured and says so in
# one line (rank 0 only), hprof-run adds its own line naming sessions, and
# the program's output and status are unchanged. Skipped with one line
# where the MPI library has no MPI_Session_init (Open MPI 4.1).
. "$(dirname "$0")/progs/lib.sh"
require_built "sessions build"
use_hprof_run
if ! nm -D --defined-only "$TEST_LIBDIR/libhprof.so" | grep -q ' MPI_Session_init$'; then
    echo "ok - sessions # skip: $TEST_MPI has no MPI_Session_init"; finish
fi
NP=2 NRED=6 NMSG=5 CNT=100 NBAR=3   # as in progs/session.c
build_or_fail "sessions build" build_plain "$MPICC" "$PROGS/session.c" session || finish
# the shim needs no MPI library of its own (mpirun loads it too)
build_or_fail "sessions build" build_plain "$MPICC" "$PROGS/refuse_comm.c" refuse_comm.so \
    -shared -fPIC -Wl,--as-needed -ldl || finish

# run_mode MODE: the program under hprof-run in its own folder run.MODE;
# checks status, output and exactly one 'wrote' line; the csv in MODE.csv
run_mode() { local m=$1 rc
    mkdir -p "run.$m" && ( cd "run.$m" &&
        $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP ../session $m \
            >run.out 2>run.err </dev/null ); rc=$?
    local n="sessions $m run"
    if [ "$rc" -ne 0 ] || [ "$(grep -c '^session: done 2$' "run.$m/run.out")" -ne 1 ]; then
        notok "$n" "status $rc; stdout: $(oneline "run.$m/run.out" 200); stderr: $(tail -n 4 "run.$m/run.err" | tr '\n' '|' | cut -c1-300)"; return 1
    fi
    local files; files=$(cd "run.$m" && ls -A | grep -v '^run\.\(out\|err\)$' | tr '\n' ' ')
    if [ "$(grep -c '^hprof: wrote ' "run.$m/run.err")" -ne 1 ] || [ "$(grep -c hprof "run.$m/run.err")" -ne 1 ] ||
       [ "$files" != "hprof-session-${NP}p.cubex " ]; then
        notok "$n" "one profile, one line expected; files: $files; stderr: $(grep hprof "run.$m/run.err" | head -n 4 | tr '\n' '|')"; return 1
    fi
    if ! to_csv "run.$m/hprof-session-${NP}p.cubex" "$m.csv"; then
        notok "$n" "hprof-view --csv failed: $(head -c 300 "$m.csv.err")"; return 1
    fi
    ok "$n"
}

# the session's part, the same in every mode (progs/session.c on_session)
expect_session() { local E=$1 S='main;on_session'
    t "session comm: path" "$S;MPI_Group_from_session_pset" '*' visits == 1
    t "session comm: path" "$S;MPI_Comm_create_from_group" '*' visits == 1
    t "session comm: path" "$S;MPI_Comm_free" '*' visits == 1
    t "session comm: path" "$S;MPI_Group_free" '*' visits == 1
    t "session comm: allreduce" "$S;reduce_loop;MPI_Allreduce" '*' visits == $NRED
    t "session comm: allreduce bytes" "$S;reduce_loop;MPI_Allreduce" '*' bytes_sent == $((NRED * NP * 8))
    t "session comm: allreduce bytes" "$S;reduce_loop;MPI_Allreduce" '*' bytes_received == $((NRED * NP * 8))
    t "session comm: send/recv" "$S;exchange;MPI_Send" 0 visits == $NMSG
    t "session comm: send/recv" "$S;exchange;MPI_Send" 0 bytes_sent == $((NMSG * CNT * 4))
    t "session comm: send/recv" "$S;exchange;MPI_Recv" 1 visits == $NMSG
    t "session comm: send/recv" "$S;exchange;MPI_Recv" 1 bytes_received == $((NMSG * CNT * 4))
    t "session comm: send/recv" "$S;exchange;MPI_Send" 1 visits absent
    t "session comm: send/recv" "$S;exchange;MPI_Recv" 0 visits absent
    t "MPI_Comm_rank not unwound" '(not unwound);MPI_Comm_rank' '*' visits == 1
}
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$E"; }

# sessions only: two sessions (both inits counted; the second's finalize,
# which is not the last, is an MPI call like any other)
if run_mode plain; then
    E=plain.expect; : > $E
    expect_session $E
    t "opened by the first session" 'main;MPI_Session_init' '*' visits == 2
    t "closed by the last session" 'main;MPI_Session_finalize' '*' visits == 1
    csv_check "sessions" plain.csv $E $NP --strict-paths --no-failed --ranks
fi
# MPI_Init first: the session does not reopen, MPI_Finalize closes
if run_mode mixed; then
    E=mixed.expect; : > $E
    expect_session $E
    t "MPI_Init opens" 'main;MPI_Init' '*' visits == 1
    t "MPI_Init opens" 'main;MPI_Session_init' '*' visits == 1
    t "MPI_Init opens" 'main;MPI_Session_finalize' '*' visits == 1
    t "MPI_Init opens" 'main;MPI_Barrier' '*' visits == $NBAR
    csv_check "sessions mixed" mixed.csv $E $NP --strict-paths --no-failed --ranks
fi
# a session first, MPI_Init/MPI_Finalize inside it: the session closes
if run_mode late; then
    E=late.expect; : > $E
    expect_session $E
    t "session opens" 'main;MPI_Session_init' '*' visits == 1
    t "session opens" 'main;MPI_Init' '*' visits == 1
    t "session opens" 'main;MPI_Barrier' '*' visits == $NBAR
    csv_check "sessions late" late.csv $E $NP --strict-paths --no-failed --ranks
fi

# two threads open a session each, at once: neither loses its calls (the
# second waits until the first has opened the measurement; before, it ran
# on unmeasured while the first derived hprof's communicator)
if run_mode threads; then
    E=threads.expect; : > $E
    S='thread_main;on_session'
    t "both threads' sessions" 'thread_main;MPI_Session_init' '*' visits == 2
    t "both threads' sessions" 'thread_main;MPI_Session_finalize' '*' visits == 1
    t "both threads' calls" "$S;reduce_loop;MPI_Allreduce" '*' visits == $((2 * NRED))
    t "both threads' calls" "$S;MPI_Comm_create_from_group" '*' visits == 2
    t "both threads' calls" "$S;exchange;MPI_Send" 0 visits == $((2 * NMSG))
    t "both threads' calls" "$S;exchange;MPI_Recv" 1 visits == $((2 * NMSG))
    t "allowed" "glob:$S;*" '*' visits allow
    t "allowed" 'glob:(not unwound);*' '*' visits allow
    t "allowed" 'glob:thread_main;MPI_Info_*' '*' visits allow
    csv_check "sessions threads" threads.csv $E $NP --strict-paths --no-failed --ranks
    per_thread=$(awk -F, '$4 == "visits" && $1 ~ /;MPI_Allreduce$/ { v[$2 " " $3] += $5 }
                          END { for (k in v) printf "%s:%d ", k, v[k] }' threads.csv)
    n=$(tr ' ' '\n' <<<"$per_thread" | grep -c ":$NRED\$")
    check "sessions threads: $NRED MPI_Allreduce on each of the 4 threads" "per rank, thread: $per_thread" test "$n" -eq 4
fi

# Fortran, `use mpi` and `use mpi_f08`: the library's Fortran binding calls
# the C MPI_Session_init/finalize, and each session still counts once
for v in f f08; do
    flags=""; [ $v = f08 ] && flags=-DF08
    build_or_fail "sessions $v build" build_plain "$MPIF90" "$PROGS/session_f.F90" "session_$v" $flags || continue
    prof=$PWD/session_$v.cubex
    HPROF_OUTPUT=$prof run_mpi_preload "session_$v" $NP "./session_$v"; rc=$?
    profile_run_check "sessions $v run" "session_$v" "$prof" "session_$v.csv" "$rc" || continue
    check "sessions $v run" "stdout: $(oneline "session_$v.out" 200)" grep -q '^session_f: done 2.0$' "session_$v.out"
    E=session_$v.expect; : > $E
    t "opened and closed once" 'main;MAIN__;MPI_Session_init' '*' visits == 1
    t "opened and closed once" 'main;MAIN__;MPI_Session_finalize' '*' visits absent
    t "session comm: allreduce" 'main;MAIN__;MPI_Allreduce' '*' visits == 4
    t "session comm: allreduce" 'main;MAIN__;MPI_Allreduce' '*' bytes_sent == $((4 * NP * 8))
    t "allowed" 'glob:main;MAIN__;MPI_*' '*' visits allow
    t "allowed" 'glob:(not unwound);*' '*' visits allow
    csv_check "sessions $v" "session_$v.csv" $E $NP --strict-paths --no-failed --ranks
done

# the library refuses hprof's communicator: one line, no profile
mkdir -p run.refused && cd run.refused
LD_PRELOAD=$PWD/../refuse_comm.so $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP ../session \
    >run.out 2>run.err </dev/null; rc=$?
check "sessions refused: program's status and output" "status $rc; stdout: $(oneline run.out 200)" \
    test "$rc" -eq 0 -a "$(grep -c '^session: done 2$' run.out)" -eq 1
n1=$(grep -c '^hprof: not measuring this process: it uses MPI sessions .*(MPI_Comm_create_from_group over mpi://WORLD failed)$' run.err)
n2=$(grep -c '^hprof-run: no profile was written: no rank called MPI_Init through hprof (.*MPI sessions' run.err)
if [ "$n1" -eq 1 ] && [ "$n2" -eq 1 ] && [ "$(grep -c hprof run.err)" -eq 2 ]; then
    ok "sessions refused: one line from the library, one from hprof-run naming sessions"
else
    notok "sessions refused: one line from the library, one from hprof-run naming sessions" "stderr: $(grep hprof run.err | head -n 4 | tr '\n' '|')"
fi
left=$(ls -A | grep -v '^run\.\(out\|err\)$')
check "sessions refused: nothing left behind" "found: $left" test -z "$left"
finish
