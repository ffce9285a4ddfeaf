#define _GNU_SOURCE
#include "lib/ending/abandon.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/config.h"
#include "report/profile/fallback.h"
#include "core/log.h"
#include "report/merge/merge.h"
#include "lib/lifecycle/run_attrs.h"
#include "lib/active.h"
#include "lib/ending/run_marks.h"
#include "lib/lifecycle/runtime_snapshot.h"
#include "lib/sampling/sampler.h"
#include "lib/signals/signal_chain.h"
#include "lib/threads/thread.h"

static int my_rank, my_nranks;
static void (*book_call_in_flight)(void);
static void (*book_stopped_call)(hprof_thread *t);
static volatile int abandoning;
static volatile int merging; /* MPI_Finalize's merge runs: the measurement is over, its profile not written */

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NFATAL (int)(sizeof fatal_signals / sizeof fatal_signals[0])

/* The writer holds none of the rank's connections (the launcher's PMI
 * socket, the MPI library's): the launcher must see this rank end exactly
 * when the rank does. Standard error stays for HPROF_VERBOSE. */
static void detach_descriptors(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        if (hprof_config.verbose == 0)
            dup2(null, STDERR_FILENO);
    }
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close((int)fd);
}

/* Rank 0's line: what becomes of the partial profiles, and who merges
 * them (hprof-run once the job has ended, or the user: the command). */
static void say_partial(const char *reason)
{
    char stem[4096];
    fallback_stem(hprof_config.output, my_nranks, stem, sizeof stem);
    const char *whole = merging ? "MPI_Finalize's merge did not end, no profile of all ranks is written"
                                : "MPI_Finalize not reached";
    if (run_marks_in_use())
        hprof_say("%s: %s; each rank that got this far writes its own partial profile (%s.rank%d.cubex for "
                  "this one) in the background, and hprof-run merges them when the job has ended",
                  reason, whole, stem, my_rank);
    else
        hprof_say("%s: %s; each rank that got this far writes its own partial profile (%s.rank%d.cubex for "
                  "this one) in the background; once the job has ended, merge them with: hprof-merge "
                  "%s.rank*.cubex",
                  reason, whole, stem, my_rank, stem);
}

/* The measurement stops on every thread: no more samples anywhere. Each
 * thread's sampling clock is read now, for its last interval: in the
 * writer (a fork) the threads and their CPU clocks are gone. */
static void quiet_threads(void)
{
    hprof_active = 0;
    hprof_thread_freeze(0);
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next) {
        t->depth++;
        t->sampling.stop_clock_ns = window_clock_of(&t->sampling.window);
    }
}

/* Every thread's window closes; with book, each one's MPI call under way
 * is booked first (the calling thread's was, in the dying rank). On the
 * wall clock at the time of that booking, which ends the calls; on the
 * CPU clock at quiet_threads' readings. */
static void close_threads(void (*book)(hprof_thread *t))
{
    for (hprof_thread *t = hprof_thread_list(); t; t = t->next) {
        if (book)
            book(t);
        sampler_thread_close(t, hprof_config.sampling_clock == HPROF_CLOCK_WALL ? window_clock_ns()
                                                                                : t->sampling.stop_clock_ns);
    }
}

/* The writer: a detached grandchild, so that the dying rank goes on dying
 * at once (the launcher sees the same exit, at the same moment, as without
 * hprof) and the launcher's clean-up of the rank does not take the write
 * with it. The grandchild has this process's memory as it was. */
