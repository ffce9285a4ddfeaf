/* check.c - the merge's layout records (report/merge/layout_msg.c) joined
 * as the aggregators join them: two groups' blocks, the second a child of
 * the first, read back in rank order with each host once per run; a
 * failed or cut block fails the join. Prints "layout ok ..." or what is
 * wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge/layout_msg.h"

#define NRANKS 6

static const char *host_of(int r)
{
    return r < 3 ? "node-a" : "node-b";
}

/* Rank r's names: r % 3 + 1 threads, "t<r>.<t>", thread 1 unnamed. */
static size_t names_of(int r, char *buf)
{
    size_t len = 0;
    for (int t = 0; t <= r % 3; t++)
        len += (size_t)sprintf(buf + len, t == 1 ? "" : "t%d.%d", r, t) + 1;
    return len;
}

static void own_block(int r, layout_block *b)
{
    char names[64];
    layout_record rec = { r % 3 + 1, 100 + r, host_of(r), names, names_of(r, names) };
    layout_block_begin(b);
    layout_block_add(b, &rec);
}

/* The ranks [first, last) joined as their aggregator joins its members. */
static void group_block(int first, int last, layout_block *out)
{
    layout_block_begin(out);
    for (int r = first; r < last; r++) {
        layout_block b;
        own_block(r, &b);
        layout_block_join(out, b.buf, b.len);
        layout_block_free(&b);
    }
}

static int count(const unsigned char *buf, size_t len, const char *s)
{
    int n = 0;
    for (size_t i = 0; i + strlen(s) <= len; i++)
        n += memcmp(buf + i, s, strlen(s)) == 0;
    return n;
}

static int check_read(const layout_block *all)
{
    layout_view v;
    layout_record rec;
    int r = 0, bad = 0, more;
    if (layout_view_of(&v, all->buf, all->len) != 0 || v.nranks != NRANKS)
        return printf("the joined block: failed or %u ranks\n", v.nranks), 1;
    for (; (more = layout_view_next(&v, &rec)) == 1; r++) {
        char want[64];
        size_t wlen = names_of(r, want);
        if (rec.nthreads != r % 3 + 1 || rec.process_rank != 100 + r || strcmp(rec.host, host_of(r)) != 0 ||
            rec.names_len != wlen || memcmp(rec.names, want, wlen) != 0) {
            printf("rank %d: %d threads, process %d, host %s, names %zu bytes\n", r, rec.nthreads,
                   rec.process_rank, rec.host, rec.names_len);
            bad = 1;
        }
    }
    if (more != 0 || r != NRANKS)
        return printf("read %d records, then %d\n", r, more), 1;
    if (count(all->buf, all->len, "node-a") != 1 || count(all->buf, all->len, "node-b") != 1)
        return printf("hosts sent %d and %d times, want once per run\n", count(all->buf, all->len, "node-a"),
                      count(all->buf, all->len, "node-b")),
               1;
    return bad;
}

/* A failed member's block, or one cut short, fails the aggregator's. */
static int check_failures(void)
{
    layout_block good, failed, out;
    own_block(0, &good);
    own_block(1, &failed);
    layout_block_fail(&failed);
    layout_block_begin(&out);
    layout_block_join(&out, good.buf, good.len);
    layout_block_join(&out, failed.buf, failed.len);
    layout_view v;
    int bad = layout_view_of(&v, out.buf, out.len) == 0;
    if (bad)
        printf("a failed member's block did not fail the join\n");
    layout_block_free(&out);
    layout_block_begin(&out);
    if (layout_block_join(&out, good.buf, good.len - 3) == 0 || layout_view_of(&v, out.buf, out.len) == 0) {
        printf("a block cut short was taken\n");
        bad = 1;
    }
    layout_block_free(&out);
    layout_block_begin(&out);
    if (layout_block_join(&out, NULL, 0) == 0 || !out.failed) {
        printf("a missing block was taken\n");
        bad = 1;
    }
    layout_block_free(&out), layout_block_free(&good), layout_block_free(&failed);
    return bad;
}

int main(void)
{
    layout_block a, b;
    group_block(0, 4, &a);      /* rank 0's group */
    group_block(4, NRANKS, &b); /* its child's */
    layout_block_join(&a, b.buf, b.len);
    int bad = check_read(&a) | check_failures();
    if (!bad)
        printf("layout ok %d ranks in %zu bytes\n", NRANKS, a.len);
    layout_block_free(&a), layout_block_free(&b);
    return bad;
}
