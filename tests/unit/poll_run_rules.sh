#!/bin/bash
# The poll-run rules (lib/polls/poll_rules.h: which polls are timed, the
# estimate of a polling loop's MPI time, lumps, the split of the time off
# the CPU) without MPI, on synthetic clock readings
# (tests/unit/poll_run/poll_rules_test.c). Built under ASan+UBSan where gcc
# has them.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo 'int main(void){return 0;}' > "$W/san.c"
gcc $SAN "$W/san.c" -o "$W/san" 2> /dev/null && "$W/san" 2> /dev/null || SAN=""
if ! gcc -std=gnu11 -g -O1 $SAN -Wall -Wextra -Werror -I"$ROOT" \
        "$ROOT/tests/unit/poll_run/poll_rules_test.c" -lm -o "$W/poll_rules_test" 2> "$W/cc.err"; then
    notok "poll rules: the test program builds without MPI" "$(head -c 400 "$W/cc.err")"; exit 0
fi
ok "poll rules: the test program builds without MPI${SAN:+ (under ASan and UBSan)}"
"$W/poll_rules_test"; rc=$?
[ $rc -le 1 ] || notok "poll rules: the test program ends" "exit status $rc"
exit 0
