/* layout_msg.c - the merge's layout records in blocks (layout_msg.h). */
#include "report/merge/layout_msg.h"

#include <stdlib.h>
#include <string.h>

#define HEADER (2 * sizeof(uint32_t))

static void put_header(layout_block *b)
{
    uint32_t h[2] = { b->nranks, (uint32_t)(b->failed != 0) };
    if (b->buf)
        memcpy(b->buf, h, sizeof h);
}

void layout_block_fail(layout_block *b)
{
    b->failed = 1;
    put_header(b);
}

int layout_block_begin(layout_block *b)
{
    memset(b, 0, sizeof *b);
    b->cap = 256;
    b->buf = malloc(b->cap);
    b->len = HEADER;
    if (!b->buf) {
        b->failed = 1;
        return -1;
    }
    put_header(b);
    return 0;
}

static int reserve(layout_block *b, size_t more)
{
    if (!b->buf)
        return -1;
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->buf, cap);
    if (!p)
        return -1;
    b->buf = p, b->cap = cap;
    return 0;
}

static void put(layout_block *b, const void *bytes, size_t n)
{
    memcpy(b->buf + b->len, bytes, n);
    b->len += n;
}

int layout_block_add(layout_block *b, const layout_record *r)
{
    size_t hostlen = strlen(r->host) + 1;
    int same = b->last_host && strcmp((const char *)b->buf + b->last_host, r->host) == 0;
    if (b->failed || hostlen >= LAYOUT_SAME_HOST || r->names_len >= UINT32_MAX ||
        reserve(b, 3 * sizeof(uint32_t) + 2 * sizeof(int32_t) + (same ? 0 : hostlen) + r->names_len) != 0) {
        layout_block_fail(b);
        return -1;
    }
    int32_t ints[2] = { r->nthreads, r->process_rank };
    uint32_t hl = same ? LAYOUT_SAME_HOST : (uint32_t)hostlen, nl = (uint32_t)r->names_len;
    put(b, ints, sizeof ints);
    put(b, &hl, sizeof hl);
    if (!same) {
        b->last_host = b->len;
        put(b, r->host, hostlen);
    }
    put(b, &nl, sizeof nl);
    if (nl)
        put(b, r->names, nl);
    b->nranks++;
    put_header(b);
    return 0;
}

int layout_block_join(layout_block *b, const void *buf, size_t len)
{
    layout_view v;
    layout_record r;
    int more = 0;
    if (!buf || layout_view_of(&v, buf, len) != 0) {
        layout_block_fail(b);
        return -1;
    }
    while ((more = layout_view_next(&v, &r)) == 1)
        if (layout_block_add(b, &r) != 0)
            return -1;
    if (more < 0)
        layout_block_fail(b);
    return more < 0 ? -1 : 0;
}

void layout_block_free(layout_block *b)
{
    free(b->buf);
    memset(b, 0, sizeof *b);
}

int layout_view_of(layout_view *v, const void *buf, size_t len)
{
    uint32_t h[2] = { 0, 1 };
    memset(v, 0, sizeof *v);
    if (buf && len >= HEADER)
        memcpy(h, buf, sizeof h);
    v->at = (const unsigned char *)buf + HEADER;
    v->end = (const unsigned char *)buf + len;
    v->nranks = v->left = h[0];
    v->failed = h[1] != 0;
    return v->failed ? -1 : 0;
}

static int take(layout_view *v, void *out, size_t n)
{
    if ((size_t)(v->end - v->at) < n)
        return -1;
    memcpy(out, v->at, n);
    v->at += n;
    return 0;
}

/* A string field of n bytes ended by a NUL; *s points into the block. */
static int take_text(layout_view *v, size_t n, const char **s)
{
    if ((size_t)(v->end - v->at) < n || (n && v->at[n - 1] != '\0'))
        return -1;
    *s = (const char *)v->at;
    v->at += n;
    return 0;
}

int layout_view_next(layout_view *v, layout_record *r)
{
    int32_t ints[2];
    uint32_t hl, nl;
    if (v->failed)
        return -1;
    if (v->left == 0)
        return v->at == v->end ? 0 : (v->failed = 1, -1);
    memset(r, 0, sizeof *r);
    int bad = take(v, ints, sizeof ints) != 0 || take(v, &hl, sizeof hl) != 0 || ints[0] < 0 ||
              ints[0] > LAYOUT_MAX_THREADS || (hl == LAYOUT_SAME_HOST && !v->host) || hl == 0;
    if (!bad && hl != LAYOUT_SAME_HOST)
        bad = take_text(v, hl, &v->host) != 0;
    bad = bad || take(v, &nl, sizeof nl) != 0 || take_text(v, nl, &r->names) != 0;
    if (bad) {
        v->failed = 1;
        return -1;
    }
    r->nthreads = ints[0], r->process_rank = ints[1], r->host = v->host, r->names_len = nl;
    v->left--;
    return 1;
}
