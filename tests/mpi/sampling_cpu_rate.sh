#!/bin/bash
# sampling_cpu_rate: on the CPU clock the kernel fires CPU-time timers only
# at its scheduler tick (250 Hz here), so a higher HPROF_SAMPLING_HZ gives
# no more samples. hprof says so in one line at MPI_Finalize and keeps the
# rate it got in hprof::sampling_cpu_hz. The truth comes from the run: the
# profile's samples (hprof::samples_counted + samples_in_mpi) over the CPU
# time of the ranks' windows, which sampling/cpu_spin.c bounds (from
# MPI_Init's return, and from the thread's start). Below 0.45 of the rate
# asked, the line and the attribute must be there, the attribute within
# those bounds; above 0.75, neither; in between, either. At 10 kHz on the
# CPU clock (above any kernel's tick), at 100 Hz on it, and at 10 kHz on
# the wall clock, which samples at the rate asked and never says it.
. "$(dirname "$0")/progs/lib.sh"
require_built "cpu_spin build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "cpu_spin build" build_shared "$MPICC" "$HERE/sampling/cpu_spin.c" cpu_spin -O2 || finish

rate_run() { # CLOCK HZ
    local clock=$1 hz=$2 label=rate-$1-$2 rc
    local prof=$PWD/$label.cubex
    rm -f "$prof"
    HPROF_SAMPLING_CLOCK=$clock HPROF_SAMPLING_HZ=$hz HPROF_OUTPUT=$prof run_mpi "$label" 2 ./cpu_spin 0.4; rc=$?
    if [ "$rc" -ne 0 ] || [ ! -f "$prof" ] || [ "$(grep -c '^cpu ' "$label.out")" -ne 2 ] ||
        ! "$TEST_VIEW" --json "$prof" >"$label.json" 2>"$label.view.err"; then
        notok "$label run" "status $rc; $(oneline "$label.err" 300) $(oneline "$label.view.err" 200)"
        return
    fi
    python3 - "$label" "$clock" "$hz" <<'PYEOF'
import json, re, sys
label, clock, asked = sys.argv[1], sys.argv[2], float(sys.argv[3])
attrs = json.load(open(label + ".json"))["attributes"]
samples = int(attrs["hprof::samples_counted"]) + int(attrs["hprof::samples_in_mpi"])
low = high = 0.0
for line in open(label + ".out"):
    if line.startswith("cpu "):
        low += float(line.split()[2])
        high += float(line.split()[3])
lines = [l for l in open(label + ".err") if re.match(r"hprof: HPROF_SAMPLING_CLOCK=cpu: samples came [0-9.e+]+ "
                                                     r"times a second of CPU time, not the %d asked for" % asked, l)]
attr = attrs.get("hprof::sampling_cpu_hz")
rate_lo, rate_hi = samples / high, samples / low  # the rate hprof got, bounded by the program's clock
what = "%s %d Hz: %d samples over %.3f..%.3f s of CPU time (%.0f..%.0f Hz), %d line(s), attribute %s" % (
    clock, asked, samples, low, high, rate_lo, rate_hi, len(lines), attr)
if clock == "wall" or rate_lo > 0.75 * asked:
    good = not lines and attr is None
elif rate_hi < 0.45 * asked:
    good = len(lines) == 1 and attr is not None and 0.9 * rate_lo <= float(attr) <= 1.1 * rate_hi
else:
    good = (len(lines) == 1) == (attr is not None)
print("%s - sampling cpu rate: %s" % ("ok" if good else "not ok", what))
PYEOF
    [ $? -eq 0 ] || notok "$label check" "the check itself failed (its traceback is above)"
}
rate_run cpu 10000
rate_run cpu 100
rate_run wall 10000
finish
