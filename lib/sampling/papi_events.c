/*
 * papi_events.c - HPROF_METRICS through PAPI (see papi_events.h for the attribution).
 */
#define _GNU_SOURCE
#include "lib/sampling/papi_events.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "report/profile/snapshot.h"
#include "core/log.h"
#include "core/real_dl.h"

int hprof_papi_nevents;

#define MAX_REQUESTED 64

static int nrequested;
static char *requested[MAX_REQUESTED];
static int slot_of[MAX_REQUESTED]; /* -1: not counted on this rank */
static char *description[MAX_REQUESTED];
static char *units[MAX_REQUESTED];

/* HPROF_METRICS split at commas, blanks trimmed, duplicates and empty
 * entries dropped. */
static void parse_request(const char *spec)
{
    const char *p = spec;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *b = p, *e = p + n;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        p += n + (p[n] == ',');
        if (e == b)
            continue;
        int dup = 0;
        for (int j = 0; j < nrequested && !dup; j++)
            dup = strlen(requested[j]) == (size_t)(e - b) && strncmp(requested[j], b, (size_t)(e - b)) == 0;
        if (dup)
            continue;
        if (nrequested == MAX_REQUESTED) {
            hprof_say("HPROF_METRICS names more than %d events; the rest are ignored", MAX_REQUESTED);
            return;
        }
        requested[nrequested] = strndup(b, (size_t)(e - b));
        slot_of[nrequested] = -1;
        if (requested[nrequested])
            nrequested++;
    }
}

/* papi_events.h: the events as the snapshot hands them to report/. */
int hprof_events_counted(void)
{
    return hprof_papi_nevents;
}

int hprof_event_defs(snapshot_event *out, int max)
{
    for (int j = 0; j < nrequested && j < max; j++)
        out[j] = (snapshot_event){ requested[j], units[j] ? units[j] : "#",
                                   description[j] ? description[j] : "PAPI event", slot_of[j] };
    return nrequested;
}

#ifndef HPROF_PAPI

void hprof_papi_process_start(void)
{
    if (!hprof_config.metrics)
        return;
    parse_request(hprof_config.metrics);
    hprof_say("HPROF_METRICS is set, but this hprof was built without PAPI (install libpapi-dev "
              "and rebuild); no events are counted");
}

void hprof_papi_thread_start(hprof_papi_thread *p)
{
    p->on = 0;
}
void hprof_papi_call_begin(hprof_papi_thread *p)
{
    (void)p;
}
void hprof_papi_call_end(hprof_papi_thread *p, int64_t *events)
{
    (void)p;
    (void)events;
}
void hprof_papi_sample(hprof_papi_thread *p, const cct *tree, uint32_t node)
{
    (void)p;
    (void)tree;
    (void)node;
}
void hprof_papi_thread_stop(hprof_papi_thread *p, int64_t *events)
{
    (void)p;
    (void)events;
}

#else /* HPROF_PAPI */

#include <dlfcn.h>
#include <link.h>
#include <papi.h>
#include <pthread.h>
#include <stdio.h>

/* libhprof.so is linked with libpapi. libhprof.a refers to it weakly, so a
 * program links without -lpapi (and --as-needed drops a libpapi that only
 * weak references use): then libpapi is opened at MPI_Init, and HPROF_METRICS
 * says so in one line if that fails. All calls go through these pointers. */
/* a list clang-format 14 reflows differently each run */
/* clang-format off */
#define PAPI_FNS(X)                                                                                \
    X(PAPI_library_init) X(PAPI_thread_init) X(PAPI_create_eventset) X(PAPI_add_named_event)       \
    X(PAPI_remove_named_event) X(PAPI_start) X(PAPI_stop) X(PAPI_read) X(PAPI_cleanup_eventset)    \
    X(PAPI_destroy_eventset) X(PAPI_strerror) X(PAPI_event_name_to_code) X(PAPI_get_event_info)
/* clang-format on */
#define WEAK(f) extern __typeof__(f) f __attribute__((weak));
#define POINTER(f) static __typeof__(&f) pf_##f;
PAPI_FNS(WEAK)
PAPI_FNS(POINTER)

