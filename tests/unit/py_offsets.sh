#!/bin/bash
# py_offsets: where unwind/python/py_layout.h says CPython 3.11 keeps the fields of
# its thread state, frames, code objects and strings, against the
# interpreter's own headers (Debian: python3.11-dev). Skipped with one line without them.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
INC=/usr/include/python3.11
if [ ! -f $INC/internal/pycore_frame.h ]; then
    echo "ok - py_offsets # skip: CPython 3.11's headers not installed ($INC; Debian: python3.11-dev)"; exit 0
fi
grep -E '^#define (TS|CF|FR|OB|CO|STR|BYTES)_[A-Z_]+ +[0-9]+' "$ROOT/unwind/python/py_layout.h" > "$W/offsets.h"
if ! gcc -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -I$INC -I"$W" \
        "$HERE/py_offsets/offsets_test.c" -o "$W/offsets_test" 2> "$W/cc.err"; then
    echo "not ok - py_offsets: test builds: $(head -c 300 "$W/cc.err" | tr '\n' ' ')"; exit 0
fi
"$W/offsets_test"
exit 0
