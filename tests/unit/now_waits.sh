#!/bin/bash
# hprof-view --now's wait-for analysis (tools/hprof-view/now_waits.h) on
# snapshots made by hand (tests/unit/now_waits): a hung job's cycle, a
# ring of receives, the rank a barrier or a chain waits for, and the waits
# whose peers are not plain (any source, a rank of an unknown
# communicator), which never make a cycle.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
cases="hung awaited_computing ring chain two_computing unknown_peer any_source sendrecv_proc_null two_collectives"
if cc -I. -g -O1 -std=gnu11 -Wall -Werror -o "$W/now_waits" tests/unit/now_waits/now_waits.c \
    tools/hprof-view/now_waits.c tools/hprof-view/now_where.c >"$W/build.log" 2>&1; then
    "$W/now_waits" >"$W/out" 2>&1
    unit_cases "now waits" "$W/out" $cases
else
    notok "now waits: build" "$(head -c 300 "$W/build.log")"
fi
