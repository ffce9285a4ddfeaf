/*
 * py_codes.h - the Python code objects met on call paths, copied: a
 * code object may be freed (and its address reused) long before
 * MPI_Finalize, when its names are needed. One fixed-size table per
 * process, filled the first time a walk meets a code object: in an MPI
 * call or in the sampling signal handler, so it allocates nothing (the
 * table and the room for the copies are reserved when Python is found)
 * and takes no lock (entries are claimed with a compare-and-swap).
 *
 * A code object is known by its print (py_ident.h): its address, those of
 * its names and line table, its first line and size, and a digest of what
 * its names and line table hold; a code object that takes a freed one's
 * address differs in the digest at least (another name, file or line
 * table) and gets an entry of its own.
 *
 * Capacity: PY_CODES_MAX code objects, each with its names (the room for
 * names holds that many at their longest); line tables share
 * PY_CODES_LINES_ROOM bytes, and code met once that is used up has no line
 * table: its call sites show the function's first line.
 */
#ifndef HPROF_PY_CODES_H
#define HPROF_PY_CODES_H

#include <stddef.h>
#include <stdint.h>

#define PY_CODES_MAX 16384u
#define PY_CODES_NAME_MAX 255    /* bytes of UTF-8 kept of a qualified name */
#define PY_CODES_FILE_MAX 511    /* of a file name (its end) */
#define PY_CODES_LINES_MAX 16384 /* of one line table (lines past it: the first line) */
#define PY_CODES_LINES_ROOM (16u << 20)

#define PY_CODES_NONE UINT32_MAX
#define PY_CODES_LEFT_OUT (2 * PY_CODES_MAX) /* not an entry: the frames left out of a deep chain */

typedef struct py_code_print {
    uint64_t code, qualname, filename, linetable; /* addresses */
    uint64_t digest;
    int32_t firstline;
    uint32_t units;                          /* instructions, in code units */
    uint32_t qualname_len, filename_len;     /* characters */
    uint32_t qualname_state, filename_state; /* their kind and form (py_ident.c) */
    uint64_t linetable_len;                  /* bytes */
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

/* The print of a complete entry, NULL for any other id. */
const py_code_print *py_codes_print(uint32_t id);

/* A complete entry's copies (py_codes_publish): 0, or -1. */
int py_codes_copies(uint32_t id, const char **qualname, const char **filename, const uint8_t **lines,
                    uint32_t *lines_len);

/* len bytes of room for an entry's names (never NULL for the names of
 * PY_CODES_MAX entries at their longest), or its line table (NULL once
 * PY_CODES_LINES_ROOM is used up). */
char *py_codes_name_room(size_t len);
uint8_t *py_codes_lines_room(size_t len);

/* Completes entry id: its function's qualified name and file name
 * (NUL-terminated) and its line table (len bytes), each NULL if unknown,
 * all in room from py_codes_*_room. */
void py_codes_publish(uint32_t id, const char *qualname, const char *filename, const uint8_t *lines,
                      uint32_t lines_len);

/* Where the interpreter's own code lies (py_runtime.c sets it when it
 * names Python frames), and whether pc lies there: its frames are folded
 * away on paths that run Python code (report/profile/local_profile.c). */
void py_codes_set_interpreter(uint64_t lo, uint64_t hi);
int py_codes_in_interpreter(uint64_t pc);

/* At finalize: the names and first line of entry id (PY_CODES_LEFT_OUT:
 * "(python frames left out)", no file); 0, or -1 for an entry never
 * completed. */
int py_codes_info(uint32_t id, const char **qualname, const char **filename, int *firstline);

/* The source line of code unit `unit` of entry id (the first line where
 * the table does not say; -1 for PY_CODES_LEFT_OUT). */
int py_codes_line(uint32_t id, uint32_t unit);

/* Entries taken; whether a code object found the table full, a line
 * table the room for them used up. */
uint32_t py_codes_count(void);
int py_codes_full(void);
int py_codes_lines_full(void);

#endif
