#!/usr/bin/env python3
"""Prints the expected profile of exact.c on NP ranks (check_csv.py format).

    exact_expect.py exact_consts.h NP [thunks|nothunks|sampling]

The last argument says what the visits of the program's own functions are:
exact with the thunk stack (default; each of these functions makes an MPI
call on every visit), absent without it, a lower bound with sampling (a
sample that falls back to libunwind drops the thunks: the next walk cannot
tell new frames from old).
"""
import re
import sys

C = {}
for line in open(sys.argv[1]):
    m = re.match(r"#define\s+(\w+)\s+(\d+)", line)
    if m:
        C[m.group(1)] = int(m.group(2))
NP = int(sys.argv[2])
VISITS = sys.argv[3] if len(sys.argv) > 3 else "thunks"
DOUBLE, INT = 8, 4
out = []


def e(group, path, rank, metric, op, value=""):
    out.append("\t".join([group, path, str(rank), metric, op, str(value)]))


def p2p(group, path, r, visits, sent, recv):
    """an MPI call path with exact visits and exact p2p bytes (0: none)"""
    e(group, path, r, "visits", "==", visits)
    for metric, v in (("bytes_sent", sent), ("bytes_received", recv)):
        if v:
            e(group, path, r, metric, "==", v)
        else:
            e(group, path, r, metric, "absent")


def function_visits(path, r, n):
    """visits of a function of exact.c entered n times (not an MPI call)"""
    # a lower bound, so never in visits (which readers sum as exact)
    e("function visits", path, r, "visits", "absent")
    if VISITS == "thunks":
        e("function visits", path, r, "function_entries_seen", "==", n)
    elif VISITS == "nothunks":
        e("function visits", path, r, "function_entries_seen", "absent")
    else:
        e("function visits", path, r, "function_entries_seen", "<=", n)


