#!/bin/bash
# ThreadSanitizer on the lock-free recipe table and the learner's queue
# (tsan_tables.c): the unwinder's sources they need, built with
# -fsanitize=thread beside the stress program, run at 6 and 12 threads; any
# ThreadSanitizer report or a bad recipe fails. No MPI: Open MPI's and
# MPICH's libraries are not instrumented, so MPI programs under TSan would
# report the libraries' own synchronisation as races. `make check-tsan`.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
CC=${CC:-cc}
ok() { echo "ok - $1"; }
failed=0
notok() { echo "not ok - $1: $2"; failed=1; }
cd "$ROOT" || exit 1
srcs="unwind/recipe.c unwind/learner.c unwind/prelearn.c unwind/modules.c unwind/debug_files.c core/config.c core/log.c core/real_dl.c core/own_thread.c"
# shellcheck disable=SC2086 # srcs are words
if ! $CC -std=gnu11 -g -O1 -fsanitize=thread -I. "$HERE/tsan_tables.c" $srcs -o "$W/tsan_tables" \
        -ldw -lelf -lz -ldl -lpthread -lm > "$W/cc.log" 2>&1; then
    notok "tsan: tsan_tables builds with -fsanitize=thread" "$(grep -m3 'error' "$W/cc.log" | tr '\n' ' ')"; exit 1
fi
ok "tsan: tsan_tables and $(wc -w <<<"$srcs") sources build with -fsanitize=thread"
# gcc 12's ThreadSanitizer dies with "unexpected memory mapping" where the
# kernel randomises mmap with more than 28 bits (vm.mmap_rnd_bits = 32 on
# some machines, CI's among them); the program runs without address-space
# randomisation, which TSan's shadow layout needs and the check does not.
norandom=""
setarch "$(uname -m)" -R true 2> /dev/null && norandom="setarch $(uname -m) -R"
for threads in 6 12; do
    # shellcheck disable=SC2086 # norandom is words
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 $norandom "$W/tsan_tables" "$threads" > "$W/out" 2> "$W/err"; rc=$?
    line=$(grep '^tsan_tables:' "$W/out")
    if [ $rc -eq 0 ] && ! grep -q 'ThreadSanitizer' "$W/err"; then
        ok "tsan: recipe table and learner queue, $threads threads, no race (${line#tsan_tables: })"
    else
        notok "tsan: recipe table and learner queue, $threads threads" \
              "exit $rc: $line $(grep -m1 -A12 -E 'WARNING: ThreadSanitizer|FATAL|ERROR' "$W/err" | tr '\n' ' ' | cut -c1-900)"
    fi
done
exit $failed
