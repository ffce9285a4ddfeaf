#!/bin/bash
# sample_pace: lib/sampling/sample_pace.c, which holds a thread's sampling
# rate to what its handler can afford (issue 30: mpi4py at 5-10 kHz never
# ended), on made-up sample costs: the rate kept while the handler takes
# little, or some samples of a window are long (preempted); halved after two
# windows over a quarter of the time; down until it fits when the handler
# takes longer than the interval (the livelock), never below 1 Hz; back to
# the rate asked for when the handler is cheap again.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" "$HERE/sample_pace/pace_test.c" \
        "$ROOT/lib/sampling/sample_pace.c" -o "$W/pace_test" 2> "$W/cc.err"; then
    echo "not ok - sample_pace: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
"$W/pace_test"
exit 0
