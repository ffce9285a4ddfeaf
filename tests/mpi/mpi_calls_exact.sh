#!/bin/bash
# mpi_calls_exact: a C program with known call paths, visits and bytes (p2p
# blocking/nonblocking/persistent/ANY_SOURCE, collectives, MPI-IO, one-sided)
# profiled via shared linking (1, 2, 4 ranks; and at 2 ranks with
# HPROF_THUNKS=0 and with 1000 Hz sampling), static linking and LD_PRELOAD
# (2 ranks); every call path's visits and bytes are checked per rank.
. "$(dirname "$0")/progs/lib.sh"
require_built "exact build"
export HPROF_SAMPLING_HZ=0
cp "$PROGS/exact.c" "$PROGS/exact_consts.h" .

# one_run LABEL NP RUNNER PROG [checker options]
one_run() {
    local label=$1 np=$2 runner=$3 prog=$4 rc
    shift 4
    local opts=("$@")
    [ ${#opts[@]} -eq 0 ] && opts=(--strict-paths)
    local log=$label prof=$PWD/$label.cubex csv=$label.csv
    rm -f "$prof" exact_io.dat
    if [ "$runner" = preload ]; then
        HPROF_OUTPUT=$prof run_mpi_preload "$log" "$np" ./"$prog"; rc=$?
    else
        HPROF_OUTPUT=$prof run_mpi "$log" "$np" ./"$prog"; rc=$?
    fi
    profile_run_check "$label run" "$log" "$prof" "$csv" "$rc" || { show "$log.err"; return; }
    ok "$label run"
    local n; n=$(grep -c '^hprof: wrote ' "$log.err")
    local ranks; ranks=$(wrote_field "$log.err" ranks)
    if [ "$n" -eq 1 ] && [ "$ranks" = "$np" ] && [ "$(wrote_path "$log.err")" = "$prof" ]; then
        ok "$label finalize line"
    else
        notok "$label finalize line" "want one 'hprof: wrote $prof (... $np ranks)' line, got $n: $(grep '^hprof: wrote' "$log.err" | head -n 3 | tr '\n' '|')"
    fi
    grep -q "exact: done on $np ranks" "$log.out" || notok "$label program output" "no 'exact: done' on stdout"
    python3 "$PROGS/exact_expect.py" exact_consts.h "$np" "${VISITS:-thunks}" > "$label.expect"
    csv_check "$label" "$csv" "$label.expect" "$np" "${opts[@]}" --ranks --no-failed \
        --roots "main,(not unwound)"
}

if build_or_fail "exact build shared" build_shared "$MPICC" exact.c exact_shared; then
    for np in 1 2 4; do one_run "shared-np$np" "$np" mpirun exact_shared; done
    # the same counts without the thunk stack, and with the sampler running
    # (signals interrupting MPI calls; sampled paths are extra, so no
    # --strict-paths there)
    HPROF_THUNKS=0 VISITS=nothunks one_run "shared-np2-nothunks" 2 mpirun exact_shared
    HPROF_SAMPLING_HZ=1000 VISITS=sampling one_run "shared-np2-sampling" 2 mpirun exact_shared --ranks
fi
if build_or_fail "exact build static" build_static "$MPICC" exact.c exact_static; then
    one_run "static-np2" 2 mpirun exact_static
fi
if build_or_fail "exact build plain" build_plain "$MPICC" exact.c exact_plain; then
    if ldd ./exact_plain | grep -q libhprof; then
        notok "exact plain build" "exact_plain links libhprof"
    fi
    one_run "preload-np2" 2 preload exact_plain
fi
finish
