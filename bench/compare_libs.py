#!/usr/bin/env python3
"""Two or more builds of libhprof side by side on bench/callcost.c, one rank.

    bench/compare_libs.py [--rounds R] [--instructions] MODE[:DEPTH[:VAR=VALUE...]]... -- NAME=BUILD_DIR...

Each BUILD_DIR holds openmpi/libhprof.so and mpich/libhprof.so (a `make all`
tree's build/, e.g. of a `git worktree` at an older commit). Timing: the
calling thread's CPU time a call under Open MPI, the builds and no tool
alternated R times, medians. --instructions: callgrind's instructions a call
under MPICH instead (the difference of two runs, 20k and 120k calls): they
do not move with the machine's load, so a before/after on a shared machine
has one number it can trust. Used for the moves of issue 40 (RESULTS.md
section 1)."""
import os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl="self,vader",
           HYDRA_LAUNCHER="fork", HPROF_SAMPLING_HZ="0")

def build_callcost(mpi, tmp):
    exe = os.path.join(tmp, "callcost." + mpi)
    subprocess.run(["mpicc." + mpi, "-O2", "-g", os.path.join(ROOT, "bench", "callcost.c"), "-o", exe], check=True)
    return exe

def env_for(lib, extra, tmp):
    e = dict(ENV, HPROF_OUTPUT=os.path.join(tmp, "p.cubex"))
    e.update(x.split("=", 1) for x in extra)
    if lib:
        e["LD_PRELOAD"] = lib
    return e

def ns_a_call(exe, mode, depth, lib, extra, tmp):
    out = subprocess.run([exe, mode, depth, "1000000"], env=env_for(lib, extra, tmp), capture_output=True,
                         text=True, check=True).stdout
    return float(out.split()[1])

def instructions(exe, mode, depth, lib, extra, tmp):
    def total(n):
        cg = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg, exe, mode, depth, str(n)],
                       env=env_for(lib, extra, tmp), capture_output=True, check=True)
        with open(cg) as f:
            return next(int(l.split()[1]) for l in f if l.startswith(("summary:", "totals:")))
    return (total(120000) - total(20000)) / 100000

def main(argv):
    rounds, count = 5, False
    while argv and argv[0].startswith("--"):
        a = argv.pop(0)
        if a == "--rounds":
            rounds = int(argv.pop(0))
        elif a == "--instructions":
            count, rounds = True, 1
        else:
            sys.exit("compare_libs: unknown option " + a)
    if "--" not in argv:
        sys.exit(__doc__)
    k = argv.index("--")
    modes, builds = argv[:k], [b.split("=", 1) for b in argv[k + 1:]]
    mpi = "mpich" if count else "openmpi"
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_callcost(mpi, tmp)
        measure = instructions if count else ns_a_call
        res = {}
        for _ in range(rounds):
            for m in modes:
                mode, depth, *extra = (m.split(":") + ["10"])[:2] + m.split(":")[2:]
                for name, lib in [("none", None)] + [(n, os.path.join(d, mpi, "libhprof.so")) for n, d in builds]:
                    res.setdefault((m, name), []).append(measure(exe, mode, depth, lib, extra, tmp))
        unit = "instructions" if count else "ns"
        for m in modes:
            base = statistics.median(res[(m, "none")])
            print("%s: " % m + ", ".join("%s %.1f %s (+%.1f)" % (n, statistics.median(res[(m, n)]), unit,
                                                                statistics.median(res[(m, n)]) - base)
                                         for n in ["none"] + [b[0] for b in builds]) +
                  ", load %.1f" % os.getloadavg()[0])

if __name__ == "__main__":
    main(sys.argv[1:])
