#!/bin/bash
# Functions measured exactly (issue 38.4): every visit on its full call
# path. exact/exact_first.c calls first_visit from main at its first
# statements after MPI_Init (while the learner publishes the program's
# prelearned recipes: an entry whose walk needs one waits for its lock),
# then from realigned(), a
# frame whose CFI is an expression the recipes do not model (every entry
# from there goes to libunwind). That walk went through the entry
# trampoline, which has no CFI: libunwind guessed from rbp and skipped the
# caller (the visit under the root or main), took a stack address for a
# frame, or failed (under "(unwind failed)"), uncounted. On 8 ranks
# (oversubscribed), at 1000, 2000 and 5000 Hz: each rank's visits sit
# under main and main;realigned as the program counted them, no other
# node of first_visit exists; lost_visit, called through assembly without
# CFI, is under "(unwind failed)" (all its visits counted somewhere), and
# hprof-view's header counts those entries. The unwinder's self-check
# agrees with libunwind on the entries' paths.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_first
build_or_fail "exact first: build" build_shared "$MPICC" "$here/exact/exact_first.c" first -O2 \
    -fpatchable-function-entry=18,16 || finish
np=8
for hz in 1000 2000 5000; do
    rm -f exact.expect.*
    HPROFTEST_EXACT=first_visit,lost_visit HPROF_SAMPLING_HZ=$hz \
        profile_run "exact first at $hz Hz: run" first$hz first$hz.cubex first$hz.csv $np ./first || continue
    bad=""
    lost=0
    for r in $(seq 0 $((np - 1))); do
        [ -s exact.expect.$r ] || { bad="$bad rank $r wrote no counts;"; continue; }
        while read -r _ path n; do
            if [ "$path" = lost_visit ]; then
                lost=$((lost + n))
                continue
            fi
            got=$(awk -F, -v p="$path" -v r="$r" '$1 == p && $2 == r && $4 == "visits" { print $6 }' first$hz.csv)
            [ "$got" = "$n" ] || bad="$bad rank $r: $path ${got:-0} of $n ($(awk -F, -v r="$r" \
                '$2 == r && $4 == "visits" && $1 ~ /(^|;)first_visit$/' first$hz.csv | tr '\n' ' '));"
        done <exact.expect.$r
    done
    check "exact first at $hz Hz: every rank's visits of first_visit under main and main;realigned" \
        "$bad" test -z "$bad"
    others=$(grep -E ',visits,' first$hz.csv | grep -E '(^|;)first_visit,' |
        grep -vE '^main;(realigned;)?first_visit,' | head -4 | tr '\n' ' ')
    check "exact first at $hz Hz: no other node of first_visit (root, (unwind failed), a wrong caller)" \
        "$others" test -z "$others"
    # lost_visit: where a walk went to libunwind (a recipe it could not
    # learn), libunwind guesses a path through the frame without CFI
    # instead of failing
    "$TEST_VIEW" --header first$hz.cubex >first$hz.view 2>&1
    all=$(awk -F, '$4 == "visits" && $1 ~ /(^|;)lost_visit$/ { n += $6 } END { print n + 0 }' first$hz.csv)
    failed=$(awk -F, '$4 == "visits" && $1 ~ /^\(unwind failed\);(.*;)?lost_visit$/ { n += $6 } END { print n + 0 }' \
        first$hz.csv)
    check "exact first at $hz Hz: the header counts the $failed entries of lost_visit that failed to unwind" \
        "$all of $lost visits in the profile; $(grep -E 'exact|failed' first$hz.view | tr '\n' ' ')" \
        eval '[ "$all" = "$lost" ] && [ "$failed" -gt 0 ] &&
              grep -qE "^ +$failed of their entries failed to unwind; those visits are under \(unwind failed\)$" first$hz.view'
done

# The self-check (HPROFTEST_UNWIND_CHECK=1) compares each entry's path with
# libunwind's walk from the same call site, not through the trampoline.
HPROFTEST_UNWIND_CHECK=1 HPROFTEST_EXACT=first_visit HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/check.cubex \
    run_mpi check 1 ./first
line=$(grep '^hprof-unwind-check: pid' check.err | head -n 1)
check "exact first: the self-check finds the entries' paths as libunwind does" "${line:-no line} $(oneline check.err 300)" \
    eval '[[ "$line" =~ compared\ ([1-9][0-9]*)\ mismatched\ 0\  ]]'
finish
