#!/bin/bash
# symbols_stripped: a stripped copy of a program profiles like the program:
# every function without a symbol is one region (named PROGRAM+0xSTART, its
# FDE's start), the start-up frames (_start, __libc_start_call_main) are
# left out, so the call paths and visits are those of the unstripped build
# modulo names (the C++ test program at -O0, examples/halo at -O2 with its
# static functions, the C++ mini-app examples/drops at -O2). Symbols come back from a separate debug file
# (.gnu_debuglink) and from MiniDebugInfo (.gnu_debugdata).
. "$(dirname "$0")/progs/lib.sh"
require_built "stripped build"
export HPROF_SAMPLING_HZ=0      # MPI call paths only: the same in every run
CHECK="python3 $(dirname "$0")/symbols/check_stripped.py"

build_or_fail "stripped cxx build" build_plain "$MPICXX" "$PROGS/cxx.cpp" cxx || finish
if ! $MPICC -g -O2 "$ROOT/examples/halo/halo.c" -o halo -lm >halo.build.log 2>&1; then
    notok "stripped halo build" "$(grep -iE 'error' halo.build.log | head -n 3 | tr '\n' ' ' | cut -c1-300)"; finish
fi
if ! $MPICXX -g -O2 "$ROOT/examples/drops/drops_mini.cpp" -o drops >drops.build.log 2>&1; then
    notok "stripped drops build" "$(grep -iE 'error' drops.build.log | head -n 3 | tr '\n' ' ' | cut -c1-300)"; finish
fi

# profile NAME PROG ARGS...: NAME.cubex and NAME.csv, 0 on success
profile() { local n=$1 rc; shift
    HPROF_OUTPUT=$PWD/$n.cubex run_mpi_preload "$n" 2 "$@"; rc=$?
    profile_run_check "$n run" "$n" "$PWD/$n.cubex" "$n.csv" "$rc" || { show "$n.err"; return 1; }
}

for prog in cxx halo drops; do
    args=(); [ $prog = halo ] && args=(4 20000); [ $prog = drops ] && args=(5 16)
    nm -C --defined-only $prog > $prog.nm
    cp $prog ${prog}_s && strip ${prog}_s
    profile $prog ./$prog "${args[@]}" || continue
    profile ${prog}_s ./${prog}_s "${args[@]}" || continue
    timeout 60 "$TEST_VIEW" --json ${prog}_s.cubex > ${prog}_s.json
    $CHECK "stripped $prog: same regions and call paths, from main" $prog.csv $prog.nm ${prog}_s.csv ${prog}_s \
        --json ${prog}_s.json
done

# libc without its debug file (libc6-dbg absent, as on a fresh machine):
# __libc_start_call_main has no symbol and is still left out. /usr/lib/debug
# is hidden in a mount namespace of this test's own.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    HPROF_OUTPUT=$PWD/nodbg.cubex unshare -m sh -c 'mount -t tmpfs none /usr/lib/debug && "$@"' sh \
        bash -c ". '$PROGS/lib.sh'; run_mpi_preload nodbg 2 ./cxx_s"; rc=$?
    if profile_run_check "stripped cxx, libc without debug file: run" nodbg "$PWD/nodbg.cubex" nodbg.csv "$rc"; then
        $CHECK "stripped cxx, libc without debug file: same call paths, from main" cxx.csv cxx.nm nodbg.csv cxx_s
    fi
else
    ok "stripped cxx, libc without debug file # skip: needs root and unshare -m"
fi

# symbols from a separate debug file found through .gnu_debuglink
objcopy --only-keep-debug cxx cxx_dl.debug && cp cxx cxx_dl && strip cxx_dl &&
    objcopy --add-gnu-debuglink=cxx_dl.debug cxx_dl
if profile cxx_dl ./cxx_dl; then
    $CHECK "stripped cxx with a debug file: its names" cxx.csv cxx.nm cxx_dl.csv cxx_dl --names
fi

# Debug files are looked for on this machine only: with DEBUGINFOD_URLS set
# (Debian and Ubuntu set it for login shells) libdwfl's standard search asks
# the server for every module without a local debug file, and one that
# never answers held MPI_Finalize for minutes (271 s here, 6 connections).
python3 "$(dirname "$0")/symbols/silent_server.py" dfd.port dfd.count & dfd_pid=$!
for _ in $(seq 50); do [ -s dfd.port ] && break; sleep 0.1; done
if [ -s dfd.port ]; then
    export DEBUGINFOD_URLS=http://127.0.0.1:$(cat dfd.port) DEBUGINFOD_CACHE_PATH=$PWD/dfd.cache
    if [ "$TEST_MPI" = openmpi ]; then MPIRUN_DFD=(-x DEBUGINFOD_URLS -x DEBUGINFOD_CACHE_PATH)
    else MPIRUN_DFD=(-genv DEBUGINFOD_URLS "$DEBUGINFOD_URLS" -genv DEBUGINFOD_CACHE_PATH "$DEBUGINFOD_CACHE_PATH"); fi
    if profile cxx_dfd "${MPIRUN_DFD[@]}" ./cxx_dl; then
        $CHECK "debuginfod set: names from the local debug file" cxx.csv cxx.nm cxx_dfd.csv cxx_dl --names
        check "debuginfod set: no server asked, nothing cached" \
            "$(cat dfd.count) connections, cache: $(ls dfd.cache 2>/dev/null | tr '\n' ' ')" \
            test "$(cat dfd.count)" = 0 -a ! -e dfd.cache
    fi
    unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
else
    notok "debuginfod set" "the silent server did not start"
fi
kill $dfd_pid 2>/dev/null; wait $dfd_pid 2>/dev/null

# MiniDebugInfo: the function symbols, xz-compressed, in .gnu_debugdata
if ! command -v xz >/dev/null; then
    ok "stripped cxx with MiniDebugInfo: its names # skip: no xz"
    finish
fi
nm -D cxx --format=posix --defined-only | awk '{ print $1 }' | sort > mini.dynsyms
nm cxx --format=posix --defined-only | awk '$2 ~ /[TtWw]/ { print $1 }' | sort > mini.funcsyms
comm -13 mini.dynsyms mini.funcsyms > mini.keep
objcopy --only-keep-debug cxx mini.debug &&
    objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=mini.keep mini.debug mini.elf &&
    xz -f mini.elf && cp cxx cxx_mini && strip cxx_mini &&
    objcopy --add-section .gnu_debugdata=mini.elf.xz cxx_mini
if profile cxx_mini ./cxx_mini; then
    $CHECK "stripped cxx with MiniDebugInfo: its names" cxx.csv cxx.nm cxx_mini.csv cxx_mini --names
fi
finish
