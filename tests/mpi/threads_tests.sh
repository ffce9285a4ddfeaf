#!/bin/bash
# Threads: MPI_THREAD_MULTIPLE calls land on their own thread's location,
# OpenMP threads are sampled and named, short-lived threads lose nothing,
# and the sampling stress holds from 4 threads at once.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
link=("${HPROF_SHARED[@]}")

# --- 4 threads x known MPI_Sendrecv counts and sizes -------------------------
$MPICC -g -O2 "$here/threads/multiple.c" -o multiple -lpthread "${link[@]}" || { notok "build multiple.c"; exit 1; }
HPROF_OUTPUT=multiple.cubex HPROF_SAMPLING_HZ=0 timeout 120 $MPIRUN -np 2 ./multiple >multiple.out 2>multiple.err
rc=$?
if [ $rc -ne 0 ] || [ ! -s multiple.cubex ]; then notok "multiple: exit $rc"; cat multiple.err; else
"$TEST_VIEW" --csv multiple.cubex >multiple.csv
python3 - multiple.csv <<'PY'
import csv, sys
per = {}  # (rank, thread) -> {metric: value} on worker;exchange;MPI_Sendrecv
for row in csv.DictReader(open(sys.argv[1])):
    if row["path"] == "worker;exchange;MPI_Sendrecv":
        per.setdefault((int(row["rank"]), int(row["thread"])), {})[row["metric"]] = float(row["exclusive"])
for rank in (0, 1):
    got = sorted((int(v.get("visits", 0)), int(v.get("bytes_sent", 0)), int(v.get("bytes_received", 0)))
                 for (r, t), v in per.items() if r == rank)
    want = sorted((100 * (t + 1), 100 * (t + 1) * 64 * (t + 1), 100 * (t + 1) * 64 * (t + 1)) for t in range(4))
    threads = sorted(t for (r, t) in per if r == rank)
    print(("ok" if got == want and 0 not in threads else "not ok")
          + " - multiple: rank %d, each worker thread has exactly its own visits and bytes on its own location"
          % rank + ("" if got == want else ": got %s want %s" % (got, want)))
PY
names=$(tar xOf multiple.cubex anchor.xml | grep -c "<name>pthread [0-9]* (worker)</name>")
[ "$names" -eq 8 ] && ok "multiple: worker locations are named after their start routine" \
    || notok "multiple: expected 8 'pthread N (worker)' locations, found $names"
fi

# --- OpenMP: uneven work in known proportions -------------------------------------
$MPICC -g -O2 -fopenmp "$here/threads/openmp.c" -o openmp "${link[@]}" || { notok "build openmp.c"; exit 1; }
OMP_WAIT_POLICY=passive HPROF_OUTPUT=openmp.cubex HPROF_SAMPLING_HZ=1000 HPROF_VERBOSE=2 \
    timeout 120 $MPIRUN -np 1 ./openmp >openmp.out 2>openmp.err
rc=$?
if [ $rc -ne 0 ] || [ ! -s openmp.cubex ]; then notok "openmp: exit $rc"; cat openmp.err; else
"$TEST_VIEW" --csv openmp.cubex >openmp.csv
python3 - openmp.csv openmp.out <<'PY'
import csv, math, sys
work, serial, samples = {}, {}, {}
for row in csv.DictReader(open(sys.argv[1])):
    t, leaf = int(row["thread"]), row["path"].split(";")[-1]
    if row["metric"] == "comp_time" and leaf == "omp_work":
        work[t] = work.get(t, 0) + float(row["inclusive"])
    if row["metric"] == "comp_time" and leaf == "serial_work":
        serial[t] = serial.get(t, 0) + float(row["inclusive"])
    if row["metric"] == "samples" and leaf == "omp_work":
        samples[t] = samples.get(t, 0) + float(row["inclusive"])
truth, serial_truth = {}, 0.0
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == "truth":
        truth[int(f[2])] = float(f[3])
    elif f[0] == "serial":
        serial_truth = float(f[2])
# Location 0 is the master (OpenMP thread 0); the others started in some
# order, so compare the sorted shares of the workers.
def bound(true, n):
    return 3 * true * math.sqrt(1.0 / max(n, 1)) + 0.01
got = sorted(work.get(t, 0) for t in work if t != 0)
want = sorted(v for t, v in truth.items() if t != 0)
good = len(got) == 3 and all(abs(g - w) <= bound(w, w * 1000) for g, w in zip(got, want))
print(("ok" if good else "not ok") + " - openmp: worker threads' sampled time matches their share: got %s want %s"
      % (["%.3f" % g for g in got], ["%.3f" % w for w in want]))
m = work.get(0, 0)
print(("ok" if abs(m - truth.get(0, 0)) <= bound(truth.get(0, 0), 100) else "not ok")
      + " - openmp: master's share %.3f s (truth %.3f s)" % (m, truth.get(0, 0)))
