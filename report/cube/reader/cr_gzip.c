/* cr_gzip.c - bounded in-memory gzip inflation. */
#include "report/cube/reader/cr_gzip.h"
#include "report/cube/reader/cr_util.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int cr_is_gzip(const unsigned char *b, size_t len)
{
    return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int grow_out(unsigned char **out, size_t *cap, size_t limit)
{
    if (*cap >= limit)
        return -1;
    size_t ncap = *cap * 2 > limit ? limit : *cap * 2;
    unsigned char *p = realloc(*out, ncap);
    if (!p)
        return -1;
    *out = p;
    *cap = ncap;
    return 0;
}

unsigned char *cr_gunzip(const unsigned char *b, size_t len, size_t limit, size_t *outlen, char *err,
                         size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        cr_err(err, errlen, "cannot start gzip decompression");
        return NULL;
    }
    size_t cap = 1 << 16, done = 0;
    unsigned char *out = malloc(cap);
    int rc = out ? Z_OK : Z_MEM_ERROR;
    size_t in_off = 0;
    while (rc == Z_OK) {
        if (done == cap && grow_out(&out, &cap, limit) < 0) {
            rc = Z_BUF_ERROR;
            break;
        }
        size_t in_chunk = len - in_off > (1u << 30) ? (1u << 30) : len - in_off;
        z.next_in = (Bytef *)(b + in_off);
        z.avail_in = (uInt)in_chunk;
        size_t out_chunk = cap - done > (1u << 30) ? (1u << 30) : cap - done;
        z.next_out = out + done;
        z.avail_out = (uInt)out_chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        in_off += in_chunk - z.avail_in;
        done += out_chunk - z.avail_out;
        if (rc == Z_BUF_ERROR && done == cap)
            rc = Z_OK; /* only the output was full */
        else if (rc == Z_OK && in_off == len && z.avail_out > 0)
            rc = Z_DATA_ERROR; /* input ended before the stream did */
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        cr_err(err, errlen,
               rc == Z_BUF_ERROR && done == cap ? "gzip data expands past the size limit"
                                                : "corrupt or truncated gzip data");
        return NULL;
    }
    *outlen = done;
    return out;
}
