#!/bin/bash
# app_layout: which processes of an MPMD launch measure, decided by each
# measuring process alone from what hprof-run and the launcher told it
# (lib/lifecycle/app_layout.c, without MPI; tests/mpi/mpmd.sh runs it for real).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I. "$HERE/app_layout/layout_test.c" \
        lib/lifecycle/app_layout.c -o "$W/layout_test" 2> "$W/cc.err"; then
    notok "app layout: the test builds" "$(head -c 400 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
"$W/layout_test"
exit 0
