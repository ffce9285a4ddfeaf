#!/bin/bash
# A signal handler does without libunwind while its thread holds the lock
# dl_iterate_phdr takes (core/loader_lock.h): libunwind holds its own lock
# across dl_iterate_phdr, and a sample in dlclose waited for it while the
# thread that held it waited for dlclose's (tests/mpi/exact_dlopen_race.sh
# hung). The unit (tests/unit/loader_lock) finds glibc's lock and reads it
# not this thread's at rest, this thread's inside a dl_iterate_phdr
# callback, another thread's (and not this one's) while that one is
# inside, and not this thread's after.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
if cc -I. -g -O1 -std=gnu11 -o "$W/loader_lock" tests/unit/loader_lock/loader_lock.c core/loader_lock.c \
    core/real_dl.c -ldl -lpthread >"$W/build.log" 2>&1; then
    "$W/loader_lock" >"$W/out" 2>&1
    unit_cases "loader lock" "$W/out" free own other not_mine after
else
    notok "loader lock: build" "$(head -c 300 "$W/build.log")"
fi
