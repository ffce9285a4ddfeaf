#!/bin/bash
# Runs the test suite: tests/unit, tests/arch and tests/common (no MPI)
# once, tests/mpi/*.sh once per MPI library named on the command line. Each script prints one line per check:
#   ok - NAME            or   not ok - NAME: reason
# and may print anything else (ignored). A script that exits non-zero
# without printing a 'not ok' counts as one failure.
# Closes with the line 'N passed, N failed'. Last, tests/interop.sh and
# tests/cubelib.sh read every profile the scripts wrote with the other CUBE
# readers (pyCubexR, cubelib), and tests/interop/view_asan.sh with
# hprof-view under the sanitizers. TEST_NO_INTEROP=1 leaves those out (a
# quick run of a few scripts while working on them).
#
# Environment given to tests/mpi scripts:
#   TEST_MPI   openmpi | mpich       TEST_LIBDIR  build/<mpi>
#   MPICC MPICXX MPIF90 MPIRUN        TEST_VIEW    build/tools/hprof-view
#   TEST_TMP    a scratch folder of the script's own
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
export TEST_VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl=self,vader OMPI_MCA_plm_rsh_agent=
export HYDRA_LAUNCHER=fork
FILTER=${TEST_FILTER:-}
passed=0 failed=0
failures=()

run_script() { # label script [seconds: its limit, 600]
    local label=$1 script=$2 limit=${3:-600} out rc
    export TEST_TMP
    TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hprof-test.XXXXXX")
    out=$(cd "$TEST_TMP" && timeout "$limit" bash "$ROOT/$script" 2>&1); rc=$?
    local p f
    p=$(grep -c '^ok - ' <<<"$out"); f=$(grep -c '^not ok - ' <<<"$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1; out="$out"$'\n'"not ok - $script exited with status $rc"
    fi
    passed=$((passed + p)); failed=$((failed + f))
    grep -E '^(ok|not ok) - ' <<<"$out" | sed "s|^|[$label] |"
    if [ "$f" -gt 0 ]; then
        failures+=("[$label] $script")
        echo "---- output of $script ($label):"; tail -n 40 <<<"$out"; echo "----"
    fi
    case $label in unit | arch | common) ;; *) keep_profiles "$label" "$script" ;; esac
    rm -rf "$TEST_TMP"
}

# Every profile an MPI test wrote (up to 2 MB, 12 a script) is read again at
# the end by the other readers (tests/interop.sh).
export TEST_PROFILE_POOL
TEST_PROFILE_POOL=$(mktemp -d "${TMPDIR:-/tmp}/hprof-profiles.XXXXXX")
keep_profiles() { # label script
    local n=0 f base
    base=$(basename "$2" .sh)
    while IFS= read -r f; do
        n=$((n + 1))
        cp "$f" "$TEST_PROFILE_POOL/$1-$base-$n.cubex" 2>/dev/null
    done < <(find "$TEST_TMP" -name '*.cubex' -type f -size -2M 2>/dev/null | sort | head -n 12)
}

# The kinds without MPI first: unit (parts alone, C programs without MPI),
# arch (the floors, headers, exported symbols, docs against code), common
# (the CUBE reader, writer and hprof-view on files). TEST_KINDS picks some
# (make check-unit: "unit arch").
for kind in ${TEST_KINDS:-unit arch common}; do
    for s in tests/$kind/*.sh; do
        [ -e "$s" ] || continue
        [ -n "$FILTER" ] && [[ "$s" != *$FILTER* ]] && continue
        run_script "$kind" "$s"
    done
done
for mpi in "$@"; do
    export TEST_MPI=$mpi TEST_LIBDIR=$ROOT/build/$mpi
    export MPICC=mpicc.$mpi MPICXX=mpicxx.$mpi MPIF90=mpif90.$mpi
    if [ "$mpi" = openmpi ]; then export MPIRUN="mpirun.openmpi --oversubscribe";
    else export MPIRUN="mpirun.mpich"; fi
    for s in tests/mpi/*.sh; do
        [ -e "$s" ] || continue
        [ -n "$FILTER" ] && [[ "$s" != *$FILTER* ]] && continue
        run_script "$mpi" "$s"
    done
done
if [ -z "${TEST_NO_INTEROP:-}" ] && { [ -z "$FILTER" ] || [[ tests/interop.sh == *$FILTER* ]] ||
                                       [ -n "$(ls "$TEST_PROFILE_POOL")" ]; }; then
    # pyCubexR over every test profile: ~4 minutes alone, more than 10
    # beside 4 CPU-bound processes on 2 cores
    run_script interop tests/interop.sh 1800
    run_script interop tests/cubelib.sh
    run_script interop tests/interop/view_asan.sh   # its own time limit
fi
rm -rf "$TEST_PROFILE_POOL"
for f in "${failures[@]+"${failures[@]}"}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
