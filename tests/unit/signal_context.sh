#!/bin/bash
# core/signal_context.c, whether a thread may be in a signal handler
# (tests/unit/signal_context): a signal blocked when the measurement began
# (a launcher's mask the program inherits) says nothing of a handler, so
# that exact entries still learn their call sites; a signal blocked beyond
# those, and a real handler, do.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
cases="inherited more_blocked back_to_usual handler unblocked usual_no_longer handler_of_former_usual"
cases="$cases unbegun_blocked unbegun_clear"
if cc -I. -g -O1 -std=gnu11 -Wall -Werror -pthread -o "$W/signal_context" \
    tests/unit/signal_context/signal_context.c core/signal_context.c >"$W/build.log" 2>&1; then
    "$W/signal_context" >"$W/out" 2>&1
    unit_cases "signal context" "$W/out" $cases
else
    notok "signal context: build" "$(head -c 300 "$W/build.log")"
fi
