/*
 * exact_first.c - a function measured exactly whose entries walk while
 * the unwinder has no recipe for the call site (tests/mpi/exact_first.sh,
 * issue 38.4). main calls first_visit FIRST_CALLS times at its first
 * statements after MPI_Init, while the learner thread publishes the
 * program's prelearned recipes (a walk that needs one waits for the
 * learner's lock), then realigned() calls it REALIGNED_CALLS times: its frame
 * is realigned through a DRAP register (a 64-byte aligned array beside a
 * variable-length one), whose CFI is an expression the recipes do not
 * model, so every entry from there walks with libunwind. Last, main calls
 * lost_visit LOST_CALLS times through no_cfi_hop, assembly without CFI:
 * no walk can find that path, and the profile's header counts those
 * entries as failed. first_visit runs a few microseconds a call. Each
 * rank writes its counts to exact.expect.RANK ("visits PATH N").
 */
#include <mpi.h>
#include <stdio.h>

#define FIRST_CALLS 60
#define REALIGNED_CALLS 20
#define LOST_CALLS 3

static volatile double sink;
static long n_main, n_realigned, n_lost;

__attribute__((noinline)) void first_visit(int i)
{
    for (int k = 0; k < 2000; k++)
        sink += k * 0.5 + i;
}

__attribute__((noinline)) void lost_visit(int i)
{
    n_lost++;
    sink += i;
}

void no_cfi_hop(int i);
__asm__(".text\n"
        ".globl no_cfi_hop\n"
        ".type no_cfi_hop, @function\n"
        "no_cfi_hop:\n"
        "  pushq %rbp\n"
        "  call lost_visit\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size no_cfi_hop, . - no_cfi_hop\n");

__attribute__((noinline)) void touch(double *a, double *b)
{
    sink += a[0] + b[0];
}

__attribute__((noinline)) void realigned(int n)
{
    double fixed[8] __attribute__((aligned(64)));
    double var[n + 1];
    for (int i = 0; i < n; i++) {
        fixed[i & 7] = i;
        var[i] = i;
        touch(fixed, var);
        first_visit(i);
        n_realigned++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < FIRST_CALLS; i++) {
        first_visit(i);
        n_main++;
    }
    realigned(REALIGNED_CALLS);
    for (int i = 0; i < LOST_CALLS; i++)
        no_cfi_hop(i);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "exact.expect.%d", rank);
    FILE *f = fopen(name, "w");
    if (f) {
        fprintf(f, "visits main;first_visit %ld\n", n_main);
        fprintf(f, "visits main;realigned;first_visit %ld\n", n_realigned);
        fprintf(f, "visits lost_visit %ld\n", n_lost);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
