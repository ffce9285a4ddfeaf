#!/bin/bash
# The packed time line member (report/merge/timeline_pack.c) read back by
# hprof-view's side (tools/hprof-view/vtl_unpack.c into vtl_store.c) without
# MPI: the same numbers, equal series stored once in the file and held once
# by the viewer, more series than the pack remembers, the largest counts
# (tests/mpi/timeline_packed.sh checks real runs).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/timeline_pack_check
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/timeline_pack/check.c" report/merge/timeline_pack.c \
        tools/hprof-view/vtl_unpack.c tools/hprof-view/vtl_store.c -lz -o "$P" 2> "$W/cc.err"; then
    notok "timeline pack: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
"$P" > "$W/out" 2>&1
for name in shared capped extremes sink; do
    line=$(grep "^$name " "$W/out")
    case "$name" in
    shared)   what="equal series of several ranks read back exactly, each distinct one held once" ;;
    capped)   what="more series than remembered: read back exactly, sharing saves bytes" ;;
    extremes) what="the largest counts read back as the nearest doubles, levels past an int not kept" ;;
    sink)     what="handed on in whole pieces and a shorter last one, copied up two levels: the same bytes as one pack" ;;
    esac
    if [ "${line#$name ok}" != "$line" ]; then ok "timeline pack: $what (${line#$name ok })"
    else notok "timeline pack: $what" "${line:-no output: $(head -c 300 "$W/out")}"; fi
done
