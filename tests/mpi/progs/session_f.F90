! session_f.F90 - an MPI-4 sessions program in Fortran for mpi_sessions.sh:
! `use mpi`, or with -DF08 `use mpi_f08`. A communicator from the
! mpi://WORLD process set, NRED x MPI_Allreduce of one double on it, then
! MPI_Session_finalize. Prints "session_f: done <sum>" on rank 0.
program session_f
#ifdef F08
  use mpi_f08
  implicit none
  type(MPI_Session) :: s
  type(MPI_Group) :: g
  type(MPI_Comm) :: c
#else
  use mpi
  implicit none
  integer :: s, g, c
#endif
  integer, parameter :: NRED = 4
  integer :: ierr, rank, i
  double precision :: x, y
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  call MPI_Group_from_session_pset(s, "mpi://WORLD", g, ierr)
  call MPI_Comm_create_from_group(g, "hprof.test.session_f", MPI_INFO_NULL, MPI_ERRORS_RETURN, c, ierr)
  call MPI_Comm_rank(c, rank, ierr)
  x = 1
  do i = 1, NRED
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, c, ierr)
  end do
  if (rank == 0) write (*, '(a, f3.1)') 'session_f: done ', y
  call MPI_Comm_free(c, ierr)
  call MPI_Group_free(g, ierr)
  call MPI_Session_finalize(s, ierr)
end program session_f