static const char *load_papi(void)
{
    if (PAPI_library_init) {
#define LINKED(f) pf_##f = f;
        PAPI_FNS(LINKED)
        return NULL;
    }
    static const char *const names[] = { "libpapi.so", "libpapi.so.7.1", "libpapi.so.7.0", "libpapi.so.7",
                                         "libpapi.so.6.0" };
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        return "libpapi is neither linked into this program nor loadable (link with -lpapi)";
#define LOOKUP(f)                                     \
    if (!(pf_##f = (__typeof__(pf_##f))dlsym(h, #f))) \
        return "libpapi lacks " #f;
    PAPI_FNS(LOOKUP)
    return NULL;
}

#define PAPI_library_init (*pf_PAPI_library_init)
#define PAPI_thread_init (*pf_PAPI_thread_init)
#define PAPI_create_eventset (*pf_PAPI_create_eventset)
#define PAPI_add_named_event (*pf_PAPI_add_named_event)
#define PAPI_remove_named_event (*pf_PAPI_remove_named_event)
#define PAPI_start (*pf_PAPI_start)
#define PAPI_stop (*pf_PAPI_stop)
#define PAPI_read (*pf_PAPI_read)
#define PAPI_cleanup_eventset (*pf_PAPI_cleanup_eventset)
#define PAPI_destroy_eventset (*pf_PAPI_destroy_eventset)
#define PAPI_strerror (*pf_PAPI_strerror)
#define PAPI_event_name_to_code (*pf_PAPI_event_name_to_code)
#define PAPI_get_event_info (*pf_PAPI_get_event_info)

static const char *counted[HPROF_MAX_EVENTS]; /* names by slot */
static pthread_t init_thread;                 /* the thread that called MPI_Init */

/* Text of libpapi and libsde: a sample interrupted in there is not read. */
#define MAX_RANGES 16
static struct {
    uint64_t lo, hi;
} ranges[MAX_RANGES];
static int nranges;

static int note_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libpapi", 7) != 0 && strncmp(base, "libsde", 6) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
            ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
            nranges++;
        }
    }
    return 0;
}

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

static void describe(int j)
{
    int code;
    PAPI_event_info_t info;
    if (PAPI_event_name_to_code(requested[j], &code) != PAPI_OK ||
        PAPI_get_event_info(code, &info) != PAPI_OK)
        return;
    const char *d = info.long_descr[0] ? info.long_descr : info.short_descr;
    if (d[0])
        description[j] = strdup(d);
    if (info.units[0])
        units[j] = strdup(info.units);
}

/* Appends "name" or ", name" to buf. */
static void append(char *buf, size_t len, const char *name, const char *why)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s%s%s%s%s", n ? ", " : "", name, why ? " (" : "", why ? why : "",
                 why ? ")" : "");
}

void hprof_papi_process_start(void)
{
    if (!hprof_config.metrics)
        return;
    parse_request(hprof_config.metrics);
    if (nrequested == 0)
        return;
    const char *why = load_papi();
    if (why) {
        hprof_say("HPROF_METRICS: %s; no events are counted", why);
        return;
    }
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        hprof_say("HPROF_METRICS: PAPI did not start (%s); no events are counted",
                  rc > 0 ? "library version mismatch" : PAPI_strerror(rc));
        return;
    }
    if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK) {
        hprof_say("HPROF_METRICS: PAPI_thread_init failed (%s); no events are counted", PAPI_strerror(rc));
        return;
    }
    hprof_loader_iterate(note_ranges, NULL);
    init_thread = pthread_self();
    int es = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&es)) != PAPI_OK) {
        hprof_say("HPROF_METRICS: no PAPI event set (%s); no events are counted", PAPI_strerror(rc));
        return;
    }
    /* One at a time, each checked by starting the set: what cannot be added,
     * or cannot run together with the events before it, is dropped. */
    char good[1024] = "", bad[1024] = "";
    int nev = 0;
    for (int j = 0; j < nrequested; j++) {
        if (nev == HPROF_MAX_EVENTS) {
            char why[48];
            snprintf(why, sizeof why, "more than %d events", HPROF_MAX_EVENTS);
            append(bad, sizeof bad, requested[j], why);
            continue;
        }
        rc = PAPI_add_named_event(es, requested[j]);
        if (rc == PAPI_OK) {
            long long v[HPROF_MAX_EVENTS];
            rc = PAPI_start(es);
            if (rc == PAPI_OK)
                PAPI_stop(es, v);
            else
                PAPI_remove_named_event(es, requested[j]);
        }
        if (rc != PAPI_OK) {
            append(bad, sizeof bad, requested[j],
                   rc == PAPI_ECNFLCT                        ? "conflicts with the events before it"
                   : rc == PAPI_ENOEVNT || rc == PAPI_EINVAL ? "no such event here"
                                                             : PAPI_strerror(rc));
            continue;
        }
        slot_of[j] = nev;
        counted[nev++] = requested[j];
        append(good, sizeof good, requested[j], NULL);
        describe(j);
    }
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    hprof_papi_nevents = nev; /* published last: threads start their sets from here on */
    if (bad[0])
        hprof_say("HPROF_METRICS: counting %s; cannot count %s", good[0] ? good : "nothing", bad);
    else
        hprof_verbose(1, "HPROF_METRICS: counting %s", good);
}

