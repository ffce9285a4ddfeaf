#!/bin/bash
# Programs that read the return addresses hprof replaces (issue 39.1,
# 39.5), found at MPI_Init so that hprof leaves them alone, each with one
# line (lib/lifecycle/return_readers.h). readers/throw_through.cpp throws through
# frames an MPI call's walk gave thunks: with the C++ runtime linked
# statically (its own unwinder, which hprof cannot interpose) the
# exception met a thunk and the program terminated; also stripped, and
# with level2 measured exactly (its exit thunk in the slot). A
# -finstrument-functions tracer (readers/tracer_hooks.c, in the program or
# in a library of its own) found 2,500 of 2,501 exits with a call site
# other than its entry's. On 2 ranks each prints and exits as without
# hprof; the same program with the C++ runtime shared keeps its thunks
# and says nothing.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)/readers
require_built return_readers
np=2

# same NAME LOG WANT CMD...: CMD on np ranks without hprof, then with
# libhprof.so preloaded; the same output and status, and WANT (a regular
# expression; empty: none of hprof's lines about return addresses) once
# in hprof's stderr.
same() { local n=$1 log=$2 want=$3 rc0 rc1 got; shift 3
    run_mpi plain-$log $np "$@"; rc0=$?
    HPROF_OUTPUT=$PWD/$log.cubex run_mpi_preload $log $np "$@"; rc1=$?
    if [ $rc1 -ne $rc0 ]; then
        notok "$n" "exit $rc1 under hprof, $rc0 without; $(grep -v '^\[' $log.err | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
    elif ! cmp -s plain-$log.out $log.out; then
        notok "$n" "output differs: '$(oneline plain-$log.out 120)' vs '$(oneline $log.out 120)'"
    elif [ -n "$want" ] && [ "$(grep -cE "^hprof: $want" $log.err)" != 1 ]; then
        notok "$n" "not one line '$want': $(oneline $log.err 300)"
    elif [ -z "$want" ] && grep -qE '^hprof: .*(own unwinder|tracer)' $log.err; then
        notok "$n" "a line it should not have: $(grep -E 'own unwinder|tracer' $log.err | head -n 1)"
    else
        ok "$n ($(oneline $log.out 60))"
    fi
}

if ! $MPICXX -O2 -g -static-libstdc++ -static-libgcc "$here/throw_through.cpp" -o throw_static 2>build.err; then
    echo "ok - return readers: static C++ runtime # skip: no static libstdc++ ($(oneline build.err 100))"
else
    unwinder='throw_[a-z]* has its own unwinder \(the C\+\+ runtime linked statically\).*: they are off'
    same "return readers: an exception through thunks, C++ runtime linked statically" static "$unwinder" ./throw_static
    strip -o throw_stripped throw_static
    same "return readers: the same, stripped" stripped "$unwinder" ./throw_stripped
    $MPICXX -O2 -g -static-libstdc++ -static-libgcc -fpatchable-function-entry=18,16 "$here/throw_through.cpp" \
        -o throw_exact
    HPROFTEST_EXACT=level2 same "return readers: the same, level2 measured exactly" exact \
        'HPROFTEST_EXACT: the program has its own unwinder .*no function is measured exactly' ./throw_exact
fi
$MPICXX -O2 -g "$here/throw_through.cpp" -o throw_shared
same "return readers: an exception through thunks, C++ runtime shared: thunks kept" shared "" ./throw_shared

tracer='[a-z_.0-9]* has a -finstrument-functions tracer \(__cyg_profile_func_exit\).*: they are off'
$MPICC -O2 -g -finstrument-functions "$here/tracer_main.c" "$here/tracer_hooks.c" -o tracer_in
same "return readers: a -finstrument-functions tracer in the program" tracer_in "$tracer" ./tracer_in
$MPICC -O2 -g -fPIC -shared "$here/tracer_hooks.c" -o libtracer.so
$MPICC -O2 -g -finstrument-functions "$here/tracer_main.c" -o tracer_lib -L. -ltracer -Wl,-rpath,"$PWD"
same "return readers: a -finstrument-functions tracer in a library" tracer_lib "$tracer" ./tracer_lib
finish
