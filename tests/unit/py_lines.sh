#!/bin/bash
# py_lines: unwind/python/py_lines.c, the decoder of CPython 3.11's location
# tables (the line of a Python frame's instruction), against what Python
# itself says (co_lines) for every instruction of every code object of a
# few standard modules. Skipped with one line without Debian's python3.11.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
PY=/usr/bin/python3.11
if [ ! -x $PY ]; then
    echo "ok - py_lines # skip: $PY not installed (the decoder is for CPython 3.11)"; exit 0
fi
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT" "$HERE/py_lines/lines_test.c" \
        "$ROOT/unwind/python/py_lines.c" -o "$W/lines_test" 2> "$W/cc.err"; then
    echo "not ok - py_lines: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
if ! $PY "$HERE/py_lines/dump_lines.py" argparse asyncio.base_events json.decoder typing \
        > "$W/lines.txt" 2> "$W/py.err"; then
    echo "not ok - py_lines: dump: $(head -c 300 "$W/py.err" | tr '\n' ' ')"; exit 0
fi
"$W/lines_test" < "$W/lines.txt"
exit 0
