#include "report/cube/writer/cw_piece.h"

#include <stdlib.h>
#include <string.h>

/* The stream's window and hash sized to the piece, as cw_rows sizes them
 * to a row: deflateReset clears the hash, and pieces are short. */
int cw_piece_init(cw_piece_deflater *d, size_t rawlen)
{
    memset(d, 0, sizeof *d);
    int bits = 9;
    while (bits < 15 && ((size_t)1 << bits) < rawlen)
        bits++;
    int mem = bits - 7 < 1 ? 1 : bits - 7 > 8 ? 8 : bits - 7;
    if (deflateInit2(&d->z, Z_BEST_SPEED, Z_DEFLATED, -bits, mem, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    d->ready = 1;
    d->rawlen = rawlen;
    /* the bound of a finished stream, and the sync flush's empty stored block */
    d->cap = deflateBound(&d->z, (uLong)rawlen) + 16;
    d->buf = malloc(d->cap);
    return d->buf ? 0 : -1;
}

size_t cw_piece_deflate(cw_piece_deflater *d, const unsigned char *raw)
{
    if (!d->ready || deflateReset(&d->z) != Z_OK)
        return 0;
    d->z.next_in = (Bytef *)raw;
    d->z.avail_in = (uInt)d->rawlen;
    d->z.next_out = d->buf;
    d->z.avail_out = (uInt)d->cap;
    int rc = deflate(&d->z, Z_SYNC_FLUSH);
    /* all of it out, with room to spare: the flush is complete */
    if (rc != Z_OK || d->z.avail_in != 0 || d->z.avail_out == 0)
        return 0;
    return d->cap - d->z.avail_out;
}

void cw_piece_free(cw_piece_deflater *d)
{
    if (d->ready)
        deflateEnd(&d->z);
    free(d->buf);
    d->ready = 0;
    d->buf = NULL;
}

uint32_t cw_piece_adler_join(uint32_t a, uint32_t b, size_t blen)
{
    return (uint32_t)adler32_combine(a, b, (z_off_t)blen);
}

uint32_t cw_piece_adler(const unsigned char *raw, size_t len)
{
    return (uint32_t)adler32(adler32(0L, Z_NULL, 0), raw, (uInt)len);
}
