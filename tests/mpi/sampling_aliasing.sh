#!/bin/bash
# sampling_aliasing: a program whose loop repeats in exactly the sampling
# period (1 ms at 1000 Hz; tests/mpi/sampling/aliasing.c: 3/4 of each cycle
# in func_long, 1/4 in func_short). A timer of fixed period lands at one
# point of the cycle every time and gives one function all the time (the
# dense phase of groundtruth.c, a 62.5 us cycle, moved a fifth of func_a's
# time to func_b in 1 run of 8); hprof draws each interval at random
# (lib/sampling/sample_pace.h: the period, every 32 samples), and each
# function's share of the sampled time is its true share within 4 sigma of
# 1000 samples, plus 2% (30 runs read at most 0.034 off; aliased, 0.75).
. "$(dirname "$0")/progs/lib.sh"
require_built "aliasing build"
build_or_fail "aliasing build" build_shared "$MPICC" "$PROGS/../sampling/aliasing.c" aliasing || finish
prof=$PWD/aliasing.cubex
HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$prof run_mpi run 2 ./aliasing 1000 1000; rc=$?
profile_run_check "aliasing run" run "$prof" run.csv "$rc" || finish
ok "aliasing run"
for rank in 0 1; do
    truth=$(awk -v r=$rank '$1 == "truth" && $2 == r { print $3 / ($3 + $4) }' run.out)
    # the two functions' computation time, inclusive, on this rank's thread 0
    sampled=$(awk -F, -v r=$rank '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["rank"] == r && $col["thread"] == 0 && $col["metric"] == "comp_time" {
            n = split($col["path"], p, ";")
            if (p[n] == "func_long") l += $col["inclusive"]
            if (p[n] == "func_short") s += $col["inclusive"]
        }
        END { if (l + s > 0) print l / (l + s), l + s }' run.csv)
    share=${sampled% *}
    if [ -z "$truth" ] || [ -z "$sampled" ]; then
        notok "aliasing rank $rank: func_long's share of the sampled time" "no truth or no samples: $(oneline run.err 300)"
    elif awk -v t="$truth" -v s="$share" 'BEGIN { d = s - t; if (d < 0) d = -d; exit !(d <= 4 * sqrt(t * (1 - t) / 1000) + 0.02) }'; then
        ok "aliasing rank $rank: func_long's share of the sampled time is its own ($share against $truth)"
    else
        notok "aliasing rank $rank: func_long's share of the sampled time" "$share, truth $truth (a fixed sampling period aliases with the loop)"
    fi
done
finish
