#!/bin/bash
# MPI_Pcontrol marks past the 1024 a rank that hprof keeps (issue 30, item
# 10): they were dropped without a word. Now rank 0 says so in one line at
# MPI_Finalize, the time line member holds a phases_dropped line per
# rank that lost some, and --timeline says it under the phases row. A run
# within the limit has neither.
set -u
. "$(dirname "$0")/progs/lib.sh"
require_built "timeline marks"
here=$(cd "$(dirname "$0")" && pwd)
build_or_fail "timeline marks: build" build_shared "$MPICC" "$here/timeline/marks.c" marks -O1 || exit 0

HPROF_OUTPUT=many.cubex HPROF_SAMPLING_HZ=0 run_mpi many 2 ./marks 2500; rc=$?
said=$(grep -c 'MPI_Pcontrol' many.err)
check "timeline marks: 2500 a rank: one line at finalize (exit $rc)" "$(oneline many.err)" \
    test $rc -eq 0 -a "$said" -eq 1 -a "$(grep -c '^hprof: MPI_Pcontrol: 2952 marks on 2 of 2 ranks not kept, past the first 1024 of a rank; ' many.err)" -eq 1
member=$(timeline_text many.cubex 2>/dev/null)
kept0=$(grep -c '^phase 0 ' <<< "$member") kept1=$(grep -c '^phase 1 ' <<< "$member")
check "timeline marks: the member keeps 1024 a rank ($kept0, $kept1) and says 1476 a rank were dropped" \
    "$(grep '^phases_dropped' <<< "$member" | tr '\n' ' ')" \
    test "$kept0" -eq 1024 -a "$kept1" -eq 1024 -a "$(grep -cx 'phases_dropped [01] 1476' <<< "$member")" -eq 2
"$TEST_VIEW" --timeline many.cubex > many.view 2>&1
check "timeline marks: --timeline says it under the phases row" "$(oneline many.view)" \
    grep -q "(2952 MPI_Pcontrol marks on 2 ranks not kept, past the first 1024 a rank: rank 0's phases end at" many.view

HPROF_OUTPUT=few.cubex HPROF_SAMPLING_HZ=0 run_mpi few 2 ./marks 1000; rc=$?
check "timeline marks: 1000 a rank: all kept, no line, no phases_dropped (exit $rc)" "$(oneline few.err)" \
    test $rc -eq 0 -a "$(grep -c 'MPI_Pcontrol' few.err)" -eq 0 -a \
         "$(timeline_text few.cubex | grep -c '^phases_dropped')" -eq 0 -a \
         "$(timeline_text few.cubex | grep -c '^phase ')" -eq 2000
exit 0
