! exact_f.f90 - Fortran subroutines and functions measured exactly
! (tests/mpi/exact_fortran.sh): a module procedure (solver::relax, the
! symbol __solver_MOD_relax), an external subroutine (smooth, smooth_) and
! a recursive function (fact). Each rank counts its own calls and writes
! exact.expect.RANK in exact_c.c's format.
module solver
  implicit none
  integer :: n_relax = 0, n_smooth = 0, n_fact = 0
contains
  subroutine relax(a, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(n)
    integer :: i
    n_relax = n_relax + 1
    do i = 2, n - 1
      a(i) = 0.5d0 * a(i) + 0.25d0 * (a(i - 1) + a(i + 1))
    end do
  end subroutine relax
end module solver

subroutine smooth(a, n, sweeps)
  use solver
  implicit none
  integer, intent(in) :: n, sweeps
  double precision, intent(inout) :: a(n)
  integer :: s
  n_smooth = n_smooth + 1
  do s = 1, sweeps
    call relax(a, n)
  end do
end subroutine smooth

recursive function fact(k) result(r)
  use solver
  implicit none
  integer, intent(in) :: k
  double precision :: r
  n_fact = n_fact + 1
  if (k <= 1) then
    r = 1d0
  else
    r = k * fact(k - 1)
  end if
end function fact

program exact_f
  use mpi
  use solver
  implicit none
  integer :: ierr, rank, it, u
  double precision :: a(2000), s, f, t0, t_smooth
  double precision, external :: fact
  character(len=32) :: name
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 1d0
  a(1) = 0d0
  f = 0d0
  t_smooth = 0d0
  do it = 1, 20 + 5 * rank
    t0 = MPI_Wtime()
    call smooth(a, 2000, 10)
    t_smooth = t_smooth + (MPI_Wtime() - t0)
    f = f + fact(20)
    if (it <= 20) call MPI_Allreduce(a(1000), s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  write (name, '(a,i0)') 'exact.expect.', rank
  open (newunit=u, file=trim(name), status='replace')
  write (u, '(a,i0)') 'visits relax ', n_relax
  write (u, '(a,i0)') 'visits smooth ', n_smooth
  write (u, '(a,i0)') 'visits fact ', n_fact
  write (u, '(a,f0.9)') 'time smooth ', t_smooth
  close (u)
  if (f < 0) print *, s
  call MPI_Finalize(ierr)
end program exact_f
