#!/bin/bash
# profile_size: the profile's size does not grow with the run's length: 10x
# the iterations gives the same size within 5% (sampling off; with sampling
# on at the default rate, within 5% after allowing for new call paths),
# the timeline member aside (fixed buckets; bounded, checked here too).
. "$(dirname "$0")/progs/lib.sh"
require_built "size build"
build_or_fail "size build" build_shared "$MPICC" "$PROGS/app.c" app || finish
SHORT=200 LONG=2000

# SIZE of FILE less its time line member (hprof.timeline.z); fails if that
# member is larger than its text form could be: 256 buckets x 5 fields x 21
# characters a rank (and a header), plus the 16 heaviest paths' series (2
# fields a rank, and their lines).
size_without_timeline() {
    python3 - "$1" <<'PY'
import os, sys, tarfile
path = sys.argv[1]
with tarfile.open(path) as t:
    m = [x for x in t.getmembers() if x.name == "hprof.timeline.z"]
tl = m[0].size if m else 0
if tl > 2 * (256 * 5 * 21 + 64) + 200 + 16 * (2 * 2 * (256 * 21 + 40) + 24) + 64:
    sys.exit("timeline member of %d bytes" % tl)
print(os.path.getsize(path) - (512 + (tl + 511) // 512 * 512 if m else 0))
PY
}

size_case() { # LABEL HZ
    local label=$1 hz=$2 n s1 s2 p1 p2
    for n in $SHORT $LONG; do
        rm -f "$label-$n.cubex"
        HPROF_SAMPLING_HZ=$hz HPROF_OUTPUT=$PWD/$label-$n.cubex run_mpi "$label-$n" 2 ./app "$n"
        local rc=$?
        if [ "$rc" -ne 0 ] || [ ! -s "$label-$n.cubex" ]; then
            notok "size $label: runs" "$n iterations: status $rc, stderr: $(tail -n 4 "$label-$n.err" | tr '\n' ' ' | cut -c1-300)"
            return
        fi
    done
    ok "size $label: runs"
    # the timeline (hprof.timeline.z) has a fixed number of buckets, but its
    # numbers take more digits as the run fills them: bounded, checked apart
    s1=$(size_without_timeline "$label-$SHORT.cubex") s2=$(size_without_timeline "$label-$LONG.cubex")
    p1=$(wrote_field "$label-$SHORT.err" paths) p2=$(wrote_field "$label-$LONG.err" paths)
    note "size $label: $SHORT iterations $s1 bytes ($p1 call paths), $LONG iterations $s2 bytes ($p2 call paths)"
    if [ "$hz" = 0 ]; then
        if awk -v a="$s1" -v b="$s2" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(d <= 0.05 * a) }'; then
            ok "size $label: 10x iterations, same size within 5%"
        else
            notok "size $label: 10x iterations, same size within 5%" "$s1 bytes for $SHORT iterations, $s2 bytes for $LONG"
        fi
    else
        # with sampling, which rare call paths get a sample (printf's first
        # buffer allocation, lazy binding, ...) is chance: allow the long run
        # its extra distinct call paths, never growth with the samples (10x)
        if [ -n "$p1" ] && [ -n "$p2" ] && awk -v a="$s1" -v b="$s2" -v pa="$p1" -v pb="$p2" \
            'BEGIN { f = pb > pa ? pb / pa : 1; exit !(b <= 1.05 * a * f) }'; then
            ok "size $label: 10x iterations, no growth beyond new call paths (5%)"
        else
            notok "size $label: 10x iterations, no growth beyond new call paths (5%)" "$s1 bytes ($p1 call paths) for $SHORT iterations, $s2 bytes ($p2 call paths) for $LONG"
        fi
    fi
    if [ "$hz" = 0 ]; then
        if [ -n "$p1" ] && [ "$p1" = "$p2" ]; then
            ok "size $label: same number of call paths"
        else
            notok "size $label: same number of call paths" "'$p1' vs '$p2' (from the 'hprof: wrote' lines)"
        fi
        # and the long run really counted 10x the calls
        if to_csv "$label-$LONG.cubex" "$label.csv"; then
            printf 'counts\tmain;work;exchange;MPI_Sendrecv\t*\tvisits\t==\t%s\n' "$LONG" > "$label.expect"
            csv_check "size $label:" "$label.csv" "$label.expect" 2
        else
            notok "size $label: csv" "$(head -c 300 "$label.csv.err")"
        fi
    fi
}
size_case nosampling 0
size_case sampling 100
finish
