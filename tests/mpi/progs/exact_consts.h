/* Constants of exact.c; exact_expect.py reads the same file (simple
 * `#define NAME integer` lines only). */
#define SR_ITER 7     /* main;solver;exchange;MPI_Sendrecv visits per rank */
#define SR_COUNT 1000 /* doubles per Sendrecv, each direction */
#define AR_ITER 3     /* main;MPI_Allreduce visits */
#define AR_COUNT 16   /* ints */
#define NB_ITER 5     /* main;nonblocking: Irecv+Isend+Waitall rounds */
#define NB_COUNT 300  /* ints per message */
#define PS_ITER 4     /* main;persistent: MPI_Start x2 + MPI_Wait x2 per round */
#define PS_COUNT 50   /* doubles per message */
#define AS_ITER 6     /* main;anysource: Isend, Recv(ANY_SOURCE), Wait */
#define AS_COUNT 10   /* message of rank r holds (r+1)*AS_COUNT ints */
#define AS_MAX 100000 /* receive buffer, ints (bigger than any message) */
#define BC_ITER 2     /* main;MPI_Bcast visits */
#define TC_ITER 5     /* main;tailcall: MPI_Barrier, then a tail call to it */
#define BC_COUNT 64   /* doubles */
#define IO_NBLOCK 3   /* main;mpiio: MPI_File_write_at / read_at per rank */
#define IO_BLOCK 100  /* block i of rank r: (i+1)*IO_BLOCK + r bytes */
#define IO_SLOT 4096  /* bytes of file per (rank, block) */
#define PUT_ITER 3    /* MPI_Put calls in one fence epoch */
#define PUT_COUNT 20  /* doubles per MPI_Put */
#define GET_COUNT 7   /* ints per MPI_Get (one call) */
