#!/bin/bash
# hprof-view's time line views on hand-written hprof.timeline members (issue
# 30, items 9 and 10), without MPI: a profile from cube_tools/view_profiles.c
# gets a member whose values are known:
#   - a phase mark at 3e15 or 9e18 ns (a damaged member): --timeline,
#     --hotspots and --html with --phase on it crashed (the bucket index
#     overflowed); now
#     exit 2 with one line, and the plain views draw the rest;
#   - --phase -3 says so in the header, as levels >= 0 do;
#   - a column where ranks only compute is drawn '_', not blank like idle;
#   - numbers with blanks: ' 1' and '1 ' are the same level, the same for
#     --top; '1x' is refused;
#   - phases_dropped lines (marks past the 1024 a rank the runtime keeps)
#     are said under the phases row and in --phase's error.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
oneline() { head -c "${2:-300}" "$1" | tr '\n' '|'; }

if [ ! -x "$VIEW" ]; then notok "timeline views: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
GEN=$W/view_profiles
if ! build_cube_tool view_profiles.c "$GEN" 2> "$W/cc.err"; then
    notok "timeline views: profile generator builds" "$(head -c 400 "$W/cc.err")"; exit 1
fi
cd "$W" || exit 1
"$GEN" threads base.cubex || { notok "timeline views: profile written" "generator failed"; exit 1; }

