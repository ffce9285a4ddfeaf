#!/bin/bash
# HPROF_SELECT=auto never takes a function that is on a thread's stack
# since before it could be patched (issue 38.5): its one visit would not
# count, only calls after the patch, a wasted slot. exact/exact_pinned.c,
# 2 ranks, HPROF_AUTO_WARMUP=0.5, HPROF_VERBOSE=1: main (on the stack at
# MPI_Init, on a call path to MPI, much of the samples its own) and spin
# (a thread's start routine, its samples its own) are left out, each with
# a verbose line, and neither has an hprof::exact attribute; work (called
# from main, sampled) is taken, so auto did choose.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_pinned
build_or_fail "exact pinned: build" build_shared "$MPICC" "$here/exact/exact_pinned.c" exact_pinned -O2 \
    -fpatchable-function-entry=18,16 -pthread || finish
HPROF_SELECT=auto HPROF_AUTO_WARMUP=0.5 HPROF_VERBOSE=1 \
    profile_run "exact pinned: run" pinned pinned.cubex pinned.csv 2 ./exact_pinned || finish
"$TEST_VIEW" --json pinned.cubex >pinned.json
# taken: the names hprof::exact::N attributes name
taken=$(python3 -c 'import json, re, sys
a = json.load(open(sys.argv[1])).get("attributes", {})
print(" ".join(sorted(v.split(" ", 5)[5] for k, v in a.items() if re.match(r"hprof::exact::\d+$", k))))' pinned.json)
check "exact pinned: main is left out, and a line says why" "taken: '$taken'; $(grep 'auto: main' pinned.err)" \
    eval '! [[ " $taken " == *" main "* ]] &&
          grep -qx "hprof: HPROF_SELECT=auto: main left out: on the stack since before MPI_Init, its visits would count only from its patch" pinned.err'
check "exact pinned: a thread's start routine is left out, and a line says why" "taken: '$taken'; $(grep 'auto: spin' pinned.err)" \
    eval '! [[ " $taken " == *" spin "* ]] &&
          grep -qx "hprof: HPROF_SELECT=auto: spin left out: a thread'"'"'s start routine, its visits would count only from its patch" pinned.err'
check "exact pinned: work is taken (auto chose)" "taken: '$taken'" eval '[[ " $taken " == *" work "* ]]'
finish
