#!/bin/bash
# Tar layout of .cubex files, as other CUBE readers need it:
# - cubelib's reader skips (size/512 + 1) blocks after every member, so the
#   writer never writes a member whose size is a multiple of 512 (anchor.xml
#   gets one more newline): profiles whose anchor.xml lands on every size
#   modulo 512 are written, and each lists with Python's tarfile and GNU tar
#   and reads back in hprof-view;
# - cubew pads such a member with one zero block more: hprof's reader skips
#   a single zero block and reads on (the end is two).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib/common.sh"
. "$ROOT/tests/common/cube_tools/build.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}

WP=$W/write_profile
if ! build_cube_tool write_profile.c "$WP" 2> "$W/cc.err"; then
    notok "tar layout: test program builds" "$(head -c 400 "$W/cc.err")"; exit 1
fi

# 520 profiles: anchor.xml grows by one byte each, so one of them would end
# exactly on a block boundary.
mkdir -p "$W/pad"
for n in $(seq 0 519); do
    "$WP" "pad$n" "$W/pad/p$n.cubex" > /dev/null || { notok "tar layout: write pad$n" "failed"; exit 1; }
done
python3 - "$W/pad" <<'PY'
import os, sys, tarfile
d = sys.argv[1]
bad, padded, n = [], 0, 0
for f in sorted(os.listdir(d)):
    with tarfile.open(os.path.join(d, f)) as t:
        for m in t.getmembers():
            n += 1
            if m.size % 512 == 0:
                bad.append("%s:%s (%d bytes)" % (f, m.name, m.size))
            if m.name == "anchor.xml" and t.extractfile(m).read().endswith(b"</cube>\n\n"):
                padded += 1
if bad:
    print("not ok - tar layout: no member is a multiple of 512 bytes: %s" % ", ".join(bad[:3]))
elif padded == 0:
    print("not ok - tar layout: no anchor.xml needed the extra newline (the test lost its case)")
else:
    print("ok - tar layout: %d members in 520 profiles, none a multiple of 512 bytes (%d anchors padded)" % (n, padded))
PY
gnu_bad=0 view_bad=0
for f in "$W"/pad/*.cubex; do
    [ "$(tar tf "$f" 2>/dev/null | wc -l)" -eq 17 ] || gnu_bad=$((gnu_bad + 1))
done
for n in 0 100 200 300 400 500; do
    "$VIEW" --csv "$W/pad/p$n.cubex" > /dev/null 2>&1 || view_bad=$((view_bad + 1))
done
[ $gnu_bad -eq 0 ] && ok "tar layout: GNU tar lists all 17 members of every profile" \
    || notok "tar layout: GNU tar" "$gnu_bad profiles list wrongly"
[ $view_bad -eq 0 ] && ok "tar layout: hprof-view reads them" || notok "tar layout: hprof-view" "$view_bad failed"

# A cubew-style archive: anchor.xml padded to 1024 bytes, then one extra
# zero block before the next member. hprof's reader must read every metric.
"$WP" roundtrip "$W/src.cubex" > /dev/null
python3 - "$W/src.cubex" "$W/cubew.cubex" <<'PY'
import sys, tarfile, io
src, dst = sys.argv[1], sys.argv[2]
out = io.BytesIO()
with tarfile.open(src) as t:
    for m in t.getmembers():
        data = t.extractfile(m).read()
        if m.name == "anchor.xml":
            data = data.rstrip(b"\n") + b"\n"
            data += b" " * ((-len(data)) % 512)       # whitespace after the root element
        info = tarfile.TarInfo(m.name)
        info.size, info.mtime, info.mode = len(data), m.mtime, 0o644
        out.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        out.write(data + b"\0" * ((-len(data)) % 512))
        if len(data) % 512 == 0:
            out.write(b"\0" * 512)                     # cubew's extra block
out.write(b"\0" * 1024)
open(dst, "wb").write(out.getvalue())
PY
"$VIEW" --csv "$W/src.cubex" > "$W/src.csv" 2>&1
"$VIEW" --csv "$W/cubew.cubex" > "$W/cubew.csv" 2> "$W/cubew.err"; rc=$?
if [ $rc -ne 0 ]; then notok "tar layout: cubew's padding" "hprof-view exit $rc: $(head -c 300 "$W/cubew.err")"
elif ! cmp -s "$W/src.csv" "$W/cubew.csv"; then
    notok "tar layout: cubew's padding" "values differ after a zero block ($(diff "$W/src.csv" "$W/cubew.csv" | head -n 3 | tr '\n' ' '))"
else ok "tar layout: a member followed by cubew's extra zero block: every value read"; fi