# with_timeline OUT [extra lines...]: base.cubex plus a member of 8 buckets
# of 1 ms, 2 ranks: buckets 0-1 computation only, 2 half MPI, 3 MPI only,
# 4 nothing (idle), 5 computation only; phases 1 at 0 ms, -3 at 2 ms, 1 at 4 ms.
with_timeline() {
    local out=$1; shift
    python3 - base.cubex "$out" "$@" <<'PY'
import io, sys, tarfile
src, dst, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
ms = 1000000
mpi = [0, 0, ms // 2, ms, 0, 0, 0, 0]
comp = [ms, ms, ms // 2, 0, 0, ms, 0, 0]
lines = ["hprof-timeline 1", "width_ns %d" % ms, "buckets 8", "ranks 2",
         "fields mpi_ns comp_ns visits bytes_sent bytes_received"]
for r in range(2):
    lines.append("rank %d mpi_ns %s" % (r, " ".join(map(str, mpi))))
    lines.append("rank %d comp_ns %s" % (r, " ".join(map(str, comp))))
    for f in ("visits", "bytes_sent", "bytes_received"):
        lines.append("rank %d %s %s" % (r, f, " ".join(["0"] * 8)))
lines += ["offset 0 0", "offset 1 0", "phase 0 0 1", "phase 0 %d -3" % (2 * ms), "phase 0 %d 1" % (4 * ms),
          "phase 1 0 1"] + extra
data = ("\n".join(lines) + "\n").encode()
with tarfile.open(src) as t, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as o:
    for m in t.getmembers():
        b = t.extractfile(m).read()
        i = tarfile.TarInfo(m.name); i.size = len(b); o.addfile(i, io.BytesIO(b))
    i = tarfile.TarInfo("hprof.timeline"); i.size = len(data); o.addfile(i, io.BytesIO(data))
PY
}
with_timeline known.cubex || { notok "timeline views: member written" "python failed"; exit 1; }

# ---- idle and computation-only columns -----------------------------------------
NO_COLOR=1 "$VIEW" --timeline known.cubex > plain.out 2>&1
"$VIEW" --timeline --color=always known.cubex > color.out 2>&1
if grep -q '^rank 0       |__+@ _|$' plain.out && grep -q '^rank 0       |__.*█ _|$' color.out &&
   grep -q 'blank: idle, _: computing only' plain.out; then
    ok "timeline: computation-only columns drawn '_', idle blank (ASCII and Unicode)"
else notok "timeline: computation-only vs idle" "$(oneline plain.out) / $(sed -n 2p color.out)"; fi

# ---- --phase with a negative level ---------------------------------------------
"$VIEW" --timeline --phase -3 known.cubex > neg.out 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '(0.002 .. 0.004 s from MPI_Init), phase -3 (MPI_Pcontrol(-3) on);' neg.out &&
   grep -q '^rank 0       |+@|$' neg.out; then
    ok "timeline: --phase -3 shows its two buckets and says 'phase -3' in the header"
else notok "timeline: --phase -3" "exit $rc: $(oneline neg.out)"; fi

# ---- blanks around numbers ---------------------------------------------------------
"$VIEW" --timeline --phase 1 known.cubex > p1.out 2>&1
"$VIEW" --timeline --phase ' 1' known.cubex > p1a.out 2>&1; a=$?
"$VIEW" --timeline --phase '1 ' known.cubex > p1b.out 2>&1; b=$?
"$VIEW" --timeline --phase '1x' known.cubex > p1x.out 2>&1; x=$?
"$VIEW" --top '3 ' --hotspots known.cubex > top.out 2>&1; t=$?
if [ $a -eq 0 ] && [ $b -eq 0 ] && cmp -s p1.out p1a.out && cmp -s p1.out p1b.out && [ $t -eq 0 ] &&
   [ $x -eq 2 ] && grep -q "an MPI_Pcontrol level (a whole number), not '1x'" p1x.out; then
    ok "numbers: ' 1' and '1 ' are level 1 (--top '3 ' too), '1x' refused in one line"
else notok "numbers with blanks" "exit ' 1' $a, '1 ' $b, '1x' $x, --top '3 ' $t: $(oneline p1b.out 200) $(oneline top.out 200)"; fi

# ---- a phase mark far past the end ---------------------------------------------------
# 3e15 ns is 3e9 buckets of 1 ms: the int bucket index wrapped negative
# (SIGSEGV); 9e18 ns overflowed lround itself.
bad=""
for T in 3000000000000000 9000000000000000000; do
    with_timeline huge.cubex "phase 0 $T 2" || { notok "timeline views: member written" "python failed"; exit 1; }
    s=$(python3 -c "print('%.6g' % ($T * 1e-9))")
    for args in "--timeline" "--hotspots" "--html out.html"; do
        # shellcheck disable=SC2086
        "$VIEW" $args --phase 2 huge.cubex > huge.out 2>&1; rc=$?
        if [ $rc -ne 2 ] || [ "$(wc -l < huge.out)" -ne 1 ] ||
           ! grep -qF "phase 2: rank 0's MPI_Pcontrol(2) at $s s is past the time line's end (0.008 s)" huge.out; then
            bad="$bad [$T: $args --phase 2: exit $rc (139: SIGSEGV) $(oneline huge.out 200)]"
        fi
    done
    rm -f out.html
    for args in "--timeline" "--hotspots" "--html out.html" "--timeline --phase 1"; do
        # shellcheck disable=SC2086
        "$VIEW" $args huge.cubex > huge.out 2>&1 || bad="$bad [$T: $args: exit $? $(oneline huge.out 200)]"
    done
    [ -e out.html ] || bad="$bad [$T: no out.html]"
done
if [ -z "$bad" ]; then ok "timeline: a phase mark at 3e15 or 9e18 ns gives one line with --phase on it, the views draw the rest"
else notok "timeline: a phase mark far past the end" "$bad"; fi

# ---- marks the runtime did not keep --------------------------------------------------
with_timeline dropped.cubex "phases_dropped 0 8976" "phases_dropped 1 8976" ||
    { notok "timeline views: member written" "python failed"; exit 1; }
"$VIEW" --timeline dropped.cubex > dropped.out 2>&1
"$VIEW" --timeline --phase 7 dropped.cubex > dropped7.out 2>&1; rc=$?
if grep -q "(17952 MPI_Pcontrol marks on 2 ranks not kept, past the first 1024 a rank: rank 0's phases end at 0.004 s)" dropped.out &&
   [ $rc -eq 2 ] && grep -q "never called MPI_Pcontrol(7) (levels marked: 1 -3 1) in the 1024 marks a rank that hprof keeps: 17952 more were not kept" dropped7.out &&
   ! grep -q "not kept" plain.out; then
    ok "timeline: marks past the 1024 a rank kept are said under the phases row and in --phase's error"
else notok "timeline: dropped marks" "$(oneline dropped.out 400) / $(oneline dropped7.out)"; fi
exit 0
