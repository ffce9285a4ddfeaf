#!/bin/bash
# lang_cxx_names: C++ call paths (namespace, member function, class template
# member, function template) show demangled names, exactly as c++filt prints
# the mangled symbols, with exact visits and bytes; C++ exceptions thrown
# through frames hprof has unwound still reach their handler.
. "$(dirname "$0")/progs/lib.sh"
require_built "cxx build"
export HPROF_SAMPLING_HZ=0
NP=2 STEPS=6 HALO_N=128 THROWS=3

build_or_fail "cxx build" build_shared "$MPICXX" "$PROGS/cxx.cpp" cxx || finish
# demangled names of the program's own symbols, from c++filt
dm() { # ERE on the mangled name -> c++filt output
    local m; m=$(nm cxx | awk '{print $NF}' | grep -E "^$1\$" | head -n 1)
    [ -n "$m" ] && c++filt "$m"
}
STEP=$(dm '_ZN2ns6Solver4stepEi')
HD=$(dm '_ZN4haloIdE8exchangeEv')
HI=$(dm '_ZN4haloIiE8exchangeEv')
RED=$(dm '_ZN2ns6detail6reduceIdEET_S2_')
FIN=$(dm '_ZN2ns6Solver6finishEi')
RISKY=$(dm '_ZN2ns6Solver5riskyEi')
note "names: $STEP | $HD | $HI | $RED | $FIN | $RISKY"
if [ -z "$STEP" ] || [ -z "$HD" ] || [ -z "$HI" ] || [ -z "$RED" ] || [ -z "$FIN" ] || [ -z "$RISKY" ]; then
    notok "cxx symbols" "could not find the mangled symbols with nm"; finish
fi

prof=$PWD/cxx.cubex
HPROF_OUTPUT=$prof run_mpi cxx "$NP" ./cxx; rc=$?
profile_run_check "cxx run" cxx "$prof" cxx.csv "$rc" || { show cxx.err; finish; }
ok "cxx run"
if grep -q "cxx: done 30, caught $THROWS" cxx.out; then
    ok "cxx exceptions caught through unwound frames"
else
    notok "cxx exceptions caught through unwound frames" "stdout: $(oneline cxx.out 200) stderr: $(tail -n 3 cxx.err | tr '\n' ' ')"
fi

E=cxx.expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
t "demangled paths" "main;$STEP;$HD;MPI_Sendrecv" '*' visits == "$STEPS"
t "demangled paths" "main;$STEP;$HI;MPI_Sendrecv" '*' visits == $((STEPS / 2))
t "demangled paths" "main;$STEP;$RED;MPI_Allreduce" '*' visits == "$STEPS"
t "demangled paths" "main;$FIN;MPI_Barrier" '*' visits == 1
t "demangled paths" "main;$RISKY;MPI_Barrier" '*' visits == "$THROWS"
t "template bytes" "main;$STEP;$HD;MPI_Sendrecv" '*' bytes_sent == $((STEPS * HALO_N * 8))
t "template bytes" "main;$STEP;$HD;MPI_Sendrecv" '*' bytes_received == $((STEPS * HALO_N * 8))
t "template bytes" "main;$STEP;$HI;MPI_Sendrecv" '*' bytes_sent == $((STEPS / 2 * HALO_N * 4))
t "template bytes" "main;$STEP;$HI;MPI_Sendrecv" '*' bytes_received == $((STEPS / 2 * HALO_N * 4))
t "allowed" "main;MPI_Init" '*' visits allow
t "allowed" "main;MPI_Finalize" '*' visits allow
t "allowed" "glob:(not unwound);*" '*' visits allow
csv_check "cxx" cxx.csv $E "$NP" --strict-paths --no-failed --roots "main,(not unwound)"

# no mangled names anywhere in the paths
if grep -E '(^|;)_Z[A-Za-z0-9_]+' cxx.csv >/dev/null; then
    notok "cxx no mangled names" "$(grep -oE '(^|;)_Z[A-Za-z0-9_]+' cxx.csv | sort -u | head -n 3 | tr '\n' ' ')"
else
    ok "cxx no mangled names"
fi
# the text view (by visits: the default view hides nodes under 0.5% of the
# time) shows the demangled template name too (in full with --long-names)
if timeout 60 "$TEST_VIEW" --long-names --metric visits "$prof" > cxx.view 2>&1 && grep -qF "$HD" cxx.view; then
    ok "cxx text view shows $HD"
else
    notok "cxx text view shows $HD" "$(head -c 300 cxx.view)"
fi
finish
