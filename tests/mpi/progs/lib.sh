#!/bin/bash
# Shared helpers for the tests/mpi/*.sh end-to-end tests.
# Source it:  . "$(dirname "$0")/progs/lib.sh"
# Needs the environment that tests/run.sh gives (TEST_MPI, TEST_LIBDIR,
# MPICC, MPICXX, MPIF90, MPIRUN, TEST_VIEW); runs in the current directory
# (the harness's scratch folder $TEST_TMP).
set -u
PROGS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$PROGS/../../.." && pwd)
CHECK_CSV="python3 $PROGS/check_csv.py"
MPI_TIMEOUT=${MPI_TIMEOUT:-60}
CFLAGS_TEST="-g -O0"
# Linking a test program with hprof, in one place for every script:
#   "${HPROF_SHARED[@]}"  libhprof.so, found at run time through the rpath
#   "${HPROF_STATIC[@]}"  libhprof.a and the libraries it needs
HPROF_LINK_LIBS="-lunwind -ldw -lelf -lz -ldl -lpthread -lm"
HPROF_SHARED=(-L"$TEST_LIBDIR" -lhprof -Wl,-rpath,"$TEST_LIBDIR")
# shellcheck disable=SC2206 # the libraries are words
HPROF_STATIC=("$TEST_LIBDIR/libhprof.a" $HPROF_LINK_LIBS)
N_FAILED=0

ok()    { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; N_FAILED=$((N_FAILED + 1)); }
# check NAME REASON CMD... : ok if CMD succeeds
check() { local n=$1 r=$2; shift 2; if "$@"; then ok "$n"; else notok "$n" "$r"; fi; }
note()  { echo "# $*"; }
# show the tail of a file as comment lines (evidence for a failure)
show()  { [ -f "$1" ] && tail -n "${2:-15}" "$1" | sed 's/^/#   /'; true; }
oneline() { tr '\n' ' ' < "$1" | cut -c1-${2:-400}; }

# use_hprof_run: HPROF_RUN is tools/hprof-run, pointed at this build, with
# sampling off and the default output name
use_hprof_run() {
    HPROF_RUN=$ROOT/tools/hprof-run
    export HPROF_BUILD=$ROOT/build
    unset HPROF_OUTPUT
    export HPROF_SAMPLING_HZ=0
}

# require_built NAME: print one 'not ok' and exit if the build is missing
require_built() {
    local miss=""
    [ -f "$TEST_LIBDIR/libhprof.so" ] || miss="$miss $TEST_LIBDIR/libhprof.so"
    [ -f "$TEST_LIBDIR/libhprof.a" ] || miss="$miss $TEST_LIBDIR/libhprof.a"
    [ -x "$TEST_VIEW" ] || miss="$miss $TEST_VIEW"
    if [ -n "$miss" ]; then
        notok "$1" "not built:$miss"
        exit 0
    fi
}

# Building. Every build logs to OUT.build.log; returns the compiler's status.
# build_plain   CC SRC OUT [flags...]   - no hprof
# build_shared  CC SRC OUT [flags...]   - -lhprof, rpath
# build_static  CC SRC OUT [flags...]   - libhprof.a before the MPI libs
build_plain()  { local cc=$1 src=$2 out=$3; shift 3
    $cc $CFLAGS_TEST "$@" "$src" -o "$out" >"$out.build.log" 2>&1; }
build_shared() { local cc=$1 src=$2 out=$3; shift 3
    $cc $CFLAGS_TEST "$@" "$src" -o "$out" "${HPROF_SHARED[@]}" >"$out.build.log" 2>&1; }
build_static() { local cc=$1 src=$2 out=$3; shift 3
    $cc $CFLAGS_TEST "$@" "$src" -o "$out" "${HPROF_STATIC[@]}" >"$out.build.log" 2>&1; }

# build_or_fail NAME builder args...: runs the builder, on failure prints
# 'not ok - NAME' with the compiler's output, returns 1
build_or_fail() { local n=$1 out=$5; shift
    if "$@"; then return 0; fi
    local msg; msg=$(grep -iE 'error|undefined' "$out.build.log" | head -n 4 | tr '\n' ' ' | cut -c1-400)
    notok "$n" "build failed: ${msg:-$(oneline "$out.build.log" 300)}"
    return 1
}

# The harness's own variables (TEST_MPI, TEST_LIBDIR, TEST_VIEW) are not
# hprof settings: keep them out of the programs' environment.
CLEAN_ENV="env -u TEST_MPI -u TEST_LIBDIR -u TEST_VIEW"

# run_mpi LOG NP CMD... : runs $MPIRUN -np NP CMD under a timeout, stdout
# to LOG.out, stderr to LOG.err; returns mpirun's status (124: timeout).
# Extra environment: set it in front of the call (VAR=x run_mpi ...).
run_mpi() { local log=$1 np=$2; shift 2
    $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" $MPIRUN -np "$np" "$@" >"$log.out" 2>"$log.err" </dev/null; }
# same with libhprof.so preloaded into the ranks only (env passed by mpirun)
run_mpi_preload() { local log=$1 np=$2; shift 2
    if [ "$TEST_MPI" = openmpi ]; then
        $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" $MPIRUN -np "$np" -x LD_PRELOAD="$TEST_LIBDIR/libhprof.so" \
            "$@" >"$log.out" 2>"$log.err" </dev/null
    else
        $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" $MPIRUN -np "$np" -genv LD_PRELOAD "$TEST_LIBDIR/libhprof.so" \
            "$@" >"$log.out" 2>"$log.err" </dev/null
    fi
}

# wrote_path LOG.err: the PATH from the 'hprof: wrote PATH (' line
wrote_path() { sed -n 's/^hprof: wrote \(.*\) ([0-9]* bytes.*/\1/p' "$1" | head -n 1; }
# wrote_field LOG.err FIELD: bytes | paths | ranks | merge
wrote_field() {
    local l; l=$(grep '^hprof: wrote ' "$1" | head -n 1)
    case $2 in
        bytes) sed -n 's/.*(\([0-9]*\) bytes.*/\1/p' <<<"$l" ;;
        paths) sed -n 's/.* \([0-9]*\) call paths.*/\1/p' <<<"$l" ;;
        ranks) sed -n 's/.* \([0-9]*\) ranks.*/\1/p' <<<"$l" ;;
        merge) sed -n 's/.*merge+write \([0-9.]*\) s.*/\1/p' <<<"$l" ;;
    esac
}

