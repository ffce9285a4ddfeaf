/*
 * cr_tar.h - index the members of a tar archive held in memory.
 *
 * Accepts POSIX ustar and GNU tar headers, sizes in octal or base-256, and
 * the header checksums written by the Cube 4.8 tar bug (the checksum field
 * counted as seven spaces instead of eight). Never reads past the buffer.
 */
#ifndef HPROF_CR_TAR_H
#define HPROF_CR_TAR_H

#include <stddef.h>

typedef struct cr_member {
    char name[256];
    size_t off, size; /* data position and length in the buffer */
} cr_member;

typedef struct cr_archive {
    cr_member *m;
    int n, cap;
    int checksum_bug; /* headers carried the Cube 4.8 checksum */
} cr_archive;

/* Lists every regular-file member. Returns 0, or -1 with a reason. */
int cr_tar_scan(cr_archive *a, const unsigned char *buf, size_t len, char *err, size_t errlen);
const cr_member *cr_tar_find(const cr_archive *a, const char *name);
void cr_tar_free(cr_archive *a);

#endif
