# pyframes_script.py - Python functions in call paths, for python_frames.sh.
# Known counts per path (argv: OUTER INNER STEPS ITEMS DEPTH SPIN):
#   main -> outer -> inner -> comm.Allreduce     OUTER x INNER calls
#   main -> Stepper.step -> comm.Barrier          STEPS calls
#   main -> produce (a generator) -> comm.Bcast   ITEMS calls
#   main -> recurse x (DEPTH + 1) -> comm.Allreduce   once
#   main -> make_and_drop -> transient -> comm.Allreduce   3 times, from
#   code compiled at run time and freed (memory reused) long before
#   MPI_Finalize names it
#   main -> spin: a pure-Python loop of SPIN iterations (samples), while a
#   thread runs worker_spin, the same loop (samples on another thread)
# The lines marked '# @NAME' are found by the test.
import sys
import threading
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
OUTER, INNER, STEPS, ITEMS, DEPTH, SPIN = (int(x) for x in sys.argv[1:7])
a = np.ones(1)
b = np.empty(1)


def inner():  # @def_inner
    for _ in range(INNER):
        comm.Allreduce(a, b)  # @allreduce


def outer():
    for _ in range(OUTER):
        inner()  # @call_inner


class Stepper:
    def step(self):
        comm.Barrier()  # @barrier


def produce(k):
    buf = np.zeros(4)
    for i in range(k):
        comm.Bcast(buf, root=0)  # @bcast
        yield i


def recurse(d):
    if d == 0:
        comm.Allreduce(a, b)
    else:
        recurse(d - 1)


def make_and_drop():
    ns = {}
    exec(compile("def transient(comm, a, b):\n    comm.Allreduce(a, b)\n", "<generated>", "exec"), ns)
    ns["transient"](comm, a, b)


def spin(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def worker_spin(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def main():
    outer()
    stepper = Stepper()
    for _ in range(STEPS):
        stepper.step()
    total = sum(produce(ITEMS))
    recurse(DEPTH)
    for _ in range(3):
        make_and_drop()
    junk = [bytearray(200) for _ in range(20000)]  # over the freed code objects
    del junk
    worker = threading.Thread(target=worker_spin, args=(SPIN,))
    worker.start()
    spin(SPIN)
    worker.join()
    comm.Barrier()  # @last_barrier
    if comm.Get_rank() == 0:
        print("done", total)


main()
