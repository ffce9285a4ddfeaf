/*
 * cube_reader.c - cube_open maps the file, indexes the tar archive and
 * parses anchor.xml; cube_load_metric decodes a metric's rows and derives
 * its inclusive/exclusive values; cube_load_all does so in threads.
 */
#include "report/cube/reader/cube_reader.h"
#include "report/cube/reader/cr_anchor.h"
#include "report/cube/reader/cr_gzip.h"
#include "report/cube/reader/cr_tar.h"
#include "report/cube/reader/cr_tree.h"
#include "report/cube/reader/cr_util.h"
#include "report/cube/reader/cr_values.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_GUNZIP ((size_t)1 << 32)   /* whole-file or anchor gzip limit */
#define MAX_CELLS ((size_t)1 << 28)    /* cnodes x locations per metric */
#define MIN_BUDGET ((size_t)256 << 20) /* bytes of values always allowed */
#define MAX_NOTES 1000
#define MAX_LOAD_THREADS 8

/* The open file: its bytes (mapped, or inflated when the file is
 * gzip-compressed), the archive index, and the row orders. */
typedef struct cube_source {
    unsigned char *map;
    size_t maplen;
    unsigned char *heap;
    const unsigned char *buf;
    size_t len;
    cr_archive archive;
    int *ident, *wide;   /* row position -> cnode, per metric kind */
    size_t budget, used; /* doubles that may be / are held in memory */
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
    /* what the file can honestly hold: zlib expands at most 1032 times */
    size_t honest = s->maplen > MAX_GUNZIP / CR_ZLIB_MAX_RATIO ? MAX_GUNZIP : s->maplen * CR_ZLIB_MAX_RATIO;
    s->budget = (honest > MIN_BUDGET ? honest : MIN_BUDGET) / sizeof(double);
    if (rc == 0 && cr_is_gzip(s->buf, s->len)) { /* a .cubex.gz */
        s->heap = cr_gunzip(s->buf, s->len, honest, &s->len, err, errlen);
        if (!s->heap)
            rc = -1;
        s->buf = s->heap;
    }
    return rc;
}

