#!/usr/bin/env python3
"""Writes a random call-tree program (C or C++) for the unwind equivalence test.

    gen_calltree.py SEED c|cxx > prog.c

Functions f0..fN-1 call each other (forward calls, direct and mutual
recursion bounded by a depth argument, tail calls, always-inlined helpers,
function pointers), do a little arithmetic (so that samples land
everywhere) and call MPI_Barrier(MPI_COMM_SELF) at random points.
main runs the tree ITER times (argv[1]). Output: `done CHECKSUM`.
"""
import random
import sys

seed, lang = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(seed)
N = rnd.randint(8, 16)
out = []
w = out.append
w("#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n")
w("static volatile long sink;\nstatic long acc;\n")
for i in range(N):
    w("%slong f%d(int d, long x);" % ("" if lang == "c" else "", i))
w("")
# always-inlined helpers that may call MPI themselves
w("static inline __attribute__((always_inline)) long inl_mpi(long x) { MPI_Barrier(MPI_COMM_SELF); return x + 1; }")
w("static inline __attribute__((always_inline)) long inl_work(long x) { for (int k = 0; k < 50; k++) x = x * 31 + k; return x; }")
w("typedef long (*fp_t)(int, long);")
w("static fp_t table[%d];" % N)
for i in range(N):
    attr = rnd.choice(["__attribute__((noinline))", "", "static __attribute__((noinline))"])
    attr = "__attribute__((noinline))" if attr.startswith("static") else attr
    w("%s long f%d(int d, long x)\n{" % (attr, i))
    w("    volatile long local = x;")
    w("    if (d <= 0) { MPI_Barrier(MPI_COMM_SELF); return local + %d; }" % i)
    body = []
    for _ in range(rnd.randint(1, 4)):
        kind = rnd.random()
        if kind < 0.25:
            body.append("    MPI_Barrier(MPI_COMM_SELF);")
        elif kind < 0.35:
            body.append("    x = inl_mpi(x);")
        elif kind < 0.5:
            body.append("    x = inl_work(x); for (int k = 0; k < %d; k++) sink += k ^ x;" % rnd.choice([1000, 10000, 30000]))
        elif kind < 0.65 and i + 1 < N:
            j = rnd.randint(i + 1, N - 1)
            body.append("    x += f%d(d - 1, x);" % j)
        elif kind < 0.75:
            body.append("    if (d %% 3 == 1) x += f%d(d - 1, x); /* recursion */" % i)
        elif kind < 0.85:
            j = rnd.randint(0, N - 1)
            body.append("    if (d > 2) x += f%d(d - 2, x); /* mutual recursion */" % j)
        else:
            j = rnd.randint(0, N - 1)
            body.append("    if ((x & 3) == 0) x += table[%d](d - 1, x); /* through a pointer */" % j)
    out.extend(body)
    if rnd.random() < 0.4:
        j = rnd.randint(0, N - 1)
        w("    return f%d(d - 1, x + local); /* tail call */" % j)
    else:
        w("    return x + local;")
    w("}\n")
w("int main(int argc, char **argv)\n{")
w("    MPI_Init(&argc, &argv);")
for i in range(N):
    w("    table[%d] = f%d;" % (i, i))
w("    int iters = argc > 1 ? atoi(argv[1]) : 100;")
w("    for (int it = 0; it < iters; it++)")
w("        for (int r = 0; r < 4; r++)")
w("            acc += f%d(%d, it + r) + f%d(3, r);" % (0, rnd.randint(5, 8), rnd.randint(0, N - 1)))
w('    printf("done %ld\\n", acc);')
w("    MPI_Finalize();")
w("    return 0;\n}")
print("\n".join(out))
