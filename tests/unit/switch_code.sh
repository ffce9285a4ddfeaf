#!/bin/bash
# switch_code: unwind/switch_code.c, which knows the C library's
# swapcontext and setcontext by their symbols, so that a sample's walk
# that fails inside them (the other context's stack under the old CFI:
# tests/mpi/unwind_coswitch.sh's ucontext mode, about 1 run in 30 on a
# loaded machine) is dropped, not counted as a failed walk. Their extents
# as the sampler sees them: their first and last byte inside, the bytes
# around them and other functions outside, an address that starts no
# symbol and a NULL added as nothing. The exception unwinder's module
# (libgcc_s, whose last step loads a landing pad's stack pointer; a
# libunwind walk from a sample there crashed tests/mpi/exact_cxx.sh's
# program about 1 run in 12 at 10 kHz): its functions inside, the C
# library's outside, the program's own module never added.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" "$HERE/switch_code/switch_code_test.c" \
        "$ROOT/unwind/switch_code.c" "$ROOT/core/real_dl.c" -o "$W/switch_code_test" -ldl 2> "$W/cc.err"; then
    echo "not ok - switch_code: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
"$W/switch_code_test"
exit 0
