/*
 * cube_reader.c - cube_open: map the file, index the tar archive, parse
 * anchor.xml, load every metric and derive inclusive/exclusive values.
 */
#include "cube_reader.h"
#include "cr_anchor.h"
#include "cr_gzip.h"
#include "cr_tar.h"
#include "cr_tree.h"
#include "cr_util.h"
#include "cr_values.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_GUNZIP ((size_t)1 << 32)    /* whole-file or anchor gzip limit */
#define MAX_NOTES 1000

/* The file's bytes: mapped, or inflated when the file is gzip-compressed. */
typedef struct source {
    unsigned char *map;
    size_t maplen;
    unsigned char *heap;
    const unsigned char *buf;
    size_t len;
} source;

static int map_file(const char *path, source *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cr_err(err, errlen, "%s", strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) < 0)
        rc = cr_err(err, errlen, "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = cr_err(err, errlen, "not a regular file");
    else if (st.st_size == 0)
        rc = cr_err(err, errlen, "empty file");
    if (rc == 0) {
        s->maplen = (size_t)st.st_size;
        s->map = mmap(NULL, s->maplen, PROT_READ, MAP_PRIVATE, fd, 0);
        if (s->map == MAP_FAILED) {
            s->map = NULL;
            rc = cr_err(err, errlen, "cannot map file: %s", strerror(errno));
        }
    }
    close(fd);
    s->buf = s->map;
    s->len = s->maplen;
    if (rc == 0 && cr_is_gzip(s->buf, s->len)) {   /* a .cubex.gz */
        s->heap = cr_gunzip(s->buf, s->len, MAX_GUNZIP, &s->len, err, errlen);
        if (!s->heap)
            rc = -1;
        s->buf = s->heap;
    }
    return rc;
}

static void unmap_file(source *s)
{
    if (s->map)
        munmap(s->map, s->maplen);
    free(s->heap);
}

static void add_note(cube_profile *p, const char *fmt, const char *a1, const char *a2)
{
    if (p->nnotes >= MAX_NOTES)
        return;
    char **n = realloc(p->notes, sizeof *n * (size_t)(p->nnotes + 1));
    if (!n)
        return;
    p->notes = n;
    a1 = a1 ? a1 : "?";
    a2 = a2 ? a2 : "";
    size_t len = strlen(fmt) + strlen(a1) + strlen(a2) + 1;
    char *s = malloc(len);
    if (!s)
        return;
    snprintf(s, len, fmt, a1, a2);
    p->notes[p->nnotes++] = s;
}

static int parse_anchor(cube_profile *p, const cr_archive *a, const unsigned char *buf,
                        char *err, size_t errlen)
{
    const cr_member *m = cr_tar_find(a, "anchor.xml");
    if (!m)
        return cr_err(err, errlen, "not a CUBE4 file (no anchor.xml in the archive)");
    const unsigned char *xml = buf + m->off;
    size_t len = m->size;
    unsigned char *heap = NULL;
    if (cr_is_gzip(xml, len)) {
        heap = cr_gunzip(xml, len, MAX_GUNZIP, &len, err, errlen);
        if (!heap)
            return -1;
        xml = heap;
    }
    int rc = cr_anchor_parse(p, (const char *)xml, len, err, errlen);
    free(heap);
    return rc;
}

static int check_metric_ids(const cube_profile *p, char *err, size_t errlen)
{
    for (int i = 0; i < p->nmetrics; i++)
        for (int j = 0; j < i; j++)
            if (p->metrics[i].id == p->metrics[j].id)
                return cr_err(err, errlen, "anchor.xml: duplicate metric id %d", p->metrics[i].id);
    return 0;
}

static int load_metrics(cube_profile *p, const cr_archive *a, const unsigned char *buf,
                        char *err, size_t errlen)
{
    int *ident = malloc(sizeof *ident * (size_t)(p->ncnodes ? p->ncnodes : 1));
    int *wide = cr_wide_order(p);
    int rc = (!ident || !wide) ? cr_err(err, errlen, "out of memory") : 0;
    for (int i = 0; rc == 0 && i < p->ncnodes; i++)
        ident[i] = i;
    for (int i = 0; rc == 0 && i < p->nmetrics; i++) {
        cube_metric *m = &p->metrics[i];
        if (cr_dtype_setup(m) < 0) {
            add_note(p, "metric %s: %s", m->uniq_name, m->note);
            continue;
        }
        const int *seq = m->kind == CUBE_KIND_INCLUSIVE ? wide : ident;
        rc = cr_load_values(p, m, a, buf, seq, err, errlen);
        if (rc == 0 && (m->excl || m->incl) && cr_derive(p, m) < 0)
            rc = cr_err(err, errlen, "out of memory");
    }
    free(ident);
    free(wide);
    return rc;
}