void hprof_papi_thread_start(hprof_papi_thread *p)
{
    p->on = 0;
    if (!hprof_papi_nevents)
        return;
    /* SDE events only on the MPI_Init thread (see papi_events.h). */
    int main_thread = pthread_equal(pthread_self(), init_thread), n = 0;
    for (int i = 0; i < hprof_papi_nevents; i++)
        if (main_thread || strncmp(counted[i], "sde:::", 6) != 0)
            p->slot[n++] = (unsigned char)i;
    if (n == 0)
        return;
    int es = PAPI_NULL, rc = PAPI_create_eventset(&es);
    for (int k = 0; rc == PAPI_OK && k < n; k++)
        rc = PAPI_add_named_event(es, counted[p->slot[k]]);
    if (rc == PAPI_OK)
        rc = PAPI_start(es);
    if (rc == PAPI_OK)
        rc = PAPI_read(es, p->last);
    if (rc != PAPI_OK) {
        hprof_verbose(1, "HPROF_METRICS: this thread counts no events (%s)", PAPI_strerror(rc));
        return;
    }
    memset(p->mpi_since, 0, sizeof p->mpi_since);
    p->nread = n;
    p->eventset = es;
    p->on = 1;
}

void hprof_papi_call_begin(hprof_papi_thread *p)
{
    p->call_ok = p->on && PAPI_read(p->eventset, p->call_start) == PAPI_OK;
}

void hprof_papi_call_end(hprof_papi_thread *p, int64_t *events)
{
    if (!p->on || !p->call_ok)
        return;
    long long now[HPROF_MAX_EVENTS];
    if (PAPI_read(p->eventset, now) != PAPI_OK) {
        p->read_failures++; /* the call's counts go to the next sample */
        return;
    }
    for (int k = 0; k < p->nread; k++) {
        long long d = now[k] - p->call_start[k];
        if (events)
            events[p->slot[k]] += d;
        p->mpi_since[k] += d;
    }
}

/* Adds the interval since the last read, minus MPI's share, to events. */
static void take_interval(hprof_papi_thread *p, int64_t *events)
{
    long long now[HPROF_MAX_EVENTS];
    if (PAPI_read(p->eventset, now) != PAPI_OK) {
        p->read_failures++;
        return;
    }
    for (int k = 0; k < p->nread; k++) {
        if (events)
            events[p->slot[k]] += now[k] - p->last[k] - p->mpi_since[k];
        p->last[k] = now[k];
        p->mpi_since[k] = 0;
    }
}

static int in_papi(uint64_t pc)
{
    for (int i = 0; i < nranges; i++)
        if (pc >= ranges[i].lo && pc < ranges[i].hi)
            return 1;
    return 0;
}

void hprof_papi_sample(hprof_papi_thread *p, const cct *tree, uint32_t node)
{
    if (!p->on)
        return;
    /* Every key on the path is an address just past a point inside its
     * function (the leaf: the interrupted pc + 1). */
    for (uint32_t id = node; id != CCT_ROOT && id != CCT_NONE; id = tree->nodes[id].parent) {
        uint64_t key = tree->nodes[id].key;
        if (key == CCT_KEY_UNWIND_FAILED || in_papi(key - 1)) {
            p->skipped++;
            return;
        }
    }
    take_interval(p, tree->nodes[node].event);
}

void hprof_papi_thread_stop(hprof_papi_thread *p, int64_t *events)
{
    if (!p->on)
        return;
    take_interval(p, events);
    long long v[HPROF_MAX_EVENTS];
    PAPI_stop(p->eventset, v);
    p->on = 0;
    if (p->read_failures || p->skipped)
        hprof_verbose(1, "HPROF_METRICS: %llu failed reads, %llu samples not read (inside PAPI)",
                      (unsigned long long)p->read_failures, (unsigned long long)p->skipped);
}

#endif /* HPROF_PAPI */