static void close_source(source *s)
{
    if (!s)
        return;
    if (s->map)
        munmap(s->map, s->maplen);
    free(s->heap);
    cr_tar_free(&s->archive);
    free(s->ident);
    free(s->wide);
    free(s);
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

static int parse_anchor(cube_profile *p, const cr_archive *a, const unsigned char *buf, char *err,
                        size_t errlen)
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

/* One note for the metrics that cannot be loaded for one reason (derived
 * ones with kind CUBE_KIND_DERIVED, the others with -1): how many and their
 * names, as many as a line holds (cube_remap2 leaves 40 derived ones). */
static void note_skipped(cube_profile *p, int kind, const char *what, const char *why)
{
    char names[400] = "";
    size_t used = 0;
    int n = 0, listed = 0;
    for (int i = 0; i < p->nmetrics; i++) {
        const cube_metric *m = &p->metrics[i];
        if (m->loadable || (kind == CUBE_KIND_DERIVED) != (m->kind == CUBE_KIND_DERIVED))
            continue;
        n++;
        const char *name = m->uniq_name ? m->uniq_name : "?";
        int w = kind == CUBE_KIND_DERIVED
                    ? snprintf(names + used, sizeof names - used, "%s%s", listed ? ", " : "", name)
                    : snprintf(names + used, sizeof names - used, "%s%s (%s)", listed ? ", " : "", name,
                               m->dtype ? m->dtype : "?");
        if (w > 0 && used + (size_t)w < sizeof names - 24)
            used += (size_t)w, listed++;
        else
            names[used] = '\0';
    }
    if (n == 0)
        return;
    char head[160];
    snprintf(head, sizeof head, "%d %smetric%s not shown (%s): ", n, what, n == 1 ? "" : "s", why);
    if (listed < n)
        snprintf(names + used, sizeof names - used, " and %d more", n - listed);
    add_note(p, "%s%s", head, names);
}

/* Marks what can be loaded (with a note for what cannot) and prepares the
 * row orders, so loading needs no shared writes and can run in threads. */
static int prepare_loading(cube_profile *p, source *s, char *err, size_t errlen)
{
    s->ident = malloc(sizeof *s->ident * (size_t)(p->ncnodes ? p->ncnodes : 1));
    s->wide = cr_wide_order(p);
    if (!s->ident || !s->wide)
        return cr_err(err, errlen, "out of memory");
    for (int i = 0; i < p->ncnodes; i++)
        s->ident[i] = i;
    for (int i = 0; i < p->nmetrics; i++) {
        cube_metric *m = &p->metrics[i];
        m->loadable = cr_dtype_setup(m) == 0;
    }
    note_skipped(p, CUBE_KIND_DERIVED, "derived ",
                 "CubePL expressions, not evaluated; cube_remap2 -d stores their values");
    note_skipped(p, -1, "", "value types not read: compound or unknown");
    return 0;
}

cube_profile *cube_open(const char *path, char *err, size_t errlen)
{
    cube_profile *p = calloc(1, sizeof *p);
    source *s = calloc(1, sizeof *s);
    if (!p || !s) {
        free(p), free(s);
        cr_err(err, errlen, "out of memory");
        return NULL;
    }
    p->src = s;
    int rc = map_file(path, s, err, errlen);
    if (rc == 0)
        rc = cr_tar_scan(&s->archive, s->buf, s->len, err, errlen);
    if (rc == 0)
        rc = parse_anchor(p, &s->archive, s->buf, err, errlen);
    if (rc == 0)
        rc = check_metric_ids(p, err, errlen);
    if (rc == 0)
        rc = prepare_loading(p, s, err, errlen);
    if (rc == 0 && s->archive.checksum_bug)
        add_note(p, "%s%s", "tar header checksums carry the Cube 4.8 checksum bug (accepted)", NULL);
    if (rc < 0) {
        cube_close(p);
        return NULL;
    }
    return p;
}

/* A ratio's values per cnode and location, from its loaded operands. */
static int load_ratio(cube_profile *p, int metric, char *err, size_t errlen)
{
    int num = p->metrics[metric].num, den = p->metrics[metric].den;
    if (cube_load_metric(p, num, err, errlen) < 0 || cube_load_metric(p, den, err, errlen) < 0)
        return -1;
    cube_metric *m = &p->metrics[metric];
    const cube_metric *a = &p->metrics[num], *b = &p->metrics[den];
    size_t cells = (size_t)p->ncnodes * (size_t)p->nlocs;
    if (cube_reserve_values(p, 2 * cells, err, errlen) < 0)
        return -1;
    m->excl = malloc(cells * sizeof(double) + 1);
    m->incl = malloc(cells * sizeof(double) + 1);
    if (!m->excl || !m->incl)
        return cr_err(err, errlen, "out of memory");
    for (size_t i = 0; i < cells; i++) {
        double ae = a->excl ? a->excl[i] : 0, be = b->excl ? b->excl[i] : 0;
        double ai = a->incl ? a->incl[i] : 0, bi = b->incl ? b->incl[i] : 0;
        m->excl[i] = be != 0 ? ae / be : NAN;
        m->incl[i] = bi != 0 ? ai / bi : NAN;
    }
    m->loaded = 1;
    return 0;
}

int cube_add_ratio(cube_profile *p, int num, int den)
{
    cube_metric *ms = realloc(p->metrics, sizeof *ms * ((size_t)p->nmetrics + 1));
    if (!ms)
        return -1;
    p->metrics = ms;
    cube_metric *m = &ms[p->nmetrics];
    memset(m, 0, sizeof *m);
    size_t len = strlen(ms[num].uniq_name) + strlen(ms[den].uniq_name) + 2;
    m->uniq_name = malloc(len);
    m->disp_name = malloc(len);
    m->dtype = strdup("DOUBLE");
    m->uom = strdup("");
    m->descr = strdup("derived ratio");
    m->url = strdup("");
    if (!m->uniq_name || !m->disp_name || !m->dtype || !m->uom || !m->descr || !m->url)
        return -1;
    snprintf(m->uniq_name, len, "%s/%s", ms[num].uniq_name, ms[den].uniq_name);
    snprintf(m->disp_name, len, "%s/%s", ms[num].uniq_name, ms[den].uniq_name);
    m->id = -1;
    m->kind = CUBE_KIND_EXCLUSIVE;
    m->aggr = CUBE_AGGR_RATIO;
    m->parent = -1;
    m->loadable = 1;
    m->num = num;
    m->den = den;
    return p->nmetrics++;
}

int cube_load_metric(cube_profile *p, int metric, char *err, size_t errlen)
{
    if (p->metrics[metric].aggr == CUBE_AGGR_RATIO)
        return p->metrics[metric].loaded ? 0 : load_ratio(p, metric, err, errlen);
    cube_metric *m = &p->metrics[metric];
    source *s = p->src;
    if (m->loaded || !m->loadable)
        return 0;
    if (!cr_has_values(&s->archive, m)) { /* all zero */
        m->loaded = 1;
        return 0;
    }
    size_t cells = (size_t)p->ncnodes * (size_t)p->nlocs;
    if (p->nlocs && cells / (size_t)p->nlocs != (size_t)p->ncnodes)
        cells = SIZE_MAX;
    if (cells > MAX_CELLS)
        return cr_err(err, errlen, "profile too large (%d cnodes x %d locations)", p->ncnodes, p->nlocs);
    const int *seq = m->kind == CUBE_KIND_INCLUSIVE ? s->wide : s->ident;
    /* a forged size says so before the budget does */
    if (cr_scan_values(p, m, &s->archive, s->buf, seq, NULL, NULL, err, errlen) < 0 ||
        cube_reserve_values(p, 2 * cells, err, errlen) < 0)
        return -1;
    double *vals = cr_alloc_values(cells);
    if (!vals)
        return cr_err(err, errlen, "out of memory");
    if (cr_load_values(p, m, &s->archive, s->buf, seq, vals, err, errlen) < 0) {
        free(vals);
        return -1;
    }
    if ((m->excl || m->incl) && cr_derive(p, m) < 0) {
        free(m->excl), free(m->incl);
        m->excl = m->incl = NULL;
        m->loaded = 0;
        return cr_err(err, errlen, "out of memory");
    }
    return 0;
}

int cube_reserve_values(cube_profile *p, size_t n, char *err, size_t errlen)
{
    source *s = p->src;
    size_t used = __atomic_add_fetch(&s->used, n, __ATOMIC_RELAXED);
    if (used <= s->budget && used >= n)
        return 0;
    __atomic_sub_fetch(&s->used, n, __ATOMIC_RELAXED);
    return cr_err(
        err, errlen,
        "too large to hold in memory: %d call paths x %d locations need %zu MB more, "
        "over the %zu MB a file of %zu bytes can honestly hold (%d times its size, at least %zu MB)",
        p->ncnodes, p->nlocs, (n >> 17) + 1, s->budget >> 17, s->maplen, CR_ZLIB_MAX_RATIO, MIN_BUDGET >> 20);
}

int cube_scan_metric(cube_profile *p, int metric, cube_row_fn fn, void *ctx, char *err, size_t errlen)
{
    const cube_metric *m = &p->metrics[metric];
    source *s = p->src;
    if (!m->loadable || m->aggr == CUBE_AGGR_RATIO)
        return 0;
    if (m->loaded) {
        const double *v = m->kind == CUBE_KIND_INCLUSIVE ? m->incl : m->excl;
        for (int c = 0; v && c < p->ncnodes; c++)
            fn(ctx, c, v + (size_t)c * (size_t)p->nlocs);
        return 0;
    }
    const int *seq = m->kind == CUBE_KIND_INCLUSIVE ? s->wide : s->ident;
    return cr_scan_values(p, m, &s->archive, s->buf, seq, fn, ctx, err, errlen);
}

/* Workers take the next metric from a shared counter; the first error
 * stops them all. */
typedef struct load_job {
    cube_profile *p;
    int next;
    int failed;
    char err[256];
    pthread_mutex_t lock;
} load_job;

static void *load_worker(void *arg)
{
    load_job *j = arg;
    char err[256];
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int m = j->failed ? j->p->nmetrics : j->next++;
        pthread_mutex_unlock(&j->lock);
        if (m >= j->p->nmetrics)
            return NULL;
        if (j->p->metrics[m].aggr == CUBE_AGGR_RATIO)
            continue; /* after its operands, below */
        if (cube_load_metric(j->p, m, err, sizeof err) < 0) {
            pthread_mutex_lock(&j->lock);
            if (!j->failed)
                snprintf(j->err, sizeof j->err, "%s", err);
            j->failed = 1;
            pthread_mutex_unlock(&j->lock);
        }
    }
}

