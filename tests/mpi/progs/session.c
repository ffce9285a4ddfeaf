/* session.c - MPI-4 sessions programs for mpi_sessions.sh (MPICH 4; Open
 * MPI 4.1 has no sessions). On a communicator from the mpi://WORLD process
 * set: NRED x MPI_Allreduce (reduce_loop) and NMSG x MPI_Send/MPI_Recv of
 * CNT ints, rank 0 to rank 1 (exchange).
 *   session        sessions only: two sessions, the second ends first
 *   session mixed  MPI_Init first, then one session; NBAR x MPI_Barrier on
 *                  MPI_COMM_WORLD; the session ends before MPI_Finalize
 *   session late   one session first, then MPI_Init and MPI_Finalize; the
 *                  session ends last
 *   session threads  two threads each open a session of their own (thread
 *                  level MPI_THREAD_MULTIPLE) at once, and use it
 * Prints "session: done <sum>" on rank 0. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NRED 6
#define NMSG 5
#define CNT 100
#define NBAR 3

static double reduce_loop(MPI_Comm c)
{
    double x = 1, y = 0;
    for (int i = 0; i < NRED; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
    return y;
}

static void exchange(MPI_Comm c, int rank)
{
    int buf[CNT];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < NMSG; i++) {
        if (rank == 0)
            MPI_Send(buf, CNT, MPI_INT, 1, 7, c);
        else if (rank == 1)
            MPI_Recv(buf, CNT, MPI_INT, 0, 7, c, MPI_STATUS_IGNORE);
    }
}

/* The session's part: a communicator over mpi://WORLD (tag: its string
 * tag), used and freed. */
static double on_session(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    int rank;
    if (MPI_Group_from_session_pset(s, "mpi://WORLD", &g) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(c, &rank);
    double y = reduce_loop(c);
    exchange(c, rank);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    return rank == 0 ? y : 0;
}

/* threads mode: each thread's own session, opened as the other opens its */
static const char *const thread_tags[2] = { "hprof.test.thread0", "hprof.test.thread1" };
static double thread_sum[2];

static void *thread_main(void *arg)
{
    int i = (int)(long)arg;
    MPI_Info info;
    MPI_Session s;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    if (MPI_Session_init(info, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS) {
        thread_sum[i] = on_session(s, thread_tags[i]);
        MPI_Session_finalize(&s);
    }
    MPI_Info_free(&info);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Session s, s2;
    double y;
    if (strcmp(mode, "mixed") == 0) {
        MPI_Init(&argc, &argv);
        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
            return 3;
        y = on_session(s, "hprof.test.session");
        for (int i = 0; i < NBAR; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Session_finalize(&s);
        MPI_Finalize();
    } else if (strcmp(mode, "late") == 0) {
        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
            return 3;
        MPI_Init(&argc, &argv);
        for (int i = 0; i < NBAR; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        y = on_session(s, "hprof.test.session");
        MPI_Session_finalize(&s);
    } else if (strcmp(mode, "threads") == 0) {
        pthread_t t[2];
        for (long i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, thread_main, (void *)i);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        y = thread_sum[0] == thread_sum[1] ? thread_sum[0] : -1;
    } else {
        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS ||
            MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2) != MPI_SUCCESS)
            return 3;
        y = on_session(s, "hprof.test.session");
        MPI_Session_finalize(&s2);
        MPI_Session_finalize(&s);
    }
    if (y > 0)
        printf("session: done %g\n", y);
    return 0;
}
