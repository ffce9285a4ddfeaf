! fortran.f90 - Fortran MPI calls for lang_fortran.sh (2 ranks or more).
! Rank 0 sends NMSG messages of CNT integers to rank 1 (subroutine sendloop),
! rank 1 receives them (subroutine recvloop), then every rank calls
! MPI_ALLREDUCE NRED times (subroutine reduceloop) and NIP times with
! MPI_IN_PLACE (subroutine inplaceloop, 3 doubles).
subroutine sendloop(nmsg, cnt)
  use mpi
  implicit none
  integer, intent(in) :: nmsg, cnt
  integer :: buf(cnt), i, ierr
  buf = 7
  do i = 1, nmsg
    call MPI_SEND(buf, cnt, MPI_INTEGER, 1, 11, MPI_COMM_WORLD, ierr)
  end do
end subroutine sendloop

subroutine recvloop(nmsg, cnt)
  use mpi
  implicit none
  integer, intent(in) :: nmsg, cnt
  integer :: buf(cnt), i, ierr
  integer :: status(MPI_STATUS_SIZE)
  do i = 1, nmsg
    call MPI_RECV(buf, cnt, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, status, ierr)
    if (buf(cnt) /= 7) stop 2
  end do
end subroutine recvloop

subroutine reduceloop(nred)
  use mpi
  implicit none
  integer, intent(in) :: nred
  double precision :: x, y
  integer :: i, ierr
  x = 1.0d0
  do i = 1, nred
    call MPI_ALLREDUCE(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
end subroutine reduceloop

subroutine inplaceloop(nip)
  use mpi
  implicit none
  integer, intent(in) :: nip
  double precision :: v(3)
  integer :: i, ierr
  do i = 1, nip
    v = 1.0d0
    call MPI_ALLREDUCE(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
end subroutine inplaceloop

program ftest
  use mpi
  implicit none
  integer, parameter :: NMSG = 9, CNT = 250, NRED = 4, NIP = 3
  integer :: ierr, rank, np
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  if (rank == 0) call sendloop(NMSG, CNT)
  if (rank == 1) call recvloop(NMSG, CNT)
  call reduceloop(NRED)
  call inplaceloop(NIP)
  if (rank == 0) print '(a)', 'fortran: done'
  call MPI_FINALIZE(ierr)
end program ftest
