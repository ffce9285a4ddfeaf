#include "tools/hprof-view/view_reduced.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MEMBER "hprof.locations.z"
#define MAGIC "HPROFLOC"
#define HEAD 28

static int inflate_all(z_stream *z, unsigned char *to, size_t n)
{
    z->next_out = to;
    z->avail_out = (uInt)n;
    int rc = inflate(z, Z_SYNC_FLUSH);
    return (rc == Z_OK || rc == Z_STREAM_END) && z->avail_out == 0 ? 0 : -1;
}

int view_reduced_file(const cube_profile *p)
{
    const char *v = cube_attr_get(p, "hprof::locations");
    return v && strcmp(v, "reduced") == 0;
}

int view_reduced_load(const cube_profile *p, view_reduced *r)
{
    memset(r, 0, sizeof *r);
    size_t len;
    const unsigned char *m = cube_member(p, MEMBER, &len);
    z_stream z = { 0 };
    if (!m || len > UINT32_MAX || inflateInit(&z) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)m;
    z.avail_in = (uInt)len;
    unsigned char head[HEAD];
    uint32_t v[3];
    uint64_t ranks;
    int ok = inflate_all(&z, head, HEAD) == 0 && memcmp(head, MAGIC, 8) == 0;
    if (ok) {
        memcpy(v, head + 8, sizeof v);
        memcpy(&ranks, head + 20, sizeof ranks);
        /* ids as the writer gives them: every metric, every cnode */
        ok = v[0] == 1 && v[1] == (uint32_t)p->nmetrics && v[2] == (uint32_t)p->ncnodes;
    }
    size_t n = ok ? (size_t)v[1] * v[2] * 2 : 0;
    if (ok && (r->at = malloc(n * sizeof(int32_t) + 1)) != NULL &&
        inflate_all(&z, (unsigned char *)r->at, n * sizeof(int32_t)) == 0) {
        r->nmetrics = (int)v[1];
        r->nrows = (int)v[2];
        r->nranks = (long long)ranks;
    } else {
        free(r->at);
        r->at = NULL;
    }
    inflateEnd(&z);
    return r->at != NULL;
}

int view_reduced_ranks(const cube_profile *p, const view_reduced *r, int m, int c, int *min_rank,
                       int *max_rank)
{
    if (!r->at || m < 0 || m >= p->nmetrics || c < 0 || c >= p->ncnodes)
        return 0;
    int id = p->metrics[m].id, row = p->cnodes[c].id;
    if (id < 0 || id >= r->nmetrics || row < 0 || row >= r->nrows)
        return 0;
    const int32_t *at = r->at + 2 * ((size_t)id * r->nrows + row);
    *min_rank = at[0];
    *max_rank = at[1];
    return at[0] >= 0 || at[1] >= 0;
}

void view_reduced_free(view_reduced *r)
{
    free(r->at);
    r->at = NULL;
}
