#!/bin/bash
# unwind_epilogue: samples in an epilogue after it popped the rbp it saved.
# GCC's CFI keeps "rbp saved at CFA-n" there (no restore for a pop), so the
# slot lies below rsp; the walk read it as out of the stack and failed:
# ~2% of 10 kHz runs of tests/mpi/polls/polls.c under load had a sample in
# poll_some's epilogue under (unwind failed). epi_spin.S spins in its
# epilogue after both pops, between barriers: every sample there must walk
# to main (a few in MPI or start-up may not land in it).
. "$(dirname "$0")/progs/lib.sh"
src=$(cd "$(dirname "$0")" && pwd)/unwind/epilogue
require_built unwind_epilogue
build_or_fail "epilogue: build" build_plain "$MPICC" "$src/epi_main.c" epi_main -O1 -fno-omit-frame-pointer \
    "$src/epi_spin.S" || finish
for i in 1 2; do
    rm -f epi$i.cubex
    HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/epi$i.cubex run_mpi_preload epi$i 2 ./epi_main 100
    profile_run_check "epilogue: run $i" epi$i epi$i.cubex epi$i.csv $? || continue
    counts=$(python3 -c 'import csv, sys
spin = failed = total = 0
for row in csv.DictReader(open(sys.argv[1])):
    if row["metric"] != "samples":
        continue
    n = float(row["exclusive"])
    total += n
    if row["path"].startswith("(unwind failed)"):
        failed += n
    elif row["path"].endswith("main;spin_rounds;epi_spin"):
        spin += n
print("%d %d %d" % (spin, failed, total))' epi$i.csv)
    read -r spin failed total <<<"$counts"
    check "epilogue: run $i: samples in epi_spin's epilogue walk to main (main;spin_rounds;epi_spin $spin of $total, unwind failed $failed)" \
        "spin=$spin failed=$failed total=$total" test "${failed:-1}" -eq 0 -a "${spin:-0}" -ge $(( ${total:-0} / 2 )) -a "${spin:-0}" -ge 50
done
finish
