/* cr_util.c - error formatting, array growth, byte order. */
#include "report/cube/reader/cr_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int cr_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* Callers promise one line; file names may carry newlines. */
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return -1;
}

int cr_grow(void **arr, int n, int *cap, size_t elem, int max)
{
    if (n < *cap)
        return 0;
    if (n >= max)
        return -1;
    size_t ncap = *cap ? (size_t)*cap * 2 : 16;
    if (ncap > (size_t)max)
        ncap = (size_t)max;
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    memset((char *)p + (size_t)*cap * elem, 0, (ncap - (size_t)*cap) * elem);
    *arr = p;
    *cap = (int)ncap;
    return 0;
}

char *cr_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *cr_strndup(const char *s, size_t len)
{
    char *r = malloc(len + 1);
    if (!r)
        return NULL;
    memcpy(r, s, len);
    r[len] = '\0';
    return r;
}

uint16_t cr_get16(const unsigned char *p, int swap)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return swap ? __builtin_bswap16(v) : v;
}

uint32_t cr_get32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

uint64_t cr_get64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? __builtin_bswap64(v) : v;
}

double *cr_alloc_values(size_t n)
{
    const size_t huge = (size_t)1 << 21;
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / sizeof(double))
        return NULL;
    size_t bytes = n * sizeof(double);
    if (bytes < 4 * huge)
        return calloc(n, sizeof(double));
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes) != 0)
        return NULL;
    madvise(p, bytes & ~(huge - 1), MADV_HUGEPAGE); /* a hint: failure is fine */
    memset(p, 0, bytes);
    return p;
}
