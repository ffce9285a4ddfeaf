#!/bin/bash
# hprof-view's views against profiles with exact values, written by
# cube_tools/view_profiles.c: a DROPS-like run (rank 0 writes under
# std::endl while ranks 1..7 wait in MPI_Allreduce), the same run after the
# fix, and a 2 ranks x 2 threads Score-P style file. See view_profiles.c
# for the values.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
# check NAME FILE PATTERN...: every extended regex matches some line of FILE
check() {
    local name=$1 file=$2; shift 2
    for pat in "$@"; do
        if ! grep -Eq -- "$pat" "$file"; then
            notok "$name" "no line matches /$pat/; output: $(head -c 600 "$file" | tr '\n' '|')"; return
        fi
    done
    ok "$name"
}
# refute NAME FILE PATTERN: no line matches
refute() {
    if grep -Eq -- "$3" "$2"; then notok "$1" "unexpected /$3/: $(grep -Em1 -- "$3" "$2")"; else ok "$1"; fi
}

if [ ! -x "$VIEW" ]; then notok "view: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
GEN=$W/view_profiles
if ! build_cube_tool view_profiles.c "$GEN" 2> "$W/cc.err"; then
    notok "view: profile generator builds" "$(head -c 400 "$W/cc.err")"; exit 1
fi
D=$W/drops.cubex F=$W/fixed.cubex T=$W/threads.cubex
"$GEN" drops "$D" && "$GEN" fixed "$F" && "$GEN" threads "$T" || { notok "view: profiles written" "generator failed"; exit 1; }
ok "view: test profiles written"
cd "$W" || exit 1

# ---- header and tree ---------------------------------------------------------
"$VIEW" "$D" > tree.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && [ ! -s err.txt ] && ok "tree: exit 0, nothing on stderr" || notok "tree: exit" "$rc: $(cat err.txt)"
check "header: what was measured" tree.txt '^command +\./drops --grid 64$' '^ranks +8 ranks, 8 threads' \
    '^sampling +100 Hz, wall clock' '^date +2024-05-01T12:00:00' '^version +hprof 0\.1\.0$'
check "header: top-level split" tree.txt \
    '^time: total 73\.0000 s, computation 24\.0000 s \(32\.9%\), MPI 49\.0000 s \(67\.1%\), \(unwind failed\) 0\.0%, \(not unwound\) 0\.7%$'
check "tree: inclusive, %, exclusive per call path" tree.txt \
    '^ +72\.500000 +99\.3% +2\.000000 +0 +0 +0 +main$' \
    '^ +46\.000000 +63\.0% +46\.000000 +800 +6400 +6400 +MPI_Allreduce \(solve\.cc:42\)$' \
    '^ +6\.000000 +8\.2% +6\.000000 .* {6}std::endl \(io\.cc:17\)$'
# children sorted by inclusive value: solve (62.5) before output (6) before MPI_Init (2)
order=$(grep -Eo '(solve|output|MPI_Init) \(' tree.txt | sed 's/ ($//' | tr '\n' ,)
[ "$order" = "solve,output,MPI_Init," ] && ok "tree: children by inclusive value" || notok "tree: order" "$order"
refute "tree: libstdc++/libc internals folded by default" tree.txt 'std::ostream::flush|write$'
"$VIEW" --no-hide --threshold 0 "$D" > nohide.txt
check "tree: --no-hide shows the internals" nohide.txt '^ +6\.000000 .* +0\.000000 .*std::endl' \
    '^ +6\.000000 +8\.2% +0\.500000 .*std::ostream::flush$' '^ +5\.500000 +7\.5% +5\.500000 .* write$'
"$VIEW" --hide 'solve' "$D" > hide.txt
check "tree: --hide folds matching frames into the caller" hide.txt \
    '^ +72\.500000 .*2\.000000 .*main$' '^ +46\.000000 +63\.0% .* {4}MPI_Allreduce'
refute "tree: --hide removes the frame" hide.txt 'solve\(Grid'
"$VIEW" --threshold 5 "$D" > thr.txt
check "tree: --threshold folds small call paths" thr.txt '^ +2\.000000 +2\.7% +\[1 more under 5%\]$'
refute "tree: --threshold hides MPI_Init" thr.txt 'MPI_Init'
"$VIEW" --threshold 0 "$D" > all.txt
[ "$(grep -c '(' all.txt)" -ge 8 ] && ! grep -q 'more under' all.txt && ok "tree: --threshold 0 shows all" \
    || notok "tree: --threshold 0" "$(grep 'more under' all.txt)"
