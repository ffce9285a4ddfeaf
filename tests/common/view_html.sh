#!/bin/bash
# hprof-view --html: one self-contained page (no network, no external
# scripts), rendered for real in headless Chromium: the page's self test
# (#selftest:NAME) counts the tree rows and flame graph boxes that were
# drawn, clicks NAME's flame box with a real DOM click event and checks
# that the tree and the flame graph both show it selected and that the
# heat strip shows one cell per rank; a screenshot must not be blank.
# Chromium (Debian package chromium) is installed if missing; the checks
# are skipped only if that fails.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

if [ ! -x "$VIEW" ]; then notok "html: viewer built" "$VIEW missing (run make tools)"; exit 1; fi
GEN=$W/view_profiles
if ! build_cube_tool view_profiles.c "$GEN" 2> "$W/cc.err"; then
    notok "html: profile generator builds" "$(head -c 400 "$W/cc.err")"; exit 1
fi
"$GEN" drops "$W/drops.cubex" || { notok "html: profile written" "generator failed"; exit 1; }
cd "$W" || exit 1

# The page in the binary is the one in the source tree: generated from
# html/report.html at build time, no C copy of it kept in the tree.
BUILT=$(dirname "$VIEW")/gen/view_html_template.c
if [ -e "$ROOT/tools/hprof-view/view_html_template.c" ]; then
    notok "html: the page's C form is generated at build time" "tools/hprof-view/view_html_template.c is in the tree"
elif python3 "$ROOT/tools/hprof-view/html/embed.py" "$ROOT/tools/hprof-view/html/report.html" embedded.c &&
   cmp -s embedded.c "$BUILT"; then
    ok "html: the page's C form is generated at build time from html/report.html"
else notok "html: the page's C form is generated at build time" "$BUILT is not html/report.html's (run make tools)"; fi

"$VIEW" --html d.html drops.cubex 2> err.txt; rc=$?
if [ $rc -eq 0 ] && [ -s d.html ] && grep -q "^hprof-view: wrote d.html$" err.txt; then ok "html: --html FILE written"
else notok "html: write" "exit $rc: $(cat err.txt)"; fi
if grep -Eiq '<(script|link|img|iframe)[^>]+(src|href)=|https?://|@import|url\(' d.html; then
    notok "html: self-contained" "$(grep -Eiom1 '<(script|link|img|iframe)[^>]+(src|href)=[^>]*|https?://[^"]*|@import|url\(' d.html)"
else ok "html: self-contained (no external scripts, styles or network)"; fi
"$VIEW" --html - drops.cubex | cmp -s - d.html && ok "html: --html - writes to standard output" || notok "html: stdout" "differs"
"$VIEW" --html "$W/no/such/dir/x.html" drops.cubex 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "cannot create" err.txt && ok "html: unwritable path: exit 1 with a reason" || notok "html: bad path" "exit $rc"
# a name that would end the <script> element is escaped
python3 - d.html <<'PY' && ok "html: embedded data is valid JSON" || notok "html: data" "does not parse or lacks nodes"
import json, re, sys
page = open(sys.argv[1]).read()
m = re.search(r'<script id="hprof-data" type="application/json">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
assert {"main", "solve(Grid&)", "MPI_Allreduce", "std::endl"} <= set(d["nodes"]["name"]), d["nodes"]["name"]
assert len(d["ranks"]) == 8 and "time" in d["values"]
PY

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    echo "installing chromium (apt-get install -y chromium)"
    { apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }; } > apt.log 2>&1
    CHROME=$(command -v chromium || true)
fi
if [ -z "$CHROME" ]; then
    echo "ok - html: rendering in Chromium # skipped: no chromium (apt-get failed: $(tail -n 1 apt.log))"
    exit 0
fi
export HOME=$W     # chromium writes its profile under HOME
flags=(--headless=new --no-sandbox --disable-gpu --no-first-run --disable-extensions --hide-scrollbars
       --user-data-dir="$W/chrome-profile" --window-size=1400,900 --virtual-time-budget=10000)
timeout 180 "$CHROME" "${flags[@]}" --dump-dom "file://$W/d.html#selftest:MPI_Allreduce" > dom.html 2> chrome.err
st=$(grep -o 'selftest tree_rows=[^<]*' dom.html)
echo "  $st"
if [[ "$st" =~ tree_rows=([0-9]+)\ flame_boxes=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 8 ] && [ "${BASH_REMATCH[2]}" -ge 8 ]; then
    ok "html: Chromium drew the call tree (${BASH_REMATCH[1]} rows) and the flame graph (${BASH_REMATCH[2]} boxes)"
else notok "html: drawing" "${st:-no self-test result}: $(tail -n 3 chrome.err | tr '\n' ' ')"; fi
if [[ "$st" == *"clicked=MPI_Allreduce selected=yes"* ]]; then ok "html: clicking a flame graph node selects it in the graph and the tree"
else notok "html: click" "${st:-no result}"; fi
if [[ "$st" == *"strip_cells=8 strip_info=[min 500.00 ms on rank 0, mean 5.750 s, max 6.500 s on rank 1, imbalance 11.5%]"* ]]; then
    ok "html: heat strip of the selected path: 8 ranks, rank 0 the outlier"
else notok "html: heat strip" "${st:-no result}"; fi
[[ "$st" == *"search_matches=1"* ]] && ok "html: search finds the root" || notok "html: search" "${st:-no result}"
if [[ "$st" == *"fold_total_same=yes folded=[[libstdc++.so.6]]"* ]]; then
    ok "html: 'fold libraries' makes std::endl's frames one [libstdc++.so.6] node, total unchanged"
else notok "html: fold libraries" "${st:-no result}"; fi

timeout 180 "$CHROME" "${flags[@]}" --screenshot="$W/shot.png" "file://$W/d.html" > /dev/null 2> chrome.err
out=$(python3 - shot.png <<'PY'
# decode the PNG (8-bit RGB/RGBA, non-interlaced) and count colours
import struct, sys, zlib
raw = open(sys.argv[1], "rb").read()
assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(raw):
    n, t = struct.unpack(">I4s", raw[pos:pos + 8]); body = raw[pos + 8:pos + 8 + n]; pos += 12 + n
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif t == b"IDAT":
        idat += body
bpp = {2: 3, 6: 4}[ctype]
data, stride, prev, colours, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set(), 0
for y in range(h):
    f, line = data[y * (stride + 1)], bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 4):
            colours.add(bytes(line[x * bpp:x * bpp + 3]))
print("%dx%d, %d colours" % (w, h, len(colours)))
sys.exit(0 if len(colours) >= 20 else 1)
PY
)
if [ $? -eq 0 ]; then ok "html: screenshot shows a drawn page ($out)"; else notok "html: screenshot" "${out:-no PNG}: $(tail -n 2 chrome.err)"; fi
exit 0
