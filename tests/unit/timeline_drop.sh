#!/bin/bash
# A time line that rank 0 cannot make (a rank's stream broke on its way,
# out of memory on rank 0) is dropped with one line saying why, while a
# run with no histogram says nothing (report/merge/timeline_drop.c, the
# piece that decides; timeline_file.c hands it the streams' outcome,
# merge.c says the line). No MPI: a broken stream cannot be made to order
# in a real run.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/timeline_drop_check
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/timeline_drop/check.c" report/merge/timeline_drop.c \
        -o "$P" 2> "$W/cc.err"; then
    notok "timeline drop: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
out=$("$P" 2>&1)
case $out in
"drop ok "*) ok "timeline drop: a time line rank 0 cannot make is said in one line, why (${out#drop ok })" ;;
*) notok "timeline drop: a time line rank 0 cannot make is said in one line, why" "$(echo "$out" | head -c 300)" ;;
esac
