#!/bin/bash
# The tests that need no MPI (tests/unit, tests/arch, tests/common) with every C program they
# build compiled with -fsanitize=address,undefined (tests/sanitizers/bin/gcc
# first on PATH; leaks are reported too): a sanitizer report aborts the
# program and fails its check. Prints tests/run.sh's lines and its
# "N passed, N failed". `make check-sanitizers`.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export PATH=$HERE/bin:$PATH
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
gcc_now=$(command -v gcc)
[ "$gcc_now" = "$HERE/bin/gcc" ] || { echo "not ok - sanitizing gcc first on PATH: found $gcc_now"; exit 1; }
echo 'int main(void) { int a[2]; volatile int i = 2; return a[i]; }' > "${TMPDIR:-/tmp}/asan_probe.$$.c"
if gcc -o "${TMPDIR:-/tmp}/asan_probe.$$" "${TMPDIR:-/tmp}/asan_probe.$$.c" 2>/dev/null &&
   ! "${TMPDIR:-/tmp}/asan_probe.$$" 2>/dev/null; then
    echo "ok - sanitizing gcc: an out-of-bounds read in a program it builds aborts"
else echo "not ok - sanitizing gcc: an out-of-bounds read went unnoticed"; exit 1; fi
rm -f "${TMPDIR:-/tmp}/asan_probe.$$" "${TMPDIR:-/tmp}/asan_probe.$$.c"
# tests/run.sh without an MPI library runs the kinds without MPI only.
TEST_NO_INTEROP=1 "$ROOT/tests/run.sh"
