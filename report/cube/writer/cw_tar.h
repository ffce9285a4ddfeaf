/*
 * cw_tar.h - stream POSIX ustar members whose size is not known in
 * advance: a placeholder header goes out first, the member streams, and
 * the header is rewritten with the final size and checksum.
 */
#ifndef HPROF_CW_TAR_H
#define HPROF_CW_TAR_H

#include "report/cube/writer/cw_out.h"

typedef struct cw_member {
    char name[100];
    long long header_off; /* file offset of the member's header */
    long long mtime;
} cw_member;

int cw_tar_begin(cw_out *o, cw_member *m, const char *name, long long mtime);
/* Pads the member to 512 bytes and patches its header. A member whose size
 * is a multiple of 512 (or empty) first gets one `filler` byte appended
 * (a newline for text, a zero byte after binary content that readers
 * locate through its own table): cubelib's reader loses the member after
 * such a one. */
int cw_tar_end(cw_out *o, cw_member *m, char filler);
/* The end-of-archive marker: two zero blocks. */
#define CW_TAR_END_BYTES 1024
int cw_tar_finish(cw_out *o);

#endif
