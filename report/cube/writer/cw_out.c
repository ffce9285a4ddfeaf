/* cw_out.c - buffered output with offset tracking and patching. */
#include "report/cube/writer/cw_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cw_out_init(cw_out *o, int fd, char *err, size_t errlen)
{
    o->fd = fd;
    o->failed = 0;
    o->pos = 0;
    o->used = 0;
    o->err = err;
    o->errlen = errlen;
}

static int fail_errno(cw_out *o, int e)
{
    if (!o->failed && o->err && o->errlen)
        snprintf(o->err, o->errlen, "write failed: %s", strerror(e));
    o->failed = 1;
    return -1;
}

static int write_all(cw_out *o, const unsigned char *p, size_t n, long long at, int positioned)
{
    while (n > 0) {
        ssize_t k = positioned ? pwrite(o->fd, p, n, (off_t)at) : write(o->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return fail_errno(o, errno);
        if (k == 0)
            return fail_errno(o, ENOSPC);
        p += k, n -= (size_t)k, at += k;
    }
    return 0;
}

int cw_out_flush(cw_out *o)
{
    if (o->failed)
        return -1;
    int rc = write_all(o, o->buf, o->used, 0, 0);
    o->used = 0;
    return rc;
}

int cw_out_write(cw_out *o, const void *p, size_t n)
{
    if (o->failed)
        return -1;
    o->pos += (long long)n;
    if (n > CW_OUT_BUF - o->used) {
        if (cw_out_flush(o) < 0)
            return -1;
        if (n >= CW_OUT_BUF) /* large blocks go straight out */
            return write_all(o, p, n, 0, 0);
    }
    memcpy(o->buf + o->used, p, n);
    o->used += n;
    return 0;
}

int cw_out_zeros(cw_out *o, size_t n)
{
    static const unsigned char zero[4096];
    while (n > 0) {
        size_t k = n < sizeof zero ? n : sizeof zero;
        if (cw_out_write(o, zero, k) < 0)
            return -1;
        n -= k;
    }
    return 0;
}

int cw_out_printf(cw_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return fail_errno(o, EINVAL);
    if ((size_t)n < sizeof small)
        return cw_out_write(o, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return fail_errno(o, ENOMEM);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = cw_out_write(o, big, (size_t)n);
    free(big);
    return rc;
}

int cw_out_patch(cw_out *o, long long off, const void *p, size_t n)
{
    if (cw_out_flush(o) < 0)
        return -1;
    return write_all(o, p, n, off, 1);
}