s0, others = serial.get(0, 0), sum(v for t, v in serial.items() if t != 0)
print(("ok" if abs(s0 - serial_truth) <= bound(serial_truth, 300) and others == 0 else "not ok")
      + " - openmp: time outside the parallel region lands on thread 0: %.3f s (truth %.3f s), others %.3f s"
      % (s0, serial_truth, others))
PY
names=$(tar xOf openmp.cubex anchor.xml | grep -c "<name>OpenMP thread [0-9]*</name>")
[ "$names" -eq 3 ] && ok "openmp: OpenMP threads are named as such" || notok "openmp: $names locations named 'OpenMP thread N', want 3"
python3 "$here/sampling/check_invariant.py" openmp.csv openmp.err openmp --no-mpi-check
fi

# --- 1,000 threads of 1 ms ---------------------------------------------------
$MPICC -g -O2 "$here/threads/short.c" -o short -lpthread "${link[@]}" || { notok "build short.c"; exit 1; }
HPROF_OUTPUT=short.cubex HPROF_SAMPLING_HZ=1000 timeout 300 $MPIRUN -np 2 ./short 1000 >short.out 2>short.err
rc=$?
if [ $rc -ne 0 ] || [ ! -s short.cubex ]; then notok "short: exit $rc"; tail -5 short.err; else
ok "short: 1000 short-lived threads per rank, no crash"
"$TEST_VIEW" --csv short.cubex >short.csv
python3 - short.csv short.out <<'PY'
import csv, sys
visits, locs = {}, {}
for row in csv.DictReader(open(sys.argv[1])):
    r = int(row["rank"])
    locs.setdefault(r, set()).add(int(row["thread"]))
    if row["metric"] == "visits" and row["path"].endswith("short_life;MPI_Barrier"):
        visits[r] = visits.get(r, 0) + int(float(row["exclusive"]))
print(("ok" if visits == {0: 3000, 1: 3000} else "not ok")
      + " - short: no data lost: MPI_Barrier visits per rank %s (want 3000 each)" % visits)
hwm = {int(l.split()[1]): int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("hwm")}
print(("ok" if hwm and max(hwm.values()) < 400 * 1024 else "not ok")
      + " - short: memory bounded: peak resident %s KB per rank" % hwm)
PY
fi

# --- the sampling stress from 4 threads ----------------------------------------
$MPICC -g -O2 "$here/sampling/stress.c" -o stress -lpthread "${link[@]}" || { notok "build stress.c"; exit 1; }
stress_run() {
    rm -f stress4.cubex
    HPROF_OUTPUT=stress4.cubex HPROF_SAMPLING_HZ=10000 HPROF_VERBOSE=2 timeout 120 $MPIRUN -np 2 ./stress 2 4 \
        >stress4.out 2>stress4.err
}
stress_run; rc=$?
if [ $rc -ne 0 ] || [ ! -s stress4.cubex ]; then notok "stress, 4 threads: exit $rc"; tail -5 stress4.err; else
ok "stress, 4 threads: $(awk '/^calls 0/{printf "%d", $4}' stress4.out) MPI calls/s per rank at 10 kHz sampling"
"$TEST_VIEW" --csv stress4.cubex >stress4.csv
inv=$(python3 "$here/sampling/check_invariant.py" stress4.csv stress4.err "stress, 4 threads")
# Samples that land in a thread's start-up code (libc's start_thread,
# hprof's trampoline, the loader resolving a symbol there) count under
# (start-up code) (report/profile/local_profile.c): dropped with the
# start-up frames, they would break the invariant now and then.
echo "$inv"
fi

# --- a thread that never calls MPI: its tree grows from the signal handler alone ------
$MPICC -g -O1 "$here/threads/computeonly.c" -o computeonly -lpthread "${link[@]}" || { notok "build computeonly.c"; exit 1; }
HPROF_OUTPUT=computeonly.cubex HPROF_SAMPLING_HZ=2000 timeout 120 $MPIRUN -np 1 ./computeonly >/dev/null 2>computeonly.err
if [ -s computeonly.cubex ]; then
    "$TEST_VIEW" --csv computeonly.cubex >computeonly.csv
    python3 - computeonly.csv <<'PY'
import csv, sys
full, funcs = 0, set()
for row in csv.DictReader(open(sys.argv[1])):
    if row["metric"] != "samples" or row["thread"] != "1":
        continue
    leaf = row["path"].split(";")[-1]
    if row["path"].startswith("(call tree full)"):
        full += int(float(row["exclusive"]))
    if leaf.startswith("f") and leaf[1:].isdigit() and float(row["exclusive"]) > 0:
        funcs.add(leaf)
print(("ok" if full == 0 and len(funcs) >= 40 else "not ok")
      + " - compute-only thread: %d sampled functions on their own paths, %d samples under (call tree full)"
      % (len(funcs), full))
PY
else
    notok "computeonly: no profile: $(tr '\n' ' ' <computeonly.err)"
fi
