#!/bin/bash
# mpmd: an MPMD launch (LAUNCHER -np 1 ./app : -np 2 ./app_b) under hprof-run
# is measured in every part and merged into one profile (before, only the
# first part was preloaded and its rank waited forever in MPI_Finalize's
# merge); likewise from an application file (Open MPI's --app FILE, MPICH's
# -configfile FILE). Where a part does not measure (hprof-run cannot find its
# program: it is started in its own -wdir; or, on Open MPI, a preload given
# by hand to one part), the measuring ranks find each other at MPI_Init
# without it: the run ends, the profile holds the measured ranks under their
# MPI_COMM_WORLD numbers, and one line names the ranks left out. MPICH tells
# a process nothing of the other parts: a part hprof-run could not preload
# and whose -n is not on the command line turns measurement off (one line,
# no hang), as does a sessions-only program with a part not measured.
# With HPROF_LOCATIONS=reduced and the first part not measured, the key
# ranks and the ranks of min and max are MPI_COMM_WORLD's.
. "$(dirname "$0")/progs/lib.sh"
require_built "mpmd build"
use_hprof_run
ITERS=5
build_or_fail "mpmd build" build_plain "$MPICC" "$PROGS/app.c" app || finish
cp app app_b && mkdir -p sub && cp app sub/app2

