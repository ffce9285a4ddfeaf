/* cw_anchor.c - anchor.xml generation. */
#include "report/cube/writer/cw_anchor.h"
#include "report/cube/writer/cw_xml.h"

#include <stdio.h>

#ifndef HPROF_VERSION
#define HPROF_VERSION "unknown"
#endif

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static int write_attr(cw_out *o, const char *key, const char *value)
{
    cw_out_printf(o, "<attr key=\"");
    cw_xml_text(o, key);
    cw_out_printf(o, "\" value=\"");
    cw_xml_text(o, value);
    return cw_out_printf(o, "\"/>\n");
}

static int write_head(cw_out *o, const cube_defs *d)
{
    cw_out_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n");
    write_attr(o, "CubePL Version", "1.1");
    write_attr(o, "Cube anchor.xml syntax version", "4.4");
    write_attr(o, "Creator", "hprof " HPROF_VERSION);
    write_attr(o, "CUBE_CT_AGGR", "SUM");
    for (int i = 0; i < d->nattrs; i++)
        write_attr(o, or_empty(d->attr_keys[i]), or_empty(d->attr_values[i]));
    return cw_out_printf(o, "<doc>\n<mirrors>\n</mirrors>\n</doc>\n");
}

static void open_metric(cw_out *o, const cube_defs *d, const cw_forest *f, int m)
{
    const cube_metric_def *md = &d->metrics[m];
    cw_out_printf(o, "<metric id=\"%d\" type=\"%s\">\n", f->pre_pos[m],
                  md->inclusive ? "INCLUSIVE" : "EXCLUSIVE");
    cw_xml_elem(o, "disp_name", md->disp_name ? md->disp_name : md->uniq_name);
    cw_xml_elem(o, "uniq_name", md->uniq_name);
    cw_xml_elem(o, "dtype", md->dtype);
    cw_xml_elem(o, "uom", or_empty(md->uom));
    cw_xml_elem(o, "url", "");
    cw_xml_elem(o, "descr", or_empty(md->descr));
}

/* Decimal digits of v at the end of buf (size 24); returns where they start. */
static char *decimal(char *buf, long long v)
{
    char *p = buf + 24;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    return p;
}

static void put_str(cw_out *o, const char *s, size_t n)
{
    cw_out_write(o, s, n);
}
#define PUT(o, lit) put_str(o, lit, sizeof lit - 1)

static void put_num(cw_out *o, long long v)
{
    char buf[24], *p = decimal(buf, v);
    put_str(o, p, (size_t)(buf + 24 - p));
}

/* One per call path: a million of them make most of a large anchor.xml,
 * so no printf here. */
static void open_cnode(cw_out *o, const cube_defs *d, const cw_forest *f, int c)
{
    const cube_cnode_def *cd = &d->cnodes[c];
    PUT(o, "<cnode id=\"");
    put_num(o, f->pre_pos[c]);
    PUT(o, "\"");
    if (cd->callsite_line > 0) {
        PUT(o, " line=\"");
        put_num(o, cd->callsite_line);
        PUT(o, "\"");
    }
    if (cd->callsite_file) {
        PUT(o, " mod=\"");
        cw_xml_text(o, cd->callsite_file);
        PUT(o, "\"");
    }
    PUT(o, " calleeId=\"");
    put_num(o, cd->region);
    PUT(o, "\">\n");
}

/* Nested elements in preorder: close the open ones deeper than the next
 * node before opening it (no recursion: trees may be deep). */
static int write_nested(cw_out *o, const cube_defs *d, const cw_forest *f, const char *tag,
                        void (*open)(cw_out *, const cube_defs *, const cw_forest *, int))
{
    char close[32];
    int n = snprintf(close, sizeof close, "</%s>\n", tag), open_depth = 0;
    for (int k = 0; k < f->n; k++) {
        int v = f->pre[k];
        for (; open_depth > f->depth[v]; open_depth--)
            put_str(o, close, (size_t)n);
        open(o, d, f, v);
        open_depth++;
    }
    for (; open_depth > 0; open_depth--)
        put_str(o, close, (size_t)n);
    return o->failed ? -1 : 0;
}

