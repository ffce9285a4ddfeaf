#!/bin/bash
# merge_hostile: hprof-merge refuses what is not one job, and never
# replaces an input. Two runs of merge_hostile/quit.c (two call trees,
# every rank exits without MPI_Finalize) leave partial profiles; rank 0 of
# one with rank 1 of the other is refused with one line, and nothing is
# written; the ranks of one run merge. With -f, an output that is an input
# under another spelling (./, a symbolic link to its folder, a hard link)
# is refused and the input is left as it was.
. "$(dirname "$0")/progs/lib.sh"
require_built "merge_hostile"
MERGE=$ROOT/build/tools/hprof-merge
export HPROF_SAMPLING_HZ=0 HPROF_PRELEARN=0
build_or_fail "merge_hostile: build" build_shared "$MPICC" "$ROOT/tests/mpi/merge_hostile/quit.c" quit || finish

# run_partial DIR PHASE: a 2-rank run whose ranks write DIR/job.rank<R>.cubex
# in the background after they exited; waits for both files.
run_partial() {
    mkdir -p "$1"
    HPROF_OUTPUT=$PWD/$1/job.cubex run_mpi "$1/run" 2 ./quit "$2"
    for _ in $(seq 600); do
        [ -f "$1/job.rank0.cubex" ] && [ -f "$1/job.rank1.cubex" ] && return 0
        sleep 0.1
    done
    notok "merge_hostile: run $1's partial profiles" "$(ls "$1" | tr '\n' ' '); $(oneline "$1/run.err")"
    return 1
}
run_partial runA a && run_partial runB b || finish

# refused ONE-NAME OUTPUT INPUT...: exit nonzero, one line, OUTPUT as it was
refused() {
    local name=$1 out=$2 before after rc
    shift 2
    before=$(md5sum <"$out" 2>/dev/null)
    "$MERGE" "$@" >o.txt 2>e.txt
    rc=$?
    after=$(md5sum <"$out" 2>/dev/null)
    if [ $rc != 0 ] && [ "$(wc -l <e.txt)" = 1 ] && [ ! -s o.txt ] && [ "$after" = "$before" ]; then
        ok "merge_hostile: $name: exit $rc, $(cat e.txt)"
    else
        notok "merge_hostile: $name refused" "exit $rc, '$(oneline e.txt) $(oneline o.txt)', output ${before:-absent} -> ${after:-absent}"
    fi
}
refused "two runs of two programs" mixed.cubex -o mixed.cubex runA/job.rank0.cubex runB/job.rank1.cubex
grep -q 'different runs' e.txt || notok "merge_hostile: the line says why" "$(oneline e.txt)"
"$MERGE" -o one.cubex runA/job.rank0.cubex runA/job.rank1.cubex >o.txt 2>&1 && [ -s one.cubex ] \
    && ok "merge_hostile: the ranks of one run merge: $(oneline o.txt)" \
    || notok "merge_hostile: the ranks of one run merge" "$(oneline o.txt)"

# fresh: out/r0.cubex and out/r1.cubex as run A left them (a case that
# failed replaced one), out/hard.cubex a hard link of out/r1.cubex
fresh() {
    mkdir -p out && cp runA/job.rank0.cubex out/r0.cubex && cp runA/job.rank1.cubex out/r1.cubex \
        && ln -f out/r1.cubex out/hard.cubex
}
ln -sfn out out_link
fresh && (cd out && refused "-f -o ./r0.cubex r0.cubex" r0.cubex -f -o ./r0.cubex r0.cubex r1.cubex)
fresh && refused "-f -o through a linked folder" out/r0.cubex -f -o out_link/r0.cubex out/r0.cubex out/r1.cubex
fresh && refused "-f -o a hard link of an input" out/r1.cubex -f -o out/hard.cubex out/r0.cubex out/r1.cubex
finish
ln -sfn out out_link
ln -f out/r1.cubex out/hard.cubex
(cd out && refused "-f -o ./r0.cubex r0.cubex" r0.cubex -f -o ./r0.cubex r0.cubex r1.cubex)
refused "-f -o through a linked folder" out/r0.cubex -f -o out_link/r0.cubex out/r0.cubex out/r1.cubex
refused "-f -o a hard link of an input" out/r1.cubex -f -o out/hard.cubex out/r0.cubex out/r1.cubex
finish
