#define _GNU_SOURCE
#include "lib/ending/live_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "core/own_thread.h"
#include "lib/ending/abandon.h"
#include "lib/active.h"
#include "lib/ending/comm_peers.h"
#include "core/fn_table.h"
#include "lib/measure.h"
#include "lib/ending/run_marks.h"
#include "lib/threads/thread.h"
#include "core/clock.h"
#include "report/profile/fallback.h"

#define POLL_NS 100000000L /* a request is seen within a tenth of a second */

static char request_path[4096];
static char last_seq[64];
static int my_rank, my_nranks;

/* The request's "SEQ WHEN" (WHEN: the rest of the line), or 0 when there is
 * none or it is the one seen last. */
static int new_request(char *seq, size_t seqlen, char *when, size_t whenlen)
{
    char buf[256];
    int fd = open(request_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    char *space = strchr(buf, ' ');
    if (space)
        *space++ = '\0';
    if (!buf[0] || strlen(buf) >= seqlen || strcmp(buf, last_seq) == 0)
        return 0;
    snprintf(seq, seqlen, "%s", buf);
    snprintf(when, whenlen, "%s", space ? space : "?");
    return 1;
}

/* "R.T fn=MPI_Recv comm=world source=2 tag=7; " of thread t's call under
 * way into buf (what fits); its length. */
static size_t describe_call(const hprof_thread *t, const hprof_call *call, char *buf, size_t len)
{
    if (call->where.comm == 0 || len < 2)
        return 0;
    char words[256];
    comm_peers_describe(hprof_fn_table[call->fn].name, &call->where, words, sizeof words);
    int n = snprintf(buf, len, "%d.%d%s; ", my_rank, t->index, words);
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

/* Where each live thread is (metric now, CCT_NOW_NS): the MPI call under
 * way, at the node a sample in it found (under (not unwound) where none
 * did yet: a call younger than the sampling interval, or sampling off),
 * with its time so far; else the place of its last sample, with the time
 * since. In the child, on its copy of the trees. The calls' communicators
 * and peers go into where (hprof::now). */
static void place_threads_now(char *where, size_t len)
{
    uint64_t now = hprof_now_ns();
    size_t used = 0;
    where[0] = '\0';
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next) {
        const hprof_call *call = t->in_flight;
        uint32_t node = CCT_NONE;
        uint64_t since = 0;
        if (t->ended_threads || t->sampling.ended)
            continue;
        if ((node = hprof_call_stopped_node(t)) != CCT_NONE) {
            since = now > call->start_ns ? now - call->start_ns : 0;
            used += describe_call(t, call, where + used, len - used);
        } else if (t->depth == 0) {
            node = t->sampling.last_node;
            since = window_room_ns(&t->sampling.window, window_clock_ns());
        }
        if (node != CCT_NONE)
            t->tree.nodes[node].counter[CCT_NOW_NS] += since ? since : 1;
    }
}

/* In the child: this rank's profile as of the fork. */
static void write_in_child(const char *seq, const char *when)
{
    char stem[4096], output[4200], reason[160], path[4096], err[512];
    fallback_stem(hprof_config.output, my_nranks, stem, sizeof stem);
    snprintf(output, sizeof output, "%s.snapshot-%s.cubex", stem, seq);
    snprintf(reason, sizeof reason, "snapshot asked for at %s", when);
    static char where[1 << 16];
    hprof_thread_freeze(0);
    place_threads_now(where, sizeof where);
    abandon_stop_threads();
    if (abandon_write_rank(output, reason, where[0] ? where : NULL, path, sizeof path, err, sizeof err) == 0)
        run_marks_snapshot_done(seq, my_rank, path, NULL);
    else
        run_marks_snapshot_done(seq, my_rank, NULL, err);
    _exit(0);
}

static void take(const char *seq, const char *when)
{
    if (!hprof_active)
        return; /* MPI_Finalize began: its own profile comes */
    pid_t child = fork();
    if (child == 0)
        write_in_child(seq, when);
    if (child < 0) {
        run_marks_snapshot_done(seq, my_rank, NULL, "fork failed");
        return;
    }
    /* A SIGCHLD handler of the program's that reaps any child may take it first. */
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
}

static void *listener(void *unused)
{
    (void)unused;
    char seq[64], when[128];
    for (;;) {
        struct timespec ts = { 0, POLL_NS };
        while (nanosleep(&ts, &ts) != 0)
            ;
        if (!hprof_active)
            return NULL;
        if (new_request(seq, sizeof seq, when, sizeof when)) {
            snprintf(last_seq, sizeof last_seq, "%s", seq);
            take(seq, when);
        }
    }
}

void snapshot_listen_start(int rank, int nranks)
{
    const char *dir = getenv("HPROF_RUN_MARKS");
    if (!dir || !*dir)
        return;
    snprintf(request_path, sizeof request_path, "%s/snapshot.request", dir);
    my_rank = rank;
    my_nranks = nranks;
    char when[128];
    if (new_request(last_seq, sizeof last_seq, when, sizeof when) == 0)
        last_seq[0] = '\0'; /* a request from before this rank began is not for it */
    if (hprof_own_thread_start(listener, NULL) != 0)
        hprof_say("no thread to listen for hprof-snapshot's requests: this job's snapshots lack this rank");
}