static void write_region(cw_out *o, const cube_region_def *r, int id)
{
    cw_out_printf(o, "<region id=\"%d\" mod=\"", id);
    cw_xml_text(o, r->file ? r->file : or_empty(r->module));
    cw_out_printf(o, "\" begin=\"%ld\" end=\"%ld\">\n", r->begin_line, r->end_line);
    cw_xml_elem(o, "name", or_empty(r->name));
    cw_xml_elem(o, "mangled_name", r->mangled_name ? r->mangled_name : or_empty(r->name));
    cw_xml_elem(o, "paradigm", r->paradigm ? r->paradigm : "user");
    cw_xml_elem(o, "role", r->role ? r->role : "function");
    cw_xml_elem(o, "url", "");
    cw_xml_elem(o, "descr", or_empty(r->descr));
    if (r->file && r->module && r->module[0]) /* the ELF object, when mod is the source */
        write_attr(o, "hprof::module", r->module);
    cw_out_printf(o, "</region>\n");
}

static void write_process(cw_out *o, const cube_process_def *p, int id, int first_loc)
{
    char rank_name[32];
    snprintf(rank_name, sizeof rank_name, "MPI Rank %d", p->rank);
    cw_out_printf(o, "<locationgroup Id=\"%d\">\n", id);
    cw_xml_elem(o, "name", p->name ? p->name : rank_name);
    cw_out_printf(o, "<rank>%d</rank>\n<type>process</type>\n", p->rank);
    for (int t = 0; t < p->nthreads; t++) {
        char name[64];
        snprintf(name, sizeof name, "%s %d", t == 0 ? "Master thread" : "Thread", t);
        cw_out_printf(o, "<location Id=\"%d\">\n", first_loc + t);
        cw_xml_elem(o, "name", p->thread_names && p->thread_names[t] ? p->thread_names[t] : name);
        cw_out_printf(o, "<rank>%d</rank>\n<type>thread</type>\n</location>\n", t);
    }
    cw_out_printf(o, "</locationgroup>\n");
}

/* Location ids follow process (rank) order, the data's column order; the
 * processes are grouped under their node. */
static int write_system(cw_out *o, const cube_defs *d)
{
    cw_out_printf(o, "<system>\n<systemtreenode Id=\"0\">\n");
    cw_xml_elem(o, "name", d->machine ? d->machine : "machine");
    cw_out_printf(o, "<class>machine</class>\n");
    for (int n = 0; n < d->nnodes; n++) {
        cw_out_printf(o, "<systemtreenode Id=\"%d\">\n", n + 1);
        cw_xml_elem(o, "name", or_empty(d->nodes[n]));
        cw_out_printf(o, "<class>node</class>\n");
        int loc = 0; /* first location id of process p */
        for (int p = 0; p < d->nprocs; loc += d->procs[p].nthreads, p++)
            if (d->procs[p].node == n)
                write_process(o, &d->procs[p], p, loc);
        cw_out_printf(o, "</systemtreenode>\n");
    }
    return cw_out_printf(o, "</systemtreenode>\n</system>\n");
}

int cw_anchor_write(cw_out *o, const cube_defs *d, const cw_forest *metrics, const cw_forest *cnodes)
{
    write_head(o, d);
    cw_out_printf(o, "<metrics>\n");
    write_nested(o, d, metrics, "metric", open_metric);
    cw_out_printf(o, "</metrics>\n<program>\n");
    for (int r = 0; r < d->nregions; r++)
        write_region(o, &d->regions[r], r);
    write_nested(o, d, cnodes, "cnode", open_cnode);
    cw_out_printf(o, "</program>\n");
    write_system(o, d);
    cw_out_printf(o, "</cube>\n");
    return o->failed ? -1 : 0;
}
