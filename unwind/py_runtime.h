/*
 * py_runtime.h - CPython inside this process, found at run time (dlsym:
 * hprof never links libpython), and its frames read as the interpreter
 * keeps them: each activation of the evaluation loop
 * (_PyEval_EvalFrameDefault) has a _PyCFrame on the C stack, chained from
 * the thread state (tstate->cframe); its current_frame starts the chain
 * of _PyInterpreterFrame (f_code, prev_instr, previous) down to the
 * activation's entry frame. Only CPython 3.11's layout is known (offsets
 * checked against its headers by tests/common/py_offsets.sh); with other
 * versions call paths keep the interpreter's C frames and HPROF_VERBOSE=1
 * says so once.
 *
 * The thread state is the calling thread's own (the interpreter's
 * per-thread key, PyGILState_GetThisThreadState), never the GIL holder's:
 * mpi4py releases the GIL around MPI calls. Nothing takes the GIL or a
 * lock, nothing allocates. Reads are plain loads in an MPI call (the
 * thread is in a C call made by the evaluation loop: every frame of its
 * chain is live and complete); in a signal handler, which may interrupt
 * the interpreter half-way through pushing or popping a frame, every read
 * goes through process_vm_readv, which fails on an unmapped address
 * instead of faulting, and every code object is checked to be one
 * (its type is PyCode_Type) before anything else of it is read.
 */
#ifndef HPROF_PY_RUNTIME_H
#define HPROF_PY_RUNTIME_H

#include <stdint.h>

#define PY_ACTS_MAX 64

/* Set once by py_runtime_init: Python frames are read (on) in MPI calls,
 * and in signal handlers (samples_on: process_vm_readv works here). */
extern int py_runtime_on, py_runtime_samples_on;

/* At the start of the measurement (not from a signal handler): looks
 * for CPython, checks its version, reserves the code table. enabled: the
 * user's setting (HPROF_PYTHON). */
void py_runtime_init(int enabled);

/* pc lies in the evaluation loop's function (its main part: a compiler's
 * split-off cold part is not known). */
int py_runtime_in_eval(uint64_t pc);

/* The calling thread's activations of the evaluation loop whose _PyCFrame
 * lies in [lo, hi) (its stack, from the walk's sp), innermost first:
 * their _PyCFrame's address and current frame. The count (0: no Python
 * here). safe: from a signal handler. */
typedef struct py_acts {
    int n;
    uint64_t cframe[PY_ACTS_MAX], frame[PY_ACTS_MAX];
} py_acts;
int py_runtime_activations(py_acts *a, uint64_t lo, uint64_t hi, int safe);

/* The tree keys (cct.h: CCT_KEY_PY) of one activation's Python frames,
 * from its current frame to its entry frame, innermost first: their
 * count, or -1 when a frame or code object does not check out or there
 * are more than max. Code objects met for the first time are copied
 * into the code table (py_codes.h). */
int py_runtime_frames(uint64_t frame, uint64_t *keys, int max, int safe);

#endif
