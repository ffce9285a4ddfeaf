#!/bin/bash
# hprof-merge: a job whose ranks get SIGTERM mid-run (as a scheduler sends
# before SIGKILL) leaves one fallback profile per rank; hprof-merge makes
# one profile of them with every rank, and each rank's visits of MPI_Pack
# equal the program's own count up to the signal (merge_offline/killed.c).
# pyCubexR and cubelib's cube_dump read the merged profile value for value
# as hprof-view does (one skip line each where the client is absent). Bad
# input (no file, a truncated file, a file that is no profile, one rank
# twice) gets one line, a nonzero exit and no output file.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, ok/notok
require_built "merge_offline"
MERGE=$ROOT/build/tools/hprof-merge
[ -x "$MERGE" ] || { notok "merge_offline" "not built: $MERGE"; exit 0; }
NP=3
W=$PWD
$MPICC -g -O1 "$ROOT/tests/mpi/merge_offline/killed.c" -o killed "${HPROF_SHARED[@]}" >build.log 2>&1 \
    || { notok "merge_offline: build killed.c" "$(oneline build.log)"; exit 0; }

mkdir -p job && cd job || exit 1
HPROF_OUTPUT=$PWD/run.cubex timeout 120 $MPIRUN -np $NP ../killed >out 2>err &
launcher=$!
# Until every rank is well into its loop (its own count, not a duration).
wait_counts $NP 200; going=$?
pids=$(cat count.* 2>/dev/null | awk '{ print $1 }' | tr '\n' ' ')
if [ $going != 0 ]; then
    notok "merge_offline: job" "the ranks did not get going: $(oneline err)"
    kill -TERM $launcher 2>/dev/null
    exit 0
fi
# Every rank gets SIGTERM. The launcher, seeing the first rank die, kills
# the others (MPICH's with SIGKILL), which on a loaded machine can come
# before a rank that got SIGTERM too was scheduled to handle it: the
# launcher and the ranks' parents are stopped meanwhile, so that each rank
# handles its own SIGTERM, as it does when a scheduler gives the job time
# between SIGTERM and SIGKILL.
launchers=$(for p in $(pgrep -P $launcher) $(for q in $pids; do ps -o ppid= -p $q; done); do echo $p; done | sort -u | tr '\n' ' ')
# shellcheck disable=SC2086 # one pid a word
kill -STOP $launchers
# shellcheck disable=SC2086
kill -TERM $pids
# The fallback profiles are written by detached processes after the ranks
# died; each appears complete under its name (renamed into place).
for _ in $(seq 600); do
    [ "$(ls run.rank*.cubex 2>/dev/null | wc -l)" = $NP ] && break
    sleep 0.1
done
# shellcheck disable=SC2086
kill -CONT $launchers
wait $launcher
files=$(ls run.rank*.cubex 2>/dev/null | tr '\n' ' ')
[ "$(ls run.rank*.cubex 2>/dev/null | wc -l)" = $NP ] && ok "merge_offline: SIGTERM: $NP fallback profiles: $files" \
    || { notok "merge_offline: SIGTERM: $NP fallback profiles" "files: ${files:-none}; $(oneline err)"; exit 0; }

# shellcheck disable=SC2086 # one file a word
"$MERGE" $files >merge.out 2>merge.err
rc=$?
if [ $rc = 0 ] && [ -s run.cubex ] && grep -q '^hprof-merge: wrote run.cubex' merge.out; then
    ok "merge_offline: hprof-merge wrote run.cubex: $(oneline merge.out)"
else
    notok "merge_offline: hprof-merge" "exit $rc: $(oneline merge.err) $(oneline merge.out)"; exit 0
fi
"$TEST_VIEW" --csv run.cubex >run.csv 2>view.err || notok "merge_offline: hprof-view reads run.cubex" "$(oneline view.err)"
ranks=$(awk -F, 'NR > 1 { print $2 }' run.csv | sort -nu | tr '\n' ' ')
[ "$ranks" = "$(seq 0 $((NP - 1)) | tr '\n' ' ')" ] && ok "merge_offline: every rank in the merged profile: $ranks" \
    || notok "merge_offline: every rank in the merged profile" "ranks: $ranks"
bad=0 said=""
for r in $(seq 0 $((NP - 1))); do
    own=$(awk '{ print $2 }' count.$r)
    v=$(awk -F, -v r=$r '$1 == "main;pack_once;MPI_Pack" && $2 == r && $4 == "visits" { print $5 }' run.csv)
    a=$(awk -F, -v r=$r '$1 == "main;MPI_Allreduce" && $2 == r && $4 == "visits" { print $5 }' run.csv)
    said="$said rank $r: $v of $own MPI_Pack, $a MPI_Allreduce;"
    [ "$v" = "$own" ] && [ "$a" = 20 ] || bad=1
done
[ $bad = 0 ] && ok "merge_offline: visits exact up to the signal:$said" \
    || notok "merge_offline: visits exact up to the signal" "$said"