for r in range(NP):
    left, right = (r + NP - 1) % NP, (r + 1) % NP
    function_visits("main", r, 1)
    function_visits("main;solver", r, 1)
    function_visits("main;solver;exchange", r, C["SR_ITER"])
    for f in ("nonblocking", "persistent", "anysource", "mpiio", "onesided"):
        function_visits("main;" + f, r, 1)
    function_visits("main;tailcall", r, C["TC_ITER"])
    e("MPI_Init", "main;MPI_Init", r, "visits", "==", 1)
    e("MPI_Finalize", "main;MPI_Finalize", r, "visits", "allow")
    e("not unwound", "(not unwound);MPI_Comm_rank", r, "visits", "==", 1)
    e("not unwound", "(not unwound);MPI_Comm_size", r, "visits", "==", 1)

    # main -> solver -> exchange -> MPI_Sendrecv
    sr = C["SR_ITER"] * C["SR_COUNT"] * DOUBLE
    p2p("sendrecv", "main;solver;exchange;MPI_Sendrecv", r, C["SR_ITER"], sr, sr)
    e("sendrecv time", "main;solver;exchange;MPI_Sendrecv", r, "time", ">", 0)
    e("inclusive bytes", "main;solver", r, "bytes_sent@incl", "==", sr)
    e("inclusive bytes", "main;solver;exchange", r, "bytes_received@incl", "==", sr)

    # main -> MPI_Allreduce
    e("allreduce", "main;MPI_Allreduce", r, "visits", "==", C["AR_ITER"])

    # main -> nonblocking -> Irecv/Isend/Waitall(MPI_STATUSES_IGNORE)
    nb = C["NB_ITER"] * C["NB_COUNT"] * INT
    p2p("nonblocking", "main;nonblocking;MPI_Irecv", r, C["NB_ITER"], 0, 0)
    p2p("nonblocking", "main;nonblocking;MPI_Isend", r, C["NB_ITER"], nb, 0)
    p2p("nonblocking", "main;nonblocking;MPI_Waitall", r, C["NB_ITER"], 0, nb)
    e("inclusive bytes", "main;nonblocking", r, "bytes_received@incl", "==", nb)

    # main -> persistent: Recv_init/Send_init, Start x2, Wait x2 (with status)
    ps = C["PS_ITER"] * C["PS_COUNT"] * DOUBLE
    e("persistent", "main;persistent;MPI_Recv_init", r, "visits", "==", 1)
    e("persistent", "main;persistent;MPI_Recv_init", r, "bytes_received", "absent")
    e("persistent", "main;persistent;MPI_Send_init", r, "visits", "==", 1)
    e("persistent", "main;persistent;MPI_Start", r, "visits", "==", 2 * C["PS_ITER"])
    e("persistent", "main;persistent;MPI_Start", r, "bytes_received", "absent")
    e("persistent", "main;persistent;MPI_Wait", r, "visits", "==", 2 * C["PS_ITER"])
    e("persistent", "main;persistent;MPI_Wait", r, "bytes_received", "==", ps)
    # sent bytes of persistent sends: at MPI_Start (Score-P) or Send_init, once
    e("persistent", "glob:main;persistent;*", r, "bytes_sent", "==", ps)
    e("persistent", "main;persistent;MPI_Request_free", r, "visits", "==", 2)

    # main -> anysource: Isend (rank-sized), Recv(ANY_SOURCE, STATUS_IGNORE), Wait(send)
    e_as = C["AS_ITER"] * C["AS_COUNT"] * INT
    p2p("anysource", "main;anysource;MPI_Isend", r, C["AS_ITER"], e_as * (r + 1), 0)
    p2p("anysource", "main;anysource;MPI_Recv", r, C["AS_ITER"], 0, e_as * (left + 1))
    p2p("anysource wait on send request", "main;anysource;MPI_Wait", r, C["AS_ITER"], 0, 0)
    e("anysource", "main;anysource;MPI_Barrier", r, "visits", "==", C["AS_ITER"])

    # main -> tailcall -> MPI_Barrier, then tailcall's tail call: main -> MPI_Barrier
    e("tail call", "main;tailcall;MPI_Barrier", r, "visits", "==", C["TC_ITER"])
    e("tail call", "main;MPI_Barrier", r, "visits", "==", C["TC_ITER"])

    # main -> MPI_Bcast
    e("bcast", "main;MPI_Bcast", r, "visits", "==", C["BC_ITER"])
    if r != 0:
        e("bcast", "main;MPI_Bcast", r, "bytes_received", ">", 0)

    # main -> mpiio
    wr = sum((i + 1) * C["IO_BLOCK"] + r for i in range(C["IO_NBLOCK"]))
    e("mpiio", "main;mpiio;MPI_File_open", r, "visits", "==", 1)
    e("mpiio", "main;mpiio;MPI_File_write_at", r, "visits", "==", C["IO_NBLOCK"])
    e("mpiio", "main;mpiio;MPI_File_write_at", r, "io_bytes_written", "==", wr)
    e("mpiio", "main;mpiio;MPI_File_write_at", r, "io_bytes_read", "absent")
    e("mpiio", "main;mpiio;MPI_File_sync", r, "visits", "==", 1)
    e("mpiio", "main;mpiio;MPI_File_read_at", r, "visits", "==", C["IO_NBLOCK"])
    e("mpiio", "main;mpiio;MPI_File_read_at", r, "io_bytes_read", "==", wr)
    e("mpiio", "main;mpiio;MPI_File_read_at", r, "io_bytes_written", "absent")
    e("mpiio", "main;mpiio;MPI_File_close", r, "visits", "==", 1)
    e("mpiio", "glob:*", r, "io_bytes_written", "==", wr)

    # main -> onesided
    e("onesided", "main;onesided;MPI_Win_allocate", r, "visits", "==", 1)
    e("onesided", "main;onesided;MPI_Win_fence", r, "visits", "==", 3)
    e("onesided", "main;onesided;MPI_Put", r, "visits", "==", C["PUT_ITER"])
    e("onesided", "main;onesided;MPI_Put", r, "bytes_put", "==", C["PUT_ITER"] * C["PUT_COUNT"] * DOUBLE)
    e("onesided", "main;onesided;MPI_Get", r, "visits", "==", 1)
    e("onesided", "main;onesided;MPI_Get", r, "bytes_get", "==", C["GET_COUNT"] * INT)
    e("onesided", "main;onesided;MPI_Win_free", r, "visits", "==", 1)
    e("onesided", "glob:*", r, "bytes_put", "==", C["PUT_ITER"] * C["PUT_COUNT"] * DOUBLE)

# collective bytes: nonzero and equal across ranks (exact value is a convention)
e("allreduce bytes", "main;MPI_Allreduce", "*", "bytes_sent", "eqranks")
e("allreduce bytes", "main;MPI_Allreduce", "*", "bytes_received", "eqranks")

print("\n".join(out))
