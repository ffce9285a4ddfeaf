#!/bin/bash
# The time line member packed (issue 41, item 2): hprof.timeline.z, one zlib
# stream of numbers in which a series that ranks share is stored once,
# instead of the text member hprof.timeline (79% of the file at 128 ranks).
# It is a quarter of its text form at most and shares series; hprof-view
# shows the same from it as from the text member of older profiles
# (progs/timeline_text.py, a second reader, gives that text); a damaged
# packed member is refused in one line.
set -u
. "$(dirname "$0")/progs/lib.sh"
require_built "timeline packed"
here=$(cd "$(dirname "$0")" && pwd)
build_or_fail "timeline packed: build" build_shared "$MPICC" "$here/timeline/phases.c" phases -O1 || exit 0

HPROF_OUTPUT=packed.cubex run_mpi packed 4 ./phases 20 10 4 10; rc=$?
if [ "$rc" -ne 0 ] || [ ! -s packed.cubex ]; then
    notok "timeline packed: run" "status $rc: $(oneline packed.err)"
    exit 0
fi
members=$(tar tf packed.cubex | grep '^hprof.timeline' | tr '\n' ' ')
check "timeline packed: the member is hprof.timeline.z alone (members: $members)" "$members" \
    test "$members" = "hprof.timeline.z "

read -r packed text stored series < <(python3 "$PROGS/timeline_text.py" --stats packed.cubex 2> stats.err)
check "timeline packed: a quarter of its text form at most (${packed:-?} bytes, text ${text:-?})" "$(oneline stats.err)" \
    test "${packed:-0}" -gt 0 -a "$((4 * ${packed:-0}))" -le "${text:-0}"
check "timeline packed: series that ranks share stored once (${stored:-?} stored for ${series:-?})" "$(oneline stats.err)" \
    test "${stored:-0}" -gt 0 -a "${stored:-0}" -lt "${series:-0}"

# The same profile with the text member instead (as an older hprof wrote
# it): hprof-view shows the same, file names aside.
timeline_text packed.cubex > packed.tl
with_member() { # SOURCE OUT MEMBER FILE: SOURCE with its hprof.timeline.z replaced by MEMBER holding FILE
    python3 - "$@" <<'PY'
import io, sys, tarfile
src, out, name, body = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read()
with tarfile.open(src) as s, tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as o:
    for m in s.getmembers():
        data = s.extractfile(m).read()
        if m.name == "hprof.timeline.z":
            m.name, data = name, body
        m.size = len(data)
        o.addfile(m, io.BytesIO(data))
PY
}
with_member packed.cubex text.cubex hprof.timeline packed.tl
differ=""
for view in --timeline --hotspots "--timeline --phase 2"; do
    # shellcheck disable=SC2086
    "$TEST_VIEW" $view packed.cubex 2>&1 | sed 's/packed\.cubex/P/g' > a.view
    # shellcheck disable=SC2086
    "$TEST_VIEW" $view text.cubex 2>&1 | sed 's/text\.cubex/P/g' > b.view
    cmp -s a.view b.view || differ="$differ $view: $(diff a.view b.view | head -n 3 | tr '\n' ' ' | cut -c1-200);"
done
"$TEST_VIEW" --perfetto packed.cubex 2>&1 | sed 's/packed\.cubex/P/g' > a.json
"$TEST_VIEW" --perfetto text.cubex 2>&1 | sed 's/text\.cubex/P/g' > b.json
[ -s a.json ] && cmp -s a.json b.json || differ="$differ --perfetto: $(cmp a.json b.json 2>&1 | head -c 200);"
check "timeline packed: hprof-view shows the same from the packed member as from the text one (--timeline, --hotspots, --phase, --perfetto)" \
    "$differ" test -z "$differ" -a -s packed.tl

# Damaged packed members: cut short, not zlib, zlib of the wrong bytes, a
# series number ahead of those stored, too many ranks: exit 2, one line.
python3 - packed.cubex <<'PY'
import sys, tarfile, zlib
z = tarfile.open(sys.argv[1]).extractfile("hprof.timeline.z").read()
magic = b"hprof-timeline-z 1\n"
def varints(*vs):
    out = b""
    for v in vs:
        while True:
            out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
            v >>= 7
            if not v:
                break
    return out
cases = {
    "short": z[: len(z) // 2],
    "notzlib": b"hprof-timeline-z 1\n\x01\x02\x03" * 4,
    "magic": zlib.compress(b"hprof-timeline 1\nwidth_ns 1\n"),
    "ahead": zlib.compress(magic + varints(1000, 2, 1, 5, 7, 1, 1)),
    "ranks": zlib.compress(magic + varints(1000, 2, 1 << 21, 5)),
}
for name, body in cases.items():
    open("damaged-%s.z" % name, "wb").write(body)
open("trailing.z", "wb").write(z + b"\n")
PY
damaged=""
for c in short notzlib magic ahead ranks; do
    with_member packed.cubex damaged-$c.cubex hprof.timeline.z damaged-$c.z
    "$TEST_VIEW" --timeline damaged-$c.cubex > damaged-$c.out 2>&1; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < damaged-$c.out)" -eq 1 ] || damaged="$damaged $c: exit $rc, $(oneline damaged-$c.out 120);"
done
# A member of a multiple of 512 bytes gets a byte more (cw_tar.c): read as without.
with_member packed.cubex trailing.cubex hprof.timeline.z trailing.z
"$TEST_VIEW" --timeline trailing.cubex 2>&1 | sed 's/trailing\.cubex/P/g' > trailing.view
"$TEST_VIEW" --timeline packed.cubex 2>&1 | sed 's/packed\.cubex/P/g' > packed.view
check "timeline packed: a byte after the zlib stream is left alone" "$(diff packed.view trailing.view | head -n 3 | tr '\n' ' ')" \
    cmp -s packed.view trailing.view
check "timeline packed: a damaged member (cut short, not zlib, wrong bytes, a series ahead, too many ranks): exit 2, one line" \
    "$damaged" test -z "$damaged"
exit 0
