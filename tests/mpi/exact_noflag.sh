#!/bin/bash
# Functions measured exactly (issue 29.4): a program built without
# -fpatchable-function-entry runs as it does without a selection, and a
# selection gets one line saying what the build needs; a program built
# with it and no selection has nothing patched (no exact_time metric, no
# visits on its functions), and each name one more saying it has no NOP
# area; a name no function has gets one line: not in the program.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_noflag
build_or_fail "exact no flag: build" build_shared "$MPICC" "$here/exact/exact_c.c" noflag -O2 || finish
build_or_fail "exact no flag: build with the flag" build_shared "$MPICC" "$here/exact/exact_c.c" withflag -O2 \
    -fpatchable-function-entry=18,16 || finish

# run NAME LOG PROG [VAR=VALUE]: 2 ranks; the profile in LOG.csv
run() { local n=$1 log=$2 prog=$3; shift 3
    (for kv in "$@"; do export "${kv?}"; done
     HPROF_SAMPLING_HZ=100 profile_run "$n" "$log" "$log.cubex" "$log.csv" 2 "./$prog"); }
# lines LOG PATTERN: how many of hprof's lines match
lines() { grep -c "^hprof: .*$2" "$1.err"; }
no_exact() { ! grep -qE ',exact_time,|^main;solve,[0-9]+,[0-9]+,visits,[1-9]' "$1.csv"; }

if run "exact no flag: run with a selection" noflag noflag HPROFTEST_EXACT=solve,step; then
    check "exact no flag: one line says the build needs -fpatchable-function-entry=18,16" \
        "$(lines noflag fpatchable) such lines: $(grep '^hprof' noflag.err | head -3 | tr '\n' ' ')" \
        test "$(lines noflag 'no code loaded has patchable entries: build the program with -fpatchable-function-entry=18,16')" -eq 1
    check "exact no flag: one line for each name: no NOP area, built without the flag" \
        "$(grep '^hprof' noflag.err | head -4 | tr '\n' ' ')" \
        eval '[ "$(lines noflag "HPROFTEST_EXACT: solve has no NOP area: noflag was built without -fpatchable-function-entry ")" -eq 1 ] &&
              [ "$(lines noflag "HPROFTEST_EXACT: step has no NOP area: noflag was built without -fpatchable-function-entry ")" -eq 1 ]'
    check "exact no flag: the profile as without a selection (no exact_time, no visits on solve)" \
        "$(grep -E 'exact_time|^main;solve,.*visits' noflag.csv | head -2 | tr '\n' ' ')" no_exact noflag
fi
if run "exact with the flag, no selection: run" plain withflag; then
    check "exact with the flag, no selection: nothing patched, no line" \
        "$(grep -E 'exact_time|patchable' plain.csv plain.err | head -2 | tr '\n' ' ')" \
        eval 'no_exact plain && [ "$(lines plain patchable)" -eq 0 ]'
fi
if run "exact with the flag, an unknown name: run" unknown withflag HPROFTEST_EXACT=solve,nosuch; then
    check "exact with the flag, an unknown name: one line says it is not in the program, solve still measured" \
        "$(grep '^hprof' unknown.err | head -3 | tr '\n' ' ')" \
        eval '[ "$(lines unknown "HPROFTEST_EXACT: nosuch is not in the program: no module loaded has a function symbol of that name")" -eq 1 ] &&
              [ "$(grep -c "^hprof: " unknown.err)" -eq 2 ] && grep -qE "^main;solve,0,0,visits,2," unknown.csv'
fi
# Built with a NOP area too small for hprof's jumps (5 bytes before the
# entry, 2 at it): measured by nothing, which was said nowhere; now one
# line naming the shape and the flag that fits, and the program as without
# a selection.
for shape in 6,5 5,5 7,0; do
    tag=small${shape/,/_}
    build_or_fail "exact -fpatchable-function-entry=$shape: build" build_shared "$MPICC" "$here/exact/exact_c.c" "$tag" \
        -O2 "-fpatchable-function-entry=$shape" || continue
    run "exact -fpatchable-function-entry=$shape: run with a selection" "$tag" "$tag" 'HPROF_SELECT=name("^(solve|step)$")' \
        || continue
    check "exact -fpatchable-function-entry=$shape: one line names it and the flag that fits, nothing measured" \
        "$(grep '^hprof' "$tag.err" | head -3 | tr '\n' ' ')" \
        eval '[ "$(lines "$tag" "patchable entries (-fpatchable-function-entry=$shape) have too few NOP bytes for hprof.s jumps .*build with -fpatchable-function-entry=18,16")" -eq 1 ] && no_exact "$tag"'
done
finish
