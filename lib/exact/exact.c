#define _GNU_SOURCE
/*
 * exact.c - the life of exact measurement (see exact.h): modules read as
 * they appear, ids given to their patchable entries, the selection asked,
 * the selected entries patched, and all of it undone at the end.
 */
#include "lib/exact/exact.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exact/exact_absent.h"
#include "lib/exact/exact_auto.h"
#include "lib/exact/exact_calib.h"
#include "lib/exact/exact_calib_code.h"
#include "lib/exact/exact_entry.h"
#include "lib/exact/exact_patch.h"
#include "lib/exact/exact_seen.h"
#include "lib/exact/exact_select.h"
#include "lib/exact/exact_sites.h"
#include "lib/exact/exact_tick.h"
#include "unwind/exact_stack.h"
#include "core/clock.h"
#include "core/demangle.h"
#include "lib/interpose/interpose.h"
#include "core/log.h"
#include "unwind/modules.h"
#include "report/profile/symbols.h"
#include "lib/threads/thread.h"
#include "unwind/thunk_stack.h"
#include "lib/lifecycle/return_readers.h"
#include "unwind/unwind.h"

/* How often a selection that reads calls or MPI paths is evaluated again;
 * HPROF_SELECT=auto's more often, and every 20 ms for 10 evaluations after
 * one that took functions on trial: one that breaks the budget (a small
 * function called millions of times a second costs a third of the run
 * while measured) is patched out 20 ms into the phase that calls it, not
 * a quarter of a second. Not where an evaluation itself takes more than
 * 2% of that (a large calling context tree to read). */
#define EXACT_RESELECT_NS 1000000000ull
#define EXACT_AUTO_NS 250000000ull
#define EXACT_AUTO_TRIAL_NS 20000000ull
#define EXACT_AUTO_TRIAL_TICKS 10

typedef struct module_state {
    int id; /* modules.h record */
    char *path;
    uint64_t low, high; /* its code: the stubs go within reach */
    int live;
    uint32_t first_id; /* its sites' ids: first_id + index */
    exact_module_sites s;
    exact_stubs stubs; /* made with its first selected site */
    int have_stubs;
    uint64_t *stub;         /* per site: its stub */
    unsigned char *patched; /* per site: now */
    unsigned char *ever;    /* per site: at some time */
    uint64_t *since;        /* per site: first patched at (ns since the window's start) */
    uint64_t *until;        /* per site: patched out at (0: not since it was last patched in) */
    char **demangled;       /* per site: its name for people, NULL: the symbol's */
    char **files;           /* per site: its source file (NULL: unknown), when the selection reads them */
    auto_fn *au;            /* per site: HPROF_SELECT=auto's state */
} module_state;

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static exact_choice *choice;
static int running;
static uint64_t window_start;
static module_state **mods; /* each apart: a nested refresh (symbols_open) may add one meanwhile */
static int nmods;
static uint32_t next_id;
static int records_seen, by_symbol_seen, modules_with_records;
static int nmeasured;
static exact_stubs *spare; /* blocks of stubs of unloaded modules (stubs_for) */
static int nspare, spare_cap;
/* HPROF_SELECT=auto */
static double auto_budget, auto_visit_ns; /* auto_visit_ns: 0 before the calibration, < 0 failed */
static uint64_t auto_warmup, auto_last_ns;
static int auto_trial;       /* evaluations still to come at the trial's pace */
static uint64_t *init_stack; /* the return addresses on the stack at MPI_Init */
static int ninit_stack;
/* What was selected and measures nothing (exact.h's hprof_exact_unmeasured) */
static char **name_why;       /* per name asked for: why (at MPI_Init), NULL: a function has it */
static uint64_t *name_visits; /* per name, at the end: its functions' visits here (UINT64_MAX: not known) */
/* HPROF_SELECT's and HPROF_FILTER's, where one took no function: "HPROF_SELECT='...'" */
static char *expr_what[2];

