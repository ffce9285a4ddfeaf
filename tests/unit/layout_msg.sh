#!/bin/bash
# The merge's layout records (issue 41: report/merge/layout_msg.c) without
# MPI: two groups' blocks joined as the aggregators join them read back
# in rank order with every rank's threads, process rank, host and names,
# each host sent once per run of ranks on it; a failed, cut or missing
# block fails the join (tests/mpi/merge_layout.sh runs it through the
# tree).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/layout_msg_check
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/layout_msg/check.c" report/merge/layout_msg.c \
        -o "$P" 2> "$W/cc.err"; then
    notok "layout blocks: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
out=$("$P" 2>&1)
case $out in
"layout ok "*) ok "layout blocks: joined up the tree, read back in rank order, a host once a run (${out#layout ok })" ;;
*) notok "layout blocks: joined up the tree, read back in rank order, a host once a run" "$(echo "$out" | head -c 300)" ;;
esac
