#!/bin/bash
# make demo: profile the C++ mini-application (examples/drops) on 4 ranks and
# show the call tree, the hotspots and where the HTML report is.
# DEMO_ARGS overrides the program's arguments (STEPS CELLS [endl|newline]).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
view=$root/build/tools/hprof-view
mkdir -p "$out"
cd "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpicxx.openmpi -g -O2 "$root/examples/drops/drops_mini.cpp" -o drops_mini
rm -f hprof-drops_mini-4p*.cubex
prof=hprof-drops_mini-4p.cubex
echo "== tools/hprof-run mpirun.openmpi --oversubscribe -np 4 ./drops_mini ${DEMO_ARGS:-}"
# shellcheck disable=SC2086
"$root/tools/hprof-run" mpirun.openmpi --oversubscribe -np 4 ./drops_mini ${DEMO_ARGS:-}
help=$("$view" --help 2>&1 || true)
has() { grep -q -- "$1" <<<"$help"; }
echo
echo "== build/tools/hprof-view build/demo/$prof"
"$view" "$prof"
if has --hotspots; then
    echo
    echo "== build/tools/hprof-view --hotspots build/demo/$prof"
    "$view" --hotspots "$prof"
fi
if has --focus; then
    echo
    echo "== build/tools/hprof-view --rank 0 --focus write_solution build/demo/$prof"
    "$view" --rank 0 --focus write_solution "$prof"
fi
echo
if has --html; then
    "$view" --html drops_mini.html "$prof"
    echo "HTML report (call tree, flame graph, per-rank strip): $out/drops_mini.html"
else
    "$view" --csv "$prof" > drops_mini.csv
    echo "csv of every call path, rank and metric: $out/drops_mini.csv"
fi
echo "The profile: $out/$prof. What it shows: examples/drops/README.md"
