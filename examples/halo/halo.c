/*
 * halo.c - a 1-D Jacobi stencil with halo exchange and a global residual,
 * with a deliberate load imbalance: the last rank owns twice the cells of
 * the others, so everybody else waits for it in MPI_Allreduce.
 *
 * usage: halo [ITERATIONS] [CELLS_PER_RANK]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct domain {
    int rank, size, n; /* n interior cells, plus one halo cell each side */
    double *u, *next;
} domain;

static void domain_init(domain *d, int cells)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    d->n = d->rank == d->size - 1 ? 2 * cells : cells; /* the imbalance */
    d->u = calloc((size_t)d->n + 2, sizeof(double));
    d->next = calloc((size_t)d->n + 2, sizeof(double));
    for (int i = 1; i <= d->n; i++)
        d->u[i] = sin(0.001 * (i + d->rank * cells));
}

static __attribute__((noinline)) void exchange_halos(domain *d)
{
    int left = d->rank > 0 ? d->rank - 1 : MPI_PROC_NULL;
    int right = d->rank < d->size - 1 ? d->rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&d->u[1], 1, MPI_DOUBLE, left, 0, &d->u[d->n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&d->u[d->n], 1, MPI_DOUBLE, right, 1, &d->u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) double relax(domain *d)
{
    double local = 0;
    for (int sweep = 0; sweep < 20; sweep++) {
        for (int i = 1; i <= d->n; i++)
            d->next[i] = 0.5 * (d->u[i - 1] + d->u[i + 1]);
        for (int i = 1; i <= d->n; i++) {
            double diff = d->next[i] - d->u[i];
            local += diff * diff;
            d->u[i] = d->next[i];
        }
    }
    return local;
}

static __attribute__((noinline)) double residual(double local)
{
    double global;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(global);
}

static __attribute__((noinline)) double solve(domain *d, int iterations)
{
    double res = 0;
    for (int it = 0; it < iterations; it++) {
        exchange_halos(d);
        res = residual(relax(d));
    }
    return res;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iterations = argc > 1 ? atoi(argv[1]) : 40;
    int cells = argc > 2 ? atoi(argv[2]) : 200000;
    domain d;
    domain_init(&d, cells);
    double res = solve(&d, iterations);
    if (d.rank == 0)
        printf("halo: %d ranks, %d iterations, residual %.6e\n", d.size, iterations, res);
    free(d.u);
    free(d.next);
    MPI_Finalize();
    return 0;
}
