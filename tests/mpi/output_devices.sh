#!/bin/bash
# output_devices: HPROF_OUTPUT naming a device node (a private mknod copy of
# /dev/null, never the real one), a FIFO or a socket is refused in one line:
# the node is left as it was (before, the profile was renamed over it: as
# root HPROF_OUTPUT=/dev/null replaced the machine's /dev/null), the program
# runs and exits as without hprof, and nothing is left beside the node: no
# temporary, no partial profile (<output>.rank<R>.cubex) of a run that ends
# in MPI_Abort.
. "$(dirname "$0")/progs/lib.sh"
require_built "output devices build"
use_hprof_run
build_or_fail "output devices build" build_plain "$MPICC" "$PROGS/app.c" app || finish

# NAME KIND MAKE...: makes the node d/out with MAKE, runs app on 2 ranks
# with HPROF_OUTPUT=d/out (ARGS from $APP_ARGS), checks what is left
node_case() { local n=$1 kind=$2 want_rc=$3; shift 3
    rm -rf d && mkdir d && "$@" || { notok "$n: make the node" "$*"; return; }
    local before; before=$(stat -c '%F %t:%T' d/out)
    HPROF_OUTPUT=$PWD/d/out $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 2 ./app 3 $APP_ARGS \
        >"$n.out" 2>"$n.err" </dev/null; local rc=$?
    sleep 1   # a partial profile is written in the background
    check "$n: the program's status" "status $rc, want $want_rc; stderr: $(tail -n 3 "$n.err" | tr '\n' ' ' | cut -c1-300)" \
        test "$rc" -eq "$want_rc"
    check "$n: left as it was" "was '$before', now '$(stat -c '%F %t:%T' d/out 2>&1)'" \
        test "$(stat -c '%F %t:%T' d/out 2>&1)" = "$before"
    check "$n: nothing beside it" "left: $(ls -A d | grep -vx out | tr '\n' ' ')" test "$(ls -A d)" = out
    local c; c=$(grep -c "^hprof: .*HPROF_OUTPUT $PWD/d/out is $kind: hprof writes only a regular file or a new name" "$n.err")
    # after MPICH's MPI_Abort only the aborting rank is left to speak, and it is not rank 0
    check "$n: said in one line" "$c lines; stderr: $(head -c 400 "$n.err" | tr '\n' ' ')" \
        test "$c" -eq 1 -o "$c" -eq 0 -a "$want_rc" -ne 0 -a "$TEST_MPI" = mpich
}
make_socket() { /usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' d/out; }

APP_ARGS=""
if [ "$(id -u)" -eq 0 ]; then
    node_case "output a character device" "a character device" 0 mknod -m 666 d/out c 1 3
else
    echo "ok - output a character device # skip: mknod needs root"
fi
node_case "output a FIFO" "a FIFO" 0 mkfifo d/out
node_case "output a socket" "a socket" 0 make_socket
# the last rank calls MPI_Abort(7): each rank's partial profile would be
# named after the FIFO
APP_ARGS="0 abort"
node_case "output a FIFO, MPI_Abort" "a FIFO" 7 mkfifo d/out
finish
