#!/bin/bash
# writer_noreplace: the CUBE writer's commit under a name that must not be
# replaced and was taken while it wrote (two jobs at once in one folder, a
# job and the job it spawned) moves on to .1, .2, ... and reports the name
# it used; a name given to replace (HPROF_OUTPUT) is replaced.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" "$HERE/writer_noreplace/noreplace_test.c" \
        "$ROOT/report/cube/writer/cw_tmpfile.c" -o "$W/noreplace_test" 2> "$W/cc.err"; then
    echo "not ok - writer no-replace: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
mkdir -p "$W/d"
"$W/noreplace_test" "$W/d"
exit 0
