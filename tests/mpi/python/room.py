# N functions g_<i> made from one compiled function with a long body (its
# line table over 16 KiB) by code.replace, each kept alive and called once:
# a COMM_SELF Barrier on its line 3. Their line tables' copies use up
# hprof's room for them after about a thousand; names never run out.
import sys, types
from mpi4py import MPI
N, L = int(sys.argv[1]), int(sys.argv[2])
comm = MPI.COMM_SELF
body = "".join("    x = %d\n" % k for k in range(L))
proto = compile("def g(comm):\n    x = 0\n    comm.Barrier()\n%s" % body, "<room>", "exec")
code = next(c for c in proto.co_consts if isinstance(c, types.CodeType))
keep = []
for i in range(N):
    c = code.replace(co_name="g_%d" % i, co_qualname="g_%d" % i)
    f = types.FunctionType(c, globals())
    f(comm)
    keep.append(f)
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.Get_rank() == 0:
    print("done", N)
