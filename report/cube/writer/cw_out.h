/*
 * cw_out.h - buffered sequential output to a file descriptor that keeps
 * the logical file offset, plus patching of bytes already written (tar
 * header sizes, the compressed-row table). The first error sticks: later
 * calls fail at once and err holds "write failed: <reason>".
 */
#ifndef HPROF_CW_OUT_H
#define HPROF_CW_OUT_H

#include <stddef.h>

#define CW_OUT_BUF (1 << 16)

typedef struct cw_out {
    int fd;
    int failed;
    long long pos; /* file offset after everything written */
    size_t used;
    char *err;
    size_t errlen;
    unsigned char buf[CW_OUT_BUF];
} cw_out;

void cw_out_init(cw_out *o, int fd, char *err, size_t errlen);
int cw_out_write(cw_out *o, const void *p, size_t n);
int cw_out_zeros(cw_out *o, size_t n);
int cw_out_printf(cw_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cw_out_flush(cw_out *o);
/* Overwrites n bytes at file offset off (flushes first). */
int cw_out_patch(cw_out *o, long long off, const void *p, size_t n);

#endif
