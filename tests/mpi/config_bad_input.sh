#!/bin/bash
# config_bad_input: an unusable HPROF_OUTPUT gives one clear 'hprof:' line
# (rank 0 only) and leaves the exit status alone; a bad value of each HPROF_
# variable gives exactly one 'hprof:' line naming it and the profile is still
# written; good values give none; MPI_Abort from one rank does not hang.
. "$(dirname "$0")/progs/lib.sh"
require_built "badinput build"
export HPROF_SAMPLING_HZ=0
build_or_fail "badinput build" build_shared "$MPICC" "$PROGS/app.c" app || finish
NP=2 STATUS=3

# hprof lines other than the finalize line
other_lines() { grep 'hprof:' "$1" | grep -v '^hprof: wrote ' ; }

# ---- unusable HPROF_OUTPUT
: > afile
bad_output() { # LABEL PATH
    local label=$1 path=$2 rc n nall
    HPROF_OUTPUT=$path run_mpi "$label" "$NP" ./app 3 "$STATUS"; rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        notok "badinput $label: no hang" "timed out after ${MPI_TIMEOUT}s"; return
    fi
    if [ "$rc" -eq "$STATUS" ]; then
        ok "badinput $label: exit status unchanged"
    else
        notok "badinput $label: exit status unchanged" "status $rc, want $STATUS (the program's own); stderr: $(tail -n 4 "$label.err" | tr '\n' ' ' | cut -c1-300)"
    fi
    n=$(grep -cF -- "$path" "$label.err")
    nall=$(grep -c 'hprof:' "$label.err")
    if [ "$n" -eq 1 ] && [ "$nall" -eq 1 ] && grep -F -- "$path" "$label.err" | grep -q '^hprof:' \
       && ! grep -q '^hprof: wrote ' "$label.err"; then
        ok "badinput $label: one hprof line naming the path"
    else
        notok "badinput $label: one hprof line naming the path" "$n lines name the path, $nall hprof lines: $(grep -e 'hprof:' -e "$path" "$label.err" | head -n 4 | tr '\n' '|')"
    fi
    grep -q "app: done 3 iterations" "$label.out" || notok "badinput $label: program output" "no 'app: done' on stdout"
}
bad_output "output in a missing folder" "$PWD/no/such/dir/p.cubex"
bad_output "output under a regular file" "$PWD/afile/p.cubex"
[ ! -e no ] && [ -f afile ] && [ ! -s afile ] || notok "badinput output: nothing created" "$(ls -la | head -n 10 | tr '\n' '|')"

# ---- bad values
i=0
bad_value() { # VAR VALUE
    local var=$1 val=$2 log prof rc n nall
    i=$((i + 1)); log=bad$i; prof=$PWD/bad$i.cubex
    ( export "$var=$val"; HPROF_OUTPUT=$prof run_mpi "$log" "$NP" ./app 3 ); rc=$?
    n=$(other_lines "$log.err" | grep -c "$var")
    nall=$(other_lines "$log.err" | wc -l)
    if [ "$n" -eq 1 ] && [ "$nall" -eq 1 ] && other_lines "$log.err" | grep -q "^hprof:.*$var"; then
        ok "badinput $var=$val: one hprof line naming $var"
    else
        notok "badinput $var=$val: one hprof line naming $var" "$n lines name $var, $nall hprof lines in all: $(other_lines "$log.err" | head -n 4 | tr '\n' '|')"
    fi
    if [ "$rc" -eq 0 ] && [ -s "$prof" ] && grep -q '^hprof: wrote ' "$log.err"; then
        ok "badinput $var=$val: profile still written"
    else
        notok "badinput $var=$val: profile still written" "status $rc, file $( [ -s "$prof" ] && echo present || echo missing); stderr: $(tail -n 4 "$log.err" | tr '\n' ' ' | cut -c1-300)"
    fi
}
bad_value HPROF_SAMPLING_HZ abc
bad_value HPROF_SAMPLING_HZ -5
bad_value HPROF_SAMPLING_CLOCK foo
bad_value HPROF_THUNKS 2
bad_value HPROF_VERBOSE 9
bad_value HPROF_NOUNWIND MPI_Nonsense
# the default not-unwound set is used instead of the bad list
if [ -s "$PWD/bad$i.cubex" ] && to_csv "$PWD/bad$i.cubex" bad$i.csv; then
    printf 'default used\t(not unwound);MPI_Comm_rank\t*\tvisits\t==\t1\n' > bad$i.expect
    csv_check "badinput HPROF_NOUNWIND=MPI_Nonsense:" bad$i.csv bad$i.expect "$NP"
fi

# ---- good values: no hprof line but the finalize line, and they take effect
prof=$PWD/good.cubex
HPROF_OUTPUT=$prof HPROF_SAMPLING_HZ=50 HPROF_SAMPLING_CLOCK=cpu HPROF_THUNKS=0 HPROF_VERBOSE=0 \
    HPROF_NOUNWIND=MPI_Allreduce run_mpi good "$NP" ./app 3; rc=$?
if [ "$rc" -eq 0 ] && [ -z "$(other_lines good.err)" ] && [ "$(grep -c '^hprof: wrote ' good.err)" -eq 1 ]; then
    ok "badinput good values: no extra hprof lines"
else
    notok "badinput good values: no extra hprof lines" "status $rc; $(grep 'hprof:' good.err | head -n 4 | tr '\n' '|')"
fi
if [ -s "$prof" ] && to_csv "$prof" good.csv; then
    printf 'HPROF_NOUNWIND takes effect\t(not unwound);MPI_Allreduce\t*\tvisits\t==\t3\n' > good.expect
    printf 'HPROF_NOUNWIND takes effect\tmain;work;MPI_Allreduce\t*\tvisits\tabsent\n' >> good.expect
    printf 'HPROF_NOUNWIND takes effect\tmain;work;exchange;MPI_Sendrecv\t*\tvisits\t==\t3\n' >> good.expect
    csv_check "badinput good values:" good.csv good.expect "$NP"
fi

# ---- MPI_Abort from the last rank while rank 0 waits in MPI_Barrier
HPROF_OUTPUT=$PWD/abort.cubex run_mpi abort "$NP" ./app 2 0 abort; rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "badinput MPI_Abort: no hang" "mpirun still running after ${MPI_TIMEOUT}s; stderr: $(tail -n 4 abort.err | tr '\n' ' ' | cut -c1-300)"
else
    ok "badinput MPI_Abort: no hang"
    if [ "$rc" -ne 0 ]; then
        ok "badinput MPI_Abort: non-zero exit status"
    else
        notok "badinput MPI_Abort: non-zero exit status" "status 0"
    fi
fi
grep -q 'calls MPI_Abort' abort.err || notok "badinput MPI_Abort: program ran" "no 'calls MPI_Abort' on stderr: $(tail -n 4 abort.err | tr '\n' ' ' | cut -c1-300)"
finish
