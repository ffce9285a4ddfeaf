#define _GNU_SOURCE
/*
 * modules.c - the record of loaded objects (see modules.h).
 *
 * dl_iterate_phdr gives every object's load bias and program headers, and
 * its counters of objects ever added and removed tell at the first callback
 * whether anything changed. The file of an object is its loader name when
 * absolute, the program's /proc/self/exe, the vDSO's in-memory image, or
 * for a relative name (dlopen("./libx.so")) the file the kernel shows
 * mapped at its first segment.
 */
#include "unwind/modules.h"

#include "unwind/debug_files.h"
#include "core/real_dl.h"
#include "core/log.h"

#include <elfutils/libdwfl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

typedef struct seen {
    const char *name; /* the loader's, valid during the iteration only */
    uint64_t bias, low, high;
} seen;

typedef struct record {
    module_rec m;
    char *loader_name; /* to match the loader's list again */
} record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static record *recs;
static int nrecs, cap;
static unsigned long long last_adds = ~0ull, last_subs = ~0ull;
static uint64_t generation;
static module_hook hooks[4];
static int nhooks;
static int forked; /* a forked child (the fallback writer): nothing there measures */

/* Refreshes whose hooks are running, outside the lock, in any thread
 * (modules_settle waits for none); and whether this thread runs some. */
static int hooks_running;
static pthread_cond_t hooks_done = PTHREAD_COND_INITIALIZER;
static __thread int in_hooks;

/* The child of a fork may have been made while another thread held the
 * lock; it is alone now. It keeps the record for naming, runs no hooks
 * (their locks may be held for good) and never learns or records again. */
static void after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&hooks_done, NULL);
    hooks_running = 0;
    forked = 1;
}

void modules_add_hook(module_hook hook)
{
    pthread_mutex_lock(&lock);
    int known = 0;
    for (int i = 0; i < nhooks; i++)
        known |= hooks[i] == hook;
    if (!known && nhooks < 4)
        hooks[nhooks++] = hook;
    pthread_mutex_unlock(&lock);
}

uint64_t modules_generation(void)
{
    return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

/* ---- the loader's list ------------------------------------------------------ */

typedef struct counters {
    unsigned long long adds, subs;
} counters;

static int read_counters(struct dl_phdr_info *info, size_t size, void *data)
{
    counters *c = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c->adds = info->dlpi_adds;
        c->subs = info->dlpi_subs;
    }
    return 1; /* the same in every callback: one is enough */
}

typedef struct listing {
    seen *v;
    int n, cap;
} listing;

static int list_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    listing *l = data;
    /* low: the first segment's page, as libdwfl takes it to find the bias */
    uint64_t low = UINT64_MAX, high = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (low == UINT64_MAX)
            low = info->dlpi_addr + (ph->p_vaddr & -(uint64_t)(ph->p_align ? ph->p_align : 1));
        if (a + ph->p_memsz > high)
            high = a + ph->p_memsz;
    }
    if (high == 0)
        return 0;
    if (l->n == l->cap) {
        int c = l->cap ? 2 * l->cap : 64;
        seen *v = realloc(l->v, (size_t)c * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = c;
    }
    l->v[l->n++] = (seen){ info->dlpi_name ? info->dlpi_name : "", info->dlpi_addr, low, high };
    return 0;
}

/* ---- files ------------------------------------------------------------------------ */

/* The file the kernel shows mapped at address at, or NULL. */
static char *mapped_file(uint64_t at)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4352], *found = NULL;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        int path_at = 0;
        if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &path_at) < 2 || !path_at)
            continue;
        if (at >= lo && at < hi && line[path_at] == '/') {
            line[strcspn(line, "\n")] = '\0';
            found = strdup(line + path_at);
        }
    }
    if (f)
        fclose(f);
    return found;
}

#define VDSO_PREFIX "[vdso: "

const char *modules_shown_name(const char *path)
{
    return strncmp(path, VDSO_PREFIX, strlen(VDSO_PREFIX)) == 0 ? "[vdso]" : path;
}

static char *file_of(const seen *s)
{
    char buf[4096];
    if (s->low == (uint64_t)getauxval(AT_SYSINFO_EHDR)) {
        /* libdwfl reads this one from the process's memory */
        snprintf(buf, sizeof buf, VDSO_PREFIX "%d]", (int)getpid());
        return strdup(buf);
    }
    if (s->name[0] == '/')
        return strdup(s->name);
    if (s->name[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            return strdup(buf);
        }
    }
    char *f = mapped_file(s->low);
    return f ? f : strdup(s->name);
}

/* ---- keeping the record ------------------------------------------------------------- */

static int same(const record *r, const seen *s)
{
    return r->m.bias == s->bias && r->m.low == s->low && r->m.high == s->high &&
           strcmp(r->loader_name, s->name) == 0;
}

typedef struct change {
    int id, live;
} change;

/* Marks what went and adds what appeared; the changes for the hooks. The
 * caller holds the lock. */
