#!/bin/bash
# merge_concat: fixed-size records up the aggregators' tree to rank 0
# (report/merge/agg_concat.c; the per-rank sampling histograms travel so),
# without hprof: 18 ranks in groups of 1, 2, 3 and 16, so that one run
# has aggregators two levels deep (more than 16 of them) and groups cut
# short at the end; all ranks' records, and only the first ones', come to
# rank 0 in rank order.
. "$(dirname "$0")/progs/lib.sh"
require_built "concat build"
NP=18
build_or_fail "concat build" build_plain "$MPICC" "$ROOT/tests/mpi/merge_concat/concat.c" concat -I"$ROOT" \
    "$ROOT/report/merge/agg_concat.c" "$ROOT/report/merge/agg_tree.c" "$ROOT/report/merge/quiet.c" || finish
run_mpi concat "$NP" ./concat; rc=$?
line=$(grep '^concat ' concat.out 2>/dev/null | head -n 1)
if [ "$rc" -eq 0 ] && [ "${line#concat ok}" != "$line" ]; then
    ok "concat: $NP ranks' records to rank 0 in rank order, 16 cases (${line#concat ok })"
else
    notok "concat: $NP ranks' records to rank 0 in rank order" "rc $rc: ${line:-$(oneline concat.err 300)}"
fi
finish