static void write_in_background(const char *reason)
{
    /* A folder that certainly cannot take the profile (full, read-only) is
     * said here: the writer cannot tell anyone once the rank is gone. */
    char err[512];
    const char *what = merging ? "MPI_Finalize's merge did not end" : "MPI_Finalize not reached";
    run_marks_partial_begins();
    if (fallback_check_room(hprof_config.output, err, sizeof err) != 0) {
        hprof_say("%s: %s; no partial profile written for this rank: %s", reason, what, err);
        run_marks_partial_done(NULL, err);
        return;
    }
    pid_t child = fork();
    if (child < 0) {
        hprof_say("%s: %s; no partial profile written for this rank: fork failed", reason, what);
        run_marks_partial_done(NULL, "fork failed");
        return;
    }
    if (child > 0) {
        /* Only the short-lived middle process is waited for (a fork and a
         * setsid, well under a millisecond): until it has put the writer in
         * a session of its own, the launcher's kill of this rank's process
         * group (MPICH's after MPI_Abort) would take the writer too. The
         * write itself is not waited for: the line says what is tried, not
         * what came of it. */
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
        say_partial(reason);
        run_marks_hold_wait();
        return;
    }
    setsid();
    if (fork() != 0)
        _exit(0);
    run_marks_partial_writer();
    detach_descriptors();
    close_threads(book_stopped_call);
    char path[4096];
    if (abandon_write_rank(hprof_config.output, reason, NULL, path, sizeof path, err, sizeof err) != 0) {
        hprof_verbose(1, "partial profile not written: %s", err);
        run_marks_partial_done(NULL, err);
    } else {
        run_marks_partial_done(path, NULL);
    }
    _exit(0);
}

/* A writer stuck on a lock that another thread held at the fork (one
 * hprof cannot keep out of its way: malloc's, taken in a signal handler)
 * dies rather than staying for good. A rank's write takes well under a
 * second; the program's own SIGALRM handler, inherited, would not end it. */
#define WRITER_LIMIT_S 120

static void set_writer_deadline(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction(SIGALRM, &dfl, NULL);
    alarm(WRITER_LIMIT_S);
}

int abandon_write_rank(const char *output, const char *reason, const char *now, char *path, int pathlen,
                       char *err, int errlen)
{
    signal_chain_release();
    set_writer_deadline();
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    real_sigaction(SIGPIPE, &ign, NULL); /* the launcher may be gone */
    run_attrs attrs;
    run_attrs_local(&attrs, my_nranks);
    const char **keys = calloc((size_t)attrs.count + 1, sizeof *keys);
    const char **values = calloc((size_t)attrs.count + 1, sizeof *values);
    int n = 0;
    for (; keys && values && n < attrs.count; n++)
        keys[n] = attrs.keys[n], values[n] = attrs.values[n];
    if (keys && values && now)
        keys[n] = "hprof::now", values[n++] = now;
    runtime_snapshot snapshot;
    runtime_snapshot_take(&snapshot);
    return fallback_write(&snapshot.s, my_rank, my_nranks, output, reason, keys, values, n, path, pathlen,
                          err, errlen);
}

void abandon_stop_threads(void)
{
    quiet_threads();
    close_threads(NULL);
}

void abandon_measurement(const char *reason)
{
    if (!(hprof_active || merging) || __atomic_exchange_n(&abandoning, 1, __ATOMIC_SEQ_CST))
        return;
    if (merging) {
        hprof_merge_drop_output(); /* never half a profile; every thread is closed already */
    } else {
        if (book_call_in_flight)
            book_call_in_flight(); /* a rank stopped in MPI_Recv waited there, it did not compute */
        quiet_threads();           /* the writer closes the windows, other threads' calls booked */
    }
    write_in_background(reason);
}

void abandon_merge_begins(void)
{
    __atomic_store_n(&merging, 1, __ATOMIC_SEQ_CST);
}

void abandon_merge_ended(void)
{
    __atomic_store_n(&merging, 0, __ATOMIC_SEQ_CST);
}

static void at_exit(void)
{
    abandon_measurement("exit without MPI_Finalize");
}

/* A forked child is not the measured process: it never samples or writes. */
static void in_child(void)
{
    if (abandoning)
        return; /* our own fallback writer: it keeps what it needs */
    hprof_active = 0;
    abandoning = 1;
    signal_chain_release();
}

