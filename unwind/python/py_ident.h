/*
 * py_ident.h - which entry of the code table (py_codes.h) a live code
 * object is. Its address alone does not say: a freed code object's
 * address is soon another's (exec in a loop: same size, same allocator
 * path, and its names and line table at the same addresses too). So each
 * time a walk meets a code object, what it holds is read again: its
 * fields, and the characters of its qualified name and file name and the
 * first bytes of its line table, digested (py_code_print); a code object
 * whose print has no entry yet gets one, its names and line table copied.
 *
 * With plain loads (MPI calls) that costs a few loads per code object. In a
 * signal handler every read is a system call; there a per-thread cache
 * says which entry a code address had last time, and one system call
 * checks every code object of a walk against its entry's print (four
 * pieces each: the code object, its two names, its line table's start);
 * only those that differ or are new are read piece by piece.
 * Allocates nothing, takes no lock; async-signal-safe.
 */
#ifndef HPROF_PY_IDENT_H
#define HPROF_PY_IDENT_H

#include <stdint.h>

#include "unwind/python/py_read.h"

/* The interpreter's type objects (py_runtime.c finds them). */
void py_ident_init(uint64_t code_type, uint64_t unicode_type, uint64_t bytes_type);

/* The entry of the code object at code, or PY_CODES_NONE: not a code
 * object, not readable, or the table is full. */
uint32_t py_ident_code(uint64_t code, int safe);

/* Safe reads of many code objects at once: a thread's cache and room. */
#define PY_IDENT_CACHE 1024 /* a power of two */
#define PY_IDENT_BATCH 100  /* code objects checked by one system call (5 reads each) */
typedef struct py_ident_work {
    int new_left; /* code objects this walk may still read piece by piece */
    uint64_t code[PY_IDENT_CACHE];
    uint32_t id[PY_IDENT_CACHE];
    py_batch batch;
    const void *expect[PY_IDENT_BATCH];
    uint32_t guess[PY_IDENT_BATCH]; /* the entry the cache held for each as the batch was made */
    _Alignas(8) unsigned char checks[PY_IDENT_BATCH * 160];
    unsigned char room[PY_IDENT_BATCH * 1280];
} py_ident_work;

/* ids[i] = py_ident_code(codes[i], 1) for n distinct code objects, of
 * which at most w->new_left (counted down) are read piece by piece: the
 * others are PY_CODES_NONE for this walk. */
void py_ident_codes(py_ident_work *w, const uint64_t *codes, int n, uint32_t *ids);

/* py_ident_code(code, 0), an MPI call's: the entry the cache knows for
 * that address when the live object still matches its print and copies
 * (its fields, the names' characters, the line table's first bytes),
 * compared in place without digesting. */
uint32_t py_ident_plain(py_ident_work *w, uint64_t code);

#endif
