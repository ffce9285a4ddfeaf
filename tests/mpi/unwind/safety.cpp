// safety.cpp - programs that walk or leave their stack in every way hprof's
// thunk stack must survive. Each mode makes MPI calls deep in a recursion
// (so hprof redirects the return addresses of those frames), then does the
// dangerous thing, and prints what it saw. Run with and without hprof: the
// output and the exit status must be the same.
//   safety MODE   MODE: exceptions longjmp siglongjmp backtrace libunwind
//                       swapcontext coswitch fork threads cancel cancel_cxx
//                       exit_thread
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <execinfo.h>
#include <libunwind.h>
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdexcept>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static volatile long sink;
static int destructed;

struct Guard {
    int id;
    explicit Guard(int i) : id(i) {}
    ~Guard() { destructed++; }
};

// Recurse to depth d with an MPI call on the way down at every level, then
// call leaf() at the bottom.
template <typename F> __attribute__((noinline)) long dive(int d, F leaf)
{
    volatile int guard = d;
    MPI_Barrier(MPI_COMM_SELF);
    long r;
    if (guard > 0) {
        Guard g(d);
        r = dive(d - 1, leaf) + 1;
    } else {
        r = leaf();
    }
    MPI_Barrier(MPI_COMM_SELF);
    return r;
}

static void names(void **ips, int n)
{
    // the depth, and the function names of the frames in this program
    // (exported by -rdynamic)
    printf(" %d frames:", n);
    for (int i = 0; i < n; i++) {
        Dl_info info;
        if (dladdr(ips[i], &info) && info.dli_sname && strstr(info.dli_sname, "dive"))
            printf(" dive");
        else if (dladdr(ips[i], &info) && info.dli_sname && strcmp(info.dli_sname, "main") == 0)
            printf(" main");
    }
    printf("\n");
}

static jmp_buf jb;
static sigjmp_buf sjb;
static void on_usr1(int) { siglongjmp(sjb, 7); }

static ucontext_t main_ctx, co_ctx;
static void coroutine()
{
    for (int i = 0; i < 5; i++) {
        dive(6, [] { return 1L; });
        swapcontext(&co_ctx, &main_ctx);
    }
}

// A coroutine library's own switch (mode coswitch).
#include "co_switch.h"

static void *main_sp, *co_sp;

static void co_main()
{
    for (;;) {
        dive(6, [] { return 1L; });
        co_switch(&co_sp, main_sp);
    }
}

// A coroutine's first switch returns to co_main with the stack aligned as
// after a call; its stack ends at top, in a local array of main's (so it
// lies on the thread's own stack, above the frames main calls).
static void co_prepare(char *top)
{
    void **sp = (void **)top;
    *--sp = NULL;               // rsp % 16 == 8 at co_main's entry
    *--sp = (void *)co_main;    // co_switch's ret goes there
    for (int i = 0; i < 6; i++) // r15..rbp
        *--sp = NULL;
    co_sp = sp;
}

static void cleanup(void *arg) { printf("cleanup %s\n", (const char *)arg); }

static volatile int cancel_ready; // the thread is at the bottom of its dive

static void *cancel_thread(void *)
{
    pthread_cleanup_push(cleanup, (void *)"ran");
    dive(10, [] {
        for (;;) {
            cancel_ready = 1;
            MPI_Barrier(MPI_COMM_SELF);
            usleep(1000); // a cancellation point
        }
        return 0L;
    });
    pthread_cleanup_pop(0);
    return NULL;
}

static void *exit_thread(void *)
{
    dive(10, []() -> long { pthread_exit((void *)42); });
    return NULL;
}

