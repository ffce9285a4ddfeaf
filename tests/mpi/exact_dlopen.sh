#!/bin/bash
# Functions measured exactly (issue 29.1) in a library dlopen'ed after
# MPI_Init: exact/exact_dlopen.c opens libexactplug.so (built with
# -fpatchable-function-entry=18,16) 0.2 s into the run, calls plug_solve
# (which calls plug_step) through dlsym, and closes it before MPI_Finalize.
# The library is patched at the program's dlsym, before its first call:
# visits exact on every rank of 2, plug_solve's exact time as the program
# timed it, and its attribute counts it from its patch time (mid-run: at
# least 0.2 s in). Without the dlsym hook the functions are patched at the
# next walk that finds the loader's list changed, after the calls.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_dlopen
$MPICC -g -O2 -fpatchable-function-entry=18,16 -shared -fPIC "$here/exact/exact_plug.c" -o libexactplug.so \
    >plug.build.log 2>&1 || { notok "exact dlopen: build the library" "$(oneline plug.build.log)"; finish; }
build_or_fail "exact dlopen: build" build_shared "$MPICC" "$here/exact/exact_dlopen.c" exact_dlopen -O2 -ldl || finish
rm -f exact.expect.*
HPROFTEST_EXACT=plug_solve,plug_step HPROF_SAMPLING_HZ=1000 \
    profile_run "exact dlopen: run" exact_dlopen exact_dlopen.cubex exact_dlopen.csv 2 ./exact_dlopen || finish
"$TEST_VIEW" --json exact_dlopen.cubex >exact_dlopen.json
python3 "$here/exact/check_exact.py" "exact dlopen: a library opened mid-run is patched before its first call" \
    exact_dlopen.csv exact_dlopen.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
finish
