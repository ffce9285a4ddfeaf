#!/bin/bash
# The manual pages (docs/man: hprof-run(1), hprof-view(1), hprof(7)) render
# with man -l and without a groff warning, and hprof-view(1) names every
# option `hprof-view --help` prints. hprof(7)'s variables: config_vars.sh.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
VIEW=${TEST_VIEW:-$ROOT/build/tools/hprof-view}
for p in docs/man/*.[0-9]; do
    out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$p" 2> "$W/err" | head -n 3 | tail -n 1)
    warn=$(groff -man -wall -z "$p" 2>&1 | head -n 2 | tr '\n' ' ')
    if [ -z "$warn" ] && [ ! -s "$W/err" ] && [ "$out" = "NAME" ]; then ok "man: $(basename "$p") renders"
    else notok "man: $(basename "$p") renders" "${warn:-$(head -c 200 "$W/err")} (third line '$out')"; fi
done
if [ -x "$VIEW" ]; then
    "$VIEW" --help 2>&1 | grep -oE '^  --[a-z-]+' | sed 's/^  //' | sort -u > "$W/opts"
    sed 's/\\-/-/g' docs/man/hprof-view.1 > "$W/page"
    missing=$(while read -r o; do grep -qwF -- "$o" "$W/page" || echo "$o"; done < "$W/opts" | tr '\n' ' ')
    [ -s "$W/opts" ] && [ -z "$missing" ] && ok "man: hprof-view(1) names all $(wc -l < "$W/opts") options of --help" ||
        notok "man: hprof-view(1) names every option of --help" "missing: $missing"
else notok "man: hprof-view(1) options" "$VIEW not built"; fi
