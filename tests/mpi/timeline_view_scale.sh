#!/bin/bash
# hprof-view's time line at 100,000 ranks (issue 41): 2 real ranks under
# HPROF_SIMULATE_RANKS=50000. hprof-view once wrote the member out as text
# and held every rank's series as numbers: 1 GB of memory, then "the time
# line member is malformed or too large". It now holds each distinct
# series once (tools/hprof-view/vtl_store.h). Checked:
#   - the file opens: --timeline shows 100000 ranks, --hotspots finds the
#     slow stretches of the time line;
#   - each heaviest path's time over all ranks is what a second reader
#     (progs/timeline_text.py --sums) adds up from the file, and that is
#     exactly K times the real ranks' (a simulated rank's series is its
#     real rank's moved by j % 4 buckets: sums kept);
#   - every strip's bar starts in one column, the groups' labels
#     ("ranks 96875-99999") being wider than at 10,000 ranks;
#   - --perfetto groups the ranks into at most 1024 tracks ("ranks A-B",
#     consecutive, all 100000 ranks) and stays under 300 MB (one track a
#     rank wrote 583 MB in 5.4 million events);
#   - hprof-view's memory stays under 200 MB (/usr/bin/time; skipped
#     without it).
set -u
. "$(dirname "$0")/progs/lib.sh"
require_built "timeline view scale"
here=$(cd "$(dirname "$0")" && pwd)
build_or_fail "timeline view scale: build" build_shared "$MPICC" "$here/timeline/phases.c" phases -O1 || exit 0

K=50000
HPROF_SIMULATE_RANKS=$K HPROF_OUTPUT=big.cubex run_mpi big 2 ./phases 20 10 4 10; rc=$?
if [ "$rc" -ne 0 ] || [ ! -s big.cubex ]; then
    notok "timeline view scale: run" "status $rc: $(oneline big.err)"
    exit 0
fi

rss=""
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f 'rss_kb %M' -o view.rss "$TEST_VIEW" --timeline big.cubex > big.view 2> big.view.err; vrc=$?
    rss=$(sed -n 's/^rss_kb \([0-9]*\)$/\1/p' view.rss)
else
    "$TEST_VIEW" --timeline big.cubex > big.view 2> big.view.err; vrc=$?
fi
shown=$(sed -n 's/^timeline: \([0-9]*\) ranks.*/\1/p' big.view)
check "timeline view scale: 2 ranks x K=$K: --timeline opens it and shows 100000 ranks (exit $vrc, ${shown:-?})" \
    "$(oneline big.view.err 200) $(oneline big.view 200)" test "$vrc" -eq 0 -a "${shown:-0}" = 100000

# the column of each strip's first '|': ranks, phases and paths alike
cols=$(grep -E '^(rank|phases|path)' big.view | awk '{ print index($0, "|") }' | sort -u | tr '\n' ' ')
check "timeline view scale: every strip's bar starts in one column (${cols% })" "$(grep -E '^ranks' big.view | tail -n 2 | cut -c1-60 | tr '\n' ' ')" \
    test "$(echo $cols | wc -w)" -eq 1

"$TEST_VIEW" --hotspots big.cubex > big.hot 2>&1; hrc=$?
check "timeline view scale: --hotspots lists the time line's slow stretches (exit $hrc)" "$(oneline big.hot 300)" \
    grep -q 'the mean of the other ranks in computation' big.hot

"$TEST_VIEW" --perfetto big.cubex > big.trace 2> big.trace.err; prc=$?
bytes=$(stat -c %s big.trace)
tracks=$(grep -o '"process_name", "args": {"name": "[^"]*"' big.trace | sed 's/.*"name": "\(.*\)"$/\1/' |
    awk 'BEGIN { next_rank = 0; bad = "" }
         { n = split($0, w, /[ -]/); a = w[2]; b = (n > 2 ? w[3] : w[2])
           if (a != next_rank && bad == "") bad = "track " NR " starts at " a ", want " next_rank
           next_rank = b + 1 }
         END { print NR, next_rank, (bad == "" ? "ok" : bad) }')
check "timeline view scale: --perfetto groups 100000 ranks in consecutive tracks, under 300 MB (exit $prc; tracks, ranks covered: ${tracks}; $bytes bytes)" \
    "$(oneline big.trace.err 200)" test "$prc" -eq 0 -a "$tracks" = "1024 100000 ok" -a "$bytes" -lt 314572800
rm -f big.trace

# "path K |...| SECONDS s SHARE% NAME" against the second reader's sums.
python3 "$PROGS/timeline_text.py" --sums "$K" big.cubex > sums.txt 2> sums.err
paths=$(python3 - big.view sums.txt "$K" <<'PY' 2>&1
import re, sys
view, sums, k = open(sys.argv[1]).read(), open(sys.argv[2]).read().split("\n"), int(sys.argv[3])
ranks, npaths = map(int, sums[0].split())
every = [list(map(int, l.split()))[1:] for l in sums[1:1 + npaths]]
shown = [(int(m.group(1)), float(m.group(2))) for m in re.finditer(r"^path (\d+) +\|.*\| +([0-9.]+) s", view, re.M)]
bad = [(p, s, every[p][0]) for p, s in shown if abs(s - every[p][0] * 1e-9) > 0.0015]
not_k = [p for p in range(npaths) if every[p][0] != k * every[p][1]]
print("%s ranks=%d paths_shown=%d of %d bad=%s not_K_times_real=%s" % (
    "ok" if ranks == 100000 and shown and not bad and not not_k else "bad", ranks, len(shown), npaths, bad[:3], not_k))
PY
)
check "timeline view scale: each path's time over all ranks is the file's sum, K x the real ranks' ($paths)" \
    "$paths $(oneline sums.err)" test "${paths%% *}" = ok

if [ -n "$rss" ]; then
    check "timeline view scale: hprof-view holds 100000 ranks' time line in under 200 MB (${rss} KB)" \
        "$(cat view.rss)" test "$rss" -lt 204800
else
    echo "ok - timeline view scale: memory # skip: /usr/bin/time not installed (Debian: time)"
fi
exit 0
