! f08.f90 - Fortran 2008 (use mpi_f08) MPI calls for lang_fortran08.sh (2 ranks).
! The main program is issue 14's reproducer (100 MPI_Allreduce, 7 MPI_Send /
! MPI_Recv, no IERROR anywhere); the subroutines add what the mpi_f08 binding
! passes differently: IERROR present, MPI_STATUS_IGNORE, MPI_IN_PLACE,
! request arrays with MPI_STATUSES_IGNORE.
!   sendloop   rank 0: NMSG x MPI_Send of CNT integers, with IERROR
!   recvloop   rank 1: NMSG x MPI_Recv, every other one with MPI_STATUS_IGNORE
!   inplace    every rank: NIP x MPI_Allreduce(MPI_IN_PLACE) of 3 doubles
!   exchange   ranks 0 and 1: MPI_Irecv + MPI_Isend of CNT integers, MPI_Waitall
subroutine sendloop(nmsg, cnt)
  use mpi_f08
  implicit none
  integer, intent(in) :: nmsg, cnt
  integer :: buf(cnt), i, ierr
  buf = 7
  do i = 1, nmsg
    call MPI_Send(buf, cnt, MPI_INTEGER, 1, 11, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) stop 3
  end do
end subroutine sendloop

subroutine recvloop(nmsg, cnt)
  use mpi_f08
  implicit none
  integer, intent(in) :: nmsg, cnt
  integer :: buf(cnt), i, n
  type(MPI_Status) :: st
  do i = 1, nmsg
    if (mod(i, 2) == 0) then
      call MPI_Recv(buf, cnt, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(buf, cnt, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, st)
      call MPI_Get_count(st, MPI_INTEGER, n)
      if (n /= cnt .or. st%MPI_SOURCE /= 0) stop 4
    end if
    if (buf(cnt) /= 7) stop 2
  end do
end subroutine recvloop

subroutine inplace(nip)
  use mpi_f08
  implicit none
  integer, intent(in) :: nip
  double precision :: v(3)
  integer :: i
  do i = 1, nip
    v = 1.0d0
    call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
end subroutine inplace

subroutine exchange(rank, cnt)
  use mpi_f08
  implicit none
  integer, intent(in) :: rank, cnt
  integer :: sbuf(cnt), rbuf(cnt), ierr
  type(MPI_Request) :: reqs(2)
  sbuf = rank
  call MPI_Irecv(rbuf, cnt, MPI_INTEGER, 1 - rank, 12, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, cnt, MPI_INTEGER, 1 - rank, 12, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. rbuf(1) /= 1 - rank) stop 5
end subroutine exchange

program f08test
  use mpi_f08
  implicit none
  integer, parameter :: NMSG = 9, CNT = 250, NIP = 5
  integer :: rank, nprocs, i
  double precision :: x, y
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  x = rank
  do i = 1, 100
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  if (rank == 0) then
    do i = 1, 7
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
    end do
  else if (rank == 1) then
    do i = 1, 7
      call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, st)
    end do
  end if
  if (rank == 0) call sendloop(NMSG, CNT)
  if (rank == 1) call recvloop(NMSG, CNT)
  call inplace(NIP)
  if (rank < 2) call exchange(rank, CNT)
  if (rank == 0) print '(a)', 'f08: done'
  call MPI_Finalize()
end program f08test
