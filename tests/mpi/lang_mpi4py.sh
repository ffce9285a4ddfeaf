#!/bin/bash
# lang_mpi4py: a Python program (Debian's /usr/bin/python3 and
# python3-mpi4py) under `hprof-run MPIRUN -np 2 python3 script.py`: python3
# links no MPI library (mpi4py opens it with dlopen), so hprof-run takes the
# MPI library from the launcher; the profile has exact visits and bytes of
# the script's MPI calls, each under the Python function that made it
# (tests/mpi/python_frames.sh tests those paths in depth). Skipped with one
# line where mpi4py for this MPI library is not installed (Debian's is built
# for Open MPI).
. "$(dirname "$0")/progs/lib.sh"
require_built "mpi4py build"
use_hprof_run
PY=/usr/bin/python3 NP=2 ITERS=40

require_mpi4py mpi4py $PY

mkdir -p run && cd run
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP $PY "$PROGS/mpi4py_script.py" $ITERS \
    >run.out 2>run.err </dev/null; rc=$?
cubes=$(ls -A | grep '\.cubex')
if [ "$rc" -ne 0 ] || [ "$(wc -w <<<"$cubes")" -ne 1 ]; then
    notok "mpi4py run" "status $rc, profiles '$cubes'; stderr: $(tail -n 6 run.err | tr '\n' ' ' | cut -c1-400)"; finish
fi
ok "mpi4py run: one profile, MPI library taken from the launcher"
check "mpi4py script output" "stdout: $(oneline run.out 200)" grep -q '^done ' run.out
check "mpi4py nothing left behind" "$(ls -A | tr '\n' ' ')" test "$(ls -A | grep -c '^\.hprof-run')" -eq 0
to_csv "$cubes" run.csv || { notok "mpi4py csv" "$(head -c 300 run.csv.err)"; finish; }

E=run.expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
t "MPI_Init_thread once" 'glob:<module>;*;MPI_Init_thread' '*' visits == 1
t "reduce_step: MPI_Allreduce" 'glob:<module>;main;reduce_step;?*;MPI_Allreduce' '*' visits == "$ITERS"
t "reduce_step: MPI_Allreduce bytes" 'glob:<module>;main;reduce_step;?*;MPI_Allreduce' '*' bytes_sent == $((ITERS * NP * 8))
t "reduce_step: MPI_Allreduce bytes" 'glob:<module>;main;reduce_step;?*;MPI_Allreduce' '*' bytes_received == $((ITERS * NP * 8))
t "exchange: MPI_Send" 'glob:<module>;main;exchange;?*;MPI_Send' '*' visits == "$ITERS"
t "exchange: MPI_Send bytes" 'glob:<module>;main;exchange;?*;MPI_Send' '*' bytes_sent == $((ITERS * 8000))
t "exchange: MPI_Recv" 'glob:<module>;main;exchange;?*;MPI_Recv' '*' visits == "$ITERS"
t "exchange: MPI_Recv bytes" 'glob:<module>;main;exchange;?*;MPI_Recv' '*' bytes_received == $((ITERS * 8000))
t "pickled_bcast: MPI_Bcast (size, then pickle)" 'glob:<module>;main;pickled_bcast;?*;MPI_Bcast' '*' visits == $((2 * ITERS))
t "MPI_Barrier once" 'glob:<module>;main;?*;MPI_Barrier' '*' visits == 1
csv_check "mpi4py" run.csv $E "$NP" --ranks
finish
