#!/bin/bash
# Nothing silent (issue 38.3): each name selected that measures nothing
# gets one line saying why, and hprof-view's header names them all.
# exact/exact_silence.c, 2 ranks, HPROFTEST_EXACT=used,sq,nosuch_fn,bare_add,never,main:
# sq (static inline, -O2) is inlined everywhere, nosuch_fn is not in the
# program, bare_add lives in libexact_bare.so built without
# -fpatchable-function-entry, never is measured and never called; used is
# measured (its calls, 1000 a rank) and gets no line, nor does main (its
# one call began before its patch: 0 visits, not "never called"). The same program
# built with -fpatchable-function-entry=3,1 gets the N,M hprof cannot use
# named; an HPROF_SELECT that selects nothing gets its line too. In C++
# (exact/exact_silence_cxx.cpp) an inline member and a static inline
# function of a namespace, by their qualified names, are inlined everywhere.
# The names HPROF_SELECT and HPROF_FILTER ask for literally (name("^sq$"),
# INCLUDE sq) get the same lines, with their variable.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_silence
build_or_fail "exact silence: build libexact_bare.so (no flag)" build_plain "$MPICC" "$here/exact/exact_bare.c" \
    libexact_bare.so -O2 -shared -fPIC || finish
# build_bare CC SRC OUT [flags...]: as build_shared, linked with libexact_bare.so (after the source)
build_bare() { local cc=$1 src=$2 out=$3; shift 3
    $cc $CFLAGS_TEST "$@" "$src" -o "$out" "$PWD/libexact_bare.so" -Wl,-rpath,"$PWD" "${HPROF_SHARED[@]}" \
        >"$out.build.log" 2>&1; }
build_or_fail "exact silence: build" build_bare "$MPICC" "$here/exact/exact_silence.c" exact_silence -O2 \
    -fpatchable-function-entry=18,16 || finish
build_or_fail "exact silence: build C++" build_shared "$MPICXX" "$here/exact/exact_silence_cxx.cpp" exact_silence_cxx \
    -O2 -fpatchable-function-entry=18,16 || finish
build_or_fail "exact silence: build with 3,1" build_bare "$MPICC" "$here/exact/exact_silence.c" exact_silence31 \
    -O2 -fpatchable-function-entry=3,1 || finish

# run NAME LOG PROG [VAR=VALUE]: 2 ranks; the profile in LOG.cubex, LOG.csv, its header in LOG.view
run() { local n=$1 log=$2 prog=$3; shift 3
    (for kv in "$@"; do export "${kv?}"; done
     HPROF_SAMPLING_HZ=100 profile_run "$n" "$log" "$log.cubex" "$log.csv" 2 "./$prog") &&
        "$TEST_VIEW" "$log.cubex" >"$log.view" 2>&1; }
# lines LOG TEXT: how many of hprof's lines have TEXT (fixed) after "hprof: "
lines() { grep -c -F "hprof: $2" "$1.err"; }
# one NAME LOG TEXT WHO [VAR]: exactly one line of hprof's has TEXT, and it is the only one naming WHO (4th arg)
one() { local n=$1 log=$2 text=$3 who=$4 var=${5:-HPROFTEST_EXACT}
    check "$n" "$(lines "$log" "$text") such lines; hprof's: $(grep '^hprof' "$log.err" | head -6 | tr '\n' ' ' | cut -c1-700)" \
        eval '[ "$(lines "$log" "$text")" -eq 1 ] && [ "$(grep -c "^hprof: $var: $who " "$log.err")" -eq 1 ]'
}

if run "exact silence: run" names exact_silence HPROFTEST_EXACT=used,sq,nosuch_fn,bare_add,never,main; then
    one "exact silence: a static inline function gets one line: inlined everywhere" names \
        "HPROFTEST_EXACT: sq is inlined everywhere: no out-of-line copy to measure (exact_silence's debug information names it inlined)" sq
    one "exact silence: a name not in the program gets one line saying so" names \
        "HPROFTEST_EXACT: nosuch_fn is not in the program: no module loaded has a function symbol of that name, nor debug information that names it inlined" nosuch_fn
    one "exact silence: a function of a library built without the flag gets one line: no NOP area" names \
        "HPROFTEST_EXACT: bare_add has no NOP area: libexact_bare.so was built without -fpatchable-function-entry (build it with -fpatchable-function-entry=18,16)" bare_add
    one "exact silence: a function measured and never called gets one line at the end" names \
        "HPROFTEST_EXACT: never was measured but never called: 0 visits on every rank (calls the compiler inlined are not seen)" never
    check "exact silence: used is measured (1000 visits a rank) and gets no line" \
        "$(grep -E '^main;used,.,0,visits' names.csv | tr '\n' ' '); $(grep -c 'HPROFTEST_EXACT: used' names.err) lines" \
        eval '[ "$(grep -cE "^main;used,[01],0,visits,1000,1000$" names.csv)" -eq 2 ] && ! grep -q "HPROFTEST_EXACT: used" names.err'
    check "exact silence: main (called before its patch at MPI_Init) is not said to be never called" \
        "$(grep 'main' names.err | head -2 | tr '\n' ' ')" eval '! grep -q "HPROFTEST_EXACT: main" names.err'
    check "exact silence: hprof-view's header names them, each with its reason" \
        "$(grep -i 'not measured' names.view | head -2 | tr '\n' ' ')" \
        grep -qxF "           selected but not measured: sq (inlined everywhere), nosuch_fn (not in the program), bare_add (no NOP area: built without -fpatchable-function-entry), never (never called)" names.view
