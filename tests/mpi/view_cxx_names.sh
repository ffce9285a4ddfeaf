#!/bin/bash
# view_cxx_names: a C++ program with long template names (class templates
# with default arguments, a member function template taking a std::map of
# std::string) reads short where space is short: the tree, --flat, --mpi
# print solver::Grid::exchange, instantiations that would read alike keep
# their template arguments (solver::Field<double>::sync), --long-names and
# --json have the demangled names in full; --hotspots lines fit 100 columns
# (and COLUMNS), also with --long-names; --fold libs shows libc's qsort
# frames between main and the comparator as one node [libc.so.6].
. "$(dirname "$0")/progs/lib.sh"
require_built "templ build"
export HPROF_SAMPLING_HZ=0
NP=2
build_or_fail "templ build" build_plain "$MPICXX" "$PROGS/templ.cpp" templ || finish
HPROF_OUTPUT=$PWD/templ.cubex run_mpi_preload templ $NP ./templ; rc=$?
profile_run_check "templ run" templ "$PWD/templ.cubex" templ.csv "$rc" || { show templ.err; finish; }
FULL=$(nm templ | awk '{ print $NF }' | grep -E '^_ZN6solver4GridIdSaIdEE8exchangeILi3EEEdRK' | head -n 1 | c++filt)
FD=$(nm templ | awk '{ print $NF }' | grep -E '^_ZN6solver5FieldIdE4sync' | head -n 1 | c++filt)
note "full names: $FULL | $FD"
[ -n "$FULL" ] && [ -n "$FD" ] || { notok "templ symbols" "not found with nm"; finish; }
v() { timeout 60 "$TEST_VIEW" "$@" templ.cubex 2>&1; }

v --metric visits --threshold 0 > tree.txt
if grep -qE '^ +[0-9]+ .* solver::Grid::exchange \(' tree.txt && grep -qE ' solver::Field<double>::sync \(' tree.txt &&
   grep -qE ' solver::Field<float>::sync \(' tree.txt && ! grep -qE 'std::map|std::vector|\(std::' tree.txt; then
    ok "tree: short names; template arguments only where two instantiations would read alike"
else notok "tree: short names" "$(grep -E 'solver' tree.txt | tr '\n' '|' | cut -c1-600)"; fi
v --metric visits --threshold 0 --long-names > long.txt
grep -qF " $FULL (" long.txt && grep -qF " $FD (" long.txt && ok "tree --long-names: the demangled names in full" ||
    notok "tree --long-names" "$(grep solver long.txt | head -n 2 | cut -c1-300)"
v --flat > flat.txt
grep -qE '  solver::Grid::exchange$' flat.txt && ok "flat: short names" || notok "flat: short names" "$(grep solver flat.txt | tr '\n' '|')"
v --mpi > mpi.txt
grep -qE '  solver::Grid::exchange > MPI_Allreduce \(' mpi.txt && ok "mpi: short names" ||
    notok "mpi: short names" "$(grep Allreduce mpi.txt | tr '\n' '|')"
v --json > templ.json
python3 - "$FULL" <<'PY' && ok "json: name in full and short_name" || notok "json: name and short_name" "see above"
import json, sys
d = json.load(open("templ.json"))
r = [x for x in d["regions"] if x["name"] == sys.argv[1]]
assert r and r[0]["short_name"] == "solver::Grid::exchange", r
PY
for cols in "" 70; do
    for long in "" --long-names; do
        COLUMNS=$cols v --hotspots --metric visits $long > hot.txt
        wide=$(awk -v w="${cols:-100}" 'length($0) > w' hot.txt | head -n 1)
        if [ -z "$wide" ] && grep -q 'MPI: main > .*MPI_Allreduce' hot.txt; then
            ok "hotspots ${long:-(short names)}: lines fit ${cols:-100} columns"
        else notok "hotspots ${long:-(short names)}: lines fit ${cols:-100} columns" "${wide:-no MPI_Allreduce finding}"; fi
    done
done
v --fold libs --metric visits --threshold 0 > fold.txt
if grep -qE '^ +[0-9]+ .*  +\[libc\.so\.6\] ' fold.txt && grep -qE '^ +[0-9]+ .*    +by_value( |$)' fold.txt &&
   ! grep -qE '  (qsort|msort)' fold.txt; then
    ok "fold libs: qsort's frames are one [libc.so.6] node above the comparator"
else notok "fold libs: qsort's frames" "$(sed -n '/call path/,$p' fold.txt | head -n 5 | tr '\n' '|')"; fi
finish
