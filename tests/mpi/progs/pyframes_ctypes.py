# pyframes_ctypes.py - MPI from any Python without mpi4py, for
# python_frames.sh: the MPI library (argv[1]) opened with ctypes, MPI_Init
# and MPI_Finalize looked up globally (so a preloaded libhprof's wrappers
# are the ones called), from a Python function.
import ctypes
import sys

ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
world = ctypes.CDLL(None)


def init_and_finalize():
    if world.MPI_Init(None, None) != 0 or world.MPI_Finalize() != 0:
        sys.exit(1)


init_and_finalize()
print("done")