"$VIEW" --depth 1 "$D" > depth.txt
check "tree: --depth limits levels" depth.txt 'solve \(drops\.cc:20\) \[\+3 below depth 1\]$'
refute "tree: --depth 1 shows nothing deeper" depth.txt 'compute|MPI_Allreduce'
"$VIEW" --metric visits,bytes_sent "$D" > met.txt
check "tree: --metric NAME,NAME" met.txt 'incl visits +% +excl visits +incl bytes_sent +excl bytes_sent' \
    '^ +800 +[0-9.]+% +800 +6400 +6400 +MPI_Allreduce'
"$VIEW" --rank 0 "$D" > r0.txt
check "tree: --rank 0 shows one rank" r0.txt '^showing +rank 0 only$' '^time: total 9\.1250 s' \
    '^ +0\.500000 +5\.5% +0\.500000 .*MPI_Allreduce' '^ +6\.000000 +65\.8% .*output'
"$VIEW" --rank 3 "$D" > r3.txt
refute "tree: --rank 3 has no output path" r3.txt 'std::endl'
"$VIEW" --focus 'std::endl' "$D" > focus.txt
check "tree: --focus shows the subtree and its callers" focus.txt '^focus: ' 'main$' ' output \(drops' 'std::endl'
refute "tree: --focus drops other subtrees" focus.txt 'solve|MPI_Init|MPI_Allreduce'
"$VIEW" --rank 1 "$T" > thr1.txt
check "tree: threads of a rank summed (--rank 1)" thr1.txt '^ +5\.750000 +100\.0% +2\.000000 +2 +main$' \
    '^ +3\.500000 +60\.9% +3\.500000 +4 +work \(t\.c:5\)$'
check "header: Score-P style file" thr1.txt '^written by ' '^ranks +2 ranks, 4 threads in all \(up to 2 per rank\)$'

# ---- flat -------------------------------------------------------------------------
"$VIEW" --flat "$D" > flat.txt
check "flat: regions by self value" flat.txt '^ +% self +cumulative +self +total +calls' \
    '^ +63\.01% +46\.000 s +46\.000 s +46\.000 s +800 +57\.50 ms +57\.50 ms +MPI_Allreduce$' \
    '^ +8\.22% .* 6\.000 s +6\.000 s +0 .*std::endl$' '^ +0\.00% .* 0 s +62\.500 s +0 .*solve$'
first=$(grep -A1 '% self' flat.txt | tail -1)
[[ "$first" == *MPI_Allreduce ]] && ok "flat: heaviest region first" || notok "flat: order" "$first"

# ---- --fold: consecutive frames of one library as one node ---------------------------
"$VIEW" --fold libs --no-hide --threshold 0 "$D" > fold.txt
check "fold libs: std::endl > flush as [libstdc++.so.6], write as [libc.so.6], exclusive values moved" fold.txt \
    '^ +6\.000000 +8\.2% +0\.500000 .* {6}\[libstdc\+\+\.so\.6\] \(io\.cc:17\)$' \
    '^ +5\.500000 +7\.5% +5\.500000 .* {8}\[libc\.so\.6\]$' '^time: total 73\.0000 s'
refute "fold libs: no library function left" fold.txt 'std::|write$'
"$VIEW" --fold libc --no-hide --threshold 0 "$D" > foldc.txt
check "fold libc: only libc folded" foldc.txt '^ +6\.000000 .* {8}std::ostream::flush$' '^ +5\.500000 .* {10}\[libc\.so\.6\]$'
"$VIEW" --fold libs --flat "$D" > foldflat.txt
check "fold libs: --flat has the library as one row" foldflat.txt '^ +8\.22% .* 6\.000 s +6\.000 s +0 .*\[libstdc\+\+\.so\.6\]$'
"$VIEW" --fold '' "$D" > /dev/null 2> folderr.txt; rc=$?
[ $rc -eq 2 ] && grep -q -- '--fold:' folderr.txt && ok "fold: empty list is bad usage" || notok "fold: empty" "exit $rc: $(cat folderr.txt)"

# ---- function visits as a lower bound (function_entries_seen) ------------------------
"$GEN" entries "$W/entries.cubex" || notok "entries: profile written" "generator failed"
"$VIEW" --threshold 0 entries.cubex > ent.txt
check "entries: functions' visits are function_entries_seen, marked >=; MPI visits exact" ent.txt \
    '^ +16\.000000 +21\.9% +16\.000000 +>=800 +0 +0 +compute \(solve\.cc:30\)$' \
    '^ +46\.000000 +63\.0% +46\.000000 +800 +6400 +6400 +MPI_Allreduce' \
    '^ +6\.000000 +8\.2% +6\.000000 +>=20 +0 +0 +std::endl \(io\.cc:17\)$'
