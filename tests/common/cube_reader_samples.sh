#!/bin/bash
# CUBE reader checks over the Score-P samples in tests/common/data/scorep-samples
# (or $CUBE_SAMPLES): values against the reference CSVs, every sample
# loads, broken files give exit status 2 and one line on stderr.
# TEST_VIEW picks the viewer (cube_reader_asan.sh passes a sanitized one);
# CHECK_PREFIX prefixes the check names.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
S=${CUBE_SAMPLES:-$ROOT/tests/common/data/scorep-samples}
P=${CHECK_PREFIX:-}
TOOLS=$HERE/cube_tools
W=${TEST_TMP:-$(mktemp -d)}

ok() { echo "ok - $P$1"; }
notok() { echo "not ok - $P$1: $2"; }

if [ ! -x "$VIEW" ]; then notok "reader: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
if [ ! -d "$S" ]; then notok "reader: samples present" "$S missing"; exit 1; fi

# Values of every (cnode, location, metric) against incl.csv / excl.csv.
compare_ref() { # name cubex dir
    local out
    if ! "$VIEW" --csv-ids "$2" > "$W/ids.csv" 2> "$W/err"; then
        notok "reader: $1 values" "exit $?: $(head -c 300 "$W/err")"; return
    fi
    if out=$(python3 "$TOOLS/compare_ref.py" "$3/incl.csv" "$3/excl.csv" "$W/ids.csv"); then
        ok "reader: $1 values match reference ($out)"
    else
        notok "reader: $1 values" "$out"
    fi
}

# --csv has the contract header and as many rows as --csv-ids.
check_csv_form() { # name cubex
    "$VIEW" --csv "$2" > "$W/path.csv" 2>/dev/null
    "$VIEW" --csv-ids "$2" > "$W/ids.csv" 2>/dev/null
    local head; head=$(head -n 1 "$W/path.csv")
    if [ "$head" != "path,rank,thread,metric,exclusive,inclusive" ]; then
        notok "reader: $1 --csv header" "got '$head'"
    elif [ "$(wc -l < "$W/path.csv")" != "$(wc -l < "$W/ids.csv")" ]; then
        notok "reader: $1 --csv rows" "row counts differ from --csv-ids"
    else
        ok "reader: $1 --csv form"
    fi
}

loads() { # name cubex min_lines
    local rc lines
    "$VIEW" --threshold 0 "$2" > "$W/tree" 2> "$W/err"; rc=$?
    lines=$(wc -l < "$W/tree")
    if [ $rc -eq 0 ] && [ "$lines" -ge "$3" ]; then ok "reader: $1 loads ($lines lines)"
    else notok "reader: $1 loads" "exit $rc, $lines lines: $(head -c 300 "$W/err")"; fi
}

refused() { # name file
    local rc n
    "$VIEW" "$2" > "$W/out" 2> "$W/err"; rc=$?
    n=$(wc -l < "$W/err")
    if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -q "^hprof-view: $2: ." "$W/err" && [ ! -s "$W/out" ]; then
        echo "  $(cat "$W/err")"
        ok "reader: $1 refused with one line"
    else
        notok "reader: $1 refused" "exit $rc, $n stderr lines: $(head -c 300 "$W/err")"
    fi
}

CT=$S/call_tree_test; TP=$S/time.p4.n2000.x1.r0
compare_ref call_tree_test "$CT/call_tree_test.cubex" "$CT"
compare_ref time.p4 "$TP/profile.cubex" "$TP"
check_csv_form time.p4 "$TP/profile.cubex"
loads call_tree_test "$CT/call_tree_test.cubex" 20
loads kripke "$S/kripke.p8.d2.g32.r1/profile.cubex" 16
loads cube-values_example "$S/test_only_files/cube-values_example.cubex" 5

# bt-mz: headers carry the Cube 4.8 checksum bug; read, or refused cleanly.
BT=$S/bt-mz_sum.p2.r1/cube4.8_with_checksum_bug.cubex
"$VIEW" --threshold 0 "$BT" > "$W/tree" 2> "$W/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l < "$W/tree")" -gt 100 ]; then ok "reader: bt-mz checksum-bug file read"
elif [ $rc -eq 2 ] && [ "$(wc -l < "$W/err")" -eq 1 ]; then ok "reader: bt-mz refused with one line"
else notok "reader: bt-mz" "exit $rc: $(head -c 300 "$W/err")"; fi

# Encodings the samples lack, made from call_tree_test, same values expected.
mkdir -p "$W/var"
if python3 "$TOOLS/make_variants.py" "$CT/call_tree_test.cubex" "$W/var"; then
    compare_ref "gzip anchor.xml" "$W/var/gzanchor.cubex" "$CT"
    compare_ref "gzip archive" "$W/var/whole.cubex.gz" "$CT"
    compare_ref "dense index" "$W/var/dense.cubex" "$CT"
    for v in empty notar truncated badanchor badsum badindex baddata; do
        refused "$v file" "$W/var/$v.cubex"
    done
else
    notok "reader: make variants" "make_variants.py failed"
fi
refused "missing file" "$W/does-not-exist.cubex"
refused "directory" "$W/var"
head -c 100000 "$TP/profile.cubex" > "$W/trunc2.cubex"
refused "truncated time.p4" "$W/trunc2.cubex"

# Options.
if "$VIEW" --help | grep -q -- --csv; then ok "view: --help"; else notok "view: --help" "no usage text"; fi
if "$VIEW" --metric time,visits "$CT/call_tree_test.cubex" | grep -q "incl visits"; then
    ok "view: --metric time,visits"
else notok "view: --metric" "no visits column"; fi
if "$VIEW" --csv --metric visits "$CT/call_tree_test.cubex" | tail -n +2 | cut -d, -f4 | sort -u | grep -qx visits; then
    ok "view: --csv --metric restricts rows"
else notok "view: --csv --metric" "other metrics printed"; fi
"$VIEW" --metric nosuch "$CT/call_tree_test.cubex" > /dev/null 2> "$W/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$W/err")" -eq 1 ]; then ok "view: unknown metric gives exit 2"
else notok "view: unknown metric" "exit $rc"; fi
exit 0