# timeline_text PROFILE: its time line member as text (the packed member
# unpacked, progs/timeline_text.py; an older profile's text as it is)
timeline_text() { python3 "$PROGS/timeline_text.py" "$1"; }

# to_csv PROFILE CSV: hprof-view --csv; stderr in CSV.err; returns its status
to_csv() { timeout 60 "$TEST_VIEW" --csv "$1" >"$2" 2>"$2.err"; }

# profile_run NAME LOG PROFILE CSV NP CMD... : HPROF_OUTPUT=PROFILE run on NP
# ranks, then csv. Prints 'not ok - NAME' with evidence and returns 1 if the
# run fails, times out, writes no profile or the viewer fails.
profile_run() { local n=$1 log=$2 prof=$3 csv=$4 np=$5 rc; shift 5
    rm -f "$prof"
    HPROF_OUTPUT=$prof run_mpi "$log" "$np" "$@"; rc=$?
    profile_run_check "$n" "$log" "$prof" "$csv" "$rc"
}
profile_run_check() { local n=$1 log=$2 prof=$3 csv=$4 rc=$5
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        notok "$n" "mpirun timed out after ${MPI_TIMEOUT}s; stderr: $(tail -n 5 "$log.err" | tr '\n' ' ' | cut -c1-300)"; return 1
    fi
    if [ "$rc" -ne 0 ]; then
        # a crash's backtrace (a library's handler, chained from hprof's,
        # prints one): its frames past the handlers' say where it was
        local trace
        trace=$(grep -A 24 -m 1 '==== backtrace' "$log.err" | grep -v -E 'libucs|on_fatal|==== backtrace' |
                sed 's/^ *[0-9]* *//' | tr '\n' ' ' | cut -c1-900)
        notok "$n" "mpirun exited $rc; stderr: $(tail -n 8 "$log.err" | tr '\n' ' ' | cut -c1-400)${trace:+; backtrace: $trace}"
        return 1
    fi
    if [ ! -s "$prof" ]; then
        notok "$n" "no profile at $prof; stderr: $(tail -n 5 "$log.err" | tr '\n' ' ' | cut -c1-300)"; return 1
    fi
    if ! to_csv "$prof" "$csv"; then
        notok "$n" "hprof-view --csv failed: $(head -c 300 "$csv.err")"; return 1
    fi
    return 0
}

# csv_check NAME CSV EXPECT NP [more check_csv.py args]: runs the checker,
# which prints its own ok/not ok lines (prefixed with NAME)
csv_check() { local n=$1 csv=$2 exp=$3 np=$4; shift 4
    $CHECK_CSV --name "$n" --np "$np" --expect "$exp" "$@" "$csv" || N_FAILED=$((N_FAILED + 1))
}

# wait_counts NP MIN: until each rank's count.<r> ("pid count", a program's
# own count of its calls) shows at least MIN (60 s at most); 1 if not
wait_counts() { local np=$1 min=$2 n r _
    for _ in $(seq 600); do
        n=0
        for r in $(seq 0 $((np - 1))); do
            [ "$(awk '{ print $2 }' count.$r 2>/dev/null)" -ge "$min" ] 2>/dev/null && n=$((n + 1))
        done
        [ "$n" = "$np" ] && return 0
        sleep 0.1
    done
    return 1
}

# after SECONDS CMD...: CMD in the background once SECONDS have passed (a
# watchdog; its pid in AFTER_PID); cancel_after PID stops it, its sleep
# too. Its output goes nowhere: a sleep left holding the harness's pipe
# would keep the script from ending until it is over.
after() { local s=$1; shift; ( sleep "$s"; "$@" ) >/dev/null 2>&1 & AFTER_PID=$!; }
cancel_after() { pkill -P "$1" 2>/dev/null; kill "$1" 2>/dev/null; }

# finish: exit status of the script (0; failures are counted from 'not ok')
finish() { exit 0; }

# require_mpi4py NAME PYTHON: prints one 'ok ... # skip' line and exits
# unless PYTHON has mpi4py (and numpy) built for this MPI library
# (Debian's python3-mpi4py is built for Open MPI).
require_mpi4py() {
    local name=$1 py=$2 dir so have=""
    if [ ! -x "$py" ] || ! "$py" -c 'import mpi4py, numpy' 2>/dev/null; then
        echo "ok - $name # skip: $py with mpi4py and numpy not installed (Debian: python3-mpi4py)"; exit 0
    fi
    dir=$("$py" -c 'import os, mpi4py; print(os.path.dirname(mpi4py.__file__))' 2>/dev/null)
    so=$(ls "$dir"/MPI*.so 2>/dev/null | head -n 1)
    case "$(ldd "$so" 2>/dev/null)" in
    *libmpi.so.40*) have=openmpi ;;
    *libmpich.so*|*libmpi.so.12*) have=mpich ;;
    esac
    if [ "$have" != "$TEST_MPI" ]; then
        echo "ok - $name # skip: $py's mpi4py is built for ${have:-an unknown MPI library}, not $TEST_MPI"; exit 0
    fi
}