"$VIEW" --flat entries.cubex > entflat.txt
check "entries: --flat calls >=N, per call values <=" entflat.txt \
    '^ +21\.92% .* 16\.000 s +>=800 +<=20\.00 ms +<=20\.00 ms  compute$' '^ +63\.01% .* 800 +57\.50 ms +57\.50 ms  MPI_Allreduce$'
refute "entries: no >= without the metric" tree.txt '>='

# ---- ranks ------------------------------------------------------------------------
"$VIEW" --ranks "$D" > ranks.txt
check "ranks: min/mean/max, extremes' ranks, imbalance" ranks.txt \
    '^ 63\.0% +500\.00 ms +0 +5\.750 s +6\.500 s +1 +11\.5% \[\.@@@@@@@\]  main > solve > MPI_Allreduce \(solve\.cc:42\)$' \
    '^  8\.2% +0 s +1 +750\.00 ms +6\.000 s +0 +87\.5% \[@       \]  main > output > std::endl \(io\.cc:17\)$'
"$VIEW" --ranks --top 2 "$D" > ranks2.txt
[ "$(grep -c ' > ' ranks2.txt)" = 2 ] && ok "ranks: --top 2" || notok "ranks: --top" "$(grep -c ' > ' ranks2.txt) rows"

# ---- MPI summary --------------------------------------------------------------------
"$VIEW" --mpi "$D" > mpi.txt
check "mpi: MPI time and share per rank" mpi.txt '^ +rank +app time +MPI time +MPI%$' \
    '^ +0 +9\.125000 +0\.875000 +9\.59%$' '^ +1 +9\.125000 +6\.875000 +75\.34%$' '^ +\* +73\.000000 +49\.000000 +67\.12%$' \
    '^MPI% lowest on rank 0'
check "mpi: top call sites by time" mpi.txt \
    '^ +1 +46\.000000 +63\.01% +93\.88% +800 +57\.50 ms +11\.5% +1 +2  solve > MPI_Allreduce \(solve\.cc:42\)$'
check "mpi: top call sites by bytes sent" mpi.txt '^ +1 +327680 +98\.08% +80 +4\.1 kB +3  solve > MPI_Send'
check "mpi: message sizes" mpi.txt '^MPI_Send +80 +327680 +0 +4096\.0 +4096\.0 +4096\.0$' \
    '^MPI_Allreduce +800 +6400 +6400 +16\.0 +16\.0 +16\.0$'

# ---- hotspots --------------------------------------------------------------------------
COLUMNS=1000 "$VIEW" --hotspots "$D" > hot.txt
check "hotspots: waiting ranks, MPI_Allreduce, rank 0, std::endl" hot.txt \
    '^ 1\. waiting: ranks wait in MPI_Allreduce for rank 0 .* rank 0 meanwhile spends 6\.000 s .* in main > output > std::endl$' \
    "see: hprof-view --rank 0 --focus '\^std::endl\\$'"
check "hotspots: most expensive MPI path" hot.txt 'MPI: main > solve > MPI_Allreduce takes 63\.0% of the time' 'see: hprof-view --mpi'
check "hotspots: imbalance and its rank" hot.txt 'imbalance 88% at main > output > std::endl: rank 0 spends 6\.000 s' 'see: hprof-view --ranks'
# not on a terminal, lines fit 100 columns (COLUMNS when set): findings wrap
for cols in "" 60; do
    COLUMNS=$cols "$VIEW" --hotspots drops.cubex > hot$cols.txt
    long=$(awk -v w="${cols:-100}" 'length($0) > w' hot$cols.txt | head -n 2)
    [ -z "$long" ] && grep -q '^ 1\. waiting: ranks wait in MPI_Allreduce' hot$cols.txt &&
        grep -q 'in main > output > std::endl$' hot$cols.txt &&
        ok "hotspots: lines fit ${cols:-100} columns" || notok "hotspots: lines fit ${cols:-100} columns" "$long"
done
# a path too long for the line keeps its root, its last frame and the
# program's deepest own frame (output; std::endl and flush are libstdc++'s)
COLUMNS=56 "$VIEW" --hotspots --no-hide drops.cubex > hot56.txt
check "hotspots: elided path keeps the program's own frame" hot56.txt 'main > output > \.\.\. > write( |:|$)'

# ---- diff ----------------------------------------------------------------------------
"$VIEW" --diff "$D" "$F" > diff.txt; rc=$?
check "diff: totals and the changed paths, largest change first" diff.txt \
    '^total: before 73\.000000, after 29\.000000, change -44\.000000 \(-60\.3%\)$'
