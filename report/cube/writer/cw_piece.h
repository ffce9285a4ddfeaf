/*
 * cw_piece.h - a part of a ZCUBEX row compressed on its own, so that a row
 * of many locations can be compressed by many processes and put together
 * by one that only concatenates (the merge's aggregators, issue 41).
 *
 * A piece is raw deflate (no zlib header) ended with Z_SYNC_FLUSH: it ends
 * on a byte boundary and refers to nothing before it, so pieces laid end to
 * end are one valid deflate body. cw_rows wraps a row's pieces in a zlib
 * header, a final empty block and the adler32 of the whole row, combined
 * from the pieces' (adler32_combine): every zlib reader inflates it as if
 * one process had compressed the row. Uncompressed rows (CUBEX.DATA) are
 * made the same way, their pieces the encoded bytes as they are.
 */
#ifndef HPROF_CW_PIECE_H
#define HPROF_CW_PIECE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

typedef struct cw_piece_deflater {
    z_stream z;
    int ready;
    unsigned char *buf; /* the last piece */
    size_t cap, rawlen;
} cw_piece_deflater;

/* For pieces of rawlen encoded bytes each. 0, or -1 out of memory. */
int cw_piece_init(cw_piece_deflater *d, size_t rawlen);
/* raw (d->rawlen bytes) as a piece in d->buf; its length, 0 on failure. */
size_t cw_piece_deflate(cw_piece_deflater *d, const unsigned char *raw);
void cw_piece_free(cw_piece_deflater *d);

/* The adler32 of a row of pieces: a of the bytes before, b of the next
 * piece's blen bytes. */
uint32_t cw_piece_adler_join(uint32_t a, uint32_t b, size_t blen);
uint32_t cw_piece_adler(const unsigned char *raw, size_t len);

#endif