static int reconcile(const listing *l, change **out)
{
    int nchanges = 0;
    change *ch = malloc((size_t)(nrecs + l->n + 1) * sizeof *ch);
    if (!ch)
        return 0;
    char *still = calloc((size_t)nrecs + 1, 1);
    char *known = calloc((size_t)l->n + 1, 1);
    for (int i = 0; still && known && i < nrecs; i++) {
        if (!recs[i].m.live)
            continue;
        for (int j = 0; j < l->n && !still[i]; j++)
            if (!known[j] && same(&recs[i], &l->v[j]))
                still[i] = known[j] = 1;
    }
    for (int i = 0; still && known && i < nrecs; i++) {
        if (recs[i].m.live && !still[i]) {
            recs[i].m.live = 0;
            ch[nchanges++] = (change){ i, 0 };
        }
    }
    for (int j = 0; still && known && j < l->n; j++) {
        if (known[j])
            continue;
        if (nrecs == cap) {
            int c = cap ? 2 * cap : 64;
            record *r = realloc(recs, (size_t)c * sizeof *r);
            if (!r)
                break;
            recs = r;
            cap = c;
        }
        record *r = &recs[nrecs];
        r->m = (module_rec){ file_of(&l->v[j]), l->v[j].bias, l->v[j].low, l->v[j].high, 1 };
        r->loader_name = strdup(l->v[j].name);
        if (!r->m.path || !r->loader_name) {
            free(r->m.path);
            free(r->loader_name);
            break;
        }
        ch[nchanges++] = (change){ nrecs++, 1 };
    }
    free(still);
    free(known);
    *out = ch;
    return nchanges;
}

void modules_refresh(void)
{
    static int atfork_set;
    if (!__atomic_exchange_n(&atfork_set, 1, __ATOMIC_ACQ_REL))
        pthread_atfork(NULL, NULL, after_fork_child);
    counters c = { 0, 0 };
    if (hprof_loader_iterate(read_counters, &c) < 0)
        return; /* a forked child: the record as it was names what it holds */
    pthread_mutex_lock(&lock);
    if (c.adds == last_adds && c.subs == last_subs && c.adds) {
        pthread_mutex_unlock(&lock);
        return;
    }
    listing l = { 0 };
    hprof_loader_iterate(list_one, &l);
    last_adds = c.adds;
    last_subs = c.subs;
    change *ch = NULL;
    int n = reconcile(&l, &ch);
    free(l.v);
    if (n)
        __atomic_fetch_add(&generation, 1, __ATOMIC_RELEASE);
    module_hook h[4];
    int nh = forked ? 0 : nhooks;
    memcpy(h, hooks, sizeof h);
    /* copies: the hooks run without the lock (they take their own) */
    module_rec *m = malloc((size_t)(n ? n : 1) * sizeof *m);
    for (int i = 0; m && i < n; i++)
        m[i] = recs[ch[i].id].m;
    hooks_running += n > 0;
    pthread_mutex_unlock(&lock);
    in_hooks++;
    for (int i = 0; m && i < n; i++)
        for (int k = 0; k < nh; k++)
            h[k](ch[i].id, &m[i], ch[i].live);
    in_hooks--;
    free(m);
    free(ch);
    if (n > 0) {
        pthread_mutex_lock(&lock);
        if (--hooks_running == 0)
            pthread_cond_broadcast(&hooks_done);
        pthread_mutex_unlock(&lock);
    }
}

void modules_settle(void)
{
    if (in_hooks)
        return; /* a hook of this thread's own refresh called dlsym or dlclose */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* the condition variable's clock */
    until.tv_sec += MODULES_SETTLE_S;
    int late = 0;
    pthread_mutex_lock(&lock);
    while (hooks_running > 0 && !late)
        late = pthread_cond_timedwait(&hooks_done, &lock, &until) != 0;
    pthread_mutex_unlock(&lock);
    static int told;
    if (late && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        hprof_say("a library loaded or unloaded is still being recorded after %d s; the program goes on "
                  "without waiting for it",
                  MODULES_SETTLE_S);
}

int modules_count(void)
{
    pthread_mutex_lock(&lock);
    int n = nrecs;
    pthread_mutex_unlock(&lock);
    return n;
}

int modules_get(int id, module_rec *out)
{
    pthread_mutex_lock(&lock);
    int ok = id >= 0 && id < nrecs;
    if (ok)
        *out = recs[id].m;
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

int modules_report(Dwfl *dwfl, int id)
{
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nrecs; i++) {
        const module_rec *m = &recs[i].m;
        if (id >= 0 ? i != id : !m->live)
            continue;
        /* libdwfl takes the bias from where the first segment lies; the
         * file is opened when first needed (find_elf) */
        if (!dwfl_report_module(dwfl, m->path, m->low, m->high))
            rc = -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

Dwfl *modules_dwfl_begin(void)
{
    static char *debuginfo_path;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = debug_files_find, /* never a debuginfod server */
        .debuginfo_path = &debuginfo_path,
    };
    return dwfl_begin(&callbacks);
}
