#!/bin/bash
# merge_offline_many: hprof-merge joins many partial profiles, read one at a
# time. One rank of merge_offline/killed.c gets SIGTERM and leaves its
# partial profile; clone_ranks.py copies it as ranks 0..N-1 of an N-rank job
# (the files a killed job of N ranks leaves). hprof-merge takes them as a
# folder, as a list file on standard input and as paths, in 64 MB of
# address space: every input mapped at once would not fit (N x 68 KB), as
# 100k inputs did not fit vm.max_map_count. Each rank of the merged profile
# has the seed's visits of MPI_Pack, the program's own count up to the
# signal, also with --locations reduced. A folder without partial profiles
# gets one line and no output.
set -u
. "$(dirname "$0")/progs/lib.sh"
require_built "merge many"
MERGE=$ROOT/build/tools/hprof-merge
[ -x "$MERGE" ] || { notok "merge many" "not built: $MERGE"; exit 0; }
N=1200
CAP_KB=65536
$MPICC -g -O1 "$ROOT/tests/mpi/merge_offline/killed.c" -o killed "${HPROF_SHARED[@]}" >build.log 2>&1 \
    || { notok "merge many: build killed.c" "$(oneline build.log)"; exit 0; }

# The seed: rank 0 of a 1-rank job, SIGTERM once it is well into its loop;
# its launcher stopped meanwhile, so that the rank handles its own signal.
mkdir -p seed && cd seed || exit 1
HPROF_OUTPUT=$PWD/run.cubex timeout 120 $MPIRUN -np 1 ../killed >out 2>err &
launcher=$!
wait_counts 1 200 || { notok "merge many: seed" "the rank did not get going: $(oneline err)"; kill -TERM $launcher; exit 0; }
pid=$(awk '{ print $1 }' count.0)
parents=$(for p in $(pgrep -P $launcher) $(ps -o ppid= -p "$pid"); do echo $p; done | sort -u | tr '\n' ' ')
# shellcheck disable=SC2086 # one pid a word
kill -STOP $parents
kill -TERM "$pid"
for _ in $(seq 600); do [ -s run.rank0.cubex ] && break; sleep 0.1; done
# shellcheck disable=SC2086
kill -CONT $parents
wait $launcher
own=$(awk '{ print $2 }' count.0)
cd .. || exit 1
[ -s seed/run.rank0.cubex ] || { notok "merge many: seed" "no seed/run.rank0.cubex: $(oneline seed/err)"; exit 0; }
python3 "$ROOT/tests/mpi/merge_offline/clone_ranks.py" seed/run.rank0.cubex job $N run 2>clone.err \
    || { notok "merge many: clone" "$(oneline clone.err)"; exit 0; }

# merged NAME ARGS...: hprof-merge -o NAME.cubex ARGS in CAP_KB of address
# space (standard input: STDIN_LIST), then NAME.csv; prints 'not ok' and
# returns 1 on failure
merged() { local name=$1 rc; shift
    (ulimit -v $CAP_KB; exec "$MERGE" -o "$name.cubex" "$@") <"${STDIN_LIST:-/dev/null}" >"$name.out" 2>"$name.err"
    rc=$?
    if [ $rc != 0 ] || ! grep -q "wrote $name.cubex ($N ranks from $N profiles" "$name.out"; then
        notok "merge many: $name" "exit $rc: $(oneline "$name.err") $(oneline "$name.out")"; return 1
    fi
    to_csv "$name.cubex" "$name.csv" || { notok "merge many: $name: csv" "$(oneline "$name.csv.err")"; return 1; }
}
if merged folder job; then
    bad=$(awk -F, -v n=$N -v own="$own" '$1 == "main;pack_once;MPI_Pack" && $4 == "visits" {
              seen[$2] = 1; if ($5 != own) { print "rank " $2 ": " $5; exit } }
          END { for (r = 0; r < n; r++) if (!(r in seen)) { print "rank " r " absent"; exit } }' folder.csv)
    [ -z "$bad" ] && ok "merge many: a folder of $N partial profiles in $((CAP_KB / 1024)) MB, every rank with $own MPI_Pack" \
        || notok "merge many: a folder of $N partial profiles" "want $own visits on every rank: $bad"
    ls -d job/* >list.txt
    STDIN_LIST=list.txt merged listed -l - && cmp -s folder.csv listed.csv \
        && ok "merge many: a list file on standard input: the same profile" \
        || notok "merge many: a list file" "$(diff folder.csv listed.csv 2>&1 | head -n 3 | tr '\n' ' ')"
    # shellcheck disable=SC2046 # one path a word
    merged paths $(cat list.txt) && cmp -s folder.csv paths.csv \
        && ok "merge many: the same $N paths as arguments: the same profile" \
        || notok "merge many: paths as arguments" "$(diff folder.csv paths.csv 2>&1 | head -n 3 | tr '\n' ' ')"
    # --locations reduced (issue 41), in the same address space: MPI_Pack's
    # visits of the six locations (sum, min, max, rank 0, least and most
    # time) are N x the seed's, then the seed's five times
    if merged reduced --locations reduced job; then
        got=$(awk -F, '$1 == "main;pack_once;MPI_Pack" && $4 == "visits" { print $5 }' reduced.csv | tr '\n' ' ')
        want="$((N * own)) $own $own $own $own $own "
        [ "$got" = "$want" ] && ok "merge many: --locations reduced: $N partial profiles in $((CAP_KB / 1024)) MB, MPI_Pack's visits $got" \
            || notok "merge many: --locations reduced" "MPI_Pack's visits '$got', want '$want'"
    fi
fi
mkdir -p empty
"$MERGE" -o none.cubex empty >none.out 2>none.err; rc=$?
[ $rc != 0 ] && [ ! -e none.cubex ] && [ "$(wc -l <none.err)" = 1 ] && [ ! -s none.out ] \
    && ok "merge many: a folder without partial profiles: exit $rc, $(oneline none.err)" \
    || notok "merge many: a folder without partial profiles" "exit $rc: $(oneline none.err) $(oneline none.out)"
finish
