#define _GNU_SOURCE
/*
 * unwind_check.c - see unwind_check.h.
 */
#if defined(__x86_64__) /* the fast walk's check; elsewhere libunwind walks alone */
#include "unwind/unwind_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "unwind/recipe.h"
#include "unwind/unwind.h"

static int enabled;
static uint64_t compared, mismatched, printed;
static uint64_t outcomes[2][3]; /* [sample][outcome] */

int unwind_check_wanted(void)
{
    const char *c = getenv("HPROFTEST_UNWIND_CHECK");
    enabled = c && *c == '1';
    return enabled;
}

void unwind_check_count(int sample, enum unwind_check_outcome outcome)
{
    __atomic_fetch_add(&outcomes[sample != 0][outcome], 1, __ATOMIC_RELAXED);
}

static void print_mismatch(const uint64_t *got, int n, const uint64_t *ref, int nref, int sample)
{
    char buf[4096];
    int len =
        snprintf(buf, sizeof buf, "hprof-unwind-check: %s mismatch\n  fast:", sample ? "sample" : "mpi");
    for (int i = 0; i < n && len < 3000; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %lx", (unsigned long)got[i]);
    len += snprintf(buf + len, sizeof buf - (size_t)len, "\n  libunwind:");
    for (int i = 0; i < nref && len < 4000; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %lx", (unsigned long)ref[i]);
    len += snprintf(buf + len, sizeof buf - (size_t)len, "\n");
    if (write(2, buf, (size_t)len) < 0)
        return;
}

void unwind_check_path(const cct *tree, uint32_t node, const uint64_t *ref, int nref, int sample)
{
    uint64_t got[UNWIND_MAX_FRAMES];
    int n = 0;
    for (uint32_t id = node; id != CCT_ROOT && id != CCT_NONE && n < UNWIND_MAX_FRAMES;
         id = tree->nodes[id].parent)
        got[n++] = tree->nodes[id].key;
    if (sample && n > 0)
        got[0] -= 1;
    __atomic_fetch_add(&compared, 1, __ATOMIC_RELAXED);
    int same = n == nref;
    for (int i = 0; same && i < n; i++)
        same = got[i] == ref[i];
    if (same)
        return;
    __atomic_fetch_add(&mismatched, 1, __ATOMIC_RELAXED);
    if (__atomic_fetch_add(&printed, 1, __ATOMIC_RELAXED) < 5)
        print_mismatch(got, n, ref, nref, sample);
}

__attribute__((destructor)) static void check_report(void)
{
    if (enabled)
        fprintf(stderr,
                "hprof-unwind-check: pid %d compared %llu mismatched %llu recipes %llu "
                "mpi_fast %llu mpi_fallback %llu mpi_failed %llu samples_fast %llu samples_fallback %llu "
                "samples_failed %llu\n",
                (int)getpid(), (unsigned long long)compared, (unsigned long long)mismatched,
                (unsigned long long)recipe_count(), (unsigned long long)outcomes[0][UNWIND_CHECK_FAST],
                (unsigned long long)outcomes[0][UNWIND_CHECK_FALLBACK],
                (unsigned long long)outcomes[0][UNWIND_CHECK_FAILED],
                (unsigned long long)outcomes[1][UNWIND_CHECK_FAST],
                (unsigned long long)outcomes[1][UNWIND_CHECK_FALLBACK],
                (unsigned long long)outcomes[1][UNWIND_CHECK_FAILED]);
}
#endif
