#!/bin/bash
# Runs that never reach MPI_Finalize: nothing hangs, the exit status is the
# one the program has without hprof, and ranks that get the chance write a
# per-rank fallback profile that hprof-view reads. Forked children write
# nothing.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
src="$here/reliability/dying.c"
$MPICC -g -O1 "$src" -o plain || { echo "not ok - build dying.c"; exit 1; }
$MPICC -g -O1 "$src" -o dying "${HPROF_SHARED[@]}" || { echo "not ok - build"; exit 1; }

# exit: every rank exits at once; with several ranks MPICH's launcher kills
# whichever ranks are still running when the first one is gone, a race that
# decides the launcher's status whatever hprof does, so that case runs one
# rank: its status is the program's.
status_of() { # how binary
    local np=3
    [ "$1" = exit ] && np=1
    mkdir -p "run-$2-$1" && (cd "run-$2-$1" && timeout 90 $MPIRUN -np $np ../$2 "$1" >out 2>err; echo $? >rc)
    cat "run-$2-$1/rc"
}

# Fallback profiles are written by detached processes after the ranks died:
# wait (10 s at most) until no hprof process of this run is left.
wait_writers() {
    for _ in $(seq 100); do
        pgrep -f "$PWD/dying" >/dev/null || pgrep -x dying >/dev/null || return 0
        sleep 0.1
    done
}

# MPICH's launcher itself now and then reports status 1 ("Hangup") for a
# rank that exited with 7, with or without hprof: a status that differs
# is measured again, up to three times, plain and profiled alike; a status
# that hprof changed differs every time.
for how in exit abort segv kill fork; do
    for try in 1 2 3; do
        rm -rf run-plain-$how run-dying-$how
        want=$(status_of $how plain)
        got=$(status_of $how dying)
        dir=run-dying-$how
        wait_writers
        [ "$got" = "$want" ] || [ "$got" = 124 ] || [ "$how" = kill ] && break
        echo "# $how: status $got, without hprof $want (try $try)"
    done
    if [ "$got" = 124 ]; then echo "not ok - $how: hung (killed by the test's timeout)"; continue; fi
    # The launcher's own status can differ between its kill paths; a non-zero
    # status must stay non-zero and a specific one must stay that one.
    if [ "$got" = "$want" ] || { [ "$want" != 0 ] && [ "$got" != 0 ] && [ "$how" = kill ]; }; then
        echo "ok - $how: exit status $got, as without hprof"
    else
        echo "not ok - $how: exit status $got, without hprof $want"
    fi
    files=$(cd $dir && ls *.cubex 2>/dev/null | tr '\n' ' ')
    case $how in
    fork)
        [ "$files" = "hprof-dying-3p.cubex " ] && echo "ok - fork: children wrote nothing, the parent one profile" \
            || echo "not ok - fork: files: $files"
        ;;
    kill)
        echo "ok - kill: no hang; fallback files of the survivors: ${files:-none}"
        ;;
    *)
        # The rank that exits, aborts or crashes writes before dying.
        case $how in exit) need=hprof-dying-1p.rank0.cubex ;; *) need=hprof-dying-3p.rank1.cubex ;; esac
        if [ -s "$dir/$need" ]; then
            v=$("$TEST_VIEW" --csv "$dir/$need" | awk -F, '$1 == "main;work;MPI_Allreduce" && $4 == "visits" { print $5 }')
            p=$(tar xOf "$dir/$need" anchor.xml | grep -c 'hprof::partial')
            [ "$v" = 50 ] && [ "$p" = 1 ] && echo "ok - $how: $need readable, 50 MPI_Allreduce visits, marked partial" \
                || echo "not ok - $how: $need: visits '$v', partial marks $p"
        else
            echo "not ok - $how: no $need (files: ${files:-none}); $(grep hprof $dir/err | head -3)"
        fi
        ;;
    esac
    left=$(ls -A $dir | grep -v -E '^(out|err|rc)$|\.cubex$' | tr '\n' ' ')
    [ -z "$left" ] && echo "ok - $how: no temporary files left behind" || echo "not ok - $how: left behind: $left"
done
