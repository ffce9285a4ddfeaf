/*
 * check.c - rows made in parts and joined on the way up (issue 41),
 * without MPI: four ranges of a row's locations each compressed on its
 * own (cw_piece.h), three of them joined into one message as an
 * intermediate aggregator joins its children's (piece_msg_join), then the
 * two parts a row laid end to end in a zlib stream as the writer lays
 * them (cw_rows.c) and inflated by zlib, which checks the adler32
 * combined from the parts'. Prints "join ok N rows" or what differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/cube/writer/cw_piece.h"
#include "report/merge/piece_msg.h"

enum {
    ROWS = 5,
    LOCS = 100,
    RANGES = 4
};

static const int cut[RANGES + 1] = { 0, 10, 37, 64, LOCS };

/* Row r's values: some rows zero in some ranges, others not. */
static double value(int r, int l)
{
    if (r == 1 || (r == 3 && l < 37))
        return 0;
    return (double)(r * 1000 + l) * 0.25 + (l % 7 == 0 ? 1e-9 * r : 0);
}

static int make_range(int i, piece_msg *m, unsigned char rows[ROWS][LOCS * 8])
{
    size_t raw = (size_t)(cut[i + 1] - cut[i]) * 8;
    cw_piece_deflater d;
    if (cw_piece_init(&d, raw) != 0 || piece_msg_begin(m, ROWS, raw, 0) != 0)
        return -1;
    for (int r = 0; r < ROWS; r++) {
        const unsigned char *part = rows[r] + (size_t)cut[i] * 8;
        int nonzero = 0;
        for (size_t b = 0; b < raw; b++)
            nonzero |= part[b] != 0;
        size_t len = cw_piece_deflate(&d, part);
        if (!len || piece_msg_add(m, d.buf, len, cw_piece_adler(part, raw), nonzero) != 0)
            return -1;
    }
    cw_piece_free(&d);
    return 0;
}

/* A row as the writer stores it: header, parts, final empty block, adler32. */
static size_t assemble(const piece_view *v, int n, int r, unsigned char *out)
{
    size_t at = 0;
    uint32_t adler = 0;
    out[at++] = 0x78, out[at++] = 0x01;
    for (int i = 0; i < n; i++) {
        cube_row_piece p = piece_view_row(&v[i], r);
        memcpy(out + at, p.data, p.len);
        at += p.len;
        adler = i == 0 ? p.adler : cw_piece_adler_join(adler, p.adler, p.rawlen);
    }
    out[at++] = 0x03, out[at++] = 0x00;
    for (int s = 24; s >= 0; s -= 8)
        out[at++] = (unsigned char)(adler >> s);
    return at;
}

int main(void)
{
    static unsigned char rows[ROWS][LOCS * 8], zrow[1 << 16], back[LOCS * 8 + 64];
    for (int r = 0; r < ROWS; r++)
        for (int l = 0; l < LOCS; l++) {
            double x = value(r, l);
            memcpy(rows[r] + (size_t)l * 8, &x, 8);
        }
    piece_msg m[RANGES], joined;
    piece_view v[RANGES], top[2];
    for (int i = 0; i < RANGES; i++)
        if (make_range(i, &m[i], rows) != 0) {
            printf("join failed: range %d not made\n", i);
            return 1;
        }
    for (int i = 0; i < RANGES; i++)
        piece_view_of(&v[i], m[i].buf, m[i].len, ROWS);
    if (piece_msg_join(&joined, v + 1, RANGES - 1, ROWS) != 0) {
        printf("join failed: piece_msg_join\n");
        return 1;
    }
    top[0] = v[0];
    piece_view_of(&top[1], joined.buf, joined.len, ROWS);
    if (top[1].failed || top[1].rawlen != (uint64_t)(LOCS - cut[1]) * 8) {
        printf("join failed: joined message %s, %llu bytes a row\n", top[1].failed ? "unreadable" : "read",
               (unsigned long long)top[1].rawlen);
        return 1;
    }
    for (int r = 0; r < ROWS; r++) {
        size_t zlen = assemble(top, 2, r, zrow);
        uLongf got = sizeof back;
        int rc = uncompress(back, &got, zrow, zlen);
        int nonzero = top[0].entries[r].nonzero || top[1].entries[r].nonzero;
        if (rc != Z_OK || got != LOCS * 8 || memcmp(back, rows[r], LOCS * 8) != 0 || nonzero != (r != 1)) {
            printf("join failed: row %d: zlib %d, %lu bytes, %s, nonzero %d\n", r, rc, (unsigned long)got,
                   rc == Z_OK && memcmp(back, rows[r], LOCS * 8) == 0 ? "same" : "differs", nonzero);
            return 1;
        }
    }
    for (int i = 0; i < RANGES; i++) {
        piece_view_free(&v[i]);
        piece_msg_free(&m[i]);
    }
    piece_view_free(&top[1]);
    piece_msg_free(&joined);
    printf("join ok %d rows\n", ROWS);
    return 0;
}
