#!/usr/bin/env python3
"""make bench: hprof's overhead, measured side by side in one run.

Every comparison alternates its variants (A B C A B C ...) so that drifting
machine load hits all of them alike, repeats them, and prints the median and
the spread (min..max). Writes bench/RESULTS.md. A benchmark, not a test: it
prints and never fails because the machine is slow.
"""
import os
import platform
import re
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
    """One singleton run; hprof: None (no tool) or a dict of HPROF_ settings."""
    env = dict(ENV)
    if hprof is not None:
        env["LD_PRELOAD"] = LIB
        env.update(hprof)
    r = sh([exe] + [str(a) for a in args], env)
    value = float(r.stdout.split()[1])
    m = re.search(r"(\d+) samples counted", r.stderr)
    h = re.search(r"([0-9.]+) us per sample in the handler", r.stderr)
    run.handler_us = float(h.group(1)) if h else 0.0
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

def per_call(exe, lines):
    lines.append("\n## 1. Per-call cost: MPI_Barrier(MPI_COMM_SELF), one rank\n")
    lines.append("| depth | no tool | hprof, counting only (HPROF_NOUNWIND=all) | hprof, call paths | call-path cost above no tool |")
    lines.append("|---|---|---|---|---|")
    off = {"HPROF_SAMPLING_HZ": "0"}
    for depth in (10, 50):
        variants = [("none", None), ("count", dict(off, HPROF_NOUNWIND="all")), ("paths", off)]
        r, _ = side_by_side(variants, exe, ["calls", depth, 200000])
        extra = statistics.median(r["paths"]) - statistics.median(r["none"])
        lines.append("| %d | %s | %s | %s | %.1f ns |" % (depth, fmt(r["none"], "ns"), fmt(r["count"], "ns"),
                                                        fmt(r["paths"], "ns"), extra))

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

def per_sample(exe, lines):
    lines.append("\n## 2. Per-sample cost (signal delivery, unwind, tree update), one rank\n")
    lines.append("Fixed arithmetic at the given depth, sampling off vs 1000 Hz. Cost per sample from the run "
                 "time difference (includes signal delivery, noisy on a loaded machine) and as measured "
                 "inside the handler (unwind + tree update).\n")
    lines.append("| depth | run time, sampling off | run time, 1000 Hz | samples | cost per sample (run time) | in the handler |")
    lines.append("|---|---|---|---|---|---|")
    costs = {}
    for depth in (10, 50):
        variants = [("off", {"HPROF_SAMPLING_HZ": "0"}),
                    ("on", {"HPROF_SAMPLING_HZ": "1000", "HPROF_VERBOSE": "1"})]
        r, s = side_by_side(variants, exe, ["spin", depth, 300000000])
        n = statistics.median(s["on"])
        cost = (statistics.median(r["on"]) - statistics.median(r["off"])) / max(n, 1)
        costs[depth] = cost
        lines.append("| %d | %s | %s | %d | %.2f us | %s |" % (depth, fmt([v * 1e3 for v in r["off"]], "ms"),
                                                       fmt([v * 1e3 for v in r["on"]], "ms"), n, cost * 1e6,
                                                       fmt(side_by_side.handler_us, "us")))
    lines.append("\nAt 100 Hz the run-time estimate is %.4f%% of run time at depth 10 and %.4f%% at depth 50 "
                 "(goal: under 0.1%%)." % (costs[10] * 100 * 100, costs[50] * 100 * 100))

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

def main():
    os.makedirs(OUT, exist_ok=True)
    if not os.path.exists(LIB):
        sys.exit("bench: %s missing; run make first" % LIB)
    exe = build("callcost")
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    lines = ["# hprof benchmark results", "",
             "Written by `make bench` (bench/run.py) on %s." % time.strftime("%Y-%m-%d %H:%M %Z"),
             "Machine: %d cores, %s, %s. MPI: %s. Runs per variant: %d, alternated; median (min..max)."
             % (os.cpu_count(), cpu, platform.platform(), MPI, RUNS),
             "Command: `make bench` (BENCH_RUNS=%d BENCH_MPI=%s)." % (RUNS, MPI)]
    per_call(exe, lines)
    per_call_threads(exe, lines)
    per_sample(exe, lines)
    papi_cost(lines)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(ROOT, "bench", "RESULTS.md"), "w") as f:
        f.write(text)

if __name__ == "__main__":
    main()
