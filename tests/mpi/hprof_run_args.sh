#!/bin/bash
# hprof_run_args: hprof-run leaves the program's arguments alone. A
# per-rank wrapper given the MPI program's path (MPIRUN -np 1 wrap.sh
# ./worker 'a b' '*') gets the preload in front of it, not in its argv, and
# the worker, started by it, is measured; hprof-run inside hprof-run
# writes one profile and says nothing of a missing one; a launcher that is
# not there is one line and the shell's status 127.
. "$(dirname "$0")/progs/lib.sh"
require_built "hprof_run_args"
use_hprof_run
D=$ROOT/tests/mpi/hprof_run_args
build_or_fail "hprof_run_args: build" build_plain "$MPICC" "$D/worker.c" worker || finish

# hprof_run DIR ARGS...: hprof-run ARGS in DIR, output in DIR/run.out, .err
hprof_run() {
    local dir=$1
    shift
    mkdir -p "$dir"
    (cd "$dir" && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" "$@" >run.out 2>run.err </dev/null)
}
profiles() { ls -A "$1" | grep -c '\.cubex$'; }

hprof_run wrap $MPIRUN -np 1 "$D/wrap.sh" ../worker 'a b' '*'
rc=$?
want="wrap.sh argv: [../worker] [a b] [*]"
if [ $rc = 0 ] && grep -qxF "$want" wrap/run.out && grep -qxF "worker argv: [a b] [*]" wrap/run.out; then
    ok "hprof_run_args: a wrapper's argv as given: $(grep wrap.sh wrap/run.out)"
else
    notok "hprof_run_args: a wrapper's argv as given" "status $rc, want '$want'; stdout: $(oneline wrap/run.out 300)"
fi
[ "$(profiles wrap)" = 1 ] && ! grep -q 'no profile' wrap/run.err \
    && ok "hprof_run_args: the worker behind the wrapper measured" \
    || notok "hprof_run_args: the worker behind the wrapper measured" "$(ls -A wrap | tr '\n' ' '); $(oneline wrap/run.err 300)"

hprof_run nested "$HPROF_RUN" $MPIRUN -np 1 ../worker x
rc=$?
if [ $rc = 0 ] && [ "$(profiles nested)" = 1 ] && ! grep -q '^hprof-run:' nested/run.err; then
    ok "hprof_run_args: hprof-run inside hprof-run: one profile, no line"
else
    notok "hprof_run_args: hprof-run inside hprof-run" "status $rc; $(ls -A nested | tr '\n' ' '); $(oneline nested/run.err 300)"
fi

hprof_run absent no-such-launcher-here -n 1 ../worker
rc=$?
if [ $rc = 127 ] && [ "$(wc -l <absent/run.err)" = 1 ] \
    && grep -qx 'hprof-run: no-such-launcher-here: command not found' absent/run.err; then
    ok "hprof_run_args: a launcher that is not there: one line, status 127"
else
    notok "hprof_run_args: a launcher that is not there" "status $rc; $(oneline absent/run.err 300)"
fi
finish