cube_profile *cube_open(const char *path, char *err, size_t errlen)
{
    source src;
    cube_profile *p = calloc(1, sizeof *p);
    if (!p) {
        cr_err(err, errlen, "out of memory");
        return NULL;
    }
    cr_archive a;
    memset(&a, 0, sizeof a);
    int rc = map_file(path, &src, err, errlen);
    if (rc == 0)
        rc = cr_tar_scan(&a, src.buf, src.len, err, errlen);
    if (rc == 0)
        rc = parse_anchor(p, &a, src.buf, err, errlen);
    if (rc == 0)
        rc = check_metric_ids(p, err, errlen);
    if (rc == 0)
        rc = load_metrics(p, &a, src.buf, err, errlen);
    if (rc == 0 && a.checksum_bug)
        add_note(p, "%s%s", "tar header checksums carry the Cube 4.8 checksum bug (accepted)", NULL);
    cr_tar_free(&a);
    unmap_file(&src);
    if (rc < 0) {
        cube_close(p);
        return NULL;
    }
    return p;
}

static void free_metric(cube_metric *m)
{
    free(m->uniq_name), free(m->disp_name), free(m->dtype), free(m->uom);
    free(m->descr), free(m->url), free(m->excl), free(m->incl);
}

static void free_region(cube_region *r)
{
    free(r->name), free(r->mangled_name), free(r->mod), free(r->paradigm);
    free(r->role), free(r->descr), free(r->url);
}

void cube_close(cube_profile *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nattrs; i++)
        free(p->attrs[i].key), free(p->attrs[i].value);
    for (int i = 0; i < p->nmetrics; i++)
        free_metric(&p->metrics[i]);
    for (int i = 0; i < p->nregions; i++)
        free_region(&p->regions[i]);
    for (int i = 0; i < p->ncnodes; i++)
        free(p->cnodes[i].mod);
    for (int i = 0; i < p->nsysnodes; i++)
        free(p->sysnodes[i].name), free(p->sysnodes[i].klass);
    for (int i = 0; i < p->nprocs; i++)
        free(p->procs[i].name);
    for (int i = 0; i < p->nlocs; i++)
        free(p->locs[i].name);
    for (int i = 0; i < p->nnotes; i++)
        free(p->notes[i]);
    free(p->version), free(p->attrs), free(p->metrics), free(p->regions);
    free(p->cnodes), free(p->roots), free(p->sysnodes), free(p->procs);
    free(p->locs), free(p->notes);
    free(p);
}

int cube_find_metric(const cube_profile *p, const char *uniq_name)
{
    for (int i = 0; i < p->nmetrics; i++)
        if (p->metrics[i].uniq_name && strcmp(p->metrics[i].uniq_name, uniq_name) == 0)
            return i;
    return -1;
}

double cube_value(const cube_profile *p, int metric, int cnode, int loc, int inclusive)
{
    const cube_metric *m = &p->metrics[metric];
    const double *v = inclusive ? m->incl : m->excl;
    return v ? v[(size_t)cnode * (size_t)p->nlocs + (size_t)loc] : 0.0;
}

double cube_value_all_locs(const cube_profile *p, int metric, int cnode, int inclusive)
{
    const cube_metric *m = &p->metrics[metric];
    const double *v = inclusive ? m->incl : m->excl;
    if (!v || p->nlocs == 0)
        return 0.0;
    v += (size_t)cnode * (size_t)p->nlocs;
    double acc = v[0];
    for (int l = 1; l < p->nlocs; l++) {
        if (m->aggr == CUBE_AGGR_SUM)
            acc += v[l];
        else if (m->aggr == CUBE_AGGR_MIN ? v[l] < acc : v[l] > acc)
            acc = v[l];
    }
    return acc;
}

const char *cube_cnode_name(const cube_profile *p, int cnode)
{
    int r = p->cnodes[cnode].region;
    return r >= 0 && p->regions[r].name ? p->regions[r].name : "?";
}
