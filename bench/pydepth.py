# bench/run.py section python: fixed pure-Python work (N additions) at
# the bottom of a recursion D frames deep, one rank; prints the CPU time
# of the work as its thread measures it (the sampling handler runs on the
# thread; hprof's learner thread, which may be busy then, does not count).
import sys
import time
from mpi4py import MPI
D, N = int(sys.argv[1]), int(sys.argv[2])
sys.setrecursionlimit(D + 1000)
def spin(n):
    s = 0
    for i in range(n):
        s += i
    return s
def rec(d):
    return spin(N) if d == 0 else rec(d - 1) + 1
t = time.thread_time()
rec(D)
print("work", time.thread_time() - t)
MPI.COMM_WORLD.Barrier()
