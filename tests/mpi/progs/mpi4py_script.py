# mpi4py_script.py - issue 14's mpi4py reproducer, for lang_mpi4py.sh.
# Per iteration: compute (numpy), pure_python_work, reduce_step (1
# MPI_Allreduce of 1 double), exchange (1 MPI_Send + 1 MPI_Recv of 1000
# doubles between ranks 0 and 1), pickled_bcast (comm.bcast: mpi4py sends
# the pickle's size and then its bytes, 2 MPI_Bcast); one MPI_Barrier at the
# end. Iterations: argv[1] (default 400, as in the reproducer).
import sys
from mpi4py import MPI
import numpy as np
import time

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()

def compute(n):
    a = np.random.rand(n, n)
    return float((a @ a).sum())

def pure_python_work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s

def reduce_step(x):
    buf = np.array([x], dtype='d')
    out = np.empty_like(buf)
    comm.Allreduce(buf, out, op=MPI.SUM)
    return out[0]

def exchange(it):
    data = np.full(1000, rank, dtype='d')
    recv = np.empty(1000, dtype='d')
    if rank == 0:
        comm.Send(data, dest=1, tag=it)
        comm.Recv(recv, source=1, tag=it)
    else:
        comm.Recv(recv, source=0, tag=it)
        comm.Send(data, dest=0, tag=it)
    return recv[0]

def pickled_bcast(it):
    obj = {"it": it, "payload": list(range(100))} if rank == 0 else None
    return comm.bcast(obj, root=0)

def main():
    total = 0.0
    for it in range(int(sys.argv[1]) if len(sys.argv) > 1 else 400):
        total += compute(120)
        total += pure_python_work(20000)
        total = reduce_step(total)
        exchange(it)
        pickled_bcast(it)
    comm.Barrier()
    if rank == 0:
        print("done", total)

main()
