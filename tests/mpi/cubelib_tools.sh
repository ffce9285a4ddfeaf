#!/bin/bash
# cubelib_tools: cubelib's own command-line tools (the library under the
# Cube GUI and Scalasca) on hprof's default profile of a program with two
# call sites of MPI_Sendrecv under one caller, collectives and computation
# (cubelib/two_sites.c; Open MPI 4 ranks, MPICH 2):
#   cube_info, cube_stat, cube_calltree, cube_dump (every value, incl and
#   excl, as hprof-view's) read it; exchange has one MPI_Sendrecv child
#   with the visits of both sites; MPI regions are in module MPI;
#   cube_remap2 -d derives Scalasca's metrics (mpi, comp, visits equal to
#   hprof's totals); cube_sanity finds no negative value; cube_diff,
#   cube_cut and cube_commoncalltree work on it. cubelib is optional: one
#   'skip' line without it (tests/interop/cubelib_env.sh).
. "$(dirname "$0")/progs/lib.sh"
require_built "cubelib tools"
W=$PWD
. "$ROOT/tests/interop/cubelib_env.sh"
if ! cubelib_find; then echo "ok - cubelib tools # skip: $CUBELIB_WHY"; exit 0; fi
NP=4; [ "$TEST_MPI" = mpich ] && NP=2
ITER=$(sed -n 's/^#define ITER \([0-9]*\)/\1/p' "$ROOT/tests/mpi/cubelib/two_sites.c")
build_or_fail "cubelib tools: build" build_plain "$MPICC" "$ROOT/tests/mpi/cubelib/two_sites.c" two_sites || finish
HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/p.cubex run_mpi_preload run $NP ./two_sites; rc=$?
profile_run_check "cubelib tools: run" run "$PWD/p.cubex" p.csv "$rc" || { show run.err; finish; }
CL=$CUBELIB

# cube_dump: the table of one metric along the call tree for all threads
# summed (-t aggr), as "cnode value" lines.
aggr() { "$CL/cube_dump" -m "$1" -c "${3:-all}" -z "${2:-excl}" -t aggr -s csv2 "$4" 2>/dev/null |
    awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1, $NF }'; }
# the cnode ids of a region's call paths, from cube_dump -w calltree
cnodes_of() { "$CL/cube_dump" -w calltree "$2" 2>/dev/null | sed -n "s/.*\\b$1 *\\[ *( *id=\\([0-9]*\\).*/\\1/p"; }

for t in cube_info cube_calltree; do
    "$CL/$t" p.cubex > $t.out 2>&1; rc=$?
    if [ $rc -eq 0 ] && grep -q MPI_Sendrecv $t.out; then ok "cubelib tools: $t reads the profile"
    else notok "cubelib tools: $t reads the profile" "exit $rc: $(oneline $t.out 300)"; fi
done
"$CL/cube_stat" -m time,visits -r MPI_Sendrecv p.cubex > stat.out 2>&1; rc=$?
sv=$(awk -F, '/^INCL\(MPI_Sendrecv\)/ { print $3 }' stat.out)
if [ $rc -eq 0 ] && [ "$sv" = $((2 * ITER * NP)) ]; then ok "cubelib tools: cube_stat: MPI_Sendrecv's $sv visits"
else notok "cubelib tools: cube_stat reads the profile" "exit $rc, visits '$sv': $(oneline stat.out 300)"; fi
out=$(cd /tmp && /usr/bin/python3 "$ROOT/tests/interop/cubelib_check.py" "$TEST_VIEW" "$CL/cube_dump" "$W/p.cubex")
case $out in
ok*) ok "cubelib tools: cube_dump: every value, exclusive and inclusive, as hprof-view's" ;;
*) notok "cubelib tools: cube_dump: every value as hprof-view's" "$out" ;;
esac

# One MPI_Sendrecv under exchange, with both sites' visits.
"$CL/cube_calltree" -m visits -i p.cubex > tree.txt 2>&1
n=$(grep -c 'MPI_Sendrecv' tree.txt)
v=$(awk '/MPI_Sendrecv/ { print $1 }' tree.txt)
if [ "$n" = 1 ] && [ "$v" = $((2 * ITER * NP)) ]; then
    ok "cubelib tools: exchange has one MPI_Sendrecv child with both sites' $v visits"
else notok "cubelib tools: one MPI_Sendrecv child with both sites' visits" \
    "$n MPI_Sendrecv nodes, visits '$v', want $((2 * ITER * NP)): $(oneline tree.txt 400)"; fi

# Score-P's region conventions for MPI.
tar -xOf p.cubex anchor.xml > anchor.xml 2>/dev/null
bad=$(/usr/bin/python3 - anchor.xml <<'PY'
import sys, xml.etree.ElementTree as ET
regions = ET.parse(sys.argv[1]).getroot().iter("region")
mpi = [r for r in regions if (r.findtext("name") or "").startswith("MPI_")]
bad = ["%s mod=%r paradigm=%r" % (r.findtext("name"), r.get("mod"), r.findtext("paradigm"))
       for r in mpi if r.get("mod") != "MPI" or r.findtext("paradigm") != "mpi"]
print("; ".join(bad[:3]) if bad or mpi else "no MPI region")
PY
)
[ -z "$bad" ] && ok "cubelib tools: MPI regions in module MPI, paradigm mpi" ||
    notok "cubelib tools: MPI regions in module MPI" "$bad"
