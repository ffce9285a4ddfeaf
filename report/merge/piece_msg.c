#include "report/merge/piece_msg.h"

#include <stdlib.h>
#include <string.h>

#include "report/cube/writer/cw_piece.h"

#define HEAD_BYTES (3 * sizeof(uint64_t))

static void set_failed(piece_msg *m)
{
    free(m->buf);
    m->buf = calloc(1, HEAD_BYTES);
    uint64_t one = 1;
    if (m->buf)
        memcpy(m->buf, &one, sizeof one);
    m->len = m->buf ? HEAD_BYTES : 0;
    m->cap = m->len;
    m->nrows = m->added = 0;
}

int piece_msg_begin(piece_msg *m, int nrows, uint64_t rawlen, int failed)
{
    memset(m, 0, sizeof *m);
    if (failed || nrows < 0) {
        set_failed(m);
        return -1;
    }
    m->nrows = nrows;
    m->rawlen = rawlen;
    m->len = HEAD_BYTES + (size_t)nrows * sizeof(piece_entry);
    m->cap = m->len + (size_t)nrows * 64 + 256;
    m->buf = calloc(1, m->cap);
    if (!m->buf) {
        set_failed(m);
        return -1;
    }
    uint64_t head[3] = { 0, (uint64_t)nrows, rawlen };
    memcpy(m->buf, head, sizeof head);
    return 0;
}

/* Room for more bytes after m->len (doubling); the message failed if not. */
static int reserve(piece_msg *m, size_t more)
{
    if (m->len + more <= m->cap)
        return 0;
    size_t cap = m->cap * 2 > m->len + more ? m->cap * 2 : m->len + more;
    unsigned char *p = realloc(m->buf, cap);
    if (!p) {
        set_failed(m);
        return -1;
    }
    m->buf = p, m->cap = cap;
    return 0;
}

int piece_msg_add(piece_msg *m, const unsigned char *data, size_t len, uint32_t adler, int nonzero)
{
    if (!m->buf || m->nrows == 0 || m->added >= m->nrows)
        return -1;
    if (reserve(m, len) != 0)
        return -1;
    piece_entry e = { len, adler, nonzero != 0 };
    memcpy(m->buf + HEAD_BYTES + (size_t)m->added++ * sizeof e, &e, sizeof e);
    if (len)
        memcpy(m->buf + m->len, data, len);
    m->len += len;
    return 0;
}

void piece_msg_free(piece_msg *m)
{
    free(m->buf);
    m->buf = NULL;
}

void piece_view_of(piece_view *v, const void *buf, size_t len, int nrows)
{
    memset(v, 0, sizeof *v);
    v->failed = 1;
    uint64_t head[3];
    if (!buf || len < HEAD_BYTES)
        return;
    memcpy(head, buf, sizeof head);
    size_t table = HEAD_BYTES + (size_t)nrows * sizeof(piece_entry);
    if (head[0] || head[1] != (uint64_t)nrows || len < table ||
        !(v->offsets = malloc(((size_t)nrows + 1) * sizeof(size_t))))
        return;
    v->entries = (const piece_entry *)((const unsigned char *)buf + HEAD_BYTES);
    v->data = (const unsigned char *)buf + table;
    size_t at = 0;
    for (int k = 0; k < nrows; k++) {
        if (v->entries[k].len > len - table - at)
            return;
        v->offsets[k] = at;
        at += v->entries[k].len;
    }
    v->nrows = nrows;
    v->rawlen = head[2];
    v->failed = 0;
}

void piece_view_free(piece_view *v)
{
    free(v->offsets);
    v->offsets = NULL;
}

cube_row_piece piece_view_row(const piece_view *v, int k)
{
    const piece_entry *e = &v->entries[k];
    return (cube_row_piece){ v->data + v->offsets[k], e->len, v->rawlen, e->adler };
}

int piece_msg_join(piece_msg *out, const piece_view *v, int n, int nrows)
{
    uint64_t rawlen = 0;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        failed |= v[i].failed;
        rawlen += v[i].rawlen;
    }
    if (piece_msg_begin(out, nrows, rawlen, failed) != 0)
        return -1;
    for (int k = 0; k < nrows; k++) {
        size_t len = 0;
        uint32_t adler = 0, nonzero = 0;
        for (int i = 0; i < n; i++) {
            const piece_entry *e = &v[i].entries[k];
            len += e->len;
            adler = i == 0 ? e->adler : cw_piece_adler_join(adler, e->adler, v[i].rawlen);
            nonzero |= e->nonzero;
        }
        if (piece_msg_add(out, NULL, 0, adler, nonzero) != 0)
            return -1;
        /* the pieces laid end to end, written in place of the empty one */
        if (reserve(out, len) != 0)
            return -1;
        for (int i = 0; i < n; i++) {
            memcpy(out->buf + out->len, v[i].data + v[i].offsets[k], v[i].entries[k].len);
            out->len += v[i].entries[k].len;
        }
        piece_entry e = { len, adler, nonzero };
        memcpy(out->buf + HEAD_BYTES + (size_t)k * sizeof e, &e, sizeof e);
    }
    return 0;
}