static module_state *module_known(int id)
{
    for (int i = 0; i < nmods; i++)
        if (mods[i]->id == id)
            return mods[i];
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static const char *site_name(const module_state *m, int k)
{
    return m->demangled[k] ? m->demangled[k] : m->s.v[k].name;
}

/* m's block of entry stubs: a spare one of an unloaded module, within
 * reach, rewritten (a program that opens and closes a library again and
 * again would otherwise fill the room within 2 GiB of it); else one
 * mapped anew. 0, or -1. */
static int stubs_for(module_state *m)
{
    uint64_t entry = (uint64_t)(uintptr_t)hprof_exact_entry;
    for (int i = 0; i < nspare; i++) {
        int rc = exact_stubs_reuse(&m->stubs, &spare[i], m->low, m->high, m->first_id, m->s.n, entry);
        if (rc != -1)
            spare[i--] = spare[--nspare]; /* taken, or lost */
        if (rc == 0)
            return 0; /* hprof's code already, as it was */
    }
    if (exact_stubs_make(&m->stubs, m->low, m->high, m->first_id, m->s.n, entry) != 0)
        return -1;
    exact_code_add(m->stubs.base - EXACT_STUB_SIZE, m->stubs.base - EXACT_STUB_SIZE + m->stubs.len);
    return 0;
}

/* An unloaded module's block of stubs, kept for the next module near it:
 * only a call into the unloaded code, which the program cannot make, would
 * run its stubs. */
static void stubs_spare(module_state *m)
{
    if (!m->have_stubs)
        return;
    if (nspare == spare_cap) {
        int c = spare_cap ? 2 * spare_cap : 8;
        exact_stubs *v = realloc(spare, (size_t)c * sizeof *v);
        if (!v)
            return; /* it stays mapped, unused */
        spare = v;
        spare_cap = c;
    }
    spare[nspare++] = m->stubs;
    m->have_stubs = 0;
}

/* Patches the chosen sites of m (chosen[i]), at now. */
static void patch_chosen(module_state *m, const unsigned char *chosen, uint64_t now)
{
    int *which = malloc((size_t)m->s.n * sizeof *which), n = 0;
    for (int i = 0; which && i < m->s.n; i++)
        if (chosen[i] && !m->patched[i])
            which[n++] = i;
    if (n == 0) {
        free(which);
        return;
    }
    if (!m->have_stubs) {
        if (stubs_for(m) != 0) {
            hprof_say("%s: no room for hprof's entry stubs within 2 GiB of its code; its functions are not "
                      "measured exactly",
                      base_name(m->path));
            free(which);
            return;
        }
        m->have_stubs = 1;
        for (int i = 0; i < m->s.n; i++)
            m->stub[i] = exact_stub_addr(&m->stubs, i);
    }
    for (int k = 0; k < n; k++)
        exact_fn_at(m->first_id + (uint32_t)which[k])->on = 1; /* before a thread can take the jump */
    char err[256];
    if (exact_patch(m->s.v, m->stub, which, n, 1, err, sizeof err) != 0) {
        for (int k = 0; k < n; k++)
            exact_fn_at(m->first_id + (uint32_t)which[k])->on = 0;
        hprof_say("%s: %s; its functions are not measured exactly", base_name(m->path), err);
        free(which);
        return;
    }
    for (int k = 0; k < n; k++) {
        int i = which[k];
        if (!m->ever[i])
            m->since[i] = now > window_start ? now - window_start : 0;
        m->patched[i] = m->ever[i] = 1;
        m->until[i] = 0;
    }
    nmeasured += n;
    hprof_verbose(1, "%s: %d functions measured exactly (of %d with a patchable entry)", base_name(m->path),
                  n, m->s.n);
    free(which);
}

/* The source file of each site of m, where the selection reads them. */
static void find_files(module_state *m)
{
    if (!exact_choice_needs_files(choice) || m->files)
        return;
    m->files = calloc((size_t)m->s.n + 1, sizeof *m->files);
    symbols *sym = m->files ? symbols_open() : NULL;
    for (int i = 0; sym && i < m->s.n; i++) {
        const char *file = NULL;
        int line;
        if (symbols_line(sym, m->s.v[i].fn, &file, &line) == 0 && file)
            m->files[i] = strdup(file);
    }
    if (sym)
        symbols_close(sym);
}

/* What the selection language sees of m's site i (find_files first). */
static exact_fn_info fn_info_of(const module_state *m, int i)
{
    const exact_site *s = &m->s.v[i];
    return (exact_fn_info){ m->demangled[i] ? m->demangled[i] : s->name,
                            m->demangled[i] ? s->name : NULL,
                            m->files ? m->files[i] : NULL,
                            m->path,
                            s->size,
                            0 };
}

/* The selection over m's sites; 0 or -1. */
static int choose(module_state *m, unsigned char *chosen)
{
    exact_fn_info *info = calloc((size_t)m->s.n + 1, sizeof *info);
    if (!info)
        return -1;
    find_files(m);
    for (int i = 0; i < m->s.n; i++)
        info[i] = fn_info_of(m, i);
    select_graph g = { m->s.n, info, 0, NULL };
    int rc = exact_choice_eval(choice, &g, chosen);
    exact_choice_note(choice, &g);
    free(info);
    return rc;
}

/* Ids, names and per-site state for the sites of m. */
static int number_sites(module_state *m)
{
    int n = m->s.n;
    m->stub = calloc((size_t)n + 1, sizeof *m->stub);
    m->patched = calloc((size_t)n + 1, 1);
    m->ever = calloc((size_t)n + 1, 1);
    m->since = calloc((size_t)n + 1, sizeof *m->since);
    m->until = calloc((size_t)n + 1, sizeof *m->until);
    m->demangled = calloc((size_t)n + 1, sizeof *m->demangled);
    m->au = calloc((size_t)n + 1, sizeof *m->au);
    if (!m->stub || !m->patched || !m->ever || !m->since || !m->until || !m->demangled || !m->au ||
        exact_fn_reserve(next_id, n) != 0)
        return -1;
    m->first_id = next_id;
    next_id += (uint32_t)n;
    for (int i = 0; i < n; i++) {
        exact_fn *f = exact_fn_at(m->first_id + (uint32_t)i);
        f->resume = m->s.v[i].jmp_at + 2;
        f->key = m->s.v[i].fn + 1;
        m->demangled[i] = hprof_demangle(m->s.v[i].name);
    }
    return 0;
}

/* hprof's own patchable functions (exact_calib_code.c) are no program's:
 * out of every selection and count. */
static void drop_own_sites(exact_module_sites *s)
{
    const uint64_t own[2] = { (uint64_t)(uintptr_t)exact_calib_measured,
                              (uint64_t)(uintptr_t)exact_calib_plain };
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->v[i].fn == own[0] || s->v[i].fn == own[1]) {
            free(s->v[i].name);
            if (s->v[i].by_symbol)
                s->by_symbol--;
            else
                s->records--;
            continue;
        }
        s->v[k++] = s->v[i];
    }
    s->n = k;
}