# visits of main;work;MPI_Allreduce per rank in a profile: "0:5 1:5 ..."
allreduce_visits() {
    to_csv "$1" "$1.csv" || { echo "csv failed: $(head -c 200 "$1.csv.err")"; return; }
    awk -F, '$1 == "main;work;MPI_Allreduce" && $4 == "visits" { v[$2] += $5 }
             END { for (r in v) print r ":" v[r] }' "$1.csv" | sort -n | tr '\n' ' ' | sed 's/ $//'
}
# NAME DIR RC PROFILE RANKS: the run in DIR ended with status 0 (not a
# timeout) and left exactly PROFILE, whose ranks made ITERS allreduces each
mpmd_check() { local n=$1 d=$2 rc=$3 prof=$4 want=$5 files got
    files=$(cd "$d" && ls -A | grep '\.cubex$' | tr '\n' ' ')
    if [ "$rc" -ne 0 ]; then
        notok "$n: the run ends" "status $rc (124: hung); stderr: $(tail -n 4 "$d/run.err" | tr '\n' ' ' | cut -c1-300)"; return
    fi
    ok "$n: the run ends"
    if [ "$files" != "$prof " ]; then
        notok "$n: one profile" "files '$files', want '$prof'; stderr: $(tail -n 4 "$d/run.err" | tr '\n' ' ' | cut -c1-300)"; return
    fi
    got=$(allreduce_visits "$d/$prof")
    check "$n: its ranks, each with its $ITERS MPI_Allreduce" "got '$got', want '$want'" test "$got" = "$want"
}
launch() { # DIR ARGS... : hprof-run ARGS in DIR
    local d=$1; shift
    mkdir -p "$d" && (cd "$d" && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$@" >run.out 2>run.err </dev/null)
}
if [ "$TEST_MPI" = openmpi ]; then NP=-np APPOPT=--app; else NP=-n APPOPT=-configfile; fi

launch two "$HPROF_RUN" $MPIRUN $NP 1 ../app $ITERS : $NP 2 ../app_b $ITERS; rc=$?
mpmd_check "mpmd hprof-run A : B" two $rc hprof-app-3p.cubex "0:$ITERS 1:$ITERS 2:$ITERS"

mkdir -p file && printf '# two parts\n%s 1 ../app %s\n%s 2 ../app_b %s\n' $NP $ITERS $NP $ITERS > file/parts.txt
launch file "$HPROF_RUN" $MPIRUN $APPOPT parts.txt; rc=$?
mpmd_check "mpmd hprof-run $APPOPT FILE" file $rc hprof-app-3p.cubex "0:$ITERS 1:$ITERS 2:$ITERS"

left_out_line() { # NAME DIR TEXT: TEXT in exactly one line of hprof's
    local c; c=$(grep -c "^hprof: the profile leaves out $3" "$2/run.err")
    check "$1: one line names the ranks left out" "$c lines; stderr: $(head -c 400 "$2/run.err" | tr '\n' ' ')" test "$c" -eq 1
}
launch wdir "$HPROF_RUN" $MPIRUN $NP 1 ../app $ITERS : $NP 2 -wdir ../sub ./app2 $ITERS; rc=$?
mpmd_check "mpmd part not preloaded" wdir $rc hprof-app-1p.cubex "0:$ITERS"
left_out_line "mpmd part not preloaded" wdir "ranks 1-2 (part 2): hprof-run could not preload them"

if [ "$TEST_MPI" = openmpi ]; then
    launch hand $MPIRUN -np 1 ../app $ITERS : -np 2 -x LD_PRELOAD="$TEST_LIBDIR/libhprof.so" ../app $ITERS; rc=$?
    mpmd_check "mpmd preload by hand in one part" hand $rc hprof-app-2p.cubex "1:$ITERS 2:$ITERS"
    left_out_line "mpmd preload by hand in one part" hand "rank 0 (part 1): the preload was given by hand"
else
    echo "ok - mpmd preload by hand in one part # skip: MPICH tells a process nothing of the other parts (README: hprof-run)"
    launch noncount "$HPROF_RUN" $MPIRUN -n 1 ../app $ITERS : -wdir ../sub ./app2 $ITERS; rc=$?
    n="mpmd part not preloaded, no -n"
    check "$n: the run ends" "status $rc (124: hung); stderr: $(tail -n 4 noncount/run.err | tr '\n' ' ' | cut -c1-300)" test "$rc" -eq 0
    if [ -z "$(cd noncount && ls -A | grep '\.cubex$')" ] &&
       grep -q '^hprof-run: no profile was written: .*part 2 of the launch is not measured and the command line does not say how many processes it has' noncount/run.err; then
        ok "$n: no profile, hprof-run says why"
    else
        notok "$n: no profile, hprof-run says why" "files: $(ls noncount | tr '\n' ' '); stderr: $(head -c 400 noncount/run.err | tr '\n' ' ')"
    fi
    if build_plain "$MPICC" "$PROGS/session.c" session; then
        cp session sub/session2
        launch sessions "$HPROF_RUN" $MPIRUN -n 2 ../session : -n 1 -wdir ../sub ./session2; rc=$?
        n="mpmd sessions-only program, part not preloaded"
        check "$n: the run ends" "status $rc (124: hung); stderr: $(tail -n 4 sessions/run.err | tr '\n' ' ' | cut -c1-300)" \
            test "$rc" -eq 0 -a "$(grep -c '^session: done' sessions/run.out)" -eq 1
        if grep -q '^hprof: not measuring this process: .*rank 2 (part 2) (hprof-run could not preload them)' sessions/run.err; then
            ok "$n: one line says why nothing is measured"
        else
            notok "$n: one line says why nothing is measured" "stderr: $(head -c 400 sessions/run.err | tr '\n' ' ')"
        fi
    else
        notok "mpmd sessions build" "$(oneline session.build.log 300)"
    fi
fi
# HPROF_LOCATIONS=reduced where the first part does not measure: the key
# ranks and the ranks of min and max are named as the full file numbers
# the processes (MPI_COMM_WORLD's ranks 1 and 2), not by their ranks in
# the measured ranks' communicator (0 and 1).
launch reduced env HPROF_LOCATIONS=reduced "$HPROF_RUN" $MPIRUN $NP 1 -wdir ../sub ./app2 $ITERS : $NP 2 ../app $ITERS; rc=$?
n="mpmd reduced, first part not measured"
if [ "$rc" -ne 0 ] || [ ! -f reduced/hprof-app-2p.cubex ]; then
    notok "$n: the run" "status $rc, files $(ls reduced | tr '\n' ' '); stderr: $(tail -n 4 reduced/run.err | tr '\n' ' ' | cut -c1-300)"
elif ! timeout 60 "$TEST_VIEW" --json reduced/hprof-app-2p.cubex >reduced/p.json 2>reduced/p.json.err; then
    notok "$n: hprof-view --json" "$(oneline reduced/p.json.err 300)"
else
    bad=$(/usr/bin/python3 - reduced/p.json reduced/hprof-app-2p.cubex <<'PY'
import json, re, struct, sys, tarfile, zlib
d = json.load(open(sys.argv[1]))
names = [q["name"] for q in sorted(d["processes"], key=lambda q: q["index"])]
bad = []
keys = [re.match(r"rank (\d+)(: (least|most) time)?$", x) for x in names[3:]]
if names[:3] != ["sum of 2 ranks", "min", "max"] or len(names) != 6 or not all(keys) \
        or int(keys[0].group(1)) != 1 or any(int(k.group(1)) not in (1, 2) for k in keys):
    bad.append("processes %r, want the key ranks named rank 1 (the first measured) and 1 or 2" % names)
with tarfile.open(sys.argv[2]) as t:
    raw = zlib.decompress(t.extractfile("hprof.locations.z").read())
ranks = set(struct.unpack_from("<%di" % ((len(raw) - 28) // 4), raw, 28))
if not ranks <= {-1, 1, 2} or not ranks & {1, 2}:
    bad.append("ranks of min and max %s, want 1 and 2 (and -1)" % sorted(ranks))
print("; ".join(bad))
PY
)
    check "$n: key ranks and ranks of min and max are MPI_COMM_WORLD's" "$bad" test -z "$bad"
fi
finish
