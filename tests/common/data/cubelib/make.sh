#!/bin/bash
# Regenerates this folder's files (run by hand; the tests only read them):
#   make.sh CUBELIB_DIR SAMPLES_DIR [OUT_DIR]
# (tests/common/cube_reader_cubelib.sh runs it live into a scratch OUT_DIR)
# CUBELIB_DIR holds cubelib 4.6's bin/ and lib/ (../shared/clients/cubelib-4.6),
# SAMPLES_DIR the Score-P samples (../shared/cube-samples). The hprof
# profiles hprof-halo-2p*.cubex.gz are taken as they are (see README.md).
# Every output of a cubelib tool gets cubelib's own cube_dump of it, all
# metrics, inclusive and exclusive (NAME.incl.csv, NAME.excl.csv); all are
# stored gzip-compressed (hprof-view reads .cubex files so).
set -eu
CL=$1 S=$2
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "${3:-$HERE}" && pwd)
. "$HERE/../../cube_tools/cubelib.sh"
T=$(mktemp -d)
cubelib_setup "$CL" "$T" || { echo "no usable cubelib at $CL" >&2; exit 1; }
cd "$T"
gunzip < "$HERE/hprof-halo-2p.cubex.gz" > a.cubex
gunzip < "$HERE/hprof-halo-2p-b.cubex.gz" > b.cubex
tar xOf "$S/time.p4.n2000.x1.r0/profile.cubex" remapping.spec > scorep.spec
cp "$S/time.p4.n2000.x1.r0/profile.cubex" t.cubex
run() { "$CUBELIB_BIN/$@" > /dev/null 2>&1; }
# hprof's profiles through the tools
run cube_cut -r solve -o hprof-cut-reroot a.cubex
run cube_cut -p exchange_halos -o hprof-cut-prune a.cubex
run cube_mean -o hprof-mean a.cubex b.cubex
run cube_diff -o hprof-diff a.cubex b.cubex
run cube_exclusify -o hprof-exclusify a.cubex && mv hprof-exclusify_excl.cubex hprof-exclusify.cubex
run cube_remap2 -r scorep.spec -d -o hprof-remap-d a.cubex
run cube_remap2 -r scorep.spec -o hprof-remap a.cubex
run cube_derive -t prederived -r exclusive -e 'metric::mpi_time()/metric::time()' -p time mpi_share a.cubex \
    -o hprof-derive-pre
run cube_derive -r exclusive -e 'metric::mpi_time()*2' -p time mpi_twice a.cubex -o hprof-derive-data
# Score-P's through the tools
run cube_cut -r 'MODEL_1(unsigned long, unsigned long, int, int)' -o scorep-cut-reroot t.cubex
run cube_diff -o scorep-diff-self t.cubex t.cubex
run cube_exclusify -o scorep-exclusify t.cubex && mv scorep-exclusify_excl.cubex scorep-exclusify.cubex
run cube_remap2 -d -o scorep-remap-d t.cubex
for f in hprof-*.cubex scorep-*.cubex; do
    n=${f%.cubex}
    # (CubePL's warnings go to standard output too: only the CSV's lines kept)
    for z in incl excl; do
        "$CUBELIB_BIN/cube_dump" -m all -c all -z $z -s csv2 "$f" 2>/dev/null | grep -E '^(Cnode ID|[0-9])' > "$n.$z.csv"
    done
    for x in "$f" "$n.incl.csv" "$n.excl.csv"; do gzip -9n < "$x" > "$OUT/$x.gz"; done
done
rm -rf "$T"