first=$(grep -m1 ';' diff.txt); second=$(grep ';' diff.txt | sed -n 2p)
if [[ "$first" =~ -38\.500000\ +-83\.7%.*main\;solve\(Grid\&\)\;MPI_Allreduce$ ]] &&
   [[ "$second" =~ 6\.000000\ +0\.500000\ +-5\.500000\ +-91\.7%.*main\;output\;std::endl$ ]]; then
    ok "diff: MPI_Allreduce and std::endl changed, sorted by change"
else notok "diff: rows" "$first | $second"; fi
"$VIEW" --diff "$D" "$D" > same.txt
check "diff: identical files" same.txt '^\(no call path changed\)$'
# renumbered ids: the threads file vs itself with --hide does not matter; match by names
"$VIEW" --diff --metric visits "$D" "$F" > dv.txt
check "diff: --metric visits unchanged" dv.txt '^\(no call path changed\)$'

# ---- intervals ----------------------------------------------------------------------------
"$VIEW" --intervals "$D" > iv.txt
check "intervals: histogram with bucket ranges" iv.txt '100 Hz: 10\.000 ms\), 108 samples$' \
    '^\[1\.000,1\.125\) +80 +74\.1% #{40}$' '^\[2\.000,2\.125\) +28 +25\.9% #{14}$' '^>= 5 +0 +0\.0%' \
    '^mean 1\.322, p95 2\.125'
check "intervals: per-rank mean and p95" iv.txt '^ +rank +samples +mean +p95$' '^ +0 +10 +1\.062 +1\.125$' '^ +7 +17 +1\.474 +2\.125$'
"$VIEW" --intervals "$T" > /dev/null 2> err.txt; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < err.txt)" = 1 ] && ok "intervals: file without histogram: exit 2, one line" \
    || notok "intervals: no histogram" "exit $rc: $(cat err.txt)"

# ---- usage errors: one line, exit 2 --------------------------------------------------------
for args in "--focus nosuchregion" "--rank 99" "--hide [" "--threshold abc" "--depth -1" "--metric nosuch" "--bogus" "--diff"; do
    # shellcheck disable=SC2086
    "$VIEW" $args "$D" > out.txt 2> err.txt; rc=$?
    if [ $rc -eq 2 ] && [ ! -s out.txt ] && grep -q '^hprof-view: ' err.txt; then ok "usage: '$args' refused with exit 2"
    else notok "usage: '$args'" "exit $rc: $(head -c 200 err.txt)"; fi
done
"$VIEW" --focus nosuchregion "$D" 2>&1 >/dev/null | grep -q "no call path matches 'nosuchregion'" \
    && ok "usage: focus error says why" || notok "usage: focus message" "$("$VIEW" --focus nosuchregion "$D" 2>&1)"

# ---- friendliness ---------------------------------------------------------------------------
"$VIEW" --help > help.txt
check "help: views, exports and examples" help.txt '--flat' '--ranks' '--mpi' '--hotspots' '--diff' '--json' \
    '--folded' '--html FILE' '--intervals' '^Examples:' 'hprof-view --hotspots prof\.cubex'
esc=$(printf '\033')
"$VIEW" --hotspots "$D" | grep -q "$esc" && notok "colour: none in a pipe" "escape codes" || ok "colour: none in a pipe"
"$VIEW" --color=always --hotspots "$D" | grep -q "$esc" && ok "colour: --color=always" || notok "colour: always" "none"
NO_COLOR=1 "$VIEW" --color=always --hotspots "$D" | grep -q "$esc" && notok "colour: NO_COLOR" "escape codes" \
    || ok "colour: never with NO_COLOR set"
if command -v script > /dev/null; then
    script -qc "$VIEW --hotspots $D" /dev/null < /dev/null > tty.txt 2>&1
    grep -q "$esc" tty.txt && ok "colour: on a terminal" || notok "colour: terminal" "no escape codes"
    NO_COLOR=1 script -qc "$VIEW --hotspots $D" /dev/null < /dev/null > tty.txt 2>&1
    grep -q "$esc\[3" tty.txt && notok "colour: NO_COLOR on a terminal" "escape codes" || ok "colour: NO_COLOR on a terminal"
fi
"$VIEW" --threshold 0 "$D" | head -n 3 > /dev/null; rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] || [ $rc -eq 141 ] && ok "pipe: closing the pipe early is quiet (exit $rc)" || notok "pipe: head" "exit $rc"

# ---- real hprof files ---------------------------------------------------------------------------
for f in "$ROOT"/examples/*/*.cubex; do
    [ -e "$f" ] || break
    for m in "" --flat --ranks --mpi --hotspots --intervals; do
        # shellcheck disable=SC2086
        "$VIEW" $m "$f" > /dev/null 2> err.txt || { notok "view: ${f#$ROOT/} $m" "$(cat err.txt)"; continue 2; }
    done
    ok "view: every view reads ${f#$ROOT/}"
done
exit 0
