#define _GNU_SOURCE
/*
 * signal_route.c - see signal_route.h. The router runs in a signal
 * handler: only system calls and plain memory accesses.
 */
#include "lib/signals/signal_route.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/real_dl.h"
#include "unwind/own_walk.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    static sigaction_fn real;
    if (!real)
        real = (sigaction_fn)hprof_dlsym(RTLD_NEXT, "sigaction");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(sig, act, old);
}

static struct sigaction program[NSIG]; /* the program's action where routed */
static volatile sig_atomic_t routed[NSIG];
static volatile sig_atomic_t active;

void signal_route_start(void)
{
    active = 1;
}

/* Signals that are about the thread that raised them (faults), cannot be
 * caught, or whose action the kernel changes as it delivers them
 * (SA_RESETHAND): never routed. */
static int routable(int sig, const struct sigaction *act)
{
    if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS ||
        sig == SIGFPE || sig == SIGILL || sig == SIGTRAP || sig == SIGSYS)
        return 0;
    if (act->sa_flags & SA_RESETHAND)
        return 0;
    if (act->sa_flags & SA_SIGINFO)
        return act->sa_sigaction != NULL;
    return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

/* Sent to the process as a whole (not by tgkill/pthread_kill, not a
 * thread's own timer or fault)? */
static int process_directed(int sig, const siginfo_t *info)
{
    int code = info->si_code;
    return code == SI_USER || code == SI_QUEUE || code == SI_KERNEL || (sig == SIGCHLD && code > 0) ||
           (sig == SIGIO && code > 0);
}

/* Does thread tid block sig? From /proc (SigBlk, hexadecimal, bit sig-1);
 * -1 when it cannot be read (the thread is gone). */
static int blocks(pid_t tid, int sig)
{
    char path[48] = "/proc/self/task/", digits[16];
    int nd = 0, len = (int)strlen(path);
    for (pid_t v = tid; v > 0 && nd < 15; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd > 0)
        path[len++] = digits[--nd];
    memcpy(path + len, "/status", 8);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[2048];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nSigBlk:");
    if (!p)
        return -1;
    p += 8;
    while (*p == ' ' || *p == '\t')
        p++;
    unsigned long long mask = 0;
    for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
        mask = mask * 16 + (unsigned)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
    return (int)((mask >> (sig - 1)) & 1);
}

/* The kernel lets a thread queue a signal with a kernel's or kill()'s
 * si_code only to itself, so a rerouted signal travels as SI_QUEUE with
 * this marker, and its original siginfo waits here for the main thread. */
static const int reroute_marker;
static siginfo_t rerouted_info[NSIG];

/* Queue the signal again to the main thread when it landed elsewhere only
 * because the main thread had a signal pending: 1 if done. */
static int reroute(int sig, siginfo_t *info)
{
    pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
    if (!active || tid == pid || !process_directed(sig, info))
        return 0;
    /* blocked by the main thread: by the program (its handler runs here, as
     * without hprof), or by libunwind inside hprof's walk (queued to it) */
    int b = blocks(pid, sig);
    if (b != 0 && !(b == 1 && hprof_main_in_own_walk()))
        return 0;
    rerouted_info[sig] = *info;
    siginfo_t q;
    memset(&q, 0, sizeof q);
    q.si_signo = sig;
    q.si_code = SI_QUEUE;
    q.si_pid = pid;
    q.si_uid = getuid();
    q.si_value.sival_ptr = (void *)&reroute_marker;
    return syscall(SYS_rt_tgsigqueueinfo, pid, pid, sig, &q) == 0;
}

/* A signal rerouted by reroute(): its original siginfo. */
static siginfo_t *original_info(int sig, siginfo_t *info)
{
    if (info->si_code == SI_QUEUE && info->si_value.sival_ptr == (void *)&reroute_marker &&
        info->si_pid == getpid())
        return &rerouted_info[sig];
    return info;
}

static void router(int sig, siginfo_t *info, void *ucontext)
{
    int saved_errno = errno;
    if (reroute(sig, info)) {
        errno = saved_errno;
        return;
    }
    errno = saved_errno;
    info = original_info(sig, info);
    struct sigaction a = program[sig];
    if (a.sa_flags & SA_SIGINFO)
        a.sa_sigaction(sig, info, ucontext);
    else if (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN)
        a.sa_handler(sig);
}

int signal_route_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction before;
    int was_routed = sig > 0 && sig < NSIG && routed[sig];
    if (was_routed)
        before = program[sig];
    if (!act || !routable(sig, act)) {
        int rc = real_sigaction(sig, act, old);
        if (rc == 0 && act && was_routed)
            routed[sig] = 0;
        if (rc == 0 && old && was_routed)
            *old = before;
        return rc;
    }
    struct sigaction mine = *act;
    mine.sa_sigaction = router;
    mine.sa_flags |= SA_SIGINFO;
    /* the router reads program[sig]: keep the signal off while it changes */
    routed[sig] = 0;
    program[sig] = *act;
    int rc = real_sigaction(sig, &mine, old);
    if (rc != 0) {
        if (was_routed)
            program[sig] = before;
        routed[sig] = was_routed;
        return rc;
    }
    routed[sig] = 1;
    if (old && was_routed)
        *old = before;
    return 0;
}
