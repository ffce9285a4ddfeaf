# A short mpi4py program that does what made high sampling rates never end
# with Python frames named: numpy imported after MPI (an import is some
# twenty activations of the interpreter deep, its code objects new), then
# pure Python at depth DEPTH (a chain of distinct functions, then a
# recursion) with an Allreduce now and then. Fixed work, no clock.
import sys
from mpi4py import MPI
import numpy as np
DEPTH, WORK = int(sys.argv[1]), int(sys.argv[2])
comm = MPI.COMM_WORLD
a = np.ones(4)
b = np.empty(4)
def spin(n):
    s = 0
    for i in range(n):
        s += i
    return s
def recurse(d):
    if d == 0:
        for _ in range(10):
            spin(WORK // 10)
            comm.Allreduce(a, b)
        return 0
    return recurse(d - 1) + 1
chain = "\n".join("def c%d(): return c%d()" % (k, k + 1) for k in range(50))
exec(chain + "\ndef c50(): return recurse(%d)\n" % DEPTH, globals())
c0()
comm.Barrier()
if comm.Get_rank() == 0:
    print("done")
