#!/bin/bash
# view_sites: MPI call sites that would read alike are told apart in
# --mpi (sync_all > MPI_Barrier reached from setup and from finish gets its
# caller's call site: sync_all (sites.c:19) > MPI_Barrier), also in a stripped build,
# where two calls in one function are two call sites by their return
# addresses (prog+0x...) as they are two by their lines with symbols; --mpi
# rows carry site ids that the tree view takes as --focus site:N. Call
# sites as nodes of their own: HPROF_CALLSITES=split (the default tree has
# one node per function under a caller, as Score-P's).
. "$(dirname "$0")/progs/lib.sh"
require_built "sites build"
export HPROF_SAMPLING_HZ=0 HPROF_CALLSITES=split
NP=2
build_or_fail "sites build" build_plain "$MPICC" "$PROGS/sites.c" sites || finish
cp sites sites_s && strip sites_s

for p in sites sites_s; do
    HPROF_OUTPUT=$PWD/$p.cubex run_mpi_preload $p $NP ./$p; rc=$?
    profile_run_check "sites run ($p)" $p "$PWD/$p.cubex" $p.csv "$rc" || { show $p.err; finish; }
    timeout 60 "$TEST_VIEW" --mpi --top 20 $p.cubex > $p.mpi 2>&1
    # the rows of the 'by time' table: site id, then the label
    sed -n '/call sites by time/,/^(site/p' $p.mpi | grep -E '^ *[0-9]+ ' |
        sed -E 's/^.* ([0-9]+)  (.*)$/\1 \2/' > $p.rows
    dup=$(cut -d' ' -f2- $p.rows | sort | uniq -d | head -n 2)
    if [ -s $p.rows ] && [ -z "$dup" ]; then ok "$p: --mpi labels all differ ($(wc -l < $p.rows) call sites)"
    else notok "$p: --mpi labels all differ" "same label twice: $dup; $(head -n 12 $p.rows | tr '\n' '|')"; fi
    n_bar=$(grep -c 'MPI_Barrier' $p.rows); n_red=$(grep -c 'MPI_Allreduce' $p.rows)
    if [ "$n_bar" = 2 ] && [ "$n_red" = 2 ]; then ok "$p: two MPI_Barrier and two MPI_Allreduce call sites"
    else notok "$p: two MPI_Barrier and two MPI_Allreduce call sites" "$n_bar and $n_red: $(tr '\n' '|' < $p.rows)"; fi
done
for p in sites sites_s; do
    if [ "$(wrote_field $p.err paths)" = "$(wrote_field sites.err paths)" ]; then ok "$p: as many call paths as with symbols"
    else notok "$p: as many call paths as with symbols" "$(wrote_field $p.err paths) vs $(wrote_field sites.err paths)"; fi
done
# the line of the call of sync_all in setup() and in finish()
call_line() { awk -v f="$1" '$0 ~ "^static void .*" f "\\(void\\)" { in_f = 1 } in_f && /sync_all\(/ { print NR; exit }' "$PROGS/sites.c"; }
SETUP=$(call_line setup)
FINISH=$(call_line finish)
if grep -q "^[0-9]* sync_all (sites\.c:$SETUP) > MPI_Barrier (sites\.c:[0-9]*)\$" sites.rows &&
   grep -q "^[0-9]* sync_all (sites\.c:$FINISH) > MPI_Barrier (sites\.c:[0-9]*)\$" sites.rows; then
    ok "sites: the barrier's rows name where their caller was called (lines $SETUP and $FINISH)"
else notok "sites: the barrier's rows name where their caller was called" "$(grep Barrier sites.rows | tr '\n' '|')"; fi
if [ "$(grep -c '^[0-9]* sites_s+0x[0-9a-f]* > MPI_Allreduce (sites_s+0x[0-9a-f]*)$' sites_s.rows)" = 2 ]; then
    ok "sites_s: the two MPI_Allreduce calls of one function have their return addresses as call sites"
else notok "sites_s: MPI_Allreduce call sites by address" "$(grep Allreduce sites_s.rows | tr '\n' '|')"; fi

# --focus site:N shows that call site's path: finish's barriers, 3 a rank
id=$(awk -v l="sites.c:$FINISH)" 'index($0, l) && /MPI_Barrier/ { print $1 }' sites.rows)
timeout 60 "$TEST_VIEW" --focus "site:$id" --metric visits --threshold 0 sites.cubex > focus.txt 2>&1
if [ -n "$id" ] && grep -qE "^ +$((3 * NP)) .* +MPI_Barrier" focus.txt && grep -q ' finish' focus.txt &&
   ! grep -q ' setup' focus.txt; then ok "sites: --focus site:$id shows finish's MPI_Barrier only"
else notok "sites: --focus site:N" "id '$id': $(tail -n 6 focus.txt | tr '\n' '|')"; fi
timeout 60 "$TEST_VIEW" --focus site:999 sites.cubex > /dev/null 2> bad.txt; rc=$?
[ $rc -eq 2 ] && grep -q 'no MPI call site 999' bad.txt && ok "sites: --focus site:999 is bad usage" ||
    notok "sites: --focus site:999" "exit $rc: $(cat bad.txt)"
finish
