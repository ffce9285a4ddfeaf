#!/bin/bash
# output_names: names HPROF_OUTPUT gives that a file system or a reader of
# hprof's lines cannot take. A newline in it (which split the 'hprof:
# wrote' line in two, and made a file whose name held it) is refused in
# one line that shows it escaped, and the profile goes to the default name,
# its line whole. A basename of 250 bytes, in a job that exits without
# MPI_Finalize (merge_hostile/quit.c): the partial profile's name,
# <stem>.rank0.cubex, would pass NAME_MAX (255), and the profile was lost;
# the stem is shortened to fit, and the profile is there and merges.
. "$(dirname "$0")/progs/lib.sh"
require_built "output_names"
export HPROF_SAMPLING_HZ=0 HPROF_PRELEARN=0
build_or_fail "output_names: build app" build_shared "$MPICC" "$PROGS/app.c" app || finish
build_or_fail "output_names: build quit" build_shared "$MPICC" "$ROOT/tests/mpi/merge_hostile/quit.c" quit || finish

mkdir -p nl
HPROF_OUTPUT="$PWD/nl/a
b.cubex" run_mpi newline 2 ./app 3
rc=$?
said=$(grep -c "^hprof: HPROF_OUTPUT='$PWD/nl/a\\\\nb.cubex' holds a control character" newline.err)
if [ $rc = 0 ] && [ "$said" = 1 ] && [ -z "$(ls -A nl)" ] && [ -s hprof-app-2p.cubex ] \
    && grep -q '^hprof: wrote hprof-app-2p.cubex (.* call paths, 2 ranks)' newline.err \
    && [ "$(grep -vc '^hprof: ' newline.err)" = 0 ]; then
    ok "output_names: a newline in HPROF_OUTPUT: one line, the default name, every line whole"
else
    notok "output_names: a newline in HPROF_OUTPUT" "status $rc, $said refusals, in nl/: '$(ls -A nl | tr '\n' '|')'; stderr: $(oneline newline.err 400)"
fi

mkdir -p lb
base=$(printf 'y%.0s' $(seq 244)).cubex
HPROF_OUTPUT="$PWD/lb/$base" run_mpi long 1 ./quit a
# written in the background after the rank ended, renamed into place whole
for _ in $(seq 300); do
    compgen -G "lb/*.rank0.cubex" >/dev/null && break
    sleep 0.1
done
got=$(ls lb)
case $got in
*.rank0.cubex)
    if [ "$(ls lb | wc -l)" = 1 ] && [ "${#got}" -le 255 ] && "$ROOT/build/tools/hprof-merge" -o merged.cubex "lb/$got" >m.out 2>&1; then
        ok "output_names: a basename of 250 bytes: the partial profile as ${#got} bytes, ...${got: -24}, merges"
    else
        notok "output_names: a basename of 250 bytes" "files: $(ls -A lb | tr '\n' ' '); $(oneline m.out)"
    fi ;;
*) notok "output_names: a basename of 250 bytes: the partial profile" "files: '${got}'; stderr: $(oneline long.err 300)" ;;
esac
finish
