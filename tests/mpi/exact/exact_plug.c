/* exact_plug.c - a library with patchable entries that exact_dlopen.c
 * opens after MPI_Init (tests/mpi/exact_dlopen.sh). */
#define NOINLINE __attribute__((noinline, visibility("default")))

long plug_calls[2]; /* plug_solve's, plug_step's */
static volatile double sink;

NOINLINE double plug_step(int i)
{
    plug_calls[1]++;
    for (int k = 0; k < 2000; k++)
        sink += (i + k) * 0.5;
    return sink;
}

NOINLINE double plug_solve(int n)
{
    plug_calls[0]++;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += plug_step(i);
    return s;
}
