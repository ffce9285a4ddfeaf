# Python recursion D frames deep: recurse(D) -> ... -> recurse(0), which
# calls comm.Allreduce REPS times, then spins in pure Python for SPIN
# iterations (samples at the bottom of the deep stack).
import sys
sys.setrecursionlimit(100000)
from mpi4py import MPI
import numpy as np
D, REPS, SPIN = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
comm = MPI.COMM_WORLD
a = np.ones(1)
b = np.empty(1)
def spin():
    s = 0
    for i in range(SPIN):
        s += i
    return s
def recurse(d):
    if d == 0:
        for _ in range(REPS):
            comm.Allreduce(a, b)
        spin()
        return 0
    return recurse(d - 1) + 1
recurse(D)
if comm.Get_rank() == 0:
    print("done", D)
