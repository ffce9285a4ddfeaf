/*
 * cw_tar.h - stream POSIX ustar members whose size is not known in
 * advance: a placeholder header goes out first, the member streams, and
 * the header is rewritten with the final size and checksum.
 */
#ifndef HPROF_CW_TAR_H
#define HPROF_CW_TAR_H

#include "cw_out.h"

typedef struct cw_member {
    char name[100];
    long long header_off;       /* file offset of the member's header */
    long long mtime;
} cw_member;

int cw_tar_begin(cw_out *o, cw_member *m, const char *name, long long mtime);
/* Pads the member to 512 bytes and patches its header. */
int cw_tar_end(cw_out *o, cw_member *m);
/* The end-of-archive marker: two zero blocks. */
int cw_tar_finish(cw_out *o);

#endif
