/* session.c - an MPI-4 sessions program (no MPI_Init): a communicator from
 * the mpi://WORLD process set, NRED x MPI_Allreduce on it, then
 * MPI_Session_finalize. For spine_sessions.sh (MPICH 4; Open MPI 4.1 has no
 * sessions). */
#include <mpi.h>
#include <stdio.h>

#define NRED 4

int main(void)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int rank;
    double x = 1, y;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS) return 3;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "hprof.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Comm_rank(c, &rank);
    for (int i = 0; i < NRED; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
    if (rank == 0) printf("session: done %g\n", y);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
    return 0;
}
