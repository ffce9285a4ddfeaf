#!/bin/bash
# Extra-P models a function measured exactly (issue 29.2): exact/exact_scale.c,
# kernel selected with HPROF_SELECT, runs at P = 1..5 into Extra-P's CUBE
# layout (runs/app.pP.r1/profile.cubex); Extra-P's model of kernel's visits
# (weak scaling: a rank's mean) is 10 * p, the program's own count, within
# 1% at p = 1..5 and 16. Extra-P is not in Debian: where `python3 -m extrap`
# cannot import it (PYTHONPATH from EXTRAP_PYTHONPATH, e.g. an Extra-P
# checkout, its site packages and pyCubexR), one skip line.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
PY=${EXTRAP_PYTHON:-/usr/bin/python3}
if ! PYTHONPATH=${EXTRAP_PYTHONPATH:-} "$PY" -c 'import extrap.extrap.extrapcmd' 2>/dev/null; then
    echo "ok - exact Extra-P model # skip: Extra-P not importable by $PY (set EXTRAP_PYTHONPATH)"; finish
fi
require_built exact_extrap
build_or_fail "exact Extra-P: build" build_shared "$MPICC" "$here/exact/exact_scale.c" exact_scale -O2 \
    -fpatchable-function-entry=18,16 || finish
rm -rf runs
for p in 1 2 3 4 5; do
    mkdir -p runs/app.p$p.r1
    HPROF_SELECT='name("^kernel$")' HPROF_SAMPLING_HZ=0 HPROF_OUTPUT=runs/app.p$p.r1/profile.cubex \
        run_mpi scale$p $p ./exact_scale
    if [ ! -s runs/app.p$p.r1/profile.cubex ]; then
        notok "exact Extra-P: runs" "P=$p wrote no profile: $(tail -n 3 scale$p.err | tr '\n' ' ' | cut -c1-300)"; finish
    fi
done
if ! PYTHONPATH=${EXTRAP_PYTHONPATH:-} timeout 300 "$PY" -m extrap.extrap.extrapcmd --cube --disable-progress runs \
    >extrap.out 2>extrap.err; then
    notok "exact Extra-P: model" "Extra-P failed: $(tail -n 3 extrap.err | tr '\n' ' ' | cut -c1-300)"; finish
fi
python3 - extrap.out <<'PYEOF' || N_FAILED=$((N_FAILED + 1))
import re, sys
path = metric = None
models = {}
for line in open(sys.argv[1]):
    m = re.match(r"Callpath: (.*)$", line.strip())
    if m:
        path = m.group(1)
        continue
    m = re.match(r"Metric: (\S+)", line.strip())
    if m:
        metric = m.group(1)
        continue
    m = re.match(r"Model: (.*)$", line.strip())
    if m and path and path.split("->")[-1] == "kernel" and metric == "visits":
        models[path] = m.group(1)
if len(models) != 1:
    print("not ok - exact Extra-P model: kernel's visits: %d models (%s)" % (len(models), models))
    sys.exit(1)
(path, text), = models.items()
expr = text.replace("^", "**")
if not re.fullmatch(r"[-+*/().\deE p]+", expr):
    print("not ok - exact Extra-P model: cannot read the model %r" % text)
    sys.exit(1)
bad = [(p, eval(expr, {"p": p})) for p in (1, 2, 3, 4, 5, 16) if abs(eval(expr, {"p": p}) - 10 * p) > 0.01 * 10 * p]
if bad:
    print("not ok - exact Extra-P model: %s's visits modelled %s, not 10 * p: %s" % (path, text, bad))
    sys.exit(1)
print("ok - exact Extra-P model: %s's visits modelled %s (10 * p)" % (path, text))
PYEOF
finish
