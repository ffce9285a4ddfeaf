#!/bin/bash
# A signal handler measured exactly (issue 39.2): its first entry on a
# thread that started before MPI_Init and never called MPI registered that
# thread from the handler, allocating while the interrupted thread held
# the allocator's lock: the program hung. exact/exact_handler.c signals
# such a thread 200 times while it allocates, then calls the handler from
# main; once more with the handler installed with SA_NODEFER (no signal
# blocked while it runs: its return address tells). On 2 ranks: the
# program ends, every signal was handled, main's calls are the handler's
# visits under main, the handler's visits on the thread hprof had not met
# are counted as not measured (hprof::exact_visits_unmet) and said in one
# line. Mode main: the churn on main, a thread hprof knows, signalled by
# another: an entry's walk from the handler learned recipes (libdw,
# malloc) while the interrupted churn held the allocator's lock, and the
# program hung (3 runs in 3 of a 2000-signal version); now it learns
# nothing there. The program ends, every signal handled, each a visit of
# the handler (one landing while hprof's own code runs on the thread is
# not measured, by design: at most 1%).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_handler
build_or_fail "exact handler: build" build_shared "$MPICC" "$here/exact/exact_handler.c" handler -O2 \
    -fpatchable-function-entry=18,16 -lpthread || finish
np=2
for mode in blocked nodefer; do
    rm -f exact.expect.*
    HPROFTEST_EXACT=on_usr1 HPROF_SAMPLING_HZ=1000 profile_run "exact handler ($mode): the program ends with hprof" \
        $mode $mode.cubex $mode.csv $np ./handler $mode || continue
    bad=""
    unmet=0
    for r in $(seq 0 $((np - 1))); do
        [ -s exact.expect.$r ] || { bad="$bad rank $r wrote no counts;"; continue; }
        while read -r what path n; do
            if [ "$what" = handled ]; then
                [ "$n" = 200 ] || bad="$bad rank $r: $n of 200 signals handled;"
                unmet=$((unmet + n))
                continue
            fi
            got=$(awk -F, -v p="$path" -v r="$r" '$1 == p && $2 == r && $4 == "visits" { n += $6 } END { print n + 0 }' \
                $mode.csv)
            [ "$got" = "$n" ] || bad="$bad rank $r: $path $got of $n;"
        done <exact.expect.$r
    done
    check "exact handler ($mode): every signal handled, main's calls measured" "$bad" test -z "$bad"
    others=$(awk -F, '$4 == "visits" && $1 ~ /(^|;)on_usr1$/ && $1 != "main;on_usr1"' $mode.csv | head -4 | tr '\n' ' ')
    check "exact handler ($mode): no visit of the handler on the thread hprof had not met" "$others" test -z "$others"
    "$TEST_VIEW" --json $mode.cubex >$mode.json
    got=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1])).get("attributes", {})
print(a.get("hprof::exact_visits_unmet", "none"))' $mode.json 2>&1)
    check "exact handler ($mode): the profile counts the $unmet visits on that thread as not measured" "got $got" \
        test "$got" = "$unmet"
    line=$(grep -c '^hprof: .*visits .* not measured' $mode.err)
    check "exact handler ($mode): one line says so" "$line lines; $(oneline $mode.err 300)" test "$line" = 1
done
rm -f exact.expect.*
if HPROFTEST_EXACT=on_usr1 HPROF_SAMPLING_HZ=1000 profile_run "exact handler (main): the program ends with hprof" \
    main main.cubex main.csv $np ./handler main; then
    for r in $(seq 0 $((np - 1))); do
        handled=$(awk '$1 == "handled" && $2 == "main" { print $3 }' exact.expect.$r 2>/dev/null)
        visits=$(awk -F, -v r="$r" '$2 == r && $4 == "visits" && $1 ~ /(^|;)on_usr1$/ { n += $5 } END { print n + 0 }' \
            main.csv)
        check "exact handler (main): rank $r handled every signal, each a visit" \
            "handled ${handled:-none} of 200, visits $visits" \
            test "${handled:-0}" = 200 -a "$visits" -le 200 -a "$visits" -ge 198
    done
fi
finish
