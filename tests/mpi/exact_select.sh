#!/bin/bash
# Functions measured exactly, chosen by HPROF_FILTER (a Score-P filter file)
# and HPROF_SELECT (the selection language, core/select/), on exact/exact_c.c
# built with -fpatchable-function-entry=18,16, 2 ranks: a CaPI-style file
# (EXCLUDE *, INCLUDE solve step) measures those two only; a scorep-score -g
# style file (EXCLUDE step leaf) measures every other function; a selection
# by source file (read from the program's DWARF) and name takes rec and deep;
# against the program's own counts (exact/check_exact.py: the others have no
# visits). A wrong HPROF_SELECT gets one line and measures nothing.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_select
build_or_fail "exact select: build" build_shared "$MPICC" "$here/exact/exact_c.c" exact_c -O2 \
    -fpatchable-function-entry=18,16 || finish

# only NAME... : the program's expectations with only these functions measured
only() {
    local r
    for r in 0 1; do
        awk -v keep=" $* " '$1 == "visits" && index(keep, " " $2 " ") == 0 { print "notvisits", $2, $3; next }
                            $1 == "visits" || $1 == "notvisits" { print; next }
                            index(keep, " " $2 " ") > 0 { print }' exact.expect.$r >only.expect.$r
    done
}
# case NAME LOG FUNCTION... (the environment set by the caller)
case_run() { local n=$1 log=$2; shift 2
    rm -f exact.expect.*
    profile_run "exact select, $n: run" "$log" "$log.cubex" "$log.csv" 2 ./exact_c || return
    "$TEST_VIEW" --json "$log.cubex" >"$log.json"
    only "$@"
    python3 "$here/exact/check_exact.py" "exact select, $n: $* measured, exactly, and nothing else" \
        "$log.csv" "$log.json" 2 only.expect || N_FAILED=$((N_FAILED + 1))
}

cat >capi.filter <<'F'
# what CaPI writes: measure only these
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE *
  INCLUDE solve
          step
SCOREP_REGION_NAMES_END
F
cat >score.filter <<'F'
# what scorep-score -g writes: measure all but the cheap ones
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE step leaf
SCOREP_REGION_NAMES_END
F
HPROF_FILTER=capi.filter case_run "a CaPI filter file" capi solve step
HPROF_FILTER=score.filter case_run "a scorep-score -g filter file" score solve rec jumper deep
HPROF_SELECT='file("/exact_c\.c$") & name("^(rec|deep)$")' case_run "HPROF_SELECT by file and name" byfile rec deep
HPROF_SELECT='nmae("x")' HPROF_SAMPLING_HZ=100 profile_run "exact select, a wrong HPROF_SELECT: run" bad bad.cubex bad.csv 2 \
    ./exact_c && check "exact select, a wrong HPROF_SELECT: one line, nothing measured" \
    "$(grep '^hprof' bad.err | head -3 | tr '\n' ' ')" \
    eval '[ "$(grep -c "^hprof: HPROF_SELECT: column 1: unknown selector .nmae." bad.err)" -eq 1 ] && ! grep -q ",exact_time," bad.csv'
finish