static void *work_thread(void *arg)
{
    long id = (long)arg, s = 0;
    for (int i = 0; i < 200; i++)
        s += dive(3 + (int)(id + i) % 12, [] { return 2L; });
    return (void *)s;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const char *mode = argc > 1 ? argv[1] : "";
    int status = 0;
    if (!strcmp(mode, "exceptions")) {
        int caught = 0;
        for (int i = 0; i < 20; i++) {
            try {
                dive(5 + i % 7, []() -> long { throw std::runtime_error("deep"); });
            } catch (const std::exception &e) {
                caught++;
            }
            try { // rethrown through patched frames
                try {
                    dive(8, []() -> long { throw 42; });
                } catch (int) {
                    dive(4, [] { return 0L; });
                    throw;
                }
            } catch (int v) {
                caught += v == 42;
            }
        }
        printf("caught %d destructed %d\n", caught, destructed);
    } else if (!strcmp(mode, "longjmp")) {
        int n = 0;
        for (int i = 0; i < 20; i++)
            if (setjmp(jb) == 0)
                dive(6 + i % 5, []() -> long { longjmp(jb, 1); });
            else
                n++;
        printf("longjmp back %d times, %ld\n", n, dive(5, [] { return 3L; }));
    } else if (!strcmp(mode, "siglongjmp")) {
        signal(SIGUSR1, on_usr1);
        int n = 0;
        for (int i = 0; i < 20; i++)
            if (sigsetjmp(sjb, 1) == 0)
                dive(6 + i % 5, []() -> long { raise(SIGUSR1); return 0; });
            else
                n++;
        printf("siglongjmp back %d times, %ld\n", n, dive(5, [] { return 3L; }));
    } else if (!strcmp(mode, "backtrace")) {
        for (int i = 0; i < 3; i++)
            dive(5 + i, [] {
                void *ips[64];
                int n = backtrace(ips, 64);
                printf("backtrace:");
                names(ips, n);
                return 0L;
            });
    } else if (!strcmp(mode, "libunwind")) {
        for (int i = 0; i < 3; i++)
            dive(5 + i, [] {
                void *ips[64];
                int n = unw_backtrace(ips, 64);
                printf("unw_backtrace:");
                names(ips, n);
                unw_context_t uc;
                unw_cursor_t c;
                unw_getcontext(&uc);
                unw_init_local(&c, &uc);
                n = 0;
                while (unw_step(&c) > 0 && n < 64) {
                    unw_word_t ip;
                    unw_get_reg(&c, UNW_REG_IP, &ip);
                    ips[n++] = (void *)ip;
                }
                printf("cursor:");
                names(ips, n);
                return 0L;
            });
    } else if (!strcmp(mode, "swapcontext")) {
        static char stack[1 << 16];
        getcontext(&co_ctx);
        co_ctx.uc_stack.ss_sp = stack;
        co_ctx.uc_stack.ss_size = sizeof stack;
        co_ctx.uc_link = &main_ctx;
        makecontext(&co_ctx, coroutine, 0);
        long s = 0;
        for (int i = 0; i < 5; i++)
            s += dive(4, [] {
                swapcontext(&main_ctx, &co_ctx);
                return 1L;
            });
        printf("swapcontext %ld\n", s);
    } else if (!strcmp(mode, "coswitch")) {
        alignas(16) char stack[1 << 16];
        co_prepare(stack + sizeof stack);
        long s = 0;
        for (int i = 0; i < 5; i++)
            s += dive(4, [] {
                co_switch(&main_sp, co_sp);
                return 1L;
            });
        printf("coswitch %ld\n", s);
    } else if (!strcmp(mode, "fork")) {
        long r = dive(8, [] {
            pid_t p = fork();
            if (p == 0) { // the child returns through the patched frames too
                return 100L;
            }
            int st;
            waitpid(p, &st, 0);
            return (long)WEXITSTATUS(st);
        });
        if (r == 108) { // the child, back in main: leave without MPI
            fflush(stdout);
            _exit(9);
        }
        printf("fork child exit %ld\n", r - 8);
    } else if (!strcmp(mode, "threads")) {
        pthread_t t[4];
        long total = 0;
        for (long i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, work_thread, (void *)i);
        for (int i = 0; i < 4; i++) {
            void *r;
            pthread_join(t[i], &r);
            total += (long)r;
        }
        printf("threads %ld\n", total);
    } else if (!strcmp(mode, "cancel")) {
        pthread_t t;
        pthread_create(&t, NULL, cancel_thread, NULL);
        while (!cancel_ready) // on a loaded machine the thread may start late
            usleep(1000);
        usleep(20000);
        pthread_cancel(t);
        void *r;
        pthread_join(t, &r);
        printf("canceled %d destructed %d\n", r == PTHREAD_CANCELED, destructed);
    } else if (!strcmp(mode, "exit_thread")) {
        pthread_t t;
        pthread_create(&t, NULL, exit_thread, NULL);
        void *r;
        pthread_join(t, &r);
        printf("pthread_exit %ld destructed %d\n", (long)r, destructed);
    } else {
        fprintf(stderr, "unknown mode\n");
        status = 2;
    }
    MPI_Finalize();
    return status ? status : 5; // a distinctive exit status
}
