#!/bin/bash
# writer_devices: the CUBE writer never replaces, truncates or writes
# through anything but a regular file (HPROF_OUTPUT=/dev/null as root once
# replaced the machine's /dev/null): device nodes (private mknod copies, never
# the real ones), FIFOs and sockets are refused and left as they were, a
# symbolic link is replaced itself (never followed), and no temporary is left
# beside them (report/cube/writer/cw_tmpfile.c;
# tests/mpi/output_devices.sh runs it for real).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" "$HERE/writer_devices/devices_test.c" \
        "$ROOT/report/cube/writer/cw_tmpfile.c" -o "$W/devices_test" 2> "$W/cc.err"; then
    echo "not ok - writer devices: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
mkdir -p "$W/d"
"$W/devices_test" "$W/d"
exit 0
