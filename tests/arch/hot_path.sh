#!/bin/bash
# The end of every measured MPI call (hprof_call_end, lib/measure.c) is one
# straight path in the common case, a call repeated from a known call site:
# the steps of that path (the record, the call-site cache, the node's
# counters, the time line, the path log) are inlined into it, so it calls
# no function of hprof's there. Here: its code in each built libhprof.so
# calls none of the functions those steps are written in.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
MPIS=${MPIS:-"openmpi mpich"}

STEPS="record node_of_call call_site mpi_site_cached unwind_mpi_cached add_call book_call timeline_add_call path_log_add_in"
for m in $MPIS; do
    so=build/$m/libhprof.so
    if [ ! -f "$so" ]; then notok "hot path: $so" "not built (make all)"; continue; fi
    objdump -d --no-show-raw-insn "$so" | awk '/^[0-9a-f]+ <hprof_call_end>:$/ { on = 1; next } on && /^$/ { exit } on' > "$W/end.s"
    if [ ! -s "$W/end.s" ]; then notok "hot path: $so" "no hprof_call_end in objdump's output"; continue; fi
    called=$(grep -oE 'call +[0-9a-f]+ <[^>]+>' "$W/end.s" | sed -E 's/.*<([^>.@+]+).*/\1/' | sort -u)
    bad=""
    for s in $STEPS; do grep -qx "$s" <<<"$called" && bad="$bad $s"; done
    if [ -z "$bad" ]; then ok "hot path: $so: hprof_call_end inlines its common steps (its calls: rare cases only)"
    else notok "hot path: $so" "hprof_call_end calls$bad (inline them: lib/measure.c)"; fi
done
