#!/bin/bash
# Profiles written by earlier hprof versions still open: hprof 0.1.0 wrote
# several roots and one compressed stream per row, in the order the call
# paths were met (data/hprof-0.1.0-row_order.cubex, from row_order.c on
# 2 ranks); hprof-view must read the same values as it did then.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
"$VIEW" --csv "$HERE/data/hprof-0.1.0-row_order.cubex" > "$W/got.csv" 2> "$W/err"; rc=$?
if [ $rc -ne 0 ]; then
    echo "not ok - hprof 0.1.0 profile opens: exit $rc: $(head -c 300 "$W/err")"
elif ! diff "$HERE/data/hprof-0.1.0-row_order.csv" "$W/got.csv" > "$W/diff"; then
    echo "not ok - hprof 0.1.0 profile reads as it did: $(head -n 4 "$W/diff" | tr '\n' ' ')"
else
    echo "ok - hprof 0.1.0 profile (several roots, rows out of order) reads as it did ($(wc -l < "$W/got.csv") rows)"
fi
