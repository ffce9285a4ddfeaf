! triangle.f90 - pairwise interaction energy of N particles on a line, with
! the triangular loop  do i = 1, n; do j = i+1, n  split over the MPI ranks
! in two ways:
!   block_rows   contiguous blocks of rows: looks fair (n/P rows each), but
!                row i has n-i partners, so rank 0 gets by far the most work
!                and every other rank waits for it in MPI_Allreduce;
!   cyclic_rows  rows dealt round-robin (i = rank+1, rank+1+P, ...): the same
!                result with the work balanced.
! Both run every iteration, so one profile shows the problem and its fix
! side by side.
!
! usage: triangle [ITERATIONS [N]]     (default 20 iterations, N = 6000)
module pairs
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  ! the energy of particle i with all particles after it: n-i terms
  pure function row_energy(x, n, i) result(e)
    integer, intent(in) :: n, i
    real(dp), intent(in) :: x(n)
    real(dp) :: e, r
    integer :: j
    e = 0
    do j = i + 1, n
      r = abs(x(j) - x(i)) + 0.5_dp
      e = e + 1.0_dp / r**6 - 1.0_dp / r**3
    end do
  end function row_energy

  subroutine block_rows(x, n, energy)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(n)
    real(dp), intent(out) :: energy
    real(dp) :: local
    integer :: rank, nprocs, first, last, i, ierr
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    first = rank * n / nprocs + 1
    last = (rank + 1) * n / nprocs
    local = 0
    do i = first, last
      local = local + row_energy(x, n, i)
    end do
    call MPI_ALLREDUCE(local, energy, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end subroutine block_rows

  subroutine cyclic_rows(x, n, energy)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(n)
    real(dp), intent(out) :: energy
    real(dp) :: local
    integer :: rank, nprocs, i, ierr
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    local = 0
    do i = rank + 1, n, nprocs
      local = local + row_energy(x, n, i)
    end do
    call MPI_ALLREDUCE(local, energy, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end subroutine cyclic_rows
end module pairs

program triangle
  use mpi
  use pairs
  implicit none
  integer :: ierr, rank, nprocs, iters, n, it, i
  character(len=32) :: arg
  real(dp), allocatable :: x(:)
  real(dp) :: e_block, e_cyclic, t0

  call MPI_INIT(ierr)
  t0 = MPI_WTIME()
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 20
  n = 6000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  allocate (x(n))
  do it = 1, iters
    do i = 1, n
      x(i) = i + 0.1_dp * sin(real(i + it, dp))
    end do
    call block_rows(x, n, e_block)
    call cyclic_rows(x, n, e_cyclic)
  end do
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,es14.6,a,es14.6,a,f9.3,a)') 'triangle: ', nprocs, ' ranks, ', iters, &
      ' iterations, n = ', n, ', energy ', e_block, ' (block) ', e_cyclic, ' (cyclic), time ', &
      MPI_WTIME() - t0, ' s'
  end if
  deallocate (x)
  call MPI_FINALIZE(ierr)
end program triangle