grep -q 'hprof::partial' <(tar xOf run.cubex anchor.xml) && ok "merge_offline: marked partial" \
    || notok "merge_offline: marked partial" "no hprof::partial in anchor.xml"
counted() { tar xOf "$1" anchor.xml | sed -n 's/.*key="hprof::samples_counted" value="\([0-9]*\)".*/\1/p'; }
sum=0
for f in $files; do sum=$((sum + $(counted $f))); done
[ "$(counted run.cubex)" = $sum ] && ok "merge_offline: the ranks' samples counted summed: $sum" \
    || notok "merge_offline: samples counted summed" "$(counted run.cubex), ranks' sum $sum"

# The same program run to MPI_Finalize: the MPI merge's profile has the
# same call paths, metrics (in the same order) and thread names as
# hprof-merge's, bar MPI_Finalize.
mkdir -p "$W/fin" && cd "$W/fin" || exit 1
HPROF_OUTPUT=$PWD/fin.cubex timeout 120 $MPIRUN -np $NP ../killed 300 >out 2>err
shape() { # file -> call paths with visits per rank, metrics, location names
    "$TEST_VIEW" --csv "$1" | awk -F, '$4 == "visits" && $1 !~ /MPI_Finalize/ { print $1, $2 }' | sort
    tar xOf "$1" anchor.xml | grep -o -e '<uniq_name>[^<]*' -e '<name>Master thread [0-9]*' -e '<name>p\?thread [0-9][^<]*'
}
if [ -s fin.cubex ]; then
    shape fin.cubex >fin.shape
    shape ../job/run.cubex >merged.shape
    d=$(diff fin.shape merged.shape | head -5 | tr '\n' ' ')
    [ -z "$d" ] && ok "merge_offline: call paths, metrics and threads as MPI_Finalize's merge ($(wc -l <fin.shape) lines)" \
        || notok "merge_offline: as MPI_Finalize's merge" "diff: $d"
else
    notok "merge_offline: the run to MPI_Finalize" "no fin.cubex: $(oneline err)"
fi
cd "$W/job" || exit 1

# The other readers, value for value as hprof-view.
PYC=${TEST_PYCUBEXR:-$ROOT/../shared/clients/pycubexr}
if [ ! -d "$PYC/pycubexr" ]; then
    echo "ok - merge_offline: pyCubexR # skip: no pyCubexR at $PYC"
elif ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "ok - merge_offline: pyCubexR # skip: Debian's python3-numpy is not installed"
else
    out=$(cd /tmp && PYTHONPATH="$PYC" timeout 300 /usr/bin/python3 "$ROOT/tests/interop/pycubexr_check.py" \
        "$TEST_VIEW" "$W/job/run.cubex" 2>&1)
    case $out in
    ok*) ok "merge_offline: pyCubexR reads every value as hprof-view" ;;
    *) notok "merge_offline: pyCubexR reads the merged profile" "$(echo "$out" | tr '\n' ' ' | cut -c1-400)" ;;
    esac
fi
. "$ROOT/tests/interop/cubelib_env.sh"
if ! cubelib_find; then
    echo "ok - merge_offline: cube_dump # skip: $CUBELIB_WHY"
else
    out=$(cd /tmp && /usr/bin/python3 "$ROOT/tests/interop/cubelib_check.py" "$TEST_VIEW" "$CUBELIB/cube_dump" \
        "$W/job/run.cubex" 2>&1)
    case $out in
    ok*) ok "merge_offline: cube_dump reads every value as hprof-view" ;;
    *) notok "merge_offline: cube_dump reads the merged profile" "$(echo "$out" | tr '\n' ' ' | cut -c1-400)" ;;
    esac
fi

