/*
 * py_lines.c - see py_lines.h. Each entry of the table starts with a byte
 * whose top bit is set: bits 3-6 a code, bits 0-2 the number of code units
 * it covers minus one. The codes that move the line: 10-12 by code - 10,
 * 13 and 14 by a signed varint; 15 means "no line" without moving it.
 */
#include "unwind/python/py_lines.h"

/* Unsigned varint: 6 bits a byte, bit 6 says another byte follows. */
static int read_varint(const uint8_t *t, size_t len, size_t *i, uint32_t *out)
{
    uint32_t v = 0;
    for (int shift = 0; *i < len && shift < 32; shift += 6) {
        uint8_t b = t[(*i)++];
        v |= (uint32_t)(b & 63) << shift;
        if (!(b & 64)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int read_svarint(const uint8_t *t, size_t len, size_t *i, int *out)
{
    uint32_t v;
    if (read_varint(t, len, i, &v) != 0)
        return -1;
    *out = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
    return 0;
}

/* Skips what an entry of code `code` carries after its line delta. */
static int skip_rest(const uint8_t *t, size_t len, size_t *i, int code)
{
    uint32_t ignored;
    int n = code == 14 ? 3 : 0; /* long form: end line delta, columns */
    for (int k = 0; k < n; k++)
        if (read_varint(t, len, i, &ignored) != 0)
            return -1;
    if (code < 10)
        *i += 1; /* short form: one byte of columns */
    else if (code < 13)
        *i += 2; /* one-line form: start and end column */
    return *i <= len ? 0 : -1;
}

int py_line_at(const uint8_t *t, size_t len, int firstline, uint32_t unit)
{
    int line = firstline;
    uint64_t at = 0;
    size_t i = 0;
    while (i < len) {
        uint8_t first = t[i++];
        if (!(first & 128))
            return -1; /* not the start of an entry: a damaged table */
        int code = (first >> 3) & 15;
        uint64_t end = at + (first & 7) + 1;
        int delta = 0;
        if (code >= 10 && code <= 12)
            delta = code - 10;
        else if ((code == 13 || code == 14) && read_svarint(t, len, &i, &delta) != 0)
            return -1;
        line += delta;
        if (skip_rest(t, len, &i, code) != 0)
            return -1;
        if (unit < end)
            return code == 15 ? -1 : line;
        at = end;
    }
    return -1;
}