/* With -fpatchable-function-entry=N,M and M odd (7,5) every function
 * enters at an odd address, where the Itanium C++ ABI reads bit 0 of a
 * pointer to member function as "virtual": a call through a pointer to a
 * non-virtual member crashes, with no tool attached. A mangled name among
 * the odd entries says the module is C++. */
static void warn_odd_cxx_entries(const module_state *m)
{
    for (int i = 0; i < m->s.n; i++)
        if ((m->s.v[i].fn & 1) && strncmp(m->s.v[i].name, "_Z", 2) == 0) {
            hprof_say("%s: its C++ functions enter at odd addresses (-fpatchable-function-entry with an odd "
                      "second number, such as 7,5), where a call through a pointer to member function "
                      "crashes; build with -fpatchable-function-entry=18,16",
                      base_name(m->path));
            return;
        }
}

/* A NOP area too small for the jumps (exact_sites.h: 5 bytes before the
 * entry, 2 at it; -fpatchable-function-entry=6,5, 5,5 or 7,0) leaves its
 * function unmeasured whatever the selection says: one line a module,
 * naming the flag that fits. */
static void warn_unfit_entries(const module_state *m)
{
    if (m->s.unfit)
        hprof_say("%s: %d of its %d patchable entries (-fpatchable-function-entry=%d,%d) have too few NOP "
                  "bytes for hprof's jumps (5 before the entry, 2 at it): their functions are not measured "
                  "exactly; build with -fpatchable-function-entry=18,16",
                  base_name(m->path), m->s.unfit, m->s.records, m->s.unfit_n, m->s.unfit_m);
}

/* HPROF_SELECT=auto never takes m's site i (exact_auto.h): why is where
 * it has been since before it could be patched. */
static void pin(module_state *m, int i, const char *why)
{
    m->au[i].pinned = 1;
    hprof_verbose(1, "HPROF_SELECT=auto: %s left out: %s, its visits would count only from its patch",
                  site_name(m, i), why);
}

/* Site st's function was on the stack at MPI_Init (its call under way
 * then is not counted). */
static int on_init_stack(const exact_site *st)
{
    for (int k = 0; k < ninit_stack; k++)
        if (init_stack[k] - 1 >= st->fn && init_stack[k] - 1 < st->fn + (st->size ? st->size : 1))
            return 1;
    return 0;
}

