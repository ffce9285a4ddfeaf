#!/bin/bash
# hprof-view built with -fsanitize=address,undefined over every profile the
# test suite wrote (tests/run.sh collects them in TEST_PROFILE_POOL; issue
# 30: a read before an array on every hprof profile went unseen until a
# large one crashed). Each profile gets the views that cover most of the
# viewer: the tree, --check (every value) and the HTML page (the time line's
# heat map), plus one more view in turn (--hotspots, --flat, --no-hide,
# --fold libs, --mpi, --ranks, --json, --csv, --folded, --timeline,
# --hatchet, --speedscope, --perfetto, --diff against the profile before).
# A view may refuse a file (exit 2, e.g.
# --timeline without a time line); a sanitizer report, a signal or another
# status fails. Runs two at a time; tests/run.sh runs it after interop.sh.
#   view_asan.sh [POOL_DIR]      (default: TEST_PROFILE_POOL)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
POOL=${1:-${TEST_PROFILE_POOL:-}}
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

mkdir -p "$W/asan"
if ! build_view_asan "$W/asan"; then
    notok "asan pool: hprof-view builds with sanitizers" "$(head -c 400 "$W/asan/cc.err")"; exit 0
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
export V=$W/asan/hprof-view-asan OUTDIR=$W/asan

# one_profile INDEX PREV FILE: the views of one profile; prints a line
# "bad FILE VIEW: status, first report line" for each failure
one_profile() {
    local i=$1 prev=$2 f=$3 rc err
    local extra=(--hotspots --flat --no-hide "--fold libs" --mpi --ranks --json --csv --folded --timeline
                 --hatchet --speedscope --perfetto "--diff $prev")
    err=$OUTDIR/err.$i
    for args in "" --check "--html -" "${extra[$((i % ${#extra[@]}))]}"; do
        # shellcheck disable=SC2086
        timeout 120 "$V" $args "$f" > /dev/null 2> "$err"; rc=$?
        if { [ $rc -ne 0 ] && [ $rc -ne 2 ]; } || grep -q 'Sanitizer\|runtime error' "$err"; then
            echo "bad $(basename "$f") '${args:-tree}': exit $rc (99: sanitizer, 124: time, 134/139: signal) $({ grep -m1 'SUMMARY\|runtime error' "$err" || grep -m1 ERROR "$err"; } | cut -c1-200)"
        fi
    done
    rm -f "$err"
}
export -f one_profile

mapfile -t files < <(ls "${POOL:-/nonexistent}"/*.cubex 2>/dev/null)
if [ ${#files[@]} -eq 0 ]; then
    echo "ok - asan pool # skip: no profiles were written by this run"; exit 0
fi
start=$SECONDS
for i in "${!files[@]}"; do
    prev=${files[$(( i > 0 ? i - 1 : 0 ))]}
    printf '%s\0%s\0%s\0' "$i" "$prev" "${files[$i]}"
done | xargs -0 -n 3 -P 2 bash -c 'one_profile "$@"' _ > "$W/asan/bad.txt"
n=$(wc -l < "$W/asan/bad.txt")
if [ "$n" -eq 0 ]; then
    ok "asan pool: hprof-view on ${#files[@]} test profiles, 4 views each, no sanitizer report ($((SECONDS - start)) s)"
else
    notok "asan pool: hprof-view on ${#files[@]} test profiles" "$n failures: $(head -n 5 "$W/asan/bad.txt" | tr '\n' ' ')"
fi
exit 0
