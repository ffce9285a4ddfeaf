/*
 * measure.c - what every MPI wrapper does around the PMPI call: decide whether
 * the call is measured, time it, find its call path and add it to the
 * thread's calling context tree.
 */
#include "measure.h"

#include "abandon.h"
#include "cct.h"
#include "cost_probe.h"
#include "papi_events.h"
#include "runtime.h"
#include "thread.h"
#include "unwind.h"

void hprof_call_begin(hprof_call *call, int fn, void *frame)
{
    COST_START();
    call->fn = fn;
    call->frame = frame;
    call->measured = 0;
    call->nested = 0;
    call->poll = 0;
    if (!hprof_active) {
        hprof_w_unmeasured();
        return;
    }
    if (fn == hprof_abort_fn)
        abandon_measurement("MPI_Abort");
    if (!hprof_active)
        return;
    hprof_thread *t = hprof_thread_enter();
    if (!t)
        return;
    /* MPI calls made from inside a wrapper (MPICH's Fortran layer calls the C
     * MPI_ symbols, MPI-IO calls datatype functions) belong to the outer call. */
    if (t->depth++ > 0) {
        call->nested = 1;
        return;
    }
    COST_MARK(0);
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
    call->measured = 1;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        call->start_cpu_ns = sampler_clock_ns();
    COST_MARK(1);
    call->start_ns = hprof_now_ns();
    COST_MARK(2);
    if (hprof_papi_nevents)
        hprof_papi_call_begin(&t->papi); /* after the clock: its cost is MPI time */
}

static void add_call(cct_node *n, const hprof_call *call, uint64_t ns)
{
    n->counter[CCT_VISITS]++;
    n->counter[CCT_MPI_TIME_NS] += ns;
    if (ns < n->counter[CCT_MIN_NS])
        n->counter[CCT_MIN_NS] = ns;
    if (ns > n->counter[CCT_MAX_NS])
        n->counter[CCT_MAX_NS] = ns;
    for (int i = 0; i < HPROF_NBYTES; i++)
        n->counter[CCT_BYTES_SENT + i] += call->bytes[i];
}

/* The node for this call: its unwound path, or an artificial root when the
 * function is not unwound or the unwind fails. */
static uint32_t call_node(cct *tree, int fn, void *frame, int *counter)
{
    *counter = -1;
    if (hprof_fn_nounwind && hprof_fn_nounwind[fn]) {
        *counter = CCT_CALLS_NOT_UNWOUND;
        if (cct_reserve(tree, 2) != 0)
            return CCT_NONE;
        return cct_child(tree, cct_child(tree, CCT_ROOT, CCT_KEY_NOT_UNWOUND), CCT_KEY_MPI_FN(fn));
    }
    /* The caller's node (under (unwind failed) with the frames that were
     * known when the unwind fails); room for the leaf is reserved with it. */
    int failed;
    uint32_t node = unwind_mpi_node(tree, frame, &failed);
    if (failed)
        *counter = CCT_UNWIND_FAILURES;
    if (node == CCT_NONE)
        return CCT_NONE;
    return cct_child(tree, node, CCT_KEY_MPI_FN(fn));
}

/* The node of a call whose path is known without a walk (0 otherwise):
 * the previous call's node for the same function from the same call site
 * (*repeat set), or that site's child. The call site's node comes from
 * unwind_mpi_cached (the same frame, nothing entered or left since): a
 * polling loop's calls, and a loop's calls from one function, need
 * neither the walk nor, when repeated, a tree lookup. Not with PAPI
 * events (their readings go through call_node's path). */
static uint32_t known_node(hprof_thread *t, const hprof_call *call, int *counter, int *repeat)
{
    *repeat = 0;
    if (hprof_papi_nevents)
        return 0;
    if (hprof_fn_nounwind && hprof_fn_nounwind[call->fn]) {
        *counter = CCT_CALLS_NOT_UNWOUND;
        *repeat = call->fn == t->last_fn && t->last_nounwind && t->last_leaf;
        return *repeat ? t->last_leaf : 0;
    }
    uint32_t site = unwind_mpi_cached(call->frame);
    if (site == CCT_NONE)
        return 0;
    if (call->fn == t->last_fn && site == t->last_site && !t->last_nounwind) {
        *repeat = 1;
        return t->last_leaf;
    }
    uint32_t leaf = cct_reserve(&t->tree, 1) == 0 ? cct_child(&t->tree, site, CCT_KEY_MPI_FN(call->fn)) : CCT_NONE;
    return leaf == CCT_NONE ? 0 : leaf;
}

/* Records a finished call on the calling thread. Shared with
 * hprof_runtime_start. */
void hprof_record_call(hprof_call *call)
{
    COST_RESTART();
    hprof_thread *t = hprof_self;
    int counter = -1, repeat;
    uint32_t node = known_node(t, call, &counter, &repeat);
    if (node) {
        t->polls_repeated += (uint64_t)(call->poll & repeat);
    } else {
        counter = -1;
        node = call_node(&t->tree, call->fn, call->frame, &counter);
    }
    if (!repeat) {
        /* a node from a walk that failed is no call site's */
        int ok = node != CCT_NONE && (counter < 0 || counter == CCT_CALLS_NOT_UNWOUND);
        t->last_leaf = ok ? node : 0;
        t->last_site = ok ? t->tree.nodes[node].parent : CCT_NONE;
        t->last_fn = call->fn;
        t->last_nounwind = counter == CCT_CALLS_NOT_UNWOUND;
    }
    COST_MARK(3);
    /* The call's event counts: exact, from the read at its entry to now. */
    if (hprof_papi_nevents)
        hprof_papi_call_end(&t->papi, node == CCT_NONE ? NULL : t->tree.nodes[node].event);
    /* The clock stops after the unwind: hprof's own cost per call is part of
     * that call's MPI time, so it never inflates the computation time that
     * the sampler attributes to the code around the call. */
    uint64_t ns = hprof_now_ns() - call->start_ns;
    COST_MARK(4);
    /* The sampler subtracts MPI time on its own clock. */
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        sampler_add_mpi_time(&t->sampling, sampler_clock_ns() - call->start_cpu_ns);
    else
        sampler_add_mpi_time(&t->sampling, ns);
    COST_MARK(5);
    /* At the tree's cap the call still counts, under (call tree full). */
    cct_node *n = &t->tree.nodes[cct_or_full(&t->tree, node)];
    add_call(n, call, ns);
    COST_MARK(6);
    uint32_t bucket = timeline_add_call(&t->timeline, call->start_ns + ns, ns, call->bytes[HPROF_BYTES_SENT],
                                        call->bytes[HPROF_BYTES_RECEIVED]);
    path_log_add_in(&t->paths, t->timeline.shift, bucket, PL_MPI, cct_or_full(&t->tree, node), call->start_ns + ns, ns);
    COST_MARK(7);
    if (counter >= 0)
        n->counter[counter]++;
}

void hprof_call_end(hprof_call *call)
{
    if (call->measured) {
        hprof_record_call(call);
        hprof_self->depth--;
        COST_MARK(8);
    } else if (call->nested) {
        hprof_self->depth--;
    }
}
