#!/bin/bash
# The build keeps the flags its objects were compiled with (Makefile,
# keep_flags): a build with other flags rebuilds the objects, and a build
# with the usual flags after it rebuilds them back. Without this, a
# throwaway variant built with EXTRA_CFLAGS left its objects in the build
# folder, and the next `make` linked them into the library as they were.
# One object of the runtime (Open MPI's rule, or MPICH's) and one of the
# tools, in a build folder of its own.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

M=""
for m in openmpi mpich; do command -v "mpicc.$m" > /dev/null && { M=$m; break; }; done
B="$W/build"
OBJS="$B/tools/obj/core/log.o"
[ -n "$M" ] && OBJS="$OBJS $B/$M/obj/core/log.o"

# up_to_date FLAGS...: make -q's verdict on the objects with these flags
up_to_date() { make -s -q BUILD="$B" MPIS="$M" "$@" $OBJS > /dev/null 2>&1; }

if ! make -s BUILD="$B" MPIS="$M" $OBJS > "$W/make.log" 2>&1; then
    notok "build flags: the objects build" "$(tail -n 3 "$W/make.log" | tr '\n' ' ')"
    exit 0
fi
up_to_date && ok "build flags: built objects are up to date" ||
    notok "build flags: built objects are up to date" "make -q wants to rebuild them"
up_to_date EXTRA_CFLAGS=-DHPROF_FLAGS_PROBE &&
    notok "build flags: other flags rebuild the objects" "make -q EXTRA_CFLAGS=... took them as up to date" ||
    ok "build flags: other flags rebuild the objects"
up_to_date &&
    notok "build flags: the usual flags after others rebuild them back" "make -q took the variant's objects as up to date" ||
    ok "build flags: the usual flags after others rebuild them back"
grep -q -- "-std=gnu11" "$B/tools/flags" 2> /dev/null && ! grep -q HPROF_FLAGS_PROBE "$B/tools/flags" &&
    ok "build flags: the folder's flags file holds the flags" ||
    notok "build flags: the folder's flags file holds the flags" "$B/tools/flags: $(cat "$B/tools/flags" 2>&1)"
[ -n "$M" ] || echo "# build flags: no mpicc.openmpi or mpicc.mpich, the runtime's rule not checked"
