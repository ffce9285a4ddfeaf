#!/bin/bash
# report/ links and works without the runtime (issue 28): a program that
# builds the runtime's snapshot by hand (tests/unit/report_alone: two
# threads, a few call paths, one event) is linked from core/, unwind/
# (modules, debug files, Python codes and lines), report/cube/writer and
# report/profile, and no file of lib/ or wrappers/; its one-rank profile
# (the fallback writer: no MPI) reads back in hprof-view with the values it
# was given. report/merge links with MPI but without lib/ either.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
CFLAGS_T="-I. -g -O1 -std=gnu11 -w"
LIBS="-liberty -lunwind -ldw -lelf -lz -lpthread -lm"   # -liberty: core/demangle.c
LOWER="core/*.c unwind/modules.c unwind/debug_files.c unwind/python/py_codes.c unwind/python/py_lines.c"
python3 tools/embed_text.py report/profile/remapping.spec "$W/remapping_spec.c" hprof_remapping_spec \
    report/profile/remapping_spec.h
# shellcheck disable=SC2086 # the globs are words
srcs=$(ls $LOWER report/cube/writer/*.c report/profile/*.c | tr '\n' ' ')
case " $srcs" in
*" lib/"* | *" wrappers/"*) notok "report alone: sources" "a runtime file among them: $srcs" ;;
esac
# shellcheck disable=SC2086
if cc $CFLAGS_T -o "$W/report_alone" tests/unit/report_alone/report_alone.c "$W/remapping_spec.c" $srcs $LIBS \
    >"$W/build.log" 2>&1; then
    ok "report alone: report/profile and report/cube/writer link without lib/ and wrappers/"
else
    notok "report alone: links without lib/ and wrappers/" "$(grep -m3 'undefined reference' "$W/build.log" | tr '\n' ' ' | cut -c1-400)"
    exit 0
fi
rm -f "$W"/alone*.cubex
path=$("$W/report_alone" "$W/alone.cubex" 2>"$W/run.err")
if [ "$path" = "$W/alone.rank0.cubex" ] && [ -s "$path" ]; then
    ok "report alone: the fallback writer wrote $(basename "$path") from a hand-made snapshot"
else
    notok "report alone: fallback profile" "'$path' $(head -c 300 "$W/run.err")"; exit 0
fi
[ -x "$VIEW" ] || { notok "report alone: read back" "$VIEW not built"; exit 0; }
"$VIEW" --csv "$path" >"$W/alone.csv" 2>"$W/view.err" || notok "report alone: hprof-view reads it" "$(head -c 300 "$W/view.err")"
want="main;solve;MPI_Allreduce,0,0,visits,7,7
main;solve;MPI_Allreduce,0,0,mpi_time,0.0070000000000000001,0.0070000000000000001
main;solve;MPI_Allreduce,0,0,PAPI_TOT_INS,70,70
main;solve,0,0,samples,3,3
main;solve,0,0,comp_time,0.030000000000000002,0.030000000000000002
main;MPI_Send,0,0,visits,2,2
main;MPI_Send,0,0,bytes_sent,64,64
worker;MPI_Recv,0,1,visits,4,4
worker;MPI_Recv,0,1,bytes_received,128,128
worker,0,1,PAPI_TOT_INS,5,5"
missing=$(grep -vxF -f "$W/alone.csv" <<<"$want" | tr '\n' ' ')
[ -z "$missing" ] && ok "report alone: two threads' call paths, visits, times, bytes and the event read back" \
    || notok "report alone: values read back" "missing: $missing"
names=$(tar xOf "$path" anchor.xml | grep -o -e 'worker thread' -e 'Master thread 0' -e 'hprof::partial' | sort -u | tr '\n' ',')
[ "$names" = "Master thread 0,hprof::partial,worker thread," ] && ok "report alone: thread names (given and made) and the partial mark" \
    || notok "report alone: thread names and partial mark" "found: $names"

# hprof-merge without MPI: three ranks' profiles with different events
# (rank 0 counts A, rank 1 B, rank 2 none): one file with every rank, the
# metrics' union in order (the fixed ones, then A, then B), 0 where a rank
# lacks one.
MERGE=$ROOT/build/tools/hprof-merge
if [ -x "$MERGE" ]; then
    rm -f "$W"/three*.cubex
    "$W/report_alone" "$W/three.cubex" 0 EV_A >/dev/null && "$W/report_alone" "$W/three.cubex" 1 EV_B >/dev/null &&
        "$W/report_alone" "$W/three.cubex" 2 - >/dev/null
    (cd "$W" && "$MERGE" three.rank2.cubex three.rank0.cubex three.rank1.cubex >merge.out 2>&1)
    "$VIEW" --csv "$W/three.cubex" >"$W/three.csv" 2>&1
    metrics=$(tar xOf "$W/three.cubex" anchor.xml | grep -o '<uniq_name>[^<]*' | sed 's/<uniq_name>//' | tail -n 3 | tr '\n' ' ')
    got=$(awk -F, '$1 == "main;solve" && ($4 == "EV_A" || $4 == "EV_B" || $4 == "samples") { print $2 ":" $4 "=" $5 }' \
          "$W/three.csv" | sort | tr '\n' ' ')
    want="0:EV_A=1000 0:samples=3 1:EV_B=1000 1:samples=3 2:samples=3 "
    if [ "$metrics" = "function_entries_seen EV_A EV_B " ] && [ "$got" = "$want" ]; then
        ok "report alone: hprof-merge: 3 ranks, the events' union in order, each rank's own values"
    else
        notok "report alone: hprof-merge of three ranks" "metrics ...$metrics; values $got; $(head -c 200 "$W/merge.out")"
    fi
else
    notok "report alone: hprof-merge" "$MERGE not built"
fi

# report/merge: MPI, but no lib/ (link only: every symbol defined)
if command -v mpicc.openmpi >/dev/null; then
    cat >"$W/merge_alone.c" <<'C'
#include "core/fn_table.h"
#include "report/merge/merge.h"
const hprof_fn_info hprof_fn_table[] = { { "MPI_Send", "p2p", 0 } };
const int hprof_fn_count = 1;
int main(int argc, char **argv)
{
    merge_info info = { MPI_COMM_WORLD };
    return argc > 5 ? hprof_merge_and_write(&info) : 0; /* linked, not run */
}
C
    # shellcheck disable=SC2086
    if mpicc.openmpi $CFLAGS_T -o "$W/merge_alone" "$W/merge_alone.c" "$W/remapping_spec.c" $srcs report/merge/*.c \
        $LIBS >"$W/merge.log" 2>&1; then
        ok "report alone: report/merge links with MPI and without lib/"
    else
        notok "report alone: report/merge links without lib/" "$(grep -m3 'undefined reference\|error' "$W/merge.log" | tr '\n' ' ' | cut -c1-400)"
    fi
else
    echo "ok - report alone: report/merge without lib/ # skip: no mpicc.openmpi"
fi
