#!/bin/bash
# lang_fortran: MPI called from Fortran (use mpi) is counted exactly once,
# under the C names (MPI_Send, MPI_Recv, MPI_Allreduce), with exact p2p bytes
# and the Fortran subroutine as the caller; MPI_IN_PLACE (mpif.h's, found
# per MPI library: wrappers/fortran_mpif.h) is recognised.
. "$(dirname "$0")/progs/lib.sh"
require_built "fortran build"
export HPROF_SAMPLING_HZ=0
NP=2 NMSG=9 CNT=250 NRED=4 NIP=3

build_or_fail "fortran build" build_shared "$MPIF90" "$PROGS/fortran.f90" fortran || finish
prof=$PWD/fortran.cubex
HPROF_OUTPUT=$prof run_mpi fortran "$NP" ./fortran; rc=$?
profile_run_check "fortran run" fortran "$prof" fortran.csv "$rc" || { show fortran.err; finish; }
ok "fortran run"
grep -q 'fortran: done' fortran.out || notok "fortran program output" "no 'fortran: done' on stdout"

E=fortran.expect
: > $E
t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> $E; }
B=$((NMSG * CNT * 4))
# counted once, under the C name, wherever in the tree
t "MPI_Send once" 'glob:*;MPI_Send' 0 visits == "$NMSG"
t "MPI_Send once" 'glob:*;MPI_Send' 1 visits absent
t "MPI_Send bytes" 'glob:*;MPI_Send' 0 bytes_sent == "$B"
t "MPI_Recv once" 'glob:*;MPI_Recv' 1 visits == "$NMSG"
t "MPI_Recv once" 'glob:*;MPI_Recv' 0 visits absent
t "MPI_Recv bytes" 'glob:*;MPI_Recv' 1 bytes_received == "$B"
t "MPI_Allreduce once" 'glob:*;MPI_Allreduce' '*' visits == $((NRED + NIP))
# every rank sends its 8 bytes to each of NP ranks; in place (3 doubles),
# to the others only
t "MPI_Allreduce bytes" 'glob:*reduceloop*;MPI_Allreduce' '*' bytes_sent == $((NRED * NP * 8))
t "MPI_IN_PLACE" 'glob:*inplaceloop*;MPI_Allreduce' '*' visits == "$NIP"
t "MPI_IN_PLACE bytes" 'glob:*inplaceloop*;MPI_Allreduce' '*' bytes_sent == $((NIP * (NP - 1) * 24))
t "MPI_IN_PLACE bytes" 'glob:*inplaceloop*;MPI_Allreduce' '*' bytes_received == $((NIP * (NP - 1) * 24))
t "MPI_Init once" 'glob:*;MPI_Init' '*' visits == 1
t "MPI_Comm_rank not unwound" '(not unwound);MPI_Comm_rank' '*' visits == 1
# under the calling Fortran subroutine, rooted at main
t "caller is the subroutine" 'glob:main;*sendloop*;MPI_Send' 0 visits == "$NMSG"
t "caller is the subroutine" 'glob:main;*recvloop*;MPI_Recv' 1 visits == "$NMSG"
t "caller is the subroutine" 'glob:main;*reduceloop*;MPI_Allreduce' '*' visits == "$NRED"
t "MPI_Init called from the main program" 'glob:main;*;MPI_Init' '*' visits == 1
# each Fortran routine entered once: entries seen by the thunk stack (function_entries_seen)
t "main entered once" 'main' '*' function_entries_seen == 1
t "MAIN__ entered once" 'main;MAIN__' '*' function_entries_seen == 1
t "sendloop entered once" 'main;MAIN__;sendloop_' 0 function_entries_seen == 1
t "recvloop entered once" 'main;MAIN__;recvloop_' 1 function_entries_seen == 1
t "reduceloop entered once" 'main;MAIN__;reduceloop_' '*' function_entries_seen == 1
t "inplaceloop entered once" 'main;MAIN__;inplaceloop_' '*' function_entries_seen == 1
t "allowed" 'glob:main;*' '*' visits allow
t "allowed" 'glob:(not unwound);*' '*' visits allow
csv_check "fortran" fortran.csv $E "$NP" --strict-paths --no-failed --roots "main,(not unwound)"

# no Fortran binding frames (mpi_send_, pmpi_send__, MPI_SEND, ...) inside
# the paths and no MPI region under a non-C name
python3 - fortran.csv <<'PY'
import csv, re, sys
bad = set()
for row in list(csv.reader(open(sys.argv[1])))[1:]:
    parts = row[0].split(";")
    for i, p in enumerate(parts):
        if re.match(r"(?i)p?mpi_", p) and (i < len(parts) - 1 or not re.match(r"MPI_[A-Z][a-z0-9_]*$", p)):
            bad.add(row[0])
if bad:
    print("not ok - fortran MPI regions under C names only: %s" % "; ".join(sorted(bad)[:5]))
else:
    print("ok - fortran MPI regions under C names only")
PY
finish
