#!/bin/bash
# merge_32_ranks: 32 ranks (oversubscribed) with rank-dependent call paths
# merge into one profile within the timeout; every rank is in it and every
# rank-dependent path is present on exactly the right ranks.
. "$(dirname "$0")/progs/lib.sh"
require_built "merge32 build"
export HPROF_SAMPLING_HZ=0
NP=32 M_ITER=5 M_MSG=3 M_COUNT=100
build_or_fail "merge32 build" build_shared "$MPICC" "$PROGS/merge.c" merge || finish
prof=$PWD/merge32.cubex
start=$(date +%s.%N)
HPROF_OUTPUT=$prof run_mpi merge32 "$NP" ./merge; rc=$?
note "merge32: mpirun took $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
profile_run_check "merge32 run" merge32 "$prof" merge32.csv "$rc" || { show merge32.err; finish; }
ok "merge32 run"
note "merge32: merge+write $(wrote_field merge32.err merge) s, $(wrote_field merge32.err bytes) bytes, $(wrote_field merge32.err paths) call paths, $(wrote_field merge32.err ranks) ranks"
if [ "$(grep -c '^hprof: wrote ' merge32.err)" -eq 1 ] && [ "$(wrote_field merge32.err ranks)" = "$NP" ]; then
    ok "merge32 finalize line says $NP ranks (merge+write $(wrote_field merge32.err merge) s)"
else
    notok "merge32 finalize line says $NP ranks" "$(grep '^hprof:' merge32.err | head -n 3 | tr '\n' '|')"
fi

E=merge32.expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
for ((r = 0; r < NP; r++)); do
    t "common path" "main;common;MPI_Allreduce" $r visits == $M_ITER
    if ((r % 2 == 0)); then
        t "even ranks only" "main;even_send;MPI_Send" $r visits == $M_MSG
        t "even ranks only" "main;even_send;MPI_Send" $r bytes_sent == $((M_MSG * M_COUNT * 4))
        t "odd ranks only" "main;odd_recv;MPI_Recv" $r visits absent
    else
        t "even ranks only" "main;even_send;MPI_Send" $r visits absent
        t "odd ranks only" "main;odd_recv;MPI_Recv" $r visits == $M_MSG
        t "odd ranks only" "main;odd_recv;MPI_Recv" $r bytes_received == $((M_MSG * M_COUNT * 4))
    fi
    if ((r % 4 == 0)); then
        t "every 4th rank only" "main;quad;deeper;nullxchg;MPI_Sendrecv" $r visits == 2
    else
        t "every 4th rank only" "main;quad;deeper;nullxchg;MPI_Sendrecv" $r visits absent
    fi
    if ((r == NP - 1)); then
        t "last rank only" "main;last_only;MPI_Sendrecv" $r visits == 1
    else
        t "last rank only" "main;last_only;MPI_Sendrecv" $r visits absent
    fi
    t "allowed" "main;MPI_Init" $r visits allow
    t "allowed" "main;MPI_Finalize" $r visits allow
    t "allowed" "glob:(not unwound);*" $r visits allow
done
csv_check "merge32" merge32.csv $E "$NP" --ranks --strict-paths --no-failed --roots "main,(not unwound)"
finish
