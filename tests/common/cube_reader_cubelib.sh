#!/bin/bash
# hprof-view reads what cubelib's own tools write (issue 27, item 5):
# cube_cut, cube_mean, cube_diff, cube_exclusify, cube_remap2 (with and
# without -d) and cube_derive, applied to hprof's profiles and to a Score-P
# sample. Before the fix it refused them: an all-zero metric is an 18-byte
# index with no count ('8.index: truncated'); cube_remap2's bytes_sent is a
# ghost metric (ghost_<id>.data) of type INTEGER.
#   1. the files in data/cubelib (written by the tools, with cubelib's own
#      cube_dump of each): every value hprof-view prints equals cube_dump's,
#      the metrics it leaves out are only derived ones (CubePL) and compound
#      value types, and the views run;
#   2. live, where cubelib is (TEST_CUBELIB, else ../shared/clients/cubelib-4.6
#      beside the checkout) and the Score-P samples are (CUBE_SAMPLES): the
#      tools are run again (data/cubelib/make.sh) and compared the same way;
#      one line says it is skipped otherwise.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
D=$HERE/data/cubelib
CL=${TEST_CUBELIB:-$ROOT/../shared/clients/cubelib-4.6}
S=${CUBE_SAMPLES:-$ROOT/tests/common/data/scorep-samples}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

if [ ! -x "$VIEW" ]; then notok "cubelib: viewer built" "$VIEW missing (run make tools)"; exit 1; fi

# not_loaded FILE: the metrics hprof-view leaves out, one a line; exit 1
# (with the reason on stdout) when one is neither derived nor compound
not_loaded() {
    if ! "$VIEW" --json "$1" > "$W/json" 2> "$W/jerr"; then
        echo "hprof-view --json: $(head -c 300 "$W/jerr")"; return 1
    fi
    python3 - "$W/json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
bad = []
for m in d["metrics"]:
    if m["loaded"]:
        continue
    if m["kind"] != "derived" and not re.match(r"(COMPLEX|RATE|TAU_ATOMIC|HISTOGRAM|NDOUBLES|SCALE_FUNC)", m["dtype"]):
        bad.append("%s (%s, %s)" % (m["name"], m["kind"], m["dtype"]))
    print(m["name"])
if bad:
    print("left out: " + ", ".join(bad)); sys.exit(1)
PY
}

