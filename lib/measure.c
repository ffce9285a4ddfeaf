/*
 * measure.c - what every MPI wrapper does around the PMPI call: decide whether
 * the call is measured, time it, find its call path and add it to the
 * thread's calling context tree.
 */
#include "measure.h"

#include "abandon.h"
#include "cct.h"
#include "papi_events.h"
#include "runtime.h"
#include "thread.h"
#include "unwind.h"

void hprof_call_begin(hprof_call *call, int fn, void *frame)
{
    call->fn = fn;
    call->frame = frame;
    call->measured = 0;
    call->nested = 0;
    if (!hprof_active)
        return;
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
    for (int i = 0; i < HPROF_NBYTES; i++)
        call->bytes[i] = 0;
    call->measured = 1;
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        call->start_cpu_ns = sampler_clock_ns();
    call->start_ns = hprof_now_ns();
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

/* Records a finished call on the calling thread. Shared with
 * hprof_runtime_start. */
void hprof_record_call(hprof_call *call)
{
    hprof_thread *t = hprof_self;
    int counter;
    uint32_t node = call_node(&t->tree, call->fn, call->frame, &counter);
    /* The call's event counts: exact, from the read at its entry to now. */
    if (hprof_papi_nevents)
        hprof_papi_call_end(&t->papi, node == CCT_NONE ? NULL : t->tree.nodes[node].event);
    /* The clock stops after the unwind: hprof's own cost per call is part of
     * that call's MPI time, so it never inflates the computation time that
     * the sampler attributes to the code around the call. */
    uint64_t ns = hprof_now_ns() - call->start_ns;
    /* The sampler subtracts MPI time on its own clock. */
    if (hprof_config.sampling_clock == HPROF_CLOCK_CPU)
        sampler_add_mpi_time(&t->sampling, sampler_clock_ns() - call->start_cpu_ns);
    else
        sampler_add_mpi_time(&t->sampling, ns);
    /* At the tree's cap the call still counts, under (call tree full). */
    cct_node *n = &t->tree.nodes[cct_or_full(&t->tree, node)];
    add_call(n, call, ns);
    if (counter >= 0)
        n->counter[counter]++;
}

void hprof_call_end(hprof_call *call)
{
    if (call->measured) {
        hprof_record_call(call);
        hprof_self->depth--;
    } else if (call->nested) {
        hprof_self->depth--;
    }
}
