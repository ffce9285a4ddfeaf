/*
 * loader_quiet.c - hprof_loader_iterate holds hprof's sampling signal back
 * while the loader's list is walked, and gives the mask back as it was
 * (tests/unit/loader_quiet.sh), and calls nothing in a forked child,
 * where the loader's lock may be held for good. Prints one line per case: "<case> ok" or
 * "<case> fail: why".
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/real_dl.h"

static int seen_blocked = -1, objects;

static int probe(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    seen_blocked = sigismember(&cur, *(int *)data);
    objects++;
    return 0;
}

static int blocked(int sig)
{
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, sig);
}

static void check(const char *name, int sig)
{
    hprof_loader_quiet_signal = sig;
    seen_blocked = -1;
    objects = 0;
    int before = blocked(sig);
    hprof_loader_iterate(probe, &sig);
    if (objects == 0)
        printf("%s fail: the callback never ran\n", name);
    else if (seen_blocked != 1)
        printf("%s fail: signal %d not held back during the walk\n", name, sig);
    else if (blocked(sig) != before)
        printf("%s fail: the mask was not given back (blocked %d, was %d)\n", name, blocked(sig), before);
    else
        printf("%s ok (%d objects)\n", name, objects);
}

static int count(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size;
    ++*(int *)data;
    return 0;
}

static void check_forked_child(void)
{
    pid_t child = fork();
    if (child == 0) {
        int n = 0;
        int rc = hprof_loader_iterate(count, &n);
        _exit(rc == -1 && n == 0 ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    int n = 0;
    hprof_loader_iterate(count, &n);
    if (status != 0)
        printf("forked_child fail: the loader was walked in a forked child\n");
    else if (n == 0)
        printf("forked_child fail: the parent's walk saw no object\n");
    else
        printf("forked_child ok\n");
}

int main(void)
{
    check("sigprof", SIGPROF);
    check("realtime", SIGRTMIN + 3);
    /* a signal the thread blocked itself stays blocked after */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    check("already_blocked", SIGPROF);
    check_forked_child();
    return 0;
}