fi
if run "exact silence, built with 3,1: run" unfit exact_silence31 HPROFTEST_EXACT=used; then
    one "exact silence, built with 3,1: one line names the N,M hprof cannot use" unfit \
        "HPROFTEST_EXACT: used has a NOP area hprof cannot use: exact_silence31 was built with -fpatchable-function-entry=3,1 (hprof needs N,M with M >= 5 and N - M >= 2: build it with -fpatchable-function-entry=18,16)" used
    check "exact silence, built with 3,1: hprof-view's header says so" "$(grep -i 'not measured' unfit.view)" \
        grep -qF "selected but not measured: used (NOP area unusable: -fpatchable-function-entry=3,1)" unfit.view
fi
# a regex that names no function literally: the expression's line alone
if run "exact silence, an HPROF_SELECT that selects nothing: run" empty exact_silence 'HPROF_SELECT=name("^nosuch_")'; then
    check "exact silence, an HPROF_SELECT that selects nothing: one line, and the header" \
        "$(grep '^hprof' empty.err | head -3 | tr '\n' ' '); $(grep -i 'not measured' empty.view)" \
        eval '[ "$(grep -cE "^hprof: HPROF_SELECT=.name\(\"\^nosuch_\"\). selects none of the [0-9]+ functions with a patchable entry$" empty.err)" -eq 1 ] &&
              [ "$(grep -c "^hprof: " empty.err)" -eq 2 ] &&
              grep -qxF "exact      selected but not measured: HPROF_SELECT='"'"'name(\"^nosuch_\")'"'"' (selects nothing)" empty.view'
fi
if run "exact silence, HPROF_SELECT by names: run" sel exact_silence \
    'HPROF_SELECT=name("^used$") | name("^sq$") | name("^nosuch_fn$") | name("^bare_add$") | name("^never$")'; then
    one "exact silence, HPROF_SELECT by names: sq is inlined everywhere" sel \
        "HPROF_SELECT: sq is inlined everywhere: no out-of-line copy to measure (exact_silence's debug information names it inlined)" sq HPROF_SELECT
    one "exact silence, HPROF_SELECT by names: nosuch_fn is not in the program" sel \
        "HPROF_SELECT: nosuch_fn is not in the program" nosuch_fn HPROF_SELECT
    one "exact silence, HPROF_SELECT by names: bare_add has no NOP area" sel \
        "HPROF_SELECT: bare_add has no NOP area: libexact_bare.so was built without" bare_add HPROF_SELECT
    one "exact silence, HPROF_SELECT by names: never was never called" sel \
        "HPROF_SELECT: never was measured but never called" never HPROF_SELECT
    check "exact silence, HPROF_SELECT by names: hprof-view's header names them" "$(grep -i 'not measured' sel.view)" \
        grep -qF "selected but not measured: sq (inlined everywhere), nosuch_fn (not in the program), bare_add (no NOP area: built without -fpatchable-function-entry), never (never called)" sel.view
fi
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE used sq\nSCOREP_REGION_NAMES_END\n' >only.filter
if run "exact silence, HPROF_FILTER's INCLUDE: run" filt exact_silence HPROF_FILTER=only.filter; then
    one "exact silence, HPROF_FILTER's INCLUDE: sq is inlined everywhere" filt \
        "HPROF_FILTER: sq is inlined everywhere" sq HPROF_FILTER
fi
if run "exact silence, C++: run" cxx exact_silence_cxx 'HPROFTEST_EXACT=ns::run,ns::Grid::at,ns::twice,ns::nosuch'; then
    one "exact silence, C++: an inline member is inlined everywhere" cxx \
        "HPROFTEST_EXACT: ns::Grid::at is inlined everywhere: no out-of-line copy to measure (exact_silence_cxx's debug information names it inlined)" ns::Grid::at
    one "exact silence, C++: a static inline function of a namespace is inlined everywhere" cxx \
        "HPROFTEST_EXACT: ns::twice is inlined everywhere: no out-of-line copy to measure (exact_silence_cxx's debug information names it inlined)" ns::twice
    one "exact silence, C++: a name of a namespace not in the program" cxx \
        "HPROFTEST_EXACT: ns::nosuch is not in the program" ns::nosuch
    check "exact silence, C++: ns::run measured, no line" "$(grep -c 'ns::run' cxx.err) lines" \
        eval '! grep -q "ns::run" cxx.err && grep -qF "\"main;ns::run(ns::Grid const&, int)\",0,0,visits,100,100" cxx.csv'
fi
finish
