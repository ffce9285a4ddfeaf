/*
 * cr_gzip.h - inflate a gzip stream held in memory, with a size limit
 * (a small hostile input must not expand without bound).
 */
#ifndef HPROF_CR_GZIP_H
#define HPROF_CR_GZIP_H

#include <stddef.h>

int cr_is_gzip(const unsigned char *b, size_t len);
/* Returns a malloc'd buffer with *outlen bytes, or NULL with a reason. */
unsigned char *cr_gunzip(const unsigned char *b, size_t len, size_t limit, size_t *outlen, char *err,
                         size_t errlen);

#endif
