#!/bin/bash
# unwind_prelearn: code met for the first time in a compute-only phase
# (128 functions one after the other, no MPI call in between) is walked
# with recipes the prelearner took from the program's frame index at the
# start (unwind/prelearn.c), not with libunwind at each function's first
# samples; the paths stay libunwind's. HPROF_PRELEARN=0 is the comparison
# (noted, not checked: how soon the learner catches up depends on the
# machine's load). Without prelearning about half of these samples fall
# back, with it 0-2%: the bound is 10%. The prelearner runs at idle
# priority, so how soon it gets its CPU time depends on the load too: the
# program waits for hprof's line that it prelearned before it computes,
# and is sampled on the CPU clock (a wait on the wall clock would be
# sampled in the C library, whose recipes would then be learned too).
. "$(dirname "$0")/progs/lib.sh"
require_built "firstmet build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "firstmet build" build_plain "$MPICC" "$HERE/unwind/firstmet.c" firstmet -O2 || finish

counts() { # LOG: "fast fallback mismatched" from the unwind self-check line
    local line; line=$(grep '^hprof-unwind-check: pid' "$1" | head -n 1)
    echo "$(sed -n 's/.* samples_fast \([0-9]*\).*/\1/p' <<<"$line") $(sed -n 's/.* samples_fallback \([0-9]*\).*/\1/p' <<<"$line") $(sed -n 's/.* mismatched \([0-9]*\).*/\1/p' <<<"$line")"
}
for pre in 1 0; do
    HPROF_PRELEARN=$pre HPROFTEST_UNWIND_CHECK=1 HPROF_SAMPLING_HZ=1000 HPROF_SAMPLING_CLOCK=cpu HPROF_VERBOSE=1 HPROF_OUTPUT=$PWD/p$pre.cubex \
        run_mpi_preload p$pre 1 ./firstmet 0.3 $([ $pre = 1 ] && echo "$PWD/p1.err")
    rc=$?
    [ "$rc" -eq 0 ] || { notok "firstmet run (HPROF_PRELEARN=$pre)" "exit $rc: $(oneline p$pre.err 300)"; continue; }
    ok "firstmet run (HPROF_PRELEARN=$pre)"
done
read -r fast slow mism <<<"$(counts p1.err)"
read -r fast0 slow0 mism0 <<<"$(counts p0.err)"
note "prelearned: $fast fast, $slow fell back; HPROF_PRELEARN=0: $fast0 fast, $slow0 fell back"
note "$(grep -o 'prelearned the recipes.*' p1.err | head -n 1)"
check "prelearn line" "no 'prelearned the recipes' line with HPROF_VERBOSE=1" grep -q 'prelearned the recipes of [1-9]' p1.err
if [ -n "$fast" ] && [ -n "$slow" ] && [ "$fast" -ge 100 ] && [ $((slow * 10)) -le "$((fast + slow))" ]; then
    ok "first-met code walked with prelearned recipes ($fast fast, $slow fell back to libunwind)"
else
    notok "first-met code walked with prelearned recipes" "want >= 100 samples and at most 10% through libunwind: ${fast:-?} fast, ${slow:-?} fell back"
fi
check "prelearned sample paths equal libunwind's" "mismatched ${mism:-none}" [ "${mism:-1}" = 0 ]
finish
