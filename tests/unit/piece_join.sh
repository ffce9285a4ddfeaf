#!/bin/bash
# Rows made in parts (issue 41: the merge's aggregators) without MPI: the
# parts of four ranges, three of them joined as an intermediate aggregator
# joins its children's (report/merge/piece_msg.c), laid end to end in one
# zlib stream a row, inflate to the rows, adler32 and all
# (tests/common/cube_writer_roundtrip.sh reads such rows with every
# reader; tests/mpi/merge_*.sh merge through the tree).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/piece_join_check
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/piece_join/check.c" report/merge/piece_msg.c \
        report/cube/writer/cw_piece.c -lz -o "$P" 2> "$W/cc.err"; then
    notok "piece join: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
out=$("$P" 2>&1)
case $out in
"join ok "*) ok "piece join: parts joined on the way up inflate to the rows (${out#join ok })" ;;
*) notok "piece join: parts joined on the way up inflate to the rows" "$(echo "$out" | head -c 300)" ;;
esac
