#!/bin/bash
# symbols_system_lines: source lines come from the program and its own
# libraries; in the system's libraries (/lib, /usr/lib, ...) call sites are
# return addresses unless HPROF_SYSTEM_LINES=1 (their line tables come from
# debug packages: libc6-dbg's cost every rank 50-90 ms at MPI_Finalize).
# The same library with DWARF, libsyslines.so, is loaded from the test's
# folder and from /usr/lib/debug (a tmpfs in a mount namespace of this
# test's own), and its MPI_Barrier call site and sys_sync's first line are
# read from hprof-view --json.
. "$(dirname "$0")/progs/lib.sh"
require_built "system lines build"
export HPROF_SAMPLING_HZ=0
HERE=$(cd "$(dirname "$0")" && pwd)
SYSDIR=/usr/lib/debug
if ! $MPICC -g -O1 -fPIC -shared "$HERE/symbols/syslib.c" -o libsyslines.so >lib.build.log 2>&1 ||
   ! $MPICC -g -O1 "$HERE/symbols/sysmain.c" -o here -L. -lsyslines -Wl,-rpath,"$PWD" >here.build.log 2>&1 ||
   ! $MPICC -g -O1 "$HERE/symbols/sysmain.c" -o sys -L. -lsyslines -Wl,-rpath,$SYSDIR >sys.build.log 2>&1; then
    notok "system lines build" "$(cat lib.build.log here.build.log sys.build.log 2>/dev/null | head -n 3 | tr '\n' ' ')"; finish
fi
LINE=$(grep -n 'the call site' "$HERE/symbols/syslib.c" | cut -d: -f1)

# site NAME: "FILE LINE" of NAME.cubex's MPI_Barrier call site, and "region FILE LINE" of sys_sync
site() {
    timeout 60 "$TEST_VIEW" --json "$1.cubex" 2>/dev/null | python3 -c '
import json, os, sys
d = json.load(sys.stdin)
for n in d["call_tree"]:
    if n["name"] == "MPI_Barrier":
        print(os.path.basename(n["file"] or "-"), n["line"])
for r in d["regions"]:
    if r["name"] == "sys_sync":
        print("region", os.path.basename(r["file"] or "-"), r["begin_line"])'
}

HPROF_OUTPUT=$PWD/here.cubex run_mpi_preload here 2 ./here; rc=$?
if profile_run_check "own folder: run" here "$PWD/here.cubex" here.csv "$rc"; then
    site here > here.rows
    grep -qx "syslib\.c $LINE" here.rows && grep -qx "region syslib\.c [0-9]*" here.rows &&
        ok "own folder: the call site's line (syslib.c:$LINE) and the function's" ||
        notok "own folder: the call site's line" "want syslib.c:$LINE: $(tr '\n' '|' < here.rows)"
fi

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    ok "system folder # skip: needs root and unshare -m"; finish
fi
# in_sys LABEL ENV...: ./sys with libsyslines.so in the system folder
in_sys() { local label=$1; shift
    env "$@" HPROF_OUTPUT="$PWD/$label.cubex" unshare -m sh -c \
        'mount -t tmpfs none "$1" && cp libsyslines.so "$1"/ && shift && "$@"' sh $SYSDIR \
        bash -c ". '$PROGS/lib.sh'; run_mpi_preload $label 2 ./sys"
}
in_sys sys; rc=$?
if profile_run_check "system folder: run" sys "$PWD/sys.cubex" sys.csv "$rc"; then
    site sys > sys.rows
    if grep -qx 'libsyslines\.so+0x[0-9a-f]* None' sys.rows && grep -qx 'region libsyslines\.so None' sys.rows &&
       ! grep -q 'syslib\.c' sys.rows; then
        ok "system folder: the call site is its return address, the function has no line"
    else notok "system folder: the call site is its return address" "$(tr '\n' '|' < sys.rows)"; fi
fi
in_sys sys_lines HPROF_SYSTEM_LINES=1; rc=$?
if profile_run_check "system folder, HPROF_SYSTEM_LINES=1: run" sys_lines "$PWD/sys_lines.cubex" sys_lines.csv "$rc"; then
    site sys_lines > sys_lines.rows
    grep -qx "syslib\.c $LINE" sys_lines.rows && grep -qx "region syslib\.c [0-9]*" sys_lines.rows &&
        ok "system folder, HPROF_SYSTEM_LINES=1: the call site's line (syslib.c:$LINE)" ||
        notok "system folder, HPROF_SYSTEM_LINES=1: the call site's line" "$(tr '\n' '|' < sys_lines.rows)"
fi
finish
