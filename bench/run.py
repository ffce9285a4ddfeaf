#!/usr/bin/env python3
"""make bench: hprof's overhead, measured side by side in one run.

Every comparison alternates its variants (A B C A B C ...) so that drifting
machine load hits all of them alike, repeats them, and prints the median and
the spread (min..max). Writes bench/RESULTS.md. A benchmark, not a test: it
prints and never fails because the machine is slow.

`bench/run.py million` runs section 6b alone (finalize at 1M call paths)
and replaces it in bench/RESULTS.md.

Environment: BENCH_RUNS (rounds, default 5), BENCH_MPI (openmpi), BENCH_ONLY
(a comma list of sections: percall, pollacc, thunks, unwind, threads, sample, python, papi,
dilation, snapshots, hpccfloor, hpccab, instrumentation, exact, finalize, million, and mergescale, which only
runs when named; the others keep their text in RESULTS.md, the header keeps its list of runs with
this one added first, and a section run keeps its old text below it as "The run before"), BENCH_POLL_MS (pollacc: ms a gap, 300), and for
sections 4-6: BENCH_DROPS_STEPS (60), BENCH_LAMMPS_STEPS (1500),
BENCH_INSTR_STEPS (5), BENCH_EXACT_STEPS (20), BENCH_SKIP_64=1 (no 64-rank finalize run). Section 6c (mergescale): BENCH_MERGE_P, BENCH_MERGE_K,
BENCH_MERGE_FLOOR_P (ranks of the floor table, 8,16,32,64) and BENCH_MERGE_BEFORE (a copy of build/
before a change: its library alternated with this one in the floor table). Section 4
installs Debian's lammps and lammps-examples, hpcc, quantum-espresso and
quantum-espresso-data with apt-get when missing (as root), and skips an
application when it cannot.
"""
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
OUT = os.path.join(BUILD, "bench")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
MPI = os.environ.get("BENCH_MPI", "openmpi")
LIB = os.path.join(BUILD, MPI, "libhprof.so")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl="self,vader", HPROF_OUTPUT=os.path.join(OUT, "bench.cubex"))

def sh(cmd, env=None):
    return subprocess.run(cmd, env=env or ENV, capture_output=True, text=True, check=True)

def build(name):
    exe = os.path.join(OUT, name)
    sh(["mpicc." + MPI, "-O2", "-g", os.path.join(ROOT, "bench", name + ".c"), "-o", exe])
    return exe

def run(exe, args, hprof=None):
    """One singleton run; hprof: None (no tool) or a dict of HPROF_ settings (an LD_PRELOAD
    there puts another library in hprof's place)."""
    env = dict(ENV)
    if hprof is not None:
        env["LD_PRELOAD"] = LIB
        env.update(hprof)
    r = sh([exe] + [str(a) for a in args], env)
    value = float(r.stdout.split()[1])
    m = re.search(r"(\d+) samples counted", r.stderr)
    h = re.search(r"in the handler per sample: median ([0-9.]+) us, mean ([0-9.]+) us", r.stderr)
    run.handler_us = float(h.group(1)) if h else 0.0       # median
    run.handler_mean_us = float(h.group(2)) if h else 0.0
    return value, int(m.group(1)) if m else 0

def side_by_side(variants, exe, args):
    """variants: [(label, hprof)], run alternately RUNS times; returns {label: [values]}."""
    results = {label: [] for label, _ in variants}
    samples = {label: [] for label, _ in variants}
    side_by_side.handler_us = []
    for _ in range(RUNS):
        for label, hprof in variants:
            v, s = run(exe, args, hprof)
            results[label].append(v)
            samples[label].append(s)
            if s:
                side_by_side.handler_us.append(run.handler_us)
    return results, samples

def fmt(values, unit):
    return "%.1f %s (%.1f..%.1f)" % (statistics.median(values), unit, min(values), max(values))

def batch_lines(out):
    """A bench program's "batch NS REF_NS" lines (bench/reference_loop.h): [(ns a call, reference ns)]."""
    return [(float(a), float(b)) for a, b in re.findall(r"(?m)^batch ([0-9.]+) ([0-9.]+)", out)]

