#!/bin/bash
# Interoperability: every profile the other tests wrote (run.sh collects
# them into TEST_PROFILE_POOL) is read with pyCubexR, the reader Extra-P
# uses, unmodified, and each value on every call path and location must
# equal hprof-view's. pyCubexR is an optional client: taken from
# ../shared/clients/pycubexr beside the checkout (or TEST_PYCUBEXR); the
# test says so in one line where it is absent. (tests/run.sh then runs
# interop/view_asan.sh: hprof-view under the sanitizers on the same pool.)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYC=${TEST_PYCUBEXR:-$ROOT/../shared/clients/pycubexr}
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
if [ ! -d "$PYC/pycubexr" ]; then
    echo "ok - pyCubexR interop # skip: no pyCubexR at $PYC"
    exit 0
fi
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "ok - pyCubexR interop # skip: Debian's python3-numpy is not installed"
    exit 0
fi
pool=${TEST_PROFILE_POOL:-}
if [ -z "$pool" ] || [ -z "$(ls "$pool" 2>/dev/null)" ]; then
    echo "ok - pyCubexR interop # skip: no profiles were written by this run"
    exit 0
fi
# pyCubexR must not pick up anything from the checkout: run it from /tmp.
cd /tmp && PYTHONPATH="$PYC" timeout 1700 /usr/bin/python3 "$ROOT/tests/interop/pycubexr_check.py" \
    "$VIEW" "$pool"/*.cubex
