/*
 * py_runtime.h - CPython inside this process, found at run time (dlsym:
 * hprof never links libpython), and its frames read as the interpreter
 * keeps them: each activation of the evaluation loop
 * (_PyEval_EvalFrameDefault) has a _PyCFrame on the C stack, chained from
 * the thread state (tstate->cframe); its current_frame starts the chain
 * of _PyInterpreterFrame (f_code, prev_instr, previous) down to the
 * activation's entry frame. Only CPython 3.11's layout is known
 * (py_layout.h); with other versions call paths keep the interpreter's C
 * frames and HPROF_VERBOSE=1 says so once.
 *
 * The thread state is the calling thread's own (the interpreter's
 * per-thread key, PyGILState_GetThisThreadState), never the GIL holder's:
 * mpi4py releases the GIL around MPI calls. Nothing takes the GIL or a
 * lock, nothing allocates. Reads are plain loads in an MPI call, and safe
 * reads (py_read.h) in a signal handler, where every code object is
 * checked to be one (its type is PyCode_Type) before anything else of it
 * is read.
 *
 * A walk's cost is bounded: in a signal handler it reads at most
 * PY_WALK_FRAMES frames with at most PY_WALK_READS system calls for them
 * (a deeper chain keeps its C frames in that sample), the code objects of
 * the chain are checked with one system call for all of them
 * (py_ident.h), and at most PY_WALK_NEW code objects new to the thread are
 * read (an activation with more keeps its C frames in that sample; the
 * next reads the next ones). A chain of more than PY_KEYS_MAX frames
 * keeps its outermost and innermost frames, with one "(python frames left
 * out)" frame between them.
 */
#ifndef HPROF_PY_RUNTIME_H
#define HPROF_PY_RUNTIME_H

#include <stdint.h>

#define PY_ACTS_MAX 64
#define PY_KEYS_MAX 512     /* Python frames on one path */
#define PY_WALK_FRAMES 8192 /* frames one sample reads at most */
#define PY_WALK_READS 64    /* system calls for them (16 KiB each) */
#define PY_WALK_NEW 16      /* code objects new to the thread it reads (8 system calls each) */

/* Set once by py_runtime_init: Python frames are read (on) in MPI calls,
 * and in signal handlers (samples_on: process_vm_readv works here). */
extern int py_runtime_on, py_runtime_samples_on;

/* At the start of the measurement (not from a signal handler): looks
 * for CPython, checks its version, reserves the code table. enabled: the
 * user's setting (HPROF_PYTHON). */
void py_runtime_init(int enabled);

/* At the end of the measurement: one line for each limit of the code
 * table (py_codes.h) that was reached, and HPROF_VERBOSE=1's count. */
void py_runtime_finish(void);

/* A thread's room for reading frames (not from a signal handler; NULL
 * when Python frames are not named, or it cannot be had). */
typedef struct py_thread py_thread;
py_thread *py_thread_create(void);
void py_thread_free(py_thread *pt);

/* The thread's record of its last path's Python steps (py_splice.c):
 * PY_KEYS_MAX of them, for tree; cleared when tree is another. NULL
 * without pt. */
typedef struct py_step {
    uint64_t key;
    uint32_t before, after; /* tree nodes: after is before's child by key */
} py_step;
py_step *py_thread_steps(py_thread *pt, const void *tree);

/* Starts a walk: its budget (safe: a signal handler's) and its frames
 * kept; top_frame: its innermost activation's current frame. */
void py_runtime_walk_start(py_thread *pt, int safe, uint64_t top_frame);

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

/* Reads one activation's Python frames, from its current frame to its
 * entry frame, and keeps at most room of them for the walk's path, after
 * those kept before: all of them, outermost first, or for a longer chain
 * its outermost room / 2, one that stands for the frames left out, and its
 * innermost rest. Their count, or -1 when a frame does not check out, the
 * walk's budget is spent, or room (or what is left of PY_KEYS_MAX) is
 * less than 3. */
int py_runtime_chain(py_thread *pt, uint64_t frame, int room, int safe);

/* The tree keys (cct.h: CCT_KEY_PY) of the frames the walk kept, in the
 * order kept: keys[i], 0 where the code object does not check out. Code
 * objects met for the first time are copied into the code table
 * (py_codes.h). */
void py_runtime_keys(py_thread *pt, uint64_t *keys, int safe);

#endif
