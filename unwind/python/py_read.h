/*
 * py_read.h - reading the interpreter's memory from the thread that walks
 * its own stack. safe = 0 (an MPI call: the thread is in a C call made by
 * the evaluation loop, every object it reaches is live): plain loads.
 * safe = 1 (a signal handler, which may interrupt the interpreter half-way
 * through pushing or popping a frame): through process_vm_readv on
 * ourselves, which says EFAULT where a load would fault.
 *
 * A system call costs about a microsecond, and process_vm_readv about half
 * a microsecond more for each piece it reads, so a handler reads in few,
 * large pieces: frames from copies of the memory around them (blocks: the
 * frames of a Python call chain lie next to each other, on the
 * interpreter's frame stack), code objects' fields in batches. Allocates
 * nothing, takes no lock; async-signal-safe.
 */
#ifndef HPROF_PY_READ_H
#define HPROF_PY_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* At start-up (not from a signal handler): whether safe reads work here
 * (process_vm_readv on ourselves: some sandboxes refuse it). Again after
 * fork: the pid changes. */
int py_read_init(void);

/* An address range a read may try: user space, not NULL's page. */
int py_plausible(uint64_t a, size_t len);

/* len bytes at src into dst: 0, or -1 (nothing trustworthy in dst). */
int py_read(void *dst, uint64_t src, size_t len, int safe);

/* Many reads in one system call. Add them, run, then look at ok[i]. */
#define PY_BATCH_MAX 512
typedef struct py_batch {
    int n;
    struct iovec local[PY_BATCH_MAX], remote[PY_BATCH_MAX];
    unsigned char ok[PY_BATCH_MAX];
    /* py_batch_run's work: the reads in address order, each one's piece
     * (or the read it repeats), the pieces asked for and where each one's
     * reads start among the local ones */
    uint16_t order[PY_BATCH_MAX], piece[PY_BATCH_MAX], same_as[PY_BATCH_MAX];
    int nl, nr;
    uint16_t first_local[PY_BATCH_MAX];
    struct iovec to[2 * PY_BATCH_MAX], from[PY_BATCH_MAX];
    unsigned char gap[8192];
} py_batch;

static inline void py_batch_start(py_batch *b)
{
    b->n = 0;
}
/* The read's index, or -1 when the batch is full or src implausible. */
int py_batch_add(py_batch *b, void *dst, uint64_t src, size_t len);
/* Runs every read added; ok[i] says which succeeded. Safe reads: reads
 * of the same bytes are made once, reads on one page or the next are
 * joined into one piece (the kernel's cost is per piece: it pins its
 * pages), one system call for all pieces; where a piece fails, its reads
 * are tried one by one and the pieces after it in one more call. */
void py_batch_run(py_batch *b, int safe);

/* Copies of the memory below frames just read (a chain goes to lower
 * addresses on the frame stack), for one walk. budget: the most system
 * calls it may make; top: where the walk's frames likely end (its
 * innermost frame's end: inner activations' frames lie above outer ones'). */
#define PY_BLOCK_BYTES 16384
typedef struct py_blocks {
    int reads_left;
    uint64_t top;
    int last;              /* the buffer read most recently */
    uint64_t base[2];      /* the address of each buffer's first byte */
    uint64_t lo[2], hi[2]; /* what it holds: [lo, hi) */
    unsigned char buf[2][PY_BLOCK_BYTES];
} py_blocks;

void py_blocks_start(py_blocks *k, int budget, uint64_t top);
/* The len bytes at addr (len <= 256): in a copy when safe, else the memory
 * itself; NULL when they cannot be read or the budget is spent. */
const unsigned char *py_blocks_read(py_blocks *k, uint64_t addr, size_t len, int safe);

#endif
