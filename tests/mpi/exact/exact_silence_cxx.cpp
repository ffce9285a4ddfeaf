/*
 * exact_silence_cxx.cpp - C++ names that measure nothing
 * (tests/mpi/exact_silence.sh): ns::Grid::at (an inline member) and
 * ns::twice (static inline in a namespace: its DWARF has no linkage name,
 * its declaration sits in ns) are inlined everywhere at -O2; ns::run is
 * measured.
 */
#include <mpi.h>

#include <cstdio>

namespace ns
{
struct Grid {
    int n;
    inline int at(int i) const
    {
        return i * n;
    }
};

static inline int twice(int x)
{
    return 2 * x;
}

__attribute__((noinline)) int run(const Grid &g, int x)
{
    return g.at(x) + twice(x);
}
} // namespace ns

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ns::Grid g{ argc };
    int s = 0;
    for (int i = 0; i < 100; i++)
        s += ns::run(g, i);
    std::printf("%d\n", s > 0);
    MPI_Finalize();
    return 0;
}
