#!/bin/bash
# Interoperability with cubelib, the library under the Cube GUI, Scalasca
# and the cube_* tools: every profile the other tests wrote (run.sh
# collects them into TEST_PROFILE_POOL) is read with cubelib's cube_dump,
# and each value on every call path and location, exclusive and inclusive
# along the call tree, must equal hprof-view's. cubelib is an optional
# client (tests/interop/cubelib_env.sh says where it is looked for): the
# test says so in one line where it is absent.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
. "$ROOT/tests/interop/cubelib_env.sh"
if ! cubelib_find; then
    echo "ok - cubelib interop # skip: $CUBELIB_WHY"
    exit 0
fi
pool=${TEST_PROFILE_POOL:-}
if [ -z "$pool" ] || [ -z "$(ls "$pool" 2>/dev/null)" ]; then
    echo "ok - cubelib interop # skip: no profiles were written by this run"
    exit 0
fi
cd /tmp && timeout 1500 /usr/bin/python3 "$ROOT/tests/interop/cubelib_check.py" "$VIEW" "$CUBELIB/cube_dump" \
    "$pool"/*.cubex
