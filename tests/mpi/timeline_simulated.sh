#!/bin/bash
# The time line under HPROF_SIMULATE_RANKS=K (issue 41): each of the P real
# ranks stands for K ranks, numbered r*K + j; simulated rank j's series
# are its real rank's moved right by j % 4 buckets (sums kept), its offset
# and marks its own. With 2 real ranks and K = 1000 the member holds 2000
# ranks, each simulated one's series exactly its real rank's moved so,
# stored as 4 shapes a real rank at most (the rest named by number);
# K = 1 is a run as without; ranks given different K take the largest
# (each stream holds as many records as its parent expects).
set -u
. "$(dirname "$0")/progs/lib.sh"
require_built "timeline simulated"
here=$(cd "$(dirname "$0")" && pwd)
build_or_fail "timeline simulated: build" build_shared "$MPICC" "$here/timeline/phases.c" phases -O1 || exit 0

HPROF_SIMULATE_RANKS=1000 HPROF_OUTPUT=sim.cubex run_mpi sim 2 ./phases 20 10 4 10; rc=$?
if [ "$rc" -ne 0 ] || [ ! -s sim.cubex ]; then
    notok "timeline simulated: run" "status $rc: $(oneline sim.err)"
    exit 0
fi
"$TEST_VIEW" --timeline sim.cubex > sim.view 2>&1
shown=$(sed -n 's/^timeline: \([0-9]*\) ranks.*/\1/p' sim.view)
check "timeline simulated: 2 ranks x K=1000: hprof-view shows 2000 ranks (${shown:-?})" "$(oneline sim.view 200)" \
    test "${shown:-0}" = 2000

# Every rank's series against its real rank's (r*K: j = 0) moved by j % 4.
moved=$(timeline_text sim.cubex | python3 -c '
import collections, sys
K, REAL = 1000, 2
rows = collections.defaultdict(dict)
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "rank":
        rows[int(w[1])][w[2]] = [int(x) for x in w[3:]]
    elif w and w[0] == "path_series":
        v = []
        for x in w[4:]:
            v += [0] * int(x[2:]) if x.startswith("0*") else [int(x)]
        rows[int(w[2])]["path%s_%s" % (w[1], w[3])] = v
def move(v, k):  # right by k buckets, what leaves the end stays in the last
    out = [0] * len(v)
    for b, x in enumerate(v):
        out[min(b + k, len(v) - 1)] += x
    return out
bad = [r for r in range(REAL * K) if rows[r] != {f: move(v, (r % K) % 4) for f, v in rows[(r // K) * K].items()}]
moving = sum(1 for f, v in rows[0].items() if move(v, 1) != v)
print("%s ranks=%d bad=%d first_bad=%s series_a_rank=%d moved_by_a_bucket=%d" % (
    "ok" if len(rows) == REAL * K and not bad and moving else "bad", len(rows), len(bad), bad[:3],
    len(rows[0]), moving))
' 2>&1)
check "timeline simulated: rank r*K+j's series are real rank r's moved right by j % 4 buckets ($moved)" "$moved" \
    test "${moved%% *}" = ok

# Stored series: 4 shapes a real rank at most, whatever K.
read -r packed _ stored series < <(python3 "$PROGS/timeline_text.py" --stats sim.cubex 2> stats.err)
per_rank=$(sed -n 's/.*series_a_rank=\([0-9]*\).*/\1/p' <<<"$moved")
check "timeline simulated: at most 4 shapes a real rank stored (${stored:-?} series stored for ${series:-?}, member ${packed:-?} bytes)" \
    "$(oneline stats.err)" test "${stored:-0}" -gt 0 -a "${stored:-0}" -le "$((2 * 4 * ${per_rank:-0}))"

HPROF_SIMULATE_RANKS=1 HPROF_OUTPUT=one.cubex run_mpi one 2 ./phases 20 10 4 10; rc=$?
"$TEST_VIEW" --timeline one.cubex > one.view 2>&1
shown=$(sed -n 's/^timeline: \([0-9]*\) ranks.*/\1/p' one.view)
check "timeline simulated: K=1 is a run of 2 ranks as without (exit $rc, ${shown:-?} ranks)" \
    "$(oneline one.err)" test "$rc" -eq 0 -a "${shown:-0}" = 2

# Rank 1 alone told K = 5: 2 x 5 ranks, not a member dropped for a stream
# of more records than its parent expected.
cat > k_rank1.sh <<'SH'
#!/bin/sh
if [ "${OMPI_COMM_WORLD_RANK:-$PMI_RANK}" = 1 ]; then export HPROF_SIMULATE_RANKS=5; fi
exec ./phases 20 10 4 10
SH
chmod +x k_rank1.sh
HPROF_OUTPUT=mixed.cubex run_mpi mixed 2 ./k_rank1.sh; rc=$?
"$TEST_VIEW" --timeline mixed.cubex > mixed.view 2>&1
shown=$(sed -n 's/^timeline: \([0-9]*\) ranks.*/\1/p' mixed.view)
check "timeline simulated: K given to one rank only: the largest counts (exit $rc, ${shown:-?} ranks, want 10)" \
    "$(oneline mixed.view 200) $(oneline mixed.err)" test "$rc" -eq 0 -a "${shown:-0}" = 10
exit 0
