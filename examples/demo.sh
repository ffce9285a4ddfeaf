#!/bin/bash
# make demo: profile the halo example on 4 ranks and show the result.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
mkdir -p "$out"
cd "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpicc.openmpi -g -O2 "$root/examples/halo/halo.c" -o halo -lm
rm -f hprof-halo-4p*.cubex
echo "== hprof-run mpirun.openmpi --oversubscribe -np 4 ./halo"
HPROF_SAMPLING_HZ=200 "$root/tools/hprof-run" mpirun.openmpi --oversubscribe -np 4 ./halo
echo
echo "== hprof-view build/demo/hprof-halo-4p.cubex"
"$root/build/tools/hprof-view" hprof-halo-4p.cubex
