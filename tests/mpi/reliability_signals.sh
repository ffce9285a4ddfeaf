#!/bin/bash
# The program's own signal handling and MPI calls outside MPI_Init..Finalize
# behave exactly as without hprof.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
src="$here/reliability/signals.c"
$MPICC -g -O1 "$src" -o plain -lpthread || { echo "not ok - build signals.c"; exit 1; }
$MPICC -g -O1 "$src" -o sig -lpthread "${HPROF_SHARED[@]}" || { echo "not ok - build"; exit 1; }

run() { # name binary mode -> out.$name, rc.$name
    HPROF_SAMPLING_HZ=1000 timeout 60 $MPIRUN -np 2 ./$2 $3 >out.$1 2>err.$1
    echo $? >rc.$1
}
# MPICH's launcher decides a job's status by which rank ends first and how
# (segv: both ranks exit 3; it may hang up on the second first, status 1),
# with or without hprof: a status or an output that differs is measured
# again, up to three times, plain and profiled alike; one that hprof
# changed differs every time.
same_run() { # mode
    [ "$(cat rc.plain-$1)" = "$(cat rc.hprof-$1)" ] && diff <(sort out.plain-$1) <(sort out.hprof-$1) >/dev/null
}
for mode in prof segv blocked early; do
    for try in 1 2 3; do
        run plain-$mode plain $mode
        run hprof-$mode sig $mode
        [ "$mode" = prof ] || same_run $mode && break
        echo "# $mode: status $(cat rc.hprof-$mode), without hprof $(cat rc.plain-$mode) (try $try)"
    done
    a=$(cat rc.plain-$mode) b=$(cat rc.hprof-$mode)
    [ "$b" != 124 ] && [ "$a" = "$b" ] && echo "ok - $mode: exit status $b as without hprof" \
        || echo "not ok - $mode: exit status $b, without hprof $a"
    case $mode in
    prof)
        awk '$1 == "own" { n++; if ($3 < 5 || $3 > 60) bad = 1 } END { exit !(n == 2 && !bad) }' out.hprof-$mode \
            && echo "ok - prof: the program's SIGPROF handler gets its own 50 Hz signals only: $(tr '\n' ' ' <out.hprof-$mode)" \
            || echo "not ok - prof: program's handler counts: $(tr '\n' ' ' <out.hprof-$mode) (without hprof: $(tr '\n' ' ' <out.plain-$mode))"
        ;;
    *)
        if diff <(sort out.plain-$mode) <(sort out.hprof-$mode) >/dev/null; then
            echo "ok - $mode: the program's output is unchanged"
        else
            echo "not ok - $mode: output differs: $(tr '\n' ' ' <out.hprof-$mode) vs $(tr '\n' ' ' <out.plain-$mode)"
        fi
        ;;
    esac
done
grep -v '^hprof: ' err.hprof-early | grep -q . && echo "not ok - early: extra stderr: $(cat err.hprof-early)" \
    || echo "ok - early: nothing but hprof's own lines on stderr"
