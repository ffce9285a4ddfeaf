#!/bin/bash
# The runtime under AddressSanitizer and UndefinedBehaviorSanitizer: a
# sanitized libhprof.a (build/asan/<mpi>) linked into sanitized programs,
# run with sampling at 1 kHz: exact counts, threads, a fallback profile.
# Any sanitizer report fails the test.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
lib=$root/build/asan/$TEST_MPI/libhprof.a
if ! make -C "$root" -s BUILD=build/asan EXTRA_CFLAGS="-O1 $san" "build/asan/$TEST_MPI/libhprof.a" >make.log 2>&1; then
    echo "not ok - sanitized build of libhprof.a: $(tail -3 make.log | tr '\n' ' ')"; exit 0
fi
libs=($HPROF_LINK_LIBS)
build() { # out source [extra...]
    local out=$1 src=$2; shift 2
    $MPICC -g -O1 $san "$src" "$@" -o "$out" "$lib" "${libs[@]}" >>build.log 2>&1
}
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
clean() { ! grep -qE 'ERROR: AddressSanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$1"; }

run_case() { # name np program args...
    local name=$1 np=$2; shift 2
    HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$name.cubex timeout 180 $MPIRUN -np "$np" "$@" >$name.out 2>$name.err
    local rc=$?
    if clean $name.err && [ -s $name.cubex ] && [ $rc -eq 0 ]; then
        echo "ok - sanitizers: $name ran clean and wrote its profile"
    else
        echo "not ok - sanitizers: $name: exit $rc; $(grep -m3 -E 'Sanitizer|runtime error' $name.err | tr '\n' ' ')"
    fi
}

if build exact "$root/tests/mpi/progs/exact.c" -I"$root/tests/mpi/progs"; then
    run_case exact 2 ./exact
else echo "not ok - sanitized build of exact.c: $(tail -3 build.log | tr '\n' ' ')"; fi
if build multiple "$here/threads/multiple.c"; then
    run_case threads 2 ./multiple
else echo "not ok - sanitized build of multiple.c"; fi
if build dying "$here/reliability/dying.c"; then
    HPROF_SAMPLING_HZ=1000 timeout 120 $MPIRUN -np 2 ./dying exit >dying.out 2>dying.err
    for _ in $(seq 100); do pgrep -x dying >/dev/null || break; sleep 0.1; done
    if clean dying.err && ls hprof-dying-2p.rank*.cubex >/dev/null 2>&1; then
        echo "ok - sanitizers: exit without MPI_Finalize writes its fallback profile clean"
    else
        echo "not ok - sanitizers: fallback: $(grep -m3 -E 'Sanitizer|runtime error' dying.err | tr '\n' ' ') $(ls)"
    fi
else echo "not ok - sanitized build of dying.c"; fi
