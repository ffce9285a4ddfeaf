#!/bin/bash
# Functions measured exactly (issue 38.1): the flag the README names keeps
# C++ pointers to member functions working. exact/exact_pmf.cpp calls two
# non-virtual members through such pointers, 5 rounds on 2 ranks. Built with
# -fpatchable-function-entry=18,16 it prints what it prints without the
# flag, with and without a selection of the two members, each measured 5
# times a rank under the function that called through the pointers. Built
# with 7,5 it crashes with no tool (the hazard the check is there for), and
# hprof says so in one line when it runs the same build calling the members
# by name. On MPICH the program has no libstdc++ loaded (mpicxx links it
# only where it is used): the demangled names checked come from hprof.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_pmf
src=$here/exact/exact_pmf.cpp
build_or_fail "exact pmf: build without the flag" build_plain "$MPICXX" "$src" noflag -O2 || finish
build_or_fail "exact pmf: build with 18,16" build_shared "$MPICXX" "$src" aligned -O2 \
    -fpatchable-function-entry=18,16 || finish
build_or_fail "exact pmf: build with 7,5" build_shared "$MPICXX" "$src" odd -O2 \
    -fpatchable-function-entry=7,5 || finish

run_mpi truth 2 ./noflag
sorted() { sort "$1.out"; }
if [ -s truth.out ]; then
    run_mpi nosel 2 ./aligned
    check "exact pmf: 18,16 build, no selection: output as without the flag" \
        "rc, output: $(oneline nosel.out 200) $(oneline nosel.err 200)" eval '[ "$(sorted nosel)" = "$(sorted truth)" ]'
    if HPROFTEST_EXACT=Field::low,Field::high HPROF_SAMPLING_HZ=1000 \
        profile_run "exact pmf: 18,16 build, the members selected: run" sel sel.cubex sel.csv 2 ./aligned; then
        check "exact pmf: 18,16 build, the members selected: output as without the flag" \
            "$(oneline sel.out 200)" eval '[ "$(sorted sel)" = "$(sorted truth)" ]'
        for fn in low high; do
            n=$(grep -cE "^\"main;through_pointers\(.*\);Field::$fn\(int\)\",[01],0,visits,5,5$" sel.csv)
            check "exact pmf: Field::$fn measured 5 times a rank through the pointers" \
                "$n of 2 ranks; $(grep "Field::$fn" sel.csv | grep visits | head -2 | tr '\n' ' ')" test "$n" -eq 2
        done
        check "exact pmf: no line about odd entries for the 18,16 build" "$(grep -c 'odd addresses' sel.err) lines" \
            eval '! grep -q "odd addresses" sel.err'
    fi
else
    notok "exact pmf: the program without the flag runs" "$(oneline truth.err 300)"
fi

# The hazard itself: a 7,5 build calling through the pointers, no hprof at all.
LD_PRELOAD= run_mpi crash 2 ./odd; rc=$?
check "exact pmf: the 7,5 build crashes through the pointers with no tool (what the flag avoids)" \
    "mpirun exited $rc" test "$rc" -ne 0
if HPROFTEST_EXACT=Field::low,Field::high profile_run "exact pmf: 7,5 build by name: run" odd odd.cubex odd.csv \
    2 ./odd direct; then
    check "exact pmf: 7,5 build: one line says its odd C++ entries break pointers to members" \
        "$(grep '^hprof' odd.err | head -3 | tr '\n' ' ')" \
        test "$(grep -c '^hprof: odd: its C++ functions enter at odd addresses .*build with -fpatchable-function-entry=18,16$' odd.err)" -eq 1
    check "exact pmf: 7,5 build: still measured" "$(grep 'Field::low' odd.csv | grep visits | head -2 | tr '\n' ' ')" \
        test "$(grep -cE '^"main;by_name\(Field&, int\);Field::low\(int\)",[01],0,visits,5,5$' odd.csv)" -eq 2
fi
finish
