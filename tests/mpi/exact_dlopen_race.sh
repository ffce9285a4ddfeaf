#!/bin/bash
# A library with functions measured exactly, opened, called and closed 40
# times on each rank while a second thread of the program calls dlsym
# without pause (exact/exact_dlopen_race.c). That thread, or hprof's
# learner, is often the first to find the library the loader added, and
# patches it; then:
# - the main thread's dlsym must wait for the patch (it returned at once,
#   and the calls of that load went unmeasured: rank 1's plug_solve had 0
#   of 4 visits in CI), and its dlclose must not unmap code being patched
#   (the learner crashed in exact_patch.c's store);
# - each load needs entry stubs within 2 GiB: an unloaded library's are
#   reused (the room ran out at the 6th load: "no room for hprof's entry
#   stubs", every later load unmeasured);
# - a sample inside dlclose holds the loader's lock, and must not wait in
#   libunwind for a thread that waits for that lock (the job hung, 1 run in
#   7: core/loader_lock.h);
# - the profile names each function once per rank (its attribute counted
#   80 ranks of 2, one per load).
# Every call is counted: visits as the library counted them, over all loads.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_dlopen_race
$MPICC -g -O2 -fpatchable-function-entry=18,16 -shared -fPIC "$here/exact/exact_plug.c" -o libexactplug.so \
    >plug.build.log 2>&1 || { notok "exact dlopen race: build the library" "$(oneline plug.build.log)"; finish; }
build_or_fail "exact dlopen race: build" build_shared "$MPICC" "$here/exact/exact_dlopen_race.c" exact_dlopen_race \
    -O2 -ldl -lpthread || finish
rm -f exact.expect.*
HPROFTEST_EXACT=plug_solve,plug_step HPROF_SAMPLING_HZ=1000 \
    profile_run "exact dlopen race: run" race race.cubex race.csv 2 ./exact_dlopen_race || finish
if grep -q "no room for hprof's entry stubs" race.err; then
    notok "exact dlopen race: stubs for every load" "$(grep -c "no room" race.err) loads found no room for stubs"
else
    ok "exact dlopen race: stubs for every load"
fi
"$TEST_VIEW" --json race.cubex >race.json
python3 "$here/exact/check_exact.py" "exact dlopen race: every call of every load measured, each function once" \
    race.csv race.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
finish
