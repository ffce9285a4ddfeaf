#!/bin/bash
# make soak: 4 ranks, SOAK_SECONDS (default 120) s, 1 kHz sampling, about
# 200,000 MPI calls per second per rank from two threads. Passes when
# nothing crashes, memory at the end is within 10% of memory after 10 s on
# every rank, and sampled + MPI time = window on every location. Records the
# numbers in bench/RESULTS.md (between the soak markers).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${SOAK_SECONDS:-120}
mpi=${SOAK_MPI:-openmpi}
out=$root/build/soak
mkdir -p "$out" && cd "$out" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
run=(mpirun.$mpi); [ "$mpi" = openmpi ] && run+=(--oversubscribe)
mpicc.$mpi -g -O2 "$root/bench/soak.c" -o soak -lpthread -L"$root/build/$mpi" -lhprof \
    -Wl,-rpath,"$root/build/$mpi" || exit 1
rm -f soak.cubex
HPROF_OUTPUT=soak.cubex HPROF_SAMPLING_HZ=1000 HPROF_VERBOSE=2 timeout $((secs + 300)) \
    "${run[@]}" -np 4 ./soak "$secs" 400000 >soak.out 2>soak.err
rc=$?
"$root/build/tools/hprof-view" --csv soak.cubex >soak.csv 2>/dev/null
inv=$(python3 "$root/tests/mpi/sampling/check_invariant.py" soak.csv soak.err soak)
summary=$(python3 - soak.out "$rc" "$secs" <<'PY'
import sys
rss, calls = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "rss": rss.setdefault(int(f[1]), []).append((float(f[2]), int(f[3])))
    if f[0] == "calls": calls[int(f[1])] = float(f[3])
rc, secs = int(sys.argv[2]), sys.argv[3]
growth = {}
for r, pts in rss.items():
    base = [kb for t, kb in pts if t >= 10][:1]
    if base: growth[r] = (pts[-1][1] - base[0]) / base[0]
ok = rc == 0 and len(growth) == 4 and all(g <= 0.10 for g in growth.values())
print("%s|%d ranks, %s s, exit %d; MPI calls/s per rank: %s; memory growth after 10 s: %s"
      % ("ok" if ok else "FAIL", len(calls), secs, rc,
         ", ".join("%d: %.0f" % (r, calls[r]) for r in sorted(calls)),
         ", ".join("%d: %+.1f%%" % (r, 100 * g) for r, g in sorted(growth.items()))))
PY
)
verdict=${summary%%|*}; text=${summary#*|}
grep -q '^not ok' <<<"$inv" && verdict=FAIL
echo "soak: $verdict: $text"
echo "$inv" | sed 's/^/soak: /'
results=$root/bench/RESULTS.md
block="<!-- soak:begin -->
## Soak (\`make soak\`)

$(date '+%Y-%m-%d %H:%M %Z'), $mpi, command \`make soak\` (SOAK_SECONDS=$secs): **$verdict**. $text.
$(echo "$inv" | sed 's/^/- /')
<!-- soak:end -->"
touch "$results"
python3 - "$results" "$block" <<'PY'
import re, sys
path, block = sys.argv[1], sys.argv[2]
text = open(path).read()
if "<!-- soak:begin -->" in text:
    text = re.sub(r"<!-- soak:begin -->.*?<!-- soak:end -->", lambda m: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
PY
[ "$verdict" = ok ]
