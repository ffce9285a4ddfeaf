#!/bin/bash
# The CUBE reader checks again with the reader and viewer built with
# -fsanitize=address,undefined, plus a mutation run: damaged copies of the
# samples must give exit 0 or 2 and no sanitizer report.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/common/cube_tools/build.sh"
W=${TEST_TMP:-$(mktemp -d)}
S=${CUBE_SAMPLES:-$ROOT/tests/common/data/scorep-samples}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

V=$W/hprof-view-asan
if ! build_view_asan "$W"; then
    notok "asan: reader builds with sanitizers" "$(head -c 400 "$W/cc.err")"; exit 1
fi
ok "asan: reader builds with sanitizers"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99

mkdir -p "$W/samples"
TEST_VIEW=$V CHECK_PREFIX="asan: " TEST_TMP=$W/samples bash "$HERE/cube_reader_samples.sh"

# Every sample in every view, clean.
# What the fuzzer found (make fuzz), kept: each is read, or refused with
# status 2, without a sanitizer report.
for f in "$ROOT"/tests/common/data/fuzz/*.cubex; do
    for mode in "" --header --flat --json; do
        "$V" $mode "$f" > /dev/null 2> "$W/err"; rc=$?
        if { [ $rc -ne 0 ] && [ $rc -ne 2 ]; } || grep -q "Sanitizer\|runtime error" "$W/err"; then
            notok "asan: fuzz finding $(basename "$f") ${mode:-tree}" "exit $rc: $(grep -m1 'ERROR\|runtime error' "$W/err")"
        else
            ok "asan: fuzz finding $(basename "$f") ${mode:-tree} clean (exit $rc)"
        fi
    done
done

for f in "$S"/*/*.cubex; do
    for mode in "" --csv --check --flat --ranks --mpi --hotspots --header --json --folded "--html -" --no-hide; do
        "$V" $mode "$f" > /dev/null 2> "$W/err"; rc=$?
        if [ $rc -ne 0 ] || grep -q "Sanitizer\|runtime error" "$W/err"; then
            notok "asan: ${f#$S/} ${mode:-tree}" "exit $rc: $(grep -m1 'ERROR\|runtime error' "$W/err")"
        else
            ok "asan: ${f#$S/} ${mode:-tree} clean"
        fi
    done
done

# The files cubelib's tools wrote and hprof's profiles they came from (their
# program root has no view node: view_entries read before its array on them).
for f in "$ROOT"/tests/common/data/cubelib/*.cubex.gz; do
    bad=""
    for mode in "" --check --flat --no-hide "--fold libs" --hotspots "--html -"; do
        "$V" $mode "$f" > /dev/null 2> "$W/err"; rc=$?
        if [ $rc -ne 0 ] || grep -q "Sanitizer\|runtime error" "$W/err"; then
            bad="$bad '${mode:-tree}' exit $rc: $(grep -m1 'SUMMARY\|runtime error' "$W/err")"
        fi
    done
    [ -z "$bad" ] && ok "asan: data/cubelib/$(basename "$f") in 7 views clean" ||
        notok "asan: data/cubelib/$(basename "$f")" "$bad"
done

# The writer under the sanitizers: round trip through the sanitized reader.
if build_cube_tool write_profile.c "$W/wp-asan" -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all 2> "$W/cc.err" &&
   "$W/wp-asan" roundtrip "$W/rt.cubex" > "$W/exp.csv" 2> "$W/err" &&
   "$W/wp-asan" badorder "$W/bo.cubex" > /dev/null 2>> "$W/err" &&
   "$V" --csv "$W/rt.cubex" > "$W/got.csv" 2>> "$W/err" &&
   diff <(sort "$W/exp.csv") <(tail -n +2 "$W/got.csv" | sort) > /dev/null; then
    ok "asan: writer round trip clean"
else notok "asan: writer round trip" "$(head -c 400 "$W/cc.err" "$W/err")"; fi

# The view tests again with the sanitized viewer.
for t in view_views view_exports; do
    mkdir -p "$W/$t"
    out=$(TEST_VIEW=$V TEST_TMP=$W/$t bash "$HERE/$t.sh" 2>&1)
    n=$(grep -c '^ok - ' <<<"$out"); bad=$(grep '^not ok - ' <<<"$out")
    if [ -z "$bad" ] && [ "$n" -gt 10 ]; then ok "asan: $t.sh passes with the sanitized viewer ($n checks)"
    else notok "asan: $t.sh" "$(head -n 3 <<<"$bad")"; fi
done

# Mutations: flipped bytes (headers, XML, index and data), truncations.
out=$(python3 - "$V" "$W/mut" "$S/call_tree_test/call_tree_test.cubex" "$S/time.p4.n2000.x1.r0/profile.cubex" \
        "$S/kripke.p8.d2.g32.r1/profile.cubex" <<'PY'
import os, random, subprocess, sys
view, d, *srcs = sys.argv[1:]
os.makedirs(d, exist_ok=True)
rng = random.Random(4242)
bad, runs = [], 0
for src in srcs:
    raw = open(src, "rb").read()
    for i in range(70):
        b = bytearray(raw)
        if i % 7 == 6:
            b = b[: rng.randrange(len(b))]
        else:
            for _ in range(rng.choice((1, 2, 8))):
                # favour the structured parts: headers and the member starts
                pos = rng.randrange(len(b)) if i % 2 else rng.randrange(min(len(b), 4096)) + (rng.randrange(len(b) // 512) * 512 if len(b) > 8192 else 0)
                b[min(pos, len(b) - 1)] = rng.randrange(256)
        p = os.path.join(d, "m.cubex")
        open(p, "wb").write(b)
        for args in ([view, "--check", p], [view, p], [view, "--hotspots", p]):
            r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            runs += 1
            err = r.stderr.decode(errors="replace")
            if r.returncode not in (0, 2) or "Sanitizer" in err or "runtime error" in err:
                keep = os.path.join(d, "bad%d.cubex" % len(bad))
                os.rename(p, keep)
                bad.append("%s (exit %d): %s" % (keep, r.returncode, err.strip().splitlines()[0] if err.strip() else ""))
                break
print("%d runs, %d bad%s" % (runs, len(bad), (": " + bad[0]) if bad else ""))
sys.exit(1 if bad else 0)
PY
); rc=$?
if [ $rc -eq 0 ]; then ok "asan: mutated files exit 0 or 2, no sanitizer report ($out)"
else notok "asan: mutated files" "$out"; fi
exit 0
