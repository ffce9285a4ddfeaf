#!/bin/bash
# Code loaded with dlopen after MPI_Init (issue 15, item 6), each reproducer
# several times: host.c calls plugin_solve in libplug.so, whose inner()
# calls MPI_Allreduce: the path is main;plugin_solve;inner;MPI_Allreduce,
# named from the plugin (not libplug.so+0x..., not under (unwind failed)).
# main2.c loads libA.so and libB.so in turn (dlclose in between, so they
# share an address) and calls cbN through each one's `entry`: every path
# keeps main, and entry is named after the module that was loaded when the
# call was recorded, and so is its source file (libA.S, libB.S: read at
# finalize, when neither is loaded, from the module that was).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
src=$here/unwind/dlopen
require_built unwind_dlopen
$MPICC -g -O1 -shared -fPIC "$src/plug.c" -o libplug.so >plug.build.log 2>&1 \
    && $MPICC -g -shared "$src/libA.S" -o libA.so >>plug.build.log 2>&1 \
    && $MPICC -g -shared "$src/libB.S" -o libB.so >>plug.build.log 2>&1 \
    || { notok "dlopen: build the libraries" "$(oneline plug.build.log)"; finish; }
build_or_fail "dlopen: build host" build_plain "$MPICC" "$src/host.c" host -O1 -ldl || finish
build_or_fail "dlopen: build main2" build_shared "$MPICC" "$src/main2.c" main2 -O1 -ldl || finish
CHECK="python3 $src/check_dlopen.py"
runs=3
for i in $(seq $runs); do
    rm -f host$i.cubex
    HPROF_OUTPUT=host$i.cubex run_mpi_preload host$i 2 ./host
    profile_run_check "dlopen: host run $i" host$i host$i.cubex host$i.csv $? || continue
    "$TEST_VIEW" --json host$i.cubex >host$i.json
    $CHECK host$i.json "dlopen: host run $i (plugin loaded after MPI_Init)" \
        "main;plugin_solve@libplug.so;inner@libplug.so;MPI_Allreduce=200" 2 || N_FAILED=$((N_FAILED + 1))
done
want="main;entry@libA.so;cb0;MPI_Allreduce=50 | main;entry@libB.so;cb1;MPI_Allreduce=50"
want="$want | main;entry@libA.so;cb2;MPI_Allreduce=50 | main;entry@libB.so;cb3;MPI_Allreduce=50"
want="$want | main;entry@libA.so;cb4;MPI_Allreduce=50 | main;entry@libB.so;cb5;MPI_Allreduce=50"
for i in $(seq $runs); do
    profile_run "dlopen: main2 run $i" main2_$i main2_$i.cubex main2_$i.csv 2 ./main2 || continue
    "$TEST_VIEW" --json main2_$i.cubex >main2_$i.json
    $CHECK main2_$i.json "dlopen: main2 run $i (libA, libB at one address, dlclose between)" "$want" 2 \
        || N_FAILED=$((N_FAILED + 1))
    files=$(python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(" ".join(sorted("%s:%s" % ((r.get("module") or "").rsplit("/", 1)[-1],
                                     (r.get("file") or "").rsplit("/", 1)[-1])
                          for r in d["regions"] if r["name"] == "entry")))
except Exception as e:
    print("unreadable: %r" % e)' main2_$i.json 2>&1)
    check "dlopen: main2 run $i: entry's source file from its own module" "entry regions: $files" \
        test "$files" = "libA.so:libA.S libB.so:libB.S"
done
finish