/* HPROF_SELECT=auto: m's functions on the stack at MPI_Init pinned. */
static void pin_init_stack(module_state *m)
{
    for (int i = 0; exact_choice_auto(choice) && i < m->s.n; i++)
        if (on_init_stack(&m->s.v[i]))
            pin(m, i, "on the stack since before MPI_Init");
}

/* A module seen for the first time: its sites, and the selected ones
 * patched. The caller holds the lock. */
static void add_module(int id, const module_rec *rec)
{
    if (module_known(id))
        return;
    module_state **v = realloc(mods, (size_t)(nmods + 1) * sizeof *v), *m = calloc(1, sizeof *m);
    if (v)
        mods = v;
    if (!v || !m) {
        free(m);
        return;
    }
    mods[nmods++] = m;
    m->id = id;
    m->live = 1;
    m->low = rec->low;
    m->high = rec->high;
    m->path = strdup(rec->path ? rec->path : "");
    if (exact_sites_read(rec->path, rec->bias, rec->low, rec->high, &m->s) != 0 ||
        m->s.records + m->s.by_symbol == 0)
        return;
    drop_own_sites(&m->s);
    if (m->s.records + m->s.by_symbol == 0)
        return;
    records_seen += m->s.records;
    by_symbol_seen += m->s.by_symbol;
    modules_with_records++;
    warn_odd_cxx_entries(m);
    warn_unfit_entries(m);
    if (m->s.unnamed)
        hprof_verbose(1, "%s: %d patchable entries, %d without a symbol", base_name(m->path), m->s.records,
                      m->s.unnamed);
    if (m->s.by_symbol)
        hprof_verbose(1,
                      "%s: %d functions with a patchable entry and no record of it (the linker dropped "
                      "their object file's records), found by their symbol",
                      base_name(m->path), m->s.by_symbol);
    unsigned char *chosen = m->s.n ? calloc((size_t)m->s.n, 1) : NULL;
    if (chosen && number_sites(m) == 0 && (pin_init_stack(m), choose(m, chosen) == 0))
        patch_chosen(m, chosen, hprof_now_ns());
    free(chosen);
}

/* Patches out the sites of m patched in and not chosen any more, at now. */
static void unpatch_dropped(module_state *m, const unsigned char *chosen, uint64_t now)
{
    int *which = malloc((size_t)m->s.n * sizeof *which + 1), n = 0;
    for (int i = 0; which && i < m->s.n; i++)
        if (m->patched[i] && !chosen[i])
            which[n++] = i;
    char err[256];
    if (n && exact_patch(m->s.v, m->stub, which, n, 0, err, sizeof err) != 0) {
        hprof_verbose(1, "%s: cannot unpatch %d functions (%s); they stay measured", base_name(m->path), n,
                      err);
        n = 0;
    }
    for (int k = 0; k < n; k++) {
        exact_fn_at(m->first_id + (uint32_t)which[k])->on = 0; /* calls under way still return through it */
        m->patched[which[k]] = 0;
        m->until[which[k]] = now > window_start ? now - window_start : 1;
    }
    if (n)
        hprof_verbose(1, "%s: %d functions no longer measured exactly", base_name(m->path), n);
    free(which);
}

/* The cost of a visit, measured once (on the tick's thread): 0, or -1
 * when it cannot be (one line: auto then takes nothing). */
static int auto_calibrated(void)
{
    if (auto_visit_ns == 0) {
        char err[256] = "";
        uint32_t id = next_id;
        auto_visit_ns = exact_fn_reserve(id, 1) == 0 ? (next_id++, exact_calibrate(id, err, sizeof err)) : -1;
        if (auto_visit_ns < 0)
            hprof_say("HPROF_SELECT=auto: cannot measure what a visit costs (%s); no function is chosen",
                      err[0] ? err : "out of ids");
        else
            hprof_verbose(1,
                          "HPROF_SELECT=auto: a visit measured exactly costs %.1f ns here; budget %.2f%% of "
                          "the run",
                          auto_visit_ns, auto_budget * 100);
    }
    return auto_visit_ns > 0 ? 0 : -1;
}

/* Says what changed between the states before (was) and now. */
static void auto_say(const module_state *m, int k, unsigned char was)
{
    const auto_fn *f = &m->au[k];
    if (was == AUTO_NEW && f->state == AUTO_TAKEN)
        hprof_verbose(1, "HPROF_SELECT=auto: %s taken (%s)", site_name(m, k),
                      f->why == AUTO_WHY_MPI ? "on a call path to MPI" : "among the most sampled");
    else if (was == AUTO_TAKEN && f->state == AUTO_DROPPED)
        hprof_verbose(
            1, "HPROF_SELECT=auto: %s dropped: %.3g visits/s x %.1f ns = %.3f%% of the run, budget %.2f%%",
            site_name(m, k), f->rate, auto_visit_ns, f->cost * 100, auto_budget * 100);
}

