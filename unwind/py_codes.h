/*
 * py_codes.h - the Python code objects met on call paths, copied: a
 * code object may be freed (and its address reused) long before
 * MPI_Finalize, when its names are needed. One fixed-size table per
 * process, filled the first time a walk meets a code object: in an MPI
 * call or in the sampling signal handler, so it allocates nothing (the
 * table and the room for the copies are reserved when Python is found)
 * and takes no lock (entries are claimed with a compare-and-swap).
 *
 * A code object is known by its fingerprint: its address and those of
 * its name, file name and line table, and its first line. A freed code
 * object's address taken by another one gets an entry of its own.
 */
#ifndef HPROF_PY_CODES_H
#define HPROF_PY_CODES_H

#include <stddef.h>
#include <stdint.h>

#define PY_CODES_NONE UINT32_MAX

typedef struct py_code_print {
    uint64_t code, qualname, filename, linetable;
    int32_t firstline;
} py_code_print;

/* Reserves the table; 0, or -1 (then every lookup gives PY_CODES_NONE).
 * Not from signal handlers. */
int py_codes_init(void);

/* The entry of p: an existing, complete one (*fresh = 0), or a new one
 * claimed for the caller (*fresh = 1), who fills it (py_codes_room) and
 * publishes it (py_codes_publish). An entry another context is still
 * filling is not waited for: a second one is claimed. PY_CODES_NONE when
 * the table is full. Async-signal-safe. */
uint32_t py_codes_lookup(const py_code_print *p, int *fresh);

/* len bytes of room for an entry's copies; NULL when the room is used up. */
char *py_codes_room(size_t len);

/* Completes entry id: its function's qualified name and file name
 * (NUL-terminated) and its line table (len bytes), each NULL if unknown,
 * all in room from py_codes_room. */
void py_codes_publish(uint32_t id, const char *qualname, const char *filename, const uint8_t *lines,
                      uint32_t lines_len);

/* Where the interpreter's own code lies (py_runtime.c sets it when it
 * names Python frames), and whether pc lies there: its frames are folded
 * away on paths that run Python code (report/merge/local_profile.c). */
void py_codes_set_interpreter(uint64_t lo, uint64_t hi);
int py_codes_in_interpreter(uint64_t pc);

/* At finalize: the names and first line of entry id; 0, or -1 for an
 * entry never completed. */
int py_codes_info(uint32_t id, const char **qualname, const char **filename, int *firstline);

/* The source line of code unit `unit` of entry id (the first line where
 * the table does not say). */
int py_codes_line(uint32_t id, uint32_t unit);

#endif