# --locations (issue 41): reduced, the six locations of MPI_Finalize's
# reduced file: sum, min, max and the key ranks' rows equal to the
# --locations all file reduced by hand and to the program's counts, the
# ranks of min and max in its member; pyCubexR and cube_dump read it. auto
# below the threshold and HPROF_LOCATIONS=all keep every rank,
# HPROF_LOCATIONS=reduced is the default where set.
cd "$W/job" || exit 1
for r in $(seq 0 $((NP - 1))); do echo "$r $(awk '{ print $2 }' count.$r)"; done >counts
# shellcheck disable=SC2086 # one file a word
"$MERGE" --locations reduced -o reduced.cubex $files >reduced.out 2>reduced.err
rc=$?
if [ $rc = 0 ] && grep -q '^hprof-merge: wrote reduced.cubex .*; reduced: per call path the sum, min and max' reduced.out; then
    "$TEST_VIEW" --json reduced.cubex >reduced.json 2>view.err && "$TEST_VIEW" --json run.cubex >all.json 2>>view.err
    bad=$(/usr/bin/python3 "$ROOT/tests/mpi/merge_offline/reduced_check.py" reduced.json reduced.cubex all.json counts 2>&1)
    [ -z "$bad" ] && ok "merge_offline: --locations reduced: sum, min, max, key ranks and the ranks of min and max as --locations all's rows and the counts say" \
        || notok "merge_offline: --locations reduced's values" "$bad"
    if [ -d "$PYC/pycubexr" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
        out=$(cd /tmp && PYTHONPATH="$PYC" timeout 300 /usr/bin/python3 "$ROOT/tests/interop/pycubexr_check.py" \
            "$TEST_VIEW" "$W/job/reduced.cubex" 2>&1)
        case $out in
        ok*) ok "merge_offline: pyCubexR reads --locations reduced's file as hprof-view" ;;
        *) notok "merge_offline: pyCubexR reads --locations reduced's file" "$(echo "$out" | tr '\n' ' ' | cut -c1-400)" ;;
        esac
    fi
    if cubelib_find; then
        out=$(cd /tmp && /usr/bin/python3 "$ROOT/tests/interop/cubelib_check.py" "$TEST_VIEW" "$CUBELIB/cube_dump" \
            "$W/job/reduced.cubex" 2>&1)
        case $out in
        ok*) ok "merge_offline: cube_dump reads --locations reduced's file as hprof-view" ;;
        *) notok "merge_offline: cube_dump reads --locations reduced's file" "$(echo "$out" | tr '\n' ' ' | cut -c1-400)" ;;
        esac
    fi
else
    notok "merge_offline: --locations reduced" "exit $rc: $(oneline reduced.err) $(oneline reduced.out)"
fi
# every NAME HOW...: hprof-merge HOW... keeps every rank (or reduces: 'reduced')
every() {
    local name=$1 want=$2 got
    shift 2
    # shellcheck disable=SC2086 # one file a word
    "$@" -f -o "$name.cubex" $files >"$name.out" 2>&1 && "$TEST_VIEW" --json "$name.cubex" >"$name.json" 2>&1
    got=$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d["processes"]), d["attributes"].get("hprof::locations"))' "$name.json" 2>&1)
    [ "$got" = "$want" ] && ok "merge_offline: $name: $got" || notok "merge_offline: $name" "processes, hprof::locations: '$got', want '$want'; $(oneline "$name.out")"
}
every auto "$NP None" "$MERGE" --locations auto
every env_all "$NP None" env HPROF_LOCATIONS=all "$MERGE"
every env_reduced "6 reduced" env HPROF_LOCATIONS=reduced "$MERGE"
every option_over_env "$NP None" env HPROF_LOCATIONS=reduced "$MERGE" --locations all

# Bad input: one line, nonzero exit, nothing written (not even a temporary).
mkdir -p "$W/bad" && cd "$W/bad" || exit 1
cp ../job/run.rank0.cubex ../job/run.rank1.cubex .
head -c $(($(stat -c %s run.rank1.cubex) / 2)) run.rank1.cubex >cut.rank1.cubex
echo "not a profile" >text.rank2.cubex
cp run.rank0.cubex again.rank0.cubex
cp run.rank1.cubex damaged.rank1.cubex # the last metric's data member overwritten
/usr/bin/python3 -c '
import sys, tarfile
m = [m for m in tarfile.open(sys.argv[1]).getmembers() if m.name.endswith(".data")][-1]
with open(sys.argv[1], "r+b") as f:
    f.seek(m.offset_data); f.write(b"\xff" * m.size)' damaged.rank1.cubex
bad_input() { # name args...
    local name=$1 before after
    shift
    before=$(ls -A | tr '\n' ' ')
    "$MERGE" -o out.cubex "$@" >o.txt 2>e.txt
    local rc=$?
    after=$(ls -A | grep -v -x -e o.txt -e e.txt | tr '\n' ' ')
    if [ $rc != 0 ] && [ "$(wc -l <e.txt)" = 1 ] && [ ! -s o.txt ] && [ "$after" = "$before" ]; then
        ok "merge_offline: $name: exit $rc, $(cat e.txt)"
    else
        notok "merge_offline: $name" "exit $rc, stderr '$(oneline e.txt)', files before '$before' after '$after'"
    fi
    rm -f o.txt e.txt
}
bad_input "no files"
bad_input "a truncated file" run.rank0.cubex cut.rank1.cubex
bad_input "a file that is no profile" run.rank0.cubex text.rank2.cubex
bad_input "one rank twice" run.rank0.cubex again.rank0.cubex
bad_input "a damaged data member" run.rank0.cubex damaged.rank1.cubex
bad_input "a missing file" run.rank0.cubex nowhere.rank5.cubex
"$MERGE" run.rank0.cubex run.rank1.cubex >o.txt 2>&1 && [ -s run.cubex ] && ! "$MERGE" run.rank0.cubex >o2.txt 2>&1 \
    && ok "merge_offline: an existing output is not replaced without -f: $(oneline o2.txt)" \
    || notok "merge_offline: existing output" "$(oneline o.txt) / $(oneline o2.txt 2>/dev/null)"
exit 0
