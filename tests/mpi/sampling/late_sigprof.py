# A Python program's own profiler on SIGPROF, started after MPI_Init (the
# import of mpi4py): ITIMER_PROF every 5 ms of CPU time over 1 s of CPU
# time. Prints "own RANK TICKS EXPECTED" (EXPECTED: the ticks ITIMER_PROF
# owes for the process's CPU time while it ran), the ranks in turn.
import signal, time
from mpi4py import MPI
ticks = 0
def on_prof(sig, frame):
    global ticks
    ticks += 1
signal.signal(signal.SIGPROF, on_prof)
start = time.process_time()
signal.setitimer(signal.ITIMER_PROF, 0.005, 0.005)
s = 0
while time.process_time() - start < 1.0:
    s += 1
signal.setitimer(signal.ITIMER_PROF, 0, 0)
spent = time.process_time() - start
comm = MPI.COMM_WORLD
# one rank's line at a time, whole: the launcher's forwarding of two ranks'
# output interleaved a line with another's
for r in range(comm.Get_size()):
    if r == comm.Get_rank():
        print("own %d %d %d" % (r, ticks, int(spent / 0.005)), flush=True)
    comm.Barrier()