/* The handlers that were there before ours (the MPI library's crash
 * reporters, say), called after the fallback profile is written. */
static struct sigaction previous[NFATAL];

static int fatal_index(int sig)
{
    for (int i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig)
            return i;
    return -1;
}

static int crash_signal(int sig);

/* Does the main thread block sig? Its mask from /proc (open and read are
 * async-signal-safe); 1 when it cannot be read: the signal stays here. */
static int main_thread_blocks(int sig)
{
    char path[64], buf[2048];
    int n = 0;
    long pid = (long)getpid();
    char digits[24];
    int nd = 0;
    do
        digits[nd++] = (char)('0' + pid % 10);
    while ((pid /= 10) && nd < 23);
    memcpy(path, "/proc/self/task/", 16);
    n = 16;
    while (nd)
        path[n++] = digits[--nd];
    memcpy(path + n, "/status", 8);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return 1;
    buf[len] = '\0';
    const char *at = strstr(buf, "SigBlk:");
    if (!at)
        return 1;
    at += 7;
    while (*at == ' ' || *at == '\t')
        at++;
    unsigned long long mask = 0;
    for (; (*at >= '0' && *at <= '9') || (*at >= 'a' && *at <= 'f'); at++)
        mask = mask << 4 | (unsigned long long)(*at <= '9' ? *at - '0' : *at - 'a' + 10);
    return (int)(mask >> (sig - 1) & 1);
}

/* A kill (SIGTERM, SIGINT, SIGHUP) that a thread hprof does not measure
 * took (an MPI library's progress thread: the kernel hands a process's
 * signal to another thread while the main one, blocked in MPI_Recv, has a
 * sample pending) goes on to the main thread, which can book the MPI call
 * it is in; not where the main thread blocks it (the program's choice). */
static int pass_to_main_thread(int sig)
{
    if (crash_signal(sig) || hprof_self || (long)syscall(SYS_gettid) == (long)getpid() ||
        main_thread_blocks(sig))
        return 0;
    return syscall(SYS_tgkill, getpid(), getpid(), sig) == 0;
}

static void on_fatal(int sig, siginfo_t *info, void *ucontext)
{
    if (pass_to_main_thread(sig))
        return;
    /* Whatever happens below, the process dies as it would have: the
     * previous action is back in place and an alarm ends a write that got
     * stuck on a lock the interrupted code held. */
    int i = fatal_index(sig);
    struct sigaction prev = previous[i];
    real_sigaction(sig, &prev, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction(SIGALRM, &dfl, NULL);
    alarm(10);
    abandon_measurement(strsignal(sig));
    alarm(0);
    if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
        raise(sig);
    } else if (prev.sa_flags & SA_SIGINFO) {
        prev.sa_sigaction(sig, info, ucontext);
    } else {
        prev.sa_handler(sig);
    }
}

static int crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

void abandon_arm(int rank, int nranks, void (*book_in_flight)(void), void (*book_stopped)(hprof_thread *t))
{
    book_stopped_call = book_stopped;
    book_call_in_flight = book_in_flight;
    my_rank = rank;
    my_nranks = nranks;
    run_marks_arm(rank);
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_child);
    for (int i = 0; i < NFATAL; i++) {
        int sig = fatal_signals[i];
        if (real_sigaction(sig, NULL, &previous[i]) != 0 || previous[i].sa_handler == SIG_IGN)
            continue;
        /* A handler of the program's own for a signal it may survive (SIGTERM,
         * SIGINT, SIGHUP) is left alone; crash signals are chained: the MPI
         * libraries install crash reporters, and they still run after us. */
        int is_default = previous[i].sa_handler == SIG_DFL && !(previous[i].sa_flags & SA_SIGINFO);
        if (!is_default && !crash_signal(sig))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        real_sigaction(sig, &sa, NULL);
    }
}
