#!/bin/bash
# lang_fortran08: MPI called through the Fortran 2008 binding (use mpi_f08)
# is measured like C and mpif.h calls: counted once, under the C names, with
# exact bytes (IERROR present or absent, MPI_STATUS_IGNORE, MPI_IN_PLACE,
# request arrays) and the calling Fortran routine as the caller. The main
# program is issue 14's reproducer, which used to give no profile at all.
# Paths are matched by their end, whatever lies above main.
. "$(dirname "$0")/progs/lib.sh"
require_built "fortran08 build"
export HPROF_SAMPLING_HZ=0
NP=2 NMSG=9 CNT=250 NIP=5 NRED=100 NMAIN=7

build_or_fail "fortran08 build" build_plain "$MPIF90" "$PROGS/f08.f90" f08 || finish
prof=$PWD/f08.cubex
HPROF_OUTPUT=$prof run_mpi_preload f08 "$NP" ./f08; rc=$?
profile_run_check "fortran08 run" f08 "$prof" f08.csv "$rc" || { show f08.err; finish; }
ok "fortran08 run"
check "fortran08 program output" "no 'f08: done' on stdout" grep -q 'f08: done' f08.out

E=f08.expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
B=$((NMSG * CNT * 4))
# counted once, under the C name, wherever in the tree
t "MPI_Init once" 'glob:*;MPI_Init' '*' visits == 1
t "MPI_Send once" 'glob:*;MPI_Send' 0 visits == $((NMSG + NMAIN))
t "MPI_Send once" 'glob:*;MPI_Send' 1 visits absent
t "MPI_Recv once" 'glob:*;MPI_Recv' 1 visits == $((NMSG + NMAIN))
t "MPI_Recv once" 'glob:*;MPI_Recv' 0 visits absent
t "MPI_Allreduce once" 'glob:*;MPI_Allreduce' '*' visits == $((NRED + NIP))
t "MPI_Comm_rank not unwound" 'glob:*(not unwound);MPI_Comm_rank' '*' visits == 1
# per call path, with the caller
t "main program" 'glob:*main;MAIN__;MPI_Allreduce' '*' visits == "$NRED"
t "main program bytes" 'glob:*main;MAIN__;MPI_Allreduce' '*' bytes_sent == $((NRED * NP * 8))
t "main program bytes" 'glob:*main;MAIN__;MPI_Allreduce' '*' bytes_received == $((NRED * NP * 8))
t "main program" 'glob:*main;MAIN__;MPI_Send' 0 visits == "$NMAIN"
t "main program bytes" 'glob:*main;MAIN__;MPI_Send' 0 bytes_sent == $((NMAIN * 8))
t "main program" 'glob:*main;MAIN__;MPI_Recv' 1 visits == "$NMAIN"
t "main program bytes" 'glob:*main;MAIN__;MPI_Recv' 1 bytes_received == $((NMAIN * 8))
t "MPI_Init from the main program" 'glob:*main;MAIN__;MPI_Init' '*' visits == 1
t "IERROR present" 'glob:*main;MAIN__;sendloop_;MPI_Send' 0 visits == "$NMSG"
t "IERROR present bytes" 'glob:*main;MAIN__;sendloop_;MPI_Send' 0 bytes_sent == "$B"
t "MPI_STATUS_IGNORE" 'glob:*main;MAIN__;recvloop_;MPI_Recv' 1 visits == "$NMSG"
t "MPI_STATUS_IGNORE bytes" 'glob:*main;MAIN__;recvloop_;MPI_Recv' 1 bytes_received == "$B"
t "MPI_IN_PLACE" 'glob:*main;MAIN__;inplace_;MPI_Allreduce' '*' visits == "$NIP"
t "MPI_IN_PLACE bytes" 'glob:*main;MAIN__;inplace_;MPI_Allreduce' '*' bytes_sent == $((NIP * (NP - 1) * 24))
t "MPI_IN_PLACE bytes" 'glob:*main;MAIN__;inplace_;MPI_Allreduce' '*' bytes_received == $((NIP * (NP - 1) * 24))
t "request arrays" 'glob:*main;MAIN__;exchange_;MPI_Isend' '*' bytes_sent == $((CNT * 4))
t "request arrays" 'glob:*main;MAIN__;exchange_;MPI_Irecv' '*' visits == 1
t "request arrays" 'glob:*main;MAIN__;exchange_;MPI_Waitall' '*' bytes_received == $((CNT * 4))
# each routine entered once: entries seen by the thunk stack (function_entries_seen)
t "routines entered once" 'glob:*main;MAIN__;sendloop_' 0 function_entries_seen == 1
t "routines entered once" 'glob:*main;MAIN__;recvloop_' 1 function_entries_seen == 1
t "routines entered once" 'glob:*main;MAIN__;exchange_' '*' function_entries_seen == 1
t "allowed" 'glob:*main*' '*' visits allow
t "allowed" 'glob:*(not unwound)*' '*' visits allow
csv_check "fortran08" f08.csv $E "$NP" --strict-paths --no-failed

# no Fortran binding frames (mpi_send_f08_, pmpir_send_f08ts_, ...) inside
# the paths and no MPI region under a non-C name
python3 - f08.csv <<'PY'
import csv, re, sys
bad = set()
for row in list(csv.reader(open(sys.argv[1])))[1:]:
    parts = row[0].split(";")
    for i, p in enumerate(parts):
        if re.match(r"(?i)p?mpir?_", p) and (i < len(parts) - 1 or not re.match(r"MPI_[A-Z][a-z0-9_]*$", p)):
            bad.add(row[0])
if bad:
    print("not ok - fortran08 MPI regions under C names only: %s" % "; ".join(sorted(bad)[:5]))
else:
    print("ok - fortran08 MPI regions under C names only")
PY
finish
