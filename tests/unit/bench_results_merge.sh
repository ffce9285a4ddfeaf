#!/bin/bash
# bench/run.py with BENCH_ONLY merges its sections into bench/RESULTS.md:
# the header and its list of runs kept (the run added first), a section
# run replaced with the old text kept below it as "The run before" (older
# runs below that as "Earlier"), the sections not run untouched.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

python3 "$HERE/bench_results/check.py" bench/run.py > "$W/out" 2>&1
for name in header replaced untouched added once; do
    line=$(grep "^$name " "$W/out")
    case "$name" in
    header)    what="the header and its list of runs kept, the partial run listed first" ;;
    replaced)  what="a section run: its new text, the old below as the run before" ;;
    untouched) what="a section not run kept as it was" ;;
    added)     what="a section new to the file added" ;;
    once)      what="each section once" ;;
    esac
    if [ "$line" = "$name ok" ]; then ok "bench results merge: $what"
    else notok "bench results merge: $what" "${line:-no output: $(head -c 300 "$W/out")}"; fi
done