# compare_dir DIR LABEL: every NAME.cubex.gz of DIR that has cube_dump CSVs
compare_dir() {
    local dir=$1 label=$2 f n out rc views
    for f in "$dir"/*.cubex.gz; do
        n=$(basename "$f" .cubex.gz)
        [ -e "$dir/$n.incl.csv.gz" ] || continue
        if ! not_loaded "$f" > "$W/skip.$n"; then
            notok "$label: $n: only derived and compound metrics left out" "$(tail -n 1 "$W/skip.$n")"; continue
        fi
        "$VIEW" --csv-ids "$f" > "$W/ids.$n" 2> "$W/err.$n"; rc=$?
        if [ $rc -ne 0 ]; then notok "$label: $n read" "exit $rc: $(head -c 300 "$W/err.$n")"; continue; fi
        if out=$(python3 "$HERE/cube_tools/compare_ref.py" "$dir/$n.incl.csv.gz" "$dir/$n.excl.csv.gz" \
                 "$W/ids.$n" "$W/skip.$n"); then
            ok "$label: $n: every value as cubelib's cube_dump ($out)"
        else notok "$label: $n values" "$out"; fi
        views=""
        for args in "" --flat --hotspots --mpi --ranks "--html -" --check; do
            # shellcheck disable=SC2086
            "$VIEW" $args "$f" > /dev/null 2> "$W/err.$n" || views="$views '${args:-tree}' exit $? $(head -c 150 "$W/err.$n");"
        done
        [ -z "$views" ] && ok "$label: $n: the views run" || notok "$label: $n views" "$views"
    done
}

# ---- 1. the committed files ------------------------------------------------------
compare_dir "$D" "cubelib files"
# What the set holds (else the checks above prove less than they say).
out=$(python3 - "$D" <<'PY'
import glob, gzip, io, os, sys, tarfile
empty, ghosts, integer = [], [], []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.cubex.gz"))):
    t = tarfile.open(fileobj=io.BytesIO(gzip.open(p).read()))
    n = os.path.basename(p)
    for m in t.getmembers():
        if m.name.endswith(".index") and m.size == 18 and t.extractfile(m).read()[17] == 1:
            empty.append(n); break
    if any(m.name.startswith("ghost_") for m in t.getmembers()):
        ghosts.append(n)
    xml = t.extractfile("anchor.xml").read()
    if b"<dtype>INTEGER</dtype>" in (gzip.decompress(xml) if xml[:2] == b"\x1f\x8b" else xml):
        integer.append(n)
print("%d files with 18-byte empty indexes, %d with ghost metrics, %d with INTEGER metrics" % (len(set(empty)), len(ghosts), len(integer)))
sys.exit(0 if len(set(empty)) >= 8 and ghosts and integer else 1)
PY
) && ok "cubelib files: the set holds what other writers do not ($out)" || notok "cubelib files: the set" "$out"
# A ghost metric's values are read: cube_remap2 -d's bytes_sent is hprof's.
"$VIEW" --csv --metric bytes_sent "$D/hprof-halo-2p.cubex.gz" 2>/dev/null | cut -d, -f1-3,5- | sort > "$W/src.csv"
# (cubelib keeps no attribute of hprof's: the program's root, halo, is a frame of its own there)
"$VIEW" --csv --metric bytes_sent "$D/hprof-remap-d.cubex.gz" 2>/dev/null | sed -e '/^halo,/d' -e 's/^halo;//' |
    cut -d, -f1-3,5- | sort > "$W/ghost.csv"
if [ "$(wc -l < "$W/src.csv")" -gt 4 ] && cmp -s "$W/src.csv" "$W/ghost.csv"; then
    ok "cubelib files: cube_remap2's ghost bytes_sent (INTEGER) equals the source profile's on every path"
else notok "cubelib files: ghost bytes_sent" "$(diff "$W/src.csv" "$W/ghost.csv" | head -n 4 | tr '\n' ' ')"; fi
# Derived metrics are said in one note, not one line each.
"$VIEW" "$D/hprof-remap.cubex.gz" > /dev/null 2> "$W/err"
if [ "$(wc -l < "$W/err")" -eq 1 ] &&
   grep -q '^hprof-view: .*hprof-remap.cubex.gz: note: 42 derived metrics not shown (CubePL expressions, not evaluated; cube_remap2 -d stores their values): execution, comp, mpi, ' "$W/err"; then
    ok "cubelib files: derived metrics left out in one note"
else notok "cubelib files: derived metrics note" "$(head -c 400 "$W/err")"; fi

# ---- 2. live, with cubelib -----------------------------------------------------------
. "$HERE/cube_tools/cubelib.sh"
if ! cubelib_setup "$CL" "$W"; then
    echo "ok - cubelib live: tools run again # skip: no cubelib 4.6 at $CL (TEST_CUBELIB)"; exit 0
fi
if [ ! -e "$S/time.p4.n2000.x1.r0/profile.cubex" ]; then
    echo "ok - cubelib live: tools run again # skip: no Score-P samples at $S (CUBE_SAMPLES)"; exit 0
fi
mkdir -p "$W/live"
if bash "$D/make.sh" "$CL" "$S" "$W/live" > "$W/make.log" 2>&1; then
    n=$(ls "$W/live"/*.cubex.gz | wc -l)
    [ "$n" -eq "$(ls "$D"/*-*.incl.csv.gz | wc -l)" ] && ok "cubelib live: $n files written by the tools" ||
        notok "cubelib live: files written" "$n, not as many as in data/cubelib"
    compare_dir "$W/live" "cubelib live"
else notok "cubelib live: the tools ran" "$(tail -n 3 "$W/make.log" | tr '\n' ' ')"; fi
exit 0
