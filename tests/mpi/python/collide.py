# Two live code objects that take the same slot of hprof's per-thread cache
# of code identities (unwind/python/py_ident.c: cache_index, the same
# formula here; python_deep.sh checks that it is), one calling the other:
# outer(inner) spins in inner. A sample reads both in one walk; where the
# cache held the inner one and the outer one was read anew, the inner
# frames were named after the outer code (CI's '<module>;<module>;...' at
# D=600: <module> and recurse shared a slot in one rank). Many functions of each kind are compiled (code objects
# at addresses of their own) until an outer and an inner one share a slot.
# Each rank prints its pair's slot, or "no pair" (the check says so).
# Arguments: the spin's iterations, the cache's slots (PY_IDENT_CACHE).
import sys
from mpi4py import MPI

GOLDEN = 0x9E3779B97F4A7C15


def slot(code):
    return ((((id(code) >> 4) * GOLDEN) & (2**64 - 1)) >> 40) & (SLOTS - 1)


OUTER = "def outer(f, n):\n    return f(n) + 1\n"
INNER = "def inner(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
SPIN, SLOTS = int(sys.argv[1]), int(sys.argv[2])
keep, outers, pair = [], {}, None
for _ in range(400):
    g = {}
    exec(compile(OUTER, __file__, "exec"), g)
    keep.append(g["outer"])
    outers.setdefault(slot(g["outer"].__code__), g["outer"])
for _ in range(400):
    g = {}
    exec(compile(INNER, __file__, "exec"), g)
    keep.append(g["inner"])
    s = slot(g["inner"].__code__)
    if s in outers:
        pair = (outers[s], g["inner"], s)
        break
comm = MPI.COMM_WORLD
comm.Barrier()
if pair:
    pair[0](pair[1], SPIN)
comm.Barrier()
print("rank %d: %s" % (comm.Get_rank(), "slot %d" % pair[2] if pair else "no pair"), flush=True)
comm.Barrier()
if comm.Get_rank() == 0:
    print("done")
