#!/bin/bash
# The call paths over time (core/path_log.c) without MPI: exact sums per
# node and bucket in a long run, fixed memory when more paths arrive than
# the log holds (folds, then spilled time, never lost), and an ended
# thread's log merged through a node map (tests/mpi/timeline.sh checks
# them in real runs).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/path_log_check
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/timeline_path_log/check.c" core/path_log.c \
        core/timeline.c -o "$P" 2> "$W/cc.err"; then
    notok "path log: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
"$P" > "$W/out" 2>&1
for name in steady many merge calls; do
    line=$(grep "^$name " "$W/out")
    case "$name" in
    steady) what="a long run with few paths: exact per path and bucket, nothing spilled, the histogram's width" ;;
    many)   what="more paths than the log holds: memory fixed, logged + spilled = added" ;;
    merge)  what="an ended thread's log merged through a node map" ;;
    calls)  what="calls through the latest call's bucket land where the general functions put them, across folds" ;;
    esac
    if [ "${line#$name ok}" != "$line" ]; then ok "path log: $what (${line#$name ok })"
    else notok "path log: $what" "${line:-no output: $(head -c 300 "$W/out")}"; fi
done