def fast_medians(batches):
    """{label: [(ns, ref)]} -> ({label: median ns}, {label: batches kept}, best reference): the batches
    whose reference loop ran within 20% of its best (the 5th percentile of all batches: one odd batch
    is not the processor's speed), the processor at full speed."""
    refs = sorted(ref for v in batches.values() for _, ref in v)
    best = refs[len(refs) // 20]
    fast = {k: [ns for ns, ref in v if ref <= 1.2 * best] for k, v in batches.items()}
    return {k: statistics.median(v) if v else float("nan") for k, v in fast.items()}, fast, best

def per_call(exe, lines):
    lines.append("\n## 1. Per-call cost: MPI_Barrier(MPI_COMM_SELF), one rank\n")
    lines.append("Per call, the calling thread's CPU time (bench/callcost.c; on this shared machine the wall "
                 "clock also counts other processes' turns on the core). Calls repeated from one call site: "
                 "the path is known without a walk, and its node without a tree lookup (lib/measure.c). The "
                 "floor: the program itself reading the TSC before and after each call, no tool, measured with "
                 "each table; hprof's costs above no tool are also given in units of it, so that processors "
                 "whose clock reads cost differently compare (issue 42's targets: call paths at most 2x, "
                 "counting only 1.6x, three call sites in turn 3x). Each run makes its calls in %d batches, "
                 "each followed by a reference loop of the program's own (bench/reference_loop.h): this VM's "
                 "processor runs such code at two speeds, switching every few seconds, so the costs are also "
                 "given from the batches whose reference ran within 20%% of its best, the processor at full "
                 "speed (medians; the fewest batches any variant kept).\n" % CALL_BATCHES)
    per_call_table(exe, lines, "calls")
    lines.append("\nThe polling case: MPI_Test on a receive that never completes, in a loop (every call "
                 "completes nothing; with call paths every poll is counted and one in N is timed, a timed poll "
                 "about every 20 us of the loop (lib/polls/poll_run.h); counting only, `HPROF_NOUNWIND=all`, "
                 "each poll is timed alone: two reads):\n")
    per_call_table(exe, lines, "polls")
    per_call_mempolls(exe, lines)
    per_call_poll_step(exe, lines)
    lines.append("\nThree call sites of one function in turn (MPI_Barrier, MPI_Test, MPI_Iprobe completing "
                 "nothing), per call: the frame is unchanged, so each call site's node is known without a "
                 "walk (unwind_mpi_cached):\n")
    per_call_table(exe, lines, "sites")

CALL_BATCHES = 20

def callcost_batched(exe, args, hprof=None):
    """One run of callcost.c in CALL_BATCHES batches: (ns a call, [(batch ns a call, reference ns)])."""
    env = dict(ENV, CALLCOST_BATCHES=str(CALL_BATCHES))
    if hprof is not None:
        env["LD_PRELOAD"] = LIB
        env.update(hprof)
    out = sh([exe] + [str(a) for a in args], env).stdout
    return float(re.search(r"(?m)^ns_per_call ([0-9.]+)", out).group(1)), batch_lines(out)

def per_call_table(exe, lines, mode):
    """One of section 1's tables; every one has the floor (the program reading the TSC around each
    MPI_Barrier itself, no tool: what any tool that times every call costs at least) measured in the
    same rounds, and hprof's costs above no tool in units of it, so that processors whose clock reads
    cost differently compare (issue 42); also in the batches where the processor ran at full speed."""
    lines.append("| depth | no tool | no tool, two TSC reads around each call (the floor) | hprof, counting only "
                 "(HPROF_NOUNWIND=all) | hprof, call paths | call paths, no timeline (HPROF_TIME_BUCKETS=0) | "
                 "counting cost above no tool | call-path cost above no tool | of it the timeline | counting "
                 "cost / floor | call-path cost / floor | the same two at full speed (batches kept of each) | "
                 "load (1 min) |")
    lines.append("|---" * 13 + "|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    n = {"calls": 1000000, "polls": 2000000, "sites": 500000}[mode]
    for depth in (10, 50):
        variants = [("none", None, mode), ("count", dict(off, HPROF_NOUNWIND="all"), mode), ("paths", off, mode),
                    ("notl", dict(off, HPROF_TIME_BUCKETS="0"), mode), ("floor", None, "floor_calls")]
        r = {label: [] for label, _, _ in variants}
        batches = {label: [] for label, _, _ in variants}
        for _ in range(RUNS):
            for label, hprof, m in variants:
                v, b = callcost_batched(exe, [m, depth, n], hprof)
                r[label].append(v)
                batches[label] += b
        med = {k: statistics.median(v) for k, v in r.items()}
        extra, count, tl = med["paths"] - med["none"], med["count"] - med["none"], med["paths"] - med["notl"]
        fm, fast, _ = fast_medians(batches)
        kept = min(len(v) for v in fast.values())
        lines.append("| %d | %s | %s | %s | %s | %s | %.1f ns | %.1f ns | %.1f ns | %.2fx | %.2fx | %.2fx, %.2fx "
                     "(%d+ of %d) | %.1f |" % (
            depth, fmt(r["none"], "ns"), fmt(r["floor"], "ns"), fmt(r["count"], "ns"), fmt(r["paths"], "ns"),
            fmt(r["notl"], "ns"), count, extra, tl, count / med["floor"], extra / med["floor"],
            (fm["count"] - fm["none"]) / fm["floor"], (fm["paths"] - fm["none"]) / fm["floor"], kept,
            RUNS * CALL_BATCHES, os.getloadavg()[0]))

def per_call_mempolls(exe, lines):
    """hpcc's MPIRandomAccess loop: a poll, then a random update that misses the cache."""
    lines.append("\nA polling loop whose own work misses the cache (hpcc's MPIRandomAccess): MPI_Testany "
                 "completing nothing, then a random update of a 64 MiB table, per iteration. Without a tool the "
                 "core overlaps the misses of consecutive iterations; every instruction a tool adds, and above "
                 "all a time-stamp read (rdtsc waits for the loads before it), takes some of that overlap "
                 "away. Two floors: the program itself summing one rdtsc per poll (a tool that reads the clock "
                 "once a poll), and poll wrappers that only count and call PMPI (bench/interpose_floor.c: the "
                 "least any wrapper-based tool costs).\n")
    lines.append("| depth | no tool | no tool, one TSC read a poll | counting wrappers | hprof, one poll in N "
                 "timed | hprof, every poll timed alone (HPROF_POLL_STRIDE_US=0) | cost above no tool: one read a "
                 "poll | counting wrappers | one in N | alone | load (1 min) |")
    lines.append("|---" * 11 + "|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    counting = {"LD_PRELOAD": interpose_floor_so()}
    for depth in (10,):
        r, _ = side_by_side([("none", None), ("count", counting), ("paths", off),
                             ("alone", dict(off, HPROF_POLL_STRIDE_US="0"))], exe, ["mempolls", depth, 2000000])
        f, _ = side_by_side([("floor", None)], exe, ["floor_mempolls", depth, 2000000])
        med = lambda v: statistics.median(v) - statistics.median(r["none"])
        lines.append("| %d | %s | %s | %s | %s | %s | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f |" % (
            depth, fmt(r["none"], "ns"), fmt(f["floor"], "ns"), fmt(r["count"], "ns"), fmt(r["paths"], "ns"),
            fmt(r["alone"], "ns"), med(f["floor"]), med(r["count"]), med(r["paths"]), med(r["alone"]),
            os.getloadavg()[0]))

POLL_STEP_EXTRA = (0, 2, 4, 8, 16)

def per_call_poll_step(exe, lines):
    """Where the miss-bound loop's step lies: a wrapper that sees the poll's
    result, with K register adds more (bench/poll_step.c)."""
    lines.append("\nThe step of that loop (bench/poll_step.c): the least a poll wrapper that sees the poll's "
                 "result does (the PMPI call, then a count when it completed nothing), and the same with K "
                 "register adds before the call (no memory touched, nothing waits for them). Above no tool, "
                 "side by side:\n")
    lines.append("| depth | no tool | " + " | ".join("%d adds" % k for k in POLL_STEP_EXTRA) + " | load (1 min) |")
    lines.append("|---" * (len(POLL_STEP_EXTRA) + 3) + "|")
    variants = [("none", None)] + [("k%d" % k, {"LD_PRELOAD": poll_step_so(k)}) for k in POLL_STEP_EXTRA]
    r, _ = side_by_side(variants, exe, ["mempolls", 10, 2000000])
    base = statistics.median(r["none"])
    lines.append("| 10 | %s | %s | %.1f |" % (fmt(r["none"], "ns"), " | ".join(
        "+%.1f ns" % (statistics.median(r["k%d" % k]) - base) for k in POLL_STEP_EXTRA), os.getloadavg()[0]))

POLL_GAPS = (0, 200, 500, 1000, 5000, 50000, 1000000)

def poll_gaps_run(exe, mpi, hz, ms):
    """One run of tests/mpi/polls/poll_gaps.c under hprof:
    {gap: (polls, truth s, truth's error s, hprof s, polling blocks' wall s, truth ns a poll)}."""
    prof = os.path.join(OUT, "poll_gaps.cubex")
    if os.path.exists(prof):
        os.remove(prof)
    _, out, _ = mpi_job(1, [exe, ms, 0.05] + list(POLL_GAPS), {"HPROF_SAMPLING_HZ": str(hz), "HPROF_OUTPUT": prof},
                        mpi=mpi)
    csv_text = sh([os.path.join(BUILD, "tools", "hprof-view"), "--csv", prof]).stdout
    hprof = {}
    for row in csv_text.splitlines()[1:]:
        f = row.split(",")
        parts = f[0].split(";")
        if len(f) >= 6 and f[3] == "mpi_time" and parts[-1] == "MPI_Test" and parts[-2].startswith("case_"):
            g = int(parts[-2][5:])
            hprof[g] = hprof.get(g, 0.0) + float(f[4])
    res = {}
    for m in re.finditer(r"(?m)^case (\d+) polls (\d+) truth_mpi_s ([-0-9.]+) poll_ns ([-0-9.]+) error_ns ([0-9.]+) "
                         r"wall_s [0-9.]+ polling_s ([0-9.]+)", out):
        g, polls, truth = int(m.group(1)), int(m.group(2)), float(m.group(3))
        poll_ns, error_ns = float(m.group(4)), float(m.group(5))
        error = truth * error_ns / poll_ns if poll_ns > 0 else 0.0
        res[g] = (polls, truth, error, hprof.get(g, 0.0), float(m.group(6)), poll_ns)
    return res

def poll_accuracy(lines):
    """1d: polling loops' MPI time against the program's own clock (tests/mpi/polls/poll_gaps.c)."""
    ms = int(os.environ.get("BENCH_POLL_MS", "300"))
    lines.append("\n## 1d. Polling loops: MPI time against the program's own clock, one rank\n")
    lines.append("tests/mpi/polls/poll_gaps.c: a loop of MPI_Test completing nothing with G ns of computation "
                 "between polls, %d ms a gap, under hprof (one poll in N timed, lib/polls/poll_run.h). The "
                 "program times every poll itself (t0, t1 around MPI_Test: the time in the call). Truth: the sum "
                 "of t1 - t0 less its clock's part, measured in the same loop around an empty function in blocks "
                 "of ~20 us alternated with the polling ones (the state the polls are in, the speed this VM runs "
                 "at), pairs of blocks where the thread was descheduled left out, and the time it was off the CPU "
                 "given to the polls as their share of its time on it. Per cell: hprof's MPI time against the "
                 "truth, median (min..max) over %d runs; the truth a poll (ns, median) and its own uncertainty "
                 "(the standard error of the pairs' mean, median over the runs). Goal: within 5%% plus 1 ms a "
                 "second of the polling loop.\n" % (ms, RUNS))
    cols, results = [], {}
    for mpi in ("openmpi", "mpich"):
        if not os.path.exists(os.path.join(BUILD, mpi, "libhprof.so")):
            continue
        exe = os.path.join(OUT, "poll_gaps." + mpi)
        sh(["mpicc." + mpi, "-O2", "-g", os.path.join(ROOT, "tests", "mpi", "polls", "poll_gaps.c"), "-o", exe])
        for hz in (0, 100):
            label = "%s, %s" % ("Open MPI" if mpi == "openmpi" else "MPICH", "sampling off" if hz == 0 else "100 Hz")
            print("bench: poll accuracy, " + label, flush=True)
            cols.append(label)
            results[label] = [poll_gaps_run(exe, mpi, hz, ms) for _ in range(RUNS)]
    lines.append("| gap | " + " | ".join(cols) + " |")
    lines.append("|---" * (len(cols) + 1) + "|")
    met, cells_n = 0, 0
    for g in POLL_GAPS:
        cells = []
        for label in cols:
            rs = [r[g] for r in results[label] if g in r and r[g][1] > 0]
            if not rs:
                cells.append("-")
                continue
            errs = [100.0 * (r[3] / r[1] - 1.0) for r in rs]
            med = statistics.median(errs)
            truth = statistics.median([r[1] for r in rs])
            allowed = 5.0 + 100.0 * 0.001 * statistics.median([r[4] for r in rs]) / truth
            cells_n += 1
            met += abs(med) <= allowed
            cells.append("%+.0f%% (%+.0f..%+.0f)%s; %.1f ns +- %.1f%%" % (
                med, min(errs), max(errs), "" if abs(med) <= allowed else " *",
                statistics.median([r[5] for r in rs]), statistics.median([100.0 * r[2] / r[1] for r in rs])))
        name = "%d ns" % g if g < 1000 else "%d us" % (g // 1000) if g < 1000000 else "1 ms"
        lines.append("| %s | %s |" % (name, " | ".join(cells)))
    lines.append("\n%d of %d cells within the goal by their median (*: not; the goal in points is 5%% plus 1 ms a "
                 "second of the polling blocks over the truth). Load (1 min) at the end: %.1f on %d cores."
                 % (met, cells_n, os.getloadavg()[0], os.cpu_count()))

def per_call_threads(exe, lines):
    lines.append("\n## Per-call cost with concurrent threads (MPI_THREAD_MULTIPLE), depth 10\n")
    lines.append("Each thread's CPU time per MPI_Barrier(MPI_COMM_SELF), median over threads: it must not grow "
                 "with the number of threads (no shared cache line written on the hot path).\n")
    lines.append("| threads | no tool | hprof, call paths | hprof cost per call |")
    lines.append("|---|---|---|---|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    for threads in (1, 4):
        r, _ = side_by_side([("none", None), ("paths", off)], exe, ["threads", 10, 200000, threads])
        lines.append("| %d | %s | %s | %.1f ns |" % (threads, fmt(r["none"], "ns"), fmt(r["paths"], "ns"),
                                                   statistics.median(r["paths"]) - statistics.median(r["none"])))

def sample_costs(exe, depth, extra=None):
    """Run time of the spin at depth with hprof sampling off, at 1000 Hz, and
    under an empty handler on the same timer (the signal's own cost, the
    floor of any sampler), alternated. Returns a dict of the medians."""
    extra = extra or {}
    variants = [("off", dict(extra, HPROF_SAMPLING_HZ="0")),
                ("on", dict(extra, HPROF_SAMPLING_HZ="1000", HPROF_VERBOSE="1")),
                ("floor", None)]
    results = {label: [] for label, _ in variants}
    counts = {label: [] for label, _ in variants}
    handler = []
    for _ in range(RUNS):
        for label, hprof in variants:
            args = ["floor", depth, 300000000, 1000] if label == "floor" else ["spin", depth, 300000000]
            v, n = run(exe, args, hprof)
            results[label].append(v)
            counts[label].append(n)
            if label == "on":
                handler.append(run.handler_us)
    med = {k: statistics.median(v) for k, v in results.items()}
    n_on = max(statistics.median(counts["on"]), 1)
    n_floor = max(statistics.median(counts["floor"]), 1)
    cost = (med["on"] - med["off"]) / n_on
    floor = (med["floor"] - med["off"]) / n_floor
    return {"results": results, "samples": n_on, "cost": cost, "floor": floor, "handler": handler}

def per_sample(exe, lines):
    lines.append("\n## 2. Per-sample cost (signal delivery, unwind, tree update), one rank\n")
    lines.append("Fixed arithmetic at the given depth under hprof: sampling off vs 1000 Hz; and, without hprof, "
                 "the same timer (CLOCK_MONOTONIC, SIGPROF to the thread) with a handler that only counts: "
                 "what the signal itself costs on this machine (timer interrupt, delivery, sigreturn), the floor "
                 "of any signal-based sampler. Cost per sample from the run-time differences; the time inside "
                 "hprof's handler (unwind + tree update) is the median over the run's samples.\n")
    lines.append("| depth | run time, sampling off | run time, 1000 Hz | samples | cost per sample | signal alone (empty handler) | hprof above the signal | in the handler (median) |")
    lines.append("|---|---|---|---|---|---|---|---|")
    costs = {}
    for depth in (10, 50):
        c = sample_costs(exe, depth)
        costs[depth] = c
        lines.append("| %d | %s | %s | %d | %.2f us | %.2f us | %.2f us | %s |" % (
            depth, fmt([v * 1e3 for v in c["results"]["off"]], "ms"), fmt([v * 1e3 for v in c["results"]["on"]], "ms"),
            c["samples"], c["cost"] * 1e6, c["floor"] * 1e6, (c["cost"] - c["floor"]) * 1e6, fmt(c["handler"], "us")))
    lines.append("\nAt 100 Hz (goal: the whole sampling machinery under 0.1%% of run time): all of it %.3f%% at "
                 "depth 10 and %.3f%% at depth 50; the signal alone %.3f%% / %.3f%%; hprof above the signal "
                 "%.3f%% / %.3f%%." % tuple(v for pair in (
                     (costs[10]["cost"] * 1e4, costs[50]["cost"] * 1e4),
                     (costs[10]["floor"] * 1e4, costs[50]["floor"] * 1e4),
                     ((costs[10]["cost"] - costs[10]["floor"]) * 1e4, (costs[50]["cost"] - costs[50]["floor"]) * 1e4))
                     for v in pair))

# ---- Python frames (issue 30) ----------------------------------------------------

def python_job(depth, work, hprof):
    def job():
        _, out, err = mpi_job(1, ["/usr/bin/python3", os.path.join(ROOT, "bench", "pydepth.py"), depth, work],
                              hprof, mpi="openmpi")
        d = {"work": float(re.search(r"work ([0-9.]+)", out).group(1))}
        handler_stats(d, err)
        return d
    return job

def per_sample_python(lines):
    lines.append("\n## 2b. Per-sample cost with Python frames, one rank (Open MPI, Debian's python3)\n")
    lines.append("bench/pydepth.py: pure-Python work at the bottom of a recursion of the given depth, its CPU time "
                 "as its thread measures it (the handler's included): sampling off, 1000 Hz with "
                 "HPROF_PYTHON=0 (the interpreter's C frames) and with Python frames named. Cost per sample: "
                 "the fastest run's CPU time above the fastest with sampling off, over its samples (the fastest: "
                 "the one the machine's load hit least).\n")
    lines.append("| depth | work, sampling off | 1000 Hz, C frames | 1000 Hz, Python frames | samples | "
                 "per sample, C frames | per sample, Python frames |")
    lines.append("|---|---|---|---|---|---|---|")
    for depth in (10, 100, 400):
        res = alternate([("off", python_job(depth, 20000000, {"HPROF_SAMPLING_HZ": "0"})),
                         ("c", python_job(depth, 20000000, {"HPROF_SAMPLING_HZ": "1000", "HPROF_PYTHON": "0",
                                                             "HPROF_VERBOSE": "1"})),
                         ("py", python_job(depth, 20000000, {"HPROF_SAMPLING_HZ": "1000", "HPROF_VERBOSE": "1"}))])
        off = min(col(res, "off", "work"))
        fastest = {k: min(res[k], key=lambda d: d["work"]) for k in ("c", "py")}
        per = {k: (d["work"] - off) / max(d.get("samples", 0), 1) * 1e6 for k, d in fastest.items()}
        lines.append("| %d | %s | %s | %s | %d | %.1f us | %.1f us |" % (
            depth, fmt_s(col(res, "off", "work")), fmt_s(col(res, "c", "work")), fmt_s(col(res, "py", "work")),
            statistics.median([d.get("samples", 0) for d in res["py"]]), per["c"], per["py"]))

# ---- PAPI counters (issue 6) ------------------------------------------------------

def papi_cost(lines):
    """Cost of HPROF_METRICS: two PAPI_read per MPI call, one per sample; with
    PAPI Software Defined Events, the counters these machines have."""
    lines.append("\n## 3. PAPI counters (HPROF_METRICS): reading SDE counters, one rank\n")
    exe = os.path.join(OUT, "papi_cost")
    try:
        sh(["mpicc." + MPI, "-O2", "-g", os.path.join(ROOT, "bench", "papi_cost.c"), "-o", exe, "-lsde"])
    except subprocess.CalledProcessError:
        lines.append("Skipped: bench/papi_cost.c needs libsde (Debian: libpapi-dev).")
        return
    if "libpapi" not in sh(["ldd", LIB]).stdout:
        lines.append("Skipped: %s was built without PAPI (install libpapi-dev, `make clean all`)." % LIB)
        return
    events = lambda n: ",".join("sde:::hprofbench::C%d" % i for i in range(n))
    lines.append("MPI_Barrier(MPI_COMM_SELF) at depth 10, sampling off; each call reads the counters at "
                 "its entry and its end. Cost above hprof without HPROF_METRICS.\n")
    lines.append("| events | hprof, no events | hprof with the events | cost per call |")
    lines.append("|---|---|---|---|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    variants = [("0", off)] + [(str(n), dict(off, HPROF_METRICS=events(n))) for n in (1, 4, 8)]
    r, _ = side_by_side(variants, exe, ["calls", 200000])
    base = statistics.median(r["0"])
    for n in (1, 4, 8):
        lines.append("| %d | %s | %s | %.1f ns |" % (n, fmt(r["0"], "ns"), fmt(r[str(n)], "ns"),
                                                  statistics.median(r[str(n)]) - base))
    lines.append("\nPer sample (1000 Hz, fixed arithmetic at depth 10): time inside the handler, which "
                 "reads the counters once per counted sample.\n")
    lines.append("| events | in the handler |")
    lines.append("|---|---|")
    on = {"HPROF_SAMPLING_HZ": "1000", "HPROF_VERBOSE": "1"}
    handler = {n: [] for n in (0, 4)}
    for _ in range(RUNS):
        for n in (0, 4):
            run(exe, ["spin", 200000000], dict(on, HPROF_METRICS=events(n)) if n else on)
            handler[n].append(run.handler_us)
    for n in (0, 4):
        lines.append("| %d | %s |" % (n, fmt(handler[n], "us")))
# ---- issue 4: call-path capture ------------------------------------------------------

def unwind_speed(exe, lines):
    """Per wrapped call at depth 10 and 50: no tool, hprof with thunks, with
    cached recipes only (HPROF_THUNKS=0), and with plain libunwind
    (HPROFTEST_UNWIND=libunwind, unw_backtrace + a full tree path per call);
    and one sample at depth 50 (1000 Hz, thunks on)."""
    lines.append("\n## 1c. Call-path capture: thunks, cached recipes, plain libunwind (issue 4)\n")
    lines.append("MPI_Barrier(MPI_COMM_SELF) in a loop, one rank, sampling off. Goal: at most 100 ns above "
                 "no tool at depth 10, 150 ns at depth 50 (with thunks).\n")
    lines.append("| depth | no tool | thunks | above no tool | recipes, no thunks (HPROF_THUNKS=0) | plain libunwind |")
    lines.append("|---|---|---|---|---|---|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    for depth in (10, 50):
        variants = [("none", None), ("thunks", dict(off, HPROF_THUNKS="1")),
                    ("recipes", dict(off, HPROF_THUNKS="0")),
                    ("libunwind", dict(off, HPROFTEST_UNWIND="libunwind"))]
        r, _ = side_by_side(variants, exe, [mode, depth, {"calls": 200000, "polls": 2000000, "sites": 500000}[mode]])
        lines.append("| %d | %s | %s | %.1f ns | %s | %s |" % (
            depth, fmt(r["none"], "ns"), fmt(r["thunks"], "ns"),
            statistics.median(r["thunks"]) - statistics.median(r["none"]),
            fmt(r["recipes"], "ns"), fmt(r["libunwind"], "ns")))
    lines.append("\nOne sample at depth 50 (goal: under 2 us including signal delivery): run time at 1000 Hz "
                 "minus run time without sampling, per sample; the same for an empty handler on the same timer "
                 "without hprof (the signal alone, section 2); and the median time inside hprof's handler.\n")
    lines.append("| variant | cost per sample (run time) | signal alone | hprof above the signal | in the handler (median) |")
    lines.append("|---|---|---|---|---|")
    for label, extra in (("thunks", {"HPROF_THUNKS": "1"}), ("recipes, no thunks", {"HPROF_THUNKS": "0"}),
                         ("plain libunwind", {"HPROFTEST_UNWIND": "libunwind"})):
        c = sample_costs(exe, 50, extra)
        lines.append("| %s | %.2f us | %.2f us | %.2f us | %s |" % (label, c["cost"] * 1e6, c["floor"] * 1e6,
                                                              (c["cost"] - c["floor"]) * 1e6, fmt(c["handler"], "us")))

# ---- issue 8: thunks, dilation on real applications, compiler instrumentation,
# ---- finalize cost ----------------------------------------------------------------

EXAMPLES = os.path.join(ROOT, "examples")
WROTE = re.compile(r"hprof: wrote (.*) \((\d+) bytes, (\d+) call paths, (\d+) ranks\) merge\+write ([0-9.]+) s")

def thunks(exe, lines):
    lines.append("\n## 1b. Per-call cost with and without the thunk stack (HPROF_THUNKS)\n")
    lines.append("| depth | hprof, call paths, thunks on | thunks off | thunks save |")
    lines.append("|---|---|---|---|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    for depth in (10, 50):
        r, _ = side_by_side([("on", dict(off, HPROF_THUNKS="1")), ("off", dict(off, HPROF_THUNKS="0"))],
                            exe, ["calls", depth, 200000])
        lines.append("| %d | %s | %s | %.1f ns |" % (depth, fmt(r["on"], "ns"), fmt(r["off"], "ns"),
                                                   statistics.median(r["off"]) - statistics.median(r["on"])))

def mpi_job(np_, argv, hprof=None, mpi=MPI, env_extra=None, timeout=900, cwd=None, preload=None):
    """One mpirun of argv on np_ ranks in OUT; hprof: None (no tool) or a dict
    of HPROF_ settings (libhprof.so of that MPI preloaded in the ranks only);
    preload: another library to preload instead.
    Returns (elapsed seconds of the whole mpirun, stdout, stderr)."""
    env = dict(ENV, HYDRA_LAUNCHER="fork")
    env.pop("LD_PRELOAD", None)
    env.update(env_extra or {})
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-np", str(np_)]
    else:
        cmd = ["mpirun.mpich", "-np", str(np_)]
    if hprof is not None or preload:
        lib = preload or os.path.join(BUILD, mpi, "libhprof.so")
        cmd += ["-x", "LD_PRELOAD=" + lib] if mpi == "openmpi" else ["-genv", "LD_PRELOAD", lib]
        env.update(hprof or {})
    for attempt in (1, 2):   # one retry: a shared machine, libhprof.so may be relinked under us
        t = time.monotonic()
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = subprocess.run(cmd + [str(a) for a in argv], env=env, cwd=cwd or OUT, capture_output=True, text=True,
                           timeout=timeout)
        elapsed = time.monotonic() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU time of the job's processes (the ranks): less hit by the machine's load than the wall clock
        mpi_job.cpu = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
        if r.returncode == 0:
            return elapsed, r.stdout, r.stderr
        why = "%s exited %d: %s" % (" ".join(cmd + [str(a) for a in argv]), r.returncode,
                                    " ".join((r.stderr or r.stdout).split())[:300])
        print("bench: " + why + ("; trying once more" if attempt == 1 else ""), flush=True)
        time.sleep(3)
    raise RuntimeError(why)

def guarded(section, lines):
    """Runs one of the sections below; a failure is printed in RESULTS.md and
    the other sections go on (a benchmark, not a test)."""
    try:
        section(lines)
    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
        lines.append("\n%s: failed: %s" % (section.__name__, " ".join(str(e).split())[:500]))
        print("bench: %s failed: %s" % (section.__name__, e), flush=True)

def alternate(variants):
    """variants: [(label, job)], job() -> dict of values; RUNS rounds, the
    variants alternating in each. Returns {label: [dict per round]}."""
    out = {label: [] for label, _ in variants}
    for _ in range(RUNS):
        for label, job in variants:
            d = job()
            d["load"] = os.getloadavg()[0]  # the machine is shared: each figure with its load
            out[label].append(d)
    return out

def col(results, label, key):
    return [d[key] for d in results[label]]

def paired(results, label, base, key):
    """per round: label's value over base's of the same round, as % above."""
    return [100.0 * (a[key] / b[key] - 1.0) for a, b in zip(results[label], results[base])]

T95 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}

def fmt_pct(values):
    """median (min..max), and the mean with its 95% confidence interval (Student's t)."""
    text = "%+.2f%% (%+.2f..%+.2f)" % (statistics.median(values), min(values), max(values))
    n = len(values)
    if n >= 2:
        half = T95.get(n, 2.0) * statistics.stdev(values) / n ** 0.5
        text += "; mean %+.2f%% +- %.2f" % (statistics.mean(values), half)
    return text

def fmt_s(values):
    return "%.3f s (%.3f..%.3f)" % (statistics.median(values), min(values), max(values))

def build_drops(name="drops_mini", extra=()):
    exe = os.path.join(OUT, name)
    sh(["mpicxx." + MPI, "-g", "-O2"] + list(extra) + [os.path.join(EXAMPLES, "drops", "drops_mini.cpp"),
                                                        "-o", exe])
    return exe

def drops_job(exe, args, hprof=None, env_extra=None, np_=2):
    def job():
        el, out, err = mpi_job(np_, [exe] + list(args), hprof, env_extra=env_extra)
        m = re.search(r"time ([0-9.]+) s", out)
        if not m:
            raise RuntimeError("drops_mini printed no time: %s" % out[-300:])
        d = {"app": float(m.group(1)), "wall": el}
        m = re.search(r"cygprof: (\d+) call paths, (\d+) function entries", err)
        if m:
            d["paths"], d["entries"] = int(m.group(1)), int(m.group(2))
        m = WROTE.search(err)
        if m:
            d["paths"] = int(m.group(3))
        handler_stats(d, err)
        return d
    return job

def ensure_lammps():
    """Debian's lammps (Open MPI) and its examples; installed with apt-get when
    missing and running as root. Returns (lmp, in.melt) or a reason string."""
    melt = "/usr/share/lammps/examples/melt/in.melt"
    lmp = shutil.which("lmp")
    if not (lmp and os.path.exists(melt)):
        if os.geteuid() != 0:
            return "lammps and lammps-examples are not installed (apt-get install lammps lammps-examples, as root)"
        print("bench: installing Debian packages lammps lammps-examples", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        r = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "lammps", "lammps-examples"],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            r = subprocess.run(["sh", "-c", "apt-get update && apt-get install -y --no-install-recommends "
                                "lammps lammps-examples"], env=env, capture_output=True, text=True)
        lmp = shutil.which("lmp")
        if r.returncode != 0 or not lmp or not os.path.exists(melt):
            return "could not install lammps lammps-examples: %s" % (r.stderr.strip().splitlines() or ["?"])[-1]
    return lmp, melt

def lammps_job(lmp, inp, hprof=None):
    def job():
        el, out, err = mpi_job(2, [lmp, "-in", inp, "-log", "none"], hprof, mpi="openmpi")
        m = re.search(r"Loop time of ([0-9.]+) on", out)
        if not m:
            raise RuntimeError("lmp printed no 'Loop time': %s" % out[-300:])
        d = {"app": float(m.group(1)), "wall": el}
        handler_stats(d, err)
        return d
    return job

DIL_VARIANTS = (("0", "hprof, sampling off"), ("100", "hprof 100 Hz"), ("1000", "hprof 1000 Hz"))
DIL_SHORT = {"0": "sampling off", "100": "100 Hz", "1000": "1000 Hz"}
HANDLER = re.compile(r"hprof: thread 0: window [0-9.]+ s, (\d+) samples counted, (\d+) in MPI.*?"
                     r"in the handler per sample: median ([0-9.]+) us, mean ([0-9.]+) us")

def handler_stats(d, err):
    """rank 0's sampler line (HPROF_VERBOSE=1) into d."""
    m = HANDLER.search(err)
    if m:
        d["samples"], d["in_mpi"] = int(m.group(1)), int(m.group(2))
        d["handler_us"], d["handler_mean_us"] = float(m.group(3)), float(m.group(4))

def dilation_variants(make_job):
    """make_job(hprof or None) -> job; the no-tool run and the hprof variants, alternated."""
    return alternate([("none", make_job(None))] +
                     [(hz, make_job({"HPROF_SAMPLING_HZ": hz, "HPROF_VERBOSE": "1"})) for hz, _ in DIL_VARIANTS])

def dilation_rows(lines, name, results, what, keys=(("app", ""), ("wall", ", whole mpirun"))):
    loads = [d["load"] for v in results.values() for d in v if "load" in d]
    if loads:
        name += " [load %.1f (%.1f..%.1f)]" % (statistics.median(loads), min(loads), max(loads))
    for key, suffix in keys:
        label = name + suffix
        lines.append("| %s | %s | %s | %s |" % (
            label, fmt_s(col(results, "none", key)),
            " | ".join(fmt_s(col(results, hz, key)) for hz, _ in DIL_VARIANTS),
            " | ".join(fmt_pct(paired(results, hz, "none", key)) for hz, _ in DIL_VARIANTS)))
    dilation_rows.headline[what] = statistics.median(paired(results, "100", "none", "app"))
    for hz in ("100", "1000"):   # sampling's own cost: against sampling off, same round
        dilation_rows.sampling.append("| %s | %s | %s |" % (name, DIL_SHORT[hz], fmt_pct(paired(results, hz, "0", "app"))))
    for hz in ("100", "1000"):
        v = [d for d in results[hz] if "handler_us" in d]
        if v:
            dilation_rows.handler.append("| %s | %s | %d | %d | %s | %.1f ms |" % (
                name, DIL_SHORT[hz], statistics.median([d["samples"] for d in v]),
                statistics.median([d["in_mpi"] for d in v]), fmt([d["handler_us"] for d in v], "us"),
                statistics.median([d["samples"] * d["handler_mean_us"] / 1000.0 for d in v])))
dilation_rows.handler = []
dilation_rows.sampling = []
dilation_rows.headline = {}

def dilation(lines):
    print("bench: dilation on drops_mini and LAMMPS", flush=True)
    dilation_rows.handler = []
    dilation_rows.sampling = []
    try:
        dilation_apps(lines)
        dilation_heldout(lines)
    finally:
        if dilation_rows.sampling:
            lines.append("\nSampling's own cost: each application's own time at 100 Hz and at 1000 Hz against "
                         "hprof with sampling off in the same round (the wrappers' cost is in both): median "
                         "(min..max), and the mean with its 95% confidence interval. Goal: under 1% at 100 Hz.\n")
            lines.append("| application | rate | above sampling off |")
            lines.append("|---|---|---|")
            lines.extend(dilation_rows.sampling)
        if dilation_rows.handler:
            lines.append("\nThe sampler on rank 0 (HPROF_VERBOSE=1): samples counted and samples that landed in "
                         "MPI (medians over the rounds), the median time per sample inside the signal handler "
                         "(unwind and tree update), and the handler's total (mean time times samples).\n")
            lines.append("| application | rate | samples counted | in MPI | in the handler per sample (median) | handler total |")
            lines.append("|---|---|---|---|---|---|")
            lines.extend(dilation_rows.handler)

def dilation_apps(lines):
    steps = os.environ.get("BENCH_DROPS_STEPS", "60")
    lsteps = os.environ.get("BENCH_LAMMPS_STEPS", "1500")
    lines.append("\n## 4. Dilation on real applications, 2 ranks\n")
    lines.append("Run time without a tool, and under hprof (call paths; sampling off, at 100 Hz and at "
                 "1000 Hz, wall clock), the variants alternated. Sampling off isolates the cost of the MPI "
                 "wrappers and of start-up. The first row of each application is the time the "
                 "application reports itself (drops_mini: MPI_Init to MPI_Finalize; LAMMPS: its 'Loop time'); "
                 "the second is the whole mpirun: start-up, hprof's merge and write at MPI_Finalize included. "
                 "Dilation: per round, the hprof run against the no-tool run of the same round; median "
                 "(min..max) over the rounds. Goal: under 1% at 100 Hz.\n")
    lines.append("| application | no tool | %s | %s |" % (" | ".join(l for _, l in DIL_VARIANTS),
                                                   " | ".join("dilation, " + DIL_SHORT[hz] for hz, _ in DIL_VARIANTS)))
    lines.append("|---" * (2 + 2 * len(DIL_VARIANTS)) + "|")
    exe = build_drops()
    args = [steps, 16]
    r = dilation_variants(lambda hprof: drops_job(exe, args, hprof))
    dilation_rows(lines, "drops_mini %s 16 (examples/drops)" % steps, r, "drops")
    found = ensure_lammps()
    if isinstance(found, str):
        print("bench: LAMMPS skipped: " + found, flush=True)
        lines.append("| LAMMPS melt | skipped: %s |" % found + " |" * (2 * len(DIL_VARIANTS)))
        return
    lmp, melt = found
    if not os.path.exists(os.path.join(BUILD, "openmpi", "libhprof.so")):
        lines.append("| LAMMPS melt | skipped: Debian's LAMMPS uses Open MPI, build/openmpi is not built |" +
                     " |" * (2 * len(DIL_VARIANTS)))
        return
    inp = os.path.join(OUT, "in.melt")
    with open(melt) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^run\s+\d+", "run\t\t%s" % lsteps, text)
    with open(inp, "w") as f:
        f.write(text)
    r = dilation_variants(lambda hprof: lammps_job(lmp, inp, hprof))
    dilation_rows(lines, "LAMMPS melt, %s steps (Debian lammps %s)" % (lsteps, lammps_version()), r, "lammps")

SNAP_EVERY = 2.0   # dense enough that each run holds several snapshots

def snapshot_job(argv, every, parse, mpi=MPI, np_=4):
    """One job under hprof-run; every `every` seconds (0: never) the bench
    itself runs hprof-snapshot on it and times it. Returns the app's own
    time, the whole run's, the snapshots taken and their latencies."""
    def job():
        cwd = os.path.join(OUT, "snapshots")
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        env = dict(ENV, HYDRA_LAUNCHER="fork", HPROF_BUILD=BUILD, HPROF_OUTPUT=os.path.join(cwd, "job.cubex"),
                   HPROF_SAMPLING_HZ="100")
        env.pop("LD_PRELOAD", None)
        launcher = ["mpirun.openmpi", "--oversubscribe"] if mpi == "openmpi" else ["mpirun.mpich"]
        cmd = [os.path.join(ROOT, "tools", "hprof-run")] + launcher + ["-np", str(np_)] + [str(a) for a in argv]
        t = time.monotonic()
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        latency, due = [], t + every
        while every and p.poll() is None:
            time.sleep(0.05)
            if p.poll() is None and time.monotonic() >= due:
                s0 = time.monotonic()
                r = subprocess.run([os.path.join(ROOT, "tools", "hprof-snapshot"), str(p.pid)], env=env, cwd=cwd,
                                   capture_output=True, text=True, timeout=120)
                if r.returncode == 0:
                    latency.append(time.monotonic() - s0)
                due = time.monotonic() + every
        out, err = p.communicate(timeout=900)
        wall = time.monotonic() - t
        if p.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode, " ".join(err.split())[-300:]))
        return {"app": parse(out), "wall": wall, "snaps": len(latency),
                "latency": statistics.median(latency) if latency else 0.0}
    return job

def drops_time(out):
    m = re.search(r"time ([0-9.]+) s", out)
    if not m:
        raise RuntimeError("drops_mini printed no time: %s" % out[-300:])
    return float(m.group(1))

def lammps_time(out):
    m = re.search(r"Loop time of ([0-9.]+) on", out)
    if not m:
        raise RuntimeError("lmp printed no 'Loop time': %s" % out[-300:])
    return float(m.group(1))

def snapshot_rows(lines, name, r):
    """One row: the app's time without and with snapshots, what one costs,
    and that cost spread over 10 s and 60 s."""
    per = [(b["app"] - a["app"]) / b["snaps"] for a, b in zip(r["none"], r["snap"]) if b["snaps"]]
    nsnaps = [d["snaps"] for d in r["snap"]]
    lat = [d["latency"] for d in r["snap"] if d["snaps"]]
    if not per:
        lines.append("| %s | %s | no snapshot was taken | | | | |" % (name, fmt_s(col(r, "none", "app"))))
        return
    cost = statistics.median(per)
    base = statistics.median(col(r, "none", "app"))
    lines.append("| %s | %s | %s, %d snapshots | %s | %+.3f s | %+.2f%% | %+.2f%% |" % (
        name, fmt_s(col(r, "none", "app")), fmt_s(col(r, "snap", "app")), statistics.median(nsnaps),
        fmt_s(lat), cost, 100.0 * cost / 10.0, 100.0 * cost / 60.0))
    snapshot_rows.costs.append((name, cost, base))
snapshot_rows.costs = []

def snapshots(lines):
    """Section 4c: what hprof-snapshot costs a running job (issue 37)."""
    print("bench: snapshots of running jobs, drops_mini and LAMMPS, 4 ranks", flush=True)
    steps = os.environ.get("BENCH_DROPS_STEPS", "60")
    lsteps = os.environ.get("BENCH_LAMMPS_STEPS", "1500")
    lines.append("\n## 4c. Snapshots of running jobs (hprof-snapshot), 4 ranks\n")
    lines.append("Each application under hprof-run (100 Hz), without snapshots and with one every %.0f s "
                 "(hprof-snapshot, called by the bench, timed), the two alternated. A snapshot's cost is the "
                 "application's own time with snapshots minus without, in the same round, over the snapshots "
                 "taken (median over rounds); spread over 10 s and over 60 s it is the dilation of "
                 "`HPROF_SNAPSHOT_EVERY=10` and `=60`, which a run of this length would not show at all "
                 "(a snapshot every 60 s in a 20 s run is none). Latency: hprof-snapshot's own time, asking to "
                 "merged file. Goal: under 1%% of the run.\n" % SNAP_EVERY)
    lines.append("| application | no snapshots | every %.0f s | latency | cost of one | every 10 s | every 60 s |"
                 % SNAP_EVERY)
    lines.append("|---|---|---|---|---|---|---|")
    exe = build_drops()
    r = alternate([("none", snapshot_job([exe, steps, 16], 0, drops_time)),
                   ("snap", snapshot_job([exe, steps, 16], SNAP_EVERY, drops_time))])
    snapshot_rows(lines, "drops_mini %s 16" % steps, r)
    found = ensure_lammps()
    if isinstance(found, str):
        lines.append("| LAMMPS melt | skipped: %s | | | | | |" % found)
        return
    lmp, melt = found
    inp = os.path.join(OUT, "in.melt.snap")
    with open(melt) as f:
        text = re.sub(r"(?m)^run\s+\d+", "run\t\t%s" % lsteps, f.read())
    with open(inp, "w") as f:
        f.write(text)
    argv = [lmp, "-in", inp, "-log", "none"]
    r = alternate([("none", snapshot_job(argv, 0, lammps_time, mpi="openmpi")),
                   ("snap", snapshot_job(argv, SNAP_EVERY, lammps_time, mpi="openmpi"))])
    snapshot_rows(lines, "LAMMPS melt, %s steps" % lsteps, r)

def ensure_debian(pkgs, files):
    """Debian packages that a benchmark needs, installed with apt-get when
    missing and running as root. Returns None, or the reason they are missing."""
    if all(os.path.exists(f) for f in files):
        return None
    if os.geteuid() != 0:
        return "%s not installed (apt-get install %s, as root)" % (" ".join(pkgs), " ".join(pkgs))
    print("bench: installing Debian packages " + " ".join(pkgs), flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = "apt-get install -y --no-install-recommends " + " ".join(pkgs)
    r = subprocess.run(["sh", "-c", cmd + " || (apt-get update && " + cmd + ")"], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0 or not all(os.path.exists(f) for f in files):
        return "could not install %s: %s" % (" ".join(pkgs), (r.stderr.strip().splitlines() or ["?"])[-1])
    return None

def heldout_job(argv, cwd, parse, hprof=None, preload=None):
    """An application run on 2 ranks (Open MPI) in cwd; parse(stdout) -> its own time or None."""
    def job():
        el, out, err = mpi_job(2, argv, hprof, mpi="openmpi", cwd=cwd, preload=preload)
        d = {"wall": el, "cpu": mpi_job.cpu}
        app = parse(out, cwd)
        if app is None:
            raise RuntimeError("%s printed no time: %s" % (argv[0], out[-300:]))
        d.update(app if isinstance(app, dict) else {"app": app})  # a dict: more rows of its own
        handler_stats(d, err)
        return d
    return job

def hpcc_time(out, cwd):
    """hpcc appends its results to hpccoutf.txt: the sum of its timed parts of this run."""
    path = os.path.join(cwd, "hpccoutf.txt")
    if not os.path.exists(path):
        return None
    text = open(path).read()
    os.replace(path, path + ".last")  # the next run starts a new one
    parts = re.findall(r"(?m)^(HPL|PTRANS|MPIRandomAccess_LCG|MPIRandomAccess|MPIFFT|StarDGEMM|StarSTREAM)_time=([0-9.eE+-]+)", text)
    if not parts:
        return None
    ra = sum(float(v) for k, v in parts if k.startswith("MPIRandomAccess"))
    return {"app": sum(float(v) for _, v in parts), "ra": ra}

def pw_time(out, cwd):
    m = re.search(r"PWSCF\s*:\s*(?:([0-9.]+)m\s*)?([0-9.]+)s CPU\s+(?:([0-9.]+)h\s*)?(?:([0-9.]+)m\s*)?([0-9.]+)s WALL", out)
    if not m:
        return None
    return float(m.group(3) or 0) * 3600 + float(m.group(4) or 0) * 60 + float(m.group(5))

def app_workdir(key, infile):
    """The folder an application runs in, with its input from bench/. An
    hpccoutf.txt left by an interrupted run is removed: hpcc appends to it,
    and the first run would count the old runs' parts as its own."""
    wd = os.path.join(OUT, key)
    os.makedirs(wd, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "bench", infile), os.path.join(wd, infile))
    if os.path.exists(os.path.join(wd, "hpccoutf.txt")):
        os.remove(os.path.join(wd, "hpccoutf.txt"))
    return wd

def heldout_app(lines, rows, name, packages, needs, infile, cmd, timefn, key):
    """One held-out application's dilation rows: installed on demand, run in its own folder."""
    why = ensure_debian(packages, needs)
    if why:
        lines.append("| %s | skipped: %s |" % (name, why) + " |" * (2 * len(DIL_VARIANTS)))
        return
    wd = app_workdir(key, infile)
    print("bench: dilation on %s" % name, flush=True)
    r = dilation_variants(lambda hprof: heldout_job(cmd, wd, timefn, hprof))
    dilation_rows(lines, "%s, bench/%s (Debian %s %s)" % (name, infile, packages[0], pkg_version(packages[0])),
                  r, key, rows)

def dilation_heldout(lines):
    """hpcc (HPC Challenge) and pw.x (Quantum ESPRESSO): Debian's builds, held-out applications."""
    rows = (("app", ", its own time"), ("wall", ", whole mpirun"), ("cpu", ", CPU time of the ranks"))
    heldout_app(lines, rows + (("ra", ", MPIRandomAccess alone (its own time, both variants)"),), "hpcc",
                ["hpcc"], ["/usr/bin/hpcc"], "hpccinf.txt", ["/usr/bin/hpcc"], hpcc_time, "hpcc")
    pseudo = "/usr/share/espresso/pseudo/Si.pz-vbc.UPF"
    heldout_app(lines, rows, "pw.x", ["quantum-espresso", "quantum-espresso-data"], ["/usr/bin/pw.x", pseudo],
                "si_scf.in", ["/usr/bin/pw.x", "-in", "si_scf.in"], pw_time, "pw")
    lines.append("\nhpcc's own time: the sum of its timed parts (HPL, PTRANS, MPIRandomAccess, ...) from "
                 "hpccoutf.txt; pw.x's: its `PWSCF ... WALL`. CPU time of the ranks: user + system time of the "
                 "mpirun and its processes, less hit by the machine's load than the wall clock. mpiP: not "
                 "measured here (no Debian package).\n")

def preload_so(source, name, *flags):
    """bench/SOURCE built for BENCH_MPI as a library to preload."""
    so = os.path.join(OUT, name)
    sh(["mpicc." + MPI, "-O2", "-shared", "-fPIC"] + list(flags) + [os.path.join(ROOT, "bench", source), "-o", so])
    return so

def poll_step_so(extra):
    """bench/poll_step.c with EXTRA register adds."""
    return preload_so("poll_step.c", "poll_step_%d.so" % extra, "-DEXTRA=%d" % extra)

def interpose_floor_so():
    """bench/interpose_floor.c: poll wrappers that only count."""
    return preload_so("interpose_floor.c", "interpose_floor.so")

def hpcc_workdir(lines):
    """hpcc's folder with its input, hpcc installed on demand; None (and a line saying why) without it."""
    why = ensure_debian(["hpcc"], ["/usr/bin/hpcc"])
    if why:
        lines.append("skipped: " + why)
        return None
    return app_workdir("hpcc", "hpccinf.txt")

def hpcc_floor(lines):
    """4b: hpcc against the least an interposing tool costs (bench/interpose_floor.c), and the least a
    wrapper that sees each poll's result costs (bench/poll_step.c)."""
    lines.append("\n## 4b. hpcc: hprof's polls against the floor of interposition, and at 100 Hz, 2 ranks\n")
    lines.append("MPIRandomAccess is bound by its polls (34 million `MPI_Testany` a rank, most completing "
                 "nothing). Without a tool; with bench/interpose_floor.c preloaded (poll wrappers that count "
                 "their calls and call PMPI: no time, no call path, the least any wrapper-based tool costs); "
                 "with bench/poll_step.c preloaded (an `MPI_Testany` wrapper that keeps its thread's counter "
                 "across the PMPI call and counts the poll when it completed nothing: the least a tool costs "
                 "that tells a poll's outcome, as one must that credits a completed receive's bytes); and "
                 "with hprof, sampling off and at 100 Hz (issue 42's goal: at most +3% of the whole run, "
                 "MPIRandomAccess at most +10%). Alternated; per round against the no-tool run of the round: "
                 "median (min..max), mean +- 95% interval.\n")
    wd = hpcc_workdir(lines)
    if not wd:
        return
    floor = interpose_floor_so()
    print("bench: hpcc against the floor of interposition", flush=True)
    cmd = ["/usr/bin/hpcc"]
    variants = (("floor", "counting wrappers"), ("step", "a wrapper that sees each result"),
                ("hprof", "hprof, sampling off"), ("hprof100", "hprof, 100 Hz"))
    r = alternate([("none", heldout_job(cmd, wd, hpcc_time)),
                   ("floor", heldout_job(cmd, wd, hpcc_time, preload=floor)),
                   ("step", heldout_job(cmd, wd, hpcc_time, preload=poll_step_so(0))),
                   ("hprof", heldout_job(cmd, wd, hpcc_time, {"HPROF_SAMPLING_HZ": "0"})),
                   ("hprof100", heldout_job(cmd, wd, hpcc_time, {"HPROF_SAMPLING_HZ": "100"}))])
    loads = [d["load"] for v in r.values() for d in v]
    lines.append("| hpcc, bench/hpccinf.txt [load %.1f (%.1f..%.1f)] | no tool | %s | %s |" % (
        statistics.median(loads), min(loads), max(loads), " | ".join(w for _, w in variants),
        " | ".join(w + " above no tool" for _, w in variants)))
    lines.append("|---" * (2 + 2 * len(variants)) + "|")
    for key, what in (("app", "its own time (the sum of its timed parts)"),
                      ("ra", "MPIRandomAccess (its own time, both variants)"), ("wall", "whole mpirun"),
                      ("cpu", "CPU time of the ranks")):
        lines.append("| %s | %s | %s | %s |" % (
            what, fmt_s(col(r, "none", key)), " | ".join(fmt_s(col(r, k, key)) for k, _ in variants),
            " | ".join(fmt_pct(paired(r, k, "none", key)) for k, _ in variants)))
    hpcc_fastest_rows(lines, r, variants)

AB_LINE = re.compile(r"poll_ab: rank (\d+): (\d+) pairs .* p25 ([0-9.]+) median ([0-9.]+) p75 ([0-9.]+)")

def poll_ab_job(cmd, wd, tool, hprof=None):
    """One hpcc run with bench/poll_ab.c preloaded before tool: {rank: (p25, median, p75)} of the
    ratio of a block of MPIRandomAccess's loop through tool's wrappers to the bare block after it."""
    def job():
        _, out, err = mpi_job(2, cmd, hprof, mpi="openmpi", cwd=wd, preload=poll_ab_so() + ":" + tool)
        hpcc_time(out, wd)  # hpcc appends to hpccoutf.txt: moved aside for the next run
        ranks = {int(m.group(1)): tuple(float(m.group(i)) for i in (3, 4, 5)) for m in AB_LINE.finditer(err)}
        if len(ranks) != 2:
            raise RuntimeError("poll_ab printed %d ranks' ratios: %s" % (len(ranks), err[-300:]))
        return {"ranks": ranks}
    return job

def poll_ab_so():
    return preload_so("poll_ab.c", "poll_ab.so", "-ldl")

def hpcc_poll_ab(lines):
    """4d: what a tool costs hpcc's MPIRandomAccess loop, its blocks of the loop against bare blocks
    beside them in the same process (bench/poll_ab.c)."""
    lines.append("\n## 4d. hpcc: what the tool costs MPIRandomAccess's loop, tool and bare blocks side by "
                 "side, 2 ranks\n")
    lines.append("Whole hpcc runs spread by 20-40% on this host (4b), which hides a few percent. Here "
                 "bench/poll_ab.c, preloaded before the tool, sends the calls of MPIRandomAccess's loop "
                 "(`MPI_Testany`, `MPI_Test`, `MPI_Isend`, `MPI_Irecv`) through the tool's wrappers and "
                 "straight to PMPI by turns, 32768 polls (a few ms) a block, and each rank prints its tool "
                 "block's time over the bare block's after it, over some 500 pairs a rank. It measures what "
                 "the tool costs the loop: its wrappers' work and what that does to the loop around them. "
                 "Each cell: both ranks' median ratios, each run; then the median of those, above 1. "
                 "Issue 42's target for MPIRandomAccess: at most +10%.\n")
    wd = hpcc_workdir(lines)
    if not wd:
        return
    print("bench: hpcc's polls, tool and bare blocks", flush=True)
    cmd = ["/usr/bin/hpcc"]
    lib = os.path.join(BUILD, "openmpi", "libhprof.so")
    variants = (("floor", "counting wrappers (interpose_floor.c)", interpose_floor_so(), None),
                ("step", "a wrapper that sees each result (poll_step.c)", poll_step_so(0), None),
                ("hprof", "hprof, sampling off", lib, {"HPROF_SAMPLING_HZ": "0"}),
                ("hprof100", "hprof, 100 Hz", lib, {"HPROF_SAMPLING_HZ": "100"}))
    r = alternate([(k, poll_ab_job(cmd, wd, so, env)) for k, _, so, env in variants])
    lines.append("| MPIRandomAccess's loop through | each run: rank 0, rank 1 (median ratio) | "
                 "median of all, above bare |")
    lines.append("|---|---|---|")
    for k, what, _, _ in variants:
        meds = [d["ranks"][rank][1] for d in r[k] for rank in (0, 1)]
        runs = "; ".join("%.3f, %.3f" % (d["ranks"][0][1], d["ranks"][1][1]) for d in r[k])
        lines.append("| %s | %s | %+.1f%% |" % (what, runs, 100.0 * (statistics.median(meds) - 1.0)))

def fastest_above(results, label, base, key):
    """label's fastest round over base's fastest, as % above."""
    return 100.0 * (min(col(results, label, key)) / min(col(results, base, key)) - 1.0)

def hpcc_fastest_rows(lines, r, variants):
    """The fastest round of each variant: this VM's host at times halves memory-bound speed for seconds,
    which only adds time, so the fastest of the rounds is the run the host slowed least."""
    lines.append("\nThe fastest of the %d rounds of each variant, against the fastest without a tool (the host "
                 "at times slows memory-bound code by up to half, which only adds time):\n" % RUNS)
    lines.append("| hpcc, the fastest round | no tool | %s |" % " | ".join(w for _, w in variants))
    lines.append("|---" * (2 + len(variants)) + "|")
    for key, what in (("app", "its own time"), ("ra", "MPIRandomAccess"), ("wall", "whole mpirun")):
        lines.append("| %s | %.3f s | %s |" % (what, min(col(r, "none", key)), " | ".join(
            "%.3f s (%+.2f%%)" % (min(col(r, k, key)), fastest_above(r, k, "none", key)) for k, _ in variants)))

def pkg_version(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
    return r.stdout.strip() or "?"

def lammps_version():
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "lammps"], capture_output=True, text=True)
    return r.stdout.strip() or "?"

def instrumentation(lines):
    print("bench: hprof against -finstrument-functions", flush=True)
    steps = os.environ.get("BENCH_INSTR_STEPS", "5")
    lines.append("\n## 5. hprof against full compiler instrumentation (drops_mini, 2 ranks)\n")
    lines.append("The paper's comparison. The same program, `drops_mini %s 16`, built three ways and run "
                 "alternately: without a tool; the same binary under hprof (100 Hz); and built with "
                 "`-finstrument-functions` and linked with bench/cygprof.c, a lean call-path profiler on "
                 "`__cyg_profile_func_enter/exit` (a time stamp and a calling-context-tree step per entry and "
                 "exit, of every function including the inlined one-line members: what Score-P/Scalasca do to "
                 "user code without a filter, at a lower cost per event than they have). Time: MPI_Init to "
                 "MPI_Finalize as the program reports it.\n" % steps)
    lines.append("| variant | run time | dilation | call paths in the profile | function entries |")
    lines.append("|---|---|---|---|---|")
    plain = build_drops()
    cyg = os.path.join(OUT, "cygprof.o")
    sh(["gcc", "-O2", "-c", os.path.join(ROOT, "bench", "cygprof.c"), "-o", cyg])
    inst = build_drops("drops_mini_inst", ["-finstrument-functions", cyg])
    args = [steps, 16]
    r = alternate([("none", drops_job(plain, args)),
                   ("hprof", drops_job(plain, args, {"HPROF_SAMPLING_HZ": "100"})),
                   ("instr", drops_job(inst, args, env_extra={"CYGPROF_VERBOSE": "1"}))])
    lines.append("| no tool | %s | | | |" % fmt_s(col(r, "none", "app")))
    lines.append("| hprof, 100 Hz | %s | %s | %d | (sampled) |" % (
        fmt_s(col(r, "hprof", "app")), fmt_pct(paired(r, "hprof", "none", "app")),
        statistics.median(col(r, "hprof", "paths"))))
    dil = paired(r, "instr", "none", "app")
    lines.append("| -finstrument-functions + cygprof | %s | %s (%.1fx the run time) | %d a rank | %d a rank |" % (
        fmt_s(col(r, "instr", "app")), fmt_pct(dil), 1 + statistics.median(dil) / 100,
        statistics.median(col(r, "instr", "paths")), statistics.median(col(r, "instr", "entries"))))
    instrumentation.headline = (statistics.median(paired(r, "hprof", "none", "app")), statistics.median(dil))
    if "drops" in dilation_rows.headline:
        lines.append("\nA run this short (%s steps, so that the instrumented one ends in reasonable time) "
                     "measures hprof's dilation only to within the machine's noise; on the %s-step run of "
                     "section 4 it is %+.2f%% at 100 Hz." % (steps, os.environ.get("BENCH_DROPS_STEPS", "60"),
                                                             dilation_rows.headline["drops"]))
instrumentation.headline = None

def exact_cost_exe(name, flags, extra=()):
    exe = os.path.join(OUT, name)
    sh(["mpicc." + MPI, "-O2", "-g"] + list(flags) + [os.path.join(ROOT, "bench", "exact_cost.c")] + list(extra) +
       ["-o", exe])
    return exe

EXACT_BATCHES = 20

def exact_batches(exe, args, hprof=None):
    """One run of exact_cost.c in EXACT_BATCHES batches: (per_call, [(batch ns a call, reference ns)])."""
    env = dict(ENV)
    if hprof is not None:
        env["LD_PRELOAD"] = LIB
        env.update(hprof)
    out = sh([exe] + [str(a) for a in args] + [str(EXACT_BATCHES)], env).stdout
    per_call = float(re.search(r"(?m)^per_call ([0-9.]+)", out).group(1))
    return per_call, batch_lines(out)

def exact_visit_cost(lines):
    """5b, per visit: exact_cost.c's calls, each variant its own build; costs compared in the batches
    where the program's reference loop ran at its best (exact_cost.c: this VM runs such code at two
    speeds)."""
    cyg = os.path.join(OUT, "cygprof.o")
    sh(["gcc", "-O2", "-c", os.path.join(ROOT, "bench", "cygprof.c"), "-o", cyg])
    plain = exact_cost_exe("exact_cost_plain", [])
    nops = exact_cost_exe("exact_cost_nops", ["-fpatchable-function-entry=18,16"])
    inst = exact_cost_exe("exact_cost_inst", ["-finstrument-functions"], [cyg])
    off = {"HPROF_SAMPLING_HZ": "0"}
    lines.append("| calls | no tool, built without the flag | the floor: two TSC reads around each call, no tool | "
                 "with the flag (NOPs), no tool | hprof, nothing selected | hprof, the function selected | cost a "
                 "visit | / floor | -finstrument-functions + cygprof | its cost a visit | / floor | hprof's mechanism, "
                 "nothing booked | its cost a visit | / floor |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    fast_rows = []
    floor_args = ["floor", 20000000]
    for what, args, sel, bare_args in (
            ("one loop calls `leaf`", ["loop", 20000000], "leaf", ["bare", 20000000]),
            ("a recursion 16 deep, each call from a new activation", ["chain", 16, 1000000], "node",
             ["barechain", 16, 1000000])):
        variants = [("plain", plain, None, args), ("floor", plain, None, floor_args), ("nops", nops, None, args),
                    ("hprof", nops, off, args), ("exact", nops, dict(off, HPROFTEST_EXACT=sel), args),
                    ("inst", inst, None, args), ("bare", plain, None, bare_args)]
        r = {k: [] for k, _, _, _ in variants}
        batches = {k: [] for k, _, _, _ in variants}
        for _ in range(RUNS):
            for k, exe, hprof, a in variants:
                per_call, b = exact_batches(exe, a, hprof)
                r[k].append(per_call)
                batches[k] += b
        med = {k: statistics.median(v) for k, v in r.items()}
        cost, cyg_cost = med["exact"] - med["hprof"], med["inst"] - med["plain"]
        bare_cost = med["bare"] - med["plain"]
        lines.append("| %s | %s | %s | %s | %s | %s | %.1f ns | %.2f | %s | %.1f ns | %.2f | %s | %.1f ns | %.2f |" % (
            what, fmt(r["plain"], "ns"), fmt(r["floor"], "ns"), fmt(r["nops"], "ns"), fmt(r["hprof"], "ns"),
            fmt(r["exact"], "ns"), cost, cost / med["floor"], fmt(r["inst"], "ns"), cyg_cost,
            cyg_cost / med["floor"], fmt(r["bare"], "ns"), bare_cost, bare_cost / med["floor"]))
        exact_section.per_visit.append(cost)
        fm, fast, best = fast_medians(batches)
        nb = lambda k: "%.1f ns (%d of %d)" % (fm[k], len(fast[k]), len(batches[k]))
        cost, cyg_cost = fm["exact"] - fm["hprof"], fm["inst"] - fm["plain"]
        bare_cost = fm["bare"] - fm["plain"]
        fast_rows.append("| %s | %.3f ns | %s | %s | %s | %s | %s | %.1f ns | %.2f | %s | %.1f ns | %.2f | %s | "
                         "%.1f ns | %.2f |" % (
            what, best, nb("plain"), nb("floor"), nb("nops"), nb("hprof"), nb("exact"), cost, cost / fm["floor"],
            nb("inst"), cyg_cost, cyg_cost / fm["floor"], nb("bare"), bare_cost, bare_cost / fm["floor"]))
    lines.append("\nThe same runs, batch by batch (%d batches a run, each followed by the program's reference loop: "
                 "eight independent chains of adds, bound by the processor's throughput as a visit is). This VM's "
                 "processor runs such code at two speeds, switching every few seconds (the reference 1.6-1.8 or "
                 "2.2-3.0 ns an iteration, with nothing else running: its host shares the core), and the calls' "
                 "cost moves with it (34-35 or 56-60 ns a visit). Here only the batches whose reference ran within "
                 "20%% of its best (the 5th percentile of all batches), the processor at full speed, median; a "
                 "batch that straddles a switch can still count:\n" % EXACT_BATCHES)
    lines.append("| calls | reference, best (5th percentile) | no tool, built without the flag | the floor: two TSC "
                 "reads around each call, no tool | with the flag (NOPs), no tool | hprof, nothing selected | hprof, "
                 "the function selected | cost a visit | / floor | -finstrument-functions + cygprof | its cost a "
                 "visit | / floor | hprof's mechanism, nothing booked | its cost a visit | / floor |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines.extend(fast_rows)
    lines.append("")
    exact_beside_cygprof(lines, cyg)

EXACT_AB = re.compile(r"floor ([0-9.]+) .*probe ([0-9.-]+) .*hprof ([0-9.-]+) .*cygprof ([0-9.-]+) "
                      r".*hprof-cygprof ([0-9.-]+) \(([0-9.-]+)\.\.([0-9.-]+)\)")

def exact_ab_exe(cyg):
    """bench/exact_ab.c with exact_ab_fns.c built three ways (plain, patchable, instrumented) and cygprof."""
    objs = []
    for variant, flags in (("plain", []), ("exact", ["-fpatchable-function-entry=18,16"]),
                           ("cyg", ["-finstrument-functions"])):
        obj = os.path.join(OUT, "exact_ab_%s.o" % variant)
        sh(["mpicc." + MPI, "-O2", "-g", "-DVARIANT=" + variant] + flags +
           ["-c", os.path.join(ROOT, "bench", "exact_ab_fns.c"), "-o", obj])
        objs.append(obj)
    exe = os.path.join(OUT, "exact_ab")
    sh(["mpicc." + MPI, "-O2", "-g", os.path.join(ROOT, "bench", "exact_ab.c")] + objs + [cyg, "-o", exe])
    return exe

def exact_beside_cygprof(lines, cyg):
    """5b's third table: hprof's exact visit and cygprof's in one process, block beside block
    (bench/exact_ab.c), each run its own process."""
    exe = exact_ab_exe(cyg)
    env = dict(ENV, LD_PRELOAD=LIB, HPROF_SAMPLING_HZ="0", HPROF_THUNKS="1",
               HPROFTEST_EXACT="leaf_exact,node_exact")
    lines.append("\nhprof and cygprof in one process (bench/exact_ab.c): the same function built plainly, with "
                 "patchable entries (measured exactly by hprof) and with -finstrument-functions (cygprof), "
                 "called block after block with the program's floor, 40 rounds of 200,000 calls a run (of a "
                 "recursion deeper than 16, 3.2 million visits); a "
                 "visit's cost is its block's time a call less the plain block's in the same round. Each run: "
                 "hprof / cygprof / hprof less cygprof, ns a visit, medians over its rounds (quartiles of the "
                 "difference), and the probe: the floor with 16 more stores between the clock reads, its cost "
                 "above the floor (about 0 where the host lets such work hide under the clock reads, about 1 ns "
                 "or more where it does not; hprof's visit then costs some 6 ns more, so the least of the runs is "
                 "given too: that state only adds):\n")
    lines.append("| calls | each run: hprof / cygprof / difference (quartiles), probe | the floor (median of runs) | "
                 "hprof, cygprof / floor (median of runs) | difference, median of runs | difference, least of runs |")
    lines.append("|---|---|---|---|---|---|")
    # the recursion at three depths: each exact activation holds two of the return stack's entries
    # (its caller's call and the exit thunk's), cygprof's one; past some 13 nested activations
    # hprof's overflow Zen's return stack, and returns from the deepest are mispredicted
    for what, mode, depth in (("one loop calls `leaf`", "loop", 1), ("a recursion 8 deep", "chain", 8),
                              ("a recursion 16 deep", "chain", 16), ("a recursion 24 deep", "chain", 24)):
        runs = []
        for _ in range(RUNS):
            args = [exe, mode, "40", str(200000 * 16 // max(depth, 16) if mode == "chain" else 200000)]
            out = sh(args + ([str(depth)] if mode == "chain" else []), env).stdout
            m = EXACT_AB.search(out)
            if not m:
                raise RuntimeError("exact_ab printed no costs: " + out[-300:])
            runs.append([float(x) for x in m.groups()])
        floor = statistics.median(r[0] for r in runs)
        lines.append("| %s | %s | %.1f ns | %.2f, %.2f | %+.2f ns | %+.2f ns |" % (
            what, "; ".join("%.1f / %.1f / %+.2f (%+.2f..%+.2f), probe %+.2f" % (r[2], r[3], r[4], r[5], r[6], r[1])
                            for r in runs),
            floor, statistics.median(r[2] for r in runs) / floor, statistics.median(r[3] for r in runs) / floor,
            statistics.median(r[4] for r in runs), min(r[4] for r in runs)))

AUTO_WARMUP = "0.2"  # drops_mini 20 16 runs about a second

def auto_summary(cubex):
    """HPROF_SELECT=auto's choice in a profile: (names measured, names
    dropped, its hprof::auto attribute)."""
    attrs = json.loads(sh([os.path.join(BUILD, "tools", "hprof-view"), "--json", cubex]).stdout).get("attributes", {})
    chosen, dropped = [], []
    for k, v in sorted(attrs.items()):
        m = re.match(r"hprof::exact::\d+$", k) and re.match(r"\d+ \S+ \S+ (\S+) \S+ (.*)$", v)
        if m and m.group(1) == "-":
            chosen.append(m.group(2).split("(")[0])
        m = re.match(r"hprof::auto::dropped::\d+$", k) and re.match(r"\d+ (\S+) (\S+) \S+ (.*)$", v)
        if m:
            dropped.append("%s (%.3g visits/s, %.1f%%)" % (m.group(3).split("(")[0], float(m.group(1)),
                                                           100 * float(m.group(2))))
    return chosen, dropped, attrs.get("hprof::auto", "no hprof::auto attribute")

DROPS_SOLVER = "mini::CGSolver::solve,mini::CGSolver::dot,mini::CSRMatrix::multiply"

def exact_visits(cubex):
    """Visits of functions (not MPI, not hprof's own nodes) in a profile."""
    out = sh([os.path.join(BUILD, "tools", "hprof-view"), "--csv", cubex]).stdout
    n = 0.0
    for row in out.splitlines()[1:]:
        f = row.rsplit(",", 5)
        last = f[0].split(";")[-1]
        if f[3] == "visits" and not last.startswith("MPI_") and not last.startswith("("):
            n += float(f[4])
    return n

def exact_dilation(lines):
    """5b, DROPS-like: built with the flag or not, nothing / the solver / everything selected."""
    steps = os.environ.get("BENCH_EXACT_STEPS", "20")
    plain = build_drops()
    nops = build_drops("drops_mini_nops", ["-fpatchable-function-entry=18,16"])
    hz = {"HPROF_SAMPLING_HZ": "100"}
    prof = lambda name: dict(hz, HPROF_OUTPUT=os.path.join(OUT, name + ".cubex"))
    args = [steps, 16]
    r = alternate([("none", drops_job(plain, args)), ("nops", drops_job(nops, args)),
                   ("hprof", drops_job(plain, args, hz)), ("hprof_nops", drops_job(nops, args, hz)),
                   ("solver", drops_job(nops, args, dict(prof("solver"), HPROFTEST_EXACT=DROPS_SOLVER))),
                   ("all", drops_job(nops, args, dict(prof("all"), HPROFTEST_EXACT="*"))),
                   ("auto", drops_job(nops, args, dict(prof("auto"), HPROF_SELECT="auto",
                                                       HPROF_AUTO_WARMUP=AUTO_WARMUP)))])
    visits = {k: exact_visits(os.path.join(OUT, k + ".cubex")) / 2 for k in ("solver", "all", "auto")}
    lines.append("\n`drops_mini %s 16` on 2 ranks, its own run time (MPI_Init to MPI_Finalize), hprof at 100 Hz; "
                 "the exact functions selected with the test knob HPROFTEST_EXACT (the solver: %s; every "
                 "function: `*`):\n" % (steps, DROPS_SOLVER.replace("mini::", "")))
    lines.append("| variant | run time | against | dilation | exact visits a rank | cost a visit |")
    lines.append("|---|---|---|---|---|---|")
    lines.append("| no tool, without the flag | %s | | | | |" % fmt_s(col(r, "none", "app")))
    lines.append("| no tool, with the flag (NOPs) | %s | no tool | %s | | |" % (
        fmt_s(col(r, "nops", "app")), fmt_pct(paired(r, "nops", "none", "app"))))
    lines.append("| hprof, without the flag | %s | no tool | %s | | |" % (
        fmt_s(col(r, "hprof", "app")), fmt_pct(paired(r, "hprof", "none", "app"))))
    lines.append("| hprof, with the flag, nothing selected | %s | hprof without the flag | %s | | |" % (
        fmt_s(col(r, "hprof_nops", "app")), fmt_pct(paired(r, "hprof_nops", "hprof", "app"))))
    base_runs = col(r, "hprof_nops", "app")
    base = statistics.median(base_runs)
    spread = max(base_runs) - min(base_runs)
    loop_ns = exact_section.per_visit[0] if exact_section.per_visit else 0
    for k, label in (("solver", "the solver's functions"), ("all", "every function")):
        t = statistics.median(col(r, k, "app"))
        # a run-time difference divided by visits says something only where
        # the visits' cost stands out of the runs' spread
        if visits[k] * loop_ns * 1e-9 < spread:
            cost = "not measurable: %.0f visits x %.0f ns (the loop's) = %.2f ms, within the runs' spread of %.0f ms" % (
                visits[k], loop_ns, visits[k] * loop_ns * 1e-6, spread * 1e3)
        else:
            cost = "%.1f ns" % ((t - base) / visits[k] * 1e9)
        lines.append("| hprof, %s | %s | hprof, nothing selected | %s | %.0f | %s |" % (
            label, fmt_s(col(r, k, "app")), fmt_pct(paired(r, k, "hprof_nops", "app")), visits[k], cost))
    chosen, dropped, auto = auto_summary(os.path.join(OUT, "auto.cubex"))
    lines.append("| hprof, `HPROF_SELECT=auto` (budget 1%%, warm-up %s s) | %s | hprof, nothing selected | %s | %.0f | "
                 "%s: chose %s; dropped %s |" % (
                     AUTO_WARMUP, fmt_s(col(r, "auto", "app")), fmt_pct(paired(r, "auto", "hprof_nops", "app")),
                     visits["auto"], auto, ", ".join(chosen) or "nothing", ", ".join(dropped) or "nothing"))
    loads = [d["load"] for v in r.values() for d in v]
    lines.append("\nLoad (1 min) during these runs: %.1f..%.1f on %d cores: wall times on a shared machine "
                 "vary with it; the per-visit figures above are CPU time." % (min(loads), max(loads), os.cpu_count()))

def exact_section(lines):
    print("bench: functions measured exactly", flush=True)
    exact_section.per_visit = []
    lines.append("\n## 5b. Functions measured exactly (patchable entries, issue 29)\n")
    lines.append("A function's cost a visit when measured exactly (its entry patched into a jump to hprof's "
                 "trampoline, its return through the exit thunk: two clock reads and the bookkeeping), per call, "
                 "the calling thread's CPU time (bench/exact_cost.c, one rank), against the same program built "
                 "without `-fpatchable-function-entry=18,16`, with it and no tool (its NOPs run), under hprof with "
                 "nothing selected, and built with `-finstrument-functions` and linked with bench/cygprof.c "
                 "(section 5's lean profiler). The floor: the loop built without the flag, the program itself "
                 "reading the TSC before and after each call, no tool (`exact_cost floor`); '/ floor' gives a "
                 "cost a visit in units of it. hprof's mechanism with nothing booked (`exact_cost bare`, `barechain` for the recursion: the "
                 "patched entry's jumps to a stub and a trampoline, the argument registers saved and restored, a "
                 "time stamp at the entry and at the exit, the return sent through an exit thunk as hprof's is, "
                 "predicted) is the least this design costs a visit; hprof's cost above it is its bookkeeping:\n")
    exact_visit_cost(lines)
    exact_dilation(lines)
exact_section.per_visit = []

def finalize_cost(lines):
    print("bench: finalize cost on 2..64 ranks", flush=True)
    counts = [2, 8, 32] + ([] if os.environ.get("BENCH_SKIP_64") else [64])
    reps = max(1, min(RUNS, 3))
    lines.append("\n## 6. Finalize: cross-rank merge and write, and the profile's size\n")
    lines.append("`drops_mini 3 4` (3 steps, 4^3 cells a rank) under hprof at 100 Hz on 2 to 64 ranks, "
                 "oversubscribed on %d cores (so the larger runs measure a merge among ranks that share "
                 "the cores); %d rounds, the rank counts alternated. merge+write: what rank 0 prints at "
                 "MPI_Finalize. %s\n" % (os.cpu_count(), reps,
                                         "BENCH_SKIP_64 was set: no 64-rank run." if 64 not in counts else
                                         "BENCH_SKIP_64=1 leaves the 64-rank run out."))
    exe = build_drops()
    res = {n: [] for n in counts}
    for _ in range(reps):
        for n in counts:
            el, _, err = mpi_job(n, [exe, 3, 4], {"HPROF_SAMPLING_HZ": "100",
                                                  "HPROF_OUTPUT": os.path.join(OUT, "finalize.cubex")})
            m = WROTE.search(err)
            if not m:
                raise RuntimeError("no 'hprof: wrote' line from %d ranks: %s" % (n, err[-300:]))
            res[n].append({"merge": float(m.group(5)), "bytes": int(m.group(2)), "paths": int(m.group(3)),
                           "wall": el})
    lines.append("| ranks | merge+write | profile size | call paths | whole mpirun |")
    lines.append("|---|---|---|---|---|")
    for n in counts:
        v = res[n]
        lines.append("| %d | %s | %d bytes (%d..%d) | %d | %s |" % (
            n, fmt_s([d["merge"] for d in v]), statistics.median([d["bytes"] for d in v]),
            min(d["bytes"] for d in v), max(d["bytes"] for d in v), statistics.median([d["paths"] for d in v]),
            fmt_s([d["wall"] for d in v])))
    finalize_cost.headline = {n: statistics.median([d["merge"] for d in res[n]]) for n in counts}
    if 64 in counts:
        finalize_mpis(lines, reps)

    lines.append("\nProfile size against run length: `drops_mini STEPS 8` on 2 ranks. The calling context "
                 "tree holds one node per call path, whatever the run's length: with sampling off (MPI call "
                 "paths only) its metrics' size does not change; at 100 Hz the tree also holds the sampled call "
                 "paths, and a longer run's samples reach code a shorter run's missed. The profile over time "
                 "(the hprof.timeline.z member: HPROF_TIME_BUCKETS buckets a thread, with the call paths of each) "
                 "grows with the run until its buckets are filled; then they fold, two into one.\n")
    lines.append("| steps | run time | size, sampling off | call paths | size, 100 Hz | call paths |")
    lines.append("|---|---|---|---|---|---|")
    lengths = (20, 80, 320)
    sizes = {hz: [] for hz in ("0", "100")}
    for steps in lengths:
        v = {hz: [] for hz in ("0", "100")}
        for _ in range(reps):
            for hz in ("0", "100"):
                el, out, err = mpi_job(2, [exe, steps, 8], {"HPROF_SAMPLING_HZ": hz,
                                                           "HPROF_OUTPUT": os.path.join(OUT, "length.cubex")})
                m = WROTE.search(err)
                t = re.search(r"time ([0-9.]+) s", out)
                v[hz].append({"bytes": int(m.group(2)), "paths": int(m.group(3)), "app": float(t.group(1))})
        cells = []
        for hz in ("0", "100"):
            sizes[hz].append(statistics.median([d["bytes"] for d in v[hz]]))
            cells.append("%d bytes (%d..%d) | %d" % (sizes[hz][-1], min(d["bytes"] for d in v[hz]),
                                                   max(d["bytes"] for d in v[hz]),
                                                   statistics.median([d["paths"] for d in v[hz]])))
        lines.append("| %d | %s | %s |" % (steps, fmt_s([d["app"] for d in v["100"]]), " | ".join(cells)))
    lines.append("\nFrom %d to %d steps (%dx the run) the size changes by %+.1f%% with sampling off and by "
                 "%+.1f%% at 100 Hz." % (lengths[0], lengths[-1], lengths[-1] // lengths[0],
                                         100.0 * (sizes["0"][-1] / sizes["0"][0] - 1),
                                         100.0 * (sizes["100"][-1] / sizes["100"][0] - 1)))
finalize_cost.headline = None

MERGE_PHASES = re.compile(r"hprof: merge: .* values ([0-9.]+) s, time line ([0-9.]+) s")

def finalize_mpis(lines, reps):
    """Issue 30.8: MPICH's finalize against Open MPI's at 64 ranks oversubscribed, with the
    time line (the default) and without it."""
    print("bench: finalize at 64 ranks, Open MPI and MPICH", flush=True)
    variants = [(mpi, b) for mpi in ("openmpi", "mpich") for b in ("256", "0")]
    exes = {}
    for mpi in ("openmpi", "mpich"):
        if not os.path.exists(os.path.join(BUILD, mpi, "libhprof.so")):
            lines.append("\nThe 64-rank comparison of the two MPI libraries needs both builds; %s is missing."
                         % mpi)
            return
        exes[mpi] = os.path.join(OUT, "finalize_time." + mpi)
        sh(["mpicc." + mpi, "-O2", "-g", os.path.join(ROOT, "bench", "finalize_time.c"), "-o", exes[mpi]])
    res = {v: [] for v in variants}
    plain = {mpi: [] for mpi in exes}
    for _ in range(reps):
        for mpi, b in variants:
            el, out, err = mpi_job(64, [exes[mpi]], {"HPROF_SAMPLING_HZ": "100", "HPROF_VERBOSE": "1",
                                                     "HPROF_TIME_BUCKETS": b,
                                                     "HPROF_OUTPUT": os.path.join(OUT, "finalize64.cubex")},
                                   mpi=mpi)
            m, p, f = WROTE.search(err), MERGE_PHASES.search(err), re.search(r"finalize_time: .*, ([0-9.]+) s", out)
            if not (m and p and f):
                raise RuntimeError("%s, HPROF_TIME_BUCKETS=%s: no 'wrote', 'merge:' or finalize_time line: %s"
                                   % (mpi, b, (err + out)[-300:]))
            res[(mpi, b)].append({"merge": float(m.group(5)), "timeline": float(p.group(2)),
                                  "finalize": float(f.group(1)), "wall": el})
        for mpi in exes:
            el, out, err = mpi_job(64, [exes[mpi]], None, mpi=mpi)
            f = re.search(r"finalize_time: .*, ([0-9.]+) s", out)
            if f:
                plain[mpi].append(float(f.group(1)))
    lines.append("\nThe two MPI libraries at 64 ranks oversubscribed on %d cores (bench/finalize_time.c: "
                 "call trees that differ by rank, 100 Hz, HPROF_VERBOSE=1), %d rounds alternated. MPI_Finalize: "
                 "as rank 0 timed it, merge and write included; time line: the merge's phase that writes "
                 "the profile over time (HPROF_TIME_BUCKETS=0 turns it off).\n" % (os.cpu_count(), reps))
    lines.append("| MPI | HPROF_TIME_BUCKETS | merge+write | time line phase | MPI_Finalize | without hprof |")
    lines.append("|---|---|---|---|---|---|")
    for mpi, b in variants:
        v = res[(mpi, b)]
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            "Open MPI" if mpi == "openmpi" else "MPICH", b, fmt_s([d["merge"] for d in v]),
            fmt_s([d["timeline"] for d in v]), fmt_s([d["finalize"] for d in v]),
            fmt_s(plain[mpi]) if plain[mpi] and b == "256" else ""))
    med = lambda mpi, key: statistics.median([d[key] for d in res[(mpi, "256")]])
    lines.append("\nWith the time line, MPICH / Open MPI: merge+write %.2fx, MPI_Finalize %.2fx."
                 % (med("mpich", "merge") / med("openmpi", "merge"),
                    med("mpich", "finalize") / med("openmpi", "finalize")))

MILLION_DEPTH = 18   # limits mixed 18: 983,044 call paths in the file

def finalize_million(lines):
    """Issue 15.8: a profile of a million call paths on 4 ranks, written at MPI_Finalize."""
    print("bench: finalize at 1M call paths on 4 ranks", flush=True)
    exe = os.path.join(OUT, "limits")
    sh(["mpicc." + MPI, "-O1", "-g", "-I" + os.path.join(ROOT, "tests", "mpi", "common"),
        os.path.join(ROOT, "tests", "mpi", "reliability", "limits.c"), "-o", exe])
    reps = max(1, min(RUNS, 3))
    res = []
    for _ in range(reps):
        el, out, err = mpi_job(4, [exe, "mixed", MILLION_DEPTH],
                               {"HPROF_SAMPLING_HZ": "0", "HPROF_MAX_CALLPATHS": "2200000", "HPROF_VERBOSE": "1",
                                "HPROF_CALLSITES": "split",
                                "HPROF_OUTPUT": os.path.join(OUT, "million.cubex")})
        m = WROTE.search(err)
        hwm = re.search(r"^hwm_final 0 (\d+)", out, re.M)
        before = re.search(r"^hwm 0 (\d+)", out, re.M)
        cpu = re.search(r"merge: .*\(this rank's CPU time ([0-9., ]+) s\)", err)
        if not m or not hwm or not before:
            raise RuntimeError("no 'hprof: wrote' or hwm line: %s" % (err + out)[-300:])
        res.append({"merge": float(m.group(5)), "bytes": int(m.group(2)), "paths": int(m.group(3)), "wall": el,
                    "hwm": int(hwm.group(1)) / 1024.0, "hwm_run": int(before.group(1)) / 1024.0,
                    "cpu": sum(float(x) for x in cpu.group(1).split(",")) if cpu else float("nan")})
    lines.append("\n## 6b. Finalize at 1M call paths\n")
    lines.append("`limits mixed %d` (tests/mpi/reliability/limits.c: a binary tree of calls with 2^%d MPI "
                 "leaves on every rank, and 2^%d more under a branch that only the even, or only the odd, "
                 "ranks have) on 4 ranks oversubscribed on %d cores, sampling off, HPROF_CALLSITES=split (a "
                 "call path per call site: merged, wide()'s two recursive calls are one path), "
                 "HPROF_MAX_CALLPATHS=2200000; %d rounds, median (min..max). merge+write: what rank 0 prints "
                 "at MPI_Finalize; peak RSS: rank 0's VmHWM after MPI_Finalize (the calling context tree of "
                 "the run itself included: rank 0's peak before MPI_Finalize is in brackets); CPU: rank 0's "
                 "CPU time in the merge (HPROF_VERBOSE=1), what the merge costs where no other job shares "
                 "the cores. The version before (aaefe3f: the unified definitions broadcast back to every "
                 "rank, dense rows, ranks polling while they wait) took 32.6 and 36.2 s and 728 MB here, in two runs by hand.\n"
                 % (MILLION_DEPTH, MILLION_DEPTH, MILLION_DEPTH - 3, os.cpu_count(), reps))
    lines.append("| | call paths | merge+write | rank 0 CPU | peak RSS, rank 0 | profile size | whole mpirun |")
    lines.append("|---|---|---|---|---|---|---|")
    lines.append("| finalize at 1M call paths | %d | %s | %.2f s | %.0f MB (%.0f MB) | %d bytes | %s |" % (
        statistics.median([d["paths"] for d in res]), fmt_s([d["merge"] for d in res]),
        statistics.median([d["cpu"] for d in res]), statistics.median([d["hwm"] for d in res]),
        statistics.median([d["hwm_run"] for d in res]), statistics.median([d["bytes"] for d in res]),
        fmt_s([d["wall"] for d in res])))
    finalize_million.headline = statistics.median([d["merge"] for d in res])
finalize_million.headline = None


MERGE_CPU = re.compile(r"hprof: merge: .*\(this rank's CPU time ([0-9., ]+) s\)")
MERGE_HWM = re.compile(r"merge_scale: (\d+) ranks, hwm (\d+) KB before, (\d+) KB after")

def merge_scale(lines):
    """Issue 41: the merge at MPI_Finalize as P grows, real (P ranks
    oversubscribed) and simulated (2 ranks x HPROF_SIMULATE_RANKS), both
    MPI libraries: merge+write, rank 0's CPU in the merge, rank 0's peak
    memory growth in MPI_Finalize, the file's members. Run by name only
    (BENCH_ONLY=mergescale): the 100k-rank runs write 38 MB files."""
    print("bench: merge scale, real and simulated ranks", flush=True)
    reps = max(1, min(RUNS, 3))
    real = [int(x) for x in os.environ.get("BENCH_MERGE_P", "8,32,64").split(",") if x]
    sim = [int(x) for x in os.environ.get("BENCH_MERGE_K", "8192,50000").split(",") if x]
    exes = {}
    for mpi in ("openmpi", "mpich"):
        if os.path.exists(os.path.join(BUILD, mpi, "libhprof.so")):
            exes[mpi] = os.path.join(OUT, "merge_scale." + mpi)
            sh(["mpicc." + mpi, "-O2", "-g", os.path.join(ROOT, "bench", "merge_scale.c"), "-o", exes[mpi]])
    out = os.path.join(OUT, "merge_scale.cubex")
    rows = []
    for mpi in exes:
        # every rank's row, and above HPROF_LOCATIONS=auto's 16384 ranks also the reduced file
        runs = [(p, 1, "all") for p in real] + [(2, k, "all") for k in sim] + \
            [(2, k, "reduced") for k in sim if 2 * k > 16384]
        for np_, k, loc in runs:
            res = []
            for _ in range(reps):
                el, o, e = mpi_job(np_, [exes[mpi]], {"HPROF_VERBOSE": "1", "HPROF_OUTPUT": out,
                                                      "HPROF_SIMULATE_RANKS": str(k), "HPROF_LOCATIONS": loc},
                                   mpi=mpi)
                w, c, h = WROTE.search(e), MERGE_CPU.search(e), MERGE_HWM.search(o)
                if not (w and c and h):
                    raise RuntimeError("%s %d x %d: no wrote, merge or merge_scale line: %s"
                                       % (mpi, np_, k, (e + o)[-300:]))
                members = {}
                for name, size in tar_members(out):
                    kind = "data" if name.endswith(".data") or name.endswith(".index") else name
                    members[kind] = members.get(kind, 0) + size
                res.append({"merge": float(w.group(5)), "bytes": int(w.group(2)),
                            "cpu": sum(float(x) for x in c.group(1).split(",")),
                            "hwm": (int(h.group(3)) - int(h.group(2))) / 1024.0, "members": members})
            med = lambda key: statistics.median(d[key] for d in res)
            mem = lambda kind: statistics.median(d["members"].get(kind, 0) for d in res) / 1024.0
            rows.append("| %s | %d | %s | %s | %.3f s | %.1f MB | %.0f / %.0f / %.0f KB |" % (
                "Open MPI" if mpi == "openmpi" else "MPICH", np_ * k,
                ("%d x %d simulated" % (np_, k) if k > 1 else "real") + (", reduced" if loc == "reduced" else ""),
                fmt_s([d["merge"] for d in res]),
                med("cpu"), med("hwm"), mem("data"), mem("anchor.xml"), mem("hprof.timeline.z")))
    lines.append("\n## 6c. Merge scale: real and simulated ranks (issue 41)\n")
    lines.append("bench/merge_scale.c (call trees that differ by rank, 100 Hz, HPROF_VERBOSE=1) on P ranks "
                 "oversubscribed on %d cores, or on 2 ranks with HPROF_SIMULATE_RANKS=K (each rank stands for "
                 "K in the merge: its values made K times at its aggregator, 2K processes in the file); %d "
                 "rounds, median (min..max). merge+write: rank 0's line; CPU: rank 0's in the merge; memory: "
                 "rank 0's VmHWM growth in MPI_Finalize; members: values (data+index), anchor.xml, time line. "
                 "Every rank's row (HPROF_LOCATIONS=all), and above 16384 ranks also reduced (HPROF_LOCATIONS=reduced: "
                 "six locations, sum, min, max and three key ranks). BENCH_MERGE_P and BENCH_MERGE_K choose the "
                 "runs.\n" % (os.cpu_count(), reps))
    lines.append("| MPI | processes | ranks | merge+write | rank 0 CPU | rank 0 memory | values / anchor / time line |")
    lines.append("|---|---|---|---|---|---|---|")
    lines.extend(rows)
    merge_floor(lines, exes)

MERGE_PHASES = ("local profile", "unified definitions", "written", "values", "time line")
MERGE_WALL = re.compile(r"hprof: merge: " + ", ".join(r"%s ([0-9.]+) s" % p for p in MERGE_PHASES))
FLOOR_LINE = re.compile(r"merge_floor: (\d+) ranks, " + ", ".join(r"%s ([0-9.]+) s" % p for p in MERGE_PHASES[1:]) +
                        r", merge\+write ([0-9.]+) s")

def merge_floor(lines, exes):
    """Issue 41's merge+write against what its MPI rounds cost on this machine: per
    phase, rank 0's wall time under hprof (HPROF_VERBOSE=1) and in bench/merge_floor.c,
    which makes the same rounds with payloads of a few bytes and no work (the floor).
    BENCH_MERGE_FLOOR_P chooses the ranks; BENCH_MERGE_BEFORE, a build folder (a copy of
    build/ before a change), adds its library as a variant, alternated with this one."""
    ps = [int(x) for x in os.environ.get("BENCH_MERGE_FLOOR_P", "8,16,32,64").split(",") if x]
    if not ps or not exes:
        return
    reps = max(1, min(RUNS, 3))
    before = os.environ.get("BENCH_MERGE_BEFORE")
    out = os.path.join(OUT, "merge_floor.cubex")
    rows, growth, loads = [], [], []
    for mpi in exes:
        floor = os.path.join(OUT, "merge_floor." + mpi)
        sh(["mpicc." + mpi, "-O2", os.path.join(ROOT, "bench", "merge_floor.c"), "-o", floor])
        libs = [("hprof", os.path.join(BUILD, mpi, "libhprof.so"))]
        if before:
            libs.insert(0, ("hprof before", os.path.join(before, mpi, "libhprof.so")))
        for np_ in ps:
            res = {label: [] for label, _ in libs + [("floor", None)]}
            for _ in range(reps):
                for label, lib in libs:
                    _, o, e = mpi_job(np_, [exes[mpi]], {"HPROF_VERBOSE": "1", "HPROF_OUTPUT": out}, mpi=mpi,
                                      preload=lib)
                    m, w = MERGE_WALL.search(e), WROTE.search(e)
                    if not (m and w):
                        raise RuntimeError("%s %d: no merge or wrote line: %s" % (mpi, np_, (e + o)[-300:]))
                    res[label].append([float(x) for x in m.groups()] + [float(w.group(5))])
                    loads.append(os.getloadavg()[0])
                _, o, e = mpi_job(np_, [floor], mpi=mpi)
                f = FLOOR_LINE.search(o)
                if not f:
                    raise RuntimeError("%s %d: no merge_floor line: %s" % (mpi, np_, (e + o)[-300:]))
                res["floor"].append([0.0] + [float(x) for x in f.groups()[1:]])
            for label in res:
                med = [statistics.median(r[i] for r in res[label]) for i in range(6)]
                rows.append((mpi, np_, label, med))
        for label in [l for l, _ in libs]:
            first = [r for r in rows if r[0] == mpi and r[1] == ps[0]]
            last = [r for r in rows if r[0] == mpi and r[1] == ps[-1]]
            a = {r[2]: r[3][5] for r in first}
            b = {r[2]: r[3][5] for r in last}
            if len(ps) > 1:
                span = ps[-1] - ps[0]
                growth.append("| %s | %s | %.2f ms | %.2f ms | **%.2f ms** |" % (
                    "Open MPI" if mpi == "openmpi" else "MPICH", label, 1e3 * (b[label] - a[label]) / span,
                    1e3 * (b["floor"] - a["floor"]) / span,
                    1e3 * ((b[label] - b["floor"]) - (a[label] - a["floor"])) / span))
    lines.append("\nIssue 41's merge+write against its rounds' floor: rank 0's wall time per phase under hprof "
                 "(bench/merge_scale.c, HPROF_VERBOSE=1, the default time line) and in bench/merge_floor.c (no "
                 "hprof: the merge's collectives, binomial and aggregator tree passes and clock round trips, "
                 "waited for as the merge waits, with payloads of a few bytes), alternated, %d rounds, median; "
                 "load %.1f-%.1f. `BENCH_RUNS=%d BENCH_ONLY=mergescale BENCH_MERGE_K= BENCH_MERGE_P= "
                 "BENCH_MERGE_FLOOR_P=%s bench/run.py`%s.\n" % (
                     reps, min(loads), max(loads), RUNS, ",".join(str(p) for p in ps),
                     " with BENCH_MERGE_BEFORE (the library before a change)" if before else ""))
    lines.append("| MPI | ranks | run | local profile | unified definitions | written | values | time line | "
                 "merge+write |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for mpi, np_, label, med in rows:
        lines.append("| %s | %d | %s | %s |" % ("Open MPI" if mpi == "openmpi" else "MPICH", np_, label,
                                               " | ".join("%.3f s" % v for v in med)))
    if growth:
        lines.append("\nGrowth a rank from %d to %d ranks:\n" % (ps[0], ps[-1]))
        lines.append("| MPI | run | merge+write | floor | merge+write minus floor |")
        lines.append("|---|---|---|---|---|")
        lines.extend(growth)

def tar_members(path):
    import tarfile
    with tarfile.open(path) as t:
        return [(m.name, m.size) for m in t.getmembers()]

def headline(lines):
    """The figures the README quotes, and the settings that differ from the defaults."""
    lines.append("\n## Headline\n")
    d = dilation_rows.headline
    if "drops" in d:
        lines.append("- Dilation at 100 Hz, 2 ranks: drops_mini %+.2f%%%s (goal: under 1%%)." % (
            d["drops"], ", LAMMPS melt %+.2f%%" % d["lammps"] if "lammps" in d else ""))
    if instrumentation.headline:
        h, i = instrumentation.headline
        lines.append("- drops_mini under full compiler instrumentation: %+.0f%% (%.1fx); under hprof: %+.2f%%."
                     % (i, 1 + i / 100, h))
    if finalize_million.headline:
        lines.append("- A profile of 1M call paths x 4 ranks written at MPI_Finalize in %.2f s (goal: under 3 s)."
                     % finalize_million.headline)
    if finalize_cost.headline:
        lines.append("- Merge and write at MPI_Finalize: " + ", ".join(
            "%.2f s on %d ranks" % (v, n) for n, v in sorted(finalize_cost.headline.items())) +
            " (oversubscribed on %d cores)." % os.cpu_count())
    settings = " ".join("%s=%s" % (k, v) for k, v in sorted(os.environ.items())
                        if k.startswith("BENCH_") and k not in ("BENCH_RUNS", "BENCH_MPI"))
    if settings:
        lines.append("- Settings: %s." % settings)

def main():
    os.makedirs(OUT, exist_ok=True)
    if not os.path.exists(LIB):
        sys.exit("bench: %s missing; run make first" % LIB)
    exe = build("callcost")
    cpu = processor()
    lines = ["# hprof benchmark results", "",
             "Written by `make bench` (bench/run.py) on %s." % time.strftime("%Y-%m-%d %H:%M %Z"),
             "Machine: %d cores, %s, %s. MPI: %s. Runs per variant: %d, alternated; median (min..max)."
             % (os.cpu_count(), cpu, platform.platform(), MPI, RUNS),
             "Command: `make bench` (BENCH_RUNS=%d BENCH_MPI=%s%s)." % (
                 RUNS, MPI, " BENCH_ONLY=" + os.environ["BENCH_ONLY"] if os.environ.get("BENCH_ONLY") else "")]
    only = [s for s in os.environ.get("BENCH_ONLY", "").split(",") if s]
    loads = [os.getloadavg()[0]]
    sections = (("percall", lambda: per_call(exe, lines)), ("pollacc", lambda: guarded(poll_accuracy, lines)),
                ("thunks", lambda: thunks(exe, lines)),
                ("unwind", lambda: unwind_speed(exe, lines)), ("threads", lambda: per_call_threads(exe, lines)),
                ("sample", lambda: per_sample(exe, lines)), ("python", lambda: guarded(per_sample_python, lines)),
                ("papi", lambda: papi_cost(lines)),
                ("dilation", lambda: guarded(dilation, lines)),
                ("snapshots", lambda: guarded(snapshots, lines)),
                ("hpccfloor", lambda: guarded(hpcc_floor, lines)),
                ("hpccab", lambda: guarded(hpcc_poll_ab, lines)),
                ("instrumentation", lambda: guarded(instrumentation, lines)),
                ("exact", lambda: guarded(exact_section, lines)),
                ("finalize", lambda: guarded(finalize_cost, lines)),
                ("million", lambda: guarded(finalize_million, lines)),
                ("mergescale", lambda: guarded(merge_scale, lines)))
    bad = set(only) - {name for name, _ in sections}
    if bad:
        sys.exit("bench: BENCH_ONLY: unknown section(s) %s; known: %s" %
                 (",".join(sorted(bad)), ",".join(name for name, _ in sections)))
    by_name_only = {"mergescale"}
    for name, run_section in sections:
        if (not only and name not in by_name_only) or name in only:
            run_section()
    loads.append(os.getloadavg()[0])
    if not only:
        headline(lines)
    text = "\n".join(lines) + "\n"
    print(text)
    write_results(text, run_line(only, loads) if only else None)

def split_at(text, prefix):
    """[(heading or '', body)]: the text cut before each line that starts with prefix."""
    out, cur, head = [], [], ""
    for line in text.split("\n"):
        if line.startswith(prefix):
            out.append((head, "\n".join(cur)))
            cur, head = [], line
        cur.append(line)
    out.append((head, "\n".join(cur)))
    return out

def split_sections(text):
    """The text cut before each '## ' heading."""
    return split_at(text, "## ")

def section_key(heading):
    """A section's identity: its heading up to the first ':' ("## 1. Per-call cost")."""
    return heading.split(":", 1)[0].strip()

def keep_run_before(new_body, old_body):
    """new_body, then old_body's own part as "### The run before", then
    old_body's subsections, its own "run before" now "Earlier" (hand-written
    notes live there: nothing is dropped)."""
    lines = old_body.split("\n")[1:]  # without its "## " heading
    subs = split_at("\n".join(lines), "### ")
    before = subs[0][1].strip("\n")
    out = new_body.rstrip("\n") + "\n"
    if before:
        out += "\n### The run before\n\n" + before + "\n"
    for head, body in subs[1:]:
        if head.startswith("### The run before"):
            body = "### Earlier" + body[len("### The run before"):]
        out += "\n" + body.strip("\n") + "\n"
    return out + "\n"

def log_run(header, logged):
    """The header's list of runs, logged first (after the header's prose)."""
    lines = header.split("\n")
    at = next((i for i, l in enumerate(lines) if l.startswith("- ")), None)
    if at is None:
        at = len(lines)
        while at > 0 and not lines[at - 1].strip():
            at -= 1
    return "\n".join(lines[:at] + [logged] + lines[at:])

def merge_partial(old, new, logged):
    """old, with each section that new holds replaced (same section_key) and
    the old text kept below it as "### The run before"; new's sections that
    old lacks added at the end; old's header kept, logged added to its
    list of runs. A partial run must not lose what earlier runs wrote."""
    fresh = split_sections(new)
    by_key = {section_key(h): body for h, body in fresh[1:]}
    stale = split_sections(old)
    out, used = [log_run(stale[0][1], logged) if old else fresh[0][1]], set()
    for h, body in stale[1:]:
        k = section_key(h)
        if k in by_key:
            out.append(keep_run_before(by_key[k], body))
            used.add(k)
        else:
            out.append(body)
    out += [body for h, body in fresh[1:] if section_key(h) not in used]
    return "\n".join(out)

def processor():
    """The processor's name with its family and model: a VM's name ("AMD EPYC") does not tell its
    generation, and the clock's cost and what overlaps it differ between generations (issue 42)."""
    info = {}
    for line in open("/proc/cpuinfo"):
        k, _, v = line.partition(":")
        info.setdefault(k.strip(), v.strip())
        if not line.strip():
            break
    return "%s (family %s, model %s)" % (info.get("model name", "?"), info.get("cpu family", "?"),
                                          info.get("model", "?"))

def run_line(only, loads):
    """The header's line for a partial run: sections, date, load, processor, commit."""
    cpu = processor()
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "?"
    except OSError:
        commit = "?"
    return ("- %s on %s, load %.1f-%.1f, %d cores of an %s, main at %s (`BENCH_RUNS=%d BENCH_MPI=%s "
            "BENCH_ONLY=%s`); the run before it kept below its tables" %
            ("section(s) " + ",".join(only), time.strftime("%Y-%m-%d %H:%M %Z"), min(loads), max(loads),
             os.cpu_count(), cpu, commit, RUNS, MPI, ",".join(only)))

def write_results(text, logged=None):
    """Replaces bench/RESULTS.md (with BENCH_ONLY, given logged, the run's line: only the
    sections run, merge_partial) but keeps the block `make soak` wrote there."""
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    old = open(path).read() if os.path.exists(path) else ""
    begin, end = old.find("<!-- soak:begin -->"), old.find("<!-- soak:end -->")
    if logged:
        rest = old[:begin] + old[end + len("<!-- soak:end -->"):] if begin >= 0 and end > begin else old
        text = merge_partial(rest, text, logged).rstrip("\n") + "\n"
    if begin >= 0 and end > begin:
        text += "\n" + old[begin:end + len("<!-- soak:end -->")] + "\n"
    with open(path, "w") as f:
        f.write(text)

def million_only():
    """bench/run.py million: section 6b alone, replaced in bench/RESULTS.md."""
    os.makedirs(OUT, exist_ok=True)
    lines = []
    finalize_million(lines)
    text = "\n".join(lines).lstrip("\n") + "\n"
    print(text)
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    old = open(path).read()
    a = old.find("## 6b.")
    b = old.find("\n## ", a + 1) if a >= 0 else old.find("\n## Headline")
    if a < 0:
        a = b + 1
    with open(path, "w") as f:
        f.write(old[:a] + text + old[b:])

if __name__ == "__main__":
    if sys.argv[1:] == ["million"]:
        million_only()
    else:
        main()