/* HPROF_SELECT=auto: the start routines of the threads (those the graph
 * of reselect_locked has: module i's sites where in[i]) pinned. */
static void pin_start_routines(const unsigned char *in, int nm)
{
    int n = hprof_thread_start_routines(NULL, 0);
    uint64_t *r = n ? malloc((size_t)n * sizeof *r) : NULL;
    int now = r ? hprof_thread_start_routines(r, n) : 0; /* threads come and go meanwhile */
    n = now < n ? now : n;
    for (int i = 0; i < nm; i++)
        for (int k = 0; in[i] && k < mods[i]->s.n; k++)
            for (int j = 0; j < n && !mods[i]->au[k].pinned; j++)
                if (r[j] == mods[i]->s.v[k].fn)
                    pin(mods[i], k, "a thread's start routine");
    free(r);
}

/* HPROF_SELECT=auto's choice added to chosen (the graph of reselect_locked:
 * module i's sites where in[i]), once the warm-up is over. 0, or -1. */
static int auto_choose(const exact_seen *seen, const unsigned char *in, int nm, unsigned char *chosen,
                       int nfn)
{
    uint64_t now = hprof_now_ns();
    if (!exact_choice_auto(choice) || now < window_start + auto_warmup || auto_calibrated() != 0)
        return 0;
    auto_fn *v = calloc((size_t)nfn + 1, sizeof *v);
    unsigned char *mine = calloc((size_t)nfn + 1, 1), *was = calloc((size_t)nfn + 1, 1);
    if (!v || !mine || !was) {
        free(v), free(mine), free(was);
        return -1;
    }
    pin_start_routines(in, nm);
    for (int i = 0, g = 0; i < nm; i++)
        for (int k = 0; in[i] && k < mods[i]->s.n; k++, g++) {
            v[g] = mods[i]->au[k];
            v[g].on_mpi = seen->on_mpi[g];
            v[g].samples = seen->samples[g];
            v[g].visits = seen->visits[g];
            was[g] = v[g].state;
        }
    auto_params p = { auto_budget, auto_visit_ns, auto_last_ns ? (double)(now - auto_last_ns) * 1e-9 : 0,
                      seen->ntrees, seen->total_samples };
    auto_last_ns = now;
    exact_auto_decide(v, nfn, &p, mine);
    for (int i = 0, g = 0; i < nm; i++)
        for (int k = 0; in[i] && k < mods[i]->s.n; k++, g++) {
            mods[i]->au[k] = v[g];
            auto_say(mods[i], k, was[g]);
            if (v[g].state == AUTO_TAKEN && was[g] != AUTO_TAKEN)
                auto_trial = EXACT_AUTO_TRIAL_TICKS;
            chosen[g] |= mine[g];
        }
    free(v), free(mine), free(was);
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const exact_range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Every live module's sites as one graph, with what the trees show: the
 * selection evaluated again, and applied. The caller holds the lock. */
static void reselect_locked(void)
{
    int nfn = 0, nm = nmods; /* a module a nested refresh adds waits for the next time */
    for (int i = 0; i < nm; i++)
        nfn += mods[i]->live && mods[i]->patched ? mods[i]->s.n : 0;
    exact_fn_info *info = calloc((size_t)nfn + 1, sizeof *info);
    exact_range *r = calloc((size_t)nfn + 1, sizeof *r);
    unsigned char *chosen = calloc((size_t)nfn + 1, 1);
    unsigned char *in = calloc((size_t)nm + 1, 1); /* module i's sites are in the graph */
    exact_seen seen = { 0 };
    int g = 0;
    for (int i = 0; info && r && chosen && in && i < nm; i++) {
        module_state *m = mods[i];
        if (!m->live || !m->patched || g + m->s.n > nfn)
            continue;
        in[i] = 1;
        find_files(m);
        for (int k = 0; k < m->s.n; k++, g++) {
            const exact_site *st = &m->s.v[k];
            info[g] = fn_info_of(m, k);
            r[g] = (exact_range){ st->fn, st->fn + (st->size ? st->size : 1), g };
        }
    }
    if (nfn > 0 && g == nfn) {
        qsort(r, (size_t)nfn, sizeof *r, by_lo);
        if (exact_seen_collect(r, nfn, nfn, &seen) == 0) {
            for (int k = 0; k < nfn; k++)
                info[k].on_mpi_path = seen.on_mpi[k];
            select_graph graph = { nfn, info, seen.ncalls, (const int(*)[2])seen.calls };
            if (exact_choice_eval(choice, &graph, chosen) == 0 &&
                auto_choose(&seen, in, nm, chosen, nfn) == 0) {
                uint64_t now = hprof_now_ns();
                for (int i = 0, at = 0; i < nm; i++) {
                    module_state *m = mods[i];
                    if (!in[i])
                        continue;
                    if (m->live) { /* not unloaded meanwhile */
                        unpatch_dropped(m, chosen + at, now);
                        patch_chosen(m, chosen + at, now);
                    }
                    at += m->s.n;
                }
                if (auto_last_ns)
                    auto_last_ns = hprof_now_ns(); /* the rates count from the patches on */
            }
        }
    }
    exact_seen_free(&seen);
    free(info), free(r), free(chosen), free(in);
}

/* The tick (exact_tick.h): the selection again, on what the run showed. */
static uint64_t reselect(void)
{
    pthread_mutex_lock(&lock);
    uint64_t t0 = hprof_now_ns();
    int calibrated = auto_visit_ns != 0; /* the first evaluation measures a visit's cost: not its own */
    if (auto_trial > 0)
        auto_trial--;
    if (running)
        reselect_locked();
    if (calibrated && hprof_now_ns() - t0 > EXACT_AUTO_TRIAL_NS / 50)
        auto_trial = 0;
    uint64_t next = auto_trial > 0 ? EXACT_AUTO_TRIAL_NS : 0;
    pthread_mutex_unlock(&lock);
    return next;
}

static void on_module(int id, const module_rec *rec, int live)
{
    pthread_mutex_lock(&lock);
    module_state *m = module_known(id);
    if (!live && m) {
        m->live = 0; /* its code is gone: nothing to unpatch */
        uint64_t now = hprof_now_ns();
        for (int i = 0; i < m->s.n; i++) {
            if (!m->patched[i])
                continue;
            exact_fn_at(m->first_id + (uint32_t)i)->on = 0;
            m->patched[i] = 0; /* measured until it went */
            m->until[i] = now > window_start ? now - window_start : 1;
        }
        stubs_spare(m);
    } else if (live && running) {
        add_module(id, rec);
    }
    pthread_mutex_unlock(&lock);
}

/* Functions with a patchable entry in the modules read. */
static int sites_known(void)
{
    int n = 0;
    for (int i = 0; i < nmods; i++)
        n += mods[i]->s.n;
    return n;
}

/* One line for each name asked for (HPROFTEST_EXACT's, and those
 * HPROF_SELECT and HPROF_FILTER name literally) that no function has,
 * saying why (exact_absent.h), kept for the profile. At MPI_Init: a
 * library dlopen adds later may still have it (the profile then leaves it
 * out). */
static void say_absent_names(void)
{
    int n = exact_choice_names(choice), matched;
    name_why = n ? calloc((size_t)n, sizeof *name_why) : NULL;
    for (int k = 0; name_why && k < n; k++) {
        const char *var, *name = exact_choice_name(choice, k, &matched, &var);
        if (matched || strcmp(name, "*") == 0) /* "*" takes nothing only where nothing has an entry: said */
            continue;
        exact_absence a;
        char line[512], brief[128];
        exact_absent_explain(name, &a);
        hprof_say("%s: %s %s", var, name, exact_absence_line(&a, line, sizeof line));
        name_why[k] = strdup(exact_absence_short(&a, brief, sizeof brief));
    }
}

/* One line for HPROF_SELECT and for HPROF_FILTER if it took no function:
 * at MPI_Init, or at the end (at_end) for one evaluated as the run goes
 * on. Kept for the profile. Not where nothing has a patchable entry (one
 * line said so). */
static void say_empty_exprs(int at_end)
{
    for (int k = 0; records_seen + by_symbol_seen > 0 && k < exact_choice_exprs(choice); k++) {
        const char *text;
        int took;
        const char *var = exact_choice_expr(choice, k, &text, &took);
        if (took || expr_what[k] || !(expr_what[k] = malloc(strlen(var) + strlen(text) + 4)))
            continue;
        char *w = expr_what[k] + sprintf(expr_what[k], "%s='", var);
        for (const char *p = text; *p; p++) /* one line, also for an expression written on several */
            *w++ = *p == '\n' || *p == '\t' || *p == '\r' ? ' ' : *p;
        strcpy(w, "'");
        hprof_say("%s %s none of the %d functions with a patchable entry", expr_what[k],
                  at_end ? "selected, in the whole run," : "selects", sites_known());
    }
}

/* The return addresses on this thread's stack (the MPI_Init call's
 * path): HPROF_SELECT=auto never takes their functions, and none of them
 * is said to be never called (its one call began before the patch). */
static void keep_init_stack(void)
{
    uint64_t ips[UNWIND_MAX_FRAMES];
    int n = unwind_mpi_path(ips, UNWIND_MAX_FRAMES);
    if (n > 0 && (init_stack = malloc((size_t)n * sizeof *init_stack))) {
        memcpy(init_stack, ips, (size_t)n * sizeof *init_stack);
        ninit_stack = n;
    }
}

void hprof_exact_start(uint64_t window_start_ns)
{
    if (running || !(choice = exact_choice_from_env()))
        return;
    if (uw_shadow_stack_active()) {
        hprof_say("%s: the program runs with a CET shadow stack, where hprof cannot replace return "
                  "addresses; no function is measured exactly",
                  exact_choice_var(choice));
        return;
    }
    if (return_readers_own_unwinder()) {
        hprof_say("%s: the program has its own unwinder (the C++ runtime linked statically), which an "
                  "exception would take through hprof's exit thunk to terminate; no function is measured "
                  "exactly",
                  exact_choice_var(choice));
        return;
    }
    keep_init_stack();
    exact_entry_init();
    window_start = window_start_ns;
    exact_stack_recording = 1;
    modules_add_hook(on_module);
    pthread_mutex_lock(&lock);
    running = 1;
    modules_refresh();
    for (int id = 0, n = modules_count(); id < n; id++) {
        module_rec rec;
        if (modules_get(id, &rec) == 0 && rec.live)
            add_module(id, &rec);
    }
    if (records_seen + by_symbol_seen == 0)
        hprof_say("%s asks for functions measured exactly, but no code loaded has patchable entries: build "
                  "the program with -fpatchable-function-entry=18,16",
                  exact_choice_var(choice));
    say_absent_names();
    if (!exact_choice_dynamic(choice))
        say_empty_exprs(0);
    hprof_verbose(
        1, "%d functions measured exactly; %d patchable entries in %d modules (%d more found by symbol)",
        nmeasured, records_seen, modules_with_records, by_symbol_seen);
    hprof_dlsym_watch(1); /* a library dlopen adds: patched at the program's dlsym */
    if (exact_choice_auto(choice)) {
        auto_budget = exact_auto_budget();
        auto_warmup = exact_auto_warmup_ns();
    }
    if (exact_choice_dynamic(choice) &&
        exact_tick_start(reselect, exact_choice_auto(choice) ? EXACT_AUTO_NS : EXACT_RESELECT_NS) != 0)
        hprof_say("%s: no thread to evaluate it again as the run shows calls and MPI paths; it stays as "
                  "MPI_Init found it",
                  exact_choice_var(choice));
    pthread_mutex_unlock(&lock);
}

/* Every patched site of the live modules back to its NOPs. */
static void unpatch_all(void)
{
    for (int i = 0; i < nmods; i++) {
        module_state *m = mods[i];
        int *which = m->s.n ? malloc((size_t)m->s.n * sizeof *which) : NULL, n = 0;
        for (int k = 0; which && k < m->s.n; k++)
            if (m->patched[k])
                which[n++] = k;
        char err[256];
        if (m->live && n && exact_patch(m->s.v, m->stub, which, n, 0, err, sizeof err) != 0)
            hprof_say("%s: cannot unpatch its functions (%s); their calls pass through", base_name(m->path),
                      err);
        for (int k = 0; k < n; k++)
            exact_fn_at(m->first_id + (uint32_t)which[k])->on = 0;
        free(which);
    }
}

/* The visits, on this rank, of the functions each name asked for took
 * and patched in (from the trees, as exact_seen.h reads them): "never
 * called" in the profile where they add up to 0 on every rank. A
 * function of a library unloaded since has its nodes re-keyed, one whose
 * patch failed has none, one on the stack at MPI_Init (main) was called
 * before its patch: its name's count is not known. */
static void count_name_visits(void)
{
    int nn = exact_choice_names(choice), n = 0, matched;
    for (int i = 0; i < nmods; i++)
        for (int k = 0; k < mods[i]->s.n; k++)
            n += mods[i]->ever[k];
    exact_range *r = calloc((size_t)n + 1, sizeof *r);
    exact_fn_info *info = calloc((size_t)n + 1, sizeof *info);
    unsigned char *gone = calloc((size_t)n + 1, 1); /* not counted: see above */
    name_visits = nn ? calloc((size_t)nn, sizeof *name_visits) : NULL;
    exact_seen seen = { 0 };
    if (!r || !info || !gone || !name_visits) {
        free(name_visits);
        name_visits = NULL;
    }
    for (int i = 0, g = 0; name_visits && i < nmods; i++)
        for (int k = 0; k < mods[i]->s.n; k++) {
            const exact_site *st = &mods[i]->s.v[k];
            if (!mods[i]->ever[k])
                continue;
            r[g] = (exact_range){ st->fn, st->fn + (st->size ? st->size : 1), g };
            info[g] = fn_info_of(mods[i], k);
            gone[g++] = !mods[i]->live || on_init_stack(st);
        }
    if (name_visits) {
        qsort(r, (size_t)n, sizeof *r, by_lo);
        if (exact_seen_collect(r, n, n, &seen) != 0) {
            free(name_visits);
            name_visits = NULL;
        }
    }
    for (int k = 0; name_visits && k < nn; k++) {
        const char *name = exact_choice_name(choice, k, &matched, NULL);
        int patched = 0; /* none: its patches failed (a line said so), not a function never called */
        for (int g = 0; matched && g < n && name_visits[k] != UINT64_MAX; g++)
            if (exact_name_matches(&info[g], name)) {
                patched = 1;
                name_visits[k] = gone[g] ? UINT64_MAX : name_visits[k] + seen.visits[g];
            }
        if (!patched)
            name_visits[k] = UINT64_MAX;
    }
    exact_seen_free(&seen);
    free(r), free(info), free(gone);
}

void hprof_exact_stop(uint64_t now_ns)
{
    if (!running)
        return;
    hprof_dlsym_watch(0);
    exact_tick_stop();
    pthread_mutex_lock(&lock);
    running = 0;
    unpatch_all();
    /* The calls under way on this thread end with the window; their
     * returns come later and count nothing. */
    exact_stack *x = exact_stack_peek();
    if (x) {
        x->busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        exact_stack_close_all(x, now_ns, current_sp(), 0);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        x->busy = 0;
    }
    exact_stack_recording = 0;
    count_name_visits();
    if (exact_choice_dynamic(choice))
        say_empty_exprs(1);
    pthread_mutex_unlock(&lock);
}

int hprof_exact_auto_info(double *visit_ns, double *budget)
{
    pthread_mutex_lock(&lock);
    int on = choice && exact_choice_auto(choice);
    *visit_ns = auto_visit_ns;
    *budget = auto_budget;
    pthread_mutex_unlock(&lock);
    return on;
}

int hprof_exact_measured(exact_measured *out, int max)
{
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int i = 0; i < nmods; i++) {
        const module_state *m = mods[i];
        for (int k = 0; k < m->s.n; k++) {
            if (!m->ever[k])
                continue;
            if (n < max)
                out[n] = (exact_measured){ site_name(m, k),
                                           m->path,
                                           m->since[k],
                                           m->patched[k] ? 0 : m->until[k],
                                           m->au[k].state == AUTO_DROPPED ? m->au[k].rate : 0,
                                           m->au[k].state == AUTO_DROPPED ? m->au[k].cost : 0 };
            n++;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}

int hprof_exact_unmeasured(exact_unmeasured *out, int max)
{
    pthread_mutex_lock(&lock);
    int n = 0, matched;
    for (int k = 0; choice && k < exact_choice_names(choice); k++) {
        const char *var, *name = exact_choice_name(choice, k, &matched, &var);
        exact_unmeasured u = { var, name, NULL, 0 };
        if (matched && name_visits && strcmp(name, "*") != 0)
            u.visits = name_visits[k];
        else if (!matched && name_why && name_why[k])
            u.why = name_why[k];
        else
            continue;
        if (n < max)
            out[n] = u;
        n++;
    }
    for (int k = 0; k < 2; k++) {
        const char *text;
        int took;
        if (!expr_what[k])
            continue;
        if (n < max)
            out[n] = (exact_unmeasured){ exact_choice_expr(choice, k, &text, &took), expr_what[k],
                                         "selects nothing", 0 };
        n++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}
