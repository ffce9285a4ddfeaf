#!/bin/bash
# hprof's own walks of the loader's list (dl_iterate_phdr) hold its sampling
# signal back (core/real_dl.h): a sample whose walk needs libunwind takes
# the loader's lock too, and one landing while the thread was taking it
# waited for itself for good (a program hung at MPI_Init, exact_patch.c's
# call, 1 run in ~300 of tests/mpi/exact/exact_cxx at 10 kHz). The unit
# (tests/unit/loader_quiet) checks the mask inside the walk and after it,
# and that a forked child walks nothing (its loader lock may be held);
# and no file but core/real_dl.c calls dl_iterate_phdr itself.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
if cc -I. -g -O1 -std=gnu11 -o "$W/loader_quiet" tests/unit/loader_quiet/loader_quiet.c core/real_dl.c -ldl -lpthread \
    >"$W/build.log" 2>&1; then
    "$W/loader_quiet" >"$W/out" 2>&1
    unit_cases "loader quiet" "$W/out" sigprof realtime already_blocked forked_child
else
    notok "loader quiet: build" "$(head -c 300 "$W/build.log")"
fi
direct=$(grep -rln --include='*.c' 'dl_iterate_phdr *(' core unwind report lib wrappers tools | grep -v '^core/real_dl.c$')
if [ -z "$direct" ]; then
    ok "loader quiet: no file but core/real_dl.c calls dl_iterate_phdr"
else
    notok "loader quiet: direct calls" "dl_iterate_phdr called outside core/real_dl.c: $(tr '\n' ' ' <<<"$direct")"
fi
