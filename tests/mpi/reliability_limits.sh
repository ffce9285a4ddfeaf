#!/bin/bash
# Resource limits: deep recursion and a million distinct call paths stay
# within the memory cap (HPROF_MAX_CALLPATHS) and what does not fit is
# recorded in the profile, not lost and not a crash.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
$MPICC -g -O1 "$here/reliability/limits.c" -o limits "${HPROF_SHARED[@]}" \
    || { echo "not ok - build limits.c"; exit 1; }
ulimit -s unlimited 2>/dev/null || ulimit -s 1048576

HPROF_OUTPUT=deep.cubex HPROF_SAMPLING_HZ=1000 timeout 120 $MPIRUN -np 1 ./limits deep 100000 >deep.out 2>deep.err
rc=$?
if [ $rc -eq 0 ] && [ -s deep.cubex ]; then
    echo "ok - recursion to depth 100000 under 1 kHz sampling: no crash, profile written"
    v=$("$TEST_VIEW" --csv deep.cubex | awk -F, '$1 ~ /MPI_Barrier$/ && $4 == "visits" { s += $5 } END { print s + 0 }')
    [ "$v" = 1 ] && echo "ok - the deep call is counted once (under (unwind failed): too deep to unwind)" \
        || echo "not ok - deep call counted $v times"
else
    echo "not ok - depth 100000: exit $rc"; tail -3 deep.err
fi

# 2^20 distinct call paths with a cap of 100000 nodes.
HPROF_OUTPUT=wide.cubex HPROF_MAX_CALLPATHS=100000 HPROF_SAMPLING_HZ=100 timeout 300 $MPIRUN -np 1 ./limits wide 20 \
    >wide.out 2>wide.err
rc=$?
if [ $rc -ne 0 ] || [ ! -s wide.cubex ]; then echo "not ok - wide: exit $rc"; tail -3 wide.err; exit 0; fi
echo "ok - a million distinct call paths: no crash, profile written"
"$TEST_VIEW" --csv wide.cubex >wide.csv
python3 - wide.csv wide.out <<'PY'
import csv, sys
visits = full = 0
for row in csv.DictReader(open(sys.argv[1])):
    if row["metric"] == "visits" and row["path"].endswith("MPI_Barrier"):
        visits += int(float(row["exclusive"]))
    if row["metric"] == "visits" and row["path"].startswith("(call tree full)"):
        full += int(float(row["inclusive"]))
calls = hwm = 0
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == "calls": calls = int(f[2])
    if f[0] == "hwm": hwm = int(f[2])
print(("ok" if full > 0 else "not ok") + " - the overflow is recorded: %d calls under (call tree full)" % full)
allv = visits + full
print(("ok" if visits + full == calls or visits == calls else "not ok")
      + " - no call lost: %d calls made, %d on call paths + %d under (call tree full)" % (calls, visits, full))
print(("ok" if hwm < 200 * 1024 else "not ok") + " - memory within the cap: peak %d KB" % hwm)
PY