int cube_load_all(cube_profile *p, char *err, size_t errlen)
{
    load_job j = { .p = p };
    pthread_mutex_init(&j.lock, NULL);
    pthread_t t[MAX_LOAD_THREADS];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int n = ncpu < 1 ? 1 : ncpu > MAX_LOAD_THREADS ? MAX_LOAD_THREADS : (int)ncpu, started = 0;
    for (; started < n - 1; started++) /* this thread is one of the workers */
        if (pthread_create(&t[started], NULL, load_worker, &j) != 0)
            break;
    load_worker(&j);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_destroy(&j.lock);
    if (j.failed)
        return cr_err(err, errlen, "%s", j.err);
    for (int m = 0; m < p->nmetrics; m++)
        if (p->metrics[m].aggr == CUBE_AGGR_RATIO && cube_load_metric(p, m, err, errlen) < 0)
            return -1;
    return 0;
}

static void free_metric(cube_metric *m)
{
    free(m->uniq_name), free(m->disp_name), free(m->dtype), free(m->uom);
    free(m->descr), free(m->url), free(m->excl), free(m->incl);
}

static void free_region(cube_region *r)
{
    free(r->name), free(r->mangled_name), free(r->mod), free(r->paradigm);
    free(r->role), free(r->descr), free(r->url), free(r->module);
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
    close_source(p->src);
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
    if (m->aggr == CUBE_AGGR_RATIO) {
        double b = cube_value_all_locs(p, m->den, cnode, inclusive);
        return b != 0 ? cube_value_all_locs(p, m->num, cnode, inclusive) / b : NAN;
    }
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

const char *cube_attr_get(const cube_profile *p, const char *key)
{
    for (int i = 0; i < p->nattrs; i++)
        if (p->attrs[i].key && strcmp(p->attrs[i].key, key) == 0)
            return p->attrs[i].value;
    return NULL;
}

const char *cube_cnode_name(const cube_profile *p, int cnode)
{
    int r = p->cnodes[cnode].region;
    return r >= 0 && p->regions[r].name ? p->regions[r].name : "?";
}

const unsigned char *cube_member(const cube_profile *p, const char *name, size_t *len)
{
    const cr_member *m = p->src ? cr_tar_find(&p->src->archive, name) : NULL;
    if (!m)
        return NULL;
    *len = m->size;
    return p->src->buf + m->off;
}