"$CL/cube_regioninfo" p.cubex > regioninfo.txt 2>&1
mpi_share=$(awk '/\(summary\) MPI$/ { print $(NF-2) }' regioninfo.txt)
if awk -v s="${mpi_share:-0}" 'BEGIN { exit !(s > 0) }'; then ok "cubelib tools: cube_regioninfo counts MPI time ($mpi_share%)"
else notok "cubelib tools: cube_regioninfo counts MPI time" "$(oneline regioninfo.txt 300)"; fi

# Scalasca's metrics from the profile's own remapping spec.
"$CL/cube_remap2" -d -o remap p.cubex > remap.log 2>&1; rc=$?
if [ $rc -ne 0 ] || [ ! -f remap.cubex ]; then
    notok "cubelib tools: cube_remap2 -d" "exit $rc: $(tail -n 3 remap.log | tr '\n' ' ')"
else
    ok "cubelib tools: cube_remap2 -d derives Scalasca's metrics from the profile's remapping.spec"
    root() { aggr "$1" incl 0 "$2" | awk '{ print $2 }'; }
    for pair in mpi:mpi_time comp:comp_time execution:time visits:visits; do
        a=$(root "${pair%%:*}" remap.cubex) b=$(root "${pair##*:}" p.cubex)
        if [ -n "$a" ] && awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-5 * (b < 0 ? -b : b) + 1e-9) }'
        then ok "cubelib tools: remapped ${pair%%:*} $a = hprof's ${pair##*:}"
        else notok "cubelib tools: remapped ${pair%%:*} = hprof's ${pair##*:}" "'$a' vs '$b'"; fi
    done
    parts=$(for m in mpi_management mpi_synchronization mpi_communication mpi_io mpi_request_handling mpi_other; do
        root $m remap.cubex; done | awk '{ s += $1 } END { print s }')
    a=$(root mpi remap.cubex)
    awk -v a="$a" -v p="$parts" 'BEGIN { d = a - p; if (d < 0) d = -d; exit !(d <= 1e-5 * a + 1e-9) }' &&
        ok "cubelib tools: the MPI categories add up to mpi ($parts)" ||
        notok "cubelib tools: the MPI categories add up to mpi" "$parts vs $a"
    p2p=$(root mpi_point2point remap.cubex); coll=$(root mpi_collective remap.cubex)
    awk -v p="$p2p" -v c="$coll" 'BEGIN { exit !(p > 0 && c > 0) }' &&
        ok "cubelib tools: point-to-point ($p2p s) and collective ($coll s) time found" ||
        notok "cubelib tools: point-to-point and collective time" "p2p '$p2p', collective '$coll'"
fi

# cube_sanity: no negative value (max_time on paths without a measured call included).
"$CL/cube_sanity" -l p.cubex > sanity.txt 2>&1
neg=$(tr '\r' '\n' < sanity.txt | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^No negative (inclusive|exclusive) metrics')
if [ "$(grep -c 'OK$' <<<"$neg")" = 2 ] && ! grep -q FAIL <<<"$neg"; then
    ok "cubelib tools: cube_sanity finds no negative value"
else notok "cubelib tools: cube_sanity finds no negative value" "$(tr '\n' ' ' <<<"$neg")"; fi

# Derived files: the difference with itself is zero, the cut keeps the
# subtree's values, the common call tree of two runs opens.
"$CL/cube_diff" -o diff p.cubex p.cubex > diff.log 2>&1; rc=$?
nz=$(aggr time excl all diff.cubex | awk '$2 != 0' | wc -l)
[ $rc -eq 0 ] && [ -f diff.cubex ] && [ "$nz" = 0 ] && ok "cubelib tools: cube_diff of the profile with itself is all zeros" ||
    notok "cubelib tools: cube_diff" "exit $rc, $nz nonzero cells: $(tail -n 2 diff.log | tr '\n' ' ')"
"$CL/cube_cut" -r exchange -o cut p.cubex > cut.log 2>&1; rc=$?
"$CL/cube_calltree" -m visits -i cut.cubex > cut_tree.txt 2>&1
cv=$(awk '/MPI_Sendrecv/ { print $1 }' cut_tree.txt)
[ $rc -eq 0 ] && [ "$cv" = "$v" ] && ok "cubelib tools: cube_cut -r exchange keeps MPI_Sendrecv's $cv visits" ||
    notok "cubelib tools: cube_cut -r exchange" "exit $rc, visits '$cv' want '$v': $(oneline cut_tree.txt 200)"
cp p.cubex q.cubex
"$CL/cube_commoncalltree" p.cubex q.cubex > common.log 2>&1; rc=$?
[ $rc -eq 0 ] && [ -f q_commoncalltree.cubex ] && ok "cubelib tools: cube_commoncalltree of two profiles" ||
    notok "cubelib tools: cube_commoncalltree" "exit $rc: $(tail -c 300 common.log)"
# cubelib's own files stay out of the suite's pool of hprof profiles
rm -f remap.cubex diff.cubex cut.cubex q.cubex ./*_commoncalltree.cubex
finish
