# Functions compiled, called once and dropped, N of them: f_<i> sends i+1
# bytes to itself (COMM_SELF Sendrecv) and is freed before the next one is
# compiled, so the next code object takes its address (and its names'
# and line table's). On the path ...;f_<i>;...;MPI_Sendrecv every visit
# must carry i+1 bytes: any other count is another function's call.
import sys
from mpi4py import MPI
N = int(sys.argv[1])
comm = MPI.COMM_SELF
def main():
    for i in range(N):
        ns = {}
        exec(compile("def f_%d(comm, s, r):\n    comm.Sendrecv(s, 0, 0, r, 0, 0)\n" % i, "<gen%d>" % i, "exec"), ns)
        s = bytearray(i + 1)
        r = bytearray(i + 1)
        ns["f_%d" % i](comm, s, r)
        del ns
main()
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.Get_rank() == 0:
    print("done", N)
